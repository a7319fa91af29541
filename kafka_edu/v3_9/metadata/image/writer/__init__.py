"""Port of metadata/src/main/java/org/apache/kafka/image/writer/ (Kafka 3.9)."""
