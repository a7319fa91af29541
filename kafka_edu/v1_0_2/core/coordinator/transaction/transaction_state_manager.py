"""Port of core/src/main/scala/kafka/coordinator/transaction/TransactionStateManager.scala (Kafka 1.0.2; read: the
1.0.x copy with getTransactionState/putTransactionStateIfNotExists and the 1.1 one for the load's ordering).

Transactional id expiration (`enableTransactionalIdExpiration`, the tombstones of ids idle for
`transactional.id.expiration.ms`) is not ported.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from kafka_edu.tracing import step
from kafka_edu.v1_0_2.clients.common.errors import IllegalStateException, KafkaException
from kafka_edu.v1_0_2.clients.common.record.file_records import (
    NO_PARTITION_LEADER_EPOCH,
    NO_PRODUCER_EPOCH,
    NO_PRODUCER_ID,
    NO_SEQUENCE,
    MemoryRecords,
    TimestampType,
)
from kafka_edu.v1_0_2.clients.common.record.memory_records_builder import MemoryRecordsBuilder
from kafka_edu.v1_0_2.clients.common.requests.transaction_result import TransactionResult
from kafka_edu.v1_0_2.core.coordinator.group.group_metadata_manager import java_string_hash_code, utils_abs
from kafka_edu.v1_0_2.core.coordinator.transaction import transaction_log
from kafka_edu.v1_0_2.core.coordinator.transaction.transaction_metadata import (
    Ongoing,
    PrepareAbort,
    PrepareCommit,
    TransactionMetadata,
    TxnTransitMetadata,
)
from kafka_edu.v1_0_2.core.log.log import TopicPartition
from kafka_edu.v1_0_2.core.log.log_segment import system_time_ms
from kafka_edu.v1_0_2.core.utils.concurrent import AtomicBoolean
from kafka_edu.v3_9.clients.common.protocol.errors import Errors

if TYPE_CHECKING:
    from kafka_edu.v1_0_2.core.server.replica_manager import PartitionResponse, ReplicaManager
    from kafka_edu.v1_0_2.core.utils.kafka_scheduler import KafkaScheduler
    from kafka_edu.v1_0_2.core.utils.zk_utils import ZkUtils

log = logging.getLogger("kafka.coordinator.transaction.TransactionStateManager")

TRANSACTION_STATE_TOPIC_NAME = "__transaction_state"  # Topic.TRANSACTION_STATE_TOPIC_NAME

DEFAULT_TRANSACTIONS_MAX_TIMEOUT_MS = 15 * 60 * 1000
DEFAULT_TRANSACTIONAL_ID_EXPIRATION_MS = 7 * 24 * 60 * 60 * 1000
DEFAULT_ABORT_TIMED_OUT_TRANSACTIONS_INTERVAL_MS = 60 * 1000
DEFAULT_REMOVE_EXPIRED_TRANSACTIONAL_IDS_INTERVAL_MS = 60 * 60 * 1000

# (transactional id, coordinator epoch, result, metadata, transit to the completed state)
SendTxnMarkersCallback = Callable[[str, int, TransactionResult, TransactionMetadata, TxnTransitMetadata], None]


@dataclass(frozen=True)
class TransactionConfig:
    transactional_id_expiration_ms: int = DEFAULT_TRANSACTIONAL_ID_EXPIRATION_MS
    transaction_max_timeout_ms: int = DEFAULT_TRANSACTIONS_MAX_TIMEOUT_MS
    transaction_log_num_partitions: int = transaction_log.DEFAULT_NUM_PARTITIONS
    transaction_log_replication_factor: int = transaction_log.DEFAULT_REPLICATION_FACTOR
    transaction_log_segment_bytes: int = transaction_log.DEFAULT_SEGMENT_BYTES
    transaction_log_load_buffer_size: int = transaction_log.DEFAULT_LOAD_BUFFER_SIZE
    transaction_log_min_insync_replicas: int = transaction_log.DEFAULT_MIN_IN_SYNC_REPLICAS
    abort_timed_out_transactions_interval_ms: int = DEFAULT_ABORT_TIMED_OUT_TRANSACTIONS_INTERVAL_MS
    remove_expired_transactional_ids_interval_ms: int = DEFAULT_REMOVE_EXPIRED_TRANSACTIONAL_IDS_INTERVAL_MS
    request_timeout_ms: int = 30000


@dataclass(frozen=True)
class TxnMetadataCacheEntry:
    coordinator_epoch: int
    metadata_per_transactional_id: dict[str, TransactionMetadata]


@dataclass(frozen=True)
class CoordinatorEpochAndTxnMetadata:
    coordinator_epoch: int
    transaction_metadata: TransactionMetadata


@dataclass(frozen=True)
class TransactionalIdAndProducerIdEpoch:
    transactional_id: str
    producer_id: int
    producer_epoch: int


@dataclass(frozen=True)
class TransactionPartitionAndLeaderEpoch:
    txn_partition_id: int
    coordinator_epoch: int


@dataclass(frozen=True)
class TransactionalIdCoordinatorEpochAndTransitMetadata:
    transactional_id: str
    coordinator_epoch: int
    result: TransactionResult
    txn_metadata: TransactionMetadata
    transit_metadata: TxnTransitMetadata


class ReentrantReadWriteLock:
    """java.util.concurrent.locks.ReentrantReadWriteLock, reader-preferring: many readers or one writer; the writer
    may also read. A reader never waits for a writer that is only waiting, so a delayed-produce callback that needs
    the read lock on another thread cannot deadlock with an append that holds it."""

    def __init__(self) -> None:
        self._cond = threading.Condition(threading.Lock())
        self._readers: dict[int, int] = {}
        self._writer: int | None = None
        self._writer_holds = 0

    @contextlib.contextmanager
    def read_lock(self) -> Iterator[None]:
        me = threading.get_ident()
        with self._cond:
            while self._writer is not None and self._writer != me:
                self._cond.wait()
            self._readers[me] = self._readers.get(me, 0) + 1
        try:
            yield
        finally:
            with self._cond:
                holds = self._readers[me] - 1
                if holds:
                    self._readers[me] = holds
                else:
                    del self._readers[me]
                    self._cond.notify_all()

    @contextlib.contextmanager
    def write_lock(self) -> Iterator[None]:
        me = threading.get_ident()
        with self._cond:
            while (self._writer is not None and self._writer != me) or any(t != me for t in self._readers):
                self._cond.wait()
            self._writer = me
            self._writer_holds += 1
        try:
            yield
        finally:
            with self._cond:
                self._writer_holds -= 1
                if not self._writer_holds:
                    self._writer = None
                    self._cond.notify_all()


class TransactionStateManager:
    """The coordinator's memory and its log: the metadata of every transactional id whose `__transaction_state`
    partition this broker leads, loaded from that partition, and kept durable by appending each transition to it.

    Locking: `state_lock`'s read lock covers every use of the cache; its write lock, loading and unloading. A
    transactional id's own lock is never held while appending to the log, nor while taking `state_lock`.
    """

    def __init__(self, broker_id: int, zk_utils: ZkUtils | None, scheduler: KafkaScheduler,
                 replica_manager: ReplicaManager, config: TransactionConfig,
                 time_ms: Callable[[], int] = system_time_ms) -> None:
        self.broker_id = broker_id
        self.zk_utils = zk_utils
        self.scheduler = scheduler
        self.replica_manager = replica_manager
        self.config = config
        self.time_ms = time_ms
        self.shutting_down = AtomicBoolean(False)
        self.state_lock = ReentrantReadWriteLock()
        # Partitions being loaded, or left: a transactional id there gets COORDINATOR_LOAD_IN_PROGRESS or
        # NOT_COORDINATOR.
        self.loading_partitions: set[TransactionPartitionAndLeaderEpoch] = set()
        self.leaving_partitions: set[TransactionPartitionAndLeaderEpoch] = set()
        # txn topic partition -> its coordinator epoch and its transactional ids' metadata
        self.transaction_metadata_cache: dict[int, TxnMetadataCacheEntry] = {}
        self.transaction_topic_partition_count = self._get_transaction_topic_partition_count()

    def add_loading_partition(self, partition_id: int, coordinator_epoch: int) -> None:
        """For tests: mark a partition as loading."""
        with self.state_lock.write_lock():
            partition_and_leader_epoch = TransactionPartitionAndLeaderEpoch(partition_id, coordinator_epoch)
            self.leaving_partitions.discard(partition_and_leader_epoch)
            self.loading_partitions.add(partition_and_leader_epoch)

    def timed_out_transactions(self) -> list[TransactionalIdAndProducerIdEpoch]:
        """Ongoing transactions older than their timeout. Best effort: the metadata locks are taken later, when the
        transaction is actually aborted."""
        now = self.time_ms()
        with self.state_lock.read_lock():
            leaving = {p.txn_partition_id for p in self.leaving_partitions}
            return [TransactionalIdAndProducerIdEpoch(txn_id, txn_metadata.producer_id, txn_metadata.producer_epoch)
                    for partition_id, entry in self.transaction_metadata_cache.items() if partition_id not in leaving
                    for txn_id, txn_metadata in list(entry.metadata_per_transactional_id.items())
                    if not txn_metadata.pending_transition_in_progress and txn_metadata.state is Ongoing
                    and txn_metadata.txn_start_timestamp + txn_metadata.txn_timeout_ms < now]

    def get_transaction_state(self, transactional_id: str
                              ) -> tuple[Errors | None, CoordinatorEpochAndTxnMetadata | None]:
        """(error, None) when the partition is loading or not ours; (None, metadata or None) otherwise."""
        return self._get_and_maybe_add_transaction_state(transactional_id, None)

    def put_transaction_state_if_not_exists(self, transactional_id: str, txn_metadata: TransactionMetadata
                                            ) -> tuple[Errors | None, CoordinatorEpochAndTxnMetadata | None]:
        error, epoch_and_metadata = self._get_and_maybe_add_transaction_state(transactional_id, txn_metadata)
        if error is None and epoch_and_metadata is None:
            raise IllegalStateException(f"Unexpected empty transaction metadata returned while putting {txn_metadata}")
        return error, epoch_and_metadata

    def _get_and_maybe_add_transaction_state(self, transactional_id: str,
                                             created_txn_metadata: TransactionMetadata | None
                                             ) -> tuple[Errors | None, CoordinatorEpochAndTxnMetadata | None]:
        with self.state_lock.read_lock():
            partition_id = self.partition_for(transactional_id)
            if any(p.txn_partition_id == partition_id for p in self.loading_partitions):
                return Errors.COORDINATOR_LOAD_IN_PROGRESS, None
            if any(p.txn_partition_id == partition_id for p in self.leaving_partitions):
                return Errors.NOT_COORDINATOR, None
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
        """What `__transaction_state` is created with: compacted, uncompressed, no unclean election."""
        return {"unclean.leader.election.enable": "false",
                "compression.type": "uncompressed",
                "cleanup.policy": "compact",
                "min.insync.replicas": str(self.config.transaction_log_min_insync_replicas),
                "segment.bytes": str(self.config.transaction_log_segment_bytes)}

    def partition_for(self, transactional_id: str) -> int:
        return utils_abs(java_string_hash_code(transactional_id)) % self.transaction_topic_partition_count

    def _get_transaction_topic_partition_count(self) -> int:
        """The partition count of `__transaction_state` in ZooKeeper, or the configured one if it does not exist."""
        count = self.zk_utils.get_topic_partition_count(TRANSACTION_STATE_TOPIC_NAME) \
            if self.zk_utils is not None else None
        return count if count is not None else self.config.transaction_log_num_partitions

    # -- leadership of __transaction_state partitions -------------------------------------------------------------

    def _load_transaction_metadata(self, topic_partition: TopicPartition,
                                   coordinator_epoch: int) -> dict[str, TransactionMetadata]:
        def log_end_offset() -> int:
            # -1 once this broker no longer leads the partition.
            end_offset = self.replica_manager.get_log_end_offset(topic_partition)
            return end_offset if end_offset is not None else -1

        start_ms = self.time_ms()
        loaded_transactions: dict[str, TransactionMetadata] = {}
        partition_log = self.replica_manager.get_log(topic_partition)
        if partition_log is None:
            log.warning("Attempted to load offsets and group metadata from %s, but found no log", topic_partition)
            return loaded_transactions

        def still_loading() -> bool:
            with self.state_lock.read_lock():
                return TransactionPartitionAndLeaderEpoch(topic_partition.partition, coordinator_epoch) \
                    in self.loading_partitions

        curr_offset = partition_log.log_start_offset
        try:
            # Stops if leadership moves while loading (the log end offset reads -1 then).
            while curr_offset < log_end_offset() and not self.shutting_down.get() and still_loading():
                data = partition_log.read(curr_offset, self.config.transaction_log_load_buffer_size,
                                          max_offset=None, min_one_message=True)
                batches = list(MemoryRecords(data).batches())
                if not batches:
                    break
                for batch in batches:
                    for record in batch.records():
                        if record.key is None:
                            raise IllegalStateException("Transaction state log's key should not be null")
                        transactional_id = transaction_log.read_txn_record_key(record.key).transactional_id
                        if record.value is None:
                            loaded_transactions.pop(transactional_id, None)
                        else:
                            loaded_transactions[transactional_id] = transaction_log.read_txn_record_value(
                                transactional_id, record.value)
                    curr_offset = batch.next_offset
                log.info("Finished loading %d transaction metadata from %s in %d milliseconds",
                         len(loaded_transactions), topic_partition, self.time_ms() - start_ms)
        except Exception:
            log.exception("Error loading transactions from transaction log %s", topic_partition)
        return loaded_transactions

    def add_loaded_transactions_to_cache(self, txn_topic_partition: int, coordinator_epoch: int,
                                         metadata_per_transactional_id: dict[str, TransactionMetadata]) -> None:
        current = self.transaction_metadata_cache.get(txn_topic_partition)
        self.transaction_metadata_cache[txn_topic_partition] = TxnMetadataCacheEntry(coordinator_epoch,
                                                                                     metadata_per_transactional_id)
        if current is not None:
            error_msg = (f"The metadata cache for txn partition {txn_topic_partition} has already exist with epoch "
                         f"{current.coordinator_epoch} and {len(current.metadata_per_transactional_id)} entries "
                         "while trying to add to it; this should not happen")
            log.critical(error_msg)
            raise IllegalStateException(error_msg)

    def load_transactions_for_txn_topic_partition(self, partition_id: int, coordinator_epoch: int,
                                                  send_txn_markers: SendTxnMarkersCallback) -> None:
        """This broker now leads the partition: load its transactional ids in the background, and finish the
        transactions the previous coordinator left prepared (their markers are sent again)."""
        self._validate_transaction_topic_partition_count_is_stable()
        topic_partition = TopicPartition(TRANSACTION_STATE_TOPIC_NAME, partition_id)
        partition_and_leader_epoch = TransactionPartitionAndLeaderEpoch(partition_id, coordinator_epoch)
        with self.state_lock.write_lock():
            self.leaving_partitions.discard(partition_and_leader_epoch)
            self.loading_partitions.add(partition_and_leader_epoch)

        self.scheduler.schedule(f"load-txns-for-partition-{topic_partition}", lambda: self.load_transactions(
            topic_partition, partition_and_leader_epoch, send_txn_markers))

    def load_transactions(self, topic_partition: TopicPartition,
                          partition_and_leader_epoch: TransactionPartitionAndLeaderEpoch,
                          send_txn_markers: SendTxnMarkersCallback) -> None:
        """The scheduled load (1.0.2's `loadTransactions`, local to loadTransactionsForTxnTopicPartition)."""
        log.info("Loading transaction metadata from %s", topic_partition)
        coordinator_epoch = partition_and_leader_epoch.coordinator_epoch
        loaded_transactions = self._load_transaction_metadata(topic_partition, coordinator_epoch)
        transactions_pending_for_completion = []
        with self.state_lock.write_lock():
            if partition_and_leader_epoch not in self.loading_partitions:
                return
            self.add_loaded_transactions_to_cache(topic_partition.partition, coordinator_epoch, loaded_transactions)
            for transactional_id, txn_metadata in loaded_transactions.items():
                with txn_metadata.in_lock():
                    # A prepared transaction is decided: only its markers and its completion are missing.
                    if txn_metadata.state is PrepareAbort:
                        result = TransactionResult.ABORT
                    elif txn_metadata.state is PrepareCommit:
                        result = TransactionResult.COMMIT
                    else:
                        continue
                    transactions_pending_for_completion.append(TransactionalIdCoordinatorEpochAndTransitMetadata(
                        transactional_id, coordinator_epoch, result, txn_metadata,
                        txn_metadata.prepare_complete(self.time_ms())))
            # Out of loading first, so that the completions' appends are not refused as still loading.
            self.loading_partitions.discard(partition_and_leader_epoch)
        for pending in transactions_pending_for_completion:
            send_txn_markers(pending.transactional_id, pending.coordinator_epoch, pending.result,
                             pending.txn_metadata, pending.transit_metadata)

    def remove_transactions_for_txn_topic_partition(self, partition_id: int, coordinator_epoch: int) -> None:
        """This broker follows the partition now: drop its transactional ids from the cache, in the background."""
        self._validate_transaction_topic_partition_count_is_stable()
        topic_partition = TopicPartition(TRANSACTION_STATE_TOPIC_NAME, partition_id)
        partition_and_leader_epoch = TransactionPartitionAndLeaderEpoch(partition_id, coordinator_epoch)
        with self.state_lock.write_lock():
            self.loading_partitions.discard(partition_and_leader_epoch)
            self.leaving_partitions.add(partition_and_leader_epoch)

        def remove_transactions() -> None:
            with self.state_lock.write_lock():
                if partition_and_leader_epoch not in self.leaving_partitions:
                    return
                entry = self.transaction_metadata_cache.pop(partition_id, None)
                if entry is not None:
                    log.info("Removed %d cached transaction metadata for %s on follower transition",
                             len(entry.metadata_per_transactional_id), topic_partition)
                else:
                    log.info("Trying to remove cached transaction metadata for %s on follower transition but there "
                             "is no entries remaining; it is likely that another process for removing the cached "
                             "entries has just executed earlier before", topic_partition)
                self.leaving_partitions.discard(partition_and_leader_epoch)

        self.scheduler.schedule(f"remove-txns-for-partition-{topic_partition}", remove_transactions)

    def _validate_transaction_topic_partition_count_is_stable(self) -> None:
        current = self._get_transaction_topic_partition_count()
        if self.transaction_topic_partition_count != current:
            raise KafkaException(f"Transaction topic number of partitions has changed from "
                                 f"{self.transaction_topic_partition_count} to {current}")

    # -- writes -----------------------------------------------------------------------------------------------------

    @step("TX.complete")
    def append_transaction_to_log(self, transactional_id: str, coordinator_epoch: int,
                                  new_metadata: TxnTransitMetadata, response_callback: Callable[[Errors], None],
                                  retry_on_error: Callable[[Errors], bool] = lambda _: False) -> None:
        """Write the transition to the transactional id's partition (acks=all); once the write is acknowledged,
        adopt it in the cache and answer. (A span, TX.complete, only for the write of a completed transaction.)"""
        key_bytes = transaction_log.key_to_bytes(transactional_id)
        value_bytes = transaction_log.value_to_bytes(new_metadata)
        timestamp = self.time_ms()
        records = _with_records(timestamp, key_bytes, value_bytes)
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
                log.debug("Appending %s's new metadata %s failed due to %s", transactional_id, new_metadata,
                          status.error.exception_name)
                response_error = _append_error(status.error)

            if response_error == Errors.NONE:
                # Update in place, under the metadata's lock, so concurrent readers see one state or the other.
                error, epoch_and_metadata = self.get_transaction_state(transactional_id)
                if error is not None:
                    log.info("Accessing the cached transaction metadata for %s returns %s error; aborting transition "
                             "to the new metadata and setting the error in the callback", transactional_id,
                             error.name)
                    response_error = error
                elif epoch_and_metadata is None:
                    # Gone from the cache: the partition moved; the client finds the new coordinator.
                    log.info("The cached coordinator metadata does not exist in the cache anymore for %s after "
                             "appended its new metadata %s to the transaction log (txn topic partition %d) while it "
                             "was %d before appending; aborting transition to the new metadata and returning %s in "
                             "the callback", transactional_id, new_metadata, self.partition_for(transactional_id),
                             coordinator_epoch, Errors.NOT_COORDINATOR.name)
                    response_error = Errors.NOT_COORDINATOR
                else:
                    metadata = epoch_and_metadata.transaction_metadata
                    with metadata.in_lock():
                        if epoch_and_metadata.coordinator_epoch != coordinator_epoch:
                            log.info("The cached coordinator epoch for %s has changed to %d after appended its new "
                                     "metadata %s to the transaction log (txn topic partition %d) while it was %d "
                                     "before appending; aborting transition to the new metadata and returning %s in "
                                     "the callback", transactional_id, epoch_and_metadata.coordinator_epoch,
                                     new_metadata, self.partition_for(transactional_id), coordinator_epoch,
                                     Errors.NOT_COORDINATOR.name)
                            response_error = Errors.NOT_COORDINATOR
                        else:
                            metadata.complete_transition_to(new_metadata)
                            log.debug("Updating %s's transaction state to %s with coordinator epoch %d for %s "
                                      "succeeded", transactional_id, new_metadata, coordinator_epoch, transactional_id)
            else:
                # No transition happened: clear the pending state, unless the caller retries this same write.
                error, epoch_and_metadata = self.get_transaction_state(transactional_id)
                if error is None and epoch_and_metadata is not None:
                    metadata = epoch_and_metadata.transaction_metadata
                    with metadata.in_lock():
                        if epoch_and_metadata.coordinator_epoch == coordinator_epoch:
                            if retry_on_error(response_error):
                                log.info("TransactionalId %s append transaction log for %s transition failed due to "
                                         "%s, not resetting pending state %s but just returning the error in the "
                                         "callback to let the caller retry", metadata.transactional_id, new_metadata,
                                         response_error.name, metadata.pending_state)
                            else:
                                log.info("TransactionalId %s append transaction log for %s transition failed due to "
                                         "%s, resetting pending state from %s, aborting state transition and "
                                         "returning %s in the callback", metadata.transactional_id, new_metadata,
                                         response_error.name, metadata.pending_state, response_error.name)
                                metadata.pending_state = None
                        else:
                            log.info("TransactionalId %s append transaction log for %s transition failed due to %s, "
                                     "aborting state transition and returning the error in the callback since the "
                                     "coordinator epoch has changed from %d to %d", metadata.transactional_id,
                                     new_metadata, response_error.name, epoch_and_metadata.coordinator_epoch,
                                     coordinator_epoch)
                else:
                    log.info("TransactionalId %s append transaction log for %s transition failed due to %s, aborting "
                             "state transition and returning the error in the callback since metadata is not "
                             "available (%s)", transactional_id, new_metadata, response_error.name,
                             error.name if error is not None else "no longer cached")
            response_callback(response_error)

        with self.state_lock.read_lock():
            # The read lock is held until the local append returns: otherwise an emigration and immigration could
            # run in between, and this write of an older coordinator epoch would land after the new leader's.
            error, epoch_and_metadata = self.get_transaction_state(transactional_id)
            if error is not None:
                response_callback(error)
                return
            if epoch_and_metadata is None:
                response_callback(Errors.NOT_COORDINATOR)
                return
            with epoch_and_metadata.transaction_metadata.in_lock():
                append = epoch_and_metadata.coordinator_epoch == coordinator_epoch
            if not append:
                response_callback(Errors.NOT_COORDINATOR)
                return
            self.replica_manager.append_records(
                timeout=new_metadata.txn_timeout_ms,
                required_acks=transaction_log.ENFORCED_REQUIRED_ACKS,
                internal_topics_allowed=True,
                is_from_client=False,
                entries_per_partition=records_per_partition,
                response_callback=update_cache_callback)
            log.debug("Appending new metadata %s for transaction id %s with coordinator epoch %d to the local "
                      "transaction log", new_metadata, transactional_id, coordinator_epoch)

    def shutdown(self) -> None:
        self.shutting_down.set(True)
        with self.state_lock.write_lock():
            self.loading_partitions.clear()
            self.transaction_metadata_cache.clear()
        log.info("Shutdown complete")


def _append_error(error: Errors) -> Errors:
    """A failed write to the transaction log, as the coordinator's client should see it."""
    if error in (Errors.UNKNOWN_TOPIC_OR_PARTITION, Errors.NOT_ENOUGH_REPLICAS,
                 Errors.NOT_ENOUGH_REPLICAS_AFTER_APPEND, Errors.REQUEST_TIMED_OUT):
        # a timed out write too: the client retries
        return Errors.COORDINATOR_NOT_AVAILABLE
    if error in (Errors.NOT_LEADER_OR_FOLLOWER, Errors.KAFKA_STORAGE_ERROR):
        return Errors.NOT_COORDINATOR
    if error in (Errors.MESSAGE_TOO_LARGE, Errors.RECORD_LIST_TOO_LARGE):
        return Errors.UNKNOWN_SERVER_ERROR
    return error


def _with_records(timestamp: int, key: bytes, value: bytes) -> bytes:
    """MemoryRecords.withRecords(NONE, SimpleRecord(timestamp, key, value)): one uncompressed v2 batch."""
    builder = MemoryRecordsBuilder(transaction_log.ENFORCED_COMPRESSION_TYPE, TimestampType.CREATE_TIME, 0,
                                   timestamp, NO_PRODUCER_ID, NO_PRODUCER_EPOCH, NO_SEQUENCE, False,
                                   NO_PARTITION_LEADER_EPOCH)
    builder.append(timestamp, key, value)
    return bytes(builder.build().buffer)

