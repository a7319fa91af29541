"""Port of metadata/src/main/java/org/apache/kafka/metadata/bootstrap (Kafka 3.9): the bootstrap metadata."""
