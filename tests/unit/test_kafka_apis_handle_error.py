"""Our own test code, not a Kafka port: a handler of the ZooKeeper-mode broker (KafkaApis, 1.0.2) that raises gets
what Kafka 1.0.2 gives. `handle` hands the exception to `handle_error`, which answers the request's error response
(getErrorResponse: UNKNOWN_SERVER_ERROR for an unexpected exception, a Kafka exception's own code) in every place
the response carries an error; a Produce with acks=0 has no response, so its connection is closed; a FatalExitError
is not answered, the request handler thread exits the process. The refusals 1.0.2 answers with getErrorResponse
(authorization, no authorizer, a coordinator error) come the same way."""

from __future__ import annotations

import dataclasses
import threading
from types import SimpleNamespace
from typing import Any

import pytest

from kafka_edu.v1_0_2.clients.common.errors import (
    ControllerMovedException,
    IllegalArgumentException,
    InvalidTopicException,
    NotLeaderForPartitionException,
)
from kafka_edu.v1_0_2.clients.common.internals.fatal_exit_error import FatalExitError
from kafka_edu.v1_0_2.clients.common.utils.exit import Exit
from kafka_edu.v1_0_2.core.network.request_channel import Request, RequestChannel, Response, ResponseAction
from kafka_edu.v1_0_2.core.server.kafka_apis import KAFKA_1_0_2_VERSIONS, SUPPORTED_VERSIONS, KafkaApis
from kafka_edu.v1_0_2.core.server.kafka_request_handler import KafkaRequestHandler
from kafka_edu.v3_9.clients.common.protocol.api_keys import ApiKeys
from kafka_edu.v3_9.clients.common.protocol.builder import build
from kafka_edu.v3_9.clients.common.protocol.codec import decode_response
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from tests.kafka_tests.v1_0_2.clients.common.requests.request_response_test import create_request, written

ERROR_FIELDS = ("error_code", "partition_error_code")


class _Channel:
    """The RequestChannel's response side: what KafkaApis sent, in order."""

    def __init__(self) -> None:
        self.responses: list[Response] = []
        self.sent = threading.Condition()

    def send_response(self, response: Response) -> None:
        with self.sent:
            self.responses.append(response)
            self.sent.notify_all()

    def wait_for(self, count: int, timeout_s: float) -> bool:
        with self.sent:
            return self.sent.wait_for(lambda: len(self.responses) >= count, timeout_s)


class _Denying:
    """An authorizer that allows nothing."""

    def authorize(self, session: Any, operation: Any, resource: Any) -> bool:
        return False


def _apis(**parts: Any) -> tuple[KafkaApis, _Channel]:
    apis = object.__new__(KafkaApis)  # only what handle and these handlers touch
    channel = _Channel()
    apis.request_channel, apis.authorizer = channel, None
    apis.handlers = {}
    # what the spans' describers read once a handler is done (the coordinator answered, the markers written)
    apis.group_coordinator = SimpleNamespace(partition_for=lambda key: 0)
    apis.txn_coordinator = SimpleNamespace(producer_id_manager=None)
    apis.metadata_cache = SimpleNamespace(get_topic_metadata=lambda topics, listener: {}, get_alive_brokers=list)
    apis.replica_manager = SimpleNamespace(get_partition=lambda topic_partition: None)
    for name, part in parts.items():
        setattr(apis, name, part)
    return apis, channel


def _raising(e: BaseException) -> Any:
    def handler(request: Request) -> None:
        raise e
    return handler


def _answer(request: Request, response: Response) -> Any:
    """What the client reads: the response sent, decoded at the request's version."""
    assert response.response_action is ResponseAction.SEND, response.response_action
    send = response.response_send
    payload = send if isinstance(send, bytes) else written(send)[4:]
    decoded = decode_response(request.api_key, request.api_version, payload)
    assert decoded.correlation_id == request.correlation_id
    return decoded.body


def _handled(apis: KafkaApis, channel: _Channel, request: Request) -> Any:
    apis.handle(request)
    [response] = channel.responses
    return _answer(request, response)


def error_places(body: Any, path: str = "") -> dict[str, int]:
    """Every error code of a response, by where it is (`topics[0].partitions[0].error_code`)."""
    found: dict[str, int] = {}
    for f in dataclasses.fields(body):
        value = getattr(body, f.name)
        if f.name in ERROR_FIELDS:
            found[path + f.name] = value
        elif isinstance(value, tuple):
            for i, item in enumerate(value):
                if dataclasses.is_dataclass(item):
                    found.update(error_places(item, f"{path}{f.name}[{i}]."))
        elif dataclasses.is_dataclass(value):
            found.update(error_places(value, f"{path}{f.name}."))
    return found


# The places that stay NONE in an error response: the request as a whole succeeded, its partitions failed
# (LeaderAndIsr, StopReplica); a Fetch's top-level error (v7+) with no fetch session.
NOT_THE_ERROR = {ApiKeys.LEADER_AND_ISR: {"error_code"}, ApiKeys.STOP_REPLICA: {"error_code"},
                 ApiKeys.FETCH: {"error_code"}}


def _versions() -> list[tuple[ApiKeys, int]]:
    """Each API at the lowest and highest version the broker serves, and at Kafka 1.0.2's highest."""
    cases = []
    for api, (low, high) in SUPPORTED_VERSIONS.items():
        cases += [(api, v) for v in sorted({low, high, KAFKA_1_0_2_VERSIONS.get(api, (low, high))[1]})]
    return cases


@pytest.mark.parametrize(("api", "version"), _versions(), ids=[f"{a.api_name}-v{v}" for a, v in _versions()])
def test_a_handler_that_raises_gets_unknown_server_error_wherever_the_response_carries_an_error(
        api: ApiKeys, version: int) -> None:
    request = create_request(api, version)
    apis, channel = _apis()
    apis.handlers = {api: _raising(RuntimeError("a bug"))}
    body = _handled(apis, channel, request)
    places = error_places(body)
    errors = {place: code for place, code in places.items() if place not in NOT_THE_ERROR.get(api, ())}
    if api is ApiKeys.DESCRIBE_LOG_DIRS and version < 3:
        assert places == {}  # a DescribeLogDirs response has room for an error from v3 on only
        return
    # the request names one of everything (one topic, one partition, one group, ...): one error place, answered
    assert list(errors.values()) == [Errors.UNKNOWN_SERVER_ERROR], places
    assert {places[p] for p in NOT_THE_ERROR.get(api, ()) if p in places} <= {Errors.NONE}


def test_produce_with_acks_0_has_no_error_response_and_its_connection_is_closed() -> None:
    request = create_request(ApiKeys.PRODUCE, 5, acks=0)
    apis, channel = _apis()
    apis.handlers = {ApiKeys.PRODUCE: _raising(RuntimeError("a bug"))}
    apis.handle(request)
    [response] = channel.responses
    assert (response.response_action, response.response_send) == (ResponseAction.CLOSE_CONNECTION, None)


def test_a_kafka_exception_is_answered_with_its_own_code() -> None:
    request = create_request(ApiKeys.PRODUCE, 5, acks=-1)
    apis, channel = _apis()
    apis.handlers = {ApiKeys.PRODUCE: _raising(NotLeaderForPartitionException("not the leader"))}
    body = _handled(apis, channel, request)
    assert set(error_places(body).values()) == {Errors.NOT_LEADER_OR_FOLLOWER}


@pytest.mark.parametrize(("e", "error", "message"), [
    (InvalidTopicException("Topic name is illegal"), Errors.INVALID_TOPIC_EXCEPTION, "Topic name is illegal"),
    # 1.0.2's ApiError.fromThrowable keeps an unexpected exception's message too (3.9's drops it)
    (RuntimeError("a bug"), Errors.UNKNOWN_SERVER_ERROR, "a bug"),
    (MemoryError(), Errors.UNKNOWN_SERVER_ERROR, None),
])
def test_the_exceptions_message_goes_where_the_response_has_room_for_one(e: BaseException, error: Errors,
                                                                        message: str | None) -> None:
    request = create_request(ApiKeys.CREATE_TOPICS, 2)
    apis, channel = _apis()
    apis.handlers = {ApiKeys.CREATE_TOPICS: _raising(e)}
    [topic] = _handled(apis, channel, request).topics
    assert (topic.name, topic.error_code, topic.error_message) == ("t", error, message)


def test_a_fatal_exit_error_is_not_answered_and_the_request_handler_exits_the_process() -> None:
    request = create_request(ApiKeys.METADATA, 5)
    apis, channel = _apis()
    apis.handlers = {ApiKeys.METADATA: _raising(FatalExitError(3))}
    with pytest.raises(FatalExitError):
        apis.handle(request)
    assert channel.responses == []

    exits: list[int] = []
    Exit.set_exit_procedure(lambda status, message: exits.append(status))
    try:
        request_channel = RequestChannel(10)
        handler = KafkaRequestHandler(0, 0, 1, request_channel, apis)
        handler.start()
        request_channel.send_request(request)
        handler.join(10)
        assert not handler.is_alive() and exits == [3]
    finally:
        Exit.reset_exit_procedure()


def test_an_error_response_of_a_version_the_broker_does_not_serve_is_an_illegal_argument() -> None:
    # each request class's `default:` branch; the SocketServer parses no such version, so this is never met
    request = dataclasses.replace(create_request(ApiKeys.HEARTBEAT, 2), api_version=9)
    apis, channel = _apis()
    apis.handlers = {ApiKeys.HEARTBEAT: _raising(RuntimeError("a bug"))}
    with pytest.raises(IllegalArgumentException, match="Version 9 is not valid"):
        apis.handle(request)  # out of handle, to the request handler thread, which logs it
    assert channel.responses == []


# -- what 1.0.2 answers with getErrorResponse besides handleError -------------------------------------------------

@pytest.mark.parametrize(("api", "version"), [
    (ApiKeys.CONTROLLED_SHUTDOWN, 1), (ApiKeys.WRITE_TXN_MARKERS, 0), (ApiKeys.OFFSET_FOR_LEADER_EPOCH, 0),
    (ApiKeys.DESCRIBE_ACLS, 0), (ApiKeys.CREATE_ACLS, 0), (ApiKeys.DELETE_ACLS, 0)])
def test_a_request_that_needs_the_cluster_gets_cluster_authorization_failed_in_every_place(api: ApiKeys,
                                                                                           version: int) -> None:
    # authorizeClusterAction / Alter / Describe throw: handleError answers
    request = create_request(api, version)
    apis, channel = _apis(authorizer=_Denying())
    apis.handlers = {api: getattr(apis, {ApiKeys.CONTROLLED_SHUTDOWN: "handle_controlled_shutdown_request",
                                         ApiKeys.WRITE_TXN_MARKERS: "handle_write_txn_markers_request",
                                         ApiKeys.OFFSET_FOR_LEADER_EPOCH: "handle_offset_for_leader_epoch_request",
                                         ApiKeys.DESCRIBE_ACLS: "handle_describe_acls",
                                         ApiKeys.CREATE_ACLS: "handle_create_acls",
                                         ApiKeys.DELETE_ACLS: "handle_delete_acls"}[api])}
    body = _handled(apis, channel, request)
    assert set(error_places(body).values()) == {Errors.CLUSTER_AUTHORIZATION_FAILED}
    if hasattr(body, "error_message") or api in (ApiKeys.CREATE_ACLS, ApiKeys.DELETE_ACLS):
        messages = {getattr(entry, "error_message", None)
                    for entry in (body, *getattr(body, "results", ()), *getattr(body, "filter_results", ()))}
        assert f"Request {request.correlation_id} is not authorized." in messages


@pytest.mark.parametrize("api", [ApiKeys.CREATE_ACLS, ApiKeys.DELETE_ACLS])
def test_without_an_authorizer_create_and_delete_acls_answer_security_disabled(api: ApiKeys) -> None:
    request = create_request(api, 0)
    apis, channel = _apis()
    (apis.handle_create_acls if api is ApiKeys.CREATE_ACLS else apis.handle_delete_acls)(request)
    [response] = channel.responses
    body = _answer(request, response)
    [result] = body.results if api is ApiKeys.CREATE_ACLS else body.filter_results
    assert (result.error_code, result.error_message) == (Errors.SECURITY_DISABLED,
                                                         "No Authorizer is configured on the broker.")


@pytest.mark.parametrize("version", [1, 3])
def test_offset_fetch_refused_for_the_group_carries_the_error_per_partition_before_v2_and_at_the_top_after(
        version: int) -> None:
    request = create_request(ApiKeys.OFFSET_FETCH, version)
    apis, channel = _apis(authorizer=_Denying())
    apis.handle_offset_fetch_request(request)
    body = _answer(request, channel.responses[0])
    if version < 2:
        [topic] = body.topics
        [partition] = topic.partitions
        assert (partition.error_code, partition.committed_offset, partition.metadata) == \
            (Errors.GROUP_AUTHORIZATION_FAILED, -1, "")
    else:
        assert (body.error_code, body.topics) == (Errors.GROUP_AUTHORIZATION_FAILED, ())


def test_offset_fetch_with_a_coordinator_error_gets_the_error_response() -> None:
    request = create_request(ApiKeys.OFFSET_FETCH, 3)
    coordinator = SimpleNamespace(handle_fetch_offsets=lambda group_id, partitions: (Errors.NOT_COORDINATOR, {}))
    apis, channel = _apis(group_coordinator=coordinator)
    apis.handle_offset_fetch_request(request)
    body = _answer(request, channel.responses[0])
    assert (body.error_code, body.topics) == (Errors.NOT_COORDINATOR, ())


@pytest.mark.parametrize(("api", "handler", "error"), [
    (ApiKeys.LIST_GROUPS, "handle_list_groups_request", Errors.CLUSTER_AUTHORIZATION_FAILED),
    (ApiKeys.ADD_PARTITIONS_TO_TXN, "handle_add_partition_to_txn_request",
     Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED),
    (ApiKeys.INIT_PRODUCER_ID, "handle_init_producer_id_request", Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED),
    (ApiKeys.FIND_COORDINATOR, "handle_find_coordinator_request", Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED),
])
def test_refusals_1_0_2_answers_with_the_requests_error_response(api: ApiKeys, handler: str, error: Errors) -> None:
    version = KAFKA_1_0_2_VERSIONS[api][1]
    request = create_request(api, version, key_type=1) if api is ApiKeys.FIND_COORDINATOR \
        else create_request(api, version)  # a transactional id's coordinator
    apis, channel = _apis(authorizer=_Denying())
    getattr(apis, handler)(request)
    body = _answer(request, channel.responses[0])
    assert set(error_places(body).values()) == {error}
    if api is ApiKeys.INIT_PRODUCER_ID:
        assert (body.producer_id, body.producer_epoch) == (-1, 0)  # InitProducerIdResponse(throttle, error)
    if api is ApiKeys.FIND_COORDINATOR:
        assert (body.error_message, body.node_id, body.host, body.port) == (None, -1, "", -1)


def test_find_coordinator_of_an_unknown_key_type_gets_invalid_request() -> None:
    request = create_request(ApiKeys.FIND_COORDINATOR, 1, key_type=2)
    apis, channel = _apis()
    apis.handlers = {ApiKeys.FIND_COORDINATOR: apis.handle_find_coordinator_request}
    body = _handled(apis, channel, request)
    # FindCoordinatorResponse(throttleTimeMs, error, node) has no message
    assert (body.error_code, body.error_message, body.node_id) == (Errors.INVALID_REQUEST, None, -1)


def test_an_older_controllers_update_metadata_gets_stale_controller_epoch() -> None:
    def maybe_update_metadata_cache(correlation_id: int, request: Any) -> None:
        raise ControllerMovedException("Received an update metadata request with controller epoch 1 ...")
    request = create_request(ApiKeys.UPDATE_METADATA, 4)
    apis, channel = _apis(replica_manager=SimpleNamespace(maybe_update_metadata_cache=maybe_update_metadata_cache))
    apis.handlers = {ApiKeys.UPDATE_METADATA: apis.handle_update_metadata_request}
    assert _handled(apis, channel, request).error_code == Errors.STALE_CONTROLLER_EPOCH


def test_controlled_shutdown_refused_by_a_controller_that_moved_gets_stale_controller_epoch() -> None:
    def shutdown_broker(broker_id: int, callback: Any) -> None:
        callback(ControllerMovedException("Controller moved to another broker. Aborting controlled shutdown"))
    request = create_request(ApiKeys.CONTROLLED_SHUTDOWN, 1)
    apis, channel = _apis(controller=SimpleNamespace(shutdown_broker=shutdown_broker))
    apis.handle_controlled_shutdown_request(request)
    body = _answer(request, channel.responses[0])
    assert (body.error_code, body.remaining_partitions) == (Errors.STALE_CONTROLLER_EPOCH, ())


def test_the_request_handler_thread_serves_on_after_a_handler_raised() -> None:
    apis, channel = _apis()
    failing, fine = create_request(ApiKeys.HEARTBEAT, 1), create_request(ApiKeys.LIST_GROUPS, 1)
    apis.handlers = {ApiKeys.HEARTBEAT: _raising(RuntimeError("a bug")),
                     ApiKeys.LIST_GROUPS: lambda request: apis.send_response(request, build(
                         ApiKeys.LIST_GROUPS.response_schema(1), throttle_time=0, error_code=Errors.NONE, groups=[]))}
    request_channel = RequestChannel(10)
    handler = KafkaRequestHandler(0, 0, 1, request_channel, apis)
    handler.start()
    try:
        request_channel.send_request(failing)
        request_channel.send_request(fine)
        assert channel.wait_for(2, 10)
    finally:
        handler.initiate_shutdown()
        handler.await_shutdown()
    assert _answer(failing, channel.responses[0]).error_code == Errors.UNKNOWN_SERVER_ERROR
    assert _answer(fine, channel.responses[1]).error_code == Errors.NONE
