"""org.apache.kafka.common.network (Kafka 3.9): the Selector, its channels, their transport layers and the framed
sends and receives they carry (PLAINTEXT; SSL and SASL are not ported yet)."""
