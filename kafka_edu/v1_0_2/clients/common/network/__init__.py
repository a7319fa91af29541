"""Port of org.apache.kafka.common.network (clients, Kafka 1.0.2): the non-blocking Selector the broker reads and
writes connections with."""
