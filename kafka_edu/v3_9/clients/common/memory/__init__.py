"""org.apache.kafka.common.memory (Kafka 3.9): the pools network receives take their buffers from."""
