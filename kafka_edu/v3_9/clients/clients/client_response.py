"""Port of clients/src/main/java/org/apache/kafka/clients/ClientResponse.java (Kafka 3.9): a response and what came
with it (the request's header, where it went, when it came back, or that the connection dropped first)."""

from __future__ import annotations

from typing import Any

from kafka_edu.v1_0_2.clients.common.errors import IllegalStateException
from kafka_edu.v3_9.clients.common.requests.request_header import RequestHeader


class ClientResponse:
    """`response_body` is the parsed response (a FetchResponse, or kio's message of the request's version where the
    request class is not ported); the callback of Kafka's constructor is left out (callers here block)."""

    def __init__(self, request_header: RequestHeader, destination: str, created_time_ms: int,
                 received_time_ms: int, disconnected: bool, version_mismatch: BaseException | None,
                 authentication_exception: BaseException | None, response_body: Any, timed_out: bool = False) -> None:
        if not disconnected and timed_out:
            raise IllegalStateException("The client response can't be in the state of connected, yet timed out")
        self._request_header = request_header
        self._destination = destination
        self._received_time_ms = received_time_ms
        self._latency_ms = received_time_ms - created_time_ms
        self._disconnected = disconnected
        self._timed_out = timed_out
        self._version_mismatch = version_mismatch
        self._authentication_exception = authentication_exception
        self.response_body = response_body

    def received_time_ms(self) -> int:
        return self._received_time_ms

    def was_disconnected(self) -> bool:
        return self._disconnected

    def was_timed_out(self) -> bool:
        return self._timed_out

    def version_mismatch(self) -> BaseException | None:
        return self._version_mismatch

    def authentication_exception(self) -> BaseException | None:
        return self._authentication_exception

    def request_header(self) -> RequestHeader:
        return self._request_header

    def destination(self) -> str:
        return self._destination

    def has_response(self) -> bool:
        return self.response_body is not None

    def request_latency_ms(self) -> int:
        return self._latency_ms

    def __str__(self) -> str:
        return (f"ClientResponse(receivedTimeMs={self._received_time_ms}, latencyMs={self._latency_ms}, "
                f"disconnected={self._disconnected}, timedOut={self._timed_out}, "
                f"requestHeader={self._request_header}, responseBody={self.response_body})")
