"""Port of metadata/src/main/java/org/apache/kafka/metadata/properties (Kafka 3.9): meta.properties."""
