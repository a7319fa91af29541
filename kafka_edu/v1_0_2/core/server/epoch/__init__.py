"""Leader epochs of a partition's log: kafka.server.epoch (Kafka 1.0.2, with what 3.9's raft needs)."""
