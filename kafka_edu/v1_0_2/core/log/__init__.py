"""The log layer: Log, LogSegment, their indexes and the FileRecords they are built on (Kafka 1.0.2)."""
