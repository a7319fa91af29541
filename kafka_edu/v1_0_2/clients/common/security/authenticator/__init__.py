"""org.apache.kafka.common.security.authenticator (Kafka 1.0.2): the broker's side of a SASL login."""
