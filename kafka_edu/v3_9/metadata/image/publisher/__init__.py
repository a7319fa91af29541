"""Port of metadata/src/main/java/org/apache/kafka/image/publisher/ (Kafka 3.9)."""
