"""Project-own module, not a port: the seams that let the KRaft broker run Kafka 1.0.2's GroupCoordinator and
TransactionCoordinator (kafka_edu/v1_0_2/core/coordinator/) on Kafka 3.9's ReplicaManager and UnifiedLog. It goes
when issue 25 ports 3.9's own coordinators.

Two faces:

- `CoordinatorReplicaManager` is the part of a ReplicaManager that 1.0.2's GroupMetadataManager and
  TransactionStateManager use (append_records, get_log, get_log_end_offset, get_partition, get_magic), answered by
  3.9's ReplicaManager: appends go through 3.9's append_records with the COORDINATOR origin, as 3.9's coordinators
  append, and come back in 1.0.2's PartitionResponse shape; the loaders' reads of a partition's log are 3.9
  UnifiedLog reads up to the log end (FetchIsolation.LOG_END, as 3.9's loaders read) returned as the bytes 1.0.2's
  MemoryRecords iterates.
- `TransactionCoordinatorAdapter` gives 1.0.2's TransactionCoordinator the method names and arguments 3.9's KafkaApis
  calls (core/src/main/scala/kafka/coordinator/transaction/TransactionCoordinator.scala, Kafka 3.9): the request-local
  buffers are dropped, a fenced producer is PRODUCER_FENCED (1.0.2 said INVALID_PRODUCER_EPOCH; KafkaApis turns it
  back for old request versions), and what 1.0.2 lacks is done here over its state manager: the expected producer id
  and epoch of InitProducerId v3+ (KIP-360; 1.0.2 keeps no last producer id and epoch, so a retry whose previous
  bump was lost is fenced), the fencing of an EndTxn at any epoch but the producer's (1.0.2 fenced only older ones),
  ListTransactions, DescribeTransactions and the verify-only AddPartitionsToTxn (KIP-890).
  Results come as the responses' fields (kio's snake_case names), as the group side's do.

(The group side is kafka_edu/v3_9/core/coordinator/group/group_coordinator_adapter.py, a port of 3.9's adapter.)
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from kafka_edu.tracing import step
from kafka_edu.v1_0_2.clients.common.errors import IllegalArgumentException
from kafka_edu.v1_0_2.clients.common.requests.transaction_result import TransactionResult
from kafka_edu.v1_0_2.core.coordinator.transaction.transaction_coordinator import (
    InitProducerIdResult,
    TransactionCoordinator,
    transaction_config_from,
)
from kafka_edu.v1_0_2.core.coordinator.transaction.transaction_marker_channel_manager import (
    TransactionMarkerChannelManager,
)
from kafka_edu.v1_0_2.core.coordinator.transaction.transaction_metadata import (
    CompleteAbort,
    CompleteCommit,
    Dead,
    Empty,
    Ongoing,
    PrepareAbort,
    PrepareCommit,
    PrepareEpochFence,
)
from kafka_edu.v1_0_2.core.coordinator.transaction.transaction_state_manager import TransactionStateManager
from kafka_edu.v1_0_2.core.server.delayed_operation import DelayedOperationPurgatory
from kafka_edu.v1_0_2.core.utils.kafka_scheduler import KafkaScheduler
from kafka_edu.v3_9.clients.common.internals.topic import GROUP_METADATA_TOPIC_NAME
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from kafka_edu.v3_9.clients.common.record.file_records import FileRecords
from kafka_edu.v3_9.clients.common.record.memory_records import MemoryRecords
from kafka_edu.v3_9.clients.common.record.record_batch import (
    CURRENT_MAGIC_VALUE,
    NO_PRODUCER_EPOCH,
    NO_PRODUCER_ID,
    NO_SEQUENCE,
)
from kafka_edu.v3_9.clients.common.requests.produce_response import PartitionResponse as PartitionResponse39
from kafka_edu.v3_9.clients.common.topic_partition import TopicPartition
from kafka_edu.v3_9.clients.common.utils.time import SYSTEM, Time
from kafka_edu.v3_9.core.cluster.partition import Partition
from kafka_edu.v3_9.core.log.unified_log import UnifiedLog
from kafka_edu.v3_9.core.server.add_partitions_to_txn_manager import default_error, generic_error
from kafka_edu.v3_9.core.server.kafka_request_handler import wrap_async_callback
from kafka_edu.v3_9.core.server.replica_manager import ReplicaManager
from kafka_edu.v3_9.storage.storage.internals.log.append_origin import AppendOrigin
from kafka_edu.v3_9.storage.storage.internals.log.fetch_isolation import FetchIsolation
from kafka_edu.v3_9.storage.storage.internals.log.verification_guard import VerificationGuard

log = logging.getLogger("kafka.server.KRaftCoordinatorBridge")


# -- the ReplicaManager face of 1.0.2's coordinators -----------------------------------------------------------


@dataclass
class PartitionResponse:
    """1.0.2's ProduceResponse.PartitionResponse, the shape 1.0.2's coordinators read their appends' outcome in."""

    error: Errors
    base_offset: int = -1
    log_append_time: int = -1
    log_start_offset: int = -1


class CoordinatorReplicaManager:
    """3.9's ReplicaManager as 1.0.2's GroupMetadataManager and TransactionStateManager call it."""

    def __init__(self, replica_manager: ReplicaManager) -> None:
        self.replica_manager = replica_manager
        self._verified = threading.local()

    @contextmanager
    def appending_verified(self, verification_guards: dict[TopicPartition, VerificationGuard]) -> Iterator[None]:
        """The appends made inside carry these guards (3.9's old coordinator hands its append the guard its
        transaction verification returned; 1.0.2's append_records has no such argument)."""
        self._verified.guards = verification_guards
        try:
            yield
        finally:
            self._verified.guards = None

    def append_records(self, timeout: int, required_acks: int, internal_topics_allowed: bool, is_from_client: bool,
                       entries_per_partition: dict[Any, bytes],
                       response_callback: Callable[[dict[TopicPartition, PartitionResponse]], None]) -> None:
        """Their records are written by the coordinator, not produced: 3.9 validates them as such."""
        def callback(responses: dict[TopicPartition, PartitionResponse39]) -> None:
            response_callback({tp: PartitionResponse(response.error, response.base_offset, response.log_append_time,
                                                     response.log_start_offset)
                               for tp, response in responses.items()})

        self.replica_manager.append_records(
            timeout=timeout,
            required_acks=required_acks,
            internal_topics_allowed=internal_topics_allowed,
            origin=AppendOrigin.CLIENT if is_from_client else AppendOrigin.COORDINATOR,
            entries_per_partition={TopicPartition(*tp): MemoryRecords.readable_records(bytes(records))
                                   for tp, records in entries_per_partition.items()},
            response_callback=callback,
            verification_guards=getattr(self._verified, "guards", None))

    def get_log(self, topic_partition: Any) -> CoordinatorLog | None:
        unified_log = self.replica_manager.get_log(TopicPartition(*topic_partition))
        return CoordinatorLog(unified_log) if unified_log is not None else None

    def get_log_end_offset(self, topic_partition: Any) -> int | None:
        """The log end offset of a partition this broker leads, None otherwise."""
        return self.replica_manager.get_log_end_offset(TopicPartition(*topic_partition))

    def get_partition(self, topic_partition: Any) -> CoordinatorPartition | None:
        partition = self.replica_manager.online_partition(TopicPartition(*topic_partition))
        return CoordinatorPartition(partition) if partition is not None else None

    def get_magic(self, topic_partition: Any) -> int | None:
        """ReplicaManager.getMagic: the record version of the local log, None without one (3.9 writes v2 only)."""
        log_config = self.replica_manager.get_log_config(TopicPartition(*topic_partition))
        return CURRENT_MAGIC_VALUE if log_config is not None else None


class CoordinatorLog:
    """A 3.9 UnifiedLog as 1.0.2's loaders read it: from its start offset, in bytes."""

    def __init__(self, unified_log: UnifiedLog) -> None:
        self.unified_log = unified_log

    @property
    def log_start_offset(self) -> int:
        return self.unified_log.log_start_offset

    def read(self, start_offset: int, max_length: int, max_offset: int | None = None,
             min_one_message: bool = False) -> bytes:
        """1.0.2's Log.read(start, max length, max offset, min one message). The loaders read up to the log end
        (no max offset), which is 3.9's LOG_END isolation; 3.9's read takes no other bound."""
        if max_offset is not None:
            raise IllegalArgumentException(f"A coordinator's load reads up to the log end, not to {max_offset}")
        fetch_data_info = self.unified_log.read(start_offset, max_length, FetchIsolation.LOG_END, min_one_message)
        records = fetch_data_info.records
        if isinstance(records, FileRecords):
            # the loaders copy the file's bytes into a buffer, as 3.9's do
            buffer = bytearray(records.size_in_bytes())
            records.read_into(buffer, 0)
            return bytes(buffer)
        return bytes(records.buffer())


class CoordinatorPartition:
    """A 3.9 Partition as 1.0.2's offsets cleanup appends its tombstones to it."""

    def __init__(self, partition: Partition) -> None:
        self.partition = partition

    def append_records_to_leader(self, records: bytes, is_from_client: bool = False, required_acks: int = 0) -> Any:
        return self.partition.append_records_to_leader(
            MemoryRecords.readable_records(bytes(records)),
            AppendOrigin.CLIENT if is_from_client else AppendOrigin.COORDINATOR,
            required_acks)


# -- 3.9's TransactionCoordinator calls on 1.0.2's -------------------------------------------------------------


def _fenced(error: Errors) -> Errors:
    """3.9's coordinator answers a fenced producer PRODUCER_FENCED where 1.0.2's said INVALID_PRODUCER_EPOCH."""
    return Errors.PRODUCER_FENCED if error == Errors.INVALID_PRODUCER_EPOCH else error


class VerifyingGroupCoordinator:
    """1.0.2's GroupCoordinator with the step 3.9's old GroupCoordinator.handleTxnCommitOffsets takes first: this
    broker, the leader of the group's offsets partition, has the transaction coordinator verify that the producer's
    transaction includes that partition (KIP-890, through the AddPartitionsToTxnManager), and the offsets are appended
    with the guard the verification gave; otherwise 3.9's log refuses the transactional batch. Everything else is
    1.0.2's coordinator's own."""

    def __init__(self, coordinator: Any) -> None:
        self.coordinator = coordinator

    def __getattr__(self, name: str) -> Any:
        return getattr(self.coordinator, name)

    def handle_txn_commit_offsets(self, group_id: str, producer_id: int, producer_epoch: int,
                                  offset_metadata: dict[Any, Any],
                                  response_callback: Callable[[dict[Any, Errors]], None], *,
                                  transactional_id: str | None = None, api_version: int = 0,
                                  request_local: Any = None) -> None:
        group_manager = self.coordinator.group_manager
        bridge: CoordinatorReplicaManager = group_manager.replica_manager
        if transactional_id is None:
            self.coordinator.handle_txn_commit_offsets(group_id, producer_id, producer_epoch, offset_metadata,
                                                       response_callback)
            return
        offset_topic_partition = TopicPartition(GROUP_METADATA_TOPIC_NAME, self.coordinator.partition_for(group_id))

        def post_verification_callback(new_request_local: Any, error_and_guard: tuple[Errors, Any]) -> None:
            error, verification_guard = error_and_guard
            if error is not Errors.NONE:
                final_error = maybe_convert_offset_commit_error(error)
                response_callback({tp: final_error for tp in offset_metadata})
                return
            with bridge.appending_verified({offset_topic_partition: verification_guard}):
                self.coordinator.handle_txn_commit_offsets(group_id, producer_id, producer_epoch, offset_metadata,
                                                           response_callback)

        bridge.replica_manager.maybe_start_transaction_verification_for_partition(
            offset_topic_partition, transactional_id, producer_id, producer_epoch, NO_SEQUENCE,
            # completed on a request handler thread when the verification answers later
            wrap_async_callback(post_verification_callback, request_local),
            generic_error if api_version >= 4 else default_error)


def maybe_convert_offset_commit_error(error: Errors) -> Errors:
    """GroupMetadataManager.maybeConvertOffsetCommitError (Kafka 3.9): a transactional offset commit's storage or
    verification error as the client is told it."""
    match error:
        case Errors.NETWORK_EXCEPTION:  # a failed verification: retried without looking the coordinator up again
            return Errors.COORDINATOR_LOAD_IN_PROGRESS
        case Errors.UNKNOWN_TOPIC_OR_PARTITION | Errors.NOT_ENOUGH_REPLICAS | Errors.NOT_ENOUGH_REPLICAS_AFTER_APPEND:
            return Errors.COORDINATOR_NOT_AVAILABLE
        case Errors.NOT_LEADER_OR_FOLLOWER | Errors.KAFKA_STORAGE_ERROR:
            return Errors.NOT_COORDINATOR
        case Errors.MESSAGE_TOO_LARGE | Errors.RECORD_LIST_TOO_LARGE | Errors.INVALID_FETCH_SIZE:
            return Errors.INVALID_COMMIT_OFFSET_SIZE
        case _:
            return error


class TransactionCoordinatorAdapter:
    """1.0.2's TransactionCoordinator with the methods and arguments of 3.9's, in 3.9's order."""

    def __init__(self, coordinator: TransactionCoordinator, time: Time = SYSTEM) -> None:
        self.coordinator = coordinator
        self.time = time

    @staticmethod
    def apply(config: Any, replica_manager: ReplicaManager, metadata_cache: Any,
              create_producer_id_manager: Callable[[], Any], time: Time = SYSTEM) -> TransactionCoordinatorAdapter:
        """What 3.9's TransactionCoordinator.apply builds, around the old coordinator: its state manager on 3.9's
        ReplicaManager (through this bridge) loading on a one-thread scheduler of its own, the marker channel finding
        each partition's leader in the KRaft metadata cache, and producer ids from the controller."""
        txn_config = transaction_config_from(config)
        scheduler = KafkaScheduler(threads=1, thread_name_prefix="transaction-log-manager-")
        txn_state_manager = TransactionStateManager(config.broker_id, None, scheduler,
                                                    CoordinatorReplicaManager(replica_manager), txn_config,
                                                    time.milliseconds)
        # completed by the markers' responses, never by a timeout: no reaper, as in 1.0.2
        txn_marker_purgatory = DelayedOperationPurgatory("txn-marker-purgatory", config.broker_id)
        txn_marker_channel_manager = TransactionMarkerChannelManager(config, metadata_cache, txn_state_manager,
                                                                     txn_marker_purgatory)
        return TransactionCoordinatorAdapter(TransactionCoordinator(
            config.broker_id, None, create_producer_id_manager, txn_config=txn_config, scheduler=scheduler,
            txn_manager=txn_state_manager, txn_marker_channel_manager=txn_marker_channel_manager,
            time_ms=time.milliseconds), time)

    @step("TX39.init")
    def handle_init_producer_id(self, transactional_id: str | None, transaction_timeout_ms: int,
                                expected_producer_id_and_epoch: Any,
                                response_callback: Callable[[InitProducerIdResult], None],
                                request_local: Any = None) -> None:
        def callback(result: InitProducerIdResult) -> None:
            response_callback(InitProducerIdResult(result.producer_id, result.producer_epoch, _fenced(result.error)))

        if transactional_id and expected_producer_id_and_epoch is not None \
                and not self._is_valid_producer_id(transactional_id, expected_producer_id_and_epoch):
            callback(InitProducerIdResult(NO_PRODUCER_ID, NO_PRODUCER_EPOCH, Errors.PRODUCER_FENCED))
            return
        self.coordinator.handle_init_producer_id(transactional_id, transaction_timeout_ms, callback)

    def _is_valid_producer_id(self, transactional_id: str, producer_id_and_epoch: Any) -> bool:
        """3.9's isValidProducerId with what 1.0.2 keeps: fresh metadata, or the producer's own id and epoch."""
        txn_manager = self.coordinator.txn_manager
        if txn_manager is None:
            return True
        error, epoch_and_metadata = txn_manager.get_transaction_state(transactional_id)
        if error is not None or epoch_and_metadata is None:
            return True  # the coordinator answers these itself
        # a ProducerIdAndEpoch, or the (producer id, epoch) pair KafkaApis reads from the request
        producer_id, epoch = ((producer_id_and_epoch.producer_id, producer_id_and_epoch.epoch)
                              if hasattr(producer_id_and_epoch, "producer_id") else producer_id_and_epoch)
        txn_metadata = epoch_and_metadata.transaction_metadata
        with txn_metadata.in_lock():
            return txn_metadata.producer_epoch == NO_PRODUCER_EPOCH or (
                producer_id == txn_metadata.producer_id and epoch == txn_metadata.producer_epoch)

    def _is_other_epoch(self, transactional_id: str, producer_id: int, producer_epoch: int) -> bool:
        """Whether the transactional id's producer is this one at another epoch (3.9's endTransaction check for
        clients); anything else the coordinator answers itself."""
        txn_manager = self.coordinator.txn_manager
        if txn_manager is None:
            return False
        error, epoch_and_metadata = txn_manager.get_transaction_state(transactional_id)
        if error is not None or epoch_and_metadata is None:
            return False
        txn_metadata = epoch_and_metadata.transaction_metadata
        with txn_metadata.in_lock():
            return txn_metadata.producer_id == producer_id and txn_metadata.producer_epoch != producer_epoch

    def handle_list_transactions(self, filtered_producer_ids: Iterable[int], filtered_states: Iterable[str],
                                 filtered_duration: int = -1) -> dict[str, Any]:
        """TransactionStateManager.listTransactionStates (3.9) over 1.0.2's cache."""
        txn_manager = self.coordinator.txn_manager
        if not self.coordinator.is_active.get():
            return dict(error_code=Errors.COORDINATOR_NOT_AVAILABLE, unknown_state_filters=[], transaction_states=[])
        filtered_producer_ids = set(filtered_producer_ids)
        filtered_states = set(filtered_states)
        states_by_name = {state.name: state for state in _TRANSACTION_STATES}
        unknown_state_filters = [name for name in filtered_states if name not in states_by_name]
        filter_states = {states_by_name[name] for name in filtered_states if name in states_by_name}
        if txn_manager is None:
            return dict(error_code=Errors.NONE, unknown_state_filters=unknown_state_filters, transaction_states=[])
        with txn_manager.state_lock.read_lock():
            if txn_manager.loading_partitions:
                return dict(error_code=Errors.COORDINATOR_LOAD_IN_PROGRESS, unknown_state_filters=[],
                            transaction_states=[])
            now = self.time.milliseconds()

            def should_include(txn_metadata: Any) -> bool:
                if txn_metadata.state is Dead:
                    # being expired and removed
                    return False
                if filtered_producer_ids and txn_metadata.producer_id not in filtered_producer_ids:
                    return False
                if filtered_states and txn_metadata.state not in filter_states:
                    return False
                return not (filtered_duration >= 0 and now - txn_metadata.txn_start_timestamp <= filtered_duration)

            states = []
            for entry in list(txn_manager.transaction_metadata_cache.values()):
                for txn_metadata in list(entry.metadata_per_transactional_id.values()):
                    with txn_metadata.in_lock():
                        if should_include(txn_metadata):
                            states.append(dict(transactional_id=txn_metadata.transactional_id,
                                               producer_id=txn_metadata.producer_id,
                                               transaction_state=txn_metadata.state.name))
            return dict(error_code=Errors.NONE, unknown_state_filters=unknown_state_filters,
                        transaction_states=states)

    def handle_describe_transactions(self, transactional_id: str) -> dict[str, Any]:
        """DescribeTransactionsResponseData.TransactionState's fields (kio's names)."""
        if transactional_id is None:
            raise ValueError("Invalid null transactionalId")
        # the message's defaults, kept where an error answers
        transaction_state: dict[str, Any] = dict(transactional_id=transactional_id, transaction_state="",
                                                 transaction_timeout=0, transaction_start_time=_from_ms(0),
                                                 producer_id=0, producer_epoch=0, topics=[])
        txn_manager = self.coordinator.txn_manager
        if not self.coordinator.is_active.get():
            transaction_state["error_code"] = Errors.COORDINATOR_NOT_AVAILABLE
        elif not transactional_id:
            transaction_state["error_code"] = Errors.INVALID_REQUEST
        elif txn_manager is None:
            transaction_state["error_code"] = Errors.NOT_COORDINATOR
        else:
            error, epoch_and_metadata = txn_manager.get_transaction_state(transactional_id)
            if error is not None:
                transaction_state["error_code"] = error
            elif epoch_and_metadata is None:
                transaction_state["error_code"] = Errors.TRANSACTIONAL_ID_NOT_FOUND
            else:
                txn_metadata = epoch_and_metadata.transaction_metadata
                with txn_metadata.in_lock():
                    if txn_metadata.state is Dead:
                        # being expired: as if it were gone
                        transaction_state["error_code"] = Errors.TRANSACTIONAL_ID_NOT_FOUND
                    else:
                        topics: dict[str, dict[str, Any]] = {}
                        for tp in txn_metadata.topic_partitions:
                            topics.setdefault(tp.topic, dict(topic=tp.topic, partitions=[]))["partitions"].append(
                                tp.partition)
                        transaction_state.update(
                            error_code=Errors.NONE,
                            producer_id=txn_metadata.producer_id,
                            producer_epoch=txn_metadata.producer_epoch,
                            transaction_state=txn_metadata.state.name,
                            transaction_timeout=txn_metadata.txn_timeout_ms,
                            transaction_start_time=_from_ms(txn_metadata.txn_start_timestamp),
                            topics=list(topics.values()))
        return transaction_state

    @step("TX39.vcheck")
    def handle_verify_partitions_in_transaction(self, transactional_id: str, producer_id: int, producer_epoch: int,
                                                partitions: Iterable[Any],
                                                response_callback: Callable[[dict[str, Any]], None]) -> None:
        """Answers AddPartitionsToTxnResponse.resultForTransaction's fields: the transactional id and its topics'
        partition errors."""
        partitions = [TopicPartition(*tp) for tp in partitions]
        txn_manager = self.coordinator.txn_manager
        if not transactional_id:
            response_callback(_result_for_transaction(transactional_id, {tp: Errors.INVALID_REQUEST
                                                                         for tp in partitions}))
            return
        if txn_manager is None:
            response_callback(_result_for_transaction(transactional_id, {tp: Errors.NOT_COORDINATOR
                                                                         for tp in partitions}))
            return
        error, epoch_and_metadata = txn_manager.get_transaction_state(transactional_id)
        errors: dict[TopicPartition, Errors] | None = None
        if error is None and epoch_and_metadata is None:
            error = Errors.INVALID_PRODUCER_ID_MAPPING
        elif error is None:
            txn_metadata = epoch_and_metadata.transaction_metadata
            # pending transitions are not checked: the append to the log validates once more
            with txn_metadata.in_lock():
                if txn_metadata.producer_id != producer_id:
                    error = Errors.INVALID_PRODUCER_ID_MAPPING
                elif txn_metadata.producer_epoch != producer_epoch:
                    error = Errors.PRODUCER_FENCED
                elif txn_metadata.state is PrepareCommit or txn_metadata.state is PrepareAbort:
                    error = Errors.CONCURRENT_TRANSACTIONS
                else:
                    errors = {tp: Errors.NONE if tp in txn_metadata.topic_partitions else Errors.TRANSACTION_ABORTABLE
                              for tp in partitions}
        if errors is None:
            errors = {tp: error for tp in partitions}
        response_callback(_result_for_transaction(transactional_id, errors))

    def handle_add_partitions_to_transaction(self, transactional_id: str, producer_id: int, producer_epoch: int,
                                             partitions: Iterable[Any], response_callback: Callable[[Errors], None],
                                             request_local: Any = None) -> None:
        self.coordinator.handle_add_partitions_to_transaction(
            transactional_id, producer_id, producer_epoch, partitions,
            lambda error: response_callback(_fenced(error)))

    def on_election(self, txn_topic_partition_id: int, coordinator_epoch: int) -> None:
        log.info("Elected as the txn coordinator for partition %d at epoch %d", txn_topic_partition_id,
                 coordinator_epoch)
        # Loading must not trip over markers left from an earlier term of this partition.
        self.coordinator.txn_marker_channel_manager.remove_markers_for_txn_topic_partition(txn_topic_partition_id)
        self.coordinator.handle_txn_immigration(txn_topic_partition_id, coordinator_epoch)

    def on_resignation(self, txn_topic_partition_id: int, coordinator_epoch: int | None) -> None:
        log.info("Resigned as the txn coordinator for partition %d at epoch %s", txn_topic_partition_id,
                 coordinator_epoch)
        if coordinator_epoch is None:
            # 3.9 then removes whatever epoch the partition was loaded with; 1.0.2 needs it named
            entry = self.coordinator.txn_manager.transaction_metadata_cache.get(txn_topic_partition_id)
            coordinator_epoch = entry.coordinator_epoch if entry is not None else 0
        self.coordinator.handle_txn_emigration(txn_topic_partition_id, coordinator_epoch)

    def handle_end_transaction(self, transactional_id: str, producer_id: int, producer_epoch: int,
                               txn_marker_result: Any, response_callback: Callable[[Errors], None],
                               request_local: Any = None) -> None:
        if transactional_id and self._is_other_epoch(transactional_id, producer_id, producer_epoch):
            # 3.9 fences a client's EndTxn whose epoch is not the current one; 1.0.2 only an older epoch, and would
            # write PrepareCommit/PrepareAbort for a newer one before refusing it, leaving the transaction stuck
            response_callback(Errors.PRODUCER_FENCED)
            return
        self.coordinator.handle_end_transaction(
            transactional_id, producer_id, producer_epoch, TransactionResult[txn_marker_result.name],
            lambda error: response_callback(_fenced(error)))

    def transaction_topic_configs(self) -> dict[str, str]:
        return self.coordinator.transaction_topic_configs()

    def partition_for(self, transactional_id: str) -> int:
        return self.coordinator.partition_for(transactional_id)

    def startup(self, retrieve_transaction_topic_partition_count: Callable[[], int] | None = None,
                enable_transactional_id_expiration: bool = True) -> None:
        # 1.0.2's state manager took the partition count from its config when it was built
        self.coordinator.startup(enable_transactional_id_expiration)

    def shutdown(self) -> None:
        self.coordinator.shutdown()


_TRANSACTION_STATES = (Empty, Ongoing, PrepareCommit, PrepareAbort, CompleteCommit, CompleteAbort, Dead,
                       PrepareEpochFence)


def _from_ms(timestamp_ms: int) -> datetime:
    """kio carries an int64 time as a datetime (-1, no transaction yet, is written back as -1)."""
    return datetime.fromtimestamp(timestamp_ms / 1000, UTC)


def _result_for_transaction(transactional_id: str, errors: dict[TopicPartition, Errors]) -> dict[str, Any]:
    """AddPartitionsToTxnResponse.resultForTransaction: the errors grouped by topic."""
    topics: dict[str, dict[str, Any]] = {}
    for tp, error in errors.items():
        topics.setdefault(tp.topic, dict(name=tp.topic, results_by_partition=[]))["results_by_partition"].append(
            dict(partition_index=tp.partition, partition_error_code=error))
    return dict(transactional_id=transactional_id, topic_results=list(topics.values()))
