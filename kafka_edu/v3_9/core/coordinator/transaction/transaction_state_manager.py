"""Port of core/src/main/scala/kafka/coordinator/transaction/TransactionStateManager.scala (Kafka 3.9).

Scala's `Either[Errors, X]` is a pair `(error, x)` here, as in the 1.0.2 port: `(Errors.X, None)` is a Left,
`(None, x)` a Right. ListTransactionsResponseData is the dict the broker builds its response from (`error_code`,
`unknown_state_filters`, `transaction_states`). Kafka's partition-load-time sensor is not kept: the port has no
metrics registry, so `metrics` is accepted and unused.

Lock order, as Kafka's: the state lock's read lock before any transactional id's lock, never the other way round;
no id's lock under the state write lock; never an append to the log under an id's lock.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from kafka_edu.tracing import step
from kafka_edu.v1_0_2.clients.common.errors import IllegalArgumentException, IllegalStateException, KafkaException
from kafka_edu.v1_0_2.clients.common.requests.transaction_result import TransactionResult
from kafka_edu.v1_0_2.core.utils.kafka_logging import Logging
from kafka_edu.v3_9.clients.common.internals.topic import TRANSACTION_STATE_TOPIC_NAME
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from kafka_edu.v3_9.clients.common.record.memory_records import MemoryRecords
from kafka_edu.v3_9.clients.common.record.memory_records_builder import MemoryRecordsBuilder
from kafka_edu.v3_9.clients.common.record.record import EMPTY_HEADERS
from kafka_edu.v3_9.clients.common.record.simple_record import SimpleRecord
from kafka_edu.v3_9.clients.common.record.timestamp_type import TimestampType
from kafka_edu.v3_9.clients.common.requests.produce_response import PartitionResponse
from kafka_edu.v3_9.clients.common.topic_partition import TopicPartition
from kafka_edu.v3_9.clients.common.utils.utils import java_string_hash_code, utils_abs
from kafka_edu.v3_9.core.cluster.partition import _ReentrantReadWriteLock as ReentrantReadWriteLock
from kafka_edu.v3_9.core.coordinator.transaction.transaction_log import TransactionLog, TxnKey, UnknownKey
from kafka_edu.v3_9.core.coordinator.transaction.transaction_metadata import (
    Dead,
    Ongoing,
    PrepareAbort,
    PrepareCommit,
    TransactionMetadata,
    TransactionState,
    TxnTransitMetadata,
)
from kafka_edu.v3_9.core.server.request_local import RequestLocal
from kafka_edu.v3_9.server.server.config.server_configs import REQUEST_TIMEOUT_MS_DEFAULT
from kafka_edu.v3_9.storage.storage.internals.log.append_origin import AppendOrigin
from kafka_edu.v3_9.storage.storage.internals.log.fetch_isolation import FetchIsolation
from kafka_edu.v3_9.transaction_coordinator.coordinator.transaction import (
    transaction_log_configs as log_configs,
)
from kafka_edu.v3_9.transaction_coordinator.coordinator.transaction import (
    transaction_state_manager_configs as manager_configs,
)

TRANSACTION_VERSION_FEATURE_NAME = "transaction.version"  # TransactionVersion.FEATURE_NAME

# (coordinator epoch, result, metadata, transit to the completed state)
SendTxnMarkersCallback = Callable[[int, TransactionResult, TransactionMetadata, TxnTransitMetadata], None]


@dataclass
class TxnMetadataCacheEntry:
    coordinator_epoch: int
    metadata_per_transactional_id: dict[str, TransactionMetadata]

    def __str__(self) -> str:
        return (f"TxnMetadataCacheEntry(coordinatorEpoch={self.coordinator_epoch}, "
                f"numTransactionalEntries={len(self.metadata_per_transactional_id)})")


@dataclass(frozen=True)
class CoordinatorEpochAndTxnMetadata:
    coordinator_epoch: int
    transaction_metadata: TransactionMetadata


@dataclass(frozen=True)
class TransactionConfig:
    transactional_id_expiration_ms: int = manager_configs.TRANSACTIONAL_ID_EXPIRATION_MS_DEFAULT
    transaction_max_timeout_ms: int = manager_configs.TRANSACTIONS_MAX_TIMEOUT_MS_DEFAULT
    transaction_log_num_partitions: int = log_configs.TRANSACTIONS_TOPIC_PARTITIONS_DEFAULT
    transaction_log_replication_factor: int = log_configs.TRANSACTIONS_TOPIC_REPLICATION_FACTOR_DEFAULT
    transaction_log_segment_bytes: int = log_configs.TRANSACTIONS_TOPIC_SEGMENT_BYTES_DEFAULT
    transaction_log_load_buffer_size: int = log_configs.TRANSACTIONS_LOAD_BUFFER_SIZE_DEFAULT
    transaction_log_min_insync_replicas: int = log_configs.TRANSACTIONS_TOPIC_MIN_ISR_DEFAULT
    abort_timed_out_transactions_interval_ms: int = (
        manager_configs.TRANSACTIONS_ABORT_TIMED_OUT_TRANSACTION_CLEANUP_INTERVAL_MS_DEFAULT)
    remove_expired_transactional_ids_interval_ms: int = (
        manager_configs.TRANSACTIONS_REMOVE_EXPIRED_TRANSACTIONAL_ID_CLEANUP_INTERVAL_MS_DEFAULT)
    request_timeout_ms: int = REQUEST_TIMEOUT_MS_DEFAULT


@dataclass(frozen=True)
class TransactionalIdAndProducerIdEpoch:
    transactional_id: str
    producer_id: int
    producer_epoch: int

    def __str__(self) -> str:
        return (f"(transactionalId={self.transactional_id}, producerId={self.producer_id}, "
                f"producerEpoch={self.producer_epoch})")


@dataclass(frozen=True)
class TransactionPartitionAndLeaderEpoch:
    txn_partition_id: int
    coordinator_epoch: int


@dataclass(frozen=True)
class TransactionalIdCoordinatorEpochAndMetadata:
    transactional_id: str
    coordinator_epoch: int
    transit_metadata: TxnTransitMetadata


@dataclass(frozen=True)
class TransactionalIdCoordinatorEpochAndTransitMetadata:
    transactional_id: str
    coordinator_epoch: int
    result: TransactionResult
    txn_metadata: TransactionMetadata
    transit_metadata: TxnTransitMetadata


Either = tuple[Errors | None, Any]


class TransactionStateManager:
    """The coordinator's memory and its log: the metadata of every transactional id whose `__transaction_state`
    partition this broker leads, loaded from it, kept durable by appending each transition to it, and expired
    (tombstoned) once idle for `transactional.id.expiration.ms`."""

    def __init__(self, broker_id: int, scheduler: Any, replica_manager: Any, metadata_cache: Any,
                 config: TransactionConfig, time: Any, metrics: Any = None) -> None:
        self.broker_id = broker_id
        self.scheduler = scheduler
        self.replica_manager = replica_manager
        self.metadata_cache = metadata_cache
        self.config = config
        self.time = time
        self.metrics = metrics
        self.log = Logging("kafka.coordinator.transaction.TransactionStateManager",
                           f"[Transaction State Manager {broker_id}]: ")
        self.shutting_down = threading.Event()
        # guards the cache and the loading set; see the module docstring for the order
        self.state_lock = ReentrantReadWriteLock()
        self.loading_partitions: set[TransactionPartitionAndLeaderEpoch] = set()
        self.transaction_metadata_cache: dict[int, TxnMetadataCacheEntry] = {}
        self._retrieve_transaction_topic_partition_count: Callable[[], int] | None = None
        self.transaction_topic_partition_count = 0

    def uses_flexible_records(self) -> bool:
        """TransactionLogValue v1 (flexible) once transaction.version is finalized above 0."""
        finalized = self.metadata_cache.features().finalized_features()
        return finalized.get(TRANSACTION_VERSION_FEATURE_NAME, 0) > 0

    def add_loading_partition(self, partition_id: int, coordinator_epoch: int) -> None:
        """For tests: mark a partition as loading."""
        with self.state_lock.write_lock():
            self.loading_partitions.add(TransactionPartitionAndLeaderEpoch(partition_id, coordinator_epoch))

    def timed_out_transactions(self) -> list[TransactionalIdAndProducerIdEpoch]:
        """Ongoing transactions past their timeout. Best effort, without the ids' locks: the abort takes them."""
        now = self.time.milliseconds()
        with self.state_lock.read_lock():
            return [TransactionalIdAndProducerIdEpoch(txn_id, txn_metadata.producer_id, txn_metadata.producer_epoch)
                    for entry in self.transaction_metadata_cache.values()
                    for txn_id, txn_metadata in list(entry.metadata_per_transactional_id.items())
                    if not txn_metadata.pending_transition_in_progress and txn_metadata.state is Ongoing
                    and txn_metadata.txn_start_timestamp + txn_metadata.txn_timeout_ms < now]

    def _remove_expired_transactional_ids_for_partition(self, transaction_partition: TopicPartition,
                                                        txn_metadata_cache_entry: TxnMetadataCacheEntry) -> None:
        with self.state_lock.read_lock():
            log_config = self.replica_manager.get_log_config(transaction_partition)
            if log_config is None:
                self.log.warning("Transaction expiration for partition %s failed because the log config was not "
                                 "available, which likely means the partition is not online or is no longer local.",
                                 transaction_partition)
                return
            current_time_ms = self.time.milliseconds()
            max_batch_size = log_config.max_message_size()
            expired: list[TransactionalIdCoordinatorEpochAndMetadata] = []
            records_builder: MemoryRecordsBuilder | None = None
            state_entries = list(txn_metadata_cache_entry.metadata_per_transactional_id.values())

            def flush_records_builder() -> None:
                nonlocal records_builder
                assert records_builder is not None
                self._write_tombstones_for_expired_transactional_ids(transaction_partition, list(expired),
                                                                     records_builder.build())
                expired.clear()
                records_builder = None

            index = 0
            while index < len(state_entries):
                txn_metadata = state_entries[index]
                transactional_id = txn_metadata.transactional_id
                full_batch = False
                with txn_metadata.in_lock():
                    if txn_metadata.pending_state is None and self._should_expire(txn_metadata, current_time_ms):
                        if records_builder is None:
                            records_builder = MemoryRecords.builder(
                                bytearray(min(16384, max_batch_size)), compression=TransactionLog.ENFORCED_COMPRESSION,
                                timestamp_type=TimestampType.CREATE_TIME, base_offset=0, max_size=max_batch_size)
                        if self._maybe_append_expiration(txn_metadata, records_builder, current_time_ms):
                            transit_metadata = txn_metadata.prepare_dead()
                            expired.append(TransactionalIdCoordinatorEpochAndMetadata(
                                transactional_id, txn_metadata_cache_entry.coordinator_epoch, transit_metadata))
                        else:
                            full_batch = True
                if full_batch:
                    flush_records_builder()
                else:
                    # the same id is tried again in the next batch only when this one was full
                    index += 1
            if expired:
                flush_records_builder()

    def _should_expire(self, txn_metadata: TransactionMetadata, current_time_ms: int) -> bool:
        return (txn_metadata.state.is_expiration_allowed and txn_metadata.txn_last_update_timestamp
                <= current_time_ms - self.config.transactional_id_expiration_ms)

    def _maybe_append_expiration(self, txn_metadata: TransactionMetadata, records_builder: MemoryRecordsBuilder,
                                 current_time_ms: int) -> bool:
        key_bytes = TransactionLog.key_to_bytes(txn_metadata.transactional_id)
        if records_builder.has_room_for(current_time_ms, key_bytes, None, EMPTY_HEADERS):
            records_builder.append(current_time_ms, key_bytes, None, EMPTY_HEADERS)
            return True
        return False

    def remove_expired_transactional_ids(self) -> None:
        with self.state_lock.read_lock():
            for partition_id, partition_cache_entry in list(self.transaction_metadata_cache.items()):
                transaction_partition = TopicPartition(TRANSACTION_STATE_TOPIC_NAME, partition_id)
                self._remove_expired_transactional_ids_for_partition(transaction_partition, partition_cache_entry)

    def _write_tombstones_for_expired_transactional_ids(
            self, transaction_partition: TopicPartition,
            expired_for_partition: Iterable[TransactionalIdCoordinatorEpochAndMetadata],
            tombstone_records: MemoryRecords) -> None:
        def remove_from_cache_callback(responses: dict[TopicPartition, PartitionResponse]) -> None:
            for topic_partition, response in responses.items():
                with self.state_lock.read_lock():
                    txn_metadata_cache_entry = self.transaction_metadata_cache.get(topic_partition.partition)
                    if txn_metadata_cache_entry is None:
                        continue
                    for id_coordinator_epoch_and_metadata in expired_for_partition:
                        transactional_id = id_coordinator_epoch_and_metadata.transactional_id
                        txn_metadata = txn_metadata_cache_entry.metadata_per_transactional_id[transactional_id]
                        with txn_metadata.in_lock():
                            if (txn_metadata_cache_entry.coordinator_epoch
                                    == id_coordinator_epoch_and_metadata.coordinator_epoch
                                    and txn_metadata.pending_state is Dead
                                    and txn_metadata.producer_epoch
                                    == id_coordinator_epoch_and_metadata.transit_metadata.producer_epoch
                                    and response.error == Errors.NONE):
                                del txn_metadata_cache_entry.metadata_per_transactional_id[transactional_id]
                            else:
                                self.log.warning(
                                    "Failed to remove expired transactionalId: %s from cache. Tombstone append error "
                                    "code: %s, pendingState: %s, producerEpoch: %s, expected producerEpoch: %s, "
                                    "coordinatorEpoch: %s, expected coordinatorEpoch: %s", transactional_id,
                                    response.error, txn_metadata.pending_state, txn_metadata.producer_epoch,
                                    id_coordinator_epoch_and_metadata.transit_metadata.producer_epoch,
                                    txn_metadata_cache_entry.coordinator_epoch,
                                    id_coordinator_epoch_and_metadata.coordinator_epoch)
                                txn_metadata.pending_state = None

        with self.state_lock.read_lock():
            self.replica_manager.append_records(
                timeout=self.config.request_timeout_ms,
                required_acks=TransactionLog.ENFORCED_REQUIRED_ACKS,
                internal_topics_allowed=True,
                origin=AppendOrigin.COORDINATOR,
                entries_per_partition={transaction_partition: tombstone_records},
                response_callback=remove_from_cache_callback,
                request_local=RequestLocal.NO_CACHING)  # type: ignore[attr-defined]

    def enable_transactional_id_expiration(self) -> None:
        self.scheduler.schedule("transactionalId-expiration", self.remove_expired_transactional_ids,
                                self.config.remove_expired_transactional_ids_interval_ms,
                                self.config.remove_expired_transactional_ids_interval_ms)

    def get_transaction_state(self, transactional_id: str) -> Either:
        """(error, None), or (None, CoordinatorEpochAndTxnMetadata or None)."""
        return self._get_and_maybe_add_transaction_state(transactional_id, None)

    def put_transaction_state_if_not_exists(self, txn_metadata: TransactionMetadata) -> Either:
        """(error, None), or (None, CoordinatorEpochAndTxnMetadata) of the id's metadata, this one if it had none."""
        error, epoch_and_metadata = self._get_and_maybe_add_transaction_state(txn_metadata.transactional_id,
                                                                              txn_metadata)
        if error is None and epoch_and_metadata is None:
            raise IllegalStateException(f"Unexpected empty transaction metadata returned while putting {txn_metadata}")
        return error, epoch_and_metadata

    def list_transaction_states(self, filter_producer_ids: set[int], filter_state_names: set[str],
                                filter_duration_ms: int) -> dict[str, Any]:
        with self.state_lock.read_lock():
            response: dict[str, Any] = {"error_code": Errors.NONE, "unknown_state_filters": [],
                                        "transaction_states": []}
            if self.loading_partitions:
                response["error_code"] = Errors.COORDINATOR_LOAD_IN_PROGRESS
                return response
            filter_states: set[TransactionState] = set()
            for state_name in filter_state_names:
                state = TransactionState.from_name(state_name)
                if state is not None:
                    filter_states.add(state)
                else:
                    response["unknown_state_filters"].append(state_name)

            now = self.time.milliseconds()

            def should_include(txn_metadata: TransactionMetadata) -> bool:
                if txn_metadata.state is Dead:
                    # an id on its way out of the cache
                    return False
                if filter_producer_ids and txn_metadata.producer_id not in filter_producer_ids:
                    return False
                if filter_state_names and txn_metadata.state not in filter_states:
                    return False
                return not (filter_duration_ms >= 0 and now - txn_metadata.txn_start_timestamp <= filter_duration_ms)

            states = []
            for cache in self.transaction_metadata_cache.values():
                for txn_metadata in list(cache.metadata_per_transactional_id.values()):
                    with txn_metadata.in_lock():
                        if should_include(txn_metadata):
                            states.append({"transactional_id": txn_metadata.transactional_id,
                                           "producer_id": txn_metadata.producer_id,
                                           "transaction_state": txn_metadata.state.name})
            response["error_code"] = Errors.NONE
            response["transaction_states"] = states
            return response

    def _get_and_maybe_add_transaction_state(self, transactional_id: str,
                                             created_txn_metadata: TransactionMetadata | None) -> Either:
        with self.state_lock.read_lock():
            partition_id = self.partition_for(transactional_id)
            if any(p.txn_partition_id == partition_id for p in self.loading_partitions):
                return Errors.COORDINATOR_LOAD_IN_PROGRESS, None
            cache_entry = self.transaction_metadata_cache.get(partition_id)
            if cache_entry is None:
                return Errors.NOT_COORDINATOR, None
            txn_metadata = cache_entry.metadata_per_transactional_id.get(transactional_id)
            if txn_metadata is None and created_txn_metadata is not None:
                txn_metadata = cache_entry.metadata_per_transactional_id.setdefault(transactional_id,
                                                                                    created_txn_metadata)
            if txn_metadata is None:
                return None, None
            return None, CoordinatorEpochAndTxnMetadata(cache_entry.coordinator_epoch, txn_metadata)

    def validate_transaction_timeout_ms(self, txn_timeout_ms: int) -> bool:
        return 0 < txn_timeout_ms <= self.config.transaction_max_timeout_ms

    def transaction_topic_configs(self) -> dict[str, str]:
        """`__transaction_state` is compacted, uncompressed, with no unclean leader election."""
        return {"unclean.leader.election.enable": "false",
                "compression.type": "uncompressed",
                "cleanup.policy": "compact",
                "min.insync.replicas": str(self.config.transaction_log_min_insync_replicas),
                "segment.bytes": str(self.config.transaction_log_segment_bytes)}

    def partition_for(self, transactional_id: str) -> int:
        return utils_abs(java_string_hash_code(transactional_id)) % self.transaction_topic_partition_count

    def _load_transaction_metadata(self, topic_partition: TopicPartition,
                                   coordinator_epoch: int) -> dict[str, TransactionMetadata]:
        def log_end_offset() -> int:
            # -1 once this broker no longer leads the partition: the loop stops
            end_offset = self.replica_manager.get_log_end_offset(topic_partition)
            return -1 if end_offset is None else end_offset

        def still_loading() -> bool:
            with self.state_lock.read_lock():
                return any(p.txn_partition_id == topic_partition.partition
                           and p.coordinator_epoch == coordinator_epoch for p in self.loading_partitions)

        loaded_transactions: dict[str, TransactionMetadata] = {}
        partition_log = self.replica_manager.get_log(topic_partition)
        if partition_log is None:
            self.log.warning("Attempted to load transaction metadata from %s, but found no log", topic_partition)
            return loaded_transactions

        buffer = bytearray(0)
        curr_offset = partition_log.log_start_offset
        # an empty read means the end of the log was reached
        read_at_least_one_record = True
        try:
            while (curr_offset < log_end_offset() and read_at_least_one_record and not self.shutting_down.is_set()
                   and still_loading()):
                fetch_data_info = partition_log.read(curr_offset,
                                                     max_length=self.config.transaction_log_load_buffer_size,
                                                     isolation=FetchIsolation.LOG_END, min_one_message=True)
                read_at_least_one_record = fetch_data_info.records.size_in_bytes() > 0
                records = fetch_data_info.records
                if isinstance(records, MemoryRecords):
                    mem_records = records
                else:  # FileRecords: copy into the load buffer, growing it for a batch larger than configured
                    size_in_bytes = records.size_in_bytes()
                    bytes_needed = max(self.config.transaction_log_load_buffer_size, size_in_bytes)
                    if len(buffer) < bytes_needed:
                        if self.config.transaction_log_load_buffer_size < bytes_needed:
                            self.log.warning("Loaded transaction metadata from %s with buffer larger (%d bytes) than "
                                             "configured transaction.state.log.load.buffer.size (%d bytes)",
                                             topic_partition, bytes_needed,
                                             self.config.transaction_log_load_buffer_size)
                        buffer = bytearray(bytes_needed)
                    records.read_into(buffer, 0)
                    mem_records = MemoryRecords.readable_records(buffer)

                for batch in mem_records.batches():
                    for record in batch:
                        if not record.has_key():
                            raise IllegalArgumentException("Transaction state log's key should not be null")
                        txn_key = TransactionLog.read_txn_record_key(record.key())
                        if isinstance(txn_key, TxnKey):
                            transactional_id = txn_key.transactional_id
                            txn_metadata = TransactionLog.read_txn_record_value(transactional_id, record.value())
                            if txn_metadata is None:
                                loaded_transactions.pop(transactional_id, None)
                            else:
                                loaded_transactions[transactional_id] = txn_metadata
                            curr_offset = batch.next_offset()
                        elif isinstance(txn_key, UnknownKey):
                            self.log.warning("Unknown message key with version %s while loading transaction state "
                                             "from %s. Ignoring it. It could be a left over from an aborted upgrade.",
                                             txn_key.version, topic_partition)
        except Exception:
            self.log.exception("Error loading transactions from transaction log %s", topic_partition)
        return loaded_transactions

    def add_loaded_transactions_to_cache(self, txn_topic_partition: int, coordinator_epoch: int,
                                         loaded_transactions: dict[str, TransactionMetadata]) -> None:
        txn_metadata_cache_entry = TxnMetadataCacheEntry(coordinator_epoch, loaded_transactions)
        previous = self.transaction_metadata_cache.get(txn_topic_partition)
        self.transaction_metadata_cache[txn_topic_partition] = txn_metadata_cache_entry
        if previous is not None:
            self.log.warning("Unloaded transaction metadata %s from %s as part of loading metadata at epoch %s",
                             previous, txn_topic_partition, coordinator_epoch)

    def load_transactions_for_txn_topic_partition(self, partition_id: int, coordinator_epoch: int,
                                                  send_txn_markers: SendTxnMarkersCallback) -> None:
        """This broker leads the partition now: load its ids in the background, then send the markers of the
        transactions the previous coordinator left prepared."""
        topic_partition = TopicPartition(TRANSACTION_STATE_TOPIC_NAME, partition_id)
        partition_and_leader_epoch = TransactionPartitionAndLeaderEpoch(partition_id, coordinator_epoch)
        with self.state_lock.write_lock():
            self.loading_partitions.add(partition_and_leader_epoch)

        def load_transactions(start_time_ms: int) -> None:
            scheduler_time_ms = self.time.milliseconds() - start_time_ms
            self.log.info("Loading transaction metadata from %s at epoch %s", topic_partition, coordinator_epoch)
            self._validate_transaction_topic_partition_count_is_stable()

            loaded_transactions = self._load_transaction_metadata(topic_partition, coordinator_epoch)
            end_time_ms = self.time.milliseconds()
            total_loading_time_ms = end_time_ms - start_time_ms
            self.log.info("Finished loading %d transaction metadata from %s in %d milliseconds, of which %d "
                          "milliseconds was spent in the scheduler.", len(loaded_transactions), topic_partition,
                          total_loading_time_ms, scheduler_time_ms)

            with self.state_lock.write_lock():
                if partition_and_leader_epoch in self.loading_partitions:
                    self.add_loaded_transactions_to_cache(topic_partition.partition, coordinator_epoch,
                                                          loaded_transactions)
                    pending_for_completion = []
                    for transactional_id, txn_metadata in loaded_transactions.items():
                        with txn_metadata.in_lock():
                            # a prepared transaction is decided: only its markers and completion are missing
                            if txn_metadata.state is PrepareAbort:
                                result = TransactionResult.ABORT
                            elif txn_metadata.state is PrepareCommit:
                                result = TransactionResult.COMMIT
                            else:
                                continue
                            pending_for_completion.append(TransactionalIdCoordinatorEpochAndTransitMetadata(
                                transactional_id, coordinator_epoch, result, txn_metadata,
                                txn_metadata.prepare_complete(self.time.milliseconds())))
                    # out of loading first, so the completions' appends are not refused as still loading
                    self.loading_partitions.discard(partition_and_leader_epoch)
                    for pending in pending_for_completion:
                        self.log.info("Sending txn markers for %s after loading partition %s", pending, partition_id)
                        send_txn_markers(pending.coordinator_epoch, pending.result, pending.txn_metadata,
                                         pending.transit_metadata)
            self.log.info("Completed loading transaction metadata from %s for coordinator epoch %s",
                          topic_partition, coordinator_epoch)

        schedule_start_ms = self.time.milliseconds()
        self.scheduler.schedule_once(f"load-txns-for-partition-{topic_partition}",
                                     lambda: load_transactions(schedule_start_ms))

    def remove_transactions_for_txn_topic_partition(self, partition_id: int,
                                                    coordinator_epoch: int | None = None) -> None:
        """Without an epoch: the partition was deleted locally. With one: this broker follows it now. Either way
        its ids leave the cache (and a load under way is abandoned)."""
        topic_partition = TopicPartition(TRANSACTION_STATE_TOPIC_NAME, partition_id)
        with self.state_lock.write_lock():
            if coordinator_epoch is None:
                self.loading_partitions -= {p for p in self.loading_partitions if p.txn_partition_id == partition_id}
                entry = self.transaction_metadata_cache.pop(partition_id, None)
                if entry is not None:
                    self.log.info("Unloaded transaction metadata %s for %s following local partition deletion",
                                  entry, topic_partition)
                return
            self.loading_partitions.discard(TransactionPartitionAndLeaderEpoch(partition_id, coordinator_epoch))
            entry = self.transaction_metadata_cache.pop(partition_id, None)
            if entry is not None:
                self.log.info("Unloaded transaction metadata %s for %s on become-follower transition", entry,
                              topic_partition)
            else:
                self.log.info("No cached transaction metadata found for %s during become-follower transition",
                              topic_partition)

    def _validate_transaction_topic_partition_count_is_stable(self) -> None:
        previously_determined_partition_count = self.transaction_topic_partition_count
        assert self._retrieve_transaction_topic_partition_count is not None
        cur_transaction_topic_partition_count = self._retrieve_transaction_topic_partition_count()
        if previously_determined_partition_count != cur_transaction_topic_partition_count:
            raise KafkaException("Transaction topic number of partitions has changed from "
                                 f"{previously_determined_partition_count} to {cur_transaction_topic_partition_count}")

    @step("TX.complete")
    def append_transaction_to_log(self, transactional_id: str, coordinator_epoch: int,
                                  new_metadata: TxnTransitMetadata, response_callback: Callable[[Errors], None],
                                  retry_on_error: Callable[[Errors], bool] = lambda _: False,
                                  request_local: RequestLocal | None = None) -> None:
        """Write the transition to the id's partition (acks=-1); once written, adopt it in the cache, then answer."""
        key_bytes = TransactionLog.key_to_bytes(transactional_id)
        value_bytes = TransactionLog.value_to_bytes(new_metadata, self.uses_flexible_records())
        timestamp = self.time.milliseconds()
        records = MemoryRecords.with_records(TransactionLog.ENFORCED_COMPRESSION,
                                             SimpleRecord.of(timestamp, key_bytes, value_bytes))
        topic_partition = TopicPartition(TRANSACTION_STATE_TOPIC_NAME, self.partition_for(transactional_id))
        records_per_partition = {topic_partition: records}

        def update_cache_callback(response_status: dict[TopicPartition, PartitionResponse]) -> None:
            if len(response_status) != 1 or topic_partition not in response_status:
                raise IllegalStateException(f"Append status {response_status} should only have one partition "
                                            f"{topic_partition}")
            status = response_status[topic_partition]
            if status.error == Errors.NONE:
                response_error = Errors.NONE
            else:
                self.log.debug("Appending %s's new metadata %s failed due to %s", transactional_id, new_metadata,
                               status.error.exception_name)
                response_error = _coordinator_error(status.error)

            if response_error == Errors.NONE:
                # adopt the transition in place, under the id's lock
                error, epoch_and_metadata = self.get_transaction_state(transactional_id)
                if error is not None:
                    self.log.info("Accessing the cached transaction metadata for %s returns %s error; aborting "
                                  "transition to the new metadata and setting the error in the callback",
                                  transactional_id, error)
                    response_error = error
                elif epoch_and_metadata is not None:
                    metadata = epoch_and_metadata.transaction_metadata
                    with metadata.in_lock():
                        if epoch_and_metadata.coordinator_epoch != coordinator_epoch:
                            # the partition moved away and back meanwhile: the client finds its coordinator again
                            self.log.info("The cached coordinator epoch for %s has changed to %s after appended its "
                                          "new metadata %s to the transaction log (txn topic partition %s) while it "
                                          "was %s before appending; aborting transition to the new metadata and "
                                          "returning %s in the callback", transactional_id,
                                          epoch_and_metadata.coordinator_epoch, new_metadata,
                                          self.partition_for(transactional_id), coordinator_epoch,
                                          Errors.NOT_COORDINATOR)
                            response_error = Errors.NOT_COORDINATOR
                        else:
                            metadata.complete_transition_to(new_metadata)
                            self.log.debug("Updating %s's transaction state to %s with coordinator epoch %s for %s "
                                           "succeeded", transactional_id, new_metadata, coordinator_epoch,
                                           transactional_id)
                else:
                    # the id is gone from the cache: its partition has probably migrated
                    self.log.info("The cached coordinator metadata does not exist in the cache anymore for %s after "
                                  "appended its new metadata %s to the transaction log (txn topic partition %s) while "
                                  "it was %s before appending; aborting transition to the new metadata and returning "
                                  "%s in the callback", transactional_id, new_metadata,
                                  self.partition_for(transactional_id), coordinator_epoch, Errors.NOT_COORDINATOR)
                    response_error = Errors.NOT_COORDINATOR
            else:
                # nothing was adopted: clear the pending state unless the caller retries this same write
                error, epoch_and_txn_metadata = self.get_transaction_state(transactional_id)
                if error is None and epoch_and_txn_metadata is not None:
                    metadata = epoch_and_txn_metadata.transaction_metadata
                    with metadata.in_lock():
                        if epoch_and_txn_metadata.coordinator_epoch == coordinator_epoch:
                            if retry_on_error(response_error):
                                self.log.info("TransactionalId %s append transaction log for %s transition failed "
                                              "due to %s, not resetting pending state %s but just returning the "
                                              "error in the callback to let the caller retry",
                                              metadata.transactional_id, new_metadata, response_error,
                                              metadata.pending_state)
                            else:
                                self.log.info("TransactionalId %s append transaction log for %s transition failed "
                                              "due to %s, resetting pending state from %s, aborting state transition "
                                              "and returning %s in the callback", metadata.transactional_id,
                                              new_metadata, response_error, metadata.pending_state, response_error)
                                metadata.pending_state = None
                        else:
                            self.log.info("TransactionalId %s append transaction log for %s transition failed due to "
                                          "%s, aborting state transition and returning the error in the callback "
                                          "since the coordinator epoch has changed from %s to %s",
                                          metadata.transactional_id, new_metadata, response_error,
                                          epoch_and_txn_metadata.coordinator_epoch, coordinator_epoch)
                elif error is None:
                    self.log.info("TransactionalId %s append transaction log for %s transition failed due to %s, "
                                  "aborting state transition and returning the error in the callback since metadata "
                                  "is not available in the cache anymore", transactional_id, new_metadata,
                                  response_error)
                else:
                    self.log.info("TransactionalId %s append transaction log for %s transition failed due to %s, "
                                  "aborting state transition and returning the error in the callback since "
                                  "retrieving metadata returned %s", transactional_id, new_metadata, response_error,
                                  error)
            response_callback(response_error)

        with self.state_lock.read_lock():
            # held until the local append returns: an emigration and immigration in between would let this older
            # coordinator epoch's write land after the new leader's
            error, epoch_and_metadata = self.get_transaction_state(transactional_id)
            if error is not None:
                response_callback(error)
            elif epoch_and_metadata is None:
                response_callback(Errors.NOT_COORDINATOR)
            else:
                metadata = epoch_and_metadata.transaction_metadata
                with metadata.in_lock():
                    append = epoch_and_metadata.coordinator_epoch == coordinator_epoch
                    if not append:
                        response_callback(Errors.NOT_COORDINATOR)
                if append:
                    self.replica_manager.append_records(
                        timeout=new_metadata.txn_timeout_ms,
                        required_acks=TransactionLog.ENFORCED_REQUIRED_ACKS,
                        internal_topics_allowed=True,
                        origin=AppendOrigin.COORDINATOR,
                        entries_per_partition=records_per_partition,
                        response_callback=update_cache_callback,
                        request_local=request_local)
                    self.log.debug("Appending new metadata %s for transaction id %s with coordinator epoch %s to "
                                   "the local transaction log", new_metadata, transactional_id, coordinator_epoch)

    def startup(self, retrieve_transaction_topic_partition_count: Callable[[], int],
                enable_transactional_id_expiration: bool) -> None:
        self._retrieve_transaction_topic_partition_count = retrieve_transaction_topic_partition_count
        self.transaction_topic_partition_count = retrieve_transaction_topic_partition_count()
        if enable_transactional_id_expiration:
            self.enable_transactional_id_expiration()

    def shutdown(self) -> None:
        self.shutting_down.set()
        self.loading_partitions.clear()
        self.transaction_metadata_cache.clear()
        self.log.info("Shutdown complete")


def _coordinator_error(error: Errors) -> Errors:
    """A failed write to the transaction log, as the coordinator's client should see it."""
    if error in (Errors.UNKNOWN_TOPIC_OR_PARTITION, Errors.NOT_ENOUGH_REPLICAS,
                 Errors.NOT_ENOUGH_REPLICAS_AFTER_APPEND, Errors.REQUEST_TIMED_OUT):
        # a timed-out write too: the client retries
        return Errors.COORDINATOR_NOT_AVAILABLE
    if error in (Errors.NOT_LEADER_OR_FOLLOWER, Errors.KAFKA_STORAGE_ERROR):
        return Errors.NOT_COORDINATOR
    if error in (Errors.MESSAGE_TOO_LARGE, Errors.RECORD_LIST_TOO_LARGE):
        return Errors.UNKNOWN_SERVER_ERROR
    return error
