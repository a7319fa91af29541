"""The KRaft consensus client, ported from Kafka 3.9's `org.apache.kafka.raft` (static voters only)."""
