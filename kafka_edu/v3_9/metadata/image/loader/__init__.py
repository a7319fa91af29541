"""Port of metadata/src/main/java/org/apache/kafka/image/loader/ (Kafka 3.9)."""
