"""Port of clients/src/main/java/org/apache/kafka/common/errors/StaleMemberEpochException.java (Kafka 3.9): a consumer
group member sent an epoch other than its current one, e.g. to commit offsets; it may retry with the right one
(STALE_MEMBER_EPOCH)."""

from __future__ import annotations

from kafka_edu.v1_0_2.clients.common.errors import ApiException


class StaleMemberEpochException(ApiException):
    pass
