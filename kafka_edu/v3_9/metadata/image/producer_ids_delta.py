"""Port of metadata/src/main/java/org/apache/kafka/image/ProducerIdsDelta.java (Kafka 3.9)."""

from __future__ import annotations

from typing import Any

from kafka_edu.v3_9.metadata.image.producer_ids_image import ProducerIdsImage


class ProducerIdsDelta:
    """The newest ProducerIdsRecord's next id; a record always moves it forward, so the last one wins."""

    def __init__(self, image: ProducerIdsImage) -> None:
        self._next_producer_id = image.next_producer_id

    def set_next_producer_id(self, next_producer_id: int) -> None:
        self._next_producer_id = next_producer_id

    def next_producer_id(self) -> int:
        return self._next_producer_id

    def replay(self, record: Any) -> None:
        self._next_producer_id = record.next_producer_id

    def finish_snapshot(self) -> None:
        pass  # a snapshot without the record leaves the id where it was: ids never go back

    def apply(self) -> ProducerIdsImage:
        return ProducerIdsImage(self._next_producer_id)

    def __str__(self) -> str:
        return f"ProducerIdsDelta(nextProducerId={self._next_producer_id})"
