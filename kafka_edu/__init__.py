"""kafka-edu: an instrumented Python port of the Apache Kafka broker."""

__version__ = "0.1.0"
