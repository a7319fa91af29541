"""Port of FetchResponse.AbortedTransaction, clients/src/main/java/org/apache/kafka/common/requests/FetchResponse.java
(Kafka 1.0.2): the part of a Fetch response the broker builds from its transaction index."""

from __future__ import annotations

from typing import NamedTuple

INVALID_HIGHWATERMARK = -1
INVALID_LAST_STABLE_OFFSET = -1
INVALID_LOG_START_OFFSET = -1


class AbortedTransaction(NamedTuple):
    """An aborted transaction a read_committed consumer must skip: its producer's records from `first_offset` up to
    the ABORT marker it will meet in the data."""

    producer_id: int
    first_offset: int
