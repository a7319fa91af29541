"""Port of clients/src/main/java/org/apache/kafka/common/errors/AuthorizerNotReadyException.java (Kafka 3.9)."""

from __future__ import annotations

from kafka_edu.v1_0_2.clients.common.errors import RetriableException


class AuthorizerNotReadyException(RetriableException):
    """The authorizer has not loaded its ACLs yet (it has no error code of its own: UNKNOWN_SERVER_ERROR)."""
