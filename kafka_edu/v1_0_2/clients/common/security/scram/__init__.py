"""org.apache.kafka.common.security.scram (Kafka 1.0.2): SASL/SCRAM-SHA-256 and -512 (RFC 5802), credentials in
ZooKeeper."""
