"""Port of raft/src/test/java/org/apache/kafka/raft/MockNetworkChannel.java (Kafka 3.9): a channel that sends
nothing. Requests queue up until a test drains them; `mock_receive` completes a drained request with a response."""

from __future__ import annotations

import itertools
from collections.abc import Iterator

from kafka_edu.v3_9.clients.common.protocol.api_keys import ApiKeys
from kafka_edu.v3_9.raft.raft.network_channel import NetworkChannel
from kafka_edu.v3_9.raft.raft.raft_message import InboundResponse, OutboundRequest

LISTENER_NAME = "LISTENER"  # VoterSetTest.DEFAULT_LISTENER_NAME


class MockNetworkChannel(NetworkChannel):
    LISTENER_NAME = LISTENER_NAME

    def __init__(self, correlation_id_counter: Iterator[int] | None = None) -> None:
        """`correlation_id_counter`: an iterator shared between channels (Java's AtomicInteger), from 0 by default."""
        self._correlation_id_counter = correlation_id_counter if correlation_id_counter is not None \
            else itertools.count(0)
        self._send_queue: list[OutboundRequest] = []
        self._awaiting_response: dict[int, OutboundRequest] = {}

    def new_correlation_id(self) -> int:
        return next(self._correlation_id_counter)

    def send(self, request: OutboundRequest) -> None:
        self._send_queue.append(request)

    def listener_name(self) -> str:
        return LISTENER_NAME

    def drain_send_queue(self) -> list[OutboundRequest]:
        return self.drain_sent_requests(None)

    def drain_sent_requests(self, api_key_filter: ApiKeys | None) -> list[OutboundRequest]:
        """The sent requests (of `api_key_filter`'s API only, when given), now awaiting their response."""
        requests = []
        kept = []
        for request in self._send_queue:
            if api_key_filter is None or request.api_key() == int(api_key_filter):
                self._awaiting_response[request.correlation_id] = request
                requests.append(request)
            else:
                kept.append(request)
        self._send_queue = kept
        return requests

    def has_sent_requests(self) -> bool:
        return bool(self._send_queue)

    def mock_receive(self, response: InboundResponse) -> None:
        request = self._awaiting_response.get(response.correlation_id)
        if request is None:
            raise RuntimeError("Received response for a request which is not being awaited")
        request.completion.complete(response)
