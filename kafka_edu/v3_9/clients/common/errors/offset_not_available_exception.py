"""Port of clients/src/main/java/org/apache/kafka/common/errors/OffsetNotAvailableException.java (Kafka 3.9): the
leader cannot answer for offsets yet, its high watermark lags the start of its epoch (OFFSET_NOT_AVAILABLE)."""

from __future__ import annotations

from kafka_edu.v1_0_2.clients.common.errors import RetriableException


class OffsetNotAvailableException(RetriableException):
    pass
