"""Port of core/src/main/scala/kafka/server/RequestHandlerHelper.scala (Kafka 3.9): how KafkaApis and ControllerApis
answer a request, and what a KRaft broker's coordinators do when it gains or loses leaderships.

Port notes: no quotas (QuotaFactory.QuotaManagers, ClientQuotaManager, ControllerMutationQuota are not ported): every
throttle time is 0, so nothing is throttled and a response goes out as soon as it is built. `getErrorResponse`, which
Kafka has on each request class, is kafka_apis.get_error_response (the port keeps them all in one function).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from kafka_edu.v1_0_2.clients.common.errors import ClusterAuthorizationException
from kafka_edu.v3_9.clients.common.internals import topic as Topic
from kafka_edu.v3_9.clients.common.network.send import Send
from kafka_edu.v3_9.clients.common.protocol.api_keys import ApiKeys
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from kafka_edu.v3_9.clients.common.utils.time import SYSTEM, Time
from kafka_edu.v3_9.core.network.request_channel import Request, RequestChannel


def on_leadership_change(group_coordinator: Any, txn_coordinator: Any, updated_leaders: Iterable[Any],
                         updated_followers: Iterable[Any]) -> None:
    """RequestHandlerHelper.onLeadershipChange: the coordinators take over (or give up) the partitions of their
    internal topics this broker now leads (or follows)."""
    for partition in updated_leaders:
        if partition.topic == Topic.GROUP_METADATA_TOPIC_NAME:
            group_coordinator.on_election(partition.partition_id, partition.get_leader_epoch())
        elif partition.topic == Topic.TRANSACTION_STATE_TOPIC_NAME:
            txn_coordinator.on_election(partition.partition_id, partition.get_leader_epoch())
    for partition in updated_followers:
        if partition.topic == Topic.GROUP_METADATA_TOPIC_NAME:
            group_coordinator.on_resignation(partition.partition_id, partition.get_leader_epoch())
        elif partition.topic == Topic.TRANSACTION_STATE_TOPIC_NAME:
            txn_coordinator.on_resignation(partition.partition_id, partition.get_leader_epoch())


def get_error_response(request: Request, throttle_time_ms: int, e: BaseException) -> Any | None:
    """`request.body[AbstractRequest].getErrorResponse(throttleMs, e)`: the request's response carrying `e`'s error,
    or None where there is none to send."""
    # imported here: kafka_apis imports this module (its handlers answer through RequestHandlerHelper)
    from kafka_edu.v3_9.core.server.kafka_apis import get_error_response as request_error_response
    return request_error_response(request, throttle_time_ms, e)


def is_cluster_action(api_key: ApiKeys) -> bool:
    """ApiKeys.clusterAction: the APIs only brokers and controllers send each other."""
    return api_key in (ApiKeys.LEADER_AND_ISR, ApiKeys.STOP_REPLICA, ApiKeys.UPDATE_METADATA,
                       ApiKeys.CONTROLLED_SHUTDOWN, ApiKeys.WRITE_TXN_MARKERS, ApiKeys.ALTER_PARTITION,
                       ApiKeys.ENVELOPE, ApiKeys.BROKER_REGISTRATION, ApiKeys.BROKER_HEARTBEAT,
                       ApiKeys.UNREGISTER_BROKER, ApiKeys.ALLOCATE_PRODUCER_IDS, ApiKeys.VOTE,
                       ApiKeys.BEGIN_QUORUM_EPOCH, ApiKeys.END_QUORUM_EPOCH, ApiKeys.FETCH_SNAPSHOT,
                       ApiKeys.CONTROLLER_REGISTRATION)


class RequestHandlerHelper:
    """How a request is answered: a response (after the request quota), an error response for an exception, no
    response (acks=0), or a closed connection where no error response can be sent."""

    def __init__(self, request_channel: RequestChannel, quotas: Any = None, time: Time = SYSTEM) -> None:
        self.request_channel = request_channel
        self.quotas = quotas
        self.time = time

    def throttle(self, quota_manager: Any, request: Request, throttle_time_ms: int) -> None:
        """The channel is muted for the throttle time; without quota managers nothing is ever throttled."""

    def handle_error(self, request: Request, e: BaseException) -> None:
        may_throttle = isinstance(e, ClusterAuthorizationException) or not is_cluster_action(request.header.api_key)
        if may_throttle:
            self.send_error_response_maybe_throttle(request, e)
        else:
            self._send_error_response_exempt_throttle(request, e)

    def _send_error_or_close_connection(self, request: Request, error: BaseException, throttle_ms: int) -> None:
        response = get_error_response(request, throttle_ms, error)
        if response is None:
            self.request_channel.close_connection(request, {Errors.for_exception(error): 1})
        else:
            self.request_channel.send_response(request, response)

    def send_forwarded_response(self, request: Request, response: Any) -> None:
        self.request_channel.send_response(request, response)

    def send_maybe_throttle(self, request: Request, response: Any) -> None:
        throttle_time_ms = self.maybe_record_and_get_throttle_time_ms(request)
        if not request.is_forwarded():
            self.throttle(None, request, throttle_time_ms)
        self.request_channel.send_response(request, response)

    def send_response_maybe_throttle(self, request: Request, create_response: Callable[[int], Any]) -> None:
        throttle_time_ms = self.maybe_record_and_get_throttle_time_ms(request)
        if not request.is_forwarded():
            self.throttle(None, request, throttle_time_ms)
        self.request_channel.send_response(request, create_response(throttle_time_ms))

    def send_error_response_maybe_throttle(self, request: Request, error: BaseException) -> None:
        throttle_time_ms = self.maybe_record_and_get_throttle_time_ms(request)
        if isinstance(error, ClusterAuthorizationException) or not request.is_forwarded():
            self.throttle(None, request, throttle_time_ms)
        self._send_error_or_close_connection(request, error, throttle_time_ms)

    def maybe_record_and_get_throttle_time_ms(self, request: Request) -> int:
        throttle_time_ms = 0  # no request quota in this port
        request.api_throttle_time_ms = throttle_time_ms
        return throttle_time_ms

    def send_response_maybe_throttle_with_controller_quota(self, controller_mutation_quota: Any, request: Request,
                                                           response: Any) -> None:
        """The larger of the controller mutation and request throttle times applies; neither quota is ported, so
        both are 0 and the response goes out unthrottled."""
        max_throttle_time_ms = self.maybe_record_and_get_throttle_time_ms(request)
        if max_throttle_time_ms > 0 and not request.is_forwarded():
            request.api_throttle_time_ms = max_throttle_time_ms
            self.throttle(controller_mutation_quota, request, max_throttle_time_ms)
        self.request_channel.send_response(request, response)

    def send_response_exempt_throttle(self, request: Request, response: Any,
                                      on_complete: Callable[[Send], None] | None = None) -> None:
        self.request_channel.send_response(request, response, on_complete)

    def _send_error_response_exempt_throttle(self, request: Request, error: BaseException) -> None:
        self._send_error_or_close_connection(request, error, 0)

    def send_no_op_response_exempt_throttle(self, request: Request) -> None:
        self.request_channel.send_no_op_response(request)
