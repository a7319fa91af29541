"""The group coordinator: consumer-group membership and committed offsets (kafka.coordinator.group, Kafka 1.0.2)."""
