"""Port of core/src/main/java/kafka/server/handlers (Kafka 3.9): request handlers KafkaApis delegates to."""
