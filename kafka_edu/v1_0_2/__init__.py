"""Kafka 1.0.2, ZooKeeper mode, laid out as its source is: `core/` is core/src/main/scala/kafka/ (`core/server/`
is kafka.server), `clients/` is clients/src/main/java/org/apache/kafka/ (`clients/common/record/` is
org.apache.kafka.common.record). A file's path names its Kafka twin."""
