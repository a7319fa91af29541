"""Raft snapshots, ported from Kafka 3.9's raft/src/main/java/org/apache/kafka/snapshot."""
