"""Port of server-common's org.apache.kafka.queue (Kafka 3.9): the single-threaded event queue KRaft runs on."""
