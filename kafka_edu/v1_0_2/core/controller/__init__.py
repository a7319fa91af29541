"""The ZooKeeper-mode controller (Kafka 1.0.2 `kafka.controller`)."""
