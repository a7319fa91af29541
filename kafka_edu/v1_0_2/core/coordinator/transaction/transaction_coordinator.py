"""Port of core/src/main/scala/kafka/coordinator/transaction/TransactionCoordinator.scala (Kafka 1.0.2; read: a 1.0.x
copy, ZkUtils and LogContext era). A KRaft broker (Kafka 3.9) builds it with a producer id manager factory instead of
ZooKeeper (3.9's RPCProducerIdManager, which asks the controller) and without a transaction state manager: it serves
idempotent producers only, and answers a transactional id NOT_COORDINATOR."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from kafka_edu.tracing import step
from kafka_edu.v1_0_2.clients.common.errors import IllegalStateException
from kafka_edu.v1_0_2.clients.common.record.file_records import NO_PRODUCER_EPOCH, NO_PRODUCER_ID
from kafka_edu.v1_0_2.clients.common.requests.transaction_result import TransactionResult
from kafka_edu.v1_0_2.core.coordinator.transaction.producer_id_manager import ProducerIdManager
from kafka_edu.v1_0_2.core.coordinator.transaction.transaction_marker_channel_manager import (
    TransactionMarkerChannelManager,
)
from kafka_edu.v1_0_2.core.coordinator.transaction.transaction_metadata import (
    CompleteAbort,
    CompleteCommit,
    Empty,
    Ongoing,
    PrepareAbort,
    PrepareCommit,
    PrepareEpochFence,
    TransactionMetadata,
    TransactionState,
    TxnTransitMetadata,
)
from kafka_edu.v1_0_2.core.coordinator.transaction.transaction_state_manager import (
    TRANSACTION_STATE_TOPIC_NAME,
    TransactionConfig,
    TransactionStateManager,
)
from kafka_edu.v1_0_2.core.log.log import TopicPartition
from kafka_edu.v1_0_2.core.log.log_segment import system_time_ms
from kafka_edu.v1_0_2.core.server.delayed_operation import DelayedOperationPurgatory
from kafka_edu.v1_0_2.core.utils.concurrent import AtomicBoolean
from kafka_edu.v3_9.clients.common.protocol.errors import Errors

if TYPE_CHECKING:
    from kafka_edu.v1_0_2.core.server.kafka_config import KafkaConfig
    from kafka_edu.v1_0_2.core.server.metadata_cache import MetadataCache
    from kafka_edu.v1_0_2.core.server.replica_manager import ReplicaManager
    from kafka_edu.v1_0_2.core.utils.kafka_scheduler import KafkaScheduler
    from kafka_edu.v1_0_2.core.utils.zk_utils import ZkUtils

log = logging.getLogger("kafka.coordinator.transaction.TransactionCoordinator")


@dataclass(frozen=True)
class InitProducerIdResult:
    producer_id: int
    producer_epoch: int
    error: Errors


InitProducerIdCallback = Callable[[InitProducerIdResult], None]
AddPartitionsCallback = Callable[[Errors], None]
EndTxnCallback = Callable[[Errors], None]


def _init_transaction_error(error: Errors) -> InitProducerIdResult:
    return InitProducerIdResult(NO_PRODUCER_ID, NO_PRODUCER_EPOCH, error)


def _init_transaction_metadata(txn_metadata: TxnTransitMetadata) -> InitProducerIdResult:
    return InitProducerIdResult(txn_metadata.producer_id, txn_metadata.producer_epoch, Errors.NONE)


class TransactionCoordinator:
    """Hands out producer ids and epochs, and drives each transactional id's transactions: partitions join them,
    EndTxn decides them, the marker channel writes the decision into every partition, and the state manager keeps
    each step in `__transaction_state` before it is acted on."""

    def __init__(self, broker_id: int, zk_utils: ZkUtils | None,
                 create_producer_id_manager: Callable[[], Any] | None = None, *,
                 txn_config: TransactionConfig | None = None, scheduler: KafkaScheduler | None = None,
                 txn_manager: TransactionStateManager | None = None,
                 txn_marker_channel_manager: TransactionMarkerChannelManager | None = None,
                 time_ms: Callable[[], int] = system_time_ms, producer_id_manager: Any = None) -> None:
        self.broker_id = broker_id
        self.zk_utils = zk_utils
        # Kafka 1.0.2's constructor takes the producer id manager itself (its tests pass a mock); without one,
        # startup makes it (ZooKeeper's, or 3.9's RPCProducerIdManager).
        self._given_producer_id_manager = producer_id_manager
        self.create_producer_id_manager = create_producer_id_manager or (
            lambda: ProducerIdManager(self.broker_id, self.zk_utils))
        self.producer_id_manager: Any = producer_id_manager
        self.txn_config = txn_config or TransactionConfig()
        self.scheduler = scheduler
        self.txn_manager = txn_manager
        self.txn_marker_channel_manager = txn_marker_channel_manager
        self.time_ms = time_ms
        self.is_active = AtomicBoolean(False)

    @staticmethod
    def apply(config: KafkaConfig, replica_manager: ReplicaManager, scheduler: KafkaScheduler, zk_utils: ZkUtils,
              metadata_cache: MetadataCache, time_ms: Callable[[], int] = system_time_ms) -> TransactionCoordinator:
        """The coordinator with its state manager, marker channel and purgatory, from the broker config."""
        txn_config = transaction_config_from(config)
        # Its operations never expire and are completed by the marker responses: 1.0.2 runs it without a reaper.
        txn_marker_purgatory = DelayedOperationPurgatory("txn-marker-purgatory", config.broker_id)
        txn_state_manager = TransactionStateManager(config.broker_id, zk_utils, scheduler, replica_manager,
                                                    txn_config, time_ms)
        txn_marker_channel_manager = TransactionMarkerChannelManager(config, metadata_cache, txn_state_manager,
                                                                     txn_marker_purgatory)
        return TransactionCoordinator(config.broker_id, zk_utils, txn_config=txn_config, scheduler=scheduler,
                                      txn_manager=txn_state_manager,
                                      txn_marker_channel_manager=txn_marker_channel_manager, time_ms=time_ms)

    # -- InitProducerId -----------------------------------------------------------------------------------------------

    @step("TX.init")
    def handle_init_producer_id(self, transactional_id: str | None, transaction_timeout_ms: int,
                                response_callback: InitProducerIdCallback) -> None:
        if transactional_id is None:
            # An idempotent producer: any broker gives it a fresh producer id.
            try:
                producer_id = self.producer_id_manager.generate_producer_id()
            except Exception as e:  # 3.9: e.g. COORDINATOR_LOAD_IN_PROGRESS while no id block is at hand
                response_callback(_init_transaction_error(Errors.for_exception(e)))
                return
            response_callback(InitProducerIdResult(producer_id, 0, Errors.NONE))
        elif transactional_id == "":
            # The producer client refuses an empty transactional id; so does its coordinator.
            response_callback(_init_transaction_error(Errors.INVALID_REQUEST))
        elif self.txn_manager is None:
            response_callback(_init_transaction_error(Errors.NOT_COORDINATOR))
        elif not self.txn_manager.validate_transaction_timeout_ms(transaction_timeout_ms):
            # Longer than transaction.max.timeout.ms (or not positive).
            response_callback(_init_transaction_error(Errors.INVALID_TRANSACTION_TIMEOUT))
        else:
            error, coordinator_epoch_and_metadata = self.txn_manager.get_transaction_state(transactional_id)
            if error is None and coordinator_epoch_and_metadata is None:
                producer_id = self.producer_id_manager.generate_producer_id()
                created_metadata = TransactionMetadata(transactional_id, producer_id, NO_PRODUCER_EPOCH,
                                                       transaction_timeout_ms, Empty, (), -1, self.time_ms())
                error, coordinator_epoch_and_metadata = self.txn_manager.put_transaction_state_if_not_exists(
                    transactional_id, created_metadata)
            if error is not None:
                response_callback(_init_transaction_error(error))
                return
            coordinator_epoch = coordinator_epoch_and_metadata.coordinator_epoch
            txn_metadata = coordinator_epoch_and_metadata.transaction_metadata
            with txn_metadata.in_lock():
                error, new_metadata = self._prepare_init_produce_id_transit(transactional_id, transaction_timeout_ms,
                                                                            txn_metadata)
            if error is not None:
                response_callback(_init_transaction_error(error))
            elif new_metadata.txn_state is PrepareEpochFence:
                # Abort the ongoing transaction first; the client retries on CONCURRENT_TRANSACTIONS and then gets
                # an epoch bumped once more.
                def send_retriable_error_callback(end_error: Errors) -> None:
                    response_callback(_init_transaction_error(
                        end_error if end_error != Errors.NONE else Errors.CONCURRENT_TRANSACTIONS))

                self.handle_end_transaction(transactional_id, new_metadata.producer_id, new_metadata.producer_epoch,
                                            TransactionResult.ABORT, send_retriable_error_callback)
            else:
                def send_pid_response_callback(append_error: Errors) -> None:
                    if append_error == Errors.NONE:
                        log.info("Initialized transactionalId %s with producerId %d and producer epoch %d on "
                                 "partition %s-%d", transactional_id, new_metadata.producer_id,
                                 new_metadata.producer_epoch, TRANSACTION_STATE_TOPIC_NAME,
                                 self.txn_manager.partition_for(transactional_id))
                        response_callback(_init_transaction_metadata(new_metadata))
                    else:
                        log.info("Returning %s error code to client for %s's InitProducerId request",
                                 append_error.name, transactional_id)
                        response_callback(_init_transaction_error(append_error))

                self.txn_manager.append_transaction_to_log(transactional_id, coordinator_epoch, new_metadata,
                                                           send_pid_response_callback)

    def _prepare_init_produce_id_transit(self, transactional_id: str, transaction_timeout_ms: int,
                                         txn_metadata: TransactionMetadata
                                         ) -> tuple[Errors | None, TxnTransitMetadata | None]:
        """Caller holds the metadata's lock."""
        if txn_metadata.pending_transition_in_progress:
            return Errors.CONCURRENT_TRANSACTIONS, None  # the client backs off and retries
        state = txn_metadata.state
        if state is PrepareAbort or state is PrepareCommit:
            return Errors.CONCURRENT_TRANSACTIONS, None
        if state is CompleteAbort or state is CompleteCommit or state is Empty:
            if txn_metadata.is_producer_epoch_exhausted:
                new_producer_id = self.producer_id_manager.generate_producer_id()
                return None, txn_metadata.prepare_producer_id_rotation(new_producer_id, transaction_timeout_ms,
                                                                       self.time_ms())
            return None, txn_metadata.prepare_increment_producer_epoch(transaction_timeout_ms, self.time_ms())
        if state is Ongoing:
            # Fence the old producer and abort its transaction; this epoch never reaches a client, whose retry bumps
            # it again (or rotates the producer id, if this bump exhausted the epochs).
            return None, txn_metadata.prepare_fence_producer_epoch()
        error_msg = (f"Found transactionalId {transactional_id} with state {state}. This is illegal as we should "
                     "never have transitioned to this state.")
        log.critical(error_msg)
        raise IllegalStateException(error_msg)

    # -- AddPartitionsToTxn / AddOffsetsToTxn -------------------------------------------------------------------------

    @step("TX.add")
    def handle_add_partitions_to_transaction(self, transactional_id: str | None, producer_id: int,
                                             producer_epoch: int, partitions: Iterable[TopicPartition],
                                             response_callback: AddPartitionsCallback) -> None:
        partitions = {TopicPartition(*tp) for tp in partitions}
        if not transactional_id:
            log.debug("Returning %s error code to client for %s's AddPartitions request", Errors.INVALID_REQUEST.name,
                      transactional_id)
            response_callback(Errors.INVALID_REQUEST)
            return
        if self.txn_manager is None:
            response_callback(Errors.NOT_COORDINATOR)
            return
        # Update the metadata and append it to the log; an unknown id is an invalid producer id mapping.
        error, epoch_and_metadata = self.txn_manager.get_transaction_state(transactional_id)
        coordinator_epoch, new_metadata = -1, None
        if error is None and epoch_and_metadata is None:
            error = Errors.INVALID_PRODUCER_ID_MAPPING
        elif error is None:
            coordinator_epoch = epoch_and_metadata.coordinator_epoch
            txn_metadata = epoch_and_metadata.transaction_metadata
            with txn_metadata.in_lock():
                if txn_metadata.producer_id != producer_id:
                    error = Errors.INVALID_PRODUCER_ID_MAPPING
                elif txn_metadata.producer_epoch != producer_epoch:
                    error = Errors.INVALID_PRODUCER_EPOCH
                elif txn_metadata.pending_transition_in_progress:
                    error = Errors.CONCURRENT_TRANSACTIONS  # the client backs off and retries
                elif txn_metadata.state is PrepareCommit or txn_metadata.state is PrepareAbort:
                    error = Errors.CONCURRENT_TRANSACTIONS
                elif txn_metadata.state is Ongoing and partitions <= txn_metadata.topic_partitions:
                    error = Errors.NONE  # nothing new to write: answer at once
                else:
                    new_metadata = txn_metadata.prepare_add_partitions(partitions, self.time_ms())
        if new_metadata is None:
            log.debug("Returning %s error code to client for %s's AddPartitions request", error.name,
                      transactional_id)
            response_callback(error)
        else:
            self.txn_manager.append_transaction_to_log(transactional_id, coordinator_epoch, new_metadata,
                                                       response_callback)

    # -- leadership of __transaction_state partitions ----------------------------------------------------------------

    def handle_txn_immigration(self, txn_topic_partition_id: int, coordinator_epoch: int) -> None:
        self.txn_manager.load_transactions_for_txn_topic_partition(
            txn_topic_partition_id, coordinator_epoch, self.txn_marker_channel_manager.add_txn_markers_to_send)

    def handle_txn_emigration(self, txn_topic_partition_id: int, coordinator_epoch: int) -> None:
        self.txn_manager.remove_transactions_for_txn_topic_partition(txn_topic_partition_id, coordinator_epoch)
        self.txn_marker_channel_manager.remove_markers_for_txn_topic_partition(txn_topic_partition_id)

    # -- EndTxn -------------------------------------------------------------------------------------------------------

    @staticmethod
    def _log_invalid_state_transition_and_return_error(transactional_id: str, transaction_state: TransactionState,
                                                       transaction_result: TransactionResult) -> Errors:
        log.debug("TransactionalId: %s's state is %s, but received transaction marker result to send: %s",
                  transactional_id, transaction_state, transaction_result.name)
        return Errors.INVALID_TXN_STATE

    @step("TX.end")
    def handle_end_transaction(self, transactional_id: str | None, producer_id: int, producer_epoch: int,
                               txn_marker_result: TransactionResult, response_callback: EndTxnCallback) -> None:
        if not transactional_id:
            response_callback(Errors.INVALID_REQUEST)
            return
        if self.txn_manager is None:
            response_callback(Errors.NOT_COORDINATOR)
            return
        error, epoch_and_txn_metadata = self.txn_manager.get_transaction_state(transactional_id)
        coordinator_epoch, new_metadata = -1, None
        if error is None and epoch_and_txn_metadata is None:
            error = Errors.INVALID_PRODUCER_ID_MAPPING
        elif error is None:
            txn_metadata = epoch_and_txn_metadata.transaction_metadata
            coordinator_epoch = epoch_and_txn_metadata.coordinator_epoch
            with txn_metadata.in_lock():
                error, new_metadata = self._prepare_end_transaction(transactional_id, producer_epoch,
                                                                    txn_marker_result, txn_metadata, producer_id)
        if new_metadata is None:
            log.debug("Aborting append of %s to transaction log with coordinator and returning %s error to client "
                      "for %s's EndTransaction request", txn_marker_result.name, error.name, transactional_id)
            response_callback(error)
            return

        def send_txn_markers_callback(append_error: Errors) -> None:
            if append_error != Errors.NONE:
                log.info("Aborting sending of transaction markers and returning %s error to client for %s's "
                         "EndTransaction request of %s, since appending %s to transaction log with coordinator epoch "
                         "%d failed", append_error.name, transactional_id, txn_marker_result.name, new_metadata,
                         coordinator_epoch)
                response_callback(append_error)
                return
            pre_send_error, txn_metadata, new_pre_send_metadata = self._prepare_send_markers(
                transactional_id, producer_id, producer_epoch, txn_marker_result, coordinator_epoch)
            if pre_send_error is not None:
                log.info("Aborting sending of transaction markers after appended %s to transaction log and "
                         "returning %s error to client for %s's EndTransaction request", txn_marker_result.name,
                         pre_send_error.name, transactional_id)
                response_callback(pre_send_error)
                return
            # The decision is durable: answer now, and let the markers follow.
            response_callback(Errors.NONE)
            self.txn_marker_channel_manager.add_txn_markers_to_send(transactional_id, coordinator_epoch,
                                                                    txn_marker_result, txn_metadata,
                                                                    new_pre_send_metadata)

        self.txn_manager.append_transaction_to_log(transactional_id, coordinator_epoch, new_metadata,
                                                   send_txn_markers_callback)

    def _prepare_end_transaction(self, transactional_id: str, producer_epoch: int,
                                 txn_marker_result: TransactionResult, txn_metadata: TransactionMetadata,
                                 producer_id: int) -> tuple[Errors | None, TxnTransitMetadata | None]:
        """Caller holds the metadata's lock."""
        if txn_metadata.producer_id != producer_id:
            return Errors.INVALID_PRODUCER_ID_MAPPING, None
        if producer_epoch < txn_metadata.producer_epoch:
            return Errors.INVALID_PRODUCER_EPOCH, None  # a fenced producer
        if txn_metadata.pending_transition_in_progress and txn_metadata.pending_state is not PrepareEpochFence:
            return Errors.CONCURRENT_TRANSACTIONS, None
        commit = txn_marker_result is TransactionResult.COMMIT
        state = txn_metadata.state
        if state is Ongoing:
            next_state = PrepareCommit if commit else PrepareAbort
            if next_state is PrepareAbort and txn_metadata.pending_state is PrepareEpochFence:
                # The fence: clear its pending state so PrepareAbort can be prepared, and write the bumped epoch.
                txn_metadata.pending_state = None
                txn_metadata.producer_epoch = producer_epoch
            return None, txn_metadata.prepare_abort_or_commit(next_state, self.time_ms())
        if state is CompleteCommit:
            return (Errors.NONE if commit else self._log_invalid_state_transition_and_return_error(
                transactional_id, state, txn_marker_result)), None
        if state is CompleteAbort:
            return (Errors.NONE if not commit else self._log_invalid_state_transition_and_return_error(
                transactional_id, state, txn_marker_result)), None
        if state is PrepareCommit:
            return (Errors.CONCURRENT_TRANSACTIONS if commit else self._log_invalid_state_transition_and_return_error(
                transactional_id, state, txn_marker_result)), None
        if state is PrepareAbort:
            return (Errors.CONCURRENT_TRANSACTIONS if not commit
                    else self._log_invalid_state_transition_and_return_error(transactional_id, state,
                                                                              txn_marker_result)), None
        if state is Empty:
            return self._log_invalid_state_transition_and_return_error(transactional_id, state,
                                                                       txn_marker_result), None
        error_msg = (f"Found transactionalId {transactional_id} with state {state}. This is illegal as we should "
                     "never have transitioned to this state.")
        log.critical(error_msg)
        raise IllegalStateException(error_msg)

    def _prepare_send_markers(self, transactional_id: str, producer_id: int, producer_epoch: int,
                              txn_marker_result: TransactionResult, coordinator_epoch: int
                              ) -> tuple[Errors | None, TransactionMetadata | None, TxnTransitMetadata | None]:
        """After PrepareCommit/PrepareAbort is written: check the transaction is still ours, and prepare its
        completion, which the markers' acknowledgement will write."""
        error, epoch_and_metadata = self.txn_manager.get_transaction_state(transactional_id)
        if error is not None:
            return error, None, None
        if epoch_and_metadata is None:
            error_msg = (f"The coordinator still owns the transaction partition for {transactional_id}, but there is "
                         "no metadata in the cache; this is not expected")
            log.critical(error_msg)
            raise IllegalStateException(error_msg)
        if epoch_and_metadata.coordinator_epoch != coordinator_epoch:
            log.debug("The transaction coordinator epoch has changed to %d after %s was successfully appended to the "
                      "log for %s with old epoch %d", epoch_and_metadata.coordinator_epoch, txn_marker_result.name,
                      transactional_id, coordinator_epoch)
            return Errors.NOT_COORDINATOR, None, None
        txn_metadata = epoch_and_metadata.transaction_metadata
        with txn_metadata.in_lock():
            if txn_metadata.producer_id != producer_id:
                return Errors.INVALID_PRODUCER_ID_MAPPING, None, None
            if txn_metadata.producer_epoch != producer_epoch:
                return Errors.INVALID_PRODUCER_EPOCH, None, None
            if txn_metadata.pending_transition_in_progress:
                return Errors.CONCURRENT_TRANSACTIONS, None, None
            state = txn_metadata.state
            if state in (Empty, Ongoing, CompleteCommit, CompleteAbort):
                return self._log_invalid_state_transition_and_return_error(transactional_id, state,
                                                                           txn_marker_result), None, None
            if state is PrepareCommit or state is PrepareAbort:
                expected = TransactionResult.COMMIT if state is PrepareCommit else TransactionResult.ABORT
                if txn_marker_result is not expected:
                    return self._log_invalid_state_transition_and_return_error(transactional_id, state,
                                                                               txn_marker_result), None, None
                return None, txn_metadata, txn_metadata.prepare_complete(self.time_ms())
            error_msg = (f"Found transactionalId {transactional_id} with state {state}. This is illegal as we should "
                         "never have transitioned to this state.")
            log.critical(error_msg)
            raise IllegalStateException(error_msg)

    def transaction_topic_configs(self) -> dict[str, str]:
        return self.txn_manager.transaction_topic_configs()

    def partition_for(self, transactional_id: str) -> int:
        return self.txn_manager.partition_for(transactional_id)

    # -- transaction timeouts -----------------------------------------------------------------------------------------

    def abort_timed_out_transactions(self) -> None:
        """The scheduled scan: abort every transaction open longer than its timeout, fencing its producer."""
        for txn_id_and_pid_epoch in self.txn_manager.timed_out_transactions():
            with step("TX.expire", txn=txn_id_and_pid_epoch):
                transactional_id = txn_id_and_pid_epoch.transactional_id
                error, epoch_and_txn_metadata = self.txn_manager.get_transaction_state(transactional_id)
                if error is not None:
                    continue
                if epoch_and_txn_metadata is None:
                    log.error("Could not find transaction metadata when trying to timeout transaction with "
                              "transactionalId %s. ProducerId: %d. ProducerEpoch: %d", transactional_id,
                              txn_id_and_pid_epoch.producer_id, txn_id_and_pid_epoch.producer_epoch)
                    continue
                txn_metadata = epoch_and_txn_metadata.transaction_metadata
                with txn_metadata.in_lock():
                    producer_id_has_changed = txn_metadata.producer_id != txn_id_and_pid_epoch.producer_id
                if producer_id_has_changed:
                    log.error("Found incorrect producerId when expiring transactionalId: %s. Expected producerId: %d. "
                              "Found producerId: %d", transactional_id, txn_id_and_pid_epoch.producer_id,
                              txn_metadata.producer_id)
                    continue
                with txn_metadata.in_lock():
                    if txn_metadata.pending_transition_in_progress:
                        continue  # CONCURRENT_TRANSACTIONS: the next scan tries again
                    txn_transit_metadata = txn_metadata.prepare_fence_producer_epoch()

                def on_aborted(abort_error: Errors, transactional_id: str = transactional_id) -> None:
                    if abort_error == Errors.NONE:
                        log.info("Completed rollback ongoing transaction of transactionalId: %s due to timeout",
                                 transactional_id)
                    elif abort_error in (Errors.INVALID_PRODUCER_ID_MAPPING, Errors.INVALID_PRODUCER_EPOCH,
                                         Errors.CONCURRENT_TRANSACTIONS):
                        log.debug("Rolling back ongoing transaction of transactionalId: %s has aborted due to %s",
                                  transactional_id, abort_error.exception_name)
                    else:
                        log.warning("Rolling back ongoing transaction of transactionalId: %s failed due to %s",
                                    transactional_id, abort_error.exception_name)

                self.handle_end_transaction(transactional_id, txn_transit_metadata.producer_id,
                                            txn_transit_metadata.producer_epoch, TransactionResult.ABORT, on_aborted)

    # -- lifecycle ----------------------------------------------------------------------------------------------------

    def startup(self, enable_transactional_id_expiration: bool = True) -> None:
        log.info("Starting up.")
        self.producer_id_manager = (self._given_producer_id_manager if self._given_producer_id_manager is not None
                                    else self.create_producer_id_manager())
        if self.txn_manager is not None:
            self.scheduler.startup()
            self.scheduler.schedule("transaction-abort", self.abort_timed_out_transactions,
                                    delay=self.txn_config.abort_timed_out_transactions_interval_ms,
                                    period=self.txn_config.abort_timed_out_transactions_interval_ms)
            # transactional id expiration (enable_transactional_id_expiration) is not ported
            self.txn_marker_channel_manager.start()
        self.is_active.set(True)
        log.info("Startup complete.")

    def shutdown(self) -> None:
        """The reverse of startup."""
        log.info("Shutting down.")
        self.is_active.set(False)
        if self.scheduler is not None and self.scheduler.is_started:
            self.scheduler.shutdown()
        if self.producer_id_manager is not None:
            self.producer_id_manager.shutdown()
        if self.txn_manager is not None:
            self.txn_manager.shutdown()
        if self.txn_marker_channel_manager is not None:
            self.txn_marker_channel_manager.shutdown()
        log.info("Shutdown complete.")


def transaction_config_from(config: KafkaConfig) -> TransactionConfig:
    return TransactionConfig(
        transactional_id_expiration_ms=config.transactional_id_expiration_ms,
        transaction_max_timeout_ms=config.transaction_max_timeout_ms,
        transaction_log_num_partitions=config.transaction_topic_partitions,
        transaction_log_replication_factor=config.transaction_topic_replication_factor,
        transaction_log_segment_bytes=config.transaction_topic_segment_bytes,
        transaction_log_load_buffer_size=config.transactions_load_buffer_size,
        transaction_log_min_insync_replicas=config.transaction_topic_min_isr,
        abort_timed_out_transactions_interval_ms=config.transaction_abort_timed_out_transaction_cleanup_interval_ms,
        remove_expired_transactional_ids_interval_ms=(
            config.transaction_remove_expired_transactional_id_cleanup_interval_ms),
        request_timeout_ms=config.request_timeout_ms)

