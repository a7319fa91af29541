"""Port of core/src/main/scala/kafka/server/ControllerApis.scala (Kafka 3.9): the requests a KRaft controller serves."""

from __future__ import annotations

import dataclasses
import logging
import random
import traceback
import uuid
from collections.abc import Callable, Iterable
from concurrent.futures import Future
from typing import Any

from kio.schema.create_partitions.v3 import response as create_partitions_response
from kio.schema.create_topics.v7 import response as create_topics_response
from kio.schema.delete_topics.v6 import response as delete_topics_response
from kio.schema.request_header.v2.header import RequestHeader

from kafka_edu.tracing import step
from kafka_edu.v1_0_2.clients.common.errors import (
    ApiException,
    ClusterAuthorizationException,
    InvalidRequestException,
    UnsupportedVersionException,
)
from kafka_edu.v3_9.clients.common.internals import topic as Topic
from kafka_edu.v3_9.clients.common.protocol.api_keys import ApiKeys
from kafka_edu.v3_9.clients.common.protocol.builder import build, values
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from kafka_edu.v3_9.clients.common.utils.time import SYSTEM, Time
from kafka_edu.v3_9.clients.server.authorizer.action import Action, AuthorizationResult
from kafka_edu.v3_9.core.network.request_channel import Request, RequestChannel
from kafka_edu.v3_9.core.server.acl_apis import AclApis
from kafka_edu.v3_9.core.server.api_version_manager import ApiVersionManager, ListenerType, SimpleApiVersionManager
from kafka_edu.v3_9.core.server.kafka_request_handler import ApiRequestHandler
from kafka_edu.v3_9.core.server.request_handler_helper import RequestHandlerHelper, get_error_response
from kafka_edu.v3_9.metadata.controller.controller_request_context import ControllerRequestContext
from kafka_edu.v3_9.metadata.controller.replication_control_manager import ApiError
from kafka_edu.v3_9.raft.raft.quorum_config import QuorumConfig
from kafka_edu.v3_9.server_common.server.util.shutdownable_thread import FatalExitError

log = logging.getLogger("kafka.server.ControllerApis")

# What the CONTROLLER listener serves (3.9's ApiMessageType listeners = controller), within kio's schemas. The Raft
# RPCs and the broker-to-controller RPCs are all flexible: their headers carry the sender's traceparent.
CONTROLLER_SUPPORTED_VERSIONS: dict[ApiKeys, tuple[int, int]] = {
    ApiKeys.FETCH: (0, 17),
    ApiKeys.FETCH_SNAPSHOT: (0, 1),
    ApiKeys.CREATE_TOPICS: (2, 7),
    ApiKeys.DELETE_TOPICS: (1, 6),
    ApiKeys.API_VERSIONS: (0, 3),
    ApiKeys.ALTER_CONFIGS: (0, 2),  # part A
    ApiKeys.INCREMENTAL_ALTER_CONFIGS: (0, 1),  # part A
    ApiKeys.ALTER_CLIENT_QUOTAS: (0, 1),  # part A
    ApiKeys.ALTER_USER_SCRAM_CREDENTIALS: (0, 0),  # part A
    ApiKeys.UPDATE_FEATURES: (0, 1),  # part A
    ApiKeys.VOTE: (0, 1),
    ApiKeys.BEGIN_QUORUM_EPOCH: (0, 1),
    ApiKeys.END_QUORUM_EPOCH: (0, 1),
    ApiKeys.DESCRIBE_QUORUM: (0, 2),
    ApiKeys.ALTER_PARTITION: (0, 3),
    ApiKeys.BROKER_REGISTRATION: (0, 4),
    ApiKeys.BROKER_HEARTBEAT: (0, 1),
    ApiKeys.UNREGISTER_BROKER: (0, 0),
    ApiKeys.DESCRIBE_CLUSTER: (0, 1),
    ApiKeys.ALLOCATE_PRODUCER_IDS: (0, 0),
    ApiKeys.CREATE_PARTITIONS: (0, 3),
    ApiKeys.ELECT_LEADERS: (0, 2),
    ApiKeys.ALTER_PARTITION_REASSIGNMENTS: (0, 0),
    ApiKeys.LIST_PARTITION_REASSIGNMENTS: (0, 0),
    ApiKeys.DESCRIBE_ACLS: (0, 3),  # part B
    ApiKeys.CREATE_ACLS: (0, 3),  # part B
    ApiKeys.DELETE_ACLS: (0, 3),  # part B
    ApiKeys.ADD_RAFT_VOTER: (0, 0),  # KIP-853
    ApiKeys.REMOVE_RAFT_VOTER: (0, 0),  # KIP-853
    ApiKeys.UPDATE_RAFT_VOTER: (0, 0),  # KIP-853
}


def controller_api_version_manager() -> SimpleApiVersionManager:
    return SimpleApiVersionManager(ListenerType.CONTROLLER, CONTROLLER_SUPPORTED_VERSIONS)


RAFT_APIS = frozenset({ApiKeys.FETCH, ApiKeys.FETCH_SNAPSHOT, ApiKeys.VOTE, ApiKeys.BEGIN_QUORUM_EPOCH,
                       ApiKeys.END_QUORUM_EPOCH, ApiKeys.DESCRIBE_QUORUM, ApiKeys.ADD_RAFT_VOTER,
                       ApiKeys.REMOVE_RAFT_VOTER, ApiKeys.UPDATE_RAFT_VOTER})

ZERO_UUID = uuid.UUID(int=0)  # Uuid.ZERO_UUID
CLUSTER_NAME = "kafka-cluster"  # Resource.CLUSTER_NAME


class TopicDeletionDisabledException(ApiException):
    """org.apache.kafka.common.errors.TopicDeletionDisabledException (TOPIC_DELETION_DISABLED)."""


# -- authorization: kafka.server.AuthHelper over org.apache.kafka.server.authorizer.Authorizer --------------------
# Without `authorizer.class.name` a node has no authorizer and every request is allowed, as in 3.9. With one (the
# StandardAuthorizer, kafka_edu/v3_9/metadata/metadata/authorizer/), ControllerApis and KafkaApis ask it what 3.9
# asks: Authorizer.authorize(request context, [Action]) -> [AuthorizationResult] (clients/server/authorizer/action.py).


class AuthHelper:
    def __init__(self, authorizer: Any | None) -> None:
        self.authorizer = authorizer

    def authorize(self, request: Request, operation: str, resource_type: str, resource_name: str,
                  log_if_allowed: bool = True, log_if_denied: bool = True, ref_count: int = 1) -> bool:
        if self.authorizer is None:
            return True
        action = Action(operation, resource_type, resource_name, ref_count, log_if_allowed, log_if_denied)
        # ControllerApis hands over the request, KafkaApis its context: the authorizer is asked with the context
        context = getattr(request, "context", request)
        return self.authorizer.authorize(context, [action])[0] == AuthorizationResult.ALLOWED

    def authorize_cluster_operation(self, request: Request, operation: str) -> None:
        if not self.authorize(request, operation, "CLUSTER", CLUSTER_NAME):
            raise ClusterAuthorizationException(f"Request {request} is not authorized.")

    def filter_by_authorized(self, request: Request, operation: str, resource_type: str, resources: Iterable[str],
                             log_if_allowed: bool = True, log_if_denied: bool = True) -> set[str]:
        if self.authorizer is None:
            return set(resources)
        counts: dict[str, int] = {}
        for name in resources:
            counts[name] = counts.get(name, 0) + 1
        actions = [Action(operation, resource_type, name, count, log_if_allowed, log_if_denied)
                   for name, count in counts.items()]
        results = self.authorizer.authorize(getattr(request, "context", request), actions)
        return {action.resource_name for action, result in zip(actions, results, strict=False)
                if result == AuthorizationResult.ALLOWED}


class ControllerApis(ApiRequestHandler):
    """Dispatches each request on the CONTROLLER listener: Raft RPCs to the Raft manager, metadata operations to the
    QuorumController, each answered when its future completes (a write only once its records are committed)."""

    def __init__(self, request_channel: RequestChannel, controller: Any, raft_manager: Any, config: Any,
                 cluster_id: str, api_version_manager: ApiVersionManager | None = None, *,
                 authorizer: Any | None = None, quotas: Any = None, time: Time = SYSTEM) -> None:
        self.request_channel = request_channel
        self.authorizer = authorizer
        self.quotas = quotas
        self.time = time
        self.controller = controller
        self.raft_manager = raft_manager
        self.config = config
        self.cluster_id = cluster_id
        self.api_version_manager = api_version_manager or controller_api_version_manager()
        self.auth_helper = AuthHelper(authorizer)
        self.request_helper = RequestHandlerHelper(request_channel, quotas, time)
        self.acl_apis = AclApis(self.auth_helper, authorizer, self.request_helper, "controller", config)  # part B
        self.handlers: dict[ApiKeys, Callable[[Request], Future[Any] | None]] = {
            ApiKeys.FETCH: self.handle_fetch,
            ApiKeys.FETCH_SNAPSHOT: self.handle_fetch_snapshot,
            ApiKeys.CREATE_TOPICS: self.handle_create_topics,
            ApiKeys.DELETE_TOPICS: self.handle_delete_topics,
            ApiKeys.API_VERSIONS: self.handle_api_versions_request,
            ApiKeys.ALTER_CONFIGS: self.handle_legacy_alter_configs,  # part A
            ApiKeys.INCREMENTAL_ALTER_CONFIGS: self.handle_incremental_alter_configs,  # part A
            ApiKeys.ALTER_CLIENT_QUOTAS: self.handle_alter_client_quotas,  # part A
            ApiKeys.ALTER_USER_SCRAM_CREDENTIALS: self.handle_alter_user_scram_credentials,  # part A
            ApiKeys.UPDATE_FEATURES: self.handle_update_features,  # part A
            ApiKeys.VOTE: self.handle_vote,
            ApiKeys.BEGIN_QUORUM_EPOCH: self.handle_begin_quorum_epoch,
            ApiKeys.END_QUORUM_EPOCH: self.handle_end_quorum_epoch,
            ApiKeys.DESCRIBE_QUORUM: self.handle_describe_quorum,
            ApiKeys.ALTER_PARTITION: self.handle_alter_partition_request,
            ApiKeys.BROKER_REGISTRATION: self.handle_broker_registration,
            ApiKeys.BROKER_HEARTBEAT: self.handle_broker_heartbeat_request,
            ApiKeys.UNREGISTER_BROKER: self.handle_unregister_broker,
            ApiKeys.DESCRIBE_CLUSTER: self.handle_describe_cluster,
            ApiKeys.ALLOCATE_PRODUCER_IDS: self.handle_allocate_producer_ids_request,
            ApiKeys.CREATE_PARTITIONS: self.handle_create_partitions,
            ApiKeys.ELECT_LEADERS: self.handle_elect_leaders,
            ApiKeys.ALTER_PARTITION_REASSIGNMENTS: self.handle_alter_partition_reassignments,
            ApiKeys.LIST_PARTITION_REASSIGNMENTS: self.handle_list_partition_reassignments,
            ApiKeys.DESCRIBE_ACLS: self.acl_apis.handle_describe_acls,  # part B
            ApiKeys.CREATE_ACLS: self.acl_apis.handle_create_acls,  # part B
            ApiKeys.DELETE_ACLS: self.acl_apis.handle_delete_acls,  # part B
            ApiKeys.ADD_RAFT_VOTER: self.handle_add_raft_voter,  # KIP-853
            ApiKeys.REMOVE_RAFT_VOTER: self.handle_remove_raft_voter,  # KIP-853
            ApiKeys.UPDATE_RAFT_VOTER: self.handle_update_raft_voter,  # KIP-853
        }

    def is_closed(self) -> bool:  # part B
        return self.acl_apis.is_closed()

    def close(self) -> None:  # part B
        self.acl_apis.close()

    @step("KR.apis")
    def handle(self, request: Request, request_local: Any = None) -> None:
        try:
            handler = self.handlers.get(request.header.api_key)
            if handler is None:
                # the SocketServer closes the connection of an API this listener does not enable before it gets here
                raise ApiException(f"Unsupported ApiKey {request.context.header.api_key.name}")
            handler_future = handler(request)
            if handler_future is not None:
                # a failure in the future or in the stages that answer it (the response could not be sent, say)
                handler_future.add_done_callback(lambda f: self._on_handler_done(request, f))
        except FatalExitError:
            raise
        except Exception as e:
            # the blocking part of a handler failed (an authorization refused, say)
            traceback.clear_frames(e.__traceback__)
            log.error("Unexpected error handling request %s with context %s", request.request_desc(True),
                      request.context, exc_info=e)
            self.request_helper.handle_error(request, e)
        finally:
            # only record the local completion time if it is unset
            if request.api_local_complete_time_nanos < 0:
                request.api_local_complete_time_nanos = self.time.nanoseconds()

    def _on_handler_done(self, request: Request, future: Future[Any]) -> None:
        exception = future.exception()
        if exception is not None:
            log.error("Unexpected error handling request %s with context %s", request.request_desc(True),
                      request.context, exc_info=exception)
            self.request_helper.handle_error(request, exception)

    def response_schema(self, request: Request) -> type[Any]:
        return request.header.api_key.response_schema(request.context.api_version())

    # -- the Raft RPCs --------------------------------------------------------------------------------------------

    def handle_fetch(self, request: Request) -> Future[Any]:
        self.auth_helper.authorize_cluster_operation(request, "CLUSTER_ACTION")
        return self.handle_raft_request(request)

    def handle_fetch_snapshot(self, request: Request) -> Future[Any]:
        self.auth_helper.authorize_cluster_operation(request, "CLUSTER_ACTION")
        return self.handle_raft_request(request)

    def handle_vote(self, request: Request) -> Future[Any]:
        self.auth_helper.authorize_cluster_operation(request, "CLUSTER_ACTION")
        return self.handle_raft_request(request)

    def handle_begin_quorum_epoch(self, request: Request) -> Future[Any]:
        self.auth_helper.authorize_cluster_operation(request, "CLUSTER_ACTION")
        return self.handle_raft_request(request)

    def handle_end_quorum_epoch(self, request: Request) -> Future[Any]:
        self.auth_helper.authorize_cluster_operation(request, "CLUSTER_ACTION")
        return self.handle_raft_request(request)

    def handle_describe_quorum(self, request: Request) -> Future[Any]:
        self.auth_helper.authorize_cluster_operation(request, "DESCRIBE")
        return self.handle_raft_request(request)

    def handle_add_raft_voter(self, request: Request) -> Future[Any]:
        self.auth_helper.authorize_cluster_operation(request, "ALTER")
        return self.handle_raft_request(request)

    def handle_remove_raft_voter(self, request: Request) -> Future[Any]:
        self.auth_helper.authorize_cluster_operation(request, "ALTER")
        return self.handle_raft_request(request)

    def handle_update_raft_voter(self, request: Request) -> Future[Any]:
        self.auth_helper.authorize_cluster_operation(request, "CLUSTER_ACTION")
        return self.handle_raft_request(request)

    def handle_raft_request(self, request: Request) -> Future[Any]:
        """Handed to the Raft client's thread; answered when it has an answer (a Fetch may wait for records)."""
        future: Future[Any] = self.raft_manager.handle_request(request.header, request.body(),
                                                               self.time.milliseconds())
        return self._answer(request, future, lambda response: response,
                            self.request_helper.send_response_exempt_throttle)

    # -- ApiVersions ----------------------------------------------------------------------------------------------

    def handle_api_versions_request(self, request: Request) -> None:
        """Every API this listener serves, whatever the client's authentication state."""
        # ApiVersionsRequest.isValid: the port keeps it with KafkaApis, which imports this module
        from kafka_edu.v3_9.core.server.kafka_apis import _is_valid_api_versions_request

        def create_response(throttle_ms: int) -> Any:
            api_version_request = request.body()
            if api_version_request is None:  # ApiVersionsRequest.hasUnsupportedRequestVersion
                return get_error_response(request, throttle_ms, UnsupportedVersionException())
            if not _is_valid_api_versions_request(api_version_request, request.header.api_version):
                return get_error_response(request, throttle_ms, InvalidRequestException())
            fields: dict[str, Any] = dict(
                error_code=Errors.NONE, throttle_time=throttle_ms,
                api_keys=self.api_version_manager.api_version_entries(request.context.api_version()))
            if request.context.api_version() >= 3 and hasattr(self.api_version_manager, "supported_feature_entries"):
                fields["supported_features"] = self.api_version_manager.supported_feature_entries()
            return build(self.response_schema(request), **fields)
        self.request_helper.send_response_maybe_throttle(request, create_response)

    # -- metadata operations: each a QuorumController event ---------------------------------------------------------

    def _request_context(self, request: Request, timeout_ms: int | None = None) -> ControllerRequestContext:
        """ControllerRequestContext(request.context.header.data, request.context.principal, deadline)."""
        header = request.header
        header_data = RequestHeader(request_api_key=int(header.api_key), request_api_version=header.api_version,
                                    correlation_id=header.correlation_id, client_id=header.client_id)
        deadline_ns = (None if timeout_ms is None
                       else ControllerRequestContext.request_timeout_ms_to_deadline_ns(self.time.nanoseconds(),
                                                                                       timeout_ms))
        return ControllerRequestContext(header_data, str(request.context.principal), deadline_ns)

    def _answer(self, request: Request, future: Future[Any], to_response: Callable[[Any], Any],
                send: Callable[[Request, Any], None]) -> Future[Any]:
        """`future.handle { (result, exception) => send(request, response) }`: the response is sent when the
        controller's future completes (at commit for a write); a failed operation (NOT_CONTROLLER on a voter that is
        not active, say) is answered with the request's error response. The future returned fails only if no answer
        could be sent (handle then sends the error response, as 3.9's handle does with its handler's future)."""
        answered: Future[Any] = Future()

        def respond(done: Future[Any]) -> None:
            try:
                exception = done.exception()
                if exception is None:
                    send(request, to_response(done.result()))
                else:
                    send(request, get_error_response(request, 0, exception))
            except Exception as e:
                answered.set_exception(e)
            else:
                answered.set_result(None)
        future.add_done_callback(respond)
        return answered

    def _send_response_maybe_throttle(self, request: Request, response: Any) -> None:
        """`sendResponseMaybeThrottle(request, throttleMs => response)`: no request quota, so the throttle time is 0
        the response was built with."""
        self.request_helper.send_response_maybe_throttle(request, lambda _throttle_ms: response)

    def _send_response_with_controller_quota(self, request: Request, response: Any) -> None:
        self.request_helper.send_response_maybe_throttle_with_controller_quota(None, request, response)

    def handle_create_topics(self, request: Request) -> Future[Any]:
        data = request.body()
        schema = self.response_schema(request)
        future = self.create_topics(
            self._request_context(request, _millis(data.timeout)), data,
            self.auth_helper.authorize(request, "CREATE", "CLUSTER", CLUSTER_NAME, log_if_denied=False),
            lambda names: self.auth_helper.filter_by_authorized(request, "CREATE", "TOPIC", names),
            lambda names: self.auth_helper.filter_by_authorized(request, "DESCRIBE_CONFIGS", "TOPIC", names,
                                                                log_if_denied=False))
        return self._answer(request, future, lambda response: convert(response, schema),
                            self._send_response_with_controller_quota)

    def create_topics(self, context: ControllerRequestContext, request: Any, has_cluster_auth: bool,
                      get_creatable_topics: Callable[[Iterable[str]], set[str]],
                      get_describable_topics: Callable[[Iterable[str]], set[str]]) -> Future[Any]:
        """A name given twice is refused (INVALID_REQUEST, once), and so is __cluster_metadata; of the others, those
        the principal may not create get TOPIC_AUTHORIZATION_FAILED and the rest go to the controller, which
        reports the configs of those it may describe."""
        topic_names: dict[str, None] = {}  # an ordered set, in request order
        duplicate_topic_names: dict[str, None] = {}
        for topic_data in request.topics:
            if topic_data.name not in duplicate_topic_names:
                if topic_data.name in topic_names:
                    del topic_names[topic_data.name]
                    duplicate_topic_names[topic_data.name] = None
                else:
                    topic_names[topic_data.name] = None
        allowed_topic_names = [name for name in topic_names if name != Topic.CLUSTER_METADATA_TOPIC_NAME]
        authorized_topic_names = set(allowed_topic_names) if has_cluster_auth \
            else set(get_creatable_topics(allowed_topic_names))
        describable_topic_names = set(get_describable_topics(allowed_topic_names))
        effective_request = dataclasses.replace(request, topics=tuple(
            t for t in request.topics
            if t.name not in duplicate_topic_names and t.name in authorized_topic_names))
        result: Future[Any] = Future()

        def done(f: Future[Any]) -> None:
            if f.exception() is not None:
                result.set_exception(f.exception())
                return
            response = f.result()
            extra = [_creatable_topic_result(name, Errors.INVALID_REQUEST, "Duplicate topic name.")
                     for name in duplicate_topic_names]
            for name in topic_names:
                if name == Topic.CLUSTER_METADATA_TOPIC_NAME:
                    extra.append(_creatable_topic_result(
                        name, Errors.INVALID_REQUEST,
                        f"Creation of internal topic {Topic.CLUSTER_METADATA_TOPIC_NAME} is prohibited."))
                elif name not in authorized_topic_names:
                    extra.append(_creatable_topic_result(name, Errors.TOPIC_AUTHORIZATION_FAILED,
                                                         "Authorization failed."))
            result.set_result(dataclasses.replace(response, topics=tuple(response.topics) + tuple(extra)))
        self.controller.create_topics(context, effective_request, describable_topic_names).add_done_callback(done)
        return result

    def handle_delete_topics(self, request: Request) -> Future[Any]:
        data = request.body()
        schema = self.response_schema(request)
        context = self._request_context(request, _millis(data.timeout))
        future = self.delete_topics(
            context, data, request.context.api_version(),
            self.auth_helper.authorize(request, "DELETE", "CLUSTER", CLUSTER_NAME, log_if_denied=False),
            lambda names: self.auth_helper.filter_by_authorized(request, "DESCRIBE", "TOPIC", names),
            lambda names: self.auth_helper.filter_by_authorized(request, "DELETE", "TOPIC", names))
        return self._answer(request, future, lambda results: build(
            schema, throttle_time=0, responses=[values(r) for r in results]),
            self._send_response_with_controller_quota)

    def delete_topics(self, context: ControllerRequestContext, request: Any, api_version: int,
                      has_cluster_auth: bool, get_describable_topics: Callable[[Iterable[str]], set[str]],
                      get_deletable_topics: Callable[[Iterable[str]], set[str]]) -> Future[list[Any]]:
        """By name (`topic_names`, up to v5) or by name or id (`topics`, v6): the names and ids given are checked
        for duplicates and conflicts, ids resolved to names for the authorizer, names to ids for the controller,
        which deletes by id. The results come back shuffled, as in Kafka, so that their order tells nothing."""
        if not getattr(self.config, "delete_topic_enable", True):
            if api_version < 3:
                raise InvalidRequestException("Topic deletion is disabled.")
            raise TopicDeletionDisabledException()
        responses: list[Any] = []

        def append_response(name: str | None, topic_id: uuid.UUID, error: ApiError) -> None:
            responses.append(delete_topics_response.DeletableTopicResult(
                name=name, topic_id=topic_id, error_code=error.error, error_message=error.message))

        provided_names: dict[str, None] = {}  # ordered sets
        duplicate_provided_names: dict[str, None] = {}
        provided_ids: dict[uuid.UUID, None] = {}
        duplicate_provided_ids: dict[uuid.UUID, None] = {}

        def add_provided_name(name: str) -> None:
            if name in duplicate_provided_names or name in provided_names:
                duplicate_provided_names[name] = None
                provided_names.pop(name, None)
            else:
                provided_names[name] = None

        for name in getattr(request, "topic_names", ()):
            add_provided_name(name)
        for topic in getattr(request, "topics", ()):
            # the wire's zero id comes out of the decoder as None
            if topic.name is None:
                if topic.topic_id is None or topic.topic_id == ZERO_UUID:
                    append_response(None, ZERO_UUID, ApiError(Errors.INVALID_REQUEST,
                                                              "Neither topic name nor id were specified."))
                elif topic.topic_id in duplicate_provided_ids or topic.topic_id in provided_ids:
                    duplicate_provided_ids[topic.topic_id] = None
                    provided_ids.pop(topic.topic_id, None)
                else:
                    provided_ids[topic.topic_id] = None
            elif topic.topic_id is None or topic.topic_id == ZERO_UUID:
                add_provided_name(topic.name)
            else:
                append_response(topic.name, topic.topic_id, ApiError(
                    Errors.INVALID_REQUEST, "You may not specify both topic name and topic id."))
        for name in duplicate_provided_names:
            append_response(name, ZERO_UUID, ApiError(Errors.INVALID_REQUEST, "Duplicate topic name."))
        for topic_id in duplicate_provided_ids:
            append_response(None, topic_id, ApiError(Errors.INVALID_REQUEST, "Duplicate topic id."))
        # The authorizer takes names: resolve the ids to names first.
        to_authenticate: dict[str, None] = dict(provided_names)
        id_to_name: dict[uuid.UUID, str] = {}
        result: Future[list[Any]] = Future()

        def then(step_future: Future[Any], next_step: Callable[[Any], None]) -> None:
            def on_done(done: Future[Any]) -> None:
                if done.exception() is not None:
                    result.set_exception(done.exception())
                    return
                try:
                    next_step(done.result())
                except Exception as e:
                    result.set_exception(e)
            step_future.add_done_callback(on_done)

        def names_found(topic_names: dict[uuid.UUID, Any]) -> None:
            for topic_id, name_or_error in topic_names.items():
                if isinstance(name_or_error, ApiError):
                    append_response(None, topic_id, name_or_error)
                else:
                    to_authenticate[name_or_error] = None
                    id_to_name[topic_id] = name_or_error
            if has_cluster_auth:
                describable = deletable = set(to_authenticate)
            else:
                describable = set(get_describable_topics(list(to_authenticate)))
                deletable = set(get_deletable_topics(list(to_authenticate)))
            # a topic given by id that may not be deleted: named only if the principal may describe it
            for topic_id, name in list(id_to_name.items()):
                if name not in deletable:
                    append_response(name if name in describable else None, topic_id,
                                    ApiError(Errors.TOPIC_AUTHORIZATION_FAILED))
                    del id_to_name[topic_id]

            def ids_found(topic_ids: dict[str, Any]) -> None:
                for name, id_or_error in topic_ids.items():
                    if name not in describable:
                        append_response(name, ZERO_UUID, ApiError(Errors.TOPIC_AUTHORIZATION_FAILED))
                    elif isinstance(id_or_error, ApiError):
                        append_response(name, ZERO_UUID, id_or_error)
                    elif name in deletable:
                        if id_or_error in duplicate_provided_ids or id_or_error in id_to_name:
                            # an id given and a name that maps to it: said only once authorization succeeded, as
                            # saying it earlier would reveal the mapping
                            duplicate_provided_ids[id_or_error] = None
                            id_to_name.pop(id_or_error, None)
                            append_response(name, id_or_error, ApiError(
                                Errors.INVALID_REQUEST,
                                "The provided topic name maps to an ID that was already supplied."))
                        else:
                            id_to_name[id_or_error] = name
                    else:
                        append_response(name, ZERO_UUID, ApiError(Errors.TOPIC_AUTHORIZATION_FAILED))

                def deleted(id_to_error: dict[uuid.UUID, ApiError]) -> None:
                    for topic_id, error in id_to_error.items():
                        append_response(id_to_name.get(topic_id), topic_id, error)
                    random.shuffle(responses)
                    result.set_result(responses)
                then(self.controller.delete_topics(context, list(id_to_name)), deleted)
            then(self.controller.find_topic_ids(context, list(provided_names)), ids_found)
        then(self.controller.find_topic_names(context, list(provided_ids)), names_found)
        return result

    def handle_create_partitions(self, request: Request) -> Future[Any]:
        data = request.body()
        schema = self.response_schema(request)
        future = self.create_partitions(
            self._request_context(request, _millis(data.timeout)), data,
            lambda names: self.auth_helper.filter_by_authorized(request, "ALTER", "TOPIC", names))
        return self._answer(request, future, lambda results: build(schema, throttle_time=0,
                                                                   results=[values(r) for r in results]),
                            self._send_response_with_controller_quota)

    def create_partitions(self, context: ControllerRequestContext, request: Any,
                          get_alter_authorized_topics: Callable[[Iterable[str]], set[str]]) -> Future[list[Any]]:
        """A name given twice is refused (INVALID_REQUEST, once), and a topic the principal may not alter
        (TOPIC_AUTHORIZATION_FAILED); the rest go to the controller."""
        responses: list[Any] = []
        duplicate_topic_names: dict[str, None] = {}  # ordered sets
        topic_names: dict[str, None] = {}
        for topic in request.topics:
            if topic.name in topic_names:
                duplicate_topic_names[topic.name] = None
            topic_names[topic.name] = None
        for name in duplicate_topic_names:
            responses.append(_create_partitions_topic_result(name, Errors.INVALID_REQUEST, "Duplicate topic name."))
            del topic_names[name]
        authorized_topic_names = set(get_alter_authorized_topics(list(topic_names)))
        topics = []
        for name in topic_names:
            if name in authorized_topic_names:
                topics.append(next(t for t in request.topics if t.name == name))
            else:
                responses.append(_create_partitions_topic_result(name, Errors.TOPIC_AUTHORIZATION_FAILED, None))
        result: Future[list[Any]] = Future()

        def done(f: Future[Any]) -> None:
            if f.exception() is not None:
                result.set_exception(f.exception())
                return
            for r in f.result():
                responses.append(r if not isinstance(r, dict) else build(
                    create_partitions_response.CreatePartitionsTopicResult, **r))
            result.set_result(responses)
        self.controller.create_partitions(context, topics, request.validate_only).add_done_callback(done)
        return result

    # -- part C (issue 24): elections and reassignments ---------------------------------------------------------

    def handle_elect_leaders(self, request: Request) -> Future[Any]:
        self.auth_helper.authorize_cluster_operation(request, "ALTER")
        data = request.body()
        schema = self.response_schema(request)
        future = self.controller.elect_leaders(self._request_context(request, _millis(data.timeout)), data)
        return self._answer(request, future, lambda response: convert(response, schema),
                            self._send_response_maybe_throttle)

    def handle_alter_partition_reassignments(self, request: Request) -> Future[Any]:
        data = request.body()
        self.auth_helper.authorize_cluster_operation(request, "ALTER")
        schema = self.response_schema(request)
        future = self.controller.alter_partition_reassignments(self._request_context(request, _millis(data.timeout)),
                                                               data)
        return self._answer(request, future, lambda response: convert(response, schema),
                            self._send_response_maybe_throttle)

    def handle_list_partition_reassignments(self, request: Request) -> Future[Any]:
        data = request.body()
        self.auth_helper.authorize_cluster_operation(request, "DESCRIBE")
        schema = self.response_schema(request)
        future = self.controller.list_partition_reassignments(self._request_context(request), data)
        return self._answer(request, future, lambda response: convert(response, schema),
                            self._send_response_maybe_throttle)

    def handle_alter_partition_request(self, request: Request) -> Future[Any]:
        schema = self.response_schema(request)
        self.auth_helper.authorize_cluster_operation(request, "CLUSTER_ACTION")
        future = self.controller.alter_partition(self._request_context(request), request.body())
        return self._answer(request, future, lambda response: convert(response, schema),
                            self.request_helper.send_response_exempt_throttle)

    def handle_broker_registration(self, request: Request) -> Future[Any]:
        schema = self.response_schema(request)
        self.auth_helper.authorize_cluster_operation(request, "CLUSTER_ACTION")
        future = self.controller.register_broker(self._request_context(request), request.body())
        return self._answer(request, future,
                            lambda reply: build(schema, throttle_time=0, error_code=Errors.NONE,
                                                broker_epoch=reply.epoch),
                            self._send_response_maybe_throttle)

    def handle_broker_heartbeat_request(self, request: Request) -> Future[Any]:
        schema = self.response_schema(request)
        self.auth_helper.authorize_cluster_operation(request, "CLUSTER_ACTION")
        future = self.controller.process_broker_heartbeat(self._request_context(request), request.body())
        return self._answer(request, future,
                            lambda reply: build(schema, throttle_time=0, error_code=Errors.NONE,
                                                is_caught_up=reply.is_caught_up, is_fenced=reply.is_fenced,
                                                should_shut_down=reply.should_shut_down),
                            self._send_response_maybe_throttle)

    def handle_unregister_broker(self, request: Request) -> Future[Any]:
        """The broker leaves every ISR and leadership, then its registration goes (`kafka-cluster.sh
        unregister`); it takes ALTER on the cluster."""
        schema = self.response_schema(request)
        self.auth_helper.authorize_cluster_operation(request, "ALTER")
        future = self.controller.unregister_broker(self._request_context(request), request.body().broker_id)
        return self._answer(request, future, lambda _: build(schema, throttle_time=0, error_code=Errors.NONE,
                                                             error_message=None),
                            self._send_response_maybe_throttle)

    def handle_allocate_producer_ids_request(self, request: Request) -> Future[Any]:
        schema = self.response_schema(request)
        self.auth_helper.authorize_cluster_operation(request, "CLUSTER_ACTION")
        future = self.controller.allocate_producer_ids(self._request_context(request), request.body())
        return self._answer(request, future,
                            lambda block: build(schema, throttle_time=0, error_code=Errors.NONE,
                                                producer_id_start=block.first_producer_id(),
                                                producer_id_len=block.size()),
                            self._send_response_maybe_throttle)

    # -- DescribeCluster --------------------------------------------------------------------------------------------

    def handle_describe_cluster(self, request: Request) -> None:
        """On a controller listener: the cluster id, the active controller and the voters as the nodes. Unlike on a
        broker, it takes ALTER on the cluster."""
        self.auth_helper.authorize_cluster_operation(request, "ALTER")
        schema = self.response_schema(request)
        leader = self.raft_manager.leader_and_epoch()
        voters = QuorumConfig.parse_voter_connections(self.config.quorum_config.voters())
        self._send_response_maybe_throttle(request, build(
            schema, throttle_time=0, error_code=Errors.NONE, error_message=None, endpoint_type=2,
            cluster_id=self.cluster_id, controller_id=leader.leader_id if leader.leader_id is not None else -1,
            brokers=[{"broker_id": node_id, "host": host, "port": port, "rack": None}
                     for node_id, (host, port) in voters.items()],
            cluster_authorized_operations=-2147483648))

    # -- part A (issue 24): AlterConfigs, IncrementalAlterConfigs ---------------------------------------------------

    def handle_legacy_alter_configs(self, request: Request) -> Future[Any]:
        """Each resource's configs replaced by those given; an unknown resource type, a duplicate or an
        unauthorized resource is answered here, the rest by the controller."""
        from kafka_edu.v3_9.metadata.controller.configuration_control_manager import ConfigResourceType
        responses: list[dict[str, Any]] = []
        alter_configs_request = request.body()
        context = self._request_context(request)
        duplicate_resources: set[Any] = set()
        config_changes: dict[Any, dict[str, str]] = {}
        for resource in alter_configs_request.resources:
            config_resource = (_config_resource_type(resource.resource_type), resource.resource_name)
            if config_resource[0] is ConfigResourceType.UNKNOWN:
                responses.append(_alter_configs_resource_response(
                    resource.resource_type, resource.resource_name, Errors.UNSUPPORTED_VERSION,
                    f"Unknown resource type {resource.resource_type}."))
            elif config_resource not in duplicate_resources:
                configs = {config.name: config.value for config in resource.configs}
                if config_resource in config_changes:
                    duplicate_resources.add(config_resource)
                    del config_changes[config_resource]
                    responses.append(_alter_configs_resource_response(
                        resource.resource_type, resource.resource_name, Errors.INVALID_REQUEST, "Duplicate resource."))
                else:
                    config_changes[config_resource] = configs
        self._remove_unauthorized_config_resources(request, config_changes, responses)
        return self._answer_alter_configs(
            request, self.controller.legacy_alter_configs(context, config_changes,
                                                          alter_configs_request.validate_only), responses, [])

    def handle_incremental_alter_configs(self, request: Request) -> Future[Any]:
        """Like AlterConfigs, operation by operation (SET, DELETE, APPEND, SUBTRACT); a BROKER_LOGGER resource
        changes this controller's own log levels."""
        from kafka_edu.v3_9.core.server.logger.runtime_logger_manager import RuntimeLoggerManager
        from kafka_edu.v3_9.metadata.controller.configuration_control_manager import ConfigResourceType, OpType
        responses: list[dict[str, Any]] = []
        alter_configs_request = request.body()
        context = self._request_context(request)
        duplicate_resources: set[Any] = set()
        config_changes: dict[Any, dict[str, Any]] = {}
        broker_logger_responses: list[dict[str, Any]] = []
        for resource in alter_configs_request.resources:
            config_resource = (_config_resource_type(resource.resource_type), resource.resource_name)
            if config_resource[0] is ConfigResourceType.BROKER_LOGGER:
                try:
                    RuntimeLoggerManager(self.config.node_id, log).apply_changes_for_resource(
                        self.auth_helper.authorize(request, "CLUSTER_ACTION", "CLUSTER", CLUSTER_NAME),
                        alter_configs_request.validate_only, resource)
                    api_error = ApiError.NONE
                except Exception as t:
                    api_error = ApiError.from_throwable(t)
                broker_logger_responses.append(_alter_configs_resource_response(
                    resource.resource_type, resource.resource_name, api_error.error,
                    (api_error.message or api_error.error.name) if api_error.is_failure() else None))
            elif config_resource[0] is ConfigResourceType.UNKNOWN:
                responses.append(_alter_configs_resource_response(
                    resource.resource_type, resource.resource_name, Errors.UNSUPPORTED_VERSION,
                    f"Unknown resource type {resource.resource_type}."))
            elif config_resource not in duplicate_resources:
                alters_by_name = {config.name: (OpType(config.config_operation), config.value)
                                  for config in resource.configs}
                if config_resource in config_changes:
                    duplicate_resources.add(config_resource)
                    del config_changes[config_resource]
                    responses.append(_alter_configs_resource_response(
                        resource.resource_type, resource.resource_name, Errors.INVALID_REQUEST, "Duplicate resource."))
                else:
                    config_changes[config_resource] = alters_by_name
        self._remove_unauthorized_config_resources(request, config_changes, responses)
        return self._answer_alter_configs(
            request, self.controller.incremental_alter_configs(context, config_changes,
                                                               alter_configs_request.validate_only),
            responses, broker_logger_responses)

    def _remove_unauthorized_config_resources(self, request: Request, config_changes: dict[Any, Any],
                                              responses: list[dict[str, Any]]) -> None:
        for resource in list(config_changes):
            api_error = self._authorize_alter_resource(request, resource)
            if api_error.is_failure():
                responses.append(_alter_configs_resource_response(int(resource[0]), resource[1], api_error.error,
                                                                  api_error.message))
                del config_changes[resource]

    def _answer_alter_configs(self, request: Request, future: Future[Any], responses: list[dict[str, Any]],
                              trailing: list[dict[str, Any]]) -> Future[Any]:
        """`.handle`: the controller's results after those answered here (and the broker-logger ones last)."""
        schema = self.response_schema(request)
        answered: Future[Any] = Future()

        def respond(done: Future[Any]) -> None:
            try:
                if done.exception() is not None:
                    self.request_helper.handle_error(request, done.exception())
                else:
                    for resource, api_error in done.result().items():
                        responses.append(_alter_configs_resource_response(int(resource[0]), resource[1],
                                                                          api_error.error, api_error.message))
                    responses.extend(trailing)
                    self.request_helper.send_response_maybe_throttle(request, lambda throttle_ms: build(
                        schema, throttle_time=throttle_ms, responses=responses))
            except Exception as e:
                answered.set_exception(e)
            else:
                answered.set_result(None)
        future.add_done_callback(respond)
        return answered

    def _authorize_alter_resource(self, request: Request, resource: Any) -> ApiError:
        from kafka_edu.v3_9.metadata.controller.configuration_control_manager import ConfigResourceType
        if resource[0] in (ConfigResourceType.BROKER, ConfigResourceType.CLIENT_METRICS):
            if self.auth_helper.authorize(request, "ALTER_CONFIGS", "CLUSTER", CLUSTER_NAME):
                return ApiError(Errors.NONE)
            return ApiError(Errors.CLUSTER_AUTHORIZATION_FAILED)
        if resource[0] is ConfigResourceType.TOPIC:
            if self.auth_helper.authorize(request, "ALTER_CONFIGS", "TOPIC", resource[1]):
                return ApiError(Errors.NONE)
            return ApiError(Errors.TOPIC_AUTHORIZATION_FAILED)
        return ApiError(Errors.INVALID_REQUEST, f"Unexpected resource type {resource[0].name}.")

    # -- part A (issue 24): AlterClientQuotas -------------------------------------------------------------------------

    def handle_alter_client_quotas(self, request: Request) -> Future[Any]:
        from kafka_edu.v3_9.clients.common.quota.client_quota_alteration import from_request_entries
        quota_request = request.body()
        self.auth_helper.authorize_cluster_operation(request, "ALTER_CONFIGS")
        schema = self.response_schema(request)
        future = self.controller.alter_client_quotas(self._request_context(request),
                                                     from_request_entries(quota_request.entries),
                                                     quota_request.validate_only)
        answered: Future[Any] = Future()

        def respond(done: Future[Any]) -> None:
            try:
                if done.exception() is not None:
                    self.request_helper.handle_error(request, done.exception())
                else:
                    # AlterClientQuotasResponse.fromQuotaEntities
                    entries = [dict(error_code=e.error, error_message=e.message,
                                    entity=[dict(entity_type=t, entity_name=n) for t, n in entity.entries().items()])
                               for entity, e in done.result().items()]
                    self.request_helper.send_response_maybe_throttle(request, lambda throttle_ms: build(
                        schema, throttle_time=throttle_ms, entries=entries))
            except Exception as e:
                answered.set_exception(e)
            else:
                answered.set_result(None)
        future.add_done_callback(respond)
        return answered

    # -- part A (issue 24): AlterUserScramCredentials -----------------------------------------------------------------

    def handle_alter_user_scram_credentials(self, request: Request) -> Future[Any]:
        alter_request = request.body()
        self.auth_helper.authorize_cluster_operation(request, "ALTER")
        schema = self.response_schema(request)
        future = self.controller.alter_user_scram_credentials(self._request_context(request), alter_request)
        return self._answer(request, future, lambda response: build(schema, throttle_time=0, **response),
                            self._send_response_maybe_throttle)

    # -- part A (issue 24): UpdateFeatures ----------------------------------------------------------------------------

    def handle_update_features(self, request: Request) -> Future[Any]:
        update_features_request = request.body()
        self.auth_helper.authorize_cluster_operation(request, "ALTER")
        schema = self.response_schema(request)
        future = self.controller.update_features(self._request_context(request), update_features_request)
        return self._answer(request, future, lambda response: build(schema, throttle_time=0, error_code=Errors.NONE,
                                                                    error_message=None, **response),
                            self._send_response_maybe_throttle)


def _config_resource_type(type_id: int) -> Any:
    """ConfigResource.Type.forId: UNKNOWN for an id it does not know."""
    from kafka_edu.v3_9.metadata.controller.configuration_control_manager import ConfigResourceType
    try:
        return ConfigResourceType(type_id)
    except ValueError:
        return ConfigResourceType.UNKNOWN


def _alter_configs_resource_response(resource_type: int, resource_name: str, error: Errors,
                                     message: str | None) -> dict[str, Any]:
    return dict(error_code=error, error_message=message, resource_type=resource_type, resource_name=resource_name)


def _creatable_topic_result(name: str, error: Errors, message: str | None) -> Any:
    return create_topics_response.CreatableTopicResult(name=name, topic_id=ZERO_UUID, error_code=error,
                                                       error_message=message, configs=())


def _create_partitions_topic_result(name: str, error: Errors, message: str | None) -> Any:
    return create_partitions_response.CreatePartitionsTopicResult(name=name, error_code=error, error_message=message)


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


def _millis(value: Any) -> int:
    """kio hands timeouts over as timedeltas; the handlers work in milliseconds."""
    return int(value.total_seconds() * 1000) if hasattr(value, "total_seconds") else int(value)
