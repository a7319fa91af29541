"""Port of the image-test helpers of metadata/src/test/java/org/apache/kafka/metadata/RecordTestUtils.java (Kafka 3.9):
an image rebuilt from records, from the empty image, through every intermediate image, in batches of every size."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

from kafka_edu.v3_9.metadata.image.writer.image_writer_options import ImageWriterOptions
from kafka_edu.v3_9.metadata.image.writer.record_list_writer import RecordListWriter


def image_records(image: Any) -> list[Any]:
    """The records an image writes of itself (what a snapshot holds)."""
    writer = RecordListWriter()
    image.write(writer, ImageWriterOptions.Builder().build())
    return writer.records()


class ThroughAllIntermediateImagesLeadingToFinalImage:
    """RecordTestUtils.TestThroughAllIntermediateImagesLeadingToFinalImageHelper: `replay_all(delta, records)` applies
    records to a delta, as each image type's test does for its own record types."""

    def __init__(self, empty_image: Callable[[], Any], new_delta: Callable[[Any], Any],
                 replay_all: Callable[[Any, Sequence[Any]], None]) -> None:
        self.empty_image = empty_image
        self.new_delta = new_delta
        self.replay_all = replay_all

    def _image_from(self, image: Any, records: Sequence[Any]) -> Any:
        delta = self.new_delta(image)
        self.replay_all(delta, records)
        return delta.apply()

    def test(self, final_image: Any, from_records: Sequence[Any]) -> None:
        assert self._image_from(self.empty_image(), from_records) == final_image
        # from each intermediate image, the rest of the records in batches of each size reach the same final image
        for first in range(1, len(from_records) + 1):
            first_image = self._image_from(self.empty_image(), from_records[:first])
            remaining = len(from_records) - first
            for batch_size in range(1, remaining + 1):
                latest = first_image
                for batch in range(math.ceil(remaining / batch_size)):
                    start = first + batch * batch_size
                    latest = self._image_from(latest, from_records[start:start + batch_size])
                assert latest == final_image
