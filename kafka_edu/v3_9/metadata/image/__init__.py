"""Port of metadata/src/main/java/org/apache/kafka/image/ (Kafka 3.9): the metadata image, its deltas, the loader
that builds them from the metadata log, the publishers it feeds, and the writers that turn an image into records."""
