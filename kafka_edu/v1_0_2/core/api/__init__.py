"""Kafka 1.0.2's `kafka.api` package: the request-level data classes the controller and the brokers share."""
