"""Port of server-common's org.apache.kafka.deferred (Kafka 3.9): work completed once the log commits it."""
