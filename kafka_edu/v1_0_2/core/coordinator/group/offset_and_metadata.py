"""Port of core/src/main/scala/kafka/common/OffsetAndMetadata.scala (Kafka 1.0.x; read through its 1.1 callers)."""

from __future__ import annotations

from dataclasses import dataclass

NO_METADATA = ""
INVALID_OFFSET = -1
DEFAULT_TIMESTAMP = -1  # OffsetCommitRequest.DEFAULT_TIMESTAMP: "no time given"


@dataclass(frozen=True)
class OffsetAndMetadata:
    """A committed offset: where the group resumes, the client's metadata string, and when it was committed and
    expires (both in ms; -1 when not set, which loading turns into commit time + offsets.retention.minutes)."""

    offset: int
    metadata: str = NO_METADATA
    commit_timestamp: int = DEFAULT_TIMESTAMP
    expire_timestamp: int = DEFAULT_TIMESTAMP
