"""Port of the metadata module of Kafka 3.9 (org.apache.kafka.metadata, org.apache.kafka.controller, ...)."""
