"""Port of tools' org.apache.kafka.tools.reassign (Kafka 3.9): kafka-reassign-partitions."""
