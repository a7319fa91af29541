"""Port of BrokerTopicStats / BrokerTopicMetrics from core/src/main/scala/kafka/server/KafkaRequestHandler.scala
(Kafka 1.0.2): per-topic and all-topics meters of what the broker takes in and sends out."""

from __future__ import annotations

import threading
from collections import defaultdict

METER_NAMES = ("MessagesInPerSec", "BytesInPerSec", "BytesOutPerSec", "BytesRejectedPerSec",
               "FailedProduceRequestsPerSec", "FailedFetchRequestsPerSec", "TotalProduceRequestsPerSec",
               "TotalFetchRequestsPerSec")


class BrokerTopicMetrics:
    """Monotonic counters, one per meter name (a yammer Meter's count)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.counts: dict[str, int] = dict.fromkeys(METER_NAMES, 0)

    def mark(self, meter: str, n: int = 1) -> None:
        with self._lock:
            self.counts[meter] += n


class BrokerTopicStats:
    def __init__(self) -> None:
        self.stats: defaultdict[str, BrokerTopicMetrics] = defaultdict(BrokerTopicMetrics)
        self.all_topics_stats = BrokerTopicMetrics()

    def topic_stats(self, topic: str) -> BrokerTopicMetrics:
        return self.stats[topic]

    def remove_metrics(self, topic: str) -> None:
        self.stats.pop(topic, None)

    def close(self) -> None:
        self.stats.clear()
