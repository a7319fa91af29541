"""Our own code, not a Kafka port: the gallery of Kafka's famous failures, each one replayed on a fresh run
(docs/gallery.md)."""
