"""Port of core/src/main/scala/kafka/coordinator/transaction/TransactionCoordinator.scala (Kafka 3.9).

As in the rest of this package, a Scala `Either` is an `(error, value)` pair, and ProducerIdManager's `Try[Long]` is
`generate_producer_id()` returning the id or raising. ProducerIdAndEpoch is a `(producer_id, epoch)` tuple (the 3.9
tree has no such class, and KafkaApis hands one over in that form). The ListTransactions, DescribeTransactions and
verify-only AddPartitionsToTxn results are the response messages' fields as dicts with kio's names, which is how
KafkaApis builds those responses.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from kafka_edu.tracing import note, step
from kafka_edu.v1_0_2.clients.common.errors import IllegalArgumentException, IllegalStateException
from kafka_edu.v1_0_2.clients.common.requests.transaction_result import TransactionResult
from kafka_edu.v1_0_2.core.utils.concurrent import AtomicBoolean
from kafka_edu.v1_0_2.core.utils.kafka_logging import Logging
from kafka_edu.v3_9.clients.common.internals.topic import TRANSACTION_STATE_TOPIC_NAME
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from kafka_edu.v3_9.clients.common.record.record_batch import NO_PRODUCER_EPOCH, NO_PRODUCER_ID
from kafka_edu.v3_9.clients.common.requests.add_partitions_to_txn_response import result_for_transaction
from kafka_edu.v3_9.clients.common.topic_partition import TopicPartition
from kafka_edu.v3_9.core.coordinator.transaction.transaction_marker_channel_manager import (
    TransactionMarkerChannelManager,
)
from kafka_edu.v3_9.core.coordinator.transaction.transaction_metadata import (
    CompleteAbort,
    CompleteCommit,
    Dead,
    Empty,
    Ongoing,
    PrepareAbort,
    PrepareCommit,
    PrepareEpochFence,
    TransactionMetadata,
    TransactionState,
    TxnTransitMetadata,
)
from kafka_edu.v3_9.core.coordinator.transaction.transaction_state_manager import (
    Either,
    TransactionalIdAndProducerIdEpoch,
    TransactionConfig,
    TransactionStateManager,
)
from kafka_edu.v3_9.core.server.request_local import RequestLocal

ProducerIdAndEpoch = tuple[int, int]  # (producer id, epoch)


@dataclass(frozen=True)
class InitProducerIdResult:
    producer_id: int
    producer_epoch: int
    error: Errors


InitProducerIdCallback = Callable[[InitProducerIdResult], None]
AddPartitionsCallback = Callable[[Errors], None]
VerifyPartitionsCallback = Callable[[dict[str, Any]], None]
EndTxnCallback = Callable[[Errors], None]


def _init_transaction_error(error: Errors) -> InitProducerIdResult:
    return InitProducerIdResult(NO_PRODUCER_ID, NO_PRODUCER_EPOCH, error)


def _init_transaction_metadata(txn_metadata: TxnTransitMetadata) -> InitProducerIdResult:
    return InitProducerIdResult(txn_metadata.producer_id, txn_metadata.producer_epoch, Errors.NONE)



def _from_ms(timestamp_ms: int) -> datetime:
    """kio carries an int64 time as a datetime."""
    return datetime.fromtimestamp(timestamp_ms / 1000, UTC)


class TransactionCoordinator:
    """Serves the transactional producer's requests (InitProducerId, AddPartitionsToTxn, EndTxn) and the admin's
    (ListTransactions, DescribeTransactions) for the transactional ids whose `__transaction_state` partitions this
    broker leads; aborts transactions that outlive their timeout."""

    def __init__(self, txn_config: TransactionConfig, scheduler: Any, create_producer_id_manager: Callable[[], Any],
                 txn_manager: TransactionStateManager, txn_marker_channel_manager: TransactionMarkerChannelManager,
                 time: Any, log_context: Any = None) -> None:
        self.txn_config = txn_config
        self.scheduler = scheduler
        self.txn_manager = txn_manager
        self.txn_marker_channel_manager = txn_marker_channel_manager
        self.time = time
        prefix = getattr(log_context, "log_prefix", None)
        self.log = Logging("kafka.coordinator.transaction.TransactionCoordinator",
                           prefix() if callable(prefix) else (prefix or ""))
        self.is_active = AtomicBoolean(False)
        self.producer_id_manager = create_producer_id_manager()

    @staticmethod
    def apply(config: Any, replica_manager: Any, scheduler: Any, create_producer_id_generator: Callable[[], Any],
              metrics: Any, metadata_cache: Any, time: Any) -> TransactionCoordinator:
        """The broker's coordinator, its state manager and its marker channel, from the broker's config."""
        txn_config = TransactionConfig(config.transactional_id_expiration_ms, config.transaction_max_timeout_ms,
                                       config.transaction_topic_partitions,
                                       config.transaction_topic_replication_factor,
                                       config.transaction_topic_segment_bytes, config.transactions_load_buffer_size,
                                       config.transaction_topic_min_isr,
                                       config.transaction_abort_timed_out_transaction_cleanup_interval_ms,
                                       config.transaction_remove_expired_transactional_id_cleanup_interval_ms,
                                       config.request_timeout_ms)
        txn_state_manager = TransactionStateManager(config.broker_id, scheduler, replica_manager, metadata_cache,
                                                    txn_config, time, metrics)
        log_prefix = f"[TransactionCoordinator id={config.broker_id}] "
        txn_marker_channel_manager = TransactionMarkerChannelManager.apply(config, metrics, metadata_cache,
                                                                           txn_state_manager, time, log_prefix)

        class _LogContext:
            def log_prefix(self) -> str:
                return log_prefix
        return TransactionCoordinator(txn_config, scheduler, create_producer_id_generator, txn_state_manager,
                                      txn_marker_channel_manager, time, _LogContext())

    def _generate_producer_id(self) -> tuple[Errors | None, int | None]:
        """ProducerIdManager.generateProducerId's Try: (None, id), or (the error for what it raised, None)."""
        try:
            return None, self.producer_id_manager.generate_producer_id()
        except Exception as e:
            return Errors.for_exception(e), None

    @step("TX39.init")
    def handle_init_producer_id(self, transactional_id: str | None, transaction_timeout_ms: int,
                                expected_producer_id_and_epoch: ProducerIdAndEpoch | None,
                                response_callback: InitProducerIdCallback,
                                request_local: RequestLocal | None = None) -> None:
        request_local = request_local or RequestLocal.NO_CACHING  # type: ignore[attr-defined]
        if transactional_id is None:
            # an idempotent producer: any broker hands out a fresh producer id
            error, producer_id = self._generate_producer_id()
            if error is None:
                assert producer_id is not None
                response_callback(InitProducerIdResult(producer_id, 0, Errors.NONE))
            else:
                response_callback(_init_transaction_error(error))
            return
        # the TX row: a transactional id gets its producer id and epoch (TX39.init around it is the KIP-360 story)
        with step("TX.init", self, transactional_id=transactional_id, transaction_timeout_ms=transaction_timeout_ms):
            if not transactional_id:
                # as the producer client does: an empty transactional id is invalid
                response_callback(_init_transaction_error(Errors.INVALID_REQUEST))
                return
            if not self.txn_manager.validate_transaction_timeout_ms(transaction_timeout_ms):
                response_callback(_init_transaction_error(Errors.INVALID_TRANSACTION_TIMEOUT))
                return

            error, epoch_and_metadata = self.txn_manager.get_transaction_state(transactional_id)
            if error is None and epoch_and_metadata is None:
                error, producer_id = self._generate_producer_id()
                if error is None:
                    assert producer_id is not None
                    created_metadata = TransactionMetadata(
                        transactional_id=transactional_id, producer_id=producer_id, last_producer_id=NO_PRODUCER_ID,
                        producer_epoch=NO_PRODUCER_EPOCH, last_producer_epoch=NO_PRODUCER_EPOCH,
                        txn_timeout_ms=transaction_timeout_ms, state=Empty, topic_partitions=set(),
                        txn_last_update_timestamp=self.time.milliseconds())
                    error, epoch_and_metadata = self.txn_manager.put_transaction_state_if_not_exists(created_metadata)

            result: Either
            if error is not None:
                result = (error, None)
            else:
                coordinator_epoch = epoch_and_metadata.coordinator_epoch
                txn_metadata = epoch_and_metadata.transaction_metadata
                with txn_metadata.in_lock():
                    result = self._prepare_init_producer_id_transit(transactional_id, transaction_timeout_ms,
                                                                    coordinator_epoch, txn_metadata,
                                                                    expected_producer_id_and_epoch)

            error, value = result
            if error is not None:
                response_callback(_init_transaction_error(error))
                return
            coordinator_epoch, new_metadata = value
            if new_metadata.txn_state is PrepareEpochFence:
                # abort the ongoing transaction first; the client retries on CONCURRENT_TRANSACTIONS
                def send_retriable_error_callback(error: Errors) -> None:
                    if error != Errors.NONE:
                        response_callback(_init_transaction_error(error))
                    else:
                        response_callback(_init_transaction_error(Errors.CONCURRENT_TRANSACTIONS))

                self._end_transaction(transactional_id, new_metadata.producer_id, new_metadata.producer_epoch,
                                      TransactionResult.ABORT, False, send_retriable_error_callback, request_local)
            else:
                def send_pid_response_callback(error: Errors) -> None:
                    if error == Errors.NONE:
                        self.log.info("Initialized transactionalId %s with producerId %s and producer epoch %s on "
                                      "partition %s-%s", transactional_id, new_metadata.producer_id,
                                      new_metadata.producer_epoch, TRANSACTION_STATE_TOPIC_NAME,
                                      self.txn_manager.partition_for(transactional_id))
                        response_callback(_init_transaction_metadata(new_metadata))
                    else:
                        self.log.info("Returning %s error code to client for %s's InitProducerId request", error,
                                      transactional_id)
                        response_callback(_init_transaction_error(error))

                self.txn_manager.append_transaction_to_log(transactional_id, coordinator_epoch, new_metadata,
                                                           send_pid_response_callback, request_local=request_local)

    def _prepare_init_producer_id_transit(self, transactional_id: str, transaction_timeout_ms: int,
                                          coordinator_epoch: int, txn_metadata: TransactionMetadata,
                                          expected_producer_id_and_epoch: ProducerIdAndEpoch | None) -> Either:
        def is_valid_producer_id(producer_id_and_epoch: ProducerIdAndEpoch) -> bool:
            # Not fenced when: the metadata was just created (epoch -1: a producer recovering from
            # UNKNOWN_PRODUCER_ID); the id is the current one (the epoch is checked by the bump); or the id is the
            # previous one with its epochs exhausted (a retry of a rotation whose answer was lost).
            expected_producer_id, expected_epoch = producer_id_and_epoch
            return (txn_metadata.producer_epoch == NO_PRODUCER_EPOCH
                    or expected_producer_id == txn_metadata.producer_id
                    or (expected_producer_id == txn_metadata.last_producer_id
                        and TransactionMetadata.is_epoch_exhausted(expected_epoch)))

        if txn_metadata.pending_transition_in_progress:
            # retriable: the client backs off and tries again
            return Errors.CONCURRENT_TRANSACTIONS, None
        if expected_producer_id_and_epoch is not None and not is_valid_producer_id(expected_producer_id_and_epoch):
            return Errors.PRODUCER_FENCED, None

        state = txn_metadata.state
        if state is PrepareAbort or state is PrepareCommit:
            return Errors.CONCURRENT_TRANSACTIONS, None
        if state is CompleteAbort or state is CompleteCommit or state is Empty:
            if txn_metadata.is_producer_epoch_exhausted and (
                    expected_producer_id_and_epoch is None
                    or expected_producer_id_and_epoch[1] == txn_metadata.producer_epoch):
                # no epoch left: a new producer id, epoch 0
                error, producer_id = self._generate_producer_id()
                if error is not None:
                    return error, None
                assert producer_id is not None
                return None, (coordinator_epoch, txn_metadata.prepare_producer_id_rotation(
                    producer_id, transaction_timeout_ms, self.time.milliseconds(),
                    expected_producer_id_and_epoch is not None))
            transit = txn_metadata.prepare_increment_producer_epoch(
                transaction_timeout_ms,
                None if expected_producer_id_and_epoch is None else expected_producer_id_and_epoch[1],
                self.time.milliseconds())
            if isinstance(transit, Errors):
                return transit, None
            return None, (coordinator_epoch, transit)
        if state is Ongoing:
            # Fence: bump the epoch and abort. The bumped epoch is never handed out: the client gets
            # CONCURRENT_TRANSACTIONS and retries, and the retry bumps again (or rotates the id if this exhausted it).
            return None, (coordinator_epoch, txn_metadata.prepare_fence_producer_epoch())
        # Dead or PrepareEpochFence
        error_msg = (f"Found transactionalId {transactional_id} with state {txn_metadata.state}. This is illegal as we "
                     "should never have transitioned to this state.")
        self.log.critical(error_msg)
        raise IllegalStateException(error_msg)

    def handle_list_transactions(self, filtered_producer_ids: set[int], filtered_states: set[str],
                                 filtered_duration: int = -1) -> dict[str, Any]:
        if not self.is_active.get():
            return {"error_code": Errors.COORDINATOR_NOT_AVAILABLE, "unknown_state_filters": [],
                    "transaction_states": []}
        return self.txn_manager.list_transaction_states(set(filtered_producer_ids), set(filtered_states),
                                                        filtered_duration)

    def handle_describe_transactions(self, transactional_id: str | None) -> dict[str, Any]:
        """DescribeTransactionsResponseData.TransactionState's fields (kio's names)."""
        if transactional_id is None:
            raise IllegalArgumentException("Invalid null transactionalId")
        # the message's defaults, kept where an error answers
        transaction_state: dict[str, Any] = dict(transactional_id=transactional_id, error_code=Errors.NONE,
                                                 transaction_state="", transaction_timeout=0,
                                                 transaction_start_time=_from_ms(0), producer_id=0,
                                                 producer_epoch=0, topics=[])
        if not self.is_active.get():
            transaction_state["error_code"] = Errors.COORDINATOR_NOT_AVAILABLE
        elif not transactional_id:
            transaction_state["error_code"] = Errors.INVALID_REQUEST
        else:
            error, coordinator_epoch_and_metadata = self.txn_manager.get_transaction_state(transactional_id)
            if error is not None:
                transaction_state["error_code"] = error
            elif coordinator_epoch_and_metadata is None:
                transaction_state["error_code"] = Errors.TRANSACTIONAL_ID_NOT_FOUND
            else:
                txn_metadata = coordinator_epoch_and_metadata.transaction_metadata
                with txn_metadata.in_lock():
                    if txn_metadata.state is Dead:
                        # being expired: as if it were gone
                        transaction_state["error_code"] = Errors.TRANSACTIONAL_ID_NOT_FOUND
                    else:
                        topics: dict[str, dict[str, Any]] = {}
                        for tp in txn_metadata.topic_partitions:
                            topics.setdefault(str(tp.topic), dict(topic=tp.topic, partitions=[]))[
                                "partitions"].append(tp.partition)
                        transaction_state.update(
                            topics=list(topics.values()),
                            error_code=Errors.NONE,
                            producer_id=txn_metadata.producer_id,
                            producer_epoch=txn_metadata.producer_epoch,
                            transaction_state=txn_metadata.state.name,
                            transaction_timeout=txn_metadata.txn_timeout_ms,
                            transaction_start_time=_from_ms(txn_metadata.txn_start_timestamp))
        return transaction_state

    def handle_verify_partitions_in_transaction(self, transactional_id: str | None, producer_id: int,
                                                producer_epoch: int, partitions: Iterable[TopicPartition],
                                                response_callback: VerifyPartitionsCallback) -> None:
        partitions = {TopicPartition(*tp) for tp in partitions}
        with step("TX39.vcheck", self, transactional_id=transactional_id, producer_id=producer_id,
                  producer_epoch=producer_epoch, partitions=partitions):
            if not transactional_id:
                self.log.debug("Returning %s error code to client for %s's AddPartitions request for verification",
                               Errors.INVALID_REQUEST, transactional_id)
                result = result_for_transaction(transactional_id, {p: Errors.INVALID_REQUEST for p in partitions})
                note(result=result)
                response_callback(result)
                return
            error, epoch_and_metadata = self.txn_manager.get_transaction_state(transactional_id)
            errors: dict[TopicPartition, Errors] | None = None
            if error is None and epoch_and_metadata is None:
                error = Errors.INVALID_PRODUCER_ID_MAPPING
            elif error is None:
                txn_metadata = epoch_and_metadata.transaction_metadata
                # the pending state is not looked at: the append to the log validates again
                with txn_metadata.in_lock():
                    if txn_metadata.producer_id != producer_id:
                        error = Errors.INVALID_PRODUCER_ID_MAPPING
                    elif txn_metadata.producer_epoch != producer_epoch:
                        error = Errors.PRODUCER_FENCED
                    elif txn_metadata.state is PrepareCommit or txn_metadata.state is PrepareAbort:
                        error = Errors.CONCURRENT_TRANSACTIONS
                    else:
                        errors = {p: Errors.NONE if p in txn_metadata.topic_partitions else Errors.TRANSACTION_ABORTABLE
                                  for p in partitions}
            if errors is None:
                assert error is not None
                self.log.debug("Returning %s error code to client for %s's AddPartitions request for verification",
                               error, transactional_id)
                result = result_for_transaction(transactional_id, {p: error for p in partitions})
            else:
                result = result_for_transaction(transactional_id, errors)
            # what the span reports: the answer, not a second reading of the metadata
            note(result=result)
            response_callback(result)

    @step("TX.add")
    def handle_add_partitions_to_transaction(self, transactional_id: str | None, producer_id: int,
                                             producer_epoch: int, partitions: Iterable[TopicPartition],
                                             response_callback: AddPartitionsCallback,
                                             request_local: RequestLocal | None = None) -> None:
        request_local = request_local or RequestLocal.NO_CACHING  # type: ignore[attr-defined]
        if not transactional_id:
            self.log.debug("Returning %s error code to client for %s's AddPartitions request", Errors.INVALID_REQUEST,
                           transactional_id)
            response_callback(Errors.INVALID_REQUEST)
            return
        partitions = {TopicPartition(*tp) for tp in partitions}
        # no metadata for the id: an invalid producer id mapping
        error, epoch_and_metadata = self.txn_manager.get_transaction_state(transactional_id)
        result: Either
        if error is not None:
            result = (error, None)
        elif epoch_and_metadata is None:
            result = (Errors.INVALID_PRODUCER_ID_MAPPING, None)
        else:
            coordinator_epoch = epoch_and_metadata.coordinator_epoch
            txn_metadata = epoch_and_metadata.transaction_metadata
            with txn_metadata.in_lock():
                if txn_metadata.producer_id != producer_id:
                    result = (Errors.INVALID_PRODUCER_ID_MAPPING, None)
                elif txn_metadata.producer_epoch != producer_epoch:
                    result = (Errors.PRODUCER_FENCED, None)
                elif txn_metadata.pending_transition_in_progress:
                    # retriable: the client backs off and tries again
                    result = (Errors.CONCURRENT_TRANSACTIONS, None)
                elif txn_metadata.state is PrepareCommit or txn_metadata.state is PrepareAbort:
                    result = (Errors.CONCURRENT_TRANSACTIONS, None)
                elif txn_metadata.state is Ongoing and partitions <= txn_metadata.topic_partitions:
                    # already in the transaction: nothing to write
                    result = (Errors.NONE, None)
                else:
                    result = (None, (coordinator_epoch, txn_metadata.prepare_add_partitions(
                        partitions, self.time.milliseconds())))

        error, value = result
        if error is not None:
            self.log.debug("Returning %s error code to client for %s's AddPartitions request", error,
                           transactional_id)
            response_callback(error)
        else:
            coordinator_epoch, new_metadata = value
            self.txn_manager.append_transaction_to_log(transactional_id, coordinator_epoch, new_metadata,
                                                       response_callback, request_local=request_local)

    def on_election(self, txn_topic_partition_id: int, coordinator_epoch: int) -> None:
        """This broker leads the partition now: load it, after dropping anything a previous term left behind."""
        self.log.info("Elected as the txn coordinator for partition %s at epoch %s", txn_topic_partition_id,
                      coordinator_epoch)
        self.txn_marker_channel_manager.remove_markers_for_txn_topic_partition(txn_topic_partition_id)
        self.txn_manager.load_transactions_for_txn_topic_partition(
            txn_topic_partition_id, coordinator_epoch, self.txn_marker_channel_manager.add_txn_markers_to_send)

    def on_resignation(self, txn_topic_partition_id: int, coordinator_epoch: int | None) -> None:
        """No longer the leader: drop the partition's cache and its queued markers. No epoch after a StopReplica."""
        self.log.info("Resigned as the txn coordinator for partition %s at epoch %s", txn_topic_partition_id,
                      coordinator_epoch)
        if coordinator_epoch is not None:
            self.txn_manager.remove_transactions_for_txn_topic_partition(txn_topic_partition_id, coordinator_epoch)
        else:
            self.txn_manager.remove_transactions_for_txn_topic_partition(txn_topic_partition_id)
        self.txn_marker_channel_manager.remove_markers_for_txn_topic_partition(txn_topic_partition_id)

    def _log_invalid_state_transition_and_return_error(self, transactional_id: str,
                                                       transaction_state: TransactionState,
                                                       transaction_result: TransactionResult) -> Either:
        self.log.debug("TransactionalId: %s's state is %s, but received transaction marker result to send: %s",
                       transactional_id, transaction_state, transaction_result)
        return Errors.INVALID_TXN_STATE, None

    def handle_end_transaction(self, transactional_id: str | None, producer_id: int, producer_epoch: int,
                               txn_marker_result: TransactionResult, response_callback: EndTxnCallback,
                               request_local: RequestLocal | None = None) -> None:
        self._end_transaction(transactional_id, producer_id, producer_epoch, txn_marker_result, True,
                              response_callback, request_local or RequestLocal.NO_CACHING)  # type: ignore[attr-defined]

    def _illegal_state(self, transactional_id: str, state: TransactionState) -> IllegalStateException:
        error_msg = (f"Found transactionalId {transactional_id} with state {state}. This is illegal as we should "
                     "never have transitioned to this state.")
        self.log.critical(error_msg)
        return IllegalStateException(error_msg)

    @step("TX.end")
    def _end_transaction(self, transactional_id: str | None, producer_id: int, producer_epoch: int,
                         txn_marker_result: TransactionResult, is_from_client: bool,
                         response_callback: EndTxnCallback, request_local: RequestLocal) -> None:
        is_epoch_fence = False
        if not transactional_id:
            response_callback(Errors.INVALID_REQUEST)
            return

        pre_append_result: Either
        error, epoch_and_txn_metadata = self.txn_manager.get_transaction_state(transactional_id)
        if error is not None:
            pre_append_result = (error, None)
        elif epoch_and_txn_metadata is None:
            pre_append_result = (Errors.INVALID_PRODUCER_ID_MAPPING, None)
        else:
            txn_metadata = epoch_and_txn_metadata.transaction_metadata
            coordinator_epoch = epoch_and_txn_metadata.coordinator_epoch
            with txn_metadata.in_lock():
                state = txn_metadata.state
                if txn_metadata.producer_id != producer_id:
                    pre_append_result = (Errors.INVALID_PRODUCER_ID_MAPPING, None)
                # a client must name the current epoch exactly: only the coordinator's own abort bumps it
                elif ((is_from_client and producer_epoch != txn_metadata.producer_epoch)
                      or producer_epoch < txn_metadata.producer_epoch):
                    pre_append_result = (Errors.PRODUCER_FENCED, None)
                elif (txn_metadata.pending_transition_in_progress
                      and txn_metadata.pending_state is not PrepareEpochFence):
                    pre_append_result = (Errors.CONCURRENT_TRANSACTIONS, None)
                elif state is Ongoing:
                    next_state = PrepareCommit if txn_marker_result == TransactionResult.COMMIT else PrepareAbort
                    if next_state is PrepareAbort and txn_metadata.pending_state is PrepareEpochFence:
                        # the fence's abort: clear the way for PrepareAbort and write it at the bumped epoch
                        is_epoch_fence = True
                        txn_metadata.pending_state = None
                        txn_metadata.producer_epoch = producer_epoch
                        txn_metadata.last_producer_epoch = NO_PRODUCER_EPOCH
                    pre_append_result = (None, (coordinator_epoch, txn_metadata.prepare_abort_or_commit(
                        next_state, self.time.milliseconds())))
                elif state is CompleteCommit:
                    pre_append_result = ((Errors.NONE, None) if txn_marker_result == TransactionResult.COMMIT
                                         else self._log_invalid_state_transition_and_return_error(
                                             transactional_id, state, txn_marker_result))
                elif state is CompleteAbort:
                    pre_append_result = ((Errors.NONE, None) if txn_marker_result == TransactionResult.ABORT
                                         else self._log_invalid_state_transition_and_return_error(
                                             transactional_id, state, txn_marker_result))
                elif state is PrepareCommit:
                    pre_append_result = ((Errors.CONCURRENT_TRANSACTIONS, None)
                                         if txn_marker_result == TransactionResult.COMMIT
                                         else self._log_invalid_state_transition_and_return_error(
                                             transactional_id, state, txn_marker_result))
                elif state is PrepareAbort:
                    pre_append_result = ((Errors.CONCURRENT_TRANSACTIONS, None)
                                         if txn_marker_result == TransactionResult.ABORT
                                         else self._log_invalid_state_transition_and_return_error(
                                             transactional_id, state, txn_marker_result))
                elif state is Empty:
                    pre_append_result = self._log_invalid_state_transition_and_return_error(
                        transactional_id, state, txn_marker_result)
                else:  # Dead or PrepareEpochFence
                    raise self._illegal_state(transactional_id, state)

        error, value = pre_append_result
        if error is not None:
            self.log.debug("Aborting append of %s to transaction log with coordinator and returning %s error to "
                           "client for %s's EndTransaction request", txn_marker_result, error, transactional_id)
            response_callback(error)
            return
        coordinator_epoch, new_metadata = value

        def send_txn_markers_callback(error: Errors) -> None:
            if error == Errors.NONE:
                pre_send_result: Either
                state_error, epoch_and_metadata = self.txn_manager.get_transaction_state(transactional_id)
                if state_error is not None:
                    pre_send_result = (state_error, None)
                elif epoch_and_metadata is None:
                    error_msg = (f"The coordinator still owns the transaction partition for {transactional_id}, but "
                                 "there is no metadata in the cache; this is not expected")
                    self.log.critical(error_msg)
                    raise IllegalStateException(error_msg)
                elif epoch_and_metadata.coordinator_epoch == coordinator_epoch:
                    txn_metadata = epoch_and_metadata.transaction_metadata
                    with txn_metadata.in_lock():
                        state = txn_metadata.state
                        if txn_metadata.producer_id != producer_id:
                            pre_send_result = (Errors.INVALID_PRODUCER_ID_MAPPING, None)
                        elif txn_metadata.producer_epoch != producer_epoch:
                            pre_send_result = (Errors.PRODUCER_FENCED, None)
                        elif txn_metadata.pending_transition_in_progress:
                            pre_send_result = (Errors.CONCURRENT_TRANSACTIONS, None)
                        elif state is Empty or state is Ongoing or state is CompleteCommit or state is CompleteAbort:
                            pre_send_result = self._log_invalid_state_transition_and_return_error(
                                transactional_id, state, txn_marker_result)
                        elif state is PrepareCommit:
                            pre_send_result = (
                                self._log_invalid_state_transition_and_return_error(transactional_id, state,
                                                                                    txn_marker_result)
                                if txn_marker_result != TransactionResult.COMMIT
                                else (None, (txn_metadata, txn_metadata.prepare_complete(self.time.milliseconds()))))
                        elif state is PrepareAbort:
                            pre_send_result = (
                                self._log_invalid_state_transition_and_return_error(transactional_id, state,
                                                                                    txn_marker_result)
                                if txn_marker_result != TransactionResult.ABORT
                                else (None, (txn_metadata, txn_metadata.prepare_complete(self.time.milliseconds()))))
                        else:  # Dead or PrepareEpochFence
                            raise self._illegal_state(transactional_id, state)
                else:
                    self.log.debug("The transaction coordinator epoch has changed to %s after %s was successfully "
                                   "appended to the log for %s with old epoch %s",
                                   epoch_and_metadata.coordinator_epoch, txn_marker_result, transactional_id,
                                   coordinator_epoch)
                    pre_send_result = (Errors.NOT_COORDINATOR, None)

                send_error, send_value = pre_send_result
                if send_error is not None:
                    self.log.info("Aborting sending of transaction markers after appended %s to transaction log and "
                                  "returning %s error to client for %s's EndTransaction request", txn_marker_result,
                                  send_error, transactional_id)
                    response_callback(send_error)
                else:
                    txn_metadata, new_pre_send_metadata = send_value
                    # the decision is durable: answer now, the markers follow
                    response_callback(Errors.NONE)
                    self.txn_marker_channel_manager.add_txn_markers_to_send(coordinator_epoch, txn_marker_result,
                                                                            txn_metadata, new_pre_send_metadata)
            else:
                self.log.info("Aborting sending of transaction markers and returning %s error to client for %s's "
                              "EndTransaction request of %s, since appending %s to transaction log with coordinator "
                              "epoch %s failed", error, transactional_id, txn_marker_result, new_metadata,
                              coordinator_epoch)
                if is_epoch_fence:
                    state_error, epoch_and_metadata = self.txn_manager.get_transaction_state(transactional_id)
                    if state_error is None and epoch_and_metadata is None:
                        self.log.warning("The coordinator still owns the transaction partition for %s, but there is "
                                         "no metadata in the cache; this is not expected", transactional_id)
                    elif state_error is None and epoch_and_metadata.coordinator_epoch == coordinator_epoch:
                        # the fence may not be in the log: the next fence must not bump the epoch again
                        epoch_and_metadata.transaction_metadata.has_failed_epoch_fence = True
                        self.log.warning("The coordinator failed to write an epoch fence transition for producer %s "
                                         "to the transaction log with error %s. The epoch was increased to %s but not "
                                         "returned to the client", transactional_id, error,
                                         new_metadata.producer_epoch)
                response_callback(error)

        self.txn_manager.append_transaction_to_log(transactional_id, coordinator_epoch, new_metadata,
                                                   send_txn_markers_callback, request_local=request_local)

    def transaction_topic_configs(self) -> dict[str, str]:
        return self.txn_manager.transaction_topic_configs()

    def partition_for(self, transactional_id: str) -> int:
        return self.txn_manager.partition_for(transactional_id)

    def _on_end_transaction_complete(self, txn_id_and_pid_epoch: TransactionalIdAndProducerIdEpoch
                                     ) -> EndTxnCallback:
        def callback(error: Errors) -> None:
            if error == Errors.NONE:
                self.log.info("Completed rollback of ongoing transaction for transactionalId %s due to timeout",
                              txn_id_and_pid_epoch.transactional_id)
            elif error in (Errors.INVALID_PRODUCER_ID_MAPPING, Errors.PRODUCER_FENCED,
                           Errors.CONCURRENT_TRANSACTIONS):
                self.log.debug("Rollback of ongoing transaction for transactionalId %s has been cancelled due to "
                               "error %s", txn_id_and_pid_epoch.transactional_id, error)
            else:
                self.log.warning("Rollback of ongoing transaction for transactionalId %s failed due to error %s",
                                 txn_id_and_pid_epoch.transactional_id, error)
        return callback

    def abort_timed_out_transactions(
            self, on_complete: Callable[[TransactionalIdAndProducerIdEpoch], EndTxnCallback]) -> None:
        for txn_id_and_pid_epoch in self.txn_manager.timed_out_transactions():
            with step("TX.expire", txn=txn_id_and_pid_epoch):
                error, epoch_and_txn_metadata = self.txn_manager.get_transaction_state(
                    txn_id_and_pid_epoch.transactional_id)
                if error is not None:
                    continue
                if epoch_and_txn_metadata is None:
                    self.log.error("Could not find transaction metadata when trying to timeout transaction for %s",
                                   txn_id_and_pid_epoch)
                    continue
                txn_metadata = epoch_and_txn_metadata.transaction_metadata
                with txn_metadata.in_lock():
                    if txn_metadata.producer_id != txn_id_and_pid_epoch.producer_id:
                        self.log.error("Found incorrect producerId when expiring transactionalId: %s. Expected "
                                       "producerId: %s. Found producerId: %s", txn_id_and_pid_epoch.transactional_id,
                                       txn_id_and_pid_epoch.producer_id, txn_metadata.producer_id)
                        transit_metadata = None
                    elif txn_metadata.pending_transition_in_progress:
                        self.log.debug("Skipping abort of timed out transaction %s since there is a pending state "
                                       "transition", txn_id_and_pid_epoch)
                        transit_metadata = None
                    else:
                        transit_metadata = txn_metadata.prepare_fence_producer_epoch()
                if transit_metadata is not None:
                    self._end_transaction(txn_metadata.transactional_id, transit_metadata.producer_id,
                                          transit_metadata.producer_epoch, TransactionResult.ABORT, False,
                                          on_complete(txn_id_and_pid_epoch),
                                          RequestLocal.NO_CACHING)  # type: ignore[attr-defined]

    def startup(self, retrieve_transaction_topic_partition_count: Callable[[], int],
                enable_transactional_id_expiration: bool = True) -> None:
        self.log.info("Starting up.")
        self.scheduler.startup()
        self.scheduler.schedule("transaction-abort",
                                lambda: self.abort_timed_out_transactions(self._on_end_transaction_complete),
                                self.txn_config.abort_timed_out_transactions_interval_ms,
                                self.txn_config.abort_timed_out_transactions_interval_ms)
        self.txn_manager.startup(retrieve_transaction_topic_partition_count, enable_transactional_id_expiration)
        self.txn_marker_channel_manager.start()
        self.is_active.set(True)
        self.log.info("Startup complete.")

    def shutdown(self) -> None:
        """The reverse of startup."""
        self.log.info("Shutting down.")
        self.is_active.set(False)
        self.scheduler.shutdown()
        self.producer_id_manager.shutdown()
        self.txn_manager.shutdown()
        self.txn_marker_channel_manager.shutdown()
        self.log.info("Shutdown complete.")
