"""Port of clients/src/main/java/org/apache/kafka/common/errors/InconsistentGroupProtocolException.java (Kafka 3.9):
a member's protocols share none with the group's (INCONSISTENT_GROUP_PROTOCOL)."""

from __future__ import annotations

from kafka_edu.v1_0_2.clients.common.errors import ApiException


class InconsistentGroupProtocolException(ApiException):
    pass
