"""Kafka 1.0.2's `kafka.cluster` package (core/src/main/scala/kafka/cluster/): Partition and Replica."""
