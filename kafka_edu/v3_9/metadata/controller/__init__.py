"""Port of metadata/src/main/java/org/apache/kafka/controller/ (Kafka 3.9): the KRaft QuorumController."""
