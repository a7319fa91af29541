"""Port of server-common's org.apache.kafka.timeline (Kafka 3.9): data structures that can revert to a snapshot."""
