"""Port of clients/src/main/java/org/apache/kafka/common/errors/RebalanceInProgressException.java (Kafka 3.9): the
group is rebalancing, so the request has to wait for the new generation (REBALANCE_IN_PROGRESS)."""

from __future__ import annotations

from kafka_edu.v1_0_2.clients.common.errors import ApiException


class RebalanceInProgressException(ApiException):
    pass
