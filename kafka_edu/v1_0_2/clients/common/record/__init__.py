"""Ports of clients/src/main/java/org/apache/kafka/common/record (Kafka 1.0.2): the record batch format."""
