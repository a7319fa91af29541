"""Port of core/src/main/scala/kafka/server/ControllerApis.scala (Kafka 3.9): the requests a KRaft controller serves."""

from __future__ import annotations

import dataclasses
import logging
import time
import uuid
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any

from kio.schema.create_topics.v7 import response as create_topics_response
from kio.schema.request_header.v2.header import RequestHeader

from kafka_edu.tracing import step
from kafka_edu.v1_0_2.core.network.request_channel import Request, RequestChannel, Response, ResponseAction
from kafka_edu.v1_0_2.core.server.kafka_apis import millis
from kafka_edu.v3_9.clients.common.internals import topic as Topic
from kafka_edu.v3_9.clients.common.protocol.api_keys import ApiKeys
from kafka_edu.v3_9.clients.common.protocol.builder import build
from kafka_edu.v3_9.clients.common.protocol.codec import api_versions_unsupported_response, encode_response
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from kafka_edu.v3_9.core.server.api_version_manager import ApiVersionManager, ListenerType, SimpleApiVersionManager
from kafka_edu.v3_9.metadata.controller.controller_request_context import ControllerRequestContext
from kafka_edu.v3_9.metadata.controller.replication_control_manager import ApiError
from kafka_edu.v3_9.raft.raft.quorum_config import QuorumConfig

log = logging.getLogger("kafka.server.ControllerApis")

# What the CONTROLLER listener serves (3.9's ApiMessageType listeners = controller), within kio's schemas. The Raft
# RPCs and the broker-to-controller RPCs are all flexible: their headers carry the sender's traceparent.
CONTROLLER_SUPPORTED_VERSIONS: dict[ApiKeys, tuple[int, int]] = {
    ApiKeys.FETCH: (0, 17),
    ApiKeys.FETCH_SNAPSHOT: (0, 1),
    ApiKeys.CREATE_TOPICS: (2, 7),
    ApiKeys.DELETE_TOPICS: (1, 6),
    ApiKeys.API_VERSIONS: (0, 3),
    ApiKeys.VOTE: (0, 1),
    ApiKeys.BEGIN_QUORUM_EPOCH: (0, 1),
    ApiKeys.END_QUORUM_EPOCH: (0, 1),
    ApiKeys.DESCRIBE_QUORUM: (0, 2),
    ApiKeys.ALTER_PARTITION: (0, 3),
    ApiKeys.BROKER_REGISTRATION: (0, 4),
    ApiKeys.BROKER_HEARTBEAT: (0, 1),
    ApiKeys.DESCRIBE_CLUSTER: (0, 1),
    ApiKeys.ALLOCATE_PRODUCER_IDS: (0, 0),
    ApiKeys.CREATE_PARTITIONS: (0, 3),
}


def controller_api_version_manager() -> SimpleApiVersionManager:
    return SimpleApiVersionManager(ListenerType.CONTROLLER, CONTROLLER_SUPPORTED_VERSIONS)


RAFT_APIS = frozenset({ApiKeys.FETCH, ApiKeys.FETCH_SNAPSHOT, ApiKeys.VOTE, ApiKeys.BEGIN_QUORUM_EPOCH,
                       ApiKeys.END_QUORUM_EPOCH, ApiKeys.DESCRIBE_QUORUM})


class ControllerApis:
    """Dispatches each request on the CONTROLLER listener: Raft RPCs to the Raft manager, metadata operations to the
    QuorumController, each answered when its future completes (a write only once its records are committed)."""

    def __init__(self, request_channel: RequestChannel, controller: Any, raft_manager: Any, config: Any,
                 cluster_id: str, api_version_manager: ApiVersionManager | None = None) -> None:
        self.request_channel = request_channel
        self.api_version_manager = api_version_manager or controller_api_version_manager()
        self.controller = controller
        self.raft_manager = raft_manager
        self.config = config
        self.cluster_id = cluster_id
        self.handlers: dict[int, Callable[[Request], Future[Any] | None]] = {
            ApiKeys.FETCH: self.handle_raft_request,
            ApiKeys.FETCH_SNAPSHOT: self.handle_raft_request,
            ApiKeys.CREATE_TOPICS: self.handle_create_topics,
            ApiKeys.DELETE_TOPICS: self.handle_delete_topics,
            ApiKeys.API_VERSIONS: self.handle_api_versions_request,
            ApiKeys.VOTE: self.handle_raft_request,
            ApiKeys.BEGIN_QUORUM_EPOCH: self.handle_raft_request,
            ApiKeys.END_QUORUM_EPOCH: self.handle_raft_request,
            ApiKeys.DESCRIBE_QUORUM: self.handle_raft_request,
            ApiKeys.ALTER_PARTITION: self.handle_alter_partition_request,
            ApiKeys.BROKER_REGISTRATION: self.handle_broker_registration,
            ApiKeys.BROKER_HEARTBEAT: self.handle_broker_heartbeat_request,
            ApiKeys.DESCRIBE_CLUSTER: self.handle_describe_cluster,
            ApiKeys.ALLOCATE_PRODUCER_IDS: self.handle_allocate_producer_ids_request,
            ApiKeys.CREATE_PARTITIONS: self.handle_create_partitions,
        }

    @step("KR.apis")
    def handle(self, request: Request) -> None:
        api = ApiKeys.for_key(request.api_key)
        try:
            handler = self.handlers.get(request.api_key)
            if handler is None:
                # 3.9 throws ApiException("Unsupported ApiKey"): an API the controller listener does not enable.
                log.info("Closing connection %s: %s is not served on a controller listener", request.connection_id,
                         api.api_name)
                self.close_connection(request)
                return
            future = handler(request)
            if future is not None:
                future.add_done_callback(lambda f: self._log_failure(request, f))
        except Exception:
            log.exception("Unexpected error handling request %s from %s", api.api_name, request.client_id)
            self.close_connection(request)
        finally:
            if request.api_local_complete_time_ns < 0:
                request.api_local_complete_time_ns = time.time_ns()

    def _log_failure(self, request: Request, future: Future[Any]) -> None:
        if future.exception() is not None:
            log.error("Unexpected error handling request %s: %s", ApiKeys.for_key(request.api_key).api_name,
                      future.exception())
            self.close_connection(request)

    # -- sending --------------------------------------------------------------------------------------------------

    def send_response(self, request: Request, body: Any) -> None:
        payload = encode_response(request.api_key, request.api_version, request.correlation_id, body)
        self.request_channel.send_response(Response(request, payload, ResponseAction.SEND))

    def close_connection(self, request: Request) -> None:
        self.request_channel.send_response(Response(request, None, ResponseAction.CLOSE_CONNECTION))

    def response_schema(self, request: Request) -> type[Any]:
        return ApiKeys.for_key(request.api_key).response_schema(request.api_version)

    # -- the Raft RPCs --------------------------------------------------------------------------------------------

    def handle_raft_request(self, request: Request) -> Future[Any]:
        """Handed to the Raft client's thread; answered when it has an answer (a Fetch may wait for records)."""
        future: Future[Any] = self.raft_manager.handle_request(request, time.time_ns() // 1_000_000)

        def respond(done: Future[Any]) -> None:
            if done.exception() is None:
                self.send_response(request, done.result())
        future.add_done_callback(respond)
        return future

    # -- ApiVersions ----------------------------------------------------------------------------------------------

    def handle_api_versions_request(self, request: Request) -> None:
        if request.body is None:
            payload = api_versions_unsupported_response(request.correlation_id,
                                                        self.api_version_manager.api_version_entries(0))
            self.request_channel.send_response(Response(request, payload, ResponseAction.SEND))
            return
        self.send_response(request, build(self.response_schema(request), error_code=Errors.NONE, throttle_time=0,
                                          api_keys=self.api_version_manager.api_version_entries(
                                              request.api_version)))

    # -- metadata operations: each a QuorumController event ---------------------------------------------------------

    def _request_context(self, request: Request, timeout_ms: int | None = None) -> ControllerRequestContext:
        header = RequestHeader(request_api_key=request.api_key, request_api_version=request.api_version,
                               correlation_id=request.correlation_id, client_id=request.client_id)
        if timeout_ms is None:
            return ControllerRequestContext(header)
        return ControllerRequestContext.with_timeout(timeout_ms, header)

    def _answer(self, request: Request, future: Future[Any], to_response: Callable[[Any], Any],
                error_response: Callable[[Errors, str], Any]) -> Future[Any]:
        """Send the response when the controller's future completes: at commit for a write. A failed operation
        (NOT_CONTROLLER on a voter that is not active, say) is answered with its error code, as 3.9's handlers do;
        the future returned fails only if no answer could be sent, and then the connection closes."""
        answered: Future[Any] = Future()

        def respond(done: Future[Any]) -> None:
            try:
                exception = done.exception()
                if exception is None:
                    self.send_response(request, to_response(done.result()))
                else:
                    self.send_response(request, error_response(Errors.for_exception(exception), str(exception)))
            except Exception as e:
                answered.set_exception(e)
            else:
                answered.set_result(None)
        future.add_done_callback(respond)
        return answered

    def handle_create_topics(self, request: Request) -> Future[Any]:
        data = request.body
        schema = self.response_schema(request)
        future = self.create_topics(self._request_context(request, millis(data.timeout)), data)
        return self._answer(request, future, lambda response: convert(response, schema),
                            lambda error, message: build(schema, throttle_time=0, topics=[
                                {"name": t.name, "error_code": error, "error_message": message}
                                for t in data.topics]))

    def create_topics(self, context: ControllerRequestContext, data: Any) -> Future[Any]:
        """A name given twice is refused (INVALID_REQUEST, once), and so is __cluster_metadata; the other topics go
        to the controller (no authorizer here: all may be created and described)."""
        topic_names: list[str] = []  # in request order, as the answers follow it
        duplicate_topic_names: list[str] = []
        for topic in data.topics:
            if topic.name not in duplicate_topic_names:
                if topic.name in topic_names:
                    topic_names.remove(topic.name)
                    duplicate_topic_names.append(topic.name)
                else:
                    topic_names.append(topic.name)
        allowed_topic_names = {name for name in topic_names if name != Topic.CLUSTER_METADATA_TOPIC_NAME}
        effective_request = dataclasses.replace(data, topics=tuple(
            t for t in data.topics if t.name not in duplicate_topic_names and t.name in allowed_topic_names))
        result: Future[Any] = Future()

        def done(f: Future[Any]) -> None:
            if f.exception() is not None:
                result.set_exception(f.exception())
                return
            response = f.result()
            extra = [create_topics_response.CreatableTopicResult(
                name=name, topic_id=uuid.UUID(int=0), error_code=Errors.INVALID_REQUEST,
                error_message="Duplicate topic name.", configs=()) for name in duplicate_topic_names]
            extra += [create_topics_response.CreatableTopicResult(
                name=name, topic_id=uuid.UUID(int=0), error_code=Errors.INVALID_REQUEST,
                error_message=f"Creation of internal topic {Topic.CLUSTER_METADATA_TOPIC_NAME} is prohibited.",
                configs=()) for name in topic_names if name == Topic.CLUSTER_METADATA_TOPIC_NAME]
            result.set_result(dataclasses.replace(response, topics=tuple(response.topics) + tuple(extra)))
        self.controller.create_topics(context, effective_request, allowed_topic_names).add_done_callback(done)
        return result

    def handle_delete_topics(self, request: Request) -> Future[Any]:
        """By name (and by id from v6): names are looked up to ids first, as 3.9's deleteTopics does."""
        data = request.body
        schema = self.response_schema(request)
        context = self._request_context(request, millis(data.timeout))
        names = list(data.topic_names) + [t.name for t in getattr(data, "topics", ()) if t.name]
        result: Future[Any] = Future()

        def deleted(ids_by_name: dict[str, Any], done: Future[Any]) -> None:
            if done.exception() is not None:
                result.set_exception(done.exception())
                return
            errors = done.result()
            result.set_result([{"name": name, "topic_id": topic_id, "error_code": errors[topic_id].error,
                                "error_message": errors[topic_id].message} for name, topic_id in ids_by_name.items()])

        def found(done: Future[Any]) -> None:
            if done.exception() is not None:
                result.set_exception(done.exception())
                return
            responses, ids_by_name = [], {}
            for name, id_or_error in done.result().items():
                if isinstance(id_or_error, ApiError):
                    responses.append({"name": name, "error_code": id_or_error.error,
                                      "error_message": id_or_error.message})
                else:
                    ids_by_name[name] = id_or_error
            self.controller.delete_topics(context, list(ids_by_name.values())).add_done_callback(
                lambda d: result.set_result(responses) if not ids_by_name else deleted(ids_by_name, d))

        self.controller.find_topic_ids(context, names).add_done_callback(found)
        return self._answer(request, result, lambda responses: build(schema, throttle_time=0,
                                                                     responses=responses),
                            lambda error, message: build(schema, throttle_time=0, responses=[
                                {"name": name, "error_code": error, "error_message": message} for name in names]))

    def handle_create_partitions(self, request: Request) -> Future[Any]:
        data = request.body
        schema = self.response_schema(request)
        future = self.create_partitions(self._request_context(request, millis(data.timeout)), data)
        return self._answer(request, future, lambda results: build(schema, throttle_time=0, results=results),
                            lambda error, message: build(schema, throttle_time=0, results=[
                                {"name": t.name, "error_code": error, "error_message": message}
                                for t in data.topics]))

    def create_partitions(self, context: ControllerRequestContext, data: Any) -> Future[list[Any]]:
        """Duplicated names are refused here, each once; the rest go to the controller."""
        names = [t.name for t in data.topics]
        duplicates = {n for n in names if names.count(n) > 1}
        responses: list[Any] = [{"name": n, "error_code": Errors.INVALID_REQUEST,
                                 "error_message": "Duplicate topic name."} for n in sorted(duplicates)]
        topics = [t for t in data.topics if t.name not in duplicates]  # no authorizer: all may be altered
        result: Future[list[Any]] = Future()

        def done(f: Future[Any]) -> None:
            if f.exception() is not None:
                result.set_exception(f.exception())
            else:
                result.set_result(responses + list(f.result()))
        self.controller.create_partitions(context, topics, data.validate_only).add_done_callback(done)
        return result

    def handle_alter_partition_request(self, request: Request) -> Future[Any]:
        schema = self.response_schema(request)
        future = self.controller.alter_partition(self._request_context(request), request.body)
        return self._answer(request, future, lambda response: convert(response, schema),
                            lambda error, _m: build(schema, throttle_time=0, error_code=error, topics=[]))

    def handle_broker_registration(self, request: Request) -> Future[Any]:
        schema = self.response_schema(request)
        future = self.controller.register_broker(self._request_context(request), request.body)
        return self._answer(request, future,
                            lambda reply: build(schema, throttle_time=0, error_code=Errors.NONE,
                                                broker_epoch=reply.epoch),
                            lambda error, _m: build(schema, throttle_time=0, error_code=error, broker_epoch=-1))

    def handle_broker_heartbeat_request(self, request: Request) -> Future[Any]:
        schema = self.response_schema(request)
        future = self.controller.process_broker_heartbeat(self._request_context(request), request.body)
        return self._answer(request, future,
                            lambda reply: build(schema, throttle_time=0, error_code=Errors.NONE,
                                                is_caught_up=reply.is_caught_up, is_fenced=reply.is_fenced,
                                                should_shut_down=reply.should_shut_down),
                            lambda error, _m: build(schema, throttle_time=0, error_code=error, is_caught_up=False,
                                                    is_fenced=True, should_shut_down=False))

    def handle_allocate_producer_ids_request(self, request: Request) -> Future[Any]:
        schema = self.response_schema(request)
        future = self.controller.allocate_producer_ids(self._request_context(request), request.body)
        return self._answer(request, future,
                            lambda block: build(schema, throttle_time=0, error_code=Errors.NONE,
                                                producer_id_start=block.first_producer_id(),
                                                producer_id_len=block.size()),
                            lambda error, _m: build(schema, throttle_time=0, error_code=error, producer_id_start=-1,
                                                    producer_id_len=0))

    # -- DescribeCluster --------------------------------------------------------------------------------------------

    def handle_describe_cluster(self, request: Request) -> None:
        """On a controller listener: the cluster id, the active controller and the voters as the nodes."""
        schema = self.response_schema(request)
        leader = self.raft_manager.leader_and_epoch()
        voters = QuorumConfig.parse_voter_connections(self.config.quorum_config.voters())
        self.send_response(request, build(
            schema, throttle_time=0, error_code=Errors.NONE, error_message=None, endpoint_type=2,
            cluster_id=self.cluster_id, controller_id=leader.leader_id if leader.leader_id is not None else -1,
            brokers=[{"broker_id": node_id, "host": host, "port": port, "rack": None}
                     for node_id, (host, port) in voters.items()],
            cluster_authorized_operations=-2147483648))


def convert(body: Any, schema: type[Any]) -> Any:
    """A kio entity of one version re-built as another version of the same message (the controller answers at v7,
    the client asked for its own version): fields the target lacks are dropped."""
    return build(schema, **_as_values(body))


def _as_values(entity: Any) -> dict[str, Any]:
    values = {}
    for f in dataclasses.fields(entity):
        value = getattr(entity, f.name)
        if isinstance(value, tuple) and value and dataclasses.is_dataclass(value[0]):
            value = [_as_values(item) for item in value]
        elif dataclasses.is_dataclass(value):
            value = _as_values(value)
        values[f.name] = value
    return values
