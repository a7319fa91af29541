"""Port of raft/src/main/java/org/apache/kafka/raft/internals/DefaultRequestSender.java (Kafka 3.9).

Sends through the raft client's channel and request manager; the response lands on the client's message queue like
any other, so the raft thread handles it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from kafka_edu.v3_9.clients.common.protocol.api_keys import ApiKeys
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from kafka_edu.v3_9.raft.raft import raft_util
from kafka_edu.v3_9.raft.raft.network_channel import NetworkChannel
from kafka_edu.v3_9.raft.raft.raft_message import InboundResponse, OutboundRequest
from kafka_edu.v3_9.raft.raft.raft_message_queue import RaftMessageQueue
from kafka_edu.v3_9.raft.raft.request_manager import RequestManager
from kafka_edu.v3_9.raft.raft.voter_set import Node

log = logging.getLogger("org.apache.kafka.raft.internals.DefaultRequestSender")


class DefaultRequestSender:
    def __init__(self, request_manager: RequestManager, channel: NetworkChannel, message_queue: RaftMessageQueue,
                 log_context: Any = None) -> None:
        self._request_manager = request_manager
        self._channel = channel
        self._message_queue = message_queue

    def listener_name(self) -> str:
        return self._channel.listener_name()

    def send(self, destination: Node, request_supplier: Callable[[], Any], current_time_ms: int) -> int | None:
        if self._request_manager.is_backing_off(destination, current_time_ms):
            remaining_backoff_ms = self._request_manager.remaining_backoff_ms(destination, current_time_ms)
            log.debug("Connection for %s is backing off for %d ms", destination, remaining_backoff_ms)
            return None
        if not self._request_manager.is_ready(destination, current_time_ms):
            remaining_ms = self._request_manager.remaining_request_time_ms(destination, current_time_ms)
            log.debug("Connection for %s has a pending request for %d ms", destination, remaining_ms)
            return None
        correlation_id = self._channel.new_correlation_id()
        request = request_supplier()
        api = ApiKeys(int(request.__api_key__))
        request_message = OutboundRequest(correlation_id, request, destination, current_time_ms,
                                          raft_util.REQUEST_VERSIONS[api])

        def on_response(response: InboundResponse | None, exception: BaseException | None) -> None:
            if exception is not None:
                # a failed send comes back as an error response, handled like any other
                response = InboundResponse(correlation_id, raft_util.error_response(
                    api, Errors.for_exception(exception)), destination)
            self._message_queue.add(response)
        request_message.completion.when_complete(on_response)
        self._request_manager.on_request_sent(destination, correlation_id, current_time_ms)
        self._channel.send(request_message)
        log.debug("Sent outbound request: %s", request_message)
        return self._request_manager.remaining_request_time_ms(destination, current_time_ms)
