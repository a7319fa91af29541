"""Port of core/src/main/scala/kafka/server/KafkaApis.scala (Kafka 3.9): a KRaft broker's request handlers.

`handle` dispatches each request by its api key as 3.9 does; every handler answers through the RequestHandlerHelper
(request_handler_helper.py, shared with ControllerApis) or hands the request to the
component that answers it later (ReplicaManager for produce and fetch, the group coordinator's futures, the
ForwardingManager for what only the controller can do).

What this port serves, and at which versions: api_version_manager.BROKER_SUPPORTED_VERSIONS. Port notes:
- KRaft only (3.9's RaftSupport): the ZooKeeper-mode handlers (LeaderAndIsr, StopReplica, UpdateMetadata,
  ControlledShutdown, Envelope, v0 OffsetCommit/OffsetFetch in ZooKeeper) raise 3.9's UnsupportedVersionException, as
  3.9 does on a KRaft broker.
- No quotas (QuotaManagers are not ported): every throttle time is 0 and nothing is throttled.
- No authorizer unless one is given (3.9 without `authorizer.class.name`): every action is allowed. One given answers
  Kafka's Authorizer.authorize(context, actions) (controller_apis.AuthHelper); BrokerServer gives the StandardAuthorizer
  when `authorizer.class.name` names it.
- Requests are kio messages; `getErrorResponse`, which 3.9 has on each request class, is `get_error_response` below.
- The group coordinator is 3.9's GroupCoordinator interface in snake_case: each call returns a Future of the
  response data as a dict of kio field names. The transaction coordinator is called with 3.9's method names; one
  without the producerIdAndEpoch argument of handle_init_producer_id (KIP-360, e.g. 1.0.2's) is called without it,
  so an InitProducerId that names the producer's current id and epoch (v3+) is served as a new producer's. The
  producerIdAndEpoch is a (producer id, epoch) tuple (the 3.9 tree has no ProducerIdAndEpoch).
- The request/produce/fetch quotas and the broker topic stats are left out; fetched records are down-converted for
  Fetch v0-v3 at once rather than lazily (LazyDownConversionRecords).
- The transaction coordinator's DescribeTransactions, ListTransactions and verify-only AddPartitionsToTxn results are
  the responses' fields as dicts (kio's names), as the group coordinator's are.
- Not served yet (issue 24): the delegation token APIs, AlterReplicaLogDirs, KIP-848/932 group and telemetry APIs:
  `handle` answers them as 3.9 answers an API its listener does not enable.
"""

from __future__ import annotations

import dataclasses
import datetime
import logging
import threading
import traceback
import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import Future
from typing import Any

from kio.schema.offset_fetch.v9.request import OffsetFetchRequestGroup, OffsetFetchRequestTopics
from kio.serial._introspect import EntityTupleField, PrimitiveField, PrimitiveTupleField, classify_field

from kafka_edu.tracing import step
from kafka_edu.v1_0_2.clients.common.errors import (
    ApiException,
    IllegalStateException,
    InvalidRequestException,
    InvalidTopicException,
    KafkaStorageException,
    NotLeaderForPartitionException,
    UnknownTopicOrPartitionException,
    UnsupportedCompressionTypeException,
    UnsupportedForMessageFormatException,
    UnsupportedVersionException,
)
from kafka_edu.v1_0_2.clients.common.requests.isolation_level import IsolationLevel
from kafka_edu.v1_0_2.clients.common.requests.transaction_result import TransactionResult
from kafka_edu.v3_9.clients.common.errors.fenced_leader_epoch_exception import FencedLeaderEpochException
from kafka_edu.v3_9.clients.common.errors.not_leader_or_follower_exception import NotLeaderOrFollowerException
from kafka_edu.v3_9.clients.common.errors.offset_not_available_exception import OffsetNotAvailableException
from kafka_edu.v3_9.clients.common.errors.unknown_leader_epoch_exception import UnknownLeaderEpochException
from kafka_edu.v3_9.clients.common.internals import topic as Topic
from kafka_edu.v3_9.clients.common.invalid_record_exception import InvalidRecordException
from kafka_edu.v3_9.clients.common.protocol.api_keys import ApiKeys
from kafka_edu.v3_9.clients.common.protocol.builder import build, values
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from kafka_edu.v3_9.clients.common.protocol.send_builder import RecordsField
from kafka_edu.v3_9.clients.common.record.compression_type import CompressionType
from kafka_edu.v3_9.clients.common.record.control_record_utils import ControlRecordType
from kafka_edu.v3_9.clients.common.record.end_transaction_marker import EndTransactionMarker
from kafka_edu.v3_9.clients.common.record.memory_records import MemoryRecords
from kafka_edu.v3_9.clients.common.record.record_batch import MAGIC_VALUE_V0, MAGIC_VALUE_V1, MAGIC_VALUE_V2
from kafka_edu.v3_9.clients.common.replica.client_metadata import DefaultClientMetadata
from kafka_edu.v3_9.clients.common.requests.add_partitions_to_txn_response import result_for_transaction
from kafka_edu.v3_9.clients.common.requests.api_error import ApiError
from kafka_edu.v3_9.clients.common.requests.fetch_request import FetchRequest
from kafka_edu.v3_9.clients.common.requests.fetch_response import (
    INVALID_LAST_STABLE_OFFSET,
    INVALID_PREFERRED_REPLICA_ID,
    FetchResponse,
    LeaderIdAndEpoch,
    NodeEndpoint,
    PartitionData,
    partition_data,
)
from kafka_edu.v3_9.clients.common.requests.produce_response import PartitionResponse
from kafka_edu.v3_9.clients.common.topic_id_partition import TopicIdPartition
from kafka_edu.v3_9.clients.common.topic_partition import TopicPartition
from kafka_edu.v3_9.clients.common.utils.time import SYSTEM, Time
from kafka_edu.v3_9.core.network.request_channel import Request, RequestChannel
from kafka_edu.v3_9.core.server import config_admin_manager
from kafka_edu.v3_9.core.server.acl_apis import AclApis
from kafka_edu.v3_9.core.server.api_version_manager import ApiVersionManager
from kafka_edu.v3_9.core.server.config_helper import ConfigHelper
from kafka_edu.v3_9.core.server.controller_apis import Action, AuthHelper, AuthorizationResult
from kafka_edu.v3_9.core.server.fetch_session import FetchManager
from kafka_edu.v3_9.core.server.forwarding_manager import ForwardingManagerImpl
from kafka_edu.v3_9.core.server.handlers.describe_topic_partitions_request_handler import (
    DescribeTopicPartitionsRequestHandler,
)
from kafka_edu.v3_9.core.server.kafka_config import GroupType
from kafka_edu.v3_9.core.server.remote_leader_end_point import error_exception
from kafka_edu.v3_9.core.server.replica_manager import NO_NODE
from kafka_edu.v3_9.core.server.request_handler_helper import RequestHandlerHelper
from kafka_edu.v3_9.group_coordinator.coordinator.group.group_coordinator_service import (
    consumer_group_describe_described_group,
    consumer_group_heartbeat_response_data,
)
from kafka_edu.v3_9.server_common.server.common.metadata_version import MetadataVersion
from kafka_edu.v3_9.server_common.server.util.shutdownable_thread import FatalExitError
from kafka_edu.v3_9.storage.storage.internals.log.fetch_isolation import FetchIsolation
from kafka_edu.v3_9.storage.storage.internals.log.fetch_params import FetchParams

log = logging.getLogger("kafka.server.KafkaApis")

ZERO_UUID = uuid.UUID(int=0)
CLUSTER_NAME = "kafka-cluster"  # Resource.CLUSTER_NAME
ADMIN_CLIENT_ID = "__admin_client"  # AdminUtils.ADMIN_CLIENT_ID
INT_MIN = -2147483648  # the schemas' default for "authorized operations not asked for"
NO_PRODUCER_ID = -1
NO_PRODUCER_EPOCH = -1
NO_PARTITION_LEADER_EPOCH = -1
UNKNOWN_TIMESTAMP = -1  # ListOffsetsResponse.UNKNOWN_TIMESTAMP
UNKNOWN_OFFSET = -1  # ListOffsetsResponse.UNKNOWN_OFFSET
UNKNOWN_EPOCH = -1  # ListOffsetsResponse.UNKNOWN_EPOCH
INVALID_LOW_WATERMARK = -1  # DeleteRecordsResponse.INVALID_LOW_WATERMARK
NO_LEADER_ID = -1  # MetadataResponse.NO_LEADER_ID
NO_CONTROLLER_ID = -1  # MetadataResponse.NO_CONTROLLER_ID
BROKER_ENDPOINT_TYPE = 1  # DescribeClusterRequest's EndpointType.BROKER
_ENDPOINT_TYPES = {1: "BROKER", 2: "CONTROLLER"}  # EndpointType, UNKNOWN (0) aside

# ListOffsetsRequest's special timestamps and replica ids
EARLIEST_TIMESTAMP = -2
LATEST_TIMESTAMP = -1
MAX_TIMESTAMP = -3
EARLIEST_LOCAL_TIMESTAMP = -4
LATEST_TIERED_TIMESTAMP = -5
CONSUMER_REPLICA_ID = -1
DEBUGGING_REPLICA_ID = -2

# FindCoordinatorRequest.CoordinatorType
GROUP_COORDINATOR, TRANSACTION_COORDINATOR, SHARE_COORDINATOR = 0, 1, 2

# AclOperation codes, for the authorized-operations bit fields (Utils.to32BitField)
_ACL_OPERATION_CODES = {"READ": 3, "WRITE": 4, "CREATE": 5, "DELETE": 6, "ALTER": 7, "DESCRIBE": 8,
                        "CLUSTER_ACTION": 9, "DESCRIBE_CONFIGS": 10, "ALTER_CONFIGS": 11, "IDEMPOTENT_WRITE": 12,
                        "CREATE_TOKENS": 13, "DESCRIBE_TOKENS": 14}
# AclEntry.supportedOperations(resourceType)
_SUPPORTED_OPERATIONS = {
    "TOPIC": ("READ", "WRITE", "CREATE", "DESCRIBE", "DELETE", "ALTER", "DESCRIBE_CONFIGS", "ALTER_CONFIGS"),
    "GROUP": ("READ", "DESCRIBE", "DELETE"),
    "CLUSTER": ("CREATE", "CLUSTER_ACTION", "DESCRIBE_CONFIGS", "ALTER_CONFIGS", "IDEMPOTENT_WRITE", "ALTER",
                "DESCRIBE"),
}


# -- CompletableFuture's handle / exceptionally over concurrent.futures ----------------------------------------------

def _completed_future(value: Any = None) -> Future[Any]:
    future: Future[Any] = Future()
    future.set_result(value)
    return future


def _handle(future: Future[Any], fn: Callable[[Any, BaseException | None], Any]) -> Future[Any]:
    """CompletableFuture.handle: `fn(result, exception)` once `future` completes; its outcome is the new future's."""
    handled: Future[Any] = Future()

    def done(f: Future[Any]) -> None:
        exception = f.exception()
        try:
            value = fn(None if exception is not None else f.result(), exception)
        except BaseException as e:  # noqa: BLE001 - the future carries it, as CompletableFuture does
            handled.set_exception(e)
        else:
            handled.set_result(value)

    future.add_done_callback(done)
    return handled


def _exceptionally(future: Future[Any], fn: Callable[[BaseException], None]) -> None:
    future.add_done_callback(lambda f: fn(f.exception()) if f.exception() is not None else None)


def _all_of(futures: Sequence[Future[Any]]) -> Future[Any]:
    """CompletableFuture.allOf: completes once every future has (their outcomes are read from them)."""
    combined: Future[Any] = Future()
    remaining = [len(futures)]
    lock = threading.Lock()
    if not futures:
        combined.set_result(None)
        return combined

    def done(_: Future[Any]) -> None:
        with lock:
            remaining[0] -= 1
            last = remaining[0] == 0
        if last:
            combined.set_result(None)

    for future in futures:
        future.add_done_callback(done)
    return combined


def _is_api_enabled(api_version_manager: ApiVersionManager, api_key: ApiKeys, api_version: int) -> bool:
    """ApiVersionManager.isApiEnabled with ApiKeys.isVersionEnabled's exception: ApiVersions of any version is taken,
    a version this broker does not know is answered at v0 (KIP-511)."""
    if api_key is ApiKeys.API_VERSIONS and api_key in api_version_manager.enabled_apis:
        return True
    return api_version_manager.is_api_enabled(api_key, api_version)


# -- KafkaApis ---------------------------------------------------------------------------------------------------------

class KafkaApis:
    """The request handlers of a KRaft broker."""

    def __init__(self, request_channel: RequestChannel, forwarding_manager: ForwardingManagerImpl | None,
                 replica_manager: Any, group_coordinator: Any, txn_coordinator: Any,
                 auto_topic_creation_manager: Any, broker_id: int, config: Any, metadata_cache: Any,
                 authorizer: Any | None, fetch_manager: FetchManager, cluster_id: str,
                 api_version_manager: ApiVersionManager, time: Time = SYSTEM, quotas: Any = None,
                 config_repository: Any = None) -> None:
        self.request_channel = request_channel
        # 3.9's metadataSupport: RaftSupport(forwardingManager, metadataCache)
        self.forwarding_manager = forwarding_manager
        self.replica_manager = replica_manager
        self.group_coordinator = group_coordinator
        self.txn_coordinator = txn_coordinator
        self.auto_topic_creation_manager = auto_topic_creation_manager
        self.broker_id = broker_id
        self.config = config
        self.config_repository = config_repository if config_repository is not None else metadata_cache
        self.metadata_cache = metadata_cache
        self.config_helper = ConfigHelper(metadata_cache, config, self.config_repository)
        self.config_manager = config_admin_manager.ConfigAdminManager(broker_id, config, self.config_repository)
        self.authorizer = authorizer
        self.quotas = quotas
        self.fetch_manager = fetch_manager
        self.cluster_id = cluster_id
        self.time = time
        self.api_version_manager = api_version_manager
        self.log_ident = f"[KafkaApi-{broker_id}] "
        self.auth_helper = AuthHelper(authorizer)
        self.request_helper = RequestHandlerHelper(request_channel, quotas, time)
        self.acl_apis = AclApis(self.auth_helper, authorizer, self.request_helper, "broker", config)
        self.describe_topic_partitions_request_handler: DescribeTopicPartitionsRequestHandler | None = (
            DescribeTopicPartitionsRequestHandler(metadata_cache, config)
            if hasattr(metadata_cache, "describe_topic_response") else None)

    def close(self) -> None:
        self.acl_apis.close()
        log.info("%sShutdown complete.", self.log_ident)

    def _is_forwarding_enabled(self, request: Request) -> bool:
        return self.forwarding_manager is not None and request.context.principal_serde is not None

    def _maybe_forward_to_controller(self, request: Request, handler: Callable[[Request], None]) -> None:
        def response_callback(response: Any | None, error: Errors) -> None:
            if response is not None:
                self.request_helper.send_forwarded_response(request, response)
            elif error == Errors.UNSUPPORTED_VERSION:
                self._handle_invalid_versions_during_forwarding(request)
            else:
                # 3.9's ForwardingManager answers with the request's error response for this error
                self.request_helper.send_forwarded_response(
                    request, get_error_response(request, 0, error_exception(error)))

        # RaftSupport.maybeForward: a request that was itself forwarded is handled here (and refused)
        if not request.is_forwarded():
            self.forwarding_manager.forward_request(request, response_callback)
        else:
            handler(request)

    def _handle_invalid_versions_during_forwarding(self, request: Request) -> None:
        log.info("%sThe client connection will be closed due to controller responded unsupported version exception "
                 "during %s forwarding. This could happen when the controller changed after the connection was "
                 "established.", self.log_ident, request)
        self.request_channel.close_connection(request, {})

    def _forward_to_controller_or_fail(self, request: Request) -> None:
        def error_handler(request: Request) -> None:
            raise IllegalStateException(f"Unable to forward {request} to the controller")

        self._maybe_forward_to_controller(request, error_handler)

    @step("NW.apis.1")
    def handle(self, request: Request, request_local: Any = None) -> None:
        """The top-level method: multiplexes each request to its handler."""
        def handle_error(e: BaseException) -> None:
            log.error("%sUnexpected error handling request %s with context %s", self.log_ident,
                      request.request_desc(True), request.context, exc_info=e)
            self.request_helper.handle_error(request, e)

        try:
            if log.isEnabledFor(logging.DEBUG):  # 3.9's trace
                log.debug("%sHandling request:%s from connection %s;securityProtocol:%s,principal:%s",
                          self.log_ident, request.request_desc(True), request.context.connection_id,
                          request.context.security_protocol.name, request.context.principal)
            api_key = request.header.api_key
            if not _is_api_enabled(self.api_version_manager, api_key, request.header.api_version):
                # the socket server refuses these before they come here: not a path taken in practice
                raise IllegalStateException(f"API {api_key.name} with version {request.header.api_version} is not "
                                            "enabled")
            match api_key:
                case ApiKeys.PRODUCE:
                    self.handle_produce_request(request, request_local)
                case ApiKeys.FETCH:
                    self.handle_fetch_request(request)
                case ApiKeys.LIST_OFFSETS:
                    self.handle_list_offset_request(request)
                case ApiKeys.METADATA:
                    self.handle_topic_metadata_request(request)
                case ApiKeys.LEADER_AND_ISR:
                    self.handle_leader_and_isr_request(request)
                case ApiKeys.STOP_REPLICA:
                    self.handle_stop_replica_request(request)
                case ApiKeys.UPDATE_METADATA:
                    self.handle_update_metadata_request(request, request_local)
                case ApiKeys.CONTROLLED_SHUTDOWN:
                    self.handle_controlled_shutdown_request(request)
                case ApiKeys.OFFSET_COMMIT:
                    _exceptionally(self.handle_offset_commit_request(request, request_local), handle_error)
                case ApiKeys.OFFSET_FETCH:
                    _exceptionally(self.handle_offset_fetch_request(request), handle_error)
                case ApiKeys.FIND_COORDINATOR:
                    self.handle_find_coordinator_request(request)
                case ApiKeys.JOIN_GROUP:
                    _exceptionally(self.handle_join_group_request(request, request_local), handle_error)
                case ApiKeys.HEARTBEAT:
                    _exceptionally(self.handle_heartbeat_request(request), handle_error)
                case ApiKeys.LEAVE_GROUP:
                    _exceptionally(self.handle_leave_group_request(request), handle_error)
                case ApiKeys.SYNC_GROUP:
                    _exceptionally(self.handle_sync_group_request(request, request_local), handle_error)
                case ApiKeys.DESCRIBE_GROUPS:
                    _exceptionally(self.handle_describe_groups_request(request), handle_error)
                case ApiKeys.LIST_GROUPS:
                    _exceptionally(self.handle_list_groups_request(request), handle_error)
                case ApiKeys.SASL_HANDSHAKE:
                    self.handle_sasl_handshake_request(request)
                case ApiKeys.API_VERSIONS:
                    self.handle_api_versions_request(request)
                case ApiKeys.CREATE_TOPICS:
                    self._maybe_forward_to_controller(request, self.handle_create_topics_request)
                case ApiKeys.DELETE_TOPICS:
                    self._maybe_forward_to_controller(request, self.handle_delete_topics_request)
                case ApiKeys.DELETE_RECORDS:
                    self.handle_delete_records_request(request)
                case ApiKeys.INIT_PRODUCER_ID:
                    self.handle_init_producer_id_request(request, request_local)
                case ApiKeys.OFFSET_FOR_LEADER_EPOCH:
                    self.handle_offset_for_leader_epoch_request(request)
                case ApiKeys.ADD_PARTITIONS_TO_TXN:
                    self.handle_add_partitions_to_txn_request(request, request_local)
                case ApiKeys.ADD_OFFSETS_TO_TXN:
                    self.handle_add_offsets_to_txn_request(request, request_local)
                case ApiKeys.END_TXN:
                    self.handle_end_txn_request(request, request_local)
                case ApiKeys.WRITE_TXN_MARKERS:
                    self.handle_write_txn_markers_request(request, request_local)
                case ApiKeys.TXN_OFFSET_COMMIT:
                    _exceptionally(self.handle_txn_offset_commit_request(request, request_local), handle_error)
                case ApiKeys.DESCRIBE_ACLS:
                    self.handle_describe_acls(request)
                case ApiKeys.CREATE_ACLS:
                    self._maybe_forward_to_controller(request, self.handle_create_acls)
                case ApiKeys.DELETE_ACLS:
                    self._maybe_forward_to_controller(request, self.handle_delete_acls)
                case ApiKeys.DESCRIBE_CONFIGS:
                    self.handle_describe_configs_request(request)
                case ApiKeys.ALTER_CONFIGS:
                    self.handle_alter_configs_request(request)
                case ApiKeys.INCREMENTAL_ALTER_CONFIGS:
                    self.handle_incremental_alter_configs_request(request)
                case ApiKeys.DESCRIBE_CLIENT_QUOTAS:
                    self.handle_describe_client_quotas_request(request)
                case ApiKeys.ALTER_CLIENT_QUOTAS:
                    self._maybe_forward_to_controller(request, self.handle_alter_client_quotas_request)
                case ApiKeys.DESCRIBE_USER_SCRAM_CREDENTIALS:
                    self.handle_describe_user_scram_credentials_request(request)
                case ApiKeys.ALTER_USER_SCRAM_CREDENTIALS:
                    self._maybe_forward_to_controller(request, self.handle_alter_user_scram_credentials_request)
                case ApiKeys.UPDATE_FEATURES:
                    self._maybe_forward_to_controller(request, self.handle_update_features)
                case ApiKeys.ALTER_REPLICA_LOG_DIRS:
                    self.handle_alter_replica_log_dirs_request(request)
                case ApiKeys.DESCRIBE_LOG_DIRS:
                    self.handle_describe_log_dirs_request(request)
                case ApiKeys.SASL_AUTHENTICATE:
                    self.handle_sasl_authenticate_request(request)
                case ApiKeys.CREATE_PARTITIONS:
                    self._maybe_forward_to_controller(request, self.handle_create_partitions_request)
                case ApiKeys.ELECT_LEADERS:
                    self._maybe_forward_to_controller(request, self.handle_elect_leaders)
                case ApiKeys.ALTER_PARTITION_REASSIGNMENTS:
                    self._maybe_forward_to_controller(request, self.handle_alter_partition_reassignments_request)
                case ApiKeys.LIST_PARTITION_REASSIGNMENTS:
                    self._maybe_forward_to_controller(request, self.handle_list_partition_reassignments_request)
                case ApiKeys.OFFSET_DELETE:
                    _exceptionally(self.handle_offset_delete_request(request, request_local), handle_error)
                case ApiKeys.DESCRIBE_PRODUCERS:
                    self.handle_describe_producers_request(request)
                case ApiKeys.DELETE_GROUPS:
                    _exceptionally(self.handle_delete_groups_request(request, request_local), handle_error)
                case ApiKeys.ALTER_PARTITION:
                    self.handle_alter_partition_request(request)
                case ApiKeys.ENVELOPE:
                    self.handle_envelope(request, request_local)
                case ApiKeys.DESCRIBE_CLUSTER:
                    self.handle_describe_cluster(request)
                case ApiKeys.UNREGISTER_BROKER | ApiKeys.DESCRIBE_QUORUM | ApiKeys.ADD_RAFT_VOTER \
                        | ApiKeys.REMOVE_RAFT_VOTER:
                    self._forward_to_controller_or_fail(request)
                case ApiKeys.DESCRIBE_TRANSACTIONS:
                    self.handle_describe_transactions_request(request)
                case ApiKeys.LIST_TRANSACTIONS:
                    self.handle_list_transactions_request(request)
                case ApiKeys.DESCRIBE_TOPIC_PARTITIONS:
                    self.handle_describe_topic_partitions_request(request)
                case ApiKeys.CONSUMER_GROUP_HEARTBEAT:
                    _exceptionally(self.handle_consumer_group_heartbeat(request), handle_error)
                case ApiKeys.CONSUMER_GROUP_DESCRIBE:
                    _exceptionally(self.handle_consumer_group_describe(request), handle_error)
                case _:
                    raise IllegalStateException(f"No handler for request api key {api_key.name}")
        except FatalExitError:
            raise
        except Exception as e:
            # what the failed handler built (a MemoryError's) is freed before the answer
            traceback.clear_frames(e.__traceback__)
            handle_error(e)
        finally:
            # Delayed operations completed by this request's appends run here, outside the locks the request held.
            self.replica_manager.try_complete_actions()
            # the local completion time may have been set while handling the request: only set it if unset
            if request.api_local_complete_time_nanos < 0:
                request.api_local_complete_time_nanos = self.time.nanoseconds()

    def try_complete_actions(self) -> None:
        self.replica_manager.try_complete_actions()

    def handle_leader_and_isr_request(self, request: Request) -> None:
        raise should_never_receive(request)

    def handle_stop_replica_request(self, request: Request) -> None:
        raise should_never_receive(request)

    def handle_update_metadata_request(self, request: Request, request_local: Any = None) -> None:
        raise should_never_receive(request)

    def handle_controlled_shutdown_request(self, request: Request) -> None:
        raise should_never_receive(request)

    # -- OffsetCommit ------------------------------------------------------------------------------------------------

    def handle_offset_commit_request(self, request: Request, request_local: Any = None) -> Future[Any]:
        offset_commit_request = request.body()
        if not self.auth_helper.authorize(request.context, "READ", "GROUP", offset_commit_request.group_id):
            self.request_helper.send_maybe_throttle(request, get_error_response(
                request, 0, error_exception(Errors.GROUP_AUTHORIZATION_FAILED)))
            return _completed_future()
        if (getattr(offset_commit_request, "group_instance_id", None) is not None
                and self.metadata_cache.metadata_version().is_less_than(MetadataVersion.IBP_2_3_IV0)):
            # static membership only once every broker knows it (IBP 2.3), or a member may turn "dynamic"
            self.request_helper.send_maybe_throttle(request, get_error_response(
                request, 0, error_exception(Errors.UNSUPPORTED_VERSION)))
            return _completed_future()
        authorized_topics = self.auth_helper.filter_by_authorized(
            request.context, "READ", "TOPIC", [t.name for t in offset_commit_request.topics])
        response_builder = _OffsetCommitResponseBuilder()
        authorized_topics_request: list[Any] = []
        for topic in offset_commit_request.topics:
            if topic.name not in authorized_topics:
                response_builder.add_partitions(topic.name, topic.partitions, Errors.TOPIC_AUTHORIZATION_FAILED)
            elif not self.metadata_cache.contains(topic.name):
                response_builder.add_partitions(topic.name, topic.partitions, Errors.UNKNOWN_TOPIC_OR_PARTITION)
            else:
                valid_partitions = []
                for partition in topic.partitions:
                    if self.metadata_cache.get_partition_info(topic.name, partition.partition_index) is not None:
                        valid_partitions.append(partition)
                    else:
                        response_builder.add_partition(topic.name, partition.partition_index,
                                                       Errors.UNKNOWN_TOPIC_OR_PARTITION)
                if valid_partitions:
                    authorized_topics_request.append(dataclasses.replace(topic, partitions=tuple(valid_partitions)))
        if not authorized_topics_request:
            self.request_helper.send_maybe_throttle(request, response_builder.build(request))
            return _completed_future()
        if request.header.api_version == 0:
            return self._commit_offsets_to_zookeeper(request, offset_commit_request, authorized_topics_request,
                                                     response_builder)
        return self._commit_offsets_to_coordinator(request, offset_commit_request, authorized_topics_request,
                                                   response_builder, request_local)

    def _commit_offsets_to_zookeeper(self, request: Request, offset_commit_request: Any,
                                     authorized_topics_request: list[Any],
                                     response_builder: _OffsetCommitResponseBuilder) -> Future[Any]:
        # v0 commits go to ZooKeeper: a KRaft broker has none
        raise unsupported("Version 0 offset commit requests")

    def _commit_offsets_to_coordinator(self, request: Request, offset_commit_request: Any,
                                       authorized_topics_request: list[Any],
                                       response_builder: _OffsetCommitResponseBuilder,
                                       request_local: Any) -> Future[Any]:
        offset_commit_request_data = dataclasses.replace(offset_commit_request,
                                                         topics=tuple(authorized_topics_request))

        def handle(results: Any, exception: BaseException | None) -> None:
            if exception is not None:
                self.request_helper.send_maybe_throttle(request, get_error_response(request, 0, exception))
            else:
                self.request_helper.send_maybe_throttle(request, response_builder.merge(results).build(request))

        return _handle(self.group_coordinator.commit_offsets(request.context, offset_commit_request_data,
                                                             _buffer_supplier(request_local)), handle)

    def _get_current_leader(self, tp: TopicPartition, listener_name: str) -> tuple[int, int, Any | None]:
        """LeaderNode(leaderId, leaderEpoch, node): from the local partition, else from the metadata cache."""
        partition_info_or_error = self.replica_manager.get_partition_or_error(tp)
        if not isinstance(partition_info_or_error, Errors):
            leader_id = partition_info_or_error.leader_replica_id_opt
            leader_id, leader_epoch = (-1 if leader_id is None else leader_id,
                                       partition_info_or_error.get_leader_epoch())
        else:
            log.debug("%sUnable to retrieve local leaderId and Epoch with error %s, falling back to metadata cache",
                      self.log_ident, partition_info_or_error)
            pinfo = self.metadata_cache.get_partition_info(tp.topic, tp.partition)
            leader_id, leader_epoch = (pinfo.leader, pinfo.leader_epoch) if pinfo is not None else (-1, -1)
        return leader_id, leader_epoch, self.metadata_cache.get_alive_broker_node(leader_id, listener_name)

    # -- Produce -----------------------------------------------------------------------------------------------------

    @step("RQ.produce.1")
    def handle_produce_request(self, request: Request, request_local: Any = None) -> None:
        produce_request = request.body()
        version = request.header.api_version
        transactional_id = getattr(produce_request, "transactional_id", None)  # from v3

        if _has_transactional_records(produce_request):
            is_authorized_transactional = (transactional_id is not None
                                           and self.auth_helper.authorize(request.context, "WRITE", "TRANSACTIONAL_ID",
                                                                          transactional_id))
            if not is_authorized_transactional:
                self.request_helper.send_error_response_maybe_throttle(
                    request, error_exception(Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED))
                return

        unauthorized_topic_responses: dict[TopicPartition, PartitionResponse] = {}
        non_existing_topic_responses: dict[TopicPartition, PartitionResponse] = {}
        invalid_request_responses: dict[TopicPartition, PartitionResponse] = {}
        authorized_request_info: dict[TopicPartition, MemoryRecords] = {}
        # one authorization per topic, however many partitions
        authorized_topics = self.auth_helper.filter_by_authorized(
            request.context, "WRITE", "TOPIC", [t.name for t in produce_request.topic_data])

        for topic in produce_request.topic_data:
            for partition in topic.partition_data:
                topic_partition = TopicPartition(topic.name, partition.index)
                if topic_partition.topic not in authorized_topics:
                    unauthorized_topic_responses[topic_partition] = PartitionResponse(
                        Errors.TOPIC_AUTHORIZATION_FAILED)
                elif not self.metadata_cache.contains(topic_partition):
                    non_existing_topic_responses[topic_partition] = PartitionResponse(
                        Errors.UNKNOWN_TOPIC_OR_PARTITION)
                else:
                    try:
                        memory_records = _memory_records(partition.records)
                        validate_records(version, memory_records)
                        authorized_request_info[topic_partition] = memory_records
                    except ApiException as e:
                        invalid_request_responses[topic_partition] = PartitionResponse(Errors.for_exception(e))

        def send_response_callback(response_status: Mapping[TopicPartition, PartitionResponse]) -> None:
            merged_response_status = {**response_status, **unauthorized_topic_responses,
                                      **non_existing_topic_responses, **invalid_request_responses}
            error_in_response = False
            node_endpoints: dict[int, Any] = {}
            current_leaders: dict[TopicPartition, tuple[int, int]] = {}
            for topic_partition, status in merged_response_status.items():
                if status.error != Errors.NONE:
                    error_in_response = True
                    log.debug("%sProduce request with correlation id %d from client %s on partition %s failed due "
                              "to %s", self.log_ident, request.header.correlation_id, request.header.client_id,
                              topic_partition, status.error.exception_name)
                    if version >= 10 and status.error == Errors.NOT_LEADER_OR_FOLLOWER:
                        leader_id, leader_epoch, node = self._get_current_leader(
                            topic_partition, request.context.listener_name.value())
                        if node is not None:
                            node_endpoints[node.id] = node
                        current_leaders[topic_partition] = (leader_id, leader_epoch)

            # (the produce and request quotas are not ported: nothing to record, no throttling)
            if produce_request.acks == 0:
                # The producer reads no response: an error can only be signalled by closing the connection, which
                # makes it refresh its metadata.
                if error_in_response:
                    exceptions_summary = ", ".join(f"{tp} -> {status.error.exception_name}"
                                                   for tp, status in merged_response_status.items())
                    log.info("%sClosing connection due to error during produce request with correlation id %d from "
                             "client id %s with ack=0\nTopic and partition to exceptions: %s", self.log_ident,
                             request.header.correlation_id, request.header.client_id, exceptions_summary)
                    self.request_channel.close_connection(request, _error_counts(
                        s.error for s in merged_response_status.values()))
                else:
                    self.request_helper.send_no_op_response_exempt_throttle(request)
            else:
                self.request_channel.send_response(request, produce_response(
                    version, merged_response_status, 0, list(node_endpoints.values()), current_leaders))

        if not authorized_request_info:
            send_response_callback({})
        else:
            internal_topics_allowed = request.header.client_id == ADMIN_CLIENT_ID
            transaction_supported_operation = "genericError" if version > 10 else "defaultError"
            self.replica_manager.handle_produce_append(
                timeout=_millis(produce_request.timeout), required_acks=produce_request.acks,
                internal_topics_allowed=internal_topics_allowed,
                transactional_id=transactional_id,
                entries_per_partition=authorized_request_info, response_callback=send_response_callback,
                record_validation_stats_callback=lambda stats: None, request_local=request_local,
                transaction_supported_operation=transaction_supported_operation)

    # -- Fetch -------------------------------------------------------------------------------------------------------

    @step("RQ.fetch.1")
    def handle_fetch_request(self, request: Request) -> None:
        version_id = request.header.api_version
        client_id = request.header.client_id
        fetch_request = FetchRequest.from_kio(request.body())
        topic_names = self.metadata_cache.topic_ids_to_names() if fetch_request.version >= 13 else {}

        fetch_data = fetch_request.fetch_data(topic_names)
        forgotten_topics = fetch_request.forgotten_topics(topic_names)

        fetch_context = self.fetch_manager.new_context(fetch_request.version, fetch_request.metadata(),
                                                       fetch_request.is_from_follower(), fetch_data,
                                                       forgotten_topics, topic_names)

        erroneous: list[tuple[TopicIdPartition, PartitionData]] = []
        interesting: list[tuple[TopicIdPartition, Any]] = []
        if fetch_request.is_from_follower():
            # a follower must be allowed ClusterAction on the cluster to fetch
            if self.auth_helper.authorize(request.context, "CLUSTER_ACTION", "CLUSTER", CLUSTER_NAME):
                def follower_partition(topic_id_partition: TopicIdPartition, data: Any) -> None:
                    if topic_id_partition.topic is None:
                        erroneous.append((topic_id_partition, FetchResponse.partition_response(
                            topic_id_partition, Errors.UNKNOWN_TOPIC_ID)))
                    elif not self.metadata_cache.contains(topic_id_partition.topic_partition):
                        erroneous.append((topic_id_partition, FetchResponse.partition_response(
                            topic_id_partition, Errors.UNKNOWN_TOPIC_OR_PARTITION)))
                    else:
                        interesting.append((topic_id_partition, data))

                fetch_context.foreach_partition(follower_partition)
            else:
                fetch_context.foreach_partition(lambda tip, _: erroneous.append(
                    (tip, FetchResponse.partition_response(tip, Errors.TOPIC_AUTHORIZATION_FAILED))))
        else:
            # a consumer needs Read on each topic it fetches from
            partition_datas: list[tuple[TopicIdPartition, Any]] = []

            def consumer_partition(topic_id_partition: TopicIdPartition, data: Any) -> None:
                if topic_id_partition.topic is None:
                    erroneous.append((topic_id_partition, FetchResponse.partition_response(
                        topic_id_partition, Errors.UNKNOWN_TOPIC_ID)))
                else:
                    partition_datas.append((topic_id_partition, data))

            fetch_context.foreach_partition(consumer_partition)
            authorized_topics = self.auth_helper.filter_by_authorized(
                request.context, "READ", "TOPIC", [tip.topic_partition.topic for tip, _ in partition_datas])
            for topic_id_partition, data in partition_datas:
                if topic_id_partition.topic not in authorized_topics:
                    erroneous.append((topic_id_partition, FetchResponse.partition_response(
                        topic_id_partition, Errors.TOPIC_AUTHORIZATION_FAILED)))
                elif not self.metadata_cache.contains(topic_id_partition.topic_partition):
                    erroneous.append((topic_id_partition, FetchResponse.partition_response(
                        topic_id_partition, Errors.UNKNOWN_TOPIC_OR_PARTITION)))
                else:
                    interesting.append((topic_id_partition, data))

        def maybe_down_convert_storage_error(error: Errors) -> Errors:
            # a consumer of v5 or earlier may not know KAFKA_STORAGE_ERROR: NOT_LEADER_OR_FOLLOWER makes it retry
            if error == Errors.KAFKA_STORAGE_ERROR and version_id <= 5:
                return Errors.NOT_LEADER_OR_FOLLOWER
            return error

        def maybe_convert_fetched_data(tp: TopicIdPartition, data: PartitionData) -> PartitionData:
            # no log config for an unresolved topic (no name): it has no records to convert either
            log_config = self.replica_manager.get_log_config(tp.topic_partition)
            if log_config is not None and _is_zstd(log_config) and version_id < 10:
                log.debug("%sFetching messages is disabled for ZStandard compressed partition %s. Sending "
                          "unsupported version response to %s.", self.log_ident, tp, client_id)
                return FetchResponse.partition_response(tp, Errors.UNSUPPORTED_COMPRESSION_TYPE)
            # A fetch of v3 or older reads message formats v0/v1 only: the on-disk v2 batches are converted down
            # (from IBP 3.0 the log always writes v2, so the conversion is always needed there).
            unconverted_records = FetchResponse.records_or_fail(data)
            down_convert_magic = None
            if log_config is not None:
                magic = _record_version_of(log_config)
                if magic > MAGIC_VALUE_V0 and version_id <= 1:
                    down_convert_magic = MAGIC_VALUE_V0
                elif magic > MAGIC_VALUE_V1 and version_id <= 3:
                    down_convert_magic = MAGIC_VALUE_V1
            error = maybe_down_convert_storage_error(Errors.for_code(int(data.error_code)))
            if down_convert_magic is None:
                return dataclasses.replace(data, partition_index=tp.partition, error_code=error)
            # a consumer may be refused the conversion by the topic's config
            if not fetch_request.is_from_follower() and not log_config.message_down_conversion_enable:
                log.debug("%sConversion to message format %d is disabled for partition %s. Sending unsupported "
                          "version response to %s.", self.log_ident, down_convert_magic, tp, client_id)
                return FetchResponse.partition_response(tp, Errors.UNSUPPORTED_VERSION)
            try:
                # 3.9 converts lazily, chunk by chunk, as the response is written (LazyDownConversionRecords,
                # KIP-283); the port converts here, at once
                converted = unconverted_records.down_convert(
                    down_convert_magic, fetch_context.get_fetch_offset(tp) or 0, self.time).records()
            except UnsupportedCompressionTypeException as e:
                log.debug("%sReceived unsupported compression type error during down-conversion: %s",
                          self.log_ident, e)
                return FetchResponse.partition_response(tp, Errors.UNSUPPORTED_COMPRESSION_TYPE)
            return partition_data(partition_index=tp.partition, error_code=error,
                                  high_watermark=data.high_watermark, last_stable_offset=data.last_stable_offset,
                                  log_start_offset=data.log_start_offset,
                                  aborted_transactions=data.aborted_transactions, records=converted,
                                  preferred_read_replica=data.preferred_read_replica)

        def process_response_callback(response_partition_data: Sequence[tuple[TopicIdPartition, Any]]) -> None:
            partitions: dict[TopicIdPartition, PartitionData] = {}
            node_endpoints: dict[int, Any] = {}
            for tp, data in response_partition_data:
                aborted_transactions = data.aborted_transactions
                last_stable_offset = (INVALID_LAST_STABLE_OFFSET if data.last_stable_offset is None
                                      else data.last_stable_offset)
                current_leader = None
                if version_id >= 16 and data.error in (Errors.NOT_LEADER_OR_FOLLOWER, Errors.FENCED_LEADER_EPOCH):
                    leader_id, leader_epoch, node = self._get_current_leader(tp.topic_partition,
                                                                             request.context.listener_name.value())
                    if node is not None:
                        node_endpoints[node.id] = node
                    current_leader = LeaderIdAndEpoch(leader_id=leader_id, leader_epoch=leader_epoch)
                partitions[tp] = partition_data(
                    partition_index=tp.partition, error_code=maybe_down_convert_storage_error(data.error),
                    high_watermark=data.high_watermark, last_stable_offset=last_stable_offset,
                    log_start_offset=data.log_start_offset,
                    aborted_transactions=tuple(aborted_transactions) if aborted_transactions else (),
                    records=data.records,
                    preferred_read_replica=(INVALID_PREFERRED_REPLICA_ID if data.preferred_read_replica is None
                                            else data.preferred_read_replica),
                    diverging_epoch=data.diverging_epoch, current_leader=current_leader)
            for tp, data in erroneous:
                partitions[tp] = data

            def create_response(throttle_time_ms: int, unconverted_fetch_response: FetchResponse) -> FetchResponse:
                converted_data: dict[TopicIdPartition, PartitionData] = {}
                for topic_response in unconverted_fetch_response.data().responses:
                    for unconverted_partition_data in topic_response.partitions:
                        tp = TopicIdPartition(topic_response.topic_id,
                                              TopicPartition(topic_response.topic,
                                                             unconverted_partition_data.partition_index))
                        error = Errors.for_code(int(unconverted_partition_data.error_code))
                        if error != Errors.NONE:
                            log.debug("%sFetch request with correlation id %d from client %s on partition %s failed "
                                      "due to %s", self.log_ident, request.header.correlation_id, client_id, tp,
                                      error.exception_name)
                        converted_data[tp] = maybe_convert_fetched_data(tp, unconverted_partition_data)
                return FetchResponse.of(unconverted_fetch_response.error(), throttle_time_ms,
                                        unconverted_fetch_response.session_id(), converted_data,
                                        [NodeEndpoint(node_id=n.id, host=n.host, port=n.port, rack=n.rack)
                                         for n in node_endpoints.values()])

            if fetch_request.is_from_follower():
                # the leader's replication quota is not ported: nothing to record
                unconverted_fetch_response = fetch_context.update_and_generate_response_data(partitions)
                self.request_helper.send_response_exempt_throttle(
                    request, fetch_response_body(create_response(0, unconverted_fetch_response), version_id))
            else:
                # (the fetch and request quotas are not ported: never throttled)
                unconverted_fetch_response = fetch_context.update_and_generate_response_data(partitions)
                self.request_channel.send_response(
                    request, fetch_response_body(create_response(0, unconverted_fetch_response), version_id))

        if not interesting:
            process_response_callback([])
        else:
            # (a consumer's fetch max bytes would also be capped by its fetch quota window: not ported)
            fetch_max_bytes = min(fetch_request.max_bytes(), self.config.fetch_max_bytes)
            fetch_min_bytes = min(fetch_request.min_bytes(), fetch_max_bytes)
            client_metadata = None
            if version_id >= 11:
                # v11 added the preferred read replica (KIP-392)
                client_metadata = DefaultClientMetadata(fetch_request.rack_id(), client_id,
                                                        request.context.client_address, request.context.principal,
                                                        request.context.listener_name.value())
            params = FetchParams(version_id, fetch_request.replica_id(), fetch_request.replica_epoch(),
                                 fetch_request.max_wait(), fetch_min_bytes, fetch_max_bytes,
                                 FetchIsolation.of(fetch_request), client_metadata)
            self.replica_manager.fetch_messages(params=params, fetch_infos=interesting,
                                                quota=self.replication_quota(fetch_request),
                                                response_callback=process_response_callback)

    def replication_quota(self, fetch_request: FetchRequest) -> Any:
        """The leader's replication quota for a follower, UnboundedQuota for a consumer (neither ported: None)."""
        return getattr(self.quotas, "leader", None) if fetch_request.is_from_follower() else None

    # -- ListOffsets -------------------------------------------------------------------------------------------------

    def handle_list_offset_request(self, request: Request) -> None:
        version = request.header.api_version
        topics = (self._handle_list_offset_request_v0(request) if version == 0
                  else self._handle_list_offset_request_v1_and_above(request))
        self.request_helper.send_response_maybe_throttle(request, lambda throttle_ms: build(
            _response_schema(request), throttle_time=throttle_ms, topics=topics))

    def _handle_list_offset_request_v0(self, request: Request) -> list[dict[str, Any]]:
        correlation_id, client_id = request.header.correlation_id, request.header.client_id
        offset_request = request.body()
        authorized_request_info, unauthorized_request_info = self._partition_seq_by_authorized(
            request, "DESCRIBE", "TOPIC", offset_request.topics, lambda t: t.name)

        unauthorized_response_status = [dict(name=topic.name, partitions=[
            dict(partition_index=p.partition_index, error_code=Errors.TOPIC_AUTHORIZATION_FAILED,
                 old_style_offsets=()) for p in topic.partitions]) for topic in unauthorized_request_info]

        response_topics = []
        for topic in authorized_request_info:
            response_partitions = []
            for partition in topic.partitions:
                if partition.timestamp < EARLIEST_TIMESTAMP:
                    # v0 knows only LATEST_TIMESTAMP (-1) and EARLIEST_TIMESTAMP (-2) of the negative timestamps
                    response_partitions.append(dict(partition_index=partition.partition_index,
                                                    error_code=Errors.UNSUPPORTED_VERSION, old_style_offsets=()))
                    continue
                topic_partition = TopicPartition(topic.name, partition.partition_index)
                try:
                    offsets = self.replica_manager.legacy_fetch_offsets_for_timestamp(
                        topic_partition=topic_partition, timestamp=partition.timestamp,
                        max_num_offsets=partition.max_num_offsets,
                        is_from_consumer=offset_request.replica_id == CONSUMER_REPLICA_ID,
                        fetch_only_from_leader=offset_request.replica_id != DEBUGGING_REPLICA_ID)
                    response_partitions.append(dict(partition_index=partition.partition_index,
                                                    error_code=Errors.NONE, old_style_offsets=tuple(offsets)))
                except (UnknownTopicOrPartitionException, NotLeaderOrFollowerException, NotLeaderForPartitionException,
                        KafkaStorageException) as e:
                    # transient: no stack trace worth logging
                    log.debug("%sOffset request with correlation id %d from client %s on partition %s failed due "
                              "to %s", self.log_ident, correlation_id, client_id, topic_partition, e)
                    response_partitions.append(dict(partition_index=partition.partition_index,
                                                    error_code=Errors.for_exception(e), old_style_offsets=()))
                except Exception as e:
                    log.error("%sError while responding to offset request", self.log_ident, exc_info=e)
                    response_partitions.append(dict(partition_index=partition.partition_index,
                                                    error_code=Errors.for_exception(e), old_style_offsets=()))
            response_topics.append(dict(name=topic.name, partitions=response_partitions))
        return response_topics + unauthorized_response_status

    def _handle_list_offset_request_v1_and_above(self, request: Request) -> list[dict[str, Any]]:
        correlation_id, client_id = request.header.correlation_id, request.header.client_id
        offset_request = request.body()
        version = request.header.api_version
        timestamp_min_supported_version = {EARLIEST_TIMESTAMP: 1, LATEST_TIMESTAMP: 1, MAX_TIMESTAMP: 7,
                                           EARLIEST_LOCAL_TIMESTAMP: 8, LATEST_TIERED_TIMESTAMP: 9}

        def build_error_response(e: Errors, partition: Any) -> dict[str, Any]:
            return dict(partition_index=partition.partition_index, error_code=e, timestamp=UNKNOWN_TIMESTAMP,
                        offset=UNKNOWN_OFFSET)

        authorized_request_info, unauthorized_request_info = self._partition_seq_by_authorized(
            request, "DESCRIBE", "TOPIC", offset_request.topics, lambda t: t.name)
        unauthorized_response_status = [dict(name=topic.name, partitions=[
            build_error_response(Errors.TOPIC_AUTHORIZATION_FAILED, p) for p in topic.partitions])
            for topic in unauthorized_request_info]

        duplicate_partitions = _duplicate_partitions(offset_request)
        response_topics = []
        for topic in authorized_request_info:
            response_partitions = []
            for partition in topic.partitions:
                topic_partition = TopicPartition(topic.name, partition.partition_index)
                if topic_partition in duplicate_partitions:
                    log.debug("%sOffsetRequest with correlation id %d from client %s on partition %s failed because "
                              "the partition is duplicated in the request.", self.log_ident, correlation_id,
                              client_id, topic_partition)
                    response_partitions.append(build_error_response(Errors.INVALID_REQUEST, partition))
                elif partition.timestamp < 0 and (partition.timestamp not in timestamp_min_supported_version
                                                  or version < timestamp_min_supported_version[partition.timestamp]):
                    response_partitions.append(build_error_response(Errors.UNSUPPORTED_VERSION, partition))
                else:
                    response_partitions.append(self._list_offset_partition(
                        request, offset_request, topic_partition, partition, build_error_response))
            response_topics.append(dict(name=topic.name, partitions=response_partitions))
        return response_topics + unauthorized_response_status

    def _list_offset_partition(self, request: Request, offset_request: Any, topic_partition: TopicPartition,
                               partition: Any, build_error_response: Callable[[Errors, Any], dict[str, Any]]
                               ) -> dict[str, Any]:
        version = request.header.api_version
        try:
            fetch_only_from_leader = offset_request.replica_id != DEBUGGING_REPLICA_ID
            is_client_request = offset_request.replica_id == CONSUMER_REPLICA_ID
            isolation_level_opt = (IsolationLevel.for_id(getattr(offset_request, "isolation_level", 0))
                                   if is_client_request else None)
            current_leader_epoch = getattr(partition, "current_leader_epoch", UNKNOWN_EPOCH)
            found = self.replica_manager.fetch_offset_for_timestamp(
                topic_partition, partition.timestamp, isolation_level_opt,
                None if current_leader_epoch == UNKNOWN_EPOCH else current_leader_epoch, fetch_only_from_leader)
            if found is None:
                return build_error_response(Errors.NONE, partition)
            response = dict(partition_index=partition.partition_index, error_code=Errors.NONE,
                            timestamp=found.timestamp, offset=found.offset)
            if found.leader_epoch is not None and version >= 4:
                response["leader_epoch"] = found.leader_epoch
            return response
        except (UnknownTopicOrPartitionException, NotLeaderOrFollowerException, NotLeaderForPartitionException,
                UnknownLeaderEpochException, FencedLeaderEpochException, KafkaStorageException,
                UnsupportedForMessageFormatException) as e:
            # transient, or the client gets a clear error: no stack trace worth logging
            log.debug("%sOffset request with correlation id %d from client %s on partition %s failed due to %s",
                      self.log_ident, request.header.correlation_id, request.header.client_id, topic_partition, e)
            return build_error_response(Errors.for_exception(e), partition)
        except OffsetNotAvailableException as e:
            # only v5 and newer know OFFSET_NOT_AVAILABLE
            if version >= 5:
                return build_error_response(Errors.for_exception(e), partition)
            return build_error_response(Errors.LEADER_NOT_AVAILABLE, partition)
        except Exception as e:
            log.error("%sError while responding to offset request", self.log_ident, exc_info=e)
            return build_error_response(Errors.for_exception(e), partition)

    # -- Metadata ----------------------------------------------------------------------------------------------------

    @staticmethod
    def _metadata_response_topic(error: Errors, topic: str | None, topic_id: uuid.UUID | None, is_internal: bool,
                                 partition_data: list[dict[str, Any]]) -> dict[str, Any]:
        return dict(error_code=error, name=topic, topic_id=topic_id, is_internal=is_internal,
                    partitions=partition_data, topic_authorized_operations=INT_MIN)

    def _get_topic_metadata(self, request: Request, fetch_all_topics: bool, allow_auto_topic_creation: bool,
                            topics: set[str], listener_name: str, error_unavailable_endpoints: bool,
                            error_unavailable_listeners: bool) -> list[dict[str, Any]]:
        known = self.metadata_cache.get_topic_metadata(topics, listener_name, error_unavailable_endpoints,
                                                       error_unavailable_listeners)
        topic_responses = [self._metadata_response_topic(
            Errors.NONE, name, self.metadata_cache.get_topic_id(name), Topic.is_internal(name),
            [dict(error_code=p.error, partition_index=p.partition, leader_id=p.leader, leader_epoch=p.leader_epoch,
                  replica_nodes=tuple(p.replicas), isr_nodes=tuple(p.isr),
                  offline_replicas=tuple(p.offline_replicas)) for p in partitions])
            for name, partitions in known.items()]
        if not topics or len(topic_responses) == len(topics) or fetch_all_topics:
            return topic_responses
        non_existing_topics = topics - set(known)
        if allow_auto_topic_creation:
            errors = self.auto_topic_creation_manager.create_topics(non_existing_topics)
            non_existing_topic_responses = [self._metadata_response_topic(
                error, topic, ZERO_UUID, Topic.is_internal(topic), []) for topic, error in sorted(errors.items())]
        else:
            non_existing_topic_responses = []
            for topic in sorted(non_existing_topics):
                try:
                    Topic.validate(topic)
                    error = Errors.UNKNOWN_TOPIC_OR_PARTITION
                except InvalidTopicException:
                    error = Errors.INVALID_TOPIC_EXCEPTION
                non_existing_topic_responses.append(self._metadata_response_topic(
                    error, topic, self.metadata_cache.get_topic_id(topic), Topic.is_internal(topic), []))
        return topic_responses + non_existing_topic_responses

    def handle_topic_metadata_request(self, request: Request) -> None:
        metadata_request = request.body()
        request_version = request.header.api_version
        is_all_topics = metadata_request.topics is None or (request_version == 0 and not metadata_request.topics)

        # v10 and v11 know topic ids but cannot ask by them
        if not is_all_topics:
            for topic in metadata_request.topics:
                if getattr(topic, "name", "") is None and request_version < 12:
                    raise InvalidRequestException(f"Topic name can not be null for version {request_version}")
                if getattr(topic, "topic_id", ZERO_UUID) not in (ZERO_UUID, None) and request_version < 12:
                    raise InvalidRequestException(f"Topic IDs are not supported in requests for version "
                                                  f"{request_version}")

        topic_ids = set() if is_all_topics else {
            t.topic_id for t in metadata_request.topics if getattr(t, "topic_id", None) not in (None, ZERO_UUID)}
        use_topic_id = bool(topic_ids)
        unknown_topic_ids = {t for t in topic_ids if self.metadata_cache.get_topic_name(t) is None}
        known_topic_names = {n for n in (self.metadata_cache.get_topic_name(t) for t in topic_ids) if n is not None}
        unknown_topic_ids_topic_metadata = [self._metadata_response_topic(Errors.UNKNOWN_TOPIC_ID, None, topic_id,
                                                                          False, [])
                                            for topic_id in unknown_topic_ids]

        if is_all_topics:
            topics = set(self.metadata_cache.get_all_topics())
        elif use_topic_id:
            topics = known_topic_names
        else:
            topics = {t.name for t in metadata_request.topics}

        authorized_for_describe_topics = self.auth_helper.filter_by_authorized(
            request.context, "DESCRIBE", "TOPIC", topics, log_if_denied=not is_all_topics)
        authorized_topics = {t for t in topics if t in authorized_for_describe_topics}
        unauthorized_for_describe_topics = topics - authorized_topics
        unauthorized_for_create_topics: set[str] = set()
        allow_auto_topic_creation = getattr(metadata_request, "allow_auto_topic_creation", True)

        if authorized_topics:
            non_existing_topics = {t for t in authorized_topics if not self.metadata_cache.contains(t)}
            if allow_auto_topic_creation and self.config.auto_create_topics_enable and non_existing_topics:
                if not self.auth_helper.authorize(request.context, "CREATE", "CLUSTER", CLUSTER_NAME,
                                                  log_if_denied=False):
                    authorized_for_create_topics = self.auth_helper.filter_by_authorized(
                        request.context, "CREATE", "TOPIC", non_existing_topics)
                    unauthorized_for_create_topics = non_existing_topics - authorized_for_create_topics
                    authorized_topics -= unauthorized_for_create_topics

        unauthorized_for_create_topic_metadata = [
            # a topic that is not created has no id yet
            self._metadata_response_topic(Errors.TOPIC_AUTHORIZATION_FAILED, topic, ZERO_UUID,
                                          Topic.is_internal(topic), [])
            for topic in sorted(unauthorized_for_create_topics)]

        # the existence of a topic not authorized for Describe is not disclosed: not even checked
        if (request_version == 0 and not metadata_request.topics) or is_all_topics:
            unauthorized_for_describe_topic_metadata: list[dict[str, Any]] = []
        elif use_topic_id:
            # topic ids are not sensitive: TOPIC_AUTHORIZATION_FAILED may name them
            unauthorized_for_describe_topic_metadata = [self._metadata_response_topic(
                Errors.TOPIC_AUTHORIZATION_FAILED, None, self.metadata_cache.get_topic_id(topic), False, [])
                for topic in sorted(unauthorized_for_describe_topics)]
        else:
            unauthorized_for_describe_topic_metadata = [self._metadata_response_topic(
                Errors.TOPIC_AUTHORIZATION_FAILED, topic, ZERO_UUID, False, [])
                for topic in sorted(unauthorized_for_describe_topics)]

        # v0 answered an error for replicas without an endpoint; later versions leave those brokers out
        error_unavailable_endpoints = request_version == 0
        # v6 onwards: LISTENER_NOT_FOUND rather than LEADER_NOT_AVAILABLE when the leader lacks the listener
        error_unavailable_listeners = request_version >= 6

        allow_auto_creation = (self.config.auto_create_topics_enable and allow_auto_topic_creation
                               and not is_all_topics)
        listener_name = request.context.listener_name.value()
        topic_metadata = self._get_topic_metadata(request, is_all_topics, allow_auto_creation, authorized_topics,
                                                  listener_name, error_unavailable_endpoints,
                                                  error_unavailable_listeners)

        cluster_authorized_operations = INT_MIN
        if request_version >= 8:
            if request_version <= 10 and getattr(metadata_request, "include_cluster_authorized_operations", False):
                if self.auth_helper.authorize(request.context, "DESCRIBE", "CLUSTER", CLUSTER_NAME):
                    cluster_authorized_operations = self._authorized_operations(request, "CLUSTER", CLUSTER_NAME)
                else:
                    cluster_authorized_operations = 0
            if getattr(metadata_request, "include_topic_authorized_operations", False):
                for topic_data in topic_metadata:
                    topic_data["topic_authorized_operations"] = self._authorized_operations(
                        request, "TOPIC", topic_data["name"])

        complete_topic_metadata = (unknown_topic_ids_topic_metadata + topic_metadata
                                   + unauthorized_for_create_topic_metadata + unauthorized_for_describe_topic_metadata)
        brokers = self.metadata_cache.get_alive_broker_nodes(listener_name)
        log.debug("%sSending topic metadata %s and brokers %s for correlation id %d to client %s", self.log_ident,
                  complete_topic_metadata, brokers, request.header.correlation_id, request.header.client_id)
        # KRaft: clients cannot reach the controllers (KIP-590), so a random alive broker stands for one
        controller_id = self.metadata_cache.get_controller_id()
        self.request_helper.send_response_maybe_throttle(request, lambda throttle_ms: build(
            _response_schema(request), throttle_time=throttle_ms,
            brokers=[dict(node_id=b.id, host=b.host, port=b.port, rack=b.rack) for b in brokers],
            cluster_id=self.cluster_id,
            controller_id=NO_CONTROLLER_ID if controller_id is None else controller_id,
            topics=complete_topic_metadata, cluster_authorized_operations=cluster_authorized_operations))

    def handle_describe_topic_partitions_request(self, request: Request) -> None:
        handler = self.describe_topic_partitions_request_handler
        if handler is None:
            self.request_helper.send_maybe_throttle(request, get_error_response(
                request, 0, error_exception(Errors.UNSUPPORTED_VERSION)))
            return
        response = handler.handle_describe_topic_partitions_request(_HandlerRequestView(request))
        log.debug("%sSending topic partitions metadata %s for correlation id %d to client %s", self.log_ident,
                  response.get("topics"), request.header.correlation_id, request.header.client_id)
        self.request_helper.send_response_maybe_throttle(request, lambda throttle_ms: build(
            _response_schema(request), **{**response, "throttle_time": throttle_ms}))

    # -- OffsetFetch -------------------------------------------------------------------------------------------------

    def handle_offset_fetch_request(self, request: Request) -> Future[Any]:
        if request.header.api_version == 0:
            return self._handle_offset_fetch_request_from_zookeeper(request)
        return self._handle_offset_fetch_request_from_coordinator(request)

    def _handle_offset_fetch_request_from_zookeeper(self, request: Request) -> Future[Any]:
        # v0 reads offsets from ZooKeeper: a KRaft broker has none
        def create_response(throttle_ms: int) -> Any:
            if not self.auth_helper.authorize(request.context, "DESCRIBE", "GROUP", request.body().group_id):
                return get_error_response(request, throttle_ms, error_exception(Errors.GROUP_AUTHORIZATION_FAILED))
            raise unsupported("Version 0 offset fetch requests")

        self.request_helper.send_response_maybe_throttle(request, create_response)
        return _completed_future()

    def _handle_offset_fetch_request_from_coordinator(self, request: Request) -> Future[Any]:
        offset_fetch_request = request.body()
        groups = offset_fetch_groups(offset_fetch_request)
        require_stable = getattr(offset_fetch_request, "require_stable", False)

        futures: list[Future[Any]] = []
        for group_offset_fetch in groups:
            is_all_partitions = group_offset_fetch.topics is None
            if not self.auth_helper.authorize(request.context, "DESCRIBE", "GROUP", group_offset_fetch.group_id):
                futures.append(_completed_future(dict(group_id=group_offset_fetch.group_id, topics=[],
                                                      error_code=Errors.GROUP_AUTHORIZATION_FAILED)))
            elif is_all_partitions:
                futures.append(self._fetch_all_offsets_for_group(request.context, group_offset_fetch,
                                                                 require_stable))
            else:
                futures.append(self._fetch_offsets_for_group(request.context, group_offset_fetch, require_stable))

        def send(_: Any, __: BaseException | None) -> None:
            group_responses = [future.result() for future in futures]
            self.request_helper.send_maybe_throttle(request, offset_fetch_response(
                group_responses, request.context.api_version()))

        return _handle(_all_of(futures), send)

    def _fetch_all_offsets_for_group(self, request_context: Any, offset_fetch_request: Any,
                                     require_stable: bool) -> Future[Any]:
        def handle(offset_fetch_response: Any, exception: BaseException | None) -> Any:
            if exception is not None:
                return dict(group_id=offset_fetch_request.group_id, topics=[],
                            error_code=Errors.for_exception(exception))
            if offset_fetch_response.get("error_code", Errors.NONE) != Errors.NONE:
                return offset_fetch_response
            # offsets of topics the client may not describe are not shown
            authorized_offsets, _ = self._partition_seq_by_authorized_context(
                request_context, "DESCRIBE", "TOPIC", offset_fetch_response.get("topics", []), lambda t: t["name"])
            return {**offset_fetch_response, "topics": authorized_offsets}

        return _handle(self.group_coordinator.fetch_all_offsets(request_context, offset_fetch_request,
                                                                require_stable), handle)

    def _fetch_offsets_for_group(self, request_context: Any, offset_fetch_request: Any,
                                 require_stable: bool) -> Future[Any]:
        # offsets of topics the client may not describe are not shown
        authorized_topics, unauthorized_topics = self._partition_seq_by_authorized_context(
            request_context, "DESCRIBE", "TOPIC", offset_fetch_request.topics, lambda t: t.name)

        def handle(offset_fetch_response: Any, exception: BaseException | None) -> Any:
            if exception is not None:
                return dict(group_id=offset_fetch_request.group_id, topics=[],
                            error_code=Errors.for_exception(exception))
            if offset_fetch_response.get("error_code", Errors.NONE) != Errors.NONE:
                return offset_fetch_response
            topics = list(offset_fetch_response.get("topics", []))
            for topic in unauthorized_topics:
                topics.append(dict(name=topic.name, partitions=[
                    dict(partition_index=p, committed_offset=-1, committed_leader_epoch=-1, metadata="",
                         error_code=Errors.TOPIC_AUTHORIZATION_FAILED) for p in topic.partition_indexes]))
            return {**offset_fetch_response, "topics": topics}

        return _handle(self.group_coordinator.fetch_offsets(
            request_context, OffsetFetchRequestGroup(group_id=offset_fetch_request.group_id,
                                                     member_id=getattr(offset_fetch_request, "member_id", None),
                                                     member_epoch=getattr(offset_fetch_request, "member_epoch", -1),
                                                     topics=tuple(authorized_topics)),
            require_stable), handle)

    def _partition_by_authorized(self, seq: Sequence[TopicPartition], context: Any
                                 ) -> tuple[list[TopicPartition], list[TopicPartition]]:
        return self._partition_seq_by_authorized_context(context, "DESCRIBE", "TOPIC", seq, lambda tp: tp.topic)

    # -- FindCoordinator ---------------------------------------------------------------------------------------------

    def handle_find_coordinator_request(self, request: Request) -> None:
        if request.header.api_version < 4:
            self._handle_find_coordinator_request_less_than_v4(request)
        else:
            self._handle_find_coordinator_request_v4_and_above(request)

    def _handle_find_coordinator_request_v4_and_above(self, request: Request) -> None:
        find_coordinator_request = request.body()
        coordinators = []
        for key in find_coordinator_request.coordinator_keys:
            error, node = self._get_coordinator(request, find_coordinator_request.key_type, key)
            coordinators.append(dict(key=key, error_code=error, error_message=None if error == Errors.NONE
                                     else _error_message(error), host=node.host, node_id=node.id, port=node.port))
        self.request_helper.send_response_maybe_throttle(request, lambda throttle_ms: build(
            _response_schema(request), throttle_time=throttle_ms, coordinators=coordinators))

    def _handle_find_coordinator_request_less_than_v4(self, request: Request) -> None:
        find_coordinator_request = request.body()
        key_type = getattr(find_coordinator_request, "key_type", GROUP_COORDINATOR)
        error, node = self._get_coordinator(request, key_type, find_coordinator_request.key)
        if error == Errors.NONE:
            self.request_helper.send_response_maybe_throttle(request, lambda throttle_ms: build(
                _response_schema(request), throttle_time=throttle_ms, error_code=error,
                error_message=_error_message(error), node_id=node.id, host=node.host, port=node.port))
        else:
            self.request_helper.send_error_response_maybe_throttle(request, error_exception(error))

    def _get_coordinator(self, request: Request, key_type: int, key: str) -> tuple[Errors, Any]:
        if key_type == GROUP_COORDINATOR and not self.auth_helper.authorize(request.context, "DESCRIBE", "GROUP",
                                                                             key):
            return Errors.GROUP_AUTHORIZATION_FAILED, NO_NODE
        if key_type == TRANSACTION_COORDINATOR and not self.auth_helper.authorize(
                request.context, "DESCRIBE", "TRANSACTIONAL_ID", key):
            return Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED, NO_NODE
        if key_type == SHARE_COORDINATOR and request.context.api_version() < 6:
            return Errors.INVALID_REQUEST, NO_NODE
        if key_type == SHARE_COORDINATOR and not self.auth_helper.authorize(request.context, "CLUSTER_ACTION",
                                                                             "CLUSTER", CLUSTER_NAME):
            return Errors.CLUSTER_AUTHORIZATION_FAILED, NO_NODE
        if key_type == GROUP_COORDINATOR:
            partition, internal_topic_name = (self.group_coordinator.partition_for(key),
                                              Topic.GROUP_METADATA_TOPIC_NAME)
        elif key_type == TRANSACTION_COORDINATOR:
            partition, internal_topic_name = (self.txn_coordinator.partition_for(key),
                                              Topic.TRANSACTION_STATE_TOPIC_NAME)
        elif key_type == SHARE_COORDINATOR:
            # KIP-932's share coordinator is not in 3.9
            return Errors.COORDINATOR_NOT_AVAILABLE, NO_NODE
        else:
            raise InvalidRequestException(f"Unknown coordinator type: {key_type}")  # CoordinatorType.forId

        listener_name = request.context.listener_name.value()
        topic_metadata = self.metadata_cache.get_topic_metadata({internal_topic_name}, listener_name)
        if internal_topic_name not in topic_metadata:
            self.auto_topic_creation_manager.create_topics({internal_topic_name})
            return Errors.COORDINATOR_NOT_AVAILABLE, NO_NODE
        coordinator_endpoint = None
        for metadata in topic_metadata[internal_topic_name]:
            if metadata.partition == partition and metadata.leader != NO_LEADER_ID:
                coordinator_endpoint = self.metadata_cache.get_alive_broker_node(metadata.leader, listener_name)
                break
        if coordinator_endpoint is None:
            return Errors.COORDINATOR_NOT_AVAILABLE, NO_NODE
        return Errors.NONE, coordinator_endpoint

    # -- DescribeGroups, ListGroups, JoinGroup, SyncGroup, DeleteGroups, Heartbeat, LeaveGroup ------------------------

    def handle_describe_groups_request(self, request: Request) -> Future[Any]:
        describe_request = request.body()
        include_authorized_operations = getattr(describe_request, "include_authorized_operations", False)
        groups: list[dict[str, Any]] = []
        authorized_groups: list[str] = []
        for group_id in describe_request.groups:
            if not self.auth_helper.authorize(request.context, "DESCRIBE", "GROUP", group_id):
                groups.append(describe_groups_group_error(group_id, Errors.GROUP_AUTHORIZATION_FAILED))
            else:
                authorized_groups.append(group_id)

        def handle(results: Any, exception: BaseException | None) -> None:
            if exception is not None:
                self.request_helper.send_maybe_throttle(request, get_error_response(request, 0, exception))
                return
            results = [dict(r) for r in results]
            if request.header.api_version >= 3 and include_authorized_operations:
                for group_result in results:
                    if group_result.get("error_code", Errors.NONE) == Errors.NONE:
                        group_result["authorized_operations"] = self._authorized_operations(
                            request, "GROUP", group_result["group_id"])
            self.request_helper.send_maybe_throttle(request, build(_response_schema(request), throttle_time=0,
                                                                   groups=groups + results))

        return _handle(self.group_coordinator.describe_groups(request.context, authorized_groups), handle)

    def handle_list_groups_request(self, request: Request) -> Future[Any]:
        list_groups_request = request.body()
        has_cluster_describe = self.auth_helper.authorize(request.context, "DESCRIBE", "CLUSTER", CLUSTER_NAME,
                                                          log_if_denied=False)

        def handle(response: Any, exception: BaseException | None) -> None:
            if exception is not None:
                self.request_helper.send_maybe_throttle(request, get_error_response(request, 0, exception))
                return
            if has_cluster_describe:
                # with Describe on the cluster every group is listed (kept for backward compatibility)
                list_groups_response = response
            else:
                # otherwise only the groups the client may describe
                list_groups_response = {**response, "groups": [
                    g for g in response.get("groups", []) if self.auth_helper.authorize(
                        request.context, "DESCRIBE", "GROUP", g["group_id"], log_if_denied=False)]}
            self.request_helper.send_maybe_throttle(request, build(_response_schema(request),
                                                                   **{**list_groups_response, "throttle_time": 0}))

        return _handle(self.group_coordinator.list_groups(request.context, list_groups_request), handle)

    def handle_join_group_request(self, request: Request, request_local: Any = None) -> Future[Any]:
        join_group_request = request.body()
        if (getattr(join_group_request, "group_instance_id", None) is not None
                and self.metadata_cache.metadata_version().is_less_than(MetadataVersion.IBP_2_3_IV0)):
            # static membership only once every broker knows it (IBP 2.3), or a member may turn "dynamic"
            self.request_helper.send_maybe_throttle(request, get_error_response(
                request, 0, error_exception(Errors.UNSUPPORTED_VERSION)))
            return _completed_future()
        if not self.auth_helper.authorize(request.context, "READ", "GROUP", join_group_request.group_id):
            self.request_helper.send_maybe_throttle(request, get_error_response(
                request, 0, error_exception(Errors.GROUP_AUTHORIZATION_FAILED)))
            return _completed_future()

        def handle(response: Any, exception: BaseException | None) -> None:
            if exception is not None:
                self.request_helper.send_maybe_throttle(request, get_error_response(request, 0, exception))
            else:
                self.request_helper.send_maybe_throttle(request, join_group_response(
                    response, request.context.api_version()))

        return _handle(self.group_coordinator.join_group(request.context, join_group_request_data(join_group_request),
                                                         _buffer_supplier(request_local)), handle)

    def handle_sync_group_request(self, request: Request, request_local: Any = None) -> Future[Any]:
        sync_group_request = request.body()
        if (getattr(sync_group_request, "group_instance_id", None) is not None
                and self.metadata_cache.metadata_version().is_less_than(MetadataVersion.IBP_2_3_IV0)):
            # static membership only once every broker knows it (IBP 2.3), or a member may turn "dynamic"
            self.request_helper.send_maybe_throttle(request, get_error_response(
                request, 0, error_exception(Errors.UNSUPPORTED_VERSION)))
            return _completed_future()
        if not _are_mandatory_protocol_type_and_name_present(sync_group_request, request.header.api_version):
            # from v5 the protocol type and name are mandatory
            self.request_helper.send_maybe_throttle(request, get_error_response(
                request, 0, error_exception(Errors.INCONSISTENT_GROUP_PROTOCOL)))
            return _completed_future()
        if not self.auth_helper.authorize(request.context, "READ", "GROUP", sync_group_request.group_id):
            self.request_helper.send_maybe_throttle(request, get_error_response(
                request, 0, error_exception(Errors.GROUP_AUTHORIZATION_FAILED)))
            return _completed_future()

        def handle(response: Any, exception: BaseException | None) -> None:
            if exception is not None:
                self.request_helper.send_maybe_throttle(request, get_error_response(request, 0, exception))
            else:
                self.request_helper.send_maybe_throttle(request, build(_response_schema(request),
                                                                       **{**response, "throttle_time": 0}))

        return _handle(self.group_coordinator.sync_group(request.context,
                                                         request_data(ApiKeys.SYNC_GROUP, sync_group_request),
                                                         _buffer_supplier(request_local)), handle)

    def handle_delete_groups_request(self, request: Request, request_local: Any = None) -> Future[Any]:
        delete_groups_request = request.body()
        groups = list(dict.fromkeys(delete_groups_request.groups_names))
        authorized_groups, unauthorized_groups = self._partition_seq_by_authorized(request, "DELETE", "GROUP",
                                                                                   groups, lambda g: g)

        def handle(results: Any, exception: BaseException | None) -> None:
            if exception is not None:
                error = Errors.for_exception(exception)
                response_results = [dict(group_id=group_id, error_code=error) for group_id in authorized_groups]
            else:
                response_results = list(results)
            response_results += [dict(group_id=group_id, error_code=Errors.GROUP_AUTHORIZATION_FAILED)
                                 for group_id in unauthorized_groups]
            self.request_helper.send_maybe_throttle(request, build(_response_schema(request), throttle_time=0,
                                                                   results=response_results))

        return _handle(self.group_coordinator.delete_groups(request.context, list(authorized_groups),
                                                            _buffer_supplier(request_local)), handle)

    def handle_heartbeat_request(self, request: Request) -> Future[Any]:
        heartbeat_request = request.body()
        if (getattr(heartbeat_request, "group_instance_id", None) is not None
                and self.metadata_cache.metadata_version().is_less_than(MetadataVersion.IBP_2_3_IV0)):
            # static membership only once every broker knows it (IBP 2.3), or a member may turn "dynamic"
            self.request_helper.send_maybe_throttle(request, get_error_response(
                request, 0, error_exception(Errors.UNSUPPORTED_VERSION)))
            return _completed_future()
        if not self.auth_helper.authorize(request.context, "READ", "GROUP", heartbeat_request.group_id):
            self.request_helper.send_maybe_throttle(request, get_error_response(
                request, 0, error_exception(Errors.GROUP_AUTHORIZATION_FAILED)))
            return _completed_future()

        def handle(response: Any, exception: BaseException | None) -> None:
            if exception is not None:
                self.request_helper.send_maybe_throttle(request, get_error_response(request, 0, exception))
            else:
                self.request_helper.send_maybe_throttle(request, build(_response_schema(request),
                                                                       **{**response, "throttle_time": 0}))

        return _handle(self.group_coordinator.heartbeat(request.context,
                                                        request_data(ApiKeys.HEARTBEAT, heartbeat_request)), handle)

    def handle_leave_group_request(self, request: Request) -> Future[Any]:
        leave_group_request = request.body()
        if not self.auth_helper.authorize(request.context, "READ", "GROUP", leave_group_request.group_id):
            self.request_helper.send_maybe_throttle(request, get_error_response(
                request, 0, error_exception(Errors.GROUP_AUTHORIZATION_FAILED)))
            return _completed_future()

        def handle(response: Any, exception: BaseException | None) -> None:
            if exception is not None:
                self.request_helper.send_maybe_throttle(request, get_error_response(request, 0, exception))
            else:
                self.request_helper.send_maybe_throttle(request, leave_group_response(
                    response, request.header.api_version))

        return _handle(self.group_coordinator.leave_group(request.context,
                                                          leave_group_normalized_data(leave_group_request)), handle)

    # -- the consumer group protocol (KIP-848) ---------------------------------------------------------------------

    def _is_consumer_group_protocol_enabled(self) -> bool:
        return GroupType.CONSUMER in self.config.group_coordinator_rebalance_protocols

    def handle_consumer_group_heartbeat(self, request: Request) -> Future[Any]:
        consumer_group_heartbeat_request = request.body()
        if not self._is_consumer_group_protocol_enabled():
            # only the new coordinator speaks this API, and only with the consumer protocol on
            self.request_helper.send_maybe_throttle(request, get_error_response(
                request, 0, error_exception(Errors.UNSUPPORTED_VERSION)))
            return _completed_future()
        if not self.auth_helper.authorize(request.context, "READ", "GROUP", consumer_group_heartbeat_request.group_id):
            self.request_helper.send_maybe_throttle(request, get_error_response(
                request, 0, error_exception(Errors.GROUP_AUTHORIZATION_FAILED)))
            return _completed_future()

        def handle(response: Any, exception: BaseException | None) -> None:
            if exception is not None:
                self.request_helper.send_maybe_throttle(request, get_error_response(request, 0, exception))
            else:
                self.request_helper.send_maybe_throttle(request, build(_response_schema(request),
                                                                       **dict(response, throttle_time=0)))

        return _handle(self.group_coordinator.consumer_group_heartbeat(request.context,
                                                                       consumer_group_heartbeat_request), handle)

    def handle_consumer_group_describe(self, request: Request) -> Future[Any]:
        consumer_group_describe_request = request.body()
        include_authorized_operations = consumer_group_describe_request.include_authorized_operations
        if not self._is_consumer_group_protocol_enabled():
            self.request_helper.send_maybe_throttle(request, get_error_response(
                request, 0, error_exception(Errors.UNSUPPORTED_VERSION)))
            return _completed_future()

        groups: list[dict[str, Any]] = []
        authorized_groups: list[str] = []
        for group_id in consumer_group_describe_request.group_ids:
            if not self.auth_helper.authorize(request.context, "DESCRIBE", "GROUP", group_id):
                groups.append(consumer_group_describe_described_group(group_id=group_id,
                                                                      error_code=Errors.GROUP_AUTHORIZATION_FAILED))
            else:
                authorized_groups.append(group_id)

        def handle(results: Any, exception: BaseException | None) -> None:
            if exception is not None:
                self.request_helper.send_maybe_throttle(request, get_error_response(request, 0, exception))
                return
            results = [dict(r) for r in results]
            if include_authorized_operations:
                for group_result in results:
                    if group_result.get("error_code", Errors.NONE) == Errors.NONE:
                        group_result["authorized_operations"] = self._authorized_operations(
                            request, "GROUP", group_result["group_id"])
            # the refused groups first, as 3.9 lists them
            self.request_helper.send_maybe_throttle(request, build(_response_schema(request), throttle_time=0,
                                                                   groups=groups + results))

        return _handle(self.group_coordinator.consumer_group_describe(request.context, authorized_groups), handle)

    # -- SASL, ApiVersions -------------------------------------------------------------------------------------------

    def handle_sasl_handshake_request(self, request: Request) -> None:
        # the handshake is over by the time a request reaches KafkaApis
        self.request_helper.send_response_maybe_throttle(request, lambda _: build(
            _response_schema(request), error_code=Errors.ILLEGAL_SASL_STATE, mechanisms=()))

    def handle_sasl_authenticate_request(self, request: Request) -> None:
        self.request_helper.send_response_maybe_throttle(request, lambda _: build(
            _response_schema(request), error_code=Errors.ILLEGAL_SASL_STATE,
            error_message="SaslAuthenticate request received after successful authentication", auth_bytes=b"",
            session_lifetime=0))

    def handle_api_versions_request(self, request: Request) -> None:
        # every API and version is listed whatever the client's authentication state, as in 3.9
        def create_response_callback(throttle_ms: int) -> Any:
            api_version_request = request.body()
            if api_version_request is None:  # ApiVersionsRequest.hasUnsupportedRequestVersion
                return get_error_response(request, throttle_ms, error_exception(Errors.UNSUPPORTED_VERSION))
            if not _is_valid_api_versions_request(api_version_request, request.header.api_version):
                return get_error_response(request, throttle_ms, error_exception(Errors.INVALID_REQUEST))
            return self._api_version_response(throttle_ms, request.context.api_version())

        self.request_helper.send_response_maybe_throttle(request, create_response_callback)

    def _api_version_response(self, throttle_ms: int, version: int) -> Any:
        """ApiVersionManager.apiVersionResponse: the listener's APIs with the finalized metadata.version."""
        fields: dict[str, Any] = dict(error_code=Errors.NONE, throttle_time=throttle_ms,
                                      api_keys=self.api_version_manager.api_version_entries(version))
        metadata_version = getattr(self.metadata_cache, "metadata_version", None)
        if metadata_version is not None:
            level = metadata_version().feature_level
            level = level() if callable(level) else level
            fields.update(finalized_features=[dict(name="metadata.version", max_version_level=level,
                                                   min_version_level=level)],
                          supported_features=[dict(name="metadata.version", min_version=1, max_version=level)])
        return build(ApiKeys.API_VERSIONS.response_schema(version), **fields)

    # -- CreateTopics, CreatePartitions, DeleteTopics: forwarded to the controller on KRaft --------------------------

    def handle_create_topics_request(self, request: Request) -> None:
        raise should_always_forward(request)

    def handle_create_partitions_request(self, request: Request) -> None:
        raise should_always_forward(request)

    def handle_delete_topics_request(self, request: Request) -> None:
        raise should_always_forward(request)

    # -- DeleteRecords -----------------------------------------------------------------------------------------------

    def handle_delete_records_request(self, request: Request) -> None:
        delete_records_request = request.body()
        unauthorized_topic_responses: dict[TopicPartition, dict[str, Any]] = {}
        non_existing_topic_responses: dict[TopicPartition, dict[str, Any]] = {}
        authorized_for_delete_topic_offsets: dict[TopicPartition, int] = {}

        topics = delete_records_request.topics
        authorized_topics = self.auth_helper.filter_by_authorized(request.context, "DELETE", "TOPIC",
                                                                  [t.name for t in topics])
        for topic in topics:
            for partition in topic.partitions:
                topic_partition = TopicPartition(topic.name, partition.partition_index)
                if topic_partition.topic not in authorized_topics:
                    unauthorized_topic_responses[topic_partition] = dict(
                        low_watermark=INVALID_LOW_WATERMARK, error_code=Errors.TOPIC_AUTHORIZATION_FAILED)
                elif not self.metadata_cache.contains(topic_partition):
                    non_existing_topic_responses[topic_partition] = dict(
                        low_watermark=INVALID_LOW_WATERMARK, error_code=Errors.UNKNOWN_TOPIC_OR_PARTITION)
                else:
                    authorized_for_delete_topic_offsets[topic_partition] = partition.offset

        def send_response_callback(authorized_topic_responses: Mapping[TopicPartition, Any]) -> None:
            merged_response_status = {tp: _as_delete_records_result(r)
                                      for tp, r in authorized_topic_responses.items()}
            merged_response_status.update(unauthorized_topic_responses)
            merged_response_status.update(non_existing_topic_responses)
            by_topic: dict[str, list[dict[str, Any]]] = {}
            for topic_partition, status in merged_response_status.items():
                if status["error_code"] != Errors.NONE:
                    log.debug("%sDeleteRecordsRequest with correlation id %d from client %s on partition %s failed "
                              "due to %s", self.log_ident, request.header.correlation_id, request.header.client_id,
                              topic_partition, Errors.for_code(int(status["error_code"])).exception_name)
                by_topic.setdefault(topic_partition.topic, []).append(dict(
                    partition_index=topic_partition.partition, low_watermark=status["low_watermark"],
                    error_code=status["error_code"]))
            self.request_helper.send_response_maybe_throttle(request, lambda throttle_ms: build(
                _response_schema(request), throttle_time=throttle_ms,
                topics=[dict(name=name, partitions=partitions) for name, partitions in by_topic.items()]))

        if not authorized_for_delete_topic_offsets:
            send_response_callback({})
        else:
            self.replica_manager.delete_records(_millis(delete_records_request.timeout),
                                                authorized_for_delete_topic_offsets, send_response_callback)

    # -- InitProducerId ----------------------------------------------------------------------------------------------

    def handle_init_producer_id_request(self, request: Request, request_local: Any = None) -> None:
        init_producer_id_request = request.body()
        transactional_id = init_producer_id_request.transactional_id

        if transactional_id is not None:
            if not self.auth_helper.authorize(request.context, "WRITE", "TRANSACTIONAL_ID", transactional_id):
                self.request_helper.send_error_response_maybe_throttle(
                    request, error_exception(Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED))
                return
        elif (not self.auth_helper.authorize(request.context, "IDEMPOTENT_WRITE", "CLUSTER", CLUSTER_NAME, True, False)
              and not self._authorize_by_resource_type(request.context, "WRITE", "TOPIC")):
            self.request_helper.send_error_response_maybe_throttle(request,
                                                                   error_exception(Errors.CLUSTER_AUTHORIZATION_FAILED))
            return

        def send_response_callback(result: Any) -> None:
            def create_response(throttle_ms: int) -> Any:
                # clients before v4 do not know PRODUCER_FENCED: INVALID_PRODUCER_EPOCH makes them act the same
                final_error = (Errors.INVALID_PRODUCER_EPOCH
                               if request.header.api_version < 4 and result.error == Errors.PRODUCER_FENCED
                               else result.error)
                log.debug("%sCompleted %s's InitProducerIdRequest with result %s from client %s.", self.log_ident,
                          transactional_id, result, request.header.client_id)
                return build(_response_schema(request), throttle_time=throttle_ms, error_code=final_error,
                             producer_id=result.producer_id, producer_epoch=result.producer_epoch)

            self.request_helper.send_response_maybe_throttle(request, create_response)

        producer_id = getattr(init_producer_id_request, "producer_id", NO_PRODUCER_ID)
        producer_epoch = getattr(init_producer_id_request, "producer_epoch", NO_PRODUCER_EPOCH)
        if producer_id == NO_PRODUCER_ID and producer_epoch == NO_PRODUCER_EPOCH:
            producer_id_and_epoch: tuple[int, int] | None = None
        elif producer_id == NO_PRODUCER_ID or producer_epoch == NO_PRODUCER_EPOCH:
            self.request_helper.send_error_response_maybe_throttle(request, error_exception(Errors.INVALID_REQUEST))
            return
        else:
            producer_id_and_epoch = (producer_id, producer_epoch)

        self.txn_coordinator.handle_init_producer_id(transactional_id,
                                                     _millis(init_producer_id_request.transaction_timeout),
                                                     producer_id_and_epoch, send_response_callback, request_local)

    # -- EndTxn ------------------------------------------------------------------------------------------------------

    def handle_end_txn_request(self, request: Request, request_local: Any = None) -> None:
        self.ensure_inter_broker_version(MetadataVersion.IBP_0_11_0_IV0)
        end_txn_request = request.body()
        transactional_id = end_txn_request.transactional_id

        if self.auth_helper.authorize(request.context, "WRITE", "TRANSACTIONAL_ID", transactional_id):
            def send_response_callback(error: Errors) -> None:
                def create_response(throttle_ms: int) -> Any:
                    # clients before v2 do not know PRODUCER_FENCED: INVALID_PRODUCER_EPOCH makes them act the same
                    final_error = (Errors.INVALID_PRODUCER_EPOCH
                                   if request.header.api_version < 2 and error == Errors.PRODUCER_FENCED else error)
                    log.debug("%sCompleted %s's EndTxnRequest with committed: %s, errors: %s from client %s.",
                              self.log_ident, transactional_id, end_txn_request.committed, error,
                              request.header.client_id)
                    return build(_response_schema(request), throttle_time=throttle_ms, error_code=final_error)

                self.request_helper.send_response_maybe_throttle(request, create_response)

            self.txn_coordinator.handle_end_transaction(transactional_id, end_txn_request.producer_id,
                                                        end_txn_request.producer_epoch,
                                                        TransactionResult.for_id(end_txn_request.committed),
                                                        send_response_callback, request_local)
        else:
            self.request_helper.send_response_maybe_throttle(request, lambda throttle_ms: build(
                _response_schema(request), throttle_time=throttle_ms,
                error_code=Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED))

    # -- WriteTxnMarkers ---------------------------------------------------------------------------------------------

    def handle_write_txn_markers_request(self, request: Request, request_local: Any = None) -> None:
        self.ensure_inter_broker_version(MetadataVersion.IBP_0_11_0_IV0)
        # Alter on the cluster will do; otherwise ClusterAction, whose refusal raises
        if not self.auth_helper.authorize(request.context, "ALTER", "CLUSTER", CLUSTER_NAME, log_if_denied=False):
            self.auth_helper.authorize_cluster_operation(request.context, "CLUSTER_ACTION")
        write_txn_markers_request = request.body()
        errors: dict[int, dict[TopicPartition, Errors]] = {}
        lock = threading.Lock()
        markers = write_txn_markers_request.markers
        num_appends = [len(markers)]

        if num_appends[0] == 0:
            self.request_helper.send_response_exempt_throttle(request, write_txn_markers_response(errors, request))
            return

        def update_errors(producer_id: int, current_errors: Mapping[TopicPartition, Errors]) -> None:
            with lock:
                errors.setdefault(producer_id, {}).update(current_errors)

        def maybe_send_response_callback(producer_id: int, result: TransactionResult,
                                         current_errors: Mapping[TopicPartition, Errors]) -> None:
            """Called once per marker's appends: the response goes once every marker's have answered."""
            log.debug("%sEnd transaction marker append for producer id %d completed with status: %s",
                      self.log_ident, producer_id, current_errors)
            update_errors(producer_id, current_errors)
            if not self.config.is_new_group_coordinator_enabled:
                successful_offsets_partitions = [tp for tp, error in current_errors.items()
                                                 if tp.topic == Topic.GROUP_METADATA_TOPIC_NAME
                                                 and error == Errors.NONE]
                if successful_offsets_partitions:
                    # the marker is in the offsets partition: the transaction's offsets can be materialized
                    try:
                        self.group_coordinator.on_transaction_completed(producer_id, successful_offsets_partitions,
                                                                        result)
                    except Exception as e:
                        log.error("%sReceived an exception while trying to update the offsets cache on transaction "
                                  "marker append", self.log_ident, exc_info=e)
                        update_errors(producer_id, {tp: Errors.UNKNOWN_SERVER_ERROR
                                                    for tp in successful_offsets_partitions})
            with lock:
                num_appends[0] -= 1
                done = num_appends[0] == 0
            if done:
                self.request_helper.send_response_exempt_throttle(request, write_txn_markers_response(errors,
                                                                                                      request))

        # one append per marker (per producer id): simpler than one append of every marker's control batches
        skipped_markers = 0
        for marker in markers:
            producer_id = marker.producer_id
            partitions_with_compatible_message_format: list[TopicPartition] = []
            current_errors: dict[TopicPartition, Errors] = {}
            for topic in marker.topics:
                for partition_index in topic.partition_indexes:
                    partition = TopicPartition(topic.name, partition_index)
                    magic = self._get_magic(partition)
                    if magic is None:
                        current_errors[partition] = Errors.UNKNOWN_TOPIC_OR_PARTITION
                    elif magic < MAGIC_VALUE_V2:
                        current_errors[partition] = Errors.UNSUPPORTED_FOR_MESSAGE_FORMAT
                    else:
                        partitions_with_compatible_message_format.append(partition)

            if current_errors:
                update_errors(producer_id, current_errors)

            if not partitions_with_compatible_message_format:
                with lock:
                    num_appends[0] -= 1
                skipped_markers += 1
                continue

            transaction_result = TransactionResult.for_id(marker.transaction_result)
            control_record_type = (ControlRecordType.COMMIT if transaction_result is TransactionResult.COMMIT
                                   else ControlRecordType.ABORT)
            marker_results: dict[TopicPartition, Errors] = {}
            marker_lock = threading.Lock()

            def maybe_complete(expected: int = len(partitions_with_compatible_message_format),
                               producer_id: int = producer_id, transaction_result: TransactionResult =
                               transaction_result, marker_results: dict[TopicPartition, Errors] = marker_results,
                               marker_lock: threading.Lock = marker_lock) -> None:
                with marker_lock:
                    complete = len(marker_results) == expected
                    results = dict(marker_results)
                if complete:
                    maybe_send_response_callback(producer_id, transaction_result, results)

            control_records: dict[TopicPartition, MemoryRecords] = {}
            for partition in partitions_with_compatible_message_format:
                if (self.config.is_new_group_coordinator_enabled
                        and partition.topic == Topic.GROUP_METADATA_TOPIC_NAME):
                    # with the new group coordinator, the coordinator writes the marker itself
                    self._complete_transaction_with_coordinator(partition, marker, transaction_result,
                                                                marker_results, marker_lock, maybe_complete)
                else:
                    control_records[partition] = MemoryRecords.with_end_transaction_marker(
                        producer_id, marker.producer_epoch,
                        EndTransactionMarker(control_record_type, marker.coordinator_epoch))

            def append_callback(responses: Mapping[TopicPartition, PartitionResponse],
                                marker_results: dict[TopicPartition, Errors] = marker_results,
                                marker_lock: threading.Lock = marker_lock,
                                maybe_complete: Callable[[], None] = maybe_complete) -> None:
                with marker_lock:
                    for tp, partition_response in responses.items():
                        marker_results[tp] = partition_response.error
                maybe_complete()

            self.replica_manager.append_records(
                timeout=self.config.request_timeout_ms, required_acks=-1, internal_topics_allowed=True,
                origin=_coordinator_origin(), entries_per_partition=control_records,
                request_local=request_local, response_callback=append_callback)

        # every marker named only partitions this broker cannot write: nothing else will answer
        if skipped_markers == len(markers):
            self.request_helper.send_response_exempt_throttle(request, write_txn_markers_response(errors, request))

    def _complete_transaction_with_coordinator(self, partition: TopicPartition, marker: Any,
                                               transaction_result: TransactionResult,
                                               marker_results: dict[TopicPartition, Errors],
                                               marker_lock: threading.Lock,
                                               maybe_complete: Callable[[], None]) -> None:
        def when_complete(f: Future[Any]) -> None:
            exception = f.exception()
            if exception is None:
                error = Errors.NONE
            else:
                error = Errors.for_exception(exception)
                if error in (Errors.COORDINATOR_NOT_AVAILABLE, Errors.COORDINATOR_LOAD_IN_PROGRESS,
                             Errors.NOT_COORDINATOR):
                    # the transaction coordinator does not expect these: "not ready yet" in its words
                    error = Errors.NOT_LEADER_OR_FOLLOWER
            with marker_lock:
                marker_results[partition] = error
            maybe_complete()

        self.group_coordinator.complete_transaction(
            partition, marker.producer_id, marker.producer_epoch, marker.coordinator_epoch, transaction_result,
            datetime.timedelta(milliseconds=self.config.request_timeout_ms)).add_done_callback(when_complete)

    def _get_magic(self, topic_partition: TopicPartition) -> int | None:
        """ReplicaManager.getMagic: the record format the partition's log writes, None if it has no log here."""
        log_config = self.replica_manager.get_log_config(topic_partition)
        return None if log_config is None else _record_version_of(log_config)

    def ensure_inter_broker_version(self, version: MetadataVersion) -> None:
        if self.metadata_cache.metadata_version().is_less_than(version):
            raise UnsupportedVersionException(f"metadata.version: {self.metadata_cache.metadata_version()} is less "
                                              f"than the required version: {version}")

    # -- AddPartitionsToTxn, AddOffsetsToTxn, TxnOffsetCommit ------------------------------------------------------

    def handle_add_partitions_to_txn_request(self, request: Request, request_local: Any = None) -> None:
        """v0-v3 come from producers, one transaction each; v4+ from brokers verifying (KIP-890) a batch of
        transactions, answered once every transaction has its result."""
        self.ensure_inter_broker_version(MetadataVersion.IBP_0_11_0_IV0)
        add_partitions_to_txn_request = request.body()
        version = request.header.api_version
        # AddPartitionsToTxnRequest.normalizeRequest: a v0-v3 request as the one transaction of a v4+ one
        txns = (_normalized_add_partitions_to_txn(add_partitions_to_txn_request) if version < 4
                else list(add_partitions_to_txn_request.transactions))
        responses: list[dict[str, Any]] = []
        lock = threading.Lock()
        partitions_by_transaction = {txn.transactional_id: [TopicPartition(topic.name, partition)
                                                            for topic in txn.topics for partition in topic.partitions]
                                     for txn in txns}

        # only brokers send v4+
        if version >= 4:
            self.auth_helper.authorize_cluster_operation(request.context, "CLUSTER_ACTION")

        def create_response(throttle_ms: int) -> Any:
            if version < 4:
                # a single transaction: its topics are the whole response
                return build(_response_schema(request), throttle_time=throttle_ms,
                             results_by_topic_v3_and_below=responses[0]["topic_results"] if responses else [])
            return build(_response_schema(request), throttle_time=throttle_ms, error_code=Errors.NONE,
                         results_by_transaction=responses)

        def add_result_and_maybe_send_response(result: dict[str, Any]) -> None:
            with lock:
                responses.append(result)
                can_send = len(responses) == len(txns)
            if can_send:
                self.request_helper.send_response_maybe_throttle(request, create_response)

        def error_response_for_transaction(transactional_id: str, error: Errors) -> dict[str, Any]:
            """AddPartitionsToTxnRequest.errorResponseForTransaction: every partition the transaction names."""
            txn = next(t for t in txns if t.transactional_id == transactional_id)
            return result_for_transaction(transactional_id, {TopicPartition(topic.name, partition): error
                                                              for topic in txn.topics
                                                              for partition in topic.partitions})

        # (as in 3.9, a v4+ request naming no transaction gets no response: nothing completes it)
        for transaction in txns:
            transactional_id = transaction.transactional_id
            if transactional_id is None:
                raise InvalidRequestException("Transactional ID can not be null in request.")
            partitions_to_add = partitions_by_transaction[transactional_id]

            # producers (v0-v3) need Write on the transactional id and on the topics
            if version < 4 and not self.auth_helper.authorize(request.context, "WRITE", "TRANSACTIONAL_ID",
                                                              transactional_id):
                add_result_and_maybe_send_response(error_response_for_transaction(
                    transactional_id, Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED))
                continue
            unauthorized_topic_errors: dict[TopicPartition, Errors] = {}
            non_existing_topic_errors: dict[TopicPartition, Errors] = {}
            authorized_partitions: dict[TopicPartition, None] = {}  # an ordered set

            if version < 4:
                authorized_topics = self.auth_helper.filter_by_authorized(
                    request.context, "WRITE", "TOPIC",
                    [tp.topic for tp in partitions_to_add if not Topic.is_internal(tp.topic)])
            else:
                authorized_topics = {tp.topic for tp in partitions_to_add}
            for topic_partition in partitions_to_add:
                if topic_partition.topic not in authorized_topics:
                    unauthorized_topic_errors[topic_partition] = Errors.TOPIC_AUTHORIZATION_FAILED
                elif not self.metadata_cache.contains(topic_partition):
                    non_existing_topic_errors[topic_partition] = Errors.UNKNOWN_TOPIC_OR_PARTITION
                else:
                    authorized_partitions[topic_partition] = None

            if unauthorized_topic_errors or non_existing_topic_errors:
                # one failed partition fails the whole transaction: the others are reported as not added
                partition_errors = {**unauthorized_topic_errors, **non_existing_topic_errors,
                                    **{tp: Errors.OPERATION_NOT_ATTEMPTED for tp in authorized_partitions}}
                add_result_and_maybe_send_response(result_for_transaction(transactional_id, partition_errors))
                continue

            def send_response_callback(error: Errors, transactional_id: str = transactional_id) -> None:
                # clients before v2 do not know PRODUCER_FENCED: INVALID_PRODUCER_EPOCH makes them act the same
                final_error = (Errors.INVALID_PRODUCER_EPOCH if version < 2 and error == Errors.PRODUCER_FENCED
                               else error)
                add_result_and_maybe_send_response(error_response_for_transaction(transactional_id, final_error))

            if not transaction.verify_only:
                self.txn_coordinator.handle_add_partitions_to_transaction(
                    transactional_id, transaction.producer_id, transaction.producer_epoch, set(authorized_partitions),
                    send_response_callback, request_local)
            else:
                self.txn_coordinator.handle_verify_partitions_in_transaction(
                    transactional_id, transaction.producer_id, transaction.producer_epoch, set(authorized_partitions),
                    add_result_and_maybe_send_response)

    def handle_add_offsets_to_txn_request(self, request: Request, request_local: Any = None) -> None:
        """The group's offsets partition joins the transaction, so the transaction's offset commits land with it."""
        self.ensure_inter_broker_version(MetadataVersion.IBP_0_11_0_IV0)
        add_offsets_to_txn_request = request.body()
        transactional_id = add_offsets_to_txn_request.transactional_id
        group_id = add_offsets_to_txn_request.group_id
        offset_topic_partition = TopicPartition(Topic.GROUP_METADATA_TOPIC_NAME,
                                                self.group_coordinator.partition_for(group_id))

        if not self.auth_helper.authorize(request.context, "WRITE", "TRANSACTIONAL_ID", transactional_id):
            self.request_helper.send_response_maybe_throttle(request, lambda throttle_ms: build(
                _response_schema(request), throttle_time=throttle_ms,
                error_code=Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED))
        elif not self.auth_helper.authorize(request.context, "READ", "GROUP", group_id):
            self.request_helper.send_response_maybe_throttle(request, lambda throttle_ms: build(
                _response_schema(request), throttle_time=throttle_ms, error_code=Errors.GROUP_AUTHORIZATION_FAILED))
        else:
            def send_response_callback(error: Errors) -> None:
                def create_response(throttle_ms: int) -> Any:
                    # clients before v2 do not know PRODUCER_FENCED: INVALID_PRODUCER_EPOCH makes them act the same
                    final_error = (Errors.INVALID_PRODUCER_EPOCH
                                   if request.header.api_version < 2 and error == Errors.PRODUCER_FENCED else error)
                    log.debug("%sCompleted %s's AddOffsetsToTxnRequest for group %s on partition %s: errors: %s from "
                              "client %s", self.log_ident, transactional_id, group_id, offset_topic_partition, error,
                              request.header.client_id)
                    return build(_response_schema(request), throttle_time=throttle_ms, error_code=final_error)

                self.request_helper.send_response_maybe_throttle(request, create_response)

            self.txn_coordinator.handle_add_partitions_to_transaction(
                transactional_id, add_offsets_to_txn_request.producer_id, add_offsets_to_txn_request.producer_epoch,
                {offset_topic_partition}, send_response_callback, request_local)

    def handle_txn_offset_commit_request(self, request: Request, request_local: Any = None) -> Future[Any]:
        self.ensure_inter_broker_version(MetadataVersion.IBP_0_11_0_IV0)
        txn_offset_commit_request = request.body()

        def send_response(response: Any) -> None:
            # producers from 0.11 to 2.0 could crash on COORDINATOR_LOAD_IN_PROGRESS (KAFKA-7296); clients of v2+
            # have the fix
            if request.header.api_version < 2:
                response = _replace_partition_error(response, Errors.COORDINATOR_LOAD_IN_PROGRESS,
                                                    Errors.COORDINATOR_NOT_AVAILABLE)
            self.request_helper.send_maybe_throttle(request, response)

        # Write on the transactional id implies Write on the producer id, which is not checked
        if not self.auth_helper.authorize(request.context, "WRITE", "TRANSACTIONAL_ID",
                                          txn_offset_commit_request.transactional_id):
            send_response(get_error_response(request, 0, error_exception(Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED)))
            return _completed_future()
        if not self.auth_helper.authorize(request.context, "READ", "GROUP", txn_offset_commit_request.group_id):
            send_response(get_error_response(request, 0, error_exception(Errors.GROUP_AUTHORIZATION_FAILED)))
            return _completed_future()
        authorized_topics = self.auth_helper.filter_by_authorized(
            request.context, "READ", "TOPIC", [t.name for t in txn_offset_commit_request.topics])
        # TxnOffsetCommitResponse.Builder is OffsetCommitResponse.Builder's twin: the same response shape
        response_builder = _OffsetCommitResponseBuilder()
        authorized_topic_committed_offsets: list[dict[str, Any]] = []
        for topic in txn_offset_commit_request.topics:
            if topic.name not in authorized_topics:
                response_builder.add_partitions(topic.name, topic.partitions, Errors.TOPIC_AUTHORIZATION_FAILED)
            elif not self.metadata_cache.contains(topic.name):
                response_builder.add_partitions(topic.name, topic.partitions, Errors.UNKNOWN_TOPIC_OR_PARTITION)
            else:
                valid_partitions = []
                for partition in topic.partitions:
                    if self.metadata_cache.get_partition_info(topic.name, partition.partition_index) is not None:
                        valid_partitions.append(values(partition))
                    else:
                        response_builder.add_partition(topic.name, partition.partition_index,
                                                       Errors.UNKNOWN_TOPIC_OR_PARTITION)
                if valid_partitions:
                    authorized_topic_committed_offsets.append(dict(name=topic.name, partitions=valid_partitions))

        if not authorized_topic_committed_offsets:
            send_response(response_builder.build(request))
            return _completed_future()

        # TxnOffsetCommitRequestData is the latest version's shape: fields an older request lacks take their defaults
        txn_offset_commit_request_data = build(
            ApiKeys.TXN_OFFSET_COMMIT.request_schema(ApiKeys.TXN_OFFSET_COMMIT.latest_version),
            group_id=txn_offset_commit_request.group_id,
            member_id=getattr(txn_offset_commit_request, "member_id", ""),
            generation_id=getattr(txn_offset_commit_request, "generation_id", -1),
            group_instance_id=getattr(txn_offset_commit_request, "group_instance_id", None),
            producer_epoch=txn_offset_commit_request.producer_epoch,
            producer_id=txn_offset_commit_request.producer_id,
            transactional_id=txn_offset_commit_request.transactional_id,
            topics=authorized_topic_committed_offsets)

        def handle(response: Any, exception: BaseException | None) -> None:
            if exception is not None:
                send_response(get_error_response(request, 0, exception))
            else:
                send_response(response_builder.merge(response).build(request))

        return _handle(self.group_coordinator.commit_transactional_offsets(
            request.context, txn_offset_commit_request_data, _buffer_supplier(request_local)), handle)

    # -- OffsetForLeaderEpoch ----------------------------------------------------------------------------------------

    def handle_offset_for_leader_epoch_request(self, request: Request) -> None:
        offset_for_leader_epoch = request.body()
        topics = _offset_for_leader_topics(offset_for_leader_epoch)
        # a follower has ClusterAction; a consumer checking for truncation (KIP-320) Describe on the topic
        if self.auth_helper.authorize(request.context, "CLUSTER_ACTION", "CLUSTER", CLUSTER_NAME,
                                      log_if_denied=False):
            authorized_topics, unauthorized_topics = topics, []
        else:
            authorized_topics, unauthorized_topics = self._partition_seq_by_authorized(
                request, "DESCRIBE", "TOPIC", topics, lambda t: t.topic)

        end_offsets_for_authorized_partitions = self.replica_manager.last_offset_for_leader_epoch(authorized_topics)
        end_offsets_for_unauthorized_partitions = [dict(topic=t.topic, partitions=[
            dict(partition=p.partition, error_code=Errors.TOPIC_AUTHORIZATION_FAILED) for p in t.partitions])
            for t in unauthorized_topics]
        self.request_helper.send_response_maybe_throttle(request, lambda throttle_ms: build(
            _response_schema(request), throttle_time=throttle_ms,
            topics=[_plain(t) for t in end_offsets_for_authorized_partitions]
            + end_offsets_for_unauthorized_partitions))

    # -- part B (issue 24): ACLs. DescribeAcls from this broker's authorizer (its ACLs come from the metadata image,
    # AclPublisher); CreateAcls and DeleteAcls go to the controller and never get here unless forwarded to a broker.

    def handle_describe_acls(self, request: Request) -> None:
        self.acl_apis.handle_describe_acls(request)

    def handle_create_acls(self, request: Request) -> None:
        # a KRaft broker forwards it: on this path 3.9's metadataSupport.requireZkOrThrow refuses it
        raise should_always_forward(request)

    def handle_delete_acls(self, request: Request) -> None:
        raise should_always_forward(request)

    # -- DescribeConfigs ---------------------------------------------------------------------------------------------

    def handle_describe_configs_request(self, request: Request) -> None:
        response_data = self.config_helper.handle_describe_configs_request(request, self.auth_helper)
        self.request_helper.send_response_maybe_throttle(request, lambda throttle_ms: build(
            _response_schema(request), **{**response_data, "throttle_time": throttle_ms}))

    # -- part A (issue 24): AlterConfigs, IncrementalAlterConfigs: preprocessed here, the rest forwarded ----------

    def handle_alter_configs_request(self, request: Request) -> None:
        original = request.body()
        preprocessing_responses = self.config_manager.preprocess(original)
        remaining = config_admin_manager.copy_without_preprocessed(original, preprocessing_responses)
        self._alter_configs_in_two_parts(request, original, preprocessing_responses, remaining,
                                         self.process_legacy_alter_configs_request)

    def process_legacy_alter_configs_request(self, original_request: Request, data: Any) -> Any:
        raise should_always_forward(original_request)  # ZooKeeper mode's adminManager.alterConfigs

    def handle_incremental_alter_configs_request(self, request: Request) -> None:
        original = request.body()
        preprocessing_responses = self.config_manager.preprocess(
            original, lambda resource_type, resource_name: self.auth_helper.authorize(
                request.context, "ALTER_CONFIGS", resource_type, resource_name))
        remaining = config_admin_manager.copy_without_preprocessed(original, preprocessing_responses)
        self._alter_configs_in_two_parts(request, original, preprocessing_responses, remaining,
                                         self.process_incremental_alter_configs_request)

    def process_incremental_alter_configs_request(self, original_request: Request, data: Any) -> Any:
        raise should_always_forward(original_request)  # ZooKeeper mode's adminManager.incrementalAlterConfigs

    def _alter_configs_in_two_parts(self, request: Request, original: Any, preprocessing_responses: Any,
                                    remaining: Any, process_locally: Callable[[Request, Any], Any]) -> None:
        """What preprocessing answered and what the controller answered for the rest, as one response."""
        def send_response(second_part: Any | None) -> None:
            if second_part is None:
                self._handle_invalid_versions_during_forwarding(request)
                return
            responses = config_admin_manager.reassemble_response(original, preprocessing_responses,
                                                                 second_part.responses)
            self.request_helper.send_response_maybe_throttle(request, lambda throttle_ms: build(
                _response_schema(request), throttle_time=throttle_ms, responses=responses))

        def forwarded(response: Any | None, error: Errors) -> None:
            if response is None and error != Errors.UNSUPPORTED_VERSION:
                # the forwarded request's error response: each remaining resource with the error
                response = build(_response_schema(request), throttle_time=0, responses=[
                    dict(resource_name=r.resource_name, resource_type=r.resource_type, error_code=error,
                         error_message=None) for r in remaining.resources])
            send_response(response)

        if not remaining.resources:
            send_response(build(_response_schema(request), throttle_time=0, responses=[]))
        elif not request.is_forwarded() and self.forwarding_manager is not None:
            self.forwarding_manager.forward_request(request, forwarded, remaining)
        else:
            send_response(process_locally(request, remaining))

    # -- OffsetDelete --------------------------------------------------------------------------------------------

    def handle_offset_delete_request(self, request: Request, request_local: Any = None) -> Future[Any]:
        offset_delete_request = request.body()

        if not self.auth_helper.authorize(request.context, "DELETE", "GROUP", offset_delete_request.group_id):
            self.request_helper.send_maybe_throttle(request, get_error_response(
                request, 0, error_exception(Errors.GROUP_AUTHORIZATION_FAILED)))
            return _completed_future()
        authorized_topics = self.auth_helper.filter_by_authorized(
            request.context, "READ", "TOPIC", [t.name for t in offset_delete_request.topics])
        response_builder = _OffsetDeleteResponseBuilder()
        authorized_topic_partitions: list[Any] = []
        for topic in offset_delete_request.topics:
            if topic.name not in authorized_topics:
                response_builder.add_partitions(topic.name, topic.partitions, Errors.TOPIC_AUTHORIZATION_FAILED)
            elif not self.metadata_cache.contains(topic.name):
                response_builder.add_partitions(topic.name, topic.partitions, Errors.UNKNOWN_TOPIC_OR_PARTITION)
            else:
                valid_partitions = []
                for partition in topic.partitions:
                    if self.metadata_cache.get_partition_info(topic.name, partition.partition_index) is not None:
                        valid_partitions.append(partition)
                    else:
                        response_builder.add_partition(topic.name, partition.partition_index,
                                                       Errors.UNKNOWN_TOPIC_OR_PARTITION)
                if valid_partitions:
                    authorized_topic_partitions.append(dataclasses.replace(topic, partitions=tuple(valid_partitions)))

        # the coordinator is asked even with no partition left: it answers for the group (an unknown group, say)
        offset_delete_request_data = dataclasses.replace(offset_delete_request,
                                                         topics=tuple(authorized_topic_partitions))

        def handle(response: Any, exception: BaseException | None) -> None:
            if exception is not None:
                self.request_helper.send_maybe_throttle(request, get_error_response(request, 0, exception))
            else:
                self.request_helper.send_maybe_throttle(request, response_builder.merge(response).build(request))

        return _handle(self.group_coordinator.delete_offsets(request.context, offset_delete_request_data,
                                                             _buffer_supplier(request_local)), handle)

    # -- part A (issue 24): DescribeClientQuotas from the metadata image, AlterClientQuotas forwarded -------------

    def handle_describe_client_quotas_request(self, request: Request) -> None:
        describe_client_quotas_request = request.body()
        if not self.auth_helper.authorize(request.context, "DESCRIBE_CONFIGS", "CLUSTER", CLUSTER_NAME):
            self.request_helper.send_response_maybe_throttle(request, lambda throttle_ms: get_error_response(
                request, throttle_ms, error_exception(Errors.CLUSTER_AUTHORIZATION_FAILED)))
        else:
            # RaftSupport: KRaftMetadataCache.describeClientQuotas, the image's quotas
            entries = self.metadata_cache.current_image().client_quotas.describe(describe_client_quotas_request)
            self.request_helper.send_response_maybe_throttle(request, lambda throttle_ms: build(
                _response_schema(request), throttle_time=throttle_ms, error_code=Errors.NONE, error_message=None,
                entries=entries))

    def handle_alter_client_quotas_request(self, request: Request) -> None:
        raise should_always_forward(request)  # ZooKeeper mode's adminManager.alterClientQuotas

    # -- part A (issue 24): DescribeUserScramCredentials from the image, AlterUserScramCredentials forwarded -----

    def handle_describe_user_scram_credentials_request(self, request: Request) -> None:
        describe_user_scram_credentials_request = request.body()
        if not self.auth_helper.authorize(request.context, "DESCRIBE", "CLUSTER", CLUSTER_NAME):
            self.request_helper.send_response_maybe_throttle(request, lambda throttle_ms: get_error_response(
                request, throttle_ms, error_exception(Errors.CLUSTER_AUTHORIZATION_FAILED)))
        else:
            # RaftSupport: KRaftMetadataCache.describeScramCredentials, the image's credentials
            results = self.metadata_cache.current_image().scram.describe(describe_user_scram_credentials_request)
            self.request_helper.send_response_maybe_throttle(request, lambda throttle_ms: build(
                _response_schema(request), throttle_time=throttle_ms, error_code=Errors.NONE, error_message=None,
                results=results))

    def handle_alter_user_scram_credentials_request(self, request: Request) -> None:
        raise should_always_forward(request)  # ZooKeeper mode's adminManager.alterUserScramCredentials

    # -- part A (issue 24): UpdateFeatures, forwarded --------------------------------------------------------------

    def handle_update_features(self, request: Request) -> None:
        raise should_always_forward(request)  # ZooKeeper mode's controller.updateFeatures

    # -- AlterReplicaLogDirs ----------------------------------------------------------------------------------------

    def handle_alter_replica_log_dirs_request(self, request: Request) -> None:
        alter_replica_dirs_request = request.body()
        if self.auth_helper.authorize(request.context, "ALTER", "CLUSTER", CLUSTER_NAME):
            # AlterReplicaLogDirsRequest.partitionDirs: a partition named twice goes to the last dir naming it
            partition_dirs = {TopicPartition(topic.name, partition): alter_dir.path
                              for alter_dir in alter_replica_dirs_request.dirs for topic in alter_dir.topics
                              for partition in topic.partitions}
            result = self.replica_manager.alter_replica_log_dirs(partition_dirs)
            results_by_topic: dict[str, list[dict[str, Any]]] = {}
            for tp, error in result.items():
                results_by_topic.setdefault(tp.topic, []).append(dict(partition_index=tp.partition,
                                                                      error_code=error))
            self.request_helper.send_response_maybe_throttle(request, lambda throttle_ms: build(
                _response_schema(request), throttle_time=throttle_ms,
                results=[dict(topic_name=topic, partitions=partitions)
                         for topic, partitions in results_by_topic.items()]))
        else:
            self.request_helper.send_response_maybe_throttle(request, lambda throttle_ms: get_error_response(
                request, throttle_ms, error_exception(Errors.CLUSTER_AUTHORIZATION_FAILED)))

    # -- DescribeLogDirs ---------------------------------------------------------------------------------------------

    def handle_describe_log_dirs_request(self, request: Request) -> None:
        describe_log_dirs_request = request.body()
        if self.auth_helper.authorize(request.context, "DESCRIBE", "CLUSTER", CLUSTER_NAME):
            if describe_log_dirs_request.topics is None:  # isAllTopicPartitions
                partitions = {lg.topic_partition() for lg in self.replica_manager.log_manager.all_logs()}
            else:
                partitions = {TopicPartition(t.topic, p) for t in describe_log_dirs_request.topics
                              for p in t.partitions}
            log_dir_infos, error = self.replica_manager.describe_log_dirs(partitions), Errors.NONE
        else:
            log_dir_infos, error = [], Errors.CLUSTER_AUTHORIZATION_FAILED
        self.request_helper.send_response_maybe_throttle(request, lambda throttle_ms: build(
            _response_schema(request), throttle_time=throttle_ms, results=[_plain(r) for r in log_dir_infos],
            error_code=error))

    def handle_alter_partition_request(self, request: Request) -> None:
        raise should_never_receive(request)

    # -- DescribeCluster ---------------------------------------------------------------------------------------------

    def handle_describe_cluster(self, request: Request) -> None:
        listener_name = request.context.listener_name.value()
        response = self._compute_describe_cluster_response(
            request, BROKER_ENDPOINT_TYPE, self.cluster_id,
            lambda: [dict(broker_id=node.id, host=node.host, port=node.port, rack=node.rack)
                     for node in self.metadata_cache.get_alive_broker_nodes(listener_name)],
            # KRaft: clients cannot reach the controllers, so a random alive broker stands for one
            lambda: -1 if (controller_id := self.metadata_cache.get_controller_id()) is None else controller_id)
        self.request_helper.send_response_maybe_throttle(request, lambda throttle_ms: build(
            _response_schema(request), **{**response, "throttle_time": throttle_ms}))

    def _compute_describe_cluster_response(self, request: Request, expected_endpoint_type: int, cluster_id: str,
                                           get_nodes: Callable[[], list[dict[str, Any]]],
                                           get_controller_id: Callable[[], int]) -> dict[str, Any]:
        """AuthHelper.computeDescribeClusterResponse."""
        describe_cluster_request = request.body()
        request_endpoint_type = getattr(describe_cluster_request, "endpoint_type", BROKER_ENDPOINT_TYPE)
        version = request.header.api_version
        if request_endpoint_type not in _ENDPOINT_TYPES:
            return dict(error_code=Errors.INVALID_REQUEST if version == 0 else Errors.UNSUPPORTED_ENDPOINT_TYPE,
                        error_message=f"Unsupported endpoint type {request_endpoint_type}", cluster_id="",
                        brokers=[])
        if expected_endpoint_type != request_endpoint_type:
            return dict(error_code=Errors.INVALID_REQUEST if version == 0 else Errors.MISMATCHED_ENDPOINT_TYPE,
                        error_message=f"The request was sent to an endpoint of type "
                                      f"{_ENDPOINT_TYPES[expected_endpoint_type]}, but we wanted an endpoint of type "
                                      f"{_ENDPOINT_TYPES[request_endpoint_type]}", cluster_id="", brokers=[])
        cluster_authorized_operations = INT_MIN
        if describe_cluster_request.include_cluster_authorized_operations:
            if self.auth_helper.authorize(request.context, "DESCRIBE", "CLUSTER", CLUSTER_NAME):
                cluster_authorized_operations = self._authorized_operations(request, "CLUSTER", CLUSTER_NAME)
            else:
                cluster_authorized_operations = 0
        nodes = get_nodes()
        controller_id = get_controller_id()
        # a controller id that is not among the nodes would only confuse the client
        effective_controller_id = controller_id if any(n["broker_id"] == controller_id for n in nodes) else -1
        return dict(error_code=Errors.NONE, error_message=None, cluster_id=cluster_id,
                    controller_id=effective_controller_id,
                    cluster_authorized_operations=cluster_authorized_operations, brokers=nodes,
                    endpoint_type=expected_endpoint_type)

    def handle_envelope(self, request: Request, request_local: Any = None) -> None:
        raise should_never_receive(request)

    # -- part C (issue 24): elections, reassignments, producers ------------------------------------------------------

    def handle_elect_leaders(self, request: Request) -> None:
        raise should_always_forward(request)

    def handle_alter_partition_reassignments_request(self, request: Request) -> None:
        raise should_always_forward(request)

    def handle_list_partition_reassignments_request(self, request: Request) -> None:
        raise should_always_forward(request)

    def handle_describe_producers_request(self, request: Request) -> None:
        """Each partition's active producers, from the leader's ProducerStateManager: a topic that is no valid name,
        may not be read, or is unknown gets that error on every partition asked for."""
        describe_producers_request = request.body()
        topics = []
        for topic_request in describe_producers_request.topics:
            topic_error = self._check_valid_topic(topic_request.name)
            if topic_error is None:
                if not self.auth_helper.authorize(request.context, "READ", "TOPIC", topic_request.name):
                    topic_error = ApiError(Errors.TOPIC_AUTHORIZATION_FAILED)
                elif not self.metadata_cache.contains(topic_request.name):
                    topic_error = ApiError(Errors.UNKNOWN_TOPIC_OR_PARTITION)
            partitions = []
            for partition_id in topic_request.partition_indexes:
                if topic_error is not None:
                    partitions.append(dict(partition_index=partition_id, error_code=topic_error.error,
                                           error_message=topic_error.message, active_producers=[]))
                else:
                    partitions.append(self.replica_manager.active_producer_state(
                        TopicPartition(topic_request.name, partition_id)))
            topics.append(dict(name=topic_request.name, partitions=partitions))
        self.request_helper.send_response_maybe_throttle(request, lambda throttle_ms: build(
            _response_schema(request), throttle_time=throttle_ms, topics=topics))

    @staticmethod
    def _check_valid_topic(topic: str) -> ApiError | None:
        try:
            Topic.validate(topic)
            return None
        except ApiException as e:
            return ApiError.from_throwable(e)

    # -- DescribeTransactions, ListTransactions ----------------------------------------------------------------------

    def handle_describe_transactions_request(self, request: Request) -> None:
        """Each transactional id's state from the transaction coordinator, with only the topics the client may
        describe."""
        describe_transactions_request = request.body()
        transaction_states = []
        for transactional_id in describe_transactions_request.transactional_ids:
            if not self.auth_helper.authorize(request.context, "DESCRIBE", "TRANSACTIONAL_ID", transactional_id):
                transaction_state = _transaction_state_error(transactional_id,
                                                             Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED)
            else:
                transaction_state = dict(self.txn_coordinator.handle_describe_transactions(transactional_id))
            transaction_state["topics"] = [
                topic for topic in transaction_state.get("topics", [])
                if self.auth_helper.authorize(request.context, "DESCRIBE", "TOPIC", topic["topic"])]
            transaction_states.append(transaction_state)
        self.request_helper.send_response_maybe_throttle(request, lambda throttle_ms: build(
            _response_schema(request), throttle_time=throttle_ms, transaction_states=transaction_states))

    def handle_list_transactions_request(self, request: Request) -> None:
        list_transactions_request = request.body()
        filtered_producer_ids = set(list_transactions_request.producer_id_filters)
        filtered_states = set(list_transactions_request.state_filters)
        # v0 has no duration filter: -1 lists every transaction, whatever its age
        duration_filter = getattr(list_transactions_request, "duration_filter", -1)
        response = dict(self.txn_coordinator.handle_list_transactions(filtered_producer_ids, filtered_states,
                                                                      duration_filter))
        # only the transactional ids the client may describe
        response["transaction_states"] = [
            state for state in response.get("transaction_states", [])
            if self.auth_helper.authorize(request.context, "DESCRIBE", "TRANSACTIONAL_ID", state["transactional_id"])]
        response.setdefault("unknown_state_filters", [])
        self.request_helper.send_response_maybe_throttle(request, lambda throttle_ms: build(
            _response_schema(request), **{**response, "throttle_time": throttle_ms}))

    # -- authorization helpers (AuthHelper's partitionSeqByAuthorized, authorizedOperations, authorizeByResourceType)

    def _partition_seq_by_authorized(self, request: Request, operation: str, resource_type: str,
                                     resources: Iterable[Any], resource_name: Callable[[Any], str]
                                     ) -> tuple[list[Any], list[Any]]:
        return self._partition_seq_by_authorized_context(request.context, operation, resource_type, resources,
                                                         resource_name)

    def _partition_seq_by_authorized_context(self, context: Any, operation: str, resource_type: str,
                                             resources: Iterable[Any], resource_name: Callable[[Any], str]
                                             ) -> tuple[list[Any], list[Any]]:
        resources = list(resources)
        authorized_names = self.auth_helper.filter_by_authorized(context, operation, resource_type,
                                                                 [resource_name(r) for r in resources])
        authorized = [r for r in resources if resource_name(r) in authorized_names]
        unauthorized = [r for r in resources if resource_name(r) not in authorized_names]
        return authorized, unauthorized

    def _authorized_operations(self, request: Request, resource_type: str, resource_name: str) -> int:
        """AuthHelper.authorizedOperations: the bit field of the operations the client may perform on the resource
        (Utils.to32BitField), asked of the authorizer in one call."""
        supported_ops = _SUPPORTED_OPERATIONS[resource_type]
        if self.authorizer is None:
            authorized_ops = supported_ops
        else:
            actions = [Action(op, resource_type, resource_name, 1, False, False) for op in supported_ops]
            results = self.authorizer.authorize(request.context, actions)
            authorized_ops = tuple(op for op, result in zip(supported_ops, results, strict=True)
                                   if result == AuthorizationResult.ALLOWED)
        field = 0
        for op in authorized_ops:
            field |= 1 << _ACL_OPERATION_CODES[op]
        return field

    def _authorize_by_resource_type(self, context: Any, operation: str, resource_type: str) -> bool:
        """Authorizer.authorizeByResourceType: whether any resource of the type may be acted on; an authorizer
        without that method answers for the literal wildcard resource."""
        if self.authorizer is None:
            return True
        by_type = getattr(self.authorizer, "authorize_by_resource_type", None)
        if by_type is not None:
            return by_type(context, operation, resource_type) == AuthorizationResult.ALLOWED
        return self.auth_helper.authorize(context, operation, resource_type, "*", log_if_allowed=False,
                                          log_if_denied=False)


# -- KafkaApis' companion object ---------------------------------------------------------------------------------------

def size_of_throttled_partitions(version_id: int, unconverted_response: FetchResponse, quota: Any) -> int:
    """The part of a follower's fetch response the replication quota counts: the throttled partitions'."""
    response_data = {}
    for topic_response in unconverted_response.data().responses:
        for partition in topic_response.partitions:
            tp = TopicIdPartition(topic_response.topic_id, TopicPartition(topic_response.topic,
                                                                          partition.partition_index))
            if tp.topic_partition.topic is not None and quota.is_throttled(tp.topic_partition):
                response_data[tp] = partition
    return FetchResponse.size_of(version_id, iter(response_data.items()))


def should_never_receive(request: Request) -> Exception:
    return UnsupportedVersionException("Should never receive when using a Raft-based metadata quorum: "
                                       f"{request.header.api_key.name}")


def should_always_forward(request: Request) -> Exception:
    return UnsupportedVersionException("Should always be forwarded to the Active Controller when using a Raft-based "
                                       f"metadata quorum: {request.header.api_key.name}")


def unsupported(text: str) -> Exception:
    return UnsupportedVersionException(f"Unsupported when using a Raft-based metadata quorum: {text}")


# -- the requests' own logic (ProduceRequest, OffsetFetchRequest, ... in 3.9's clients) --------------------------------

class _HandlerRequestView:
    """What DescribeTopicPartitionsRequestHandler reads of a request: its body and listener name."""

    def __init__(self, request: Request) -> None:
        self.body = request.body()
        self.listener_name = request.context.listener_name.value()
        self.context = request.context


class _OffsetCommitResponseBuilder:
    """OffsetCommitResponse.Builder: partitions' errors by topic, merged with the coordinator's results."""

    def __init__(self) -> None:
        self._topics: dict[str, dict[int, Errors]] = {}

    def add_partition(self, topic_name: str, partition_index: int, error: Errors) -> _OffsetCommitResponseBuilder:
        self._topics.setdefault(topic_name, {})[partition_index] = error
        return self

    def add_partitions(self, topic_name: str, partitions: Iterable[Any], error: Errors
                       ) -> _OffsetCommitResponseBuilder:
        for partition in partitions:
            self.add_partition(topic_name, partition.partition_index, error)
        return self

    def merge(self, new_data: Any) -> _OffsetCommitResponseBuilder:
        for topic in new_data.get("topics", []):
            for partition in topic["partitions"]:
                self.add_partition(topic["name"], partition["partition_index"], partition["error_code"])
        return self

    def build(self, request: Request) -> Any:
        return build(_response_schema(request), throttle_time=0, topics=[
            dict(name=name, partitions=[dict(partition_index=p, error_code=e) for p, e in partitions.items()])
            for name, partitions in self._topics.items()])


class _OffsetDeleteResponseBuilder(_OffsetCommitResponseBuilder):
    """OffsetDeleteResponse.Builder: OffsetCommit's, plus a top-level error; a coordinator's top-level error replaces
    whatever the handler gathered."""

    def __init__(self) -> None:
        super().__init__()
        self._error_code = Errors.NONE

    def merge(self, new_data: Any) -> _OffsetDeleteResponseBuilder:
        error = new_data.get("error_code", Errors.NONE)
        if error != Errors.NONE:
            self._topics = {}
            self._error_code = error
        super().merge(new_data)
        return self

    def build(self, request: Request) -> Any:
        return build(_response_schema(request), error_code=self._error_code, throttle_time=0, topics=[
            dict(name=name, partitions=[dict(partition_index=p, error_code=e) for p, e in partitions.items()])
            for name, partitions in self._topics.items()])


def _normalized_add_partitions_to_txn(add_partitions_to_txn_request: Any) -> list[Any]:
    """AddPartitionsToTxnRequest.normalizeRequest: a v0-v3 request's one transaction, as v4+ carries it."""
    schema = ApiKeys.ADD_PARTITIONS_TO_TXN.request_schema(ApiKeys.ADD_PARTITIONS_TO_TXN.latest_version)
    return list(build(schema, transactions=[dict(
        transactional_id=add_partitions_to_txn_request.v3_and_below_transactional_id,
        producer_id=add_partitions_to_txn_request.v3_and_below_producer_id,
        producer_epoch=add_partitions_to_txn_request.v3_and_below_producer_epoch,
        verify_only=False,
        topics=[dict(name=topic.name, partitions=topic.partitions)
                for topic in add_partitions_to_txn_request.v3_and_below_topics])]).transactions)




def _replace_partition_error(response: Any, old: Errors, new: Errors) -> Any:
    """The response (with `topics` of `partitions`) with each partition's `old` error turned into `new`."""
    data = values(response)
    for topic in data["topics"]:
        for partition in topic["partitions"]:
            if partition["error_code"] == old:
                partition["error_code"] = new
    return build(type(response), **data)


_EPOCH = datetime.datetime.fromtimestamp(0, datetime.UTC)


def _transaction_state_error(transactional_id: str, error: Errors) -> dict[str, Any]:
    """A DescribeTransactions TransactionState carrying only an error (the message's defaults elsewhere)."""
    return dict(error_code=error, transactional_id=transactional_id, transaction_state="", transaction_timeout=0,
                transaction_start_time=_EPOCH, producer_id=0, producer_epoch=0, topics=[])


def _error_message(error: Errors) -> str:
    """Errors.message(): the error's default message; this port keeps none but the error's name."""
    return error.name if error == Errors.NONE else (error.exception_name or error.name)


def _response_schema(request: Request) -> type[Any]:
    return request.header.api_key.response_schema(request.context.api_version())


def _millis(value: Any) -> int:
    """kio hands timeouts over as timedeltas; the handlers work in milliseconds."""
    if isinstance(value, datetime.timedelta):
        return int(value.total_seconds() * 1000)
    return int(value)


def _buffer_supplier(request_local: Any) -> Any:
    return getattr(request_local, "buffer_supplier", None)


def _error_counts(errors: Iterable[Errors]) -> dict[Errors, int]:
    counts: dict[Errors, int] = {}
    for error in errors:
        counts[error] = counts.get(error, 0) + 1
    return counts


def _plain(entity: Any) -> Any:
    """A kio entity (or a dict of one) as plain dicts, ready for `build` at the request's version."""
    if isinstance(entity, dict):
        return entity
    out: dict[str, Any] = {}
    for f in dataclasses.fields(entity):
        value = getattr(entity, f.name)
        if isinstance(value, tuple) and value and dataclasses.is_dataclass(value[0]):
            value = [_plain(item) for item in value]
        elif dataclasses.is_dataclass(value):
            value = _plain(value)
        out[f.name] = value
    return out


def _memory_records(records: Any) -> MemoryRecords:
    if isinstance(records, MemoryRecords):
        return records
    if records is None:
        return MemoryRecords.readable_records(b"")
    return MemoryRecords.readable_records(records if isinstance(records, memoryview) else bytes(records))


def _has_transactional_records(produce_request: Any) -> bool:
    """RequestUtils.hasTransactionalRecords: any partition's first batch is transactional."""
    for topic in produce_request.topic_data:
        for partition in topic.partition_data:
            try:
                for batch in _memory_records(partition.records).batches():
                    if batch.has_producer_id() and batch.is_transactional():
                        return True
                    break
            except Exception:  # noqa: BLE001 - a malformed batch is refused later, by validate_records
                continue
    return False


def validate_records(version: int, records: MemoryRecords) -> None:
    """ProduceRequest.validateRecords: from v3, exactly one batch per partition, of magic v2 (and no zstd before
    v7). Older versions are not checked, as Kafka did not check them."""
    if version < 3:
        return
    iterator = iter(records.batches())
    entry = next(iterator, None)
    if entry is None:
        raise InvalidRecordException(f"Produce requests with version {version} must have at least one record batch "
                                     "per partition")
    if entry.magic() != MAGIC_VALUE_V2:
        raise InvalidRecordException(f"Produce requests with version {version} are only allowed to contain record "
                                     "batches with magic version 2")
    if version < 7 and entry.compression_type() == CompressionType.ZSTD:
        raise UnsupportedCompressionTypeException(f"Produce requests with version {version} are not allowed to use "
                                                  "ZStandard compression")
    if next(iterator, None) is not None:
        raise InvalidRecordException(f"Produce requests with version {version} are only allowed to contain exactly "
                                     "one record batch per partition")


def _is_zstd(log_config: Any) -> bool:
    """logConfig.compressionType == BrokerCompressionType.ZSTD (the topic's `compression.type`)."""
    compression = getattr(log_config, "compression_type", None)
    compression = compression() if callable(compression) else compression
    return str(getattr(compression, "name", compression)).lower() == "zstd"


def _record_version_of(log_config: Any) -> int:
    """logConfig.recordVersion.value: the magic the partition's log writes."""
    record_version = log_config.record_version
    record_version = record_version() if callable(record_version) else record_version
    return record_version.value


def _coordinator_origin() -> Any:
    from kafka_edu.v3_9.storage.storage.internals.log.append_origin import AppendOrigin
    return AppendOrigin.COORDINATOR


def _offset_for_leader_topics(offset_for_leader_epoch: Any) -> list[Any]:
    """The request's topics as OffsetForLeaderEpochRequestData holds them at every version: before v2 a partition has
    no current leader epoch (RecordBatch.NO_PARTITION_LEADER_EPOCH)."""
    from kio.schema.offset_for_leader_epoch.v4.request import OffsetForLeaderPartition, OffsetForLeaderTopic
    return [OffsetForLeaderTopic(topic=t.topic, partitions=tuple(
        OffsetForLeaderPartition(partition=p.partition, leader_epoch=p.leader_epoch,
                                 current_leader_epoch=getattr(p, "current_leader_epoch", NO_PARTITION_LEADER_EPOCH))
        for p in t.partitions)) for t in offset_for_leader_epoch.topics]


def _duplicate_partitions(offset_request: Any) -> set[TopicPartition]:
    """ListOffsetsRequest.duplicatePartitions."""
    seen: set[TopicPartition] = set()
    duplicates: set[TopicPartition] = set()
    for topic in offset_request.topics:
        for partition in topic.partitions:
            tp = TopicPartition(topic.name, partition.partition_index)
            if tp in seen:
                duplicates.add(tp)
            seen.add(tp)
    return duplicates


def _are_mandatory_protocol_type_and_name_present(sync_group_request: Any, version: int) -> bool:
    """SyncGroupRequest.areMandatoryProtocolTypeAndNamePresent."""
    if version >= 5:
        return sync_group_request.protocol_type is not None and sync_group_request.protocol_name is not None
    return True


def _is_valid_api_versions_request(api_versions_request: Any, version: int) -> bool:
    """ApiVersionsRequest.isValid: from v3 the client software name and version must be set and well formed."""
    if version < 3:
        return True
    import re
    pattern = re.compile(r"[a-zA-Z0-9](?:[a-zA-Z0-9\-.]*[a-zA-Z0-9])?")
    return (pattern.fullmatch(api_versions_request.client_software_name or "") is not None
            and pattern.fullmatch(api_versions_request.client_software_version or "") is not None)


def _as_delete_records_result(result: Any) -> dict[str, Any]:
    if isinstance(result, dict):
        return result
    return dict(low_watermark=result.low_watermark, error_code=Errors.for_code(int(result.error_code)))


def produce_response(version: int, statuses: Mapping[TopicPartition, PartitionResponse], throttle_time_ms: int,
                     node_endpoints: list[Any], current_leaders: Mapping[TopicPartition, tuple[int, int]]) -> Any:
    """new ProduceResponse(responses, throttleTimeMs, nodeEndpoints) at `version`."""
    by_topic: dict[str, list[dict[str, Any]]] = {}
    for topic_partition, status in statuses.items():
        leader_id, leader_epoch = current_leaders.get(topic_partition, (-1, -1))
        by_topic.setdefault(topic_partition.topic, []).append(dict(
            index=topic_partition.partition, error_code=status.error, base_offset=status.base_offset,
            log_append_time=None if status.log_append_time < 0 else datetime.datetime.fromtimestamp(
                status.log_append_time / 1000, tz=datetime.UTC),
            log_start_offset=status.log_start_offset,
            record_errors=[dict(batch_index=e.batch_index, batch_index_error_message=e.message)
                           for e in status.record_errors],
            error_message=status.error_message,
            current_leader=dict(leader_id=leader_id, leader_epoch=leader_epoch)))
    return build(ApiKeys.PRODUCE.response_schema(version), throttle_time=throttle_time_ms,
                 responses=[dict(name=topic, partition_responses=partitions)
                            for topic, partitions in by_topic.items()],
                 node_endpoints=[dict(node_id=n.id, host=n.host, port=n.port, rack=n.rack) for n in node_endpoints])


def fetch_response_body(response: FetchResponse, version: int) -> Any:
    """The wire body of a FetchResponse; its records stay where they are until the response is sent."""
    data = response.data()
    for topic in data.responses:
        topic.partitions = [dataclasses.replace(p, records=_records_bytes(p.records)) for p in topic.partitions]
    return response.to_kio(version)


def _records_bytes(records: Any) -> Any:
    """A partition's records for the response body: bytes as they are, records as a field the SendBuilder writes
    from where they lie (a log slice by sendfile, a MemoryRecords' own buffer)."""
    if records is None or isinstance(records, (bytes, bytearray, memoryview)):
        return records
    return RecordsField(records)


def offset_fetch_groups(offset_fetch_request: Any) -> list[Any]:
    """OffsetFetchRequest.groups: v8+ carries groups; before, the one group is made one."""
    groups = getattr(offset_fetch_request, "groups", None)
    if groups is not None:
        return list(groups)
    topics = offset_fetch_request.topics
    return [OffsetFetchRequestGroup(
        group_id=offset_fetch_request.group_id, member_id=None, member_epoch=-1,
        topics=None if topics is None else tuple(OffsetFetchRequestTopics(name=t.name,
                                                                          partition_indexes=tuple(t.partition_indexes))
                                                 for t in topics))]


def offset_fetch_response(groups: list[dict[str, Any]], version: int) -> Any:
    """new OffsetFetchResponse(groups, version): v8+ lists the groups; before, the one group's topics with its error
    at the top (before v2, which has no top-level error, on each partition instead)."""
    schema = ApiKeys.OFFSET_FETCH.response_schema(version)
    if version >= 8:
        return build(schema, throttle_time=0, groups=[dict(g, topics=g.get("topics", [])) for g in groups])
    if len(groups) != 1:
        raise UnsupportedVersionException(f"Version {version} of OffsetFetchResponse only supports one group.")
    group = groups[0]
    error = group.get("error_code", Errors.NONE)
    topics = []
    for topic in group.get("topics", []):
        partitions = []
        for partition in topic["partitions"]:
            if version < 2 and error != Errors.NONE:
                partitions.append(dict(partition_index=partition["partition_index"], error_code=error,
                                       committed_offset=-1, metadata="", committed_leader_epoch=-1))
            else:
                partitions.append(partition)
        topics.append(dict(name=topic["name"], partitions=partitions))
    return build(schema, throttle_time=0, error_code=error, topics=topics)


def join_group_response(response: Mapping[str, Any], version: int) -> Any:
    """new JoinGroupResponse(data, version): before v7 the protocol name is not nullable."""
    fields = dict(response)
    if version < 7 and fields.get("protocol_name") is None:
        fields["protocol_name"] = ""
    return build(ApiKeys.JOIN_GROUP.response_schema(version), **{**fields, "throttle_time": 0})


def join_group_request_data(join_group_request: Any) -> Any:
    """JoinGroupRequest's constructor: v0 has no rebalance timeout, the session timeout stands for it."""
    if hasattr(join_group_request, "rebalance_timeout"):
        return request_data(ApiKeys.JOIN_GROUP, join_group_request)
    fields = values(join_group_request)
    fields["rebalance_timeout"] = fields["session_timeout"]
    return build(ApiKeys.JOIN_GROUP.request_schema(ApiKeys.JOIN_GROUP.latest_version), **fields)


def request_data(api: ApiKeys, body: Any) -> Any:
    """Java's request data object, whatever the version read: every field of the latest version, those the version
    read lacks at their defaults (the group coordinator reads fields an old version has not got, as Java's data
    objects let it). Nested entities stay as read."""
    schema = api.request_schema(api.latest_version)
    if type(body) is schema:
        return body
    kwargs: dict[str, Any] = {}
    for f in dataclasses.fields(schema):
        if hasattr(body, f.name):
            kwargs[f.name] = getattr(body, f.name)
        elif f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
            kind = classify_field(f)
            if isinstance(kind, (EntityTupleField, PrimitiveTupleField)):
                kwargs[f.name] = ()
            elif isinstance(kind, PrimitiveField) and issubclass(kind.type_, bool):
                kwargs[f.name] = False
            elif isinstance(kind, PrimitiveField) and issubclass(kind.type_, str):
                kwargs[f.name] = ""
            elif isinstance(kind, PrimitiveField) and issubclass(kind.type_, datetime.timedelta):
                kwargs[f.name] = datetime.timedelta(0)
            else:
                kwargs[f.name] = None
    return schema(**kwargs)


def leave_group_response(response: Mapping[str, Any], version: int) -> Any:
    """new LeaveGroupResponse(data, version): before v3 (one member per request) a member's error is the top
    level's."""
    fields = dict(response)
    if version < 3:
        error = fields.get("error_code", Errors.NONE)
        if error == Errors.NONE:
            error = next((m["error_code"] for m in fields.get("members", []) if m["error_code"] != Errors.NONE),
                         Errors.NONE)
        fields = dict(error_code=error)
    return build(ApiKeys.LEAVE_GROUP.response_schema(version), **{**fields, "throttle_time": 0})


def leave_group_normalized_data(leave_group_request: Any) -> Any:
    """LeaveGroupRequest.normalizedData: before v3 the one member id is made the members list."""
    if getattr(leave_group_request, "members", None) is not None:
        return leave_group_request
    from kio.schema.leave_group.v5.request import LeaveGroupRequest, MemberIdentity
    return LeaveGroupRequest(group_id=leave_group_request.group_id, members=(
        MemberIdentity(member_id=leave_group_request.member_id, group_instance_id=None, reason=None),))


def describe_groups_group_error(group_id: str, error: Errors) -> dict[str, Any]:
    """DescribeGroupsResponse.groupError."""
    return dict(group_id=group_id, error_code=error, group_state="", protocol_type="", protocol_data="",
                members=[], authorized_operations=INT_MIN)


def write_txn_markers_response(errors: Mapping[int, Mapping[TopicPartition, Errors]], request: Request) -> Any:
    """new WriteTxnMarkersResponse(errors)."""
    markers = []
    for producer_id, partition_errors in errors.items():
        by_topic: dict[str, list[dict[str, Any]]] = {}
        for tp, error in partition_errors.items():
            by_topic.setdefault(tp.topic, []).append(dict(partition_index=tp.partition, error_code=error))
        markers.append(dict(producer_id=producer_id, topics=[dict(name=name, partitions=partitions)
                                                              for name, partitions in by_topic.items()]))
    return build(_response_schema(request), markers=markers)


def get_error_response(request: Request, throttle_time_ms: int, e: BaseException) -> Any | None:
    """AbstractRequest.getErrorResponse(throttleTimeMs, e) of each API this KafkaApis serves: the response that
    carries the error wherever the API puts one. None where there is none to send."""
    api_error = ApiError.from_throwable(e)
    error, message = api_error.error, api_error.message
    api = request.header.api_key
    version = request.context.api_version()
    body = request.body()
    schema = api.response_schema(version)
    t = throttle_time_ms
    match api:
        case ApiKeys.PRODUCE:
            return produce_response(version, {TopicPartition(topic.name, p.index): PartitionResponse(error)
                                              for topic in body.topic_data for p in topic.partition_data}, t, [], {})
        case ApiKeys.FETCH:
            return fetch_response_body(FetchRequest.from_kio(body).get_error_response(t, e), version)
        case ApiKeys.LIST_OFFSETS:
            return build(schema, throttle_time=t, topics=[dict(name=topic.name, partitions=[
                dict(partition_index=p.partition_index, error_code=error, timestamp=UNKNOWN_TIMESTAMP,
                     offset=UNKNOWN_OFFSET, old_style_offsets=()) for p in topic.partitions]) for topic in body.topics])
        case ApiKeys.METADATA:
            # the response's name is not nullable: a nameless topic is answered as ""
            topics = [] if body.topics is None else [dict(error_code=error, name=getattr(t_, "name", None) or "",
                                                          topic_id=getattr(t_, "topic_id", ZERO_UUID),
                                                          is_internal=False, partitions=[])
                                                     for t_ in body.topics]
            return build(schema, throttle_time=t, brokers=[], cluster_id=None, controller_id=NO_CONTROLLER_ID,
                         topics=topics)
        case ApiKeys.OFFSET_COMMIT:
            return build(schema, throttle_time=t, topics=[dict(name=topic.name, partitions=[
                dict(partition_index=p.partition_index, error_code=error) for p in topic.partitions])
                for topic in body.topics])
        case ApiKeys.OFFSET_FETCH:
            if version >= 8:
                return build(schema, throttle_time=t, groups=[dict(group_id=g.group_id, error_code=error, topics=[])
                                                              for g in body.groups])
            if version < 2:
                return build(schema, throttle_time=t, topics=[dict(name=topic.name, partitions=[
                    dict(partition_index=p, committed_offset=-1, committed_leader_epoch=-1, metadata="",
                         error_code=error) for p in topic.partition_indexes]) for topic in body.topics or ()])
            return build(schema, throttle_time=t, error_code=error, topics=[])
        case ApiKeys.FIND_COORDINATOR:
            if version >= 4:
                return build(schema, throttle_time=t, coordinators=[
                    dict(key=key, error_code=error, error_message=message, node_id=-1, host="", port=-1)
                    for key in body.coordinator_keys])
            return build(schema, throttle_time=t, error_code=error, error_message=message, node_id=-1, host="",
                         port=-1)
        case ApiKeys.JOIN_GROUP:
            return build(schema, throttle_time=t, error_code=error, generation_id=-1, protocol_type=None,
                         protocol_name="" if version < 7 else None, leader="", member_id="", members=[])
        case ApiKeys.SYNC_GROUP:
            return build(schema, throttle_time=t, error_code=error, assignment=b"", protocol_type=None,
                         protocol_name=None)
        case ApiKeys.HEARTBEAT:
            return build(schema, throttle_time=t, error_code=error)
        case ApiKeys.LEAVE_GROUP:
            return build(schema, throttle_time=t, error_code=error, members=[])
        case ApiKeys.DESCRIBE_GROUPS:
            return build(schema, throttle_time=t, groups=[describe_groups_group_error(g, error)
                                                          for g in body.groups])
        case ApiKeys.LIST_GROUPS:
            return build(schema, throttle_time=t, error_code=error, groups=[])
        case ApiKeys.DELETE_GROUPS:
            return build(schema, throttle_time=t, results=[dict(group_id=g, error_code=error)
                                                           for g in body.groups_names])
        case ApiKeys.SASL_HANDSHAKE:
            return build(schema, error_code=error, mechanisms=())
        case ApiKeys.SASL_AUTHENTICATE:
            return build(schema, error_code=error, error_message=message, auth_bytes=b"", session_lifetime=0)
        case ApiKeys.API_VERSIONS:
            # UNSUPPORTED_VERSION lists ApiVersions' own range, so the client can retry at one it has (KIP-511)
            api_keys = ([dict(api_key=ApiKeys.API_VERSIONS.id, min_version=ApiKeys.API_VERSIONS.oldest_version,
                              max_version=ApiKeys.API_VERSIONS.latest_version)]
                        if error == Errors.UNSUPPORTED_VERSION else [])
            return build(schema, error_code=error, api_keys=api_keys, throttle_time=t)
        case ApiKeys.CREATE_TOPICS:
            return build(schema, throttle_time=t, topics=[
                dict(name=topic.name, topic_id=ZERO_UUID, error_code=error, error_message=message, configs=[])
                for topic in body.topics])
        case ApiKeys.DELETE_TOPICS:
            topics = [dict(name=topic.name, topic_id=topic.topic_id) for topic in getattr(body, "topics", ())]
            topics += [dict(name=name, topic_id=ZERO_UUID) for name in getattr(body, "topic_names", ())]
            return build(schema, throttle_time=t, responses=[dict(topic, error_code=error, error_message=message)
                                                             for topic in topics])
        case ApiKeys.CREATE_PARTITIONS:
            return build(schema, throttle_time=t, results=[dict(name=topic.name, error_code=error,
                                                                error_message=message) for topic in body.topics])
        case ApiKeys.DELETE_RECORDS:
            return build(schema, throttle_time=t, topics=[dict(name=topic.name, partitions=[
                dict(partition_index=p.partition_index, low_watermark=INVALID_LOW_WATERMARK, error_code=error)
                for p in topic.partitions]) for topic in body.topics])
        case ApiKeys.INIT_PRODUCER_ID:
            return build(schema, throttle_time=t, error_code=error, producer_id=NO_PRODUCER_ID,
                         producer_epoch=NO_PRODUCER_EPOCH)
        case ApiKeys.ADD_PARTITIONS_TO_TXN:
            if version < 4:
                return build(schema, throttle_time=t, results_by_topic_v3_and_below=[
                    dict(name=topic.name, results_by_partition=[dict(partition_index=p, partition_error_code=error)
                                                                for p in topic.partitions])
                    for topic in body.v3_and_below_topics])
            return build(schema, throttle_time=t, error_code=error, results_by_transaction=[])
        case ApiKeys.TXN_OFFSET_COMMIT:
            return build(schema, throttle_time=t, topics=[dict(name=topic.name, partitions=[
                dict(partition_index=p.partition_index, error_code=error) for p in topic.partitions])
                for topic in body.topics])
        case ApiKeys.DESCRIBE_TRANSACTIONS:
            return build(schema, throttle_time=t, transaction_states=[_transaction_state_error(transactional_id, error)
                                                                      for transactional_id in body.transactional_ids])
        case ApiKeys.OFFSET_FOR_LEADER_EPOCH:
            return build(schema, throttle_time=t, topics=[dict(topic=topic.topic, partitions=[
                dict(partition=p.partition, error_code=error, leader_epoch=NO_PARTITION_LEADER_EPOCH,
                     end_offset=-1) for p in topic.partitions]) for topic in body.topics])
        case ApiKeys.WRITE_TXN_MARKERS:
            return build(schema, markers=[dict(producer_id=m.producer_id, topics=[
                dict(name=topic.name, partitions=[dict(partition_index=p, error_code=error)
                                                  for p in topic.partition_indexes]) for topic in m.topics])
                for m in body.markers])
        case ApiKeys.CREATE_ACLS:  # part B (issue 24): one result per creation, each with the error
            return build(schema, throttle_time=t, results=[dict(error_code=error, error_message=message)
                                                           for _ in body.creations])
        case ApiKeys.DELETE_ACLS:
            return build(schema, throttle_time=t, filter_results=[dict(error_code=error, error_message=message,
                                                                       matching_acls=[]) for _ in body.filters])
        case ApiKeys.DESCRIBE_CONFIGS:
            return build(schema, throttle_time=t, results=[
                dict(error_code=error, error_message=message, resource_type=r.resource_type,
                     resource_name=r.resource_name, configs=[]) for r in body.resources])
        case ApiKeys.ALTER_CONFIGS | ApiKeys.INCREMENTAL_ALTER_CONFIGS:  # part A
            return build(schema, throttle_time=t if api is ApiKeys.ALTER_CONFIGS else 0, responses=[
                dict(error_code=error, error_message=message, resource_type=r.resource_type,
                     resource_name=r.resource_name) for r in body.resources])
        case ApiKeys.DESCRIBE_CLIENT_QUOTAS:  # part A
            return build(schema, throttle_time=t, error_code=error, error_message=message, entries=None)
        case ApiKeys.ALTER_CLIENT_QUOTAS:  # part A
            return build(schema, throttle_time=t, entries=[
                dict(entity=[dict(entity_type=e.entity_type, entity_name=e.entity_name) for e in entry.entity],
                     error_code=error, error_message=None) for entry in body.entries])
        case ApiKeys.DESCRIBE_USER_SCRAM_CREDENTIALS:  # part A
            return build(schema, throttle_time=t, error_code=error, error_message=message, results=[
                dict(user="", error_code=error, error_message=message, credential_infos=[])
                for _ in body.users or ()])
        case ApiKeys.ALTER_USER_SCRAM_CREDENTIALS:  # part A
            users = sorted({d.name for d in body.deletions} | {u.name for u in body.upsertions})
            return build(schema, throttle_time=0, results=[dict(user=user, error_code=error, error_message=message)
                                                           for user in users])
        case ApiKeys.UPDATE_FEATURES:  # part A: UpdateFeaturesResponse.createWithErrors(error, {}, throttle)
            return build(schema, throttle_time=t, error_code=error, error_message=message, results=[])
        case ApiKeys.ALTER_REPLICA_LOG_DIRS:
            return build(schema, throttle_time=t, results=[
                dict(topic_name=topic.name, partitions=[dict(partition_index=p, error_code=error)
                                                        for p in topic.partitions])
                for alter_dir in body.dirs for topic in alter_dir.topics])
        case ApiKeys.DESCRIBE_LOG_DIRS:
            return build(schema, throttle_time=t, error_code=error, results=[])
        case ApiKeys.DESCRIBE_CLUSTER:
            return build(schema, throttle_time=t, error_code=error, error_message=message, cluster_id="",
                         controller_id=-1, brokers=[], cluster_authorized_operations=INT_MIN)
        case ApiKeys.ELECT_LEADERS:
            return build(schema, throttle_time=t, error_code=error, replica_election_results=[
                dict(topic=topic.topic, partition_result=[dict(partition_id=p, error_code=error, error_message=message)
                                                          for p in topic.partitions])
                for topic in (body.topic_partitions or ())])
        case ApiKeys.ALTER_PARTITION_REASSIGNMENTS:
            return build(schema, throttle_time=t, error_code=error, error_message=message, responses=[
                dict(name=topic.name, partitions=[dict(partition_index=p.partition_index, error_code=error,
                                                       error_message=message) for p in topic.partitions])
                for topic in body.topics])
        case ApiKeys.LIST_PARTITION_REASSIGNMENTS:
            return build(schema, throttle_time=t, error_code=error, error_message=message, topics=[
                dict(name=topic.name, partitions=[dict(partition_index=p, replicas=[], adding_replicas=[],
                                                       removing_replicas=[]) for p in topic.partition_indexes])
                for topic in (body.topics or ())])
        case ApiKeys.DESCRIBE_PRODUCERS:
            return build(schema, throttle_time=t, topics=[
                dict(name=topic.name, partitions=[dict(partition_index=p, error_code=error, error_message=None,
                                                       active_producers=[]) for p in topic.partition_indexes])
                for topic in body.topics])
        case ApiKeys.CONSUMER_GROUP_HEARTBEAT:
            return build(schema, **consumer_group_heartbeat_response_data(throttle_time=t, error_code=error,
                                                                          error_message=message))
        case ApiKeys.CONSUMER_GROUP_DESCRIBE:
            return build(schema, throttle_time=t, groups=[
                consumer_group_describe_described_group(group_id=group_id, error_code=error, error_message=message)
                for group_id in body.group_ids])
        case ApiKeys.DESCRIBE_TOPIC_PARTITIONS:
            return build(schema, throttle_time=t, topics=[dict(error_code=error, name=topic.name,
                                                               topic_id=ZERO_UUID, is_internal=False, partitions=[])
                                                          for topic in body.topics], next_cursor=None)
    return _error_body(schema, error, message, t)


def _error_body(schema: type[Any], error: Errors, message: str | None, throttle_time_ms: int) -> Any:
    """A response with its error code set and every other field at its default, for the APIs answered by one
    top-level error."""
    kwargs: dict[str, Any] = {}
    for f in dataclasses.fields(schema):
        if f.name == "error_code":
            kwargs[f.name] = error
        elif f.name == "error_message":
            kwargs[f.name] = message
        elif f.name == "throttle_time":
            kwargs[f.name] = datetime.timedelta(milliseconds=throttle_time_ms)
        elif f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
            kind = classify_field(f)
            if isinstance(kind, (EntityTupleField, PrimitiveTupleField)):
                kwargs[f.name] = ()
            elif isinstance(kind, PrimitiveField) and issubclass(kind.type_, datetime.timedelta):
                kwargs[f.name] = datetime.timedelta(0)
            elif isinstance(kind, PrimitiveField) and issubclass(kind.type_, bool):
                kwargs[f.name] = False
            elif isinstance(kind, PrimitiveField) and issubclass(kind.type_, str):
                kwargs[f.name] = ""
            elif isinstance(kind, PrimitiveField) and issubclass(kind.type_, uuid.UUID):
                kwargs[f.name] = ZERO_UUID
            else:
                kwargs[f.name] = 0
    return schema(**kwargs)
