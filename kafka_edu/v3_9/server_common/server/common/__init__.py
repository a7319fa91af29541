"""Port of server-common's `org.apache.kafka.server.common` (Kafka 3.9)."""
