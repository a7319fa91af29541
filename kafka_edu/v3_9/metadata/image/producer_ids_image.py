"""Port of metadata/src/main/java/org/apache/kafka/image/ProducerIdsImage.java (Kafka 3.9)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from kafka_edu.v3_9.metadata.common.metadata import ProducerIdsRecord
from kafka_edu.v3_9.metadata.image.writer.image_writer import ImageWriter
from kafka_edu.v3_9.metadata.image.writer.image_writer_options import ImageWriterOptions


@dataclass(frozen=True)
class ProducerIdsImage:
    """The first producer id no broker has been given yet (-1 before any block was handed out)."""

    EMPTY: ClassVar[ProducerIdsImage]

    next_producer_id: int

    def is_empty(self) -> bool:
        return self.next_producer_id == ProducerIdsImage.EMPTY.next_producer_id

    def write(self, writer: ImageWriter, options: ImageWriterOptions) -> None:
        # a snapshot must carry it, or a controller loading the snapshot would hand out used ids again
        if self.next_producer_id >= 0:
            writer.write(0, ProducerIdsRecord(broker_id=-1, broker_epoch=-1, next_producer_id=self.next_producer_id))


ProducerIdsImage.EMPTY = ProducerIdsImage(-1)
