"""org.apache.kafka.common.security.plain (Kafka 1.0.2): SASL/PLAIN, users and passwords from the JAAS file."""
