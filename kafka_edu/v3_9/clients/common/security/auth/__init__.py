"""org.apache.kafka.common.security.auth (Kafka 3.9)."""
