"""org.apache.kafka.raft.internals (Kafka 3.9): the raft client's private machinery."""
