"""The broker's side of the KRaft metadata (Kafka 3.9's kafka.server.metadata): the metadata cache read from the
current MetadataImage, and the publisher that applies each new image to the broker."""
