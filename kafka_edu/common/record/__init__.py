"""Ports of clients/src/main/java/org/apache/kafka/common/record (Kafka 3.9) that kafka_edu/log does not hold."""
