"""Port of server-common's org.apache.kafka.admin (Kafka 3.9): the replica assignment the admin tools propose."""
