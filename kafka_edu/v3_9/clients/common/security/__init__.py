"""org.apache.kafka.common.security (Kafka 3.9)."""
