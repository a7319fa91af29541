"""Port of clients/src/main/java/org/apache/kafka/common/network/DelayedResponseAuthenticationException.java (Kafka
3.9): an authentication failure whose response, and the channel's close, the Selector delays."""

from __future__ import annotations

from kafka_edu.v1_0_2.clients.common.errors import AuthenticationException


class DelayedResponseAuthenticationException(AuthenticationException):
    def __init__(self, cause: BaseException) -> None:
        super().__init__(str(cause))
        self.__cause__ = cause
