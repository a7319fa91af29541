"""Port of core/src/main/scala/kafka/server/KafkaApis.scala (Kafka 1.0.2): one handler per API key."""

from __future__ import annotations

import datetime
import logging
import threading
import time
import traceback
from collections.abc import Callable
from typing import Any

from kafka_edu.tracing import note, span, step
from kafka_edu.v1_0_2.clients.common.errors import (
    ClusterAuthorizationException,
    IllegalArgumentException,
    InvalidRecordException,
    InvalidRequestException,
    InvalidTopicException,
    SecurityDisabledException,
)
from kafka_edu.v1_0_2.clients.common.internals.fatal_exit_error import FatalExitError
from kafka_edu.v1_0_2.clients.common.network.send import Send
from kafka_edu.v1_0_2.clients.common.record.control_record_type import ControlRecordType
from kafka_edu.v1_0_2.clients.common.record.end_transaction_marker import EndTransactionMarker
from kafka_edu.v1_0_2.clients.common.record.file_records import MAGIC_VALUE_V2
from kafka_edu.v1_0_2.clients.common.record.memory_records_builder import with_end_transaction_marker
from kafka_edu.v1_0_2.clients.common.requests.api_versions_response import (
    ApiVersionsResponse,
    create_api_versions_response,
)
from kafka_edu.v1_0_2.clients.common.requests.fetch_response import (
    INVALID_HIGHWATERMARK,
    INVALID_LAST_STABLE_OFFSET,
    INVALID_LOG_START_OFFSET,
    FetchResponse,
)
from kafka_edu.v1_0_2.clients.common.requests.fetch_response import PartitionData as FetchPartitionData
from kafka_edu.v1_0_2.clients.common.requests.isolation_level import IsolationLevel
from kafka_edu.v1_0_2.clients.common.requests.transaction_result import TransactionResult
from kafka_edu.v1_0_2.core.cluster.partition import LeaderAndIsrPartitionState
from kafka_edu.v1_0_2.core.controller.kafka_controller import KafkaController
from kafka_edu.v1_0_2.core.coordinator.group.group_coordinator import GroupCoordinator, JoinGroupResult
from kafka_edu.v1_0_2.core.coordinator.group.group_metadata_manager import PartitionData
from kafka_edu.v1_0_2.core.coordinator.group.offset_and_metadata import OffsetAndMetadata
from kafka_edu.v1_0_2.core.coordinator.transaction.transaction_coordinator import (
    InitProducerIdResult,
    TransactionCoordinator,
)
from kafka_edu.v1_0_2.core.log.log import TopicPartition
from kafka_edu.v1_0_2.core.network.request_channel import Request, RequestChannel, Response, ResponseAction
from kafka_edu.v1_0_2.core.security.auth.operation import Operation
from kafka_edu.v1_0_2.core.security.auth.resource import CLUSTER_RESOURCE, Resource
from kafka_edu.v1_0_2.core.security.auth.resource_type import ResourceType
from kafka_edu.v1_0_2.core.server import acl_apis
from kafka_edu.v1_0_2.core.server.abstract_fetcher_thread import BrokerEndPoint
from kafka_edu.v1_0_2.core.server.admin_manager import BROKER_RESOURCE, TOPIC_RESOURCE, AdminManager, validate_topic
from kafka_edu.v1_0_2.core.server.delayed_delete_records import INVALID_LOW_WATERMARK, DeleteRecordsPartitionResponse
from kafka_edu.v1_0_2.core.server.kafka_config import KafkaConfig
from kafka_edu.v1_0_2.core.server.metadata_cache import Broker, MetadataCache, PartitionState, UpdateMetadataRequest
from kafka_edu.v1_0_2.core.server.replica_manager import (
    INTERNAL_TOPICS,
    LeaderAndIsrRequest,
    PartitionFetchInfo,
    PartitionResponse,
    ReplicaManager,
    StopReplicaRequest,
)
from kafka_edu.v1_0_2.core.utils.core_utils import swallow
from kafka_edu.v3_9.clients.common.protocol.api_keys import ApiKeys
from kafka_edu.v3_9.clients.common.protocol.builder import build
from kafka_edu.v3_9.clients.common.protocol.codec import api_versions_unsupported_response, encode_response
from kafka_edu.v3_9.clients.common.protocol.errors import Errors

log = logging.getLogger("kafka.server.KafkaApis")

ADMIN_CLIENT_ID = "__admin_client"
GROUP_METADATA_TOPIC_NAME = "__consumer_offsets"
GROUP_KEY_TYPE = 0
TRANSACTION_KEY_TYPE = 1  # FindCoordinatorRequest.CoordinatorType.TRANSACTION
TRANSACTION_STATE_TOPIC_NAME = "__transaction_state"
CONSUMER_REPLICA_ID = -1
RECORD_BATCH_OVERHEAD = 61  # DefaultRecordBatch header bytes
MAGIC_OFFSET = 16
EARLIEST_TIMESTAMP = -2
LATEST_TIMESTAMP = -1
READ_COMMITTED = 1

# The versions this broker implements: its ApiVersions with kafka.edu.advertised.api.versions=latest
# (docs/api-versions.md). Produce is advertised from v0 so that librdkafka keeps compression enabled; v0-v2 carry the
# old message formats, which this log does not store, and get UNSUPPORTED_VERSION per partition. Fetch starts at v4,
# the first to return record batch v2 as stored.
# The controller-to-broker requests (LeaderAndIsr, StopReplica, UpdateMetadata, ControlledShutdown) are served at
# exactly 1.0.2's versions, every one of which their handlers parse; 1.0.2's controller and brokers send the newest
# (LeaderAndIsr v1, UpdateMetadata v4, StopReplica v0, ControlledShutdown v1). Their headers carry the sender's W3C
# traceparent in the client id (codec.py), so no newer version is needed for it.
SUPPORTED_VERSIONS: dict[ApiKeys, tuple[int, int]] = {
    ApiKeys.PRODUCE: (0, 9),
    ApiKeys.FETCH: (4, 12),
    ApiKeys.LIST_OFFSETS: (1, 6),
    ApiKeys.METADATA: (0, 12),
    ApiKeys.FIND_COORDINATOR: (0, 3),
    ApiKeys.JOIN_GROUP: (0, 4),
    ApiKeys.SYNC_GROUP: (0, 2),
    ApiKeys.HEARTBEAT: (0, 2),
    ApiKeys.LEAVE_GROUP: (0, 2),
    ApiKeys.OFFSET_COMMIT: (2, 6),
    ApiKeys.OFFSET_FETCH: (1, 5),
    ApiKeys.DESCRIBE_GROUPS: (0, 3),
    ApiKeys.LIST_GROUPS: (0, 2),
    ApiKeys.DELETE_GROUPS: (0, 1),
    ApiKeys.SASL_HANDSHAKE: (0, 1),
    ApiKeys.SASL_AUTHENTICATE: (0, 1),
    ApiKeys.DESCRIBE_ACLS: (0, 0),
    ApiKeys.CREATE_ACLS: (0, 0),
    ApiKeys.DELETE_ACLS: (0, 0),
    ApiKeys.API_VERSIONS: (0, 3),
    ApiKeys.CREATE_TOPICS: (0, 5),
    ApiKeys.DELETE_TOPICS: (0, 5),
    ApiKeys.INIT_PRODUCER_ID: (0, 2),
    ApiKeys.ADD_PARTITIONS_TO_TXN: (0, 3),
    ApiKeys.ADD_OFFSETS_TO_TXN: (0, 3),
    ApiKeys.END_TXN: (0, 3),
    # v3 adds KIP-447's generation and member checks, which 1.0.2's coordinator has not got
    ApiKeys.TXN_OFFSET_COMMIT: (0, 2),
    ApiKeys.OFFSET_FOR_LEADER_EPOCH: (0, 0),
    ApiKeys.WRITE_TXN_MARKERS: (0, 0),  # what the transaction coordinators send
    ApiKeys.DESCRIBE_CONFIGS: (0, 4),
    ApiKeys.LEADER_AND_ISR: (0, 1),
    ApiKeys.STOP_REPLICA: (0, 0),
    ApiKeys.UPDATE_METADATA: (0, 4),
    ApiKeys.CONTROLLED_SHUTDOWN: (0, 1),  # v0's request header has no client id (ApiKeys.request_header_version)
    ApiKeys.CREATE_PARTITIONS: (0, 3),
    ApiKeys.DELETE_RECORDS: (0, 2),
    ApiKeys.ALTER_CONFIGS: (0, 2),
    ApiKeys.ALTER_REPLICA_LOG_DIRS: (0, 2),
    ApiKeys.DESCRIBE_LOG_DIRS: (0, 4),
}

# What a Kafka 1.0.2 broker served (1.0.2's ApiKeys), within what this port implements: the ZooKeeper-mode broker's
# default ApiVersions (kafka.edu.advertised.api.versions=1.0.2). One exception, documented in docs/api-versions.md:
# Fetch from v4 (the log stores record batches v2 only).
KAFKA_1_0_2_VERSIONS: dict[ApiKeys, tuple[int, int]] = {
    ApiKeys.PRODUCE: (0, 5),
    ApiKeys.FETCH: (4, 6),
    ApiKeys.LIST_OFFSETS: (1, 2),
    ApiKeys.METADATA: (0, 5),
    ApiKeys.FIND_COORDINATOR: (0, 1),
    ApiKeys.JOIN_GROUP: (0, 2),
    ApiKeys.SYNC_GROUP: (0, 1),
    ApiKeys.HEARTBEAT: (0, 1),
    ApiKeys.LEAVE_GROUP: (0, 1),
    ApiKeys.OFFSET_COMMIT: (2, 3),
    ApiKeys.OFFSET_FETCH: (1, 3),
    ApiKeys.DESCRIBE_GROUPS: (0, 1),
    ApiKeys.LIST_GROUPS: (0, 1),
    ApiKeys.SASL_HANDSHAKE: (0, 1),
    ApiKeys.SASL_AUTHENTICATE: (0, 0),
    ApiKeys.DESCRIBE_ACLS: (0, 0),
    ApiKeys.CREATE_ACLS: (0, 0),
    ApiKeys.DELETE_ACLS: (0, 0),
    ApiKeys.API_VERSIONS: (0, 1),
    ApiKeys.CREATE_TOPICS: (0, 2),
    ApiKeys.DELETE_TOPICS: (0, 1),
    ApiKeys.INIT_PRODUCER_ID: (0, 0),
    ApiKeys.ADD_PARTITIONS_TO_TXN: (0, 0),
    ApiKeys.ADD_OFFSETS_TO_TXN: (0, 0),
    ApiKeys.END_TXN: (0, 0),
    ApiKeys.TXN_OFFSET_COMMIT: (0, 0),
    ApiKeys.OFFSET_FOR_LEADER_EPOCH: (0, 0),
    ApiKeys.DESCRIBE_CONFIGS: (0, 0),
    ApiKeys.DELETE_RECORDS: (0, 0),
    ApiKeys.ALTER_CONFIGS: (0, 0),
    ApiKeys.ALTER_REPLICA_LOG_DIRS: (0, 0),
    ApiKeys.DESCRIBE_LOG_DIRS: (0, 0),
    ApiKeys.CREATE_PARTITIONS: (0, 0),
    ApiKeys.LEADER_AND_ISR: (0, 1),
    ApiKeys.STOP_REPLICA: (0, 0),
    ApiKeys.UPDATE_METADATA: (0, 4),
    ApiKeys.CONTROLLED_SHUTDOWN: (0, 1),
    ApiKeys.WRITE_TXN_MARKERS: (0, 0),
}

# ApiKeys.clusterAction (1.0.2): the requests only brokers send each other. Their error responses are never throttled.
CLUSTER_ACTION_APIS = frozenset({ApiKeys.LEADER_AND_ISR, ApiKeys.STOP_REPLICA, ApiKeys.UPDATE_METADATA,
                                 ApiKeys.CONTROLLED_SHUTDOWN, ApiKeys.OFFSET_FOR_LEADER_EPOCH,
                                 ApiKeys.WRITE_TXN_MARKERS})


def api_versions_response(advertised: str = "1.0.2") -> ApiVersionsResponse:
    """What the broker's listeners serve: Kafka 1.0.2's versions ("1.0.2", the default), or all this port implements
    ("latest")."""
    return create_api_versions_response(KAFKA_1_0_2_VERSIONS if advertised == "1.0.2" else SUPPORTED_VERSIONS)


# SecurityProtocol ids (1.0.2's SecurityProtocol.forId): an UpdateMetadata endpoint before v3 names no listener, so
# its listener is the one named after its security protocol (ListenerName.forSecurityProtocol).
SECURITY_PROTOCOL_NAMES = {0: "PLAINTEXT", 1: "SSL", 2: "SASL_PLAINTEXT", 3: "SASL_SSL"}


def update_metadata_broker(broker: Any) -> Broker:
    """UpdateMetadataRequest's Broker from any version 0-4 of its live_brokers entry (1.0.2's
    UpdateMetadataRequest(Struct, version)): v0 has one PLAINTEXT host and port, v1-2 endpoints without listener
    names, v2 adds the rack, v3 the listener names."""
    if not hasattr(broker, "endpoints"):
        return Broker(broker.id_, {"PLAINTEXT": (broker.v0_host, broker.v0_port)}, None)
    endpoints = {getattr(e, "listener", None) or SECURITY_PROTOCOL_NAMES.get(e.security_protocol,
                                                                             str(e.security_protocol)):
                 (e.host, e.port) for e in broker.endpoints}
    return Broker(broker.id_, endpoints, getattr(broker, "rack", None))


class KafkaApis:
    """Dispatches each request to `handle<Api>Request` and sends what it answers back through the RequestChannel."""

    def __init__(self, request_channel: RequestChannel, replica_manager: ReplicaManager, admin_manager: AdminManager,
                 group_coordinator: GroupCoordinator, txn_coordinator: TransactionCoordinator, broker_id: int,
                 config: KafkaConfig, metadata_cache: MetadataCache, controller: KafkaController, cluster_id: str,
                 log_config_defaults: dict[str, Any], api_versions: ApiVersionsResponse | None = None,
                 authorizer: Any = None) -> None:
        self.request_channel = request_channel
        self.replica_manager = replica_manager
        self.admin_manager = admin_manager
        self.group_coordinator = group_coordinator
        self.txn_coordinator = txn_coordinator
        self.broker_id = broker_id
        self.config = config
        self.metadata_cache = metadata_cache
        self.controller = controller
        self.cluster_id = cluster_id
        self.log_config_defaults = log_config_defaults
        self.authorizer = authorizer  # `authorizer.class.name`'s; None: every request is allowed
        self.handlers: dict[int, Callable[[Request], None]] = {
            ApiKeys.PRODUCE: self.handle_produce_request,
            ApiKeys.FETCH: self.handle_fetch_request,
            ApiKeys.LIST_OFFSETS: self.handle_list_offset_request,
            ApiKeys.METADATA: self.handle_topic_metadata_request,
            ApiKeys.LEADER_AND_ISR: self.handle_leader_and_isr_request,
            ApiKeys.STOP_REPLICA: self.handle_stop_replica_request,
            ApiKeys.UPDATE_METADATA: self.handle_update_metadata_request,
            ApiKeys.CONTROLLED_SHUTDOWN: self.handle_controlled_shutdown_request,
            ApiKeys.FIND_COORDINATOR: self.handle_find_coordinator_request,
            ApiKeys.API_VERSIONS: self.handle_api_versions_request,
            ApiKeys.CREATE_TOPICS: self.handle_create_topics_request,
            ApiKeys.DELETE_TOPICS: self.handle_delete_topics_request,
            ApiKeys.INIT_PRODUCER_ID: self.handle_init_producer_id_request,
            ApiKeys.ADD_PARTITIONS_TO_TXN: self.handle_add_partition_to_txn_request,
            ApiKeys.ADD_OFFSETS_TO_TXN: self.handle_add_offsets_to_txn_request,
            ApiKeys.END_TXN: self.handle_end_txn_request,
            ApiKeys.TXN_OFFSET_COMMIT: self.handle_txn_offset_commit_request,
            ApiKeys.WRITE_TXN_MARKERS: self.handle_write_txn_markers_request,
            ApiKeys.OFFSET_FOR_LEADER_EPOCH: self.handle_offset_for_leader_epoch_request,
            ApiKeys.DESCRIBE_CONFIGS: self.handle_describe_configs_request,
            ApiKeys.JOIN_GROUP: self.handle_join_group_request,
            ApiKeys.SYNC_GROUP: self.handle_sync_group_request,
            ApiKeys.HEARTBEAT: self.handle_heartbeat_request,
            ApiKeys.LEAVE_GROUP: self.handle_leave_group_request,
            ApiKeys.OFFSET_COMMIT: self.handle_offset_commit_request,
            ApiKeys.OFFSET_FETCH: self.handle_offset_fetch_request,
            ApiKeys.DESCRIBE_GROUPS: self.handle_describe_groups_request,
            ApiKeys.LIST_GROUPS: self.handle_list_groups_request,
            ApiKeys.DELETE_GROUPS: self.handle_delete_groups_request,
            ApiKeys.SASL_HANDSHAKE: self.handle_sasl_handshake_request,
            ApiKeys.SASL_AUTHENTICATE: self.handle_sasl_authenticate_request,
            ApiKeys.DESCRIBE_ACLS: self.handle_describe_acls,
            ApiKeys.CREATE_ACLS: self.handle_create_acls,
            ApiKeys.DELETE_ACLS: self.handle_delete_acls,
            ApiKeys.CREATE_PARTITIONS: self.handle_create_partitions_request,
            ApiKeys.DELETE_RECORDS: self.handle_delete_records_request,
            ApiKeys.ALTER_CONFIGS: self.handle_alter_configs_request,
            ApiKeys.ALTER_REPLICA_LOG_DIRS: self.handle_alter_replica_log_dirs_request,
            ApiKeys.DESCRIBE_LOG_DIRS: self.handle_describe_log_dirs_request,
        }
        # the versions the listeners serve (SocketServer has the same list: it parses nothing else)
        self.api_versions = api_versions or api_versions_response(
            config.get_string("kafka.edu.advertised.api.versions"))

    @step("NW.apis.1")
    def handle(self, request: Request) -> None:
        """The top-level method: each request to its handler; what a handler raises is answered by handle_error."""
        api = ApiKeys.for_key(request.api_key)
        try:
            handler = self.handlers.get(request.api_key)
            if handler is None:
                # Not advertised in ApiVersions: a client that sends it anyway is not speaking our protocol. (1.0.2's
                # SocketServer refuses such a request before it gets here, as the port's does: a safety net.)
                log.info("Closing connection %s: %s is not implemented", request.connection_id, api.api_name)
                self.close_connection(request)
                return
            handler(request)
        except FatalExitError:
            raise  # the request handler thread exits the process
        except Exception as e:
            # what the failed handler built (a MemoryError's) is freed before the log and the error response
            traceback.clear_frames(e.__traceback__)
            self.handle_error(request, e)
        finally:
            request.api_local_complete_time_ns = time.time_ns()

    def on_leadership_change(self, updated_leaders: set[TopicPartition],
                             updated_followers: set[TopicPartition]) -> None:
        """After LeaderAndIsr: the group coordinator takes over (or gives up) the groups of offsets partitions, the
        transaction coordinator the transactional ids of `__transaction_state` partitions (the partition's leader
        epoch is the coordinator epoch)."""
        for topic_partition in updated_leaders:
            if topic_partition.topic == GROUP_METADATA_TOPIC_NAME:
                self.group_coordinator.handle_group_immigration(topic_partition.partition)
            elif topic_partition.topic == TRANSACTION_STATE_TOPIC_NAME:
                self.txn_coordinator.handle_txn_immigration(topic_partition.partition,
                                                            self._leader_epoch(topic_partition))
        for topic_partition in updated_followers:
            if topic_partition.topic == GROUP_METADATA_TOPIC_NAME:
                self.group_coordinator.handle_group_emigration(topic_partition.partition)
            elif topic_partition.topic == TRANSACTION_STATE_TOPIC_NAME:
                self.txn_coordinator.handle_txn_emigration(topic_partition.partition,
                                                           self._leader_epoch(topic_partition))

    def _leader_epoch(self, topic_partition: TopicPartition) -> int:
        partition = self.replica_manager.get_partition(topic_partition)
        return partition.get_leader_epoch() if partition is not None else -1

    # -- errors and sending -------------------------------------------------------------------------------------------

    def handle_error(self, request: Request, e: BaseException) -> None:
        """The request's error response (getErrorResponse), or a closed connection where there is none to send."""
        may_throttle = isinstance(e, ClusterAuthorizationException) or request.api_key not in CLUSTER_ACTION_APIS
        log.error("Error when handling request: clientId=%s, correlationId=%d, api=%s", request.client_id,
                  request.correlation_id, ApiKeys.for_key(request.api_key).api_name, exc_info=e)
        if may_throttle:
            self.send_error_response_maybe_throttle(request, e)
        else:
            self.send_error_response_exempt_throttle(request, e)

    # The port has no request quotas (1.0.2's quotas.request): nothing is recorded, no response is held back, and
    # every throttle time is 0. The two paths stay apart, as in 1.0.2, for the day quotas come.

    def send_error_response_maybe_throttle(self, request: Request, error: BaseException | Errors) -> None:
        self.send_error_or_close_connection(request, error, throttle_ms=0)

    def send_error_response_exempt_throttle(self, request: Request, error: BaseException | Errors) -> None:
        self.send_error_or_close_connection(request, error, throttle_ms=0)

    def send_error_or_close_connection(self, request: Request, error: BaseException | Errors, throttle_ms: int) -> None:
        response = get_error_response(request, throttle_ms, error)
        if response is None:
            self.close_connection(request)  # a Produce with acks=0: the client reads no response
        else:
            self.send_response(request, response)

    def send_response(self, request: Request, body: Any) -> None:
        if isinstance(body, FetchResponse):  # it writes itself, its records sent from where they lie
            self.send_response_send(request, body.to_send(request.connection_id, request.correlation_id,
                                                          request.api_version))
            return
        payload = encode_response(request.api_key, request.api_version, request.correlation_id, body)
        self.request_channel.send_response(Response(request, payload, ResponseAction.SEND))

    def send_response_send(self, request: Request, send: Send) -> None:
        """A response that writes itself (a Fetch response, its records sent from the log files)."""
        self.request_channel.send_response(Response(request, send, ResponseAction.SEND))

    def send_no_op_response(self, request: Request) -> None:
        self.request_channel.send_response(Response(request, None, ResponseAction.NO_OP))

    def close_connection(self, request: Request) -> None:
        self.request_channel.send_response(Response(request, None, ResponseAction.CLOSE_CONNECTION))

    def response_schema(self, request: Request) -> type[Any]:
        return ApiKeys.for_key(request.api_key).response_schema(request.api_version)

    # -- ApiVersions --------------------------------------------------------------------------------------------------

    def handle_api_versions_request(self, request: Request) -> None:
        if request.body is None:  # a version newer than ours: answer in v0 so the client can pick another
            payload = api_versions_unsupported_response(request.correlation_id,
                                                        self.api_versions.api_version_entries(0))
            self.request_channel.send_response(Response(request, payload, ResponseAction.SEND))
            return
        self.send_response(request, build(self.response_schema(request), error_code=Errors.NONE, throttle_time=0,
                                          api_keys=self.api_versions.api_version_entries(request.api_version)))

    # -- Metadata -----------------------------------------------------------------------------------------------------

    def handle_topic_metadata_request(self, request: Request) -> None:
        body, version = request.body, request.api_version
        all_topics = body.topics is None or (version == 0 and len(body.topics) == 0)
        topics = self.metadata_cache.get_all_topics() if all_topics else {t.name for t in body.topics}
        allow_auto_create = getattr(body, "allow_auto_topic_creation", True)
        authorized_topics = {t for t in topics if self.authorize(request.session, Operation.DESCRIBE,
                                                                 Resource(ResourceType.TOPIC, t))}
        # Creating a topic by asking for it needs Create on the cluster.
        unauthorized_for_create: set[str] = set()
        non_existing_topics = {t for t in authorized_topics if not self.metadata_cache.contains(t)}
        if allow_auto_create and self.config.auto_create_topics_enable and non_existing_topics \
                and not self.authorize(request.session, Operation.CREATE, CLUSTER_RESOURCE):
            authorized_topics -= non_existing_topics
            unauthorized_for_create = non_existing_topics
        topic_metadata = self.get_topic_metadata(allow_auto_create, authorized_topics, request.listener_name) \
            if authorized_topics else []
        # A topic not authorized for Describe is not disclosed: left out of an all-topics answer, refused by name.
        unauthorized_for_describe = set() if all_topics else topics - authorized_topics - unauthorized_for_create
        topic_metadata += [dict(error_code=Errors.TOPIC_AUTHORIZATION_FAILED, name=t,
                                is_internal=t in unauthorized_for_create and t in INTERNAL_TOPICS, partitions=[],
                                topic_id=None) for t in sorted(unauthorized_for_create | unauthorized_for_describe)]
        brokers = [dict(node_id=b.id, host=b.endpoints[request.listener_name][0],
                        port=b.endpoints[request.listener_name][1], rack=b.rack)
                   for b in self.metadata_cache.get_alive_brokers() if request.listener_name in b.endpoints]
        controller_id = self.metadata_cache.get_controller_id()
        self.send_response(request, build(
            self.response_schema(request), throttle_time=0, brokers=brokers, cluster_id=self.cluster_id,
            controller_id=-1 if controller_id is None else controller_id, topics=topic_metadata))

    def get_topic_metadata(self, allow_auto_topic_creation: bool, topics: set[str],
                           listener_name: str) -> list[dict[str, Any]]:
        known = self.metadata_cache.get_topic_metadata(topics, listener_name)
        result = []
        for topic in sorted(topics):
            if topic in known:
                partitions = [dict(error_code=p.error, partition_index=p.partition, leader_id=p.leader,
                                   leader_epoch=p.leader_epoch, replica_nodes=p.replicas, isr_nodes=p.isr,
                                   offline_replicas=p.offline_replicas) for p in known[topic]]
                result.append(dict(error_code=Errors.NONE, name=topic, is_internal=topic in INTERNAL_TOPICS,
                                   partitions=partitions, topic_id=None))
            elif allow_auto_topic_creation and self.config.auto_create_topics_enable:
                result.append(dict(error_code=self.create_topic(topic), name=topic, is_internal=False, partitions=[],
                                   topic_id=None))
            else:
                result.append(dict(error_code=Errors.UNKNOWN_TOPIC_OR_PARTITION, name=topic, is_internal=False,
                                   partitions=[], topic_id=None))
        return result

    def create_topic(self, topic: str) -> Errors:
        """Auto-creation: the topic is written to ZooKeeper now and has no leader yet (LEADER_NOT_AVAILABLE)."""
        results: dict[str, tuple[Errors, str | None]] = {}
        arguments = dict(num_partitions=self.config.num_partitions,
                         replication_factor=self.config.default_replication_factor)
        self.admin_manager.create_topics(0, False, {topic: arguments}, results.update)
        error, message = results[topic]
        if error in (Errors.REQUEST_TIMED_OUT, Errors.TOPIC_ALREADY_EXISTS):
            log.info("Topic creation %s: auto-created %s", "started" if error != Errors.TOPIC_ALREADY_EXISTS
                     else "raced", topic)
            return Errors.LEADER_NOT_AVAILABLE
        return error

    # -- Authorization ------------------------------------------------------------------------------------------------

    def authorize(self, session: Any, operation: Operation, resource: Resource) -> bool:
        """Every handler's question to the authorizer; with none configured everything is allowed."""
        return self.authorizer is None or self.authorizer.authorize(session, operation, resource)

    # What these raise is answered by handle_error: the request's error response, CLUSTER_AUTHORIZATION_FAILED
    # wherever it carries an error.

    def authorize_cluster_action(self, request: Request) -> None:
        if not self.authorize(request.session, Operation.CLUSTER_ACTION, CLUSTER_RESOURCE):
            raise ClusterAuthorizationException(f"Request {request.correlation_id} is not authorized.")

    def authorize_cluster_alter(self, request: Request) -> None:
        if not self.authorize(request.session, Operation.ALTER, CLUSTER_RESOURCE):
            raise ClusterAuthorizationException(f"Request {request.correlation_id} is not authorized.")

    def authorize_cluster_describe(self, request: Request) -> None:
        if not self.authorize(request.session, Operation.DESCRIBE, CLUSTER_RESOURCE):
            raise ClusterAuthorizationException(f"Request {request.correlation_id} is not authorized.")

    # -- Produce ------------------------------------------------------------------------------------------------------

    @step("NW.apis.produce")
    def handle_produce_request(self, request: Request) -> None:
        body = request.body
        error_responses: dict[TopicPartition, PartitionResponse] = {}
        authorized_request_info: dict[TopicPartition, bytes] = {}
        # A transactional producer needs Write on its id, an idempotent one IdempotentWrite: else nothing is taken.
        transactional_id = getattr(body, "transactional_id", None)
        if transactional_id is not None:
            request_error = None if self.authorize(request.session, Operation.WRITE, Resource(
                ResourceType.TRANSACTIONAL_ID, transactional_id)) else Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED
        else:
            request_error = None if not is_idempotent(body) or self.authorize(
                request.session, Operation.IDEMPOTENT_WRITE, CLUSTER_RESOURCE) else Errors.CLUSTER_AUTHORIZATION_FAILED
        for topic_data in body.topic_data:
            for partition_data in topic_data.partition_data:
                topic_partition = TopicPartition(topic_data.name, partition_data.index)
                if request_error is not None or not self.authorize(request.session, Operation.WRITE,
                                                                   Resource(ResourceType.TOPIC, topic_data.name)):
                    error_responses[topic_partition] = PartitionResponse(request_error or
                                                                         Errors.TOPIC_AUTHORIZATION_FAILED)
                    continue
                error = self.check_produce_partition(request, topic_data.name, partition_data.records)
                if error != Errors.NONE:
                    error_responses[topic_partition] = PartitionResponse(error)
                else:
                    authorized_request_info[topic_partition] = bytes(partition_data.records)

        def send_response_callback(response_status: dict[TopicPartition, PartitionResponse]) -> None:
            merged = {**response_status, **error_responses}
            if body.acks == 0:
                # The producer reads no response; an error can only be signalled by closing the connection.
                if any(status.error != Errors.NONE for status in merged.values()):
                    log.info("Closing connection due to error during produce request with correlation id %d "
                             "from client id %s with ack=0", request.correlation_id, request.client_id)
                    self.close_connection(request)
                else:
                    self.send_no_op_response(request)
            else:
                self.send_response(request, produce_response(request, merged))

        if not authorized_request_info:
            send_response_callback({})
            return
        self.replica_manager.append_records(
            millis(body.timeout), body.acks, internal_topics_allowed=request.client_id == ADMIN_CLIENT_ID,
            is_from_client=True, entries_per_partition=authorized_request_info,
            response_callback=send_response_callback)

    def check_produce_partition(self, request: Request, topic: str, records: bytes | None) -> Errors:
        """What 1.0.2 checks of a partition after its authorization: the request version, the topic, the batch."""
        if request.api_version < 3:
            return Errors.UNSUPPORTED_VERSION  # message format v0/v1: not stored by this log
        try:
            validate_topic(topic)
        except InvalidTopicException:
            return Errors.INVALID_TOPIC_EXCEPTION
        if not self.metadata_cache.contains(topic):
            return Errors.UNKNOWN_TOPIC_OR_PARTITION
        # ProduceRequest.validateRecords: from v3 on, exactly one batch per partition, in format v2.
        if records is None or len(records) < RECORD_BATCH_OVERHEAD or records[MAGIC_OFFSET] != 2:
            return Errors.for_exception(InvalidRecordException("Produce requests with version 3 and above must "
                                                               "contain record batches of magic version 2"))
        if int.from_bytes(records[8:12], "big", signed=True) + 12 != len(records):
            return Errors.for_exception(InvalidRecordException("Produce requests with version 3 and above must "
                                                               "contain exactly one record batch"))
        return Errors.NONE

    # -- Fetch --------------------------------------------------------------------------------------------------------

    def handle_fetch_request(self, request: Request) -> None:
        body, version = request.body, request.api_version
        if getattr(body, "session_epoch", -1) > 0:
            # Incremental fetch sessions (KIP-227) are not kept; a full fetch (epoch 0 or -1) always works.
            self.send_response(request, build(self.response_schema(request), throttle_time=0,
                                              error_code=Errors.FETCH_SESSION_ID_NOT_FOUND, session_id=0,
                                              responses=[]))
            return
        fetch_infos: dict[TopicPartition, PartitionFetchInfo] = {}
        errors: dict[TopicPartition, Errors] = {}
        # A follower (replica id >= 0) must be allowed ClusterAction, a consumer Read on each topic.
        follower_denied = body.replica_id >= 0 and not self.authorize(request.session, Operation.CLUSTER_ACTION,
                                                                      CLUSTER_RESOURCE)
        for topic in body.topics:
            for partition in topic.partitions:
                topic_partition = TopicPartition(topic.topic, partition.partition)
                if follower_denied:
                    errors[topic_partition] = Errors.CLUSTER_AUTHORIZATION_FAILED
                elif body.replica_id < 0 and not self.authorize(request.session, Operation.READ,
                                                                Resource(ResourceType.TOPIC, topic.topic)):
                    errors[topic_partition] = Errors.TOPIC_AUTHORIZATION_FAILED
                elif not self.metadata_cache.contains(topic.topic):
                    errors[topic_partition] = Errors.UNKNOWN_TOPIC_OR_PARTITION
                else:
                    fetch_infos[topic_partition] = PartitionFetchInfo(partition.fetch_offset,
                                                                      partition.partition_max_bytes,
                                                                      getattr(partition, "log_start_offset", -1))
        order = [TopicPartition(t.topic, p.partition) for t in body.topics for p in t.partitions]
        # any other value than 0 or 1 failed the parse (SocketServer): the connection was closed
        isolation_level = IsolationLevel.for_id(body.isolation_level)

        def process_response_callback(results: list[tuple[TopicPartition, Any]]) -> None:
            by_partition = dict(results)
            # one entry per topic, in the order topics first appear in the request
            by_topic: dict[str, list[tuple[TopicPartition, FetchPartitionData]]] = {}
            for topic_partition in order:
                result = by_partition.get(topic_partition)
                if result is None:
                    partition_data = FetchPartitionData(errors[topic_partition], -1, INVALID_LAST_STABLE_OFFSET, -1,
                                                   None, b"")
                else:
                    # Only a read_committed read has a last stable offset and a list of aborted transactions
                    # (null on the wire otherwise). The records are the log slice read, sent from the file.
                    last_stable_offset = (result.last_stable_offset if result.last_stable_offset is not None
                                          else INVALID_LAST_STABLE_OFFSET)
                    partition_data = FetchPartitionData(result.error, result.high_watermark, last_stable_offset,
                                                   result.leader_log_start_offset, result.aborted_transactions,
                                                   result.records)
                by_topic.setdefault(topic_partition.topic, []).append((topic_partition, partition_data))
            response = FetchResponse([entry for entries in by_topic.values() for entry in entries])
            self.send_response_send(request, response.to_send(request.connection_id, request.correlation_id,
                                                              version))

        if not fetch_infos:
            process_response_callback([])
            return
        self.replica_manager.fetch_messages(
            millis(body.max_wait), body.replica_id, body.min_bytes, getattr(body, "max_bytes", 0x7FFFFFFF),
            hard_max_bytes_limit=version <= 2, fetch_infos=fetch_infos, response_callback=process_response_callback,
            isolation_level=isolation_level)

    # -- ListOffsets --------------------------------------------------------------------------------------------------

    def handle_list_offset_request(self, request: Request) -> None:
        body = request.body
        # Only consumers (replica id -1) are held below the high watermark; other brokers see the log end.
        only_committed = body.replica_id == CONSUMER_REPLICA_ID
        # v2+: a read_committed consumer's "latest" is the last stable offset.
        isolation_level = IsolationLevel.for_id(getattr(body, "isolation_level", 0))
        topics = []
        for topic in body.topics:
            partitions = []
            for partition in topic.partitions:
                topic_partition = TopicPartition(topic.name, partition.partition_index)
                if not self.authorize(request.session, Operation.DESCRIBE, Resource(ResourceType.TOPIC, topic.name)):
                    partitions.append(dict(partition_index=partition.partition_index, timestamp=-1, offset=-1,
                                           error_code=Errors.TOPIC_AUTHORIZATION_FAILED, leader_epoch=0))
                    continue
                error, timestamp, offset = self.fetch_offset_for_timestamp(topic_partition, partition.timestamp,
                                                                           only_committed, isolation_level)
                partitions.append(dict(partition_index=partition.partition_index, error_code=error,
                                       timestamp=timestamp, offset=offset, leader_epoch=0))
            topics.append(dict(name=topic.name, partitions=partitions))
        self.send_response(request, build(self.response_schema(request), throttle_time=0, topics=topics))

    def fetch_offset_for_timestamp(self, topic_partition: TopicPartition, timestamp: int, only_committed: bool,
                                   isolation_level: IsolationLevel = IsolationLevel.READ_UNCOMMITTED,
                                   ) -> tuple[Errors, int, int]:
        partition = self.replica_manager.get_partition(topic_partition)
        if partition is None:
            return Errors.UNKNOWN_TOPIC_OR_PARTITION, -1, -1
        replica = partition.leader_replica_if_local()
        if replica is None:
            return Errors.NOT_LEADER_OR_FOLLOWER, -1, -1
        # Consumers may not see past the high watermark, so "latest" is the high watermark for them (the last
        # stable offset for read_committed ones).
        if not only_committed:
            last_fetchable_offset = replica.log.log_end_offset
        elif isolation_level is IsolationLevel.READ_COMMITTED:
            last_fetchable_offset = replica.last_stable_offset
        else:
            last_fetchable_offset = partition.high_watermark
        if timestamp == LATEST_TIMESTAMP:
            return Errors.NONE, -1, last_fetchable_offset
        if timestamp == EARLIEST_TIMESTAMP:
            return Errors.NONE, -1, replica.log.log_start_offset
        found = replica.log.fetch_offsets_by_timestamp(timestamp)
        if found is None or found[1] >= last_fetchable_offset:
            return Errors.NONE, -1, -1
        return Errors.NONE, found[0], found[1]

    # -- LeaderAndIsr / StopReplica / UpdateMetadata (from the controller) ------------------------------------------

    def handle_leader_and_isr_request(self, request: Request) -> None:
        body = request.body
        # v0 and v1 (1.0.2's): one list of partition states, each naming its topic; is_new came with v1
        leader_and_isr_request = LeaderAndIsrRequest(
            body.controller_id, body.controller_epoch,
            {TopicPartition(p.topic_name, p.partition_index): LeaderAndIsrPartitionState(
                p.controller_epoch, p.leader, p.leader_epoch, list(p.isr), p.partition_epoch, list(p.replicas),
                getattr(p, "is_new", False)) for p in body.ungrouped_partition_states},
            [BrokerEndPoint(b.broker_id, b.host_name, b.port) for b in body.live_leaders])
        if not self.authorize(request.session, Operation.CLUSTER_ACTION, CLUSTER_RESOURCE):
            error = Errors.CLUSTER_AUTHORIZATION_FAILED
            self.send_response(request, build(self.response_schema(request), error_code=error, partition_errors=[
                dict(topic_name=tp.topic, partition_index=tp.partition, error_code=error)
                for tp in sorted(leader_and_isr_request.partition_states)]))
            return
        with span("KafkaApis.handleLeaderAndIsrRequest", body=body):
            # Group coordination follows the offsets partitions led here, under the replica state change lock.
            result = self.replica_manager.become_leader_or_follower(request.correlation_id, leader_and_isr_request,
                                                                    self.on_leadership_change)
            note(result=result)
            self.send_response(request, build(self.response_schema(request), error_code=result.error, partition_errors=[
                dict(topic_name=tp.topic, partition_index=tp.partition, error_code=error)
                for tp, error in sorted(result.response_map.items())]))

    def handle_stop_replica_request(self, request: Request) -> None:
        body = request.body
        stop_replica_request = StopReplicaRequest(body.controller_id, body.controller_epoch, body.delete_partitions,
                                                  [TopicPartition(p.topic_name, p.partition_index)
                                                   for p in body.ungrouped_partitions])
        if not self.authorize(request.session, Operation.CLUSTER_ACTION, CLUSTER_RESOURCE):
            error = Errors.CLUSTER_AUTHORIZATION_FAILED
            self.send_response(request, build(self.response_schema(request), error_code=error, partition_errors=[
                dict(topic_name=tp.topic, partition_index=tp.partition, error_code=error)
                for tp in stop_replica_request.partitions]))
            return
        with span("KafkaApis.handleStopReplicaRequest", body=body):
            result, error = self.replica_manager.stop_replicas(stop_replica_request)
            note(error=error)
            # A deleted offsets partition takes its groups with it, led here or not.
            for topic_partition, partition_error in result.items():
                if partition_error == Errors.NONE and stop_replica_request.delete_partitions \
                        and topic_partition.topic == GROUP_METADATA_TOPIC_NAME:
                    self.group_coordinator.handle_group_emigration(topic_partition.partition)
            self.send_response(request, build(self.response_schema(request), error_code=error, partition_errors=[
                dict(topic_name=tp.topic, partition_index=tp.partition, error_code=e)
                for tp, e in sorted(result.items())]))
        with swallow(log):
            self.replica_manager.replica_fetcher_manager.shutdown_idle_fetcher_threads()

    def handle_controlled_shutdown_request(self, request: Request) -> None:
        """The controller's event thread answers: the replicated partitions the broker still leads, or an error."""
        broker_id = request.body.broker_id
        self.authorize_cluster_action(request)

        def controlled_shutdown_callback(result: Any) -> None:
            if isinstance(result, BaseException):
                # e.g. not the active controller (STALE_CONTROLLER_EPOCH): the broker asks again, of whoever
                # /controller then names
                self.send_response(request, get_error_response(request, 0, result))
            else:
                self.send_response(request, build(self.response_schema(request), error_code=Errors.NONE,
                                                  remaining_partitions=[
                                                      dict(topic_name=tp.topic, partition_index=tp.partition)
                                                      for tp in sorted(result)]))

        with span("KafkaApis.handleControlledShutdownRequest", broker_id=broker_id):
            self.controller.shutdown_broker(broker_id, controlled_shutdown_callback)

    def handle_update_metadata_request(self, request: Request) -> None:
        body = request.body
        update_metadata_request = UpdateMetadataRequest(
            body.controller_id, body.controller_epoch,
            {TopicPartition(p.topic_name, p.partition_index): PartitionState(
                p.controller_epoch, p.leader, p.leader_epoch, list(p.isr), p.zk_version, list(p.replicas),
                list(getattr(p, "offline_replicas", ()))) for p in body.ungrouped_partition_states},
            [update_metadata_broker(b) for b in body.live_brokers])
        if not self.authorize(request.session, Operation.CLUSTER_ACTION, CLUSTER_RESOURCE):
            self.send_response(request, build(self.response_schema(request),
                                              error_code=Errors.CLUSTER_AUTHORIZATION_FAILED))
            return
        with span("KafkaApis.handleUpdateMetadataRequest", body=body):
            # an older controller's request raises ControllerMovedException: handle_error answers
            # STALE_CONTROLLER_EPOCH
            deleted_partitions = self.replica_manager.maybe_update_metadata_cache(request.correlation_id,
                                                                                  update_metadata_request)
            if deleted_partitions:
                self.group_coordinator.handle_deleted_partitions(deleted_partitions)
            self.admin_manager.try_complete_topics({tp.topic for tp in update_metadata_request.partition_states})
            self.send_response(request, build(self.response_schema(request), error_code=Errors.NONE))

    # -- FindCoordinator ----------------------------------------------------------------------------------------------

    def handle_find_coordinator_request(self, request: Request) -> None:
        body = request.body
        key_type = getattr(body, "key_type", GROUP_KEY_TYPE)
        if key_type == GROUP_KEY_TYPE and not self.authorize(request.session, Operation.DESCRIBE,
                                                             Resource(ResourceType.GROUP, body.key)):
            self.send_error_response_maybe_throttle(request, Errors.GROUP_AUTHORIZATION_FAILED)
            return
        if key_type == TRANSACTION_KEY_TYPE and not self.authorize(
                request.session, Operation.DESCRIBE, Resource(ResourceType.TRANSACTIONAL_ID, body.key)):
            self.send_error_response_maybe_throttle(request, Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED)
            return
        node = None
        if key_type == GROUP_KEY_TYPE:
            partition = self.group_coordinator.partition_for(body.key)
            topic_metadata = self.get_or_create_internal_topic(GROUP_METADATA_TOPIC_NAME, request.listener_name)
        elif key_type == TRANSACTION_KEY_TYPE:
            partition = self.txn_coordinator.partition_for(body.key)
            topic_metadata = self.get_or_create_internal_topic(TRANSACTION_STATE_TOPIC_NAME, request.listener_name)
        else:
            raise InvalidRequestException("Unknown coordinator type in FindCoordinator request")
        if topic_metadata is not None:
            leader = next((p.leader for p in topic_metadata if p.partition == partition), -1)
            node = next((b for b in self.metadata_cache.get_alive_brokers() if b.id == leader), None)
        if node is None or request.listener_name not in node.endpoints:
            error, node_id, host, port = Errors.COORDINATOR_NOT_AVAILABLE, -1, "", -1
        else:
            error, node_id = Errors.NONE, node.id
            host, port = node.endpoints[request.listener_name]
        self.send_response(request, build(self.response_schema(request), throttle_time=0, error_code=error,
                                          error_message=None if error == Errors.NONE else error.name,
                                          node_id=node_id, host=host, port=port))

    def get_or_create_internal_topic(self, topic: str, listener_name: str) -> list[Any] | None:
        """The internal topic's partitions, creating it on first use; None while it has no metadata yet."""
        metadata = self.metadata_cache.get_topic_metadata({topic}, listener_name)
        if topic in metadata:
            return metadata[topic]
        if topic == GROUP_METADATA_TOPIC_NAME:
            replication_factor, num_partitions = (self.config.offsets_topic_replication_factor,
                                                  self.config.offsets_topic_partitions)
            what, prop, configs = ("offsets topic", "offsets.topic.replication.factor",
                                   self.group_coordinator.offsets_topic_configs())
        else:
            replication_factor, num_partitions = (self.config.transaction_topic_replication_factor,
                                                  self.config.transaction_topic_partitions)
            what, prop, configs = ("transactions state topic", "transaction.state.log.replication.factor",
                                   self.txn_coordinator.transaction_topic_configs())
        alive = len(self.metadata_cache.get_alive_brokers())
        if alive < replication_factor:
            log.error("Number of alive brokers '%d' does not meet the required replication factor '%d' for the %s "
                      "(configured via '%s'). This error can be ignored if the cluster is starting up and not all "
                      "brokers are up yet.", alive, replication_factor, what, prop)
            return None
        self.admin_manager.create_topics(0, False, {topic: dict(
            num_partitions=num_partitions, replication_factor=replication_factor, configs=configs)}, lambda _: None)
        return None

    # -- InitProducerId -----------------------------------------------------------------------------------------------

    def handle_init_producer_id_request(self, request: Request) -> None:
        transactional_id = request.body.transactional_id
        if transactional_id is not None and not self.authorize(
                request.session, Operation.WRITE, Resource(ResourceType.TRANSACTIONAL_ID, transactional_id)):
            denied = Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED
        elif transactional_id is None and not self.authorize(request.session, Operation.IDEMPOTENT_WRITE,
                                                             CLUSTER_RESOURCE):
            denied = Errors.CLUSTER_AUTHORIZATION_FAILED
        else:
            denied = None
        if denied is not None:
            self.send_error_response_maybe_throttle(request, denied)
            return
        body = request.body

        def send_response_callback(result: InitProducerIdResult) -> None:
            self.send_response(request, build(self.response_schema(request), throttle_time=0, error_code=result.error,
                                              producer_id=result.producer_id, producer_epoch=result.producer_epoch))

        self.txn_coordinator.handle_init_producer_id(body.transactional_id, millis(body.transaction_timeout),
                                                     send_response_callback)

    # -- transactions: AddPartitionsToTxn, AddOffsetsToTxn, EndTxn (to the transaction coordinator) -----------------

    def handle_add_partition_to_txn_request(self, request: Request) -> None:
        body = request.body
        transactional_id = body.v3_and_below_transactional_id
        partitions_to_add = [TopicPartition(t.name, p) for t in body.v3_and_below_topics for p in t.partitions]

        def send_response(partition_errors: dict[TopicPartition, Errors]) -> None:
            by_topic: dict[str, list[dict[str, Any]]] = {}
            for topic_partition, error in partition_errors.items():
                by_topic.setdefault(topic_partition.topic, []).append(
                    dict(partition_index=topic_partition.partition, partition_error_code=error))
            self.send_response(request, build(self.response_schema(request), throttle_time=0,
                                              results_by_topic_v3_and_below=[
                                                  dict(name=name, results_by_partition=results)
                                                  for name, results in by_topic.items()]))

        if not self.authorize(request.session, Operation.WRITE,
                              Resource(ResourceType.TRANSACTIONAL_ID, transactional_id)):
            self.send_response(request, get_error_response(request, 0, Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED))
            return
        # Internal topics take no part in a producer's transaction (the offsets go through AddOffsetsToTxn).
        unauthorized = {tp: Errors.TOPIC_AUTHORIZATION_FAILED for tp in partitions_to_add
                        if tp.topic in INTERNAL_TOPICS or not self.authorize(
                            request.session, Operation.WRITE, Resource(ResourceType.TOPIC, tp.topic))}
        non_existing = {tp: Errors.UNKNOWN_TOPIC_OR_PARTITION for tp in partitions_to_add
                        if tp not in unauthorized and not self.metadata_cache.contains(tp.topic)}
        authorized = [tp for tp in partitions_to_add if tp not in unauthorized and tp not in non_existing]
        if unauthorized or non_existing:
            # One failed partition fails the request: the others are OPERATION_NOT_ATTEMPTED, not added.
            send_response({**unauthorized, **non_existing,
                           **{tp: Errors.OPERATION_NOT_ATTEMPTED for tp in authorized}})
            return
        self.txn_coordinator.handle_add_partitions_to_transaction(
            transactional_id, body.v3_and_below_producer_id, body.v3_and_below_producer_epoch, authorized,
            lambda error: send_response({tp: error for tp in partitions_to_add}))

    def handle_add_offsets_to_txn_request(self, request: Request) -> None:
        body = request.body
        # The group's offsets partition joins the transaction like any other partition.
        offset_topic_partition = TopicPartition(GROUP_METADATA_TOPIC_NAME,
                                                self.group_coordinator.partition_for(body.group_id))

        def send_response_callback(error: Errors) -> None:
            self.send_response(request, build(self.response_schema(request), throttle_time=0, error_code=error))

        if not self.authorize(request.session, Operation.WRITE,
                              Resource(ResourceType.TRANSACTIONAL_ID, body.transactional_id)):
            send_response_callback(Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED)
        elif not self.authorize(request.session, Operation.READ, Resource(ResourceType.GROUP, body.group_id)):
            send_response_callback(Errors.GROUP_AUTHORIZATION_FAILED)
        else:
            self.txn_coordinator.handle_add_partitions_to_transaction(
                body.transactional_id, body.producer_id, body.producer_epoch, {offset_topic_partition},
                send_response_callback)

    def handle_end_txn_request(self, request: Request) -> None:
        body = request.body

        def send_response_callback(error: Errors) -> None:
            self.send_response(request, build(self.response_schema(request), throttle_time=0, error_code=error))

        if not self.authorize(request.session, Operation.WRITE,
                              Resource(ResourceType.TRANSACTIONAL_ID, body.transactional_id)):
            send_response_callback(Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED)
            return
        self.txn_coordinator.handle_end_transaction(body.transactional_id, body.producer_id, body.producer_epoch,
                                                    TransactionResult.for_id(body.committed), send_response_callback)

    # -- transactions: TxnOffsetCommit (to the group coordinator) ---------------------------------------------------

    def handle_txn_offset_commit_request(self, request: Request) -> None:
        body = request.body
        now_ms = int(time.time() * 1000)
        default_expire_timestamp = now_ms + self.group_coordinator.offset_config.offsets_retention_ms
        # 1.0.2 answers a request it refuses whole with that error for each of its partitions
        if not self.authorize(request.session, Operation.WRITE,
                              Resource(ResourceType.TRANSACTIONAL_ID, body.transactional_id)):
            request_error: Errors | None = Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED
        elif not self.authorize(request.session, Operation.READ, Resource(ResourceType.GROUP, body.group_id)):
            request_error = Errors.GROUP_AUTHORIZATION_FAILED
        else:
            request_error = None
        refused: dict[TopicPartition, Errors] = {}
        offsets: dict[TopicPartition, OffsetAndMetadata] = {}
        for topic in body.topics:
            for partition in topic.partitions:
                topic_partition = TopicPartition(topic.name, partition.partition_index)
                if request_error is not None:
                    refused[topic_partition] = request_error
                elif not self.authorize(request.session, Operation.READ, Resource(ResourceType.TOPIC, topic.name)):
                    refused[topic_partition] = Errors.TOPIC_AUTHORIZATION_FAILED
                elif not self.metadata_cache.contains(topic.name):
                    refused[topic_partition] = Errors.UNKNOWN_TOPIC_OR_PARTITION
                else:
                    offsets[topic_partition] = OffsetAndMetadata(partition.committed_offset,
                                                                 partition.committed_metadata or "", now_ms,
                                                                 default_expire_timestamp)

        def send_response_callback(commit_status: dict[TopicPartition, Errors]) -> None:
            by_topic: dict[str, list[dict[str, Any]]] = {}
            for topic_partition, error in sorted({**commit_status, **refused}.items()):
                by_topic.setdefault(topic_partition.topic, []).append(
                    dict(partition_index=topic_partition.partition, error_code=error))
            self.send_response(request, build(self.response_schema(request), throttle_time=0, topics=[
                dict(name=name, partitions=partitions) for name, partitions in by_topic.items()]))

        if not offsets:
            send_response_callback({})
            return
        self.group_coordinator.handle_txn_commit_offsets(body.group_id, body.producer_id, body.producer_epoch,
                                                         offsets, send_response_callback)

    # -- WriteTxnMarkers (from a transaction coordinator) ---------------------------------------------------------

    @step("TX.write")
    def handle_write_txn_markers_request(self, request: Request) -> None:
        """Append each marker's COMMIT or ABORT control batch to its partitions here, one append per marker (acks=all),
        and answer once every append has answered. A marker written to an offsets partition makes the group
        coordinator materialize (or drop) the transaction's offsets."""
        self.authorize_cluster_action(request)
        markers = request.body.markers
        errors: dict[int, dict[TopicPartition, Errors]] = {}
        lock = threading.Lock()  # appends answer on whichever thread completes them
        num_appends = [len(markers)]

        def send_write_txn_markers_response() -> None:
            self.send_response(request, build(self.response_schema(request), markers=[
                dict(producer_id=producer_id, topics=[
                    dict(name=topic, partitions=[dict(partition_index=tp.partition, error_code=error)
                                                 for tp, error in partition_errors.items() if tp.topic == topic])
                    for topic in dict.fromkeys(tp.topic for tp in partition_errors)])
                for producer_id, partition_errors in errors.items()]))

        if num_appends[0] == 0:
            send_write_txn_markers_response()
            return

        def update_errors(producer_id: int, current_errors: dict[TopicPartition, Errors]) -> None:
            with lock:
                errors.setdefault(producer_id, {}).update(current_errors)

        def maybe_send_response_callback(producer_id: int, result: TransactionResult,
                                         ) -> Callable[[dict[TopicPartition, PartitionResponse]], None]:
            def callback(response_status: dict[TopicPartition, PartitionResponse]) -> None:
                update_errors(producer_id, {tp: status.error for tp, status in response_status.items()})
                successful_offsets_partitions = [tp for tp, status in response_status.items()
                                                 if tp.topic == GROUP_METADATA_TOPIC_NAME
                                                 and status.error == Errors.NONE]
                if successful_offsets_partitions:
                    # The marker is in the offsets partition: the transaction's offsets can be made visible.
                    try:
                        self.group_coordinator.schedule_handle_txn_completion(
                            producer_id, successful_offsets_partitions, result)
                    except Exception:
                        log.exception("Received an exception while trying to update the offsets cache on "
                                      "transaction marker append")
                        update_errors(producer_id, {tp: Errors.UNKNOWN_SERVER_ERROR
                                                    for tp in successful_offsets_partitions})
                with lock:
                    num_appends[0] -= 1
                    done = num_appends[0] == 0
                if done:
                    send_write_txn_markers_response()
            return callback

        skipped_markers = 0
        for marker in markers:
            producer_id = marker.producer_id
            partitions_with_compatible_message_format = []
            current_errors: dict[TopicPartition, Errors] = {}
            for topic in marker.topics:
                for partition_index in topic.partition_indexes:
                    topic_partition = TopicPartition(topic.name, partition_index)
                    magic = self.replica_manager.get_magic(topic_partition)
                    if magic is None:
                        current_errors[topic_partition] = Errors.UNKNOWN_TOPIC_OR_PARTITION
                    elif magic < MAGIC_VALUE_V2:
                        current_errors[topic_partition] = Errors.UNSUPPORTED_FOR_MESSAGE_FORMAT
                    else:
                        partitions_with_compatible_message_format.append(topic_partition)
            if current_errors:
                update_errors(producer_id, current_errors)
            if not partitions_with_compatible_message_format:
                with lock:
                    num_appends[0] -= 1
                skipped_markers += 1
                continue
            result = TransactionResult.for_id(marker.transaction_result)
            control_type = ControlRecordType.COMMIT if result is TransactionResult.COMMIT else ControlRecordType.ABORT
            end_txn_marker = EndTransactionMarker(control_type, marker.coordinator_epoch)
            control_records = {tp: bytes(with_end_transaction_marker(producer_id, marker.producer_epoch,
                                                                     end_txn_marker).buffer)
                               for tp in partitions_with_compatible_message_format}
            self.replica_manager.append_records(
                self.config.request_timeout_ms, required_acks=-1, internal_topics_allowed=True, is_from_client=False,
                entries_per_partition=control_records,
                response_callback=maybe_send_response_callback(producer_id, result))

        # Every marker named only partitions this broker cannot write: nothing will answer but this.
        if skipped_markers == len(markers):
            send_write_txn_markers_response()

    # -- CreateTopics / DeleteTopics ----------------------------------------------------------------------------------

    def handle_create_topics_request(self, request: Request) -> None:
        body = request.body
        names = [t.name for t in body.topics]
        duplicates = {n for n in names if names.count(n) > 1}
        create_info = {t.name: dict(num_partitions=t.num_partitions, replication_factor=t.replication_factor,
                                    assignments={a.partition_index: list(a.broker_ids) for a in t.assignments},
                                    configs={c.name: c.value for c in t.configs})
                       for t in body.topics if t.name not in duplicates}

        def send_response_callback(results: dict[str, tuple[Errors, str | None]]) -> None:
            all_results = {**results, **{n: (Errors.INVALID_REQUEST, "Create topics request from client "
                                             f"`{request.client_id}` contains multiple entries for the following "
                                             f"topics: {', '.join(sorted(duplicates))}") for n in duplicates}}
            self.send_response(request, build(self.response_schema(request), throttle_time=0, topics=[
                dict(name=name, error_code=error, error_message=message, topic_id=None, num_partitions=-1,
                     replication_factor=-1, configs=None) for name, (error, message) in all_results.items()]))

        # Only the active controller creates topics: clients retry on the one Metadata names.
        if not self.controller.is_active:
            send_response_callback({t.name: (Errors.NOT_CONTROLLER, None) for t in body.topics
                                    if t.name not in duplicates})
            return
        if not self.authorize(request.session, Operation.CREATE, CLUSTER_RESOURCE):
            send_response_callback({t.name: (Errors.CLUSTER_AUTHORIZATION_FAILED, None) for t in body.topics
                                    if t.name not in duplicates})
            return
        self.admin_manager.create_topics(millis(body.timeout), getattr(body, "validate_only", False), create_info,
                                         send_response_callback)

    def handle_delete_topics_request(self, request: Request) -> None:
        body = request.body
        topics = set(body.topic_names)
        unauthorized = {t for t in topics
                        if not self.authorize(request.session, Operation.DELETE, Resource(ResourceType.TOPIC, t))}

        def send_response_callback(results: dict[str, Errors]) -> None:
            complete_results = {**{t: Errors.TOPIC_AUTHORIZATION_FAILED for t in unauthorized}, **results}
            self.send_response(request, build(self.response_schema(request), throttle_time=0, responses=[
                dict(name=name, error_code=error, error_message=None) for name, error in complete_results.items()]))

        if not self.controller.is_active:
            send_response_callback({topic: Errors.NOT_CONTROLLER for topic in topics})
            return
        topics -= unauthorized
        if not topics:
            send_response_callback({})
            return
        self.admin_manager.delete_topics(millis(body.timeout_ms if hasattr(body, "timeout_ms") else body.timeout),
                                         topics, send_response_callback)

    # -- CreatePartitions (the active controller's AdminManager) -----------------------------------------------------

    def handle_create_partitions_request(self, request: Request) -> None:
        body = request.body

        def send_response_callback(results: dict[str, tuple[Errors, str | None]]) -> None:
            self.send_response(request, build(self.response_schema(request), throttle_time=0, results=[
                dict(name=name, error_code=error, error_message=message)
                for name, (error, message) in results.items()]))

        # Only the active controller adds partitions: clients retry on the one Metadata names.
        if not self.controller.is_active:
            send_response_callback({t.name: (Errors.NOT_CONTROLLER, None) for t in body.topics})
            return
        names = [t.name for t in body.topics]
        dupes = {n for n in names if names.count(n) > 1}
        not_duped = [t for t in body.topics if t.name not in dupes]
        queued_for_deletion = {t.name for t in not_duped
                               if self.controller.topic_deletion_manager.is_topic_queued_up_for_deletion(t.name)}
        unauthorized = {t.name for t in not_duped if not self.authorize(request.session, Operation.ALTER,
                                                                         Resource(ResourceType.TOPIC, t.name))}
        queued_for_deletion -= unauthorized
        valid = {t.name: (t.count, None if t.assignments is None else [list(a.broker_ids) for a in t.assignments])
                 for t in not_duped if t.name not in queued_for_deletion and t.name not in unauthorized}
        errors = {**{name: (Errors.INVALID_REQUEST, "Duplicate topic in request.") for name in dupes},
                  **{name: (Errors.TOPIC_AUTHORIZATION_FAILED, "The topic authorization is failed.")
                     for name in unauthorized},
                  **{name: (Errors.INVALID_TOPIC_EXCEPTION, "The topic is queued for deletion.")
                     for name in queued_for_deletion}}
        self.admin_manager.create_partitions(millis(body.timeout), valid, body.validate_only,
                                             lambda result: send_response_callback({**result, **errors}))

    # -- DeleteRecords ------------------------------------------------------------------------------------------------

    def handle_delete_records_request(self, request: Request) -> None:
        body = request.body
        non_existing_topic_responses: dict[TopicPartition, DeleteRecordsPartitionResponse] = {}
        offsets: dict[TopicPartition, int] = {}
        for topic in body.topics:
            for partition in topic.partitions:
                topic_partition = TopicPartition(topic.name, partition.partition_index)
                if not self.authorize(request.session, Operation.DELETE, Resource(ResourceType.TOPIC, topic.name)):
                    non_existing_topic_responses[topic_partition] = DeleteRecordsPartitionResponse(
                        INVALID_LOW_WATERMARK, Errors.TOPIC_AUTHORIZATION_FAILED)
                elif not self.metadata_cache.contains(topic.name):
                    non_existing_topic_responses[topic_partition] = DeleteRecordsPartitionResponse(
                        INVALID_LOW_WATERMARK, Errors.UNKNOWN_TOPIC_OR_PARTITION)
                else:
                    offsets[topic_partition] = partition.offset

        def send_response_callback(responses: dict[TopicPartition, DeleteRecordsPartitionResponse]) -> None:
            by_topic: dict[str, list[dict[str, Any]]] = {}
            for topic_partition, status in sorted({**responses, **non_existing_topic_responses}.items()):
                if status.error != Errors.NONE:
                    log.debug("DeleteRecordsRequest with correlation id %d from client %s on partition %s failed "
                              "due to %s", request.correlation_id, request.client_id, topic_partition,
                              status.error.name)
                by_topic.setdefault(topic_partition.topic, []).append(dict(
                    partition_index=topic_partition.partition, low_watermark=status.low_watermark,
                    error_code=status.error))
            self.send_response(request, build(self.response_schema(request), throttle_time=0, topics=[
                dict(name=name, partitions=partitions) for name, partitions in by_topic.items()]))

        if not offsets:
            send_response_callback({})
            return
        self.replica_manager.delete_records(millis(body.timeout), offsets, send_response_callback)

    # -- OffsetsForLeaderEpoch (a follower asks where its latest epoch ends here) ------------------------------------

    def handle_offset_for_leader_epoch_request(self, request: Request) -> None:
        with step("LE.apis", request=request):
            request_info = {TopicPartition(t.topic, p.partition): p.leader_epoch
                            for t in request.body.topics for p in t.partitions}
            self.authorize_cluster_action(request)
            topics: dict[str, list[dict[str, Any]]] = {}
            last_offset_for_leader_epoch = self.replica_manager.last_offset_for_leader_epoch(request_info)
            note(answers=last_offset_for_leader_epoch)
            for tp, epoch_end_offset in last_offset_for_leader_epoch.items():
                topics.setdefault(tp.topic, []).append(dict(error_code=epoch_end_offset.error, partition=tp.partition,
                                                            end_offset=epoch_end_offset.end_offset))
            self.send_response(request, build(self.response_schema(request),
                                              topics=[dict(topic=t, partitions=p) for t, p in topics.items()]))

    # -- SaslHandshake / SaslAuthenticate: a login is the network thread's; here only after one, or on PLAINTEXT ----

    def handle_sasl_handshake_request(self, request: Request) -> None:
        self.send_response(request, build(self.response_schema(request), error_code=Errors.ILLEGAL_SASL_STATE,
                                          mechanisms=tuple(self.config.sasl_enabled_mechanisms)))

    def handle_sasl_authenticate_request(self, request: Request) -> None:
        self.send_response(request, build(self.response_schema(request), error_code=Errors.ILLEGAL_SASL_STATE,
                                          error_message="SaslAuthenticate request received after successful "
                                                        "authentication", auth_bytes=b"", session_lifetime=0))

    # -- DescribeAcls / CreateAcls / DeleteAcls (the work is in kafka_edu/v1_0_2/core/server/acl_apis.py) -------------

    def handle_describe_acls(self, request: Request) -> None:
        self.authorize_cluster_describe(request)
        self.send_response(request, build(self.response_schema(request), throttle_time=0,
                                          **acl_apis.describe_acls(self.authorizer, request.body)))

    def handle_create_acls(self, request: Request) -> None:
        self.authorize_cluster_alter(request)
        if self.authorizer is None:
            self.send_response(request, get_error_response(request, 0, SecurityDisabledException(
                acl_apis.NO_AUTHORIZER + ".")))
            return
        self.send_response(request, build(self.response_schema(request), throttle_time=0,
                                          results=acl_apis.create_acls(self.authorizer, request.body.creations)))

    def handle_delete_acls(self, request: Request) -> None:
        self.authorize_cluster_alter(request)
        if self.authorizer is None:
            self.send_response(request, get_error_response(request, 0, SecurityDisabledException(
                acl_apis.NO_AUTHORIZER + ".")))
            return
        self.send_response(request, build(self.response_schema(request), throttle_time=0,
                                          filter_results=acl_apis.delete_acls(self.authorizer, request.body.filters)))

    # -- DescribeConfigs ----------------------------------------------------------------------------------------------

    def handle_describe_configs_request(self, request: Request) -> None:
        results = []
        for resource in request.body.resources:
            # a broker's configs need DescribeConfigs on the cluster (type 4), a topic's on the topic (type 2)
            if resource.resource_type in (2, 4) and not self.authorize(
                    request.session, Operation.DESCRIBE_CONFIGS, CLUSTER_RESOURCE if resource.resource_type == 4
                    else Resource(ResourceType.TOPIC, resource.resource_name)):
                results.append(dict(error_code=Errors.CLUSTER_AUTHORIZATION_FAILED if resource.resource_type == 4
                                    else Errors.TOPIC_AUTHORIZATION_FAILED, error_message=None,
                                    resource_type=resource.resource_type, resource_name=resource.resource_name,
                                    configs=[]))
                continue
            error, message, entries = self.admin_manager.describe_configs(
                resource.resource_type, resource.resource_name, resource.configuration_keys,
                self.log_config_defaults)
            results.append(dict(error_code=error, error_message=message, resource_type=resource.resource_type,
                                resource_name=resource.resource_name, configs=[
                                    dict(name=name, value=value, read_only=read_only, is_default=source == 5,
                                         config_source=source, is_sensitive=False, synonyms=[], config_type=0,
                                         documentation=None)
                                    for name, value, read_only, source in entries]))
        self.send_response(request, build(self.response_schema(request), throttle_time=0, results=results))

    # -- AlterConfigs --------------------------------------------------------------------------------------------------

    def handle_alter_configs_request(self, request: Request) -> None:
        body = request.body
        schema = self.response_schema(request)
        unexpected = next((r.resource_type for r in body.resources
                           if r.resource_type not in (TOPIC_RESOURCE, BROKER_RESOURCE)), None)
        if unexpected is not None:
            # thrown while the resources are sorted by authorization: every resource gets it (handle_error)
            raise InvalidRequestException(f"Unexpected resource type {unexpected}")
        # a broker's configs need AlterConfigs on the cluster, a topic's on the topic
        authorized = [r for r in body.resources if self.authorize(
            request.session, Operation.ALTER_CONFIGS, CLUSTER_RESOURCE if r.resource_type == BROKER_RESOURCE
            else Resource(ResourceType.TOPIC, r.resource_name))]
        results = self.admin_manager.alter_configs(
            [(r.resource_type, r.resource_name, {c.name: c.value for c in r.configs}) for r in authorized],
            body.validate_only) + [
            (r.resource_type, r.resource_name, Errors.CLUSTER_AUTHORIZATION_FAILED if r.resource_type ==
             BROKER_RESOURCE else Errors.TOPIC_AUTHORIZATION_FAILED, None)
            for r in body.resources if r not in authorized]
        self.send_response(request, build(schema, throttle_time=0, responses=[
            dict(error_code=error, error_message=message, resource_type=resource_type, resource_name=resource_name)
            for resource_type, resource_name, error, message in results]))

    # -- AlterReplicaLogDirs and DescribeLogDirs -----------------------------------------------------------------------

    def handle_alter_replica_log_dirs_request(self, request: Request) -> None:
        partition_dirs = {TopicPartition(topic.name, partition): log_dir.path
                          for log_dir in request.body.dirs for topic in log_dir.topics
                          for partition in topic.partitions}
        response_map = self.replica_manager.alter_replica_log_dirs(partition_dirs) if self.authorize(
            request.session, Operation.ALTER, CLUSTER_RESOURCE) else {
            tp: Errors.CLUSTER_AUTHORIZATION_FAILED for tp in partition_dirs}
        by_topic: dict[str, list[dict[str, Any]]] = {}
        for topic_partition, error in sorted(response_map.items()):
            by_topic.setdefault(topic_partition.topic, []).append(dict(partition_index=topic_partition.partition,
                                                                       error_code=error))
        self.send_response(request, build(self.response_schema(request), throttle_time=0, results=[
            dict(topic_name=name, partitions=partitions) for name, partitions in by_topic.items()]))

    def handle_describe_log_dirs_request(self, request: Request) -> None:
        topics = request.body.topics
        if topics is None:  # every partition this broker has a log of
            partitions = {lg.topic_partition for lg in self.replica_manager.log_manager.all_logs()}
        else:
            partitions = {TopicPartition(t.topic, p) for t in topics for p in t.partitions}
        # without Describe on the cluster, nothing is described
        log_dir_infos = self.replica_manager.describe_log_dirs(partitions) if self.authorize(
            request.session, Operation.DESCRIBE, CLUSTER_RESOURCE) else {}
        results = []
        for log_dir, info in log_dir_infos.items():
            by_topic: dict[str, list[dict[str, Any]]] = {}
            for topic_partition, replica_info in sorted(info.replica_infos.items()):
                by_topic.setdefault(topic_partition.topic, []).append(dict(
                    partition_index=topic_partition.partition, partition_size=replica_info.size,
                    offset_lag=replica_info.offset_lag, is_future_key=replica_info.is_future))
            results.append(dict(error_code=info.error, log_dir=log_dir, total_bytes=-1, usable_bytes=-1,
                                topics=[dict(name=n, partitions=p) for n, p in by_topic.items()]))
        self.send_response(request, build(self.response_schema(request), throttle_time=0, error_code=Errors.NONE,
                                          results=results))

    # -- consumer groups ----------------------------------------------------------------------------------------------

    def handle_join_group_request(self, request: Request) -> None:
        body = request.body

        def send_response_callback(result: JoinGroupResult) -> None:
            self.send_response(request, build(
                self.response_schema(request), throttle_time=0, error_code=result.error,
                generation_id=result.generation_id, protocol_name=result.sub_protocol, leader=result.leader_id,
                member_id=result.member_id, members=[dict(member_id=m, group_instance_id=None, metadata=metadata)
                                                     for m, metadata in result.members.items()]))

        if not self.authorize(request.session, Operation.READ, Resource(ResourceType.GROUP, body.group_id)):
            send_response_callback(JoinGroupResult({}, "", -1, "", "", Errors.GROUP_AUTHORIZATION_FAILED))
            return
        session_timeout = millis(body.session_timeout)
        # v0 has no rebalance timeout: the session timeout serves as both, as in Kafka
        rebalance_timeout = millis(body.rebalance_timeout) if request.api_version >= 1 else session_timeout
        self.group_coordinator.handle_join_group(
            body.group_id, body.member_id, request.client_id, request.client_host, rebalance_timeout,
            session_timeout, body.protocol_type, [(p.name, bytes(p.metadata)) for p in body.protocols],
            send_response_callback)

    def handle_sync_group_request(self, request: Request) -> None:
        body = request.body

        def send_response_callback(assignment: bytes, error: Errors) -> None:
            self.send_response(request, build(self.response_schema(request), throttle_time=0, error_code=error,
                                              assignment=assignment, protocol_type=None, protocol_name=None))

        if not self.authorize(request.session, Operation.READ, Resource(ResourceType.GROUP, body.group_id)):
            send_response_callback(b"", Errors.GROUP_AUTHORIZATION_FAILED)
            return
        self.group_coordinator.handle_sync_group(body.group_id, body.generation_id, body.member_id,
                                                 {a.member_id: bytes(a.assignment) for a in body.assignments},
                                                 send_response_callback)

    def handle_heartbeat_request(self, request: Request) -> None:
        body = request.body
        if not self.authorize(request.session, Operation.READ, Resource(ResourceType.GROUP, body.group_id)):
            self.send_response(request, build(self.response_schema(request), throttle_time=0,
                                              error_code=Errors.GROUP_AUTHORIZATION_FAILED))
            return
        self.group_coordinator.handle_heartbeat(body.group_id, body.member_id, body.generation_id,
                                                lambda error: self.send_response(request, build(
                                                    self.response_schema(request), throttle_time=0,
                                                    error_code=error)))

    def handle_leave_group_request(self, request: Request) -> None:
        body = request.body
        if not self.authorize(request.session, Operation.READ, Resource(ResourceType.GROUP, body.group_id)):
            self.send_response(request, build(self.response_schema(request), throttle_time=0,
                                              error_code=Errors.GROUP_AUTHORIZATION_FAILED, members=[]))
            return
        self.group_coordinator.handle_leave_group(body.group_id, body.member_id,
                                                  lambda error: self.send_response(request, build(
                                                      self.response_schema(request), throttle_time=0,
                                                      error_code=error, members=[])))

    def handle_offset_commit_request(self, request: Request) -> None:
        body = request.body
        now_ms = int(time.time() * 1000)
        retention_ms = millis(getattr(body, "retention_time", -1))
        default_expire = now_ms + (self.config.offsets_retention_minutes * 60 * 1000 if retention_ms < 0
                                   else retention_ms)
        errors: dict[TopicPartition, Errors] = {}
        offsets: dict[TopicPartition, OffsetAndMetadata] = {}
        group_denied = not self.authorize(request.session, Operation.READ, Resource(ResourceType.GROUP, body.group_id))
        for topic in body.topics:
            for partition in topic.partitions:
                topic_partition = TopicPartition(topic.name, partition.partition_index)
                if group_denied:
                    errors[topic_partition] = Errors.GROUP_AUTHORIZATION_FAILED
                elif not self.authorize(request.session, Operation.READ, Resource(ResourceType.TOPIC, topic.name)):
                    errors[topic_partition] = Errors.TOPIC_AUTHORIZATION_FAILED
                elif not self.metadata_cache.contains(topic.name):
                    errors[topic_partition] = Errors.UNKNOWN_TOPIC_OR_PARTITION
                else:
                    offsets[topic_partition] = OffsetAndMetadata(
                        partition.committed_offset, partition.committed_metadata or "", now_ms, default_expire)
        generation = getattr(body, "generation_id_or_member_epoch", getattr(body, "generation_id", -1))

        def send_response_callback(commit_status: dict[TopicPartition, Errors]) -> None:
            merged = {**commit_status, **errors}
            by_topic: dict[str, list[dict[str, Any]]] = {}
            for topic_partition, error in sorted(merged.items()):
                by_topic.setdefault(topic_partition.topic, []).append(
                    dict(partition_index=topic_partition.partition, error_code=error))
            self.send_response(request, build(self.response_schema(request), throttle_time=0, topics=[
                dict(name=name, partitions=partitions) for name, partitions in by_topic.items()]))

        if not offsets:
            send_response_callback({})
            return
        self.group_coordinator.handle_commit_offsets(body.group_id, body.member_id, generation, offsets,
                                                     send_response_callback)

    def handle_offset_fetch_request(self, request: Request) -> None:
        body = request.body
        partitions = None if body.topics is None else [TopicPartition(t.name, p) for t in body.topics
                                                        for p in t.partition_indexes]
        if not self.authorize(request.session, Operation.DESCRIBE, Resource(ResourceType.GROUP, body.group_id)):
            self.send_response(request, get_error_response(request, 0, Errors.GROUP_AUTHORIZATION_FAILED))
            return
        # Offsets of topics the client may not describe are not shown: left out of "all", refused by name.
        authorized = None if partitions is None else [
            tp for tp in partitions
            if self.authorize(request.session, Operation.DESCRIBE, Resource(ResourceType.TOPIC, tp.topic))]
        error, offsets = self.group_coordinator.handle_fetch_offsets(body.group_id, authorized)
        if error != Errors.NONE:
            self.send_response(request, get_error_response(request, 0, error))
            return
        if partitions is None:
            offsets = {tp: data for tp, data in offsets.items() if self.authorize(
                request.session, Operation.DESCRIBE, Resource(ResourceType.TOPIC, tp[0]))}
        else:
            offsets.update({tp: PartitionData(-1, "", Errors.TOPIC_AUTHORIZATION_FAILED)
                            for tp in partitions if tp not in authorized})
        by_topic: dict[str, list[dict[str, Any]]] = {}
        for topic_partition, data in sorted(offsets.items()):
            by_topic.setdefault(topic_partition[0], []).append(dict(
                partition_index=topic_partition[1], committed_offset=data.offset, committed_leader_epoch=-1,
                metadata=data.metadata, error_code=data.error))
        self.send_response(request, build(self.response_schema(request), throttle_time=0, error_code=Errors.NONE,
                                          topics=[dict(name=n, partitions=p) for n, p in by_topic.items()]))

    def handle_describe_groups_request(self, request: Request) -> None:
        groups = []
        for group_id in request.body.groups:
            if not self.authorize(request.session, Operation.DESCRIBE, Resource(ResourceType.GROUP, group_id)):
                groups.append(dict(error_code=Errors.GROUP_AUTHORIZATION_FAILED, group_id=group_id, group_state="",
                                   protocol_type="", protocol_data="", authorized_operations=-2147483648,
                                   members=[]))
                continue
            error, summary = self.group_coordinator.handle_describe_group(group_id)
            groups.append(dict(error_code=error, group_id=group_id, group_state=summary.state,
                               protocol_type=summary.protocol_type, protocol_data=summary.protocol,
                               authorized_operations=-2147483648, members=[
                                   dict(member_id=m.member_id, group_instance_id=None, client_id=m.client_id,
                                        client_host=m.client_host, member_metadata=m.metadata,
                                        member_assignment=m.assignment) for m in summary.members]))
        self.send_response(request, build(self.response_schema(request), throttle_time=0, groups=groups))

    def handle_list_groups_request(self, request: Request) -> None:
        if not self.authorize(request.session, Operation.DESCRIBE, CLUSTER_RESOURCE):
            self.send_response(request, get_error_response(request, 0, Errors.CLUSTER_AUTHORIZATION_FAILED))
            return
        error, groups = self.group_coordinator.handle_list_groups()
        self.send_response(request, build(self.response_schema(request), throttle_time=0, error_code=error, groups=[
            dict(group_id=g.group_id, protocol_type=g.protocol_type) for g in groups]))

    def handle_delete_groups_request(self, request: Request) -> None:
        groups = set(request.body.groups_names)
        unauthorized = {g for g in groups
                        if not self.authorize(request.session, Operation.DELETE, Resource(ResourceType.GROUP, g))}
        results = {**{g: Errors.GROUP_AUTHORIZATION_FAILED for g in unauthorized},
                   **(self.group_coordinator.handle_delete_groups(groups - unauthorized) if groups - unauthorized
                      else {})}
        self.send_response(request, build(self.response_schema(request), throttle_time=0, results=[
            dict(group_id=g, error_code=e) for g, e in results.items()]))

    def close(self) -> None:
        log.debug("Shutdown complete.")


def get_error_response(request: Request, throttle_time_ms: int, e: BaseException | Errors) -> Any | None:
    """getErrorResponse(throttleTimeMs, e) of 1.0.2's request classes, one `case` per API this broker serves: the
    response that carries the error wherever the API has one, at the request's version. None for a Produce with
    acks=0, which is answered by closing the connection.

    `e` is an exception (Errors.forException maps it; an unexpected one is UNKNOWN_SERVER_ERROR) or an Errors, which
    stands for `Errors.X.exception()`: its message is the error's default one, so no message is sent. An exception's
    own message goes wherever the response has room for one (ApiError.fromThrowable in 1.0.2 keeps it, an unexpected
    exception's too). Versions newer than 1.0.2's (kafka.edu.advertised.api.versions=latest) get the same answer in
    their own layout; DeleteGroups came with Kafka 1.1 and is answered as 1.1 answers it."""
    if isinstance(e, Errors):
        error, message = e, None
    else:
        error, message = Errors.for_exception(e), str(e) or None
    api, version, body = ApiKeys.for_key(request.api_key), request.api_version, request.body
    low, high = SUPPORTED_VERSIONS.get(api, (0, -1))
    if not low <= version <= high:
        # each request class's `default:` branch; the SocketServer parses no other version, so it is never met
        raise IllegalArgumentException(f"Version {version} is not valid. Valid versions for {api.api_name}Request "
                                       f"are {low} to {high}")
    schema = api.response_schema(version)
    t = throttle_time_ms
    match api:
        case ApiKeys.PRODUCE:
            if body.acks == 0:
                return None  # the producer reads no response
            return produce_response(request, {TopicPartition(topic.name, p.index): PartitionResponse(error)
                                              for topic in body.topic_data for p in topic.partition_data}, t)
        case ApiKeys.FETCH:
            # top-level error (v7+) NONE and no fetch session: each partition carries the error
            return FetchResponse([(TopicPartition(topic.topic, p.partition), FetchPartitionData(
                error, INVALID_HIGHWATERMARK, INVALID_LAST_STABLE_OFFSET, INVALID_LOG_START_OFFSET, None, b""))
                for topic in body.topics for p in topic.partitions], t)
        case ApiKeys.LIST_OFFSETS:
            return build(schema, throttle_time=t, topics=[dict(name=topic.name, partitions=[
                dict(partition_index=p.partition_index, error_code=error, timestamp=-1, offset=-1, leader_epoch=-1)
                for p in topic.partitions]) for topic in body.topics])
        case ApiKeys.METADATA:
            # v0's empty list asks for every topic, as a null list does from v1: there is then no topic to name
            return build(schema, throttle_time=t, brokers=[], cluster_id=None, controller_id=-1, topics=[
                dict(error_code=error, name=topic.name, is_internal=False, partitions=[], topic_id=None)
                for topic in body.topics or ()])
        case ApiKeys.LEADER_AND_ISR:
            # the request itself succeeded; each partition failed
            return build(schema, error_code=Errors.NONE, partition_errors=[
                dict(topic_name=p.topic_name, partition_index=p.partition_index, error_code=error)
                for p in body.ungrouped_partition_states])
        case ApiKeys.STOP_REPLICA:
            return build(schema, error_code=Errors.NONE, partition_errors=[
                dict(topic_name=p.topic_name, partition_index=p.partition_index, error_code=error)
                for p in body.ungrouped_partitions])
        case ApiKeys.UPDATE_METADATA:
            return build(schema, error_code=error)
        case ApiKeys.CONTROLLED_SHUTDOWN:
            return build(schema, error_code=error, remaining_partitions=[])
        case ApiKeys.OFFSET_COMMIT | ApiKeys.TXN_OFFSET_COMMIT:
            return build(schema, throttle_time=t, topics=[dict(name=topic.name, partitions=[
                dict(partition_index=p.partition_index, error_code=error) for p in topic.partitions])
                for topic in body.topics])
        case ApiKeys.OFFSET_FETCH:
            if version < 2:  # no top-level error before v2: each partition asked for carries it
                return build(schema, throttle_time=t, topics=[dict(name=topic.name, partitions=[
                    dict(partition_index=p, committed_offset=-1, committed_leader_epoch=-1, metadata="",
                         error_code=error) for p in topic.partition_indexes]) for topic in body.topics])
            return build(schema, throttle_time=t, error_code=error, topics=[])
        case ApiKeys.FIND_COORDINATOR:
            return build(schema, throttle_time=t, error_code=error, error_message=None, node_id=-1, host="", port=-1)
        case ApiKeys.JOIN_GROUP:
            return build(schema, throttle_time=t, error_code=error, generation_id=-1, protocol_name="", leader="",
                         member_id="", members=[])
        case ApiKeys.SYNC_GROUP:
            return build(schema, throttle_time=t, error_code=error, assignment=b"")
        case ApiKeys.HEARTBEAT | ApiKeys.ADD_OFFSETS_TO_TXN | ApiKeys.END_TXN:
            return build(schema, throttle_time=t, error_code=error)
        case ApiKeys.LEAVE_GROUP:
            return build(schema, throttle_time=t, error_code=error, members=[])
        case ApiKeys.DESCRIBE_GROUPS:
            return build(schema, throttle_time=t, groups=[
                dict(error_code=error, group_id=group_id, group_state="", protocol_type="", protocol_data="",
                     authorized_operations=-2147483648, members=[]) for group_id in body.groups])
        case ApiKeys.LIST_GROUPS:
            return build(schema, throttle_time=t, error_code=error, groups=[])
        case ApiKeys.DELETE_GROUPS:
            return build(schema, throttle_time=t, results=[dict(group_id=group_id, error_code=error)
                                                           for group_id in dict.fromkeys(body.groups_names)])
        case ApiKeys.SASL_HANDSHAKE:
            return build(schema, error_code=error, mechanisms=())
        case ApiKeys.SASL_AUTHENTICATE:
            return build(schema, error_code=error, error_message=message, auth_bytes=b"", session_lifetime=0)
        case ApiKeys.API_VERSIONS:
            return build(schema, throttle_time=t, error_code=error, api_keys=[])
        case ApiKeys.CREATE_TOPICS:
            return build(schema, throttle_time=t, topics=[
                dict(name=name, error_code=error, error_message=message, topic_id=None, num_partitions=-1,
                     replication_factor=-1, configs=None) for name in dict.fromkeys(t_.name for t_ in body.topics)])
        case ApiKeys.DELETE_TOPICS:
            return build(schema, throttle_time=t, responses=[dict(name=name, error_code=error, error_message=None)
                                                             for name in dict.fromkeys(body.topic_names)])
        case ApiKeys.CREATE_PARTITIONS:
            return build(schema, throttle_time=t, results=[dict(name=name, error_code=error, error_message=message)
                                                           for name in dict.fromkeys(t_.name for t_ in body.topics)])
        case ApiKeys.DELETE_RECORDS:
            return build(schema, throttle_time=t, topics=[dict(name=topic.name, partitions=[
                dict(partition_index=p.partition_index, low_watermark=INVALID_LOW_WATERMARK, error_code=error)
                for p in topic.partitions]) for topic in body.topics])
        case ApiKeys.INIT_PRODUCER_ID:
            return build(schema, throttle_time=t, error_code=error, producer_id=-1, producer_epoch=0)
        case ApiKeys.ADD_PARTITIONS_TO_TXN:
            return build(schema, throttle_time=t, results_by_topic_v3_and_below=[
                dict(name=topic.name, results_by_partition=[dict(partition_index=p, partition_error_code=error)
                                                            for p in topic.partitions])
                for topic in body.v3_and_below_topics])
        case ApiKeys.WRITE_TXN_MARKERS:
            return build(schema, markers=[dict(producer_id=m.producer_id, topics=[
                dict(name=topic.name, partitions=[dict(partition_index=p, error_code=error)
                                                  for p in topic.partition_indexes]) for topic in m.topics])
                for m in body.markers])
        case ApiKeys.OFFSET_FOR_LEADER_EPOCH:
            return build(schema, topics=[dict(topic=topic.topic, partitions=[
                dict(error_code=error, partition=p.partition, end_offset=-1) for p in topic.partitions])
                for topic in body.topics])
        case ApiKeys.DESCRIBE_ACLS:
            return build(schema, throttle_time=t, error_code=error, error_message=message, resources=[])
        case ApiKeys.CREATE_ACLS:
            return build(schema, throttle_time=t, results=[dict(error_code=error, error_message=message)
                                                           for _ in body.creations])
        case ApiKeys.DELETE_ACLS:
            return build(schema, throttle_time=t, filter_results=[
                dict(error_code=error, error_message=message, matching_acls=[]) for _ in body.filters])
        case ApiKeys.DESCRIBE_CONFIGS:
            return build(schema, throttle_time=t, results=[
                dict(error_code=error, error_message=message, resource_type=r.resource_type,
                     resource_name=r.resource_name, configs=[]) for r in body.resources])
        case ApiKeys.ALTER_CONFIGS:
            return build(schema, throttle_time=t, responses=[
                dict(error_code=error, error_message=message, resource_type=r.resource_type,
                     resource_name=r.resource_name) for r in body.resources])
        case ApiKeys.ALTER_REPLICA_LOG_DIRS:
            return build(schema, throttle_time=t, results=[
                dict(topic_name=topic.name, partitions=[dict(partition_index=p, error_code=error)
                                                        for p in topic.partitions])
                for log_dir in body.dirs for topic in log_dir.topics])
        case ApiKeys.DESCRIBE_LOG_DIRS:
            # no log dirs; the error has a place from v3 on only (before, the response carries none)
            return build(schema, throttle_time=t, error_code=error, results=[])
    raise IllegalArgumentException(f"{api.api_name} is not served by this broker")


def produce_response(request: Request, statuses: dict[TopicPartition, PartitionResponse],
                     throttle_time_ms: int = 0) -> Any:
    """new ProduceResponse(responses, throttleTimeMs) at the request's version."""
    by_topic: dict[str, list[dict[str, Any]]] = {}
    for topic_partition, status in sorted(statuses.items()):
        by_topic.setdefault(topic_partition.topic, []).append(dict(
            index=topic_partition.partition, error_code=status.error, base_offset=status.base_offset,
            log_append_time=None if status.log_append_time < 0 else datetime.datetime.fromtimestamp(
                status.log_append_time / 1000, tz=datetime.UTC),
            log_start_offset=status.log_start_offset, record_errors=[], error_message=None))
    return build(ApiKeys.PRODUCE.response_schema(request.api_version), throttle_time=throttle_time_ms, responses=[
        dict(name=topic, partition_responses=partitions) for topic, partitions in by_topic.items()])


def is_idempotent(body: Any) -> bool:
    """ProduceRequest.isIdempotent: a batch (v2) carries a producer id, at bytes 43-50 of its header."""
    return any(records is not None and len(records) >= RECORD_BATCH_OVERHEAD and records[MAGIC_OFFSET] == 2
               and int.from_bytes(bytes(records[43:51]), "big", signed=True) >= 0
               for records in (p.records for t in body.topic_data for p in t.partition_data))


def millis(value: Any) -> int:
    """kio hands timeouts over as timedeltas; Kafka's handlers work in milliseconds."""
    if isinstance(value, datetime.timedelta):
        return int(value.total_seconds() * 1000)
    return int(value)
