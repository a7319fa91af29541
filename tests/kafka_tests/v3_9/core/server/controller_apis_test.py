"""Port of core/src/test/scala/unit/kafka/server/ControllerApisTest.scala (Kafka 3.9).

Kafka mocks the RequestChannel, the RaftManager, the Authorizer and (in some cases) the Controller with Mockito;
here each is a small fake: the request channel keeps the responses it is handed (decoded from the wire bytes the
port sends), the Raft manager records its calls, an authorizer answers `authorize(context, actions)` as Kafka's stub
does, and a controller fake checks the arguments Kafka's `when(...)` matches on (a call Mockito would answer with
null fails). The Controller double is tests/kafka_tests/v3_9/metadata/controller/mock_controller.py (MockController).
Requests go through the wire as in Kafka's buildRequest: encoded with the port's codec and read back into 3.9's
RequestChannel.Request as the network thread reads them; responses are read back off the wire too.

Differences of form, not of behaviour: the port's Errors carry no default message texts (see
kafka_edu/v3_9/clients/common/requests/api_error.py), so where Kafka expects an error's default message
(`Errors.X.message()`, "This server does not host this topic-partition.") the port's response carries none; and
the port's RaftManager.handle_request takes the request's header, data and the time, where Kafka's also takes its
context.
"""

from __future__ import annotations

import dataclasses
import datetime
import enum
import logging
import typing
import uuid
from collections import Counter
from collections.abc import Callable, Iterable
from concurrent.futures import Future
from typing import Any

import pytest
from kio.serial._introspect import EntityField, EntityTupleField, PrimitiveField, PrimitiveTupleField, classify_field

from kafka_edu.v1_0_2.clients.common.errors import (
    ClusterAuthorizationException,
    InvalidRequestException,
    NotControllerException,
    UnsupportedVersionException,
)
from kafka_edu.v1_0_2.clients.common.security.auth.kafka_principal import KafkaPrincipal
from kafka_edu.v1_0_2.core.server.kafka_config import KafkaConfig
from kafka_edu.v3_9.clients.common.internals import topic as Topic
from kafka_edu.v3_9.clients.common.memory import memory_pool as memory_pools
from kafka_edu.v3_9.clients.common.network.client_information import ClientInformation
from kafka_edu.v3_9.clients.common.network.listener_name import ListenerName
from kafka_edu.v3_9.clients.common.protocol.api_keys import ApiKeys
from kafka_edu.v3_9.clients.common.protocol.builder import build
from kafka_edu.v3_9.clients.common.protocol.codec import decode_response, encode_request, encode_response
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from kafka_edu.v3_9.clients.common.requests.request_context import RequestContext
from kafka_edu.v3_9.clients.common.requests.request_header import RequestHeader
from kafka_edu.v3_9.clients.common.security.auth.security_protocol import SecurityProtocol
from kafka_edu.v3_9.clients.common.utils.mock_time import MockTime
from kafka_edu.v3_9.clients.common.uuid import Uuid
from kafka_edu.v3_9.core.network.request_channel import Request
from kafka_edu.v3_9.core.server.controller_apis import (
    CONTROLLER_SUPPORTED_VERSIONS,
    Action,
    AuthorizationResult,
    ControllerApis,
    TopicDeletionDisabledException,
    controller_api_version_manager,
)
from kafka_edu.v3_9.metadata.controller.controller_request_context import ANONYMOUS_CONTEXT
from tests.kafka_tests.referee import kafka_test_class
from tests.kafka_tests.v3_9.metadata.controller.mock_controller import MockController

ISSUE_24 = "not served by the port's KRaft controller yet (issue 24)"
NO_MUTATION_QUOTA = ("controller mutation quotas: the port has no ControllerMutationQuota (docs/kraft.md: quotas on "
                     "the controller are not ported)")

KAFKA = kafka_test_class(
    "3.9", "core/src/test/scala/unit/kafka/server/ControllerApisTest.scala",
    cases=[
        "testUnauthorizedFetch", "testFetchSentToKRaft", "testFetchLocalTimeComputedCorrectly",
        "testUnauthorizedFetchSnapshot", "testFetchSnapshotSentToKRaft", "testUnauthorizedVote",
        "testHandleLegacyAlterConfigsErrors", "testUnauthorizedBeginQuorumEpoch", "testUnauthorizedEndQuorumEpoch",
        "testUnauthorizedDescribeQuorum", "testUnauthorizedHandleAlterPartitionRequest",
        "testUnauthorizedHandleBrokerHeartBeatRequest", "testUnauthorizedHandleUnregisterBroker", "testClose",
        "testUnauthorizedBrokerRegistration", "testUnauthorizedHandleAlterClientQuotas",
        "testUnauthorizedHandleIncrementalAlterConfigs", "testInvalidIncrementalAlterConfigsResources",
        "testUnauthorizedHandleAlterPartitionReassignments", "testUnauthorizedHandleAllocateProducerIds",
        "testUnauthorizedHandleListPartitionReassignments", "testCreateTopics", "testCreateTopicsMutationQuota",
        "testDeleteTopicsByName", "testDeleteTopicsById", "testInvalidDeleteTopicsRequest",
        "testNotAuthorizedToDeleteWithTopicExisting", "testNotAuthorizedToDeleteWithTopicNotExisting",
        "testNotControllerErrorPreventsDeletingTopics", "testDeleteTopicsDisabled", "testCreatePartitionsRequest",
        "testCreatePartitionsAuthorization", "testCreatePartitionsMutationQuota", "testElectLeadersAuthorization",
        "testElectLeadersHandledByController", "testDeleteTopicsReturnsNotController",
        "testDeleteTopicsMutationQuota", "testAllocateProducerIdsReturnsNotController", "testAssignReplicasToDirs",
        "testCompletableFutureExceptions", "testUnauthorizedControllerRegistrationRequest",
        "testUnauthorizedDescribeClusterRequest",
    ],
    not_applicable={
        "testCreateTopicsMutationQuota": NO_MUTATION_QUOTA,
        "testCreatePartitionsMutationQuota": NO_MUTATION_QUOTA,
        "testDeleteTopicsMutationQuota": NO_MUTATION_QUOTA,
        "testAssignReplicasToDirs": "AssignReplicasToDirs: JBOD on KRaft (KIP-858) is not built (docs/kraft.md)",
        "testUnauthorizedControllerRegistrationRequest": "ControllerRegistration (KIP-919) " + ISSUE_24,
    },
)

NODE_ID = 1
BROKER_RACK = "Rack1"
CLIENT_ID = "Client1"
CLUSTER_ID = "JgxuGe9URy-E-ceaL04lEw"
ZERO_UUID = uuid.UUID(int=0)


def uuid_of(most: int, least: int) -> uuid.UUID:
    """new Uuid(mostSignificantBits, leastSignificantBits)"""
    return uuid.UUID(int=(most << 64) | least)


def uuid_from_string(s: str) -> uuid.UUID:
    """Uuid.fromString, as the uuid.UUID the kio messages carry."""
    return uuid.UUID(bytes=Uuid.from_string(s).to_bytes())


# -- fakes ------------------------------------------------------------------------------------------------------------

class FakeRequestChannel:
    """RequestChannel, mocked: keeps the (request, response body) pairs handlers send, and the requests whose
    connection they close or that they answer with nothing; `answers` are run in turn on the send_response calls
    (Mockito's thenAnswer chain), the last one for every call after."""

    def __init__(self) -> None:
        self.responses: list[tuple[Request, Any]] = []
        self.closed: list[Request] = []
        self.no_op: list[Request] = []
        self.answers: list[Callable[[Request, Any], None]] = []

    def send_response(self, request: Request, body: Any = None, on_complete: Any = None) -> None:
        if self.answers:
            answer = self.answers.pop(0) if len(self.answers) > 1 else self.answers[0]
            answer(request, body)
            return
        self.responses.append((request, body))

    def close_connection(self, request: Request, error_counts: Any = None) -> None:
        self.closed.append(request)

    def send_no_op_response(self, request: Request) -> None:
        self.no_op.append(request)


class FakeRaftManager:
    def __init__(self) -> None:
        self.calls: list[tuple[Any, Any, int]] = []
        self.answer: Callable[[], Future[Any]] = Future

    def handle_request(self, header: Any, request: Any, created_ms: int) -> Future[Any]:
        self.calls.append((header, request, created_ms))
        return self.answer()


class DenyAllAuthorizer:
    """createDenyAllAuthorizer: every call answered with one DENIED, as Kafka's stub."""

    def authorize(self, context: Any, actions: list[Action]) -> list[AuthorizationResult]:
        return [AuthorizationResult.DENIED]


class StubController:
    """mock(classOf[Controller]): only the stubbed methods answer."""

    def __init__(self, **stubs: Callable[..., Any]) -> None:
        for name, stub in stubs.items():
            setattr(self, name, stub)


def completed(value: Any) -> Future[Any]:
    future: Future[Any] = Future()
    future.set_result(value)
    return future


def failed(exception: BaseException) -> Future[Any]:
    future: Future[Any] = Future()
    future.set_exception(exception)
    return future


class Env:
    def __init__(self) -> None:
        self.request_channel = FakeRequestChannel()
        self.raft_manager = FakeRaftManager()
        self.time = MockTime()

    def create_controller_apis(self, authorizer: Any | None, controller: Any,
                               props: dict[str, str] | None = None) -> ControllerApis:
        props = dict(props or {})
        props.update({"node.id": str(NODE_ID), "process.roles": "controller", "controller.listener.names": "PLAINTEXT",
                      "controller.quorum.voters": f"{NODE_ID}@localhost:9092",
                      "listeners": "PLAINTEXT://localhost:9092"})
        return ControllerApis(self.request_channel, controller, self.raft_manager, KafkaConfig(props), CLUSTER_ID,
                              controller_api_version_manager(), authorizer=authorizer, time=self.time)

    def handle_request(self, request: Request, controller_apis: ControllerApis) -> Any:
        """handleRequest: the request handled, the one response sent for it (decoded)."""
        controller_apis.handle(request)
        assert len(self.request_channel.responses) == 1
        return response_body(self.request_channel.responses[0], request)


@pytest.fixture
def env() -> Env:
    return Env()


def response_body(sent: tuple[Request, Any], request: Request) -> Any:
    """A response body as the client reads it off the wire, at the request's version."""
    sent_for, body = sent
    assert sent_for is request
    version = request.context.api_version()
    frame = encode_response(request.header.api_key, version, request.header.correlation_id, body)
    return decode_response(request.header.api_key, version, frame).body


def empty(schema: type[Any], **values: Any) -> Any:
    """`new XRequestData()`: every field at its default (empty collections, zeros), some set."""
    kwargs: dict[str, Any] = {}
    for f in dataclasses.fields(schema):
        if f.name in values or f.default is not dataclasses.MISSING or f.default_factory is not dataclasses.MISSING:
            continue
        kind = classify_field(f)
        nullable = type(None) in typing.get_args(f.type)
        if isinstance(kind, (EntityTupleField, PrimitiveTupleField)):
            kwargs[f.name] = ()
        elif nullable:
            kwargs[f.name] = None
        elif isinstance(kind, EntityField):
            kwargs[f.name] = empty(kind.type_)
        elif isinstance(kind, PrimitiveField) and issubclass(kind.type_, datetime.timedelta):
            kwargs[f.name] = datetime.timedelta(0)
        elif isinstance(kind, PrimitiveField) and issubclass(kind.type_, enum.Enum):
            kwargs[f.name] = kind.type_(0)
        elif isinstance(kind, PrimitiveField) and issubclass(kind.type_, bool):
            kwargs[f.name] = False
        elif isinstance(kind, PrimitiveField) and issubclass(kind.type_, str):
            kwargs[f.name] = ""
        elif isinstance(kind, PrimitiveField) and issubclass(kind.type_, uuid.UUID):
            kwargs[f.name] = ZERO_UUID
        else:
            kwargs[f.name] = 0
    return build(schema, **{**kwargs, **values})


def build_request(api_key: ApiKeys, version: int, body: Any) -> Request:
    """buildRequest: the request serialized with its header and read back as the network thread reads it."""
    assert controller_api_version_manager().is_api_enabled(api_key, version)
    buffer = encode_request(api_key, version, 0, CLIENT_ID, body)
    context = RequestContext(RequestHeader.parse(buffer), "1", "127.0.0.1", None, KafkaPrincipal("User", "ANONYMOUS"),
                             ListenerName("PLAINTEXT"), SecurityProtocol.PLAINTEXT, ClientInformation.EMPTY, False)
    return Request(1, context, 0, memory_pools.NONE, buffer, None)


def request_of(api_key: ApiKeys, version: int, **values: Any) -> Request:
    return build_request(api_key, version, empty(api_key.request_schema(version), **values))


def latest(api_key: ApiKeys) -> int:
    return CONTROLLER_SUPPORTED_VERSIONS[api_key][1]


def error_counts(entity: Any) -> Counter[Errors]:
    """AbstractResponse.errorCounts: every error code in the response, counted."""
    counts: Counter[Errors] = Counter()
    for f in dataclasses.fields(entity):
        value = getattr(entity, f.name)
        if f.name == "error_code":
            counts[Errors.for_code(int(value))] += 1
        elif isinstance(value, tuple):
            for item in value:
                if dataclasses.is_dataclass(item):
                    counts.update(error_counts(item))
        elif dataclasses.is_dataclass(value):
            counts.update(error_counts(value))
    return counts


# -- the kio results Kafka's cases build with setters -----------------------------------------------------------------

def creatable_topic_result(name: str, error: Errors, message: str | None = None, topic_id: uuid.UUID = ZERO_UUID,
                           num_partitions: int = -1, replication_factor: int = -1,
                           topic_config_error_code: Errors = Errors.NONE) -> Any:
    schema = ApiKeys.CREATE_TOPICS.response_schema(7)
    return build(schema, throttle_time=0, topics=[dict(
        name=name, topic_id=topic_id, error_code=error, error_message=message, num_partitions=num_partitions,
        replication_factor=replication_factor, topic_config_error_code=topic_config_error_code, configs=[])]).topics[0]


def deletable_topic_result(name: str | None, topic_id: uuid.UUID = ZERO_UUID, error: Errors = Errors.NONE,
                           message: str | None = None) -> Any:
    schema = ApiKeys.DELETE_TOPICS.response_schema(6)
    return build(schema, throttle_time=0, responses=[dict(name=name, topic_id=topic_id, error_code=error,
                                                          error_message=message)]).responses[0]


def create_partitions_topic_result(name: str, error: Errors, message: str | None = None) -> Any:
    schema = ApiKeys.CREATE_PARTITIONS.response_schema(3)
    return build(schema, throttle_time=0, results=[dict(name=name, error_code=error,
                                                        error_message=message)]).results[0]


def create_topics_request(topics: list[tuple[str, int, int]]) -> Any:
    return build(ApiKeys.CREATE_TOPICS.request_schema(7), timeout=0, validate_only=False, topics=[
        dict(name=name, num_partitions=partitions, replication_factor=rf, assignments=[], configs=[])
        for name, partitions, rf in topics])


def delete_topics_by_name(names: list[str]) -> Any:
    """DeleteTopicsRequestData.setTopicNames: the names field, which v5 and older carry."""
    return build(ApiKeys.DELETE_TOPICS.request_schema(5), timeout=0, topic_names=names)


def delete_topics_by_state(topics: Iterable[tuple[str | None, uuid.UUID]]) -> Any:
    return build(ApiKeys.DELETE_TOPICS.request_schema(6), timeout=0,
                 topics=[dict(name=name, topic_id=topic_id) for name, topic_id in topics])


def create_partitions_request(topics: list[tuple[str, int]], validate_only: bool = False) -> Any:
    return build(ApiKeys.CREATE_PARTITIONS.request_schema(3), timeout=0, validate_only=validate_only,
                 topics=[dict(name=name, count=count, assignments=None) for name, count in topics])


DELETE_TOPICS_LATEST = 6  # ApiKeys.DELETE_TOPICS.latestVersion in 3.9


# -- the cases --------------------------------------------------------------------------------------------------------

def test_unauthorized_fetch(env: Env) -> None:
    with pytest.raises(ClusterAuthorizationException):
        controller_apis = env.create_controller_apis(DenyAllAuthorizer(), MockController.Builder().build())
        controller_apis.handle_fetch(request_of(ApiKeys.FETCH, 12))


def test_fetch_sent_to_k_raft(env: Env) -> None:
    controller_apis = env.create_controller_apis(None, MockController.Builder().build())
    controller_apis.handle_fetch(request_of(ApiKeys.FETCH, 12))
    assert len(env.raft_manager.calls) == 1


def test_fetch_local_time_computed_correctly(env: Env) -> None:
    local_time_duration_ms = 5
    initial_time_nanos = env.time.nanoseconds()
    initial_time_ms = env.time.milliseconds()

    def answer() -> Future[Any]:
        env.time.sleep(local_time_duration_ms)
        return Future()
    env.raft_manager.answer = answer
    # the local time is set when handle returns
    request = request_of(ApiKeys.FETCH, latest(ApiKeys.FETCH))
    controller_apis = env.create_controller_apis(None, MockController.Builder().build())
    controller_apis.handle(request)

    assert env.raft_manager.calls == [(request.header, request.body(), initial_time_ms)]
    assert (request.api_local_complete_time_nanos - initial_time_nanos) // 1_000_000 == local_time_duration_ms


def test_unauthorized_fetch_snapshot(env: Env) -> None:
    with pytest.raises(ClusterAuthorizationException):
        controller_apis = env.create_controller_apis(DenyAllAuthorizer(), MockController.Builder().build())
        controller_apis.handle_fetch_snapshot(request_of(ApiKeys.FETCH_SNAPSHOT, 0))


def test_fetch_snapshot_sent_to_k_raft(env: Env) -> None:
    controller_apis = env.create_controller_apis(None, MockController.Builder().build())
    controller_apis.handle_fetch_snapshot(request_of(ApiKeys.FETCH_SNAPSHOT, 0))
    assert len(env.raft_manager.calls) == 1


def test_unauthorized_vote(env: Env) -> None:
    with pytest.raises(ClusterAuthorizationException):
        controller_apis = env.create_controller_apis(DenyAllAuthorizer(), MockController.Builder().build())
        controller_apis.handle_vote(request_of(ApiKeys.VOTE, 0))


def test_unauthorized_begin_quorum_epoch(env: Env) -> None:
    with pytest.raises(ClusterAuthorizationException):
        controller_apis = env.create_controller_apis(DenyAllAuthorizer(), MockController.Builder().build())
        controller_apis.handle_begin_quorum_epoch(request_of(ApiKeys.BEGIN_QUORUM_EPOCH, 0))


def test_unauthorized_end_quorum_epoch(env: Env) -> None:
    with pytest.raises(ClusterAuthorizationException):
        controller_apis = env.create_controller_apis(DenyAllAuthorizer(), MockController.Builder().build())
        controller_apis.handle_end_quorum_epoch(request_of(ApiKeys.END_QUORUM_EPOCH, 0))


def test_unauthorized_describe_quorum(env: Env) -> None:
    with pytest.raises(ClusterAuthorizationException):
        controller_apis = env.create_controller_apis(DenyAllAuthorizer(), MockController.Builder().build())
        controller_apis.handle_describe_quorum(request_of(ApiKeys.DESCRIBE_QUORUM, 0))


def test_unauthorized_handle_alter_partition_request(env: Env) -> None:
    with pytest.raises(ClusterAuthorizationException):
        controller_apis = env.create_controller_apis(DenyAllAuthorizer(), MockController.Builder().build())
        controller_apis.handle_alter_partition_request(request_of(ApiKeys.ALTER_PARTITION, 0))


def test_unauthorized_handle_broker_heart_beat_request(env: Env) -> None:
    with pytest.raises(ClusterAuthorizationException):
        controller_apis = env.create_controller_apis(DenyAllAuthorizer(), MockController.Builder().build())
        controller_apis.handle_broker_heartbeat_request(request_of(ApiKeys.BROKER_HEARTBEAT, 0))


def test_unauthorized_handle_unregister_broker(env: Env) -> None:
    with pytest.raises(ClusterAuthorizationException):
        controller_apis = env.create_controller_apis(DenyAllAuthorizer(), MockController.Builder().build())
        controller_apis.handle_unregister_broker(request_of(ApiKeys.UNREGISTER_BROKER, 0))


def test_close(env: Env) -> None:  # part B (issue 24): ControllerApis.close closes its AclApis
    controller_apis = env.create_controller_apis(DenyAllAuthorizer(), MockController.Builder().build())
    controller_apis.close()
    assert controller_apis.is_closed()


def test_unauthorized_broker_registration(env: Env) -> None:
    request = request_of(ApiKeys.BROKER_REGISTRATION, latest(ApiKeys.BROKER_REGISTRATION), broker_id=NODE_ID,
                         rack=BROKER_RACK)
    controller_apis = env.create_controller_apis(DenyAllAuthorizer(), StubController())
    response = env.handle_request(request, controller_apis)
    assert response is not None
    assert error_counts(response) == {Errors.CLUSTER_AUTHORIZATION_FAILED: 1}


def test_unauthorized_handle_alter_partition_reassignments(env: Env) -> None:
    with pytest.raises(ClusterAuthorizationException):
        controller_apis = env.create_controller_apis(DenyAllAuthorizer(), MockController.Builder().build())
        controller_apis.handle_alter_partition_reassignments(request_of(ApiKeys.ALTER_PARTITION_REASSIGNMENTS, 0))


def test_unauthorized_handle_list_partition_reassignments(env: Env) -> None:
    with pytest.raises(ClusterAuthorizationException):
        controller_apis = env.create_controller_apis(DenyAllAuthorizer(), MockController.Builder().build())
        controller_apis.handle_list_partition_reassignments(request_of(ApiKeys.LIST_PARTITION_REASSIGNMENTS, 0))


def test_unauthorized_handle_allocate_producer_ids(env: Env) -> None:
    with pytest.raises(ClusterAuthorizationException):
        controller_apis = env.create_controller_apis(DenyAllAuthorizer(), MockController.Builder().build())
        controller_apis.handle_allocate_producer_ids_request(request_of(ApiKeys.ALLOCATE_PRODUCER_IDS, 0))


def test_create_topics(env: Env) -> None:
    controller = MockController.Builder().build()
    controller_apis = env.create_controller_apis(None, controller)
    request = create_topics_request([
        ("foo", 1, 3), ("foo", 2, 3), ("bar", 2, 3), ("bar", 2, 3), ("bar", 2, 3), ("baz", 2, 3),
        ("indescribable", 2, 3), ("quux", 2, 3), (Topic.CLUSTER_METADATA_TOPIC_NAME, 2, 3)])
    expected_response = {
        creatable_topic_result("foo", Errors.INVALID_REQUEST, "Duplicate topic name."),
        creatable_topic_result("bar", Errors.INVALID_REQUEST, "Duplicate topic name."),
        creatable_topic_result("baz", Errors.NONE, topic_id=uuid_of(0, 1), num_partitions=2, replication_factor=3,
                               topic_config_error_code=Errors.NONE),
        creatable_topic_result("indescribable", Errors.NONE, topic_id=uuid_of(0, 2),
                               topic_config_error_code=Errors.TOPIC_AUTHORIZATION_FAILED),
        creatable_topic_result("quux", Errors.TOPIC_AUTHORIZATION_FAILED, "Authorization failed."),
        creatable_topic_result(Topic.CLUSTER_METADATA_TOPIC_NAME, Errors.INVALID_REQUEST,
                               f"Creation of internal topic {Topic.CLUSTER_METADATA_TOPIC_NAME} is prohibited."),
    }
    response = controller_apis.create_topics(ANONYMOUS_CONTEXT, request, False, lambda _: {"baz", "indescribable"},
                                             lambda _: {"baz"}).result()
    assert set(response.topics) == expected_response


def test_delete_topics_by_name(env: Env) -> None:
    foo_id = uuid_from_string("vZKYST0pSA2HO5x_6hoO2Q")
    controller = MockController.Builder().new_initial_topic("foo", foo_id).build()
    controller_apis = env.create_controller_apis(None, controller)
    request = delete_topics_by_name(["foo", "bar", "quux", "quux"])
    expected_response = {
        deletable_topic_result("quux", error=Errors.INVALID_REQUEST, message="Duplicate topic name."),
        deletable_topic_result("bar", error=Errors.UNKNOWN_TOPIC_OR_PARTITION),  # Kafka: the error's default text
        deletable_topic_result("foo", topic_id=foo_id),
    }
    assert set(controller_apis.delete_topics(ANONYMOUS_CONTEXT, request, DELETE_TOPICS_LATEST, True,
                                             lambda _: set(), lambda _: set()).result()) == expected_response


def test_delete_topics_by_id(env: Env) -> None:
    foo_id = uuid_from_string("vZKYST0pSA2HO5x_6hoO2Q")
    bar_id = uuid_from_string("VlFu5c51ToiNx64wtwkhQw")
    quux_id = uuid_from_string("ObXkLhL_S5W62FAE67U3MQ")
    controller = MockController.Builder().new_initial_topic("foo", foo_id).build()
    controller_apis = env.create_controller_apis(None, controller)
    request = delete_topics_by_state([(None, foo_id), (None, bar_id), (None, quux_id), (None, quux_id)])
    response = {
        deletable_topic_result(None, quux_id, Errors.INVALID_REQUEST, "Duplicate topic id."),
        deletable_topic_result(None, bar_id, Errors.UNKNOWN_TOPIC_ID),  # Kafka: the error's default text
        deletable_topic_result("foo", foo_id),
    }
    assert set(controller_apis.delete_topics(ANONYMOUS_CONTEXT, request, DELETE_TOPICS_LATEST, True,
                                             lambda _: set(), lambda _: set()).result()) == response


def test_invalid_delete_topics_request(env: Env) -> None:
    foo_id = uuid_from_string("vZKYST0pSA2HO5x_6hoO2Q")
    bar_id = uuid_from_string("VlFu5c51ToiNx64wtwkhQw")
    baz_id = uuid_from_string("YOS4oQ3UT9eSAZahN1ysSA")
    controller = MockController.Builder().new_initial_topic("foo", foo_id).new_initial_topic("bar", bar_id).build()
    controller_apis = env.create_controller_apis(None, controller)
    request = delete_topics_by_state([
        (None, ZERO_UUID), ("foo", foo_id), ("bar", ZERO_UUID), (None, bar_id), ("quux", ZERO_UUID),
        ("quux", ZERO_UUID), ("quux", ZERO_UUID), (None, baz_id), (None, baz_id), (None, baz_id)])
    response = {
        deletable_topic_result(None, ZERO_UUID, Errors.INVALID_REQUEST, "Neither topic name nor id were specified."),
        deletable_topic_result("foo", foo_id, Errors.INVALID_REQUEST,
                               "You may not specify both topic name and topic id."),
        deletable_topic_result("bar", bar_id, Errors.INVALID_REQUEST,
                               "The provided topic name maps to an ID that was already supplied."),
        deletable_topic_result("quux", ZERO_UUID, Errors.INVALID_REQUEST, "Duplicate topic name."),
        deletable_topic_result(None, baz_id, Errors.INVALID_REQUEST, "Duplicate topic id."),
    }
    assert set(controller_apis.delete_topics(ANONYMOUS_CONTEXT, request, DELETE_TOPICS_LATEST, False,
                                             set, set).result()) == response


def test_not_authorized_to_delete_with_topic_existing(env: Env) -> None:
    foo_id = uuid_from_string("vZKYST0pSA2HO5x_6hoO2Q")
    bar_id = uuid_from_string("VlFu5c51ToiNx64wtwkhQw")
    baz_id = uuid_from_string("hr4TVh3YQiu3p16Awkka6w")
    quux_id = uuid_from_string("5URoQzW_RJiERVZXJgUVLg")
    controller = (MockController.Builder().new_initial_topic("foo", foo_id).new_initial_topic("bar", bar_id)
                  .new_initial_topic("baz", baz_id).new_initial_topic("quux", quux_id).build())
    controller_apis = env.create_controller_apis(None, controller)
    request = delete_topics_by_state([(None, foo_id), (None, bar_id), ("baz", ZERO_UUID), ("quux", ZERO_UUID)])
    response = {  # Kafka's messages are TOPIC_AUTHORIZATION_FAILED's default text
        deletable_topic_result(None, bar_id, Errors.TOPIC_AUTHORIZATION_FAILED),
        deletable_topic_result("quux", ZERO_UUID, Errors.TOPIC_AUTHORIZATION_FAILED),
        deletable_topic_result("baz", ZERO_UUID, Errors.TOPIC_AUTHORIZATION_FAILED),
        deletable_topic_result("foo", foo_id, Errors.TOPIC_AUTHORIZATION_FAILED),
    }
    assert set(controller_apis.delete_topics(ANONYMOUS_CONTEXT, request, DELETE_TOPICS_LATEST, False,
                                             lambda _: {"foo", "baz"}, lambda _: set()).result()) == response


def test_not_authorized_to_delete_with_topic_not_existing(env: Env) -> None:
    bar_id = uuid_from_string("VlFu5c51ToiNx64wtwkhQw")
    controller = MockController.Builder().build()
    controller_apis = env.create_controller_apis(None, controller)
    request = delete_topics_by_state([("foo", ZERO_UUID), ("bar", ZERO_UUID), (None, bar_id)])
    expected_response = {  # Kafka's messages are the errors' default texts
        deletable_topic_result("foo", error=Errors.UNKNOWN_TOPIC_OR_PARTITION),
        deletable_topic_result("bar", error=Errors.TOPIC_AUTHORIZATION_FAILED),
        deletable_topic_result(None, bar_id, Errors.UNKNOWN_TOPIC_ID),
    }
    assert set(controller_apis.delete_topics(ANONYMOUS_CONTEXT, request, DELETE_TOPICS_LATEST, False,
                                             lambda _: {"foo"}, lambda _: set()).result()) == expected_response


def test_not_controller_error_prevents_deleting_topics(env: Env) -> None:
    foo_id = uuid_from_string("vZKYST0pSA2HO5x_6hoO2Q")
    bar_id = uuid_from_string("VlFu5c51ToiNx64wtwkhQw")
    controller = MockController.Builder().new_initial_topic("foo", foo_id).build()
    controller.set_active(False)
    controller_apis = env.create_controller_apis(None, controller)
    request = delete_topics_by_state([(None, foo_id), (None, bar_id)])
    with pytest.raises(NotControllerException):
        controller_apis.delete_topics(ANONYMOUS_CONTEXT, request, DELETE_TOPICS_LATEST, False,
                                      lambda _: {"foo", "bar"}, lambda _: {"foo", "bar"}).result()


def test_delete_topics_disabled(env: Env) -> None:
    foo_id = uuid_from_string("vZKYST0pSA2HO5x_6hoO2Q")
    controller = MockController.Builder().new_initial_topic("foo", foo_id).build()
    controller_apis = env.create_controller_apis(None, controller, {"delete.topic.enable": "false"})
    request = delete_topics_by_state([("foo", ZERO_UUID)])
    with pytest.raises(TopicDeletionDisabledException):
        controller_apis.delete_topics(ANONYMOUS_CONTEXT, request, DELETE_TOPICS_LATEST, False,
                                      lambda _: {"foo", "bar"}, lambda _: {"foo", "bar"})
    with pytest.raises(InvalidRequestException):
        controller_apis.delete_topics(ANONYMOUS_CONTEXT, request, 1, False,
                                      lambda _: {"foo", "bar"}, lambda _: {"foo", "bar"})


@pytest.mark.parametrize("validate_only", [True, False])
def test_create_partitions_request(env: Env, validate_only: bool) -> None:
    expected_topics = list(create_partitions_request([("foo", 5)]).topics)

    def create_partitions(context: Any, topics: list[Any], validate: bool) -> Future[Any]:
        # the controller is called with the one topic left, and with validateOnly as the request has it
        assert (topics, validate) == (expected_topics, validate_only)
        return completed([create_partitions_topic_result("foo", Errors.NONE)])
    controller = StubController(create_partitions=create_partitions)
    controller_apis = env.create_controller_apis(None, controller)
    request = create_partitions_request([("foo", 5), ("bar", 5), ("bar", 5), ("bar", 5), ("baz", 5)], validate_only)
    assert set(controller_apis.create_partitions(ANONYMOUS_CONTEXT, request, lambda _: {"foo", "bar"}).result()) == {
        create_partitions_topic_result("foo", Errors.NONE),
        create_partitions_topic_result("bar", Errors.INVALID_REQUEST, "Duplicate topic name."),
        create_partitions_topic_result("baz", Errors.TOPIC_AUTHORIZATION_FAILED),
    }


def test_create_partitions_authorization(env: Env) -> None:
    controller = MockController.Builder().new_initial_topic("foo", uuid_from_string("vZKYST0pSA2HO5x_6hoO2Q")).build()
    foo_action = Action("ALTER", "TOPIC", "foo", 1, True, True)
    bar_action = Action("ALTER", "TOPIC", "bar", 1, True, True)

    class Authorizer:
        def authorize(self, context: Any, actions: list[Action]) -> list[AuthorizationResult]:
            def result(action: Action) -> AuthorizationResult:
                if action == foo_action:
                    return AuthorizationResult.ALLOWED
                if action == bar_action:
                    return AuthorizationResult.DENIED
                raise AssertionError(f"Unexpected action {action}")
            return [result(action) for action in actions]
    controller_apis = env.create_controller_apis(Authorizer(), controller)
    request = build_request(ApiKeys.CREATE_PARTITIONS, 3, create_partitions_request([("foo", 2), ("bar", 10)]))

    results = env.handle_request(request, controller_apis).results
    assert [Errors.for_code(r.error_code) for r in results if r.name == "foo"] == [Errors.NONE]
    assert [Errors.for_code(r.error_code) for r in results if r.name == "bar"] == [Errors.TOPIC_AUTHORIZATION_FAILED]


def test_elect_leaders_authorization(env: Env) -> None:
    calls: list[Any] = []

    class ClusterAlterDenied:
        def authorize(self, context: Any, actions: list[Action]) -> list[AuthorizationResult]:
            calls.extend(actions)
            return [AuthorizationResult.DENIED]

    controller_apis = env.create_controller_apis(ClusterAlterDenied(), StubController())
    request = request_of(ApiKeys.ELECT_LEADERS, latest(ApiKeys.ELECT_LEADERS), election_type=0,
                         topic_partitions=None, timeout=30000)
    response = env.handle_request(request, controller_apis)
    assert [(a.operation, a.resource_type, a.resource_name) for a in calls] == [("ALTER", "CLUSTER", "kafka-cluster")]
    assert Errors.for_code(response.error_code) == Errors.CLUSTER_AUTHORIZATION_FAILED


def test_elect_leaders_handled_by_controller(env: Env) -> None:
    from kio.schema.elect_leaders.v2 import response as elect_leaders_response
    requests: list[Any] = []

    def elect_leaders(context: Any, data: Any) -> Future[Any]:
        requests.append(data)
        return completed(elect_leaders_response.ElectLeadersResponse(
            throttle_time=datetime.timedelta(0), error_code=Errors.NOT_CONTROLLER, replica_election_results=()))
    controller_apis = env.create_controller_apis(None, StubController(elect_leaders=elect_leaders))
    request = request_of(ApiKeys.ELECT_LEADERS, latest(ApiKeys.ELECT_LEADERS), election_type=0,
                         topic_partitions=None, timeout=30000)
    response = env.handle_request(request, controller_apis)
    assert requests == [request.body()]
    assert Errors.for_code(response.error_code) == Errors.NOT_CONTROLLER


def test_delete_topics_returns_not_controller(env: Env) -> None:
    topic_id = uuid.uuid4()
    topic_name = "foo"

    def find_topic_names(context: Any, ids: list[uuid.UUID]) -> Future[Any]:
        assert set(ids) == {topic_id}
        return completed({topic_id: topic_name})

    def find_topic_ids(context: Any, names: list[str]) -> Future[Any]:
        assert set(names) == set()
        return completed({})

    def delete_topics(context: Any, ids: list[uuid.UUID]) -> Future[Any]:
        assert set(ids) == {topic_id}
        return failed(NotControllerException("Controller has moved"))
    controller = StubController(find_topic_names=find_topic_names, find_topic_ids=find_topic_ids,
                                delete_topics=delete_topics)
    controller_apis = env.create_controller_apis(None, controller)
    request = build_request(ApiKeys.DELETE_TOPICS, 6, delete_topics_by_state([(None, topic_id)]))

    response = env.handle_request(request, controller_apis)
    topic_id_response = next(r for r in response.responses if r.topic_id == topic_id)
    assert Errors.for_code(topic_id_response.error_code) == Errors.NOT_CONTROLLER


def test_allocate_producer_ids_returns_not_controller(env: Env) -> None:
    # as QuorumController.allocateProducerIds: the block's future failed, and the one mapped from it with it
    request = request_of(ApiKeys.ALLOCATE_PRODUCER_IDS, 0, broker_id=4, broker_epoch=93234)

    def allocate_producer_ids(context: Any, data: Any) -> Future[Any]:
        assert data == request.body()
        return failed(NotControllerException("Controller has moved"))
    controller_apis = env.create_controller_apis(None, StubController(allocate_producer_ids=allocate_producer_ids))

    response = env.handle_request(request, controller_apis)
    assert Errors.for_code(response.error_code) == Errors.NOT_CONTROLLER


def test_completable_future_exceptions(env: Env) -> None:
    # an error in the stages that answer the controller's future is caught and sent as an error response
    request = request_of(ApiKeys.FETCH, 12)
    response = empty(ApiKeys.FETCH.response_schema(12))
    response_future: Future[Any] = Future()
    error_response: list[Any] = []
    env.raft_manager.answer = lambda: response_future

    def encoding_failure(_request: Request, _body: Any) -> None:  # the first answer fails, as an encoding would
        raise UnsupportedVersionException("Something went wrong")
    env.request_channel.answers = [encoding_failure, lambda *sent: error_response.append(sent)]

    # handle does not block: nothing waits on the future
    controller_apis = env.create_controller_apis(None, MockController.Builder().build())
    controller_apis.handle(request)

    # completing it runs the stages, the error handler of handle among them
    response_future.set_result(response)

    # so an UNSUPPORTED_VERSION error response went out
    assert len(error_response) == 1
    assert error_counts(response_body(error_response[0], request))[Errors.UNSUPPORTED_VERSION] == 1


def test_unauthorized_describe_cluster_request(env: Env) -> None:
    with pytest.raises(ClusterAuthorizationException):
        controller_apis = env.create_controller_apis(DenyAllAuthorizer(), MockController.Builder().build())
        controller_apis.handle_describe_cluster(request_of(ApiKeys.DESCRIBE_CLUSTER, 1))


# -- part A (issue 24): AlterConfigs, IncrementalAlterConfigs, AlterClientQuotas ----------------------------------
# The port's Errors carry no default message texts (api_error.py): where Kafka expects
# CLUSTER_AUTHORIZATION_FAILED.message() on a resource refused by the controller's own check, the port has None.

BROKER_TYPE, TOPIC_TYPE, BROKER_LOGGER_TYPE, CLIENT_METRICS_TYPE = 4, 2, 8, 16  # ConfigResource.Type ids
LOG_CLEANER_BACKOFF_MS_PROP = "log.cleaner.backoff.ms"
logging.getLogger("kafka.server.ControllerApisTest")  # the logger the BROKER_LOGGER case sets (it must exist)


def _sent_responses(env: Env, request: Request) -> set[tuple[Any, ...]]:
    assert len(env.request_channel.responses) == 1
    body = response_body(env.request_channel.responses[0], request)
    return {(r.error_code, r.error_message, r.resource_name, r.resource_type) for r in body.responses}


def test_handle_legacy_alter_configs_errors(env: Env) -> None:
    def resource(name: str, type_id: int, key: str, value: str) -> dict[str, Any]:
        return dict(resource_name=name, resource_type=type_id, configs=[dict(name=key, value=value)])
    body = build(ApiKeys.ALTER_CONFIGS.request_schema(0), validate_only=False, resources=[
        resource("1", BROKER_TYPE, LOG_CLEANER_BACKOFF_MS_PROP, "100000"),
        resource("2", BROKER_TYPE, LOG_CLEANER_BACKOFF_MS_PROP, "100000"),
        resource("2", BROKER_TYPE, LOG_CLEANER_BACKOFF_MS_PROP, "100000"),
        resource("baz", 123, "foo", "bar")])
    request = build_request(ApiKeys.ALTER_CONFIGS, 0, body)
    controller_apis = env.create_controller_apis(DenyAllAuthorizer(), MockController.Builder().build())
    controller_apis.handle_legacy_alter_configs(request)
    assert _sent_responses(env, request) == {
        (Errors.INVALID_REQUEST, "Duplicate resource.", "2", BROKER_TYPE),
        (Errors.UNSUPPORTED_VERSION, "Unknown resource type 123.", "baz", 123),
        (Errors.CLUSTER_AUTHORIZATION_FAILED, None, "1", BROKER_TYPE)}


def test_unauthorized_handle_alter_client_quotas(env: Env) -> None:
    with pytest.raises(ClusterAuthorizationException):
        controller_apis = env.create_controller_apis(DenyAllAuthorizer(), MockController.Builder().build())
        controller_apis.handle_alter_client_quotas(request_of(ApiKeys.ALTER_CLIENT_QUOTAS, 0))


def _incremental_resource(name: str, type_id: int, key: str, value: str) -> dict[str, Any]:
    return dict(resource_name=name, resource_type=type_id, configs=[dict(name=key, value=value, config_operation=0)])


def test_unauthorized_handle_incremental_alter_configs(env: Env) -> None:
    body = build(ApiKeys.INCREMENTAL_ALTER_CONFIGS.request_schema(0), validate_only=False, resources=[
        _incremental_resource("1", BROKER_TYPE, LOG_CLEANER_BACKOFF_MS_PROP, "100000"),
        _incremental_resource("foo", TOPIC_TYPE, "flush.ms", "1000"),
        _incremental_resource("sub", CLIENT_METRICS_TYPE, "interval.ms", "100000")])
    request = build_request(ApiKeys.INCREMENTAL_ALTER_CONFIGS, 0, body)
    controller_apis = env.create_controller_apis(DenyAllAuthorizer(), MockController.Builder().build())
    controller_apis.handle_incremental_alter_configs(request)
    assert _sent_responses(env, request) == {
        (Errors.CLUSTER_AUTHORIZATION_FAILED, None, "1", BROKER_TYPE),
        (Errors.TOPIC_AUTHORIZATION_FAILED, None, "foo", TOPIC_TYPE),
        (Errors.CLUSTER_AUTHORIZATION_FAILED, None, "sub", CLIENT_METRICS_TYPE)}


@pytest.mark.parametrize("deny_all_authorizer", [False, True])
def test_invalid_incremental_alter_configs_resources(env: Env, deny_all_authorizer: bool) -> None:
    body = build(ApiKeys.INCREMENTAL_ALTER_CONFIGS.request_schema(0), validate_only=False, resources=[
        _incremental_resource("1", BROKER_LOGGER_TYPE, "kafka.server.ControllerApisTest", "DEBUG"),
        _incremental_resource("3", BROKER_TYPE, LOG_CLEANER_BACKOFF_MS_PROP, "100000"),
        _incremental_resource("3", BROKER_TYPE, LOG_CLEANER_BACKOFF_MS_PROP, "100000"),
        _incremental_resource("foo", 124, "foo", "bar"),
        _incremental_resource("sub", CLIENT_METRICS_TYPE, "interval.ms", "1"),
        _incremental_resource("sub1", CLIENT_METRICS_TYPE, "interval.ms", "1"),
        _incremental_resource("sub1", CLIENT_METRICS_TYPE, "interval.ms", "1")])
    request = build_request(ApiKeys.INCREMENTAL_ALTER_CONFIGS, 0, body)
    controller_apis = env.create_controller_apis(DenyAllAuthorizer() if deny_all_authorizer else None,
                                                 MockController.Builder().build())
    level = logging.getLogger("kafka.server.ControllerApisTest").level
    try:
        controller_apis.handle_incremental_alter_configs(request)
    finally:
        logging.getLogger("kafka.server.ControllerApisTest").setLevel(level)
    denied = Errors.CLUSTER_AUTHORIZATION_FAILED if deny_all_authorizer else Errors.NONE
    assert _sent_responses(env, request) == {
        # the BROKER_LOGGER refusal carries RuntimeLoggerManager's message (Kafka's default text for the error)
        (denied, "Cluster authorization failed." if deny_all_authorizer else None, "1", BROKER_LOGGER_TYPE),
        (Errors.INVALID_REQUEST, "Duplicate resource.", "3", BROKER_TYPE),
        (Errors.UNSUPPORTED_VERSION, "Unknown resource type 124.", "foo", 124),
        (denied, None, "sub", CLIENT_METRICS_TYPE),
        (Errors.INVALID_REQUEST, "Duplicate resource.", "sub1", CLIENT_METRICS_TYPE)}
