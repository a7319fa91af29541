"""Port of metadata/src/main/java/org/apache/kafka/metadata/placement/ (Kafka 3.9): where new replicas go."""
