"""Kafka's command-line tools of Kafka 3.9 (`kafka.tools`, `org.apache.kafka.tools`): storage, dump-log, ..."""
