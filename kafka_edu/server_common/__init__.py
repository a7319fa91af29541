"""Ports of Kafka 3.9's server-common module (org.apache.kafka.server.common) that have no other home."""
