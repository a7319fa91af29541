"""Port of server-common/src/main/java/org/apache/kafka/timeline/TimelineLong.java (Kafka 3.9).

Java needs a class per primitive type; Python's int is both, so TimelineLong is TimelineInteger under Kafka's other
name (an offset, an epoch)."""

from __future__ import annotations

from kafka_edu.v3_9.server_common.timeline.timeline_integer import TimelineInteger


class TimelineLong(TimelineInteger):
    """A long readable at any snapshot of its registry (an offset, an epoch)."""
