"""Ports of clients/src/main/java/org/apache/kafka/common/internals (Kafka 1.0.2)."""
