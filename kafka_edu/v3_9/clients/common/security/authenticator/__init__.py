"""org.apache.kafka.common.security.authenticator (Kafka 3.9)."""
