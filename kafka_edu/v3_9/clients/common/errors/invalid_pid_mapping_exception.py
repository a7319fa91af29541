"""Port of clients/src/main/java/org/apache/kafka/common/errors/InvalidPidMappingException.java (Kafka 3.9): the
producer id does not match the transactional id, or a request mixes producer ids (INVALID_PRODUCER_ID_MAPPING)."""

from __future__ import annotations

from kafka_edu.v1_0_2.clients.common.errors import ApiException


class InvalidPidMappingException(ApiException):
    pass
