"""Port of metadata/src/main/java/org/apache/kafka/metadata/storage (Kafka 3.9): formatting storage directories."""
