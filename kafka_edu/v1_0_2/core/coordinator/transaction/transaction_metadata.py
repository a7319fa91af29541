"""Port of core/src/main/scala/kafka/coordinator/transaction/TransactionMetadata.scala (Kafka 1.0.2; read: a 1.0.x
copy with PrepareEpochFence, the state the coordinator passes through when it fences an ongoing transaction)."""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from kafka_edu.tracing import event
from kafka_edu.v1_0_2.clients.common.errors import IllegalArgumentException, IllegalStateException
from kafka_edu.v1_0_2.clients.common.record.file_records import NO_PRODUCER_EPOCH
from kafka_edu.v1_0_2.core.log.log import TopicPartition

log = logging.getLogger("kafka.coordinator.transaction.TransactionMetadata")

SHORT_MAX_VALUE = 32767


class TransactionState:
    """One state of a transactional id; `byte` is what `__transaction_state` stores for it."""

    __slots__ = ("name", "byte")

    def __init__(self, name: str, byte: int) -> None:
        self.name = name
        self.byte = byte

    def __repr__(self) -> str:
        return self.name

    __str__ = __repr__


# No transaction yet (or since the last one completed and a new epoch was handed out): AddPartitions -> Ongoing.
Empty = TransactionState("Empty", 0)
# Partitions were added; EndTxn moves it to PrepareCommit or PrepareAbort, more AddPartitions keep it Ongoing.
Ongoing = TransactionState("Ongoing", 1)
# The commit is decided and written; once every partition has its marker -> CompleteCommit.
PrepareCommit = TransactionState("PrepareCommit", 2)
# The abort is decided and written; once every partition has its marker -> CompleteAbort.
PrepareAbort = TransactionState("PrepareAbort", 3)
CompleteCommit = TransactionState("CompleteCommit", 4)
CompleteAbort = TransactionState("CompleteAbort", 5)
# The transactional id expired and is being removed from the cache.
Dead = TransactionState("Dead", 6)
# Only ever pending: the coordinator bumps the epoch to fence a producer, then aborts its ongoing transaction.
PrepareEpochFence = TransactionState("PrepareEpochFence", 7)

_BY_BYTE = {s.byte: s for s in (Empty, Ongoing, PrepareCommit, PrepareAbort, CompleteCommit, CompleteAbort, Dead,
                                PrepareEpochFence)}

VALID_PREVIOUS_STATES: dict[TransactionState, frozenset[TransactionState]] = {
    Empty: frozenset({Empty, CompleteCommit, CompleteAbort}),
    Ongoing: frozenset({Ongoing, Empty, CompleteCommit, CompleteAbort}),
    PrepareCommit: frozenset({Ongoing}),
    PrepareAbort: frozenset({Ongoing, PrepareEpochFence}),
    CompleteCommit: frozenset({PrepareCommit}),
    CompleteAbort: frozenset({PrepareAbort}),
    Dead: frozenset({Empty, CompleteAbort, CompleteCommit}),
    PrepareEpochFence: frozenset({Ongoing}),
}


def byte_to_state(byte: int) -> TransactionState:
    state = _BY_BYTE.get(byte)
    if state is None:
        raise IllegalStateException(f"Unknown transaction state byte {byte} from the transaction status message")
    return state


def is_valid_transition(old_state: TransactionState, new_state: TransactionState) -> bool:
    return old_state in VALID_PREVIOUS_STATES[new_state]


@dataclass(frozen=True)
class TxnTransitMetadata:
    """The metadata a transactional id is moving to: written to the log first, adopted once the write succeeded."""

    producer_id: int
    producer_epoch: int
    txn_timeout_ms: int
    txn_state: TransactionState
    topic_partitions: frozenset[TopicPartition]
    txn_start_timestamp: int
    txn_last_update_timestamp: int


class TransactionMetadata:
    """A transactional id's producer id and epoch, its transaction's state and partitions, and its timestamps.

    Not thread safe by itself: callers hold `lock` (`with txn_metadata.in_lock():`). `pending_state` is set while a
    transition is being written to `__transaction_state`, and blocks any other transition until the write is done.
    """

    def __init__(self, transactional_id: str, producer_id: int, producer_epoch: int, txn_timeout_ms: int,
                 state: TransactionState, topic_partitions: Iterable[TopicPartition] = (),
                 txn_start_timestamp: int = -1, txn_last_update_timestamp: int = -1) -> None:
        self.transactional_id = transactional_id
        self.producer_id = producer_id
        self.producer_epoch = producer_epoch
        self.txn_timeout_ms = txn_timeout_ms
        self.state = state
        self.topic_partitions: set[TopicPartition] = {TopicPartition(*tp) for tp in topic_partitions}
        self.txn_start_timestamp = txn_start_timestamp
        self.txn_last_update_timestamp = txn_last_update_timestamp
        self.pending_state: TransactionState | None = None
        self.lock = threading.RLock()

    @contextlib.contextmanager
    def in_lock(self) -> Iterator[None]:
        with self.lock:
            yield

    def add_partitions(self, partitions: Iterable[TopicPartition]) -> None:
        self.topic_partitions.update(TopicPartition(*tp) for tp in partitions)

    def remove_partition(self, topic_partition: TopicPartition) -> None:
        """A marker for the partition was written: one fewer to wait for."""
        if self.state is not PrepareCommit and self.state is not PrepareAbort:
            raise IllegalStateException(f"Transaction metadata's current state is {self.state}, and its pending state "
                                        f"is {self.pending_state} while trying to remove partitions whose txn marker "
                                        "has been sent, this is not expected")
        self.topic_partitions.discard(TopicPartition(*topic_partition))

    def prepare_no_transit(self) -> TxnTransitMetadata:
        """The current metadata as a transit, without a pending state (for tests)."""
        return TxnTransitMetadata(self.producer_id, self.producer_epoch, self.txn_timeout_ms, self.state,
                                  frozenset(self.topic_partitions), self.txn_start_timestamp,
                                  self.txn_last_update_timestamp)

    def prepare_fence_producer_epoch(self) -> TxnTransitMetadata:
        """Bump the epoch so the markers that abort the ongoing transaction fence its producer."""
        if self.producer_epoch == SHORT_MAX_VALUE:
            raise IllegalStateException("Cannot fence producer with epoch equal to Short.MaxValue since this would "
                                        "overflow")
        return self._prepare_transition_to(PrepareEpochFence, self.producer_id, self.producer_epoch + 1,
                                           self.txn_timeout_ms, frozenset(self.topic_partitions),
                                           self.txn_start_timestamp, self.txn_last_update_timestamp)

    def prepare_increment_producer_epoch(self, new_txn_timeout_ms: int, update_timestamp: int) -> TxnTransitMetadata:
        if self.is_producer_epoch_exhausted:
            raise IllegalStateException(f"Cannot allocate any more producer epochs for producerId {self.producer_id}")
        next_epoch = 0 if self.producer_epoch == NO_PRODUCER_EPOCH else self.producer_epoch + 1
        return self._prepare_transition_to(Empty, self.producer_id, next_epoch, new_txn_timeout_ms, frozenset(), -1,
                                           update_timestamp)

    def prepare_producer_id_rotation(self, new_producer_id: int, new_txn_timeout_ms: int,
                                     update_timestamp: int) -> TxnTransitMetadata:
        if self._has_pending_transaction:
            raise IllegalStateException("Cannot rotate producer ids while a transaction is still pending")
        return self._prepare_transition_to(Empty, new_producer_id, 0, new_txn_timeout_ms, frozenset(), -1,
                                           update_timestamp)

    def prepare_add_partitions(self, added_topic_partitions: Iterable[TopicPartition],
                               update_timestamp: int) -> TxnTransitMetadata:
        # The first partition of a transaction starts its clock (the transaction timeout counts from here).
        if self.state in (Empty, CompleteAbort, CompleteCommit):
            new_txn_start_timestamp = update_timestamp
        else:
            new_txn_start_timestamp = self.txn_start_timestamp
        partitions = frozenset(self.topic_partitions | {TopicPartition(*tp) for tp in added_topic_partitions})
        return self._prepare_transition_to(Ongoing, self.producer_id, self.producer_epoch, self.txn_timeout_ms,
                                           partitions, new_txn_start_timestamp, update_timestamp)

    def prepare_abort_or_commit(self, new_state: TransactionState, update_timestamp: int) -> TxnTransitMetadata:
        return self._prepare_transition_to(new_state, self.producer_id, self.producer_epoch, self.txn_timeout_ms,
                                           frozenset(self.topic_partitions), self.txn_start_timestamp,
                                           update_timestamp)

    def prepare_complete(self, update_timestamp: int) -> TxnTransitMetadata:
        new_state = CompleteCommit if self.state is PrepareCommit else CompleteAbort
        return self._prepare_transition_to(new_state, self.producer_id, self.producer_epoch, self.txn_timeout_ms,
                                           frozenset(), self.txn_start_timestamp, update_timestamp)

    def prepare_dead(self) -> TxnTransitMetadata:
        return self._prepare_transition_to(Dead, self.producer_id, self.producer_epoch, self.txn_timeout_ms,
                                           frozenset(), self.txn_start_timestamp, self.txn_last_update_timestamp)

    @property
    def is_producer_epoch_exhausted(self) -> bool:
        """Short.MaxValue stays free, so the coordinator can always fence the current producer once more."""
        return self.producer_epoch >= SHORT_MAX_VALUE - 1

    @property
    def _has_pending_transaction(self) -> bool:
        return self.state in (Ongoing, PrepareAbort, PrepareCommit)

    def _prepare_transition_to(self, new_state: TransactionState, new_producer_id: int, new_epoch: int,
                               new_txn_timeout_ms: int, new_topic_partitions: frozenset[TopicPartition],
                               new_txn_start_timestamp: int, update_timestamp: int) -> TxnTransitMetadata:
        if self.pending_state is not None:
            raise IllegalStateException(f"Preparing transaction state transition to {new_state} while it already a "
                                        f"pending state {self.pending_state}")
        if new_producer_id < 0:
            raise IllegalArgumentException(f"Illegal new producer id {new_producer_id}")
        if new_epoch < 0:
            raise IllegalArgumentException(f"Illegal new producer epoch {new_epoch}")
        if self.state not in VALID_PREVIOUS_STATES[new_state]:
            raise IllegalStateException(f"Preparing transaction state transition to {new_state} failed since the "
                                        f"target state {new_state} is not a valid previous state of the current "
                                        f"state {self.state}")
        transit_metadata = TxnTransitMetadata(new_producer_id, new_epoch, new_txn_timeout_ms, new_state,
                                              new_topic_partitions, new_txn_start_timestamp, update_timestamp)
        log.debug("TransactionalId %s prepare transition from %s to %s", self.transactional_id, self.state,
                  transit_metadata)
        self.pending_state = new_state
        return transit_metadata

    def complete_transition_to(self, transit_metadata: TxnTransitMetadata) -> None:
        """Adopt a transition whose record `__transaction_state` now holds; anything but what was prepared is a bug.

        Valid only when: the new state is the pending one; the epoch is the same, one more, or 0 with a new producer
        id; the update time does not go back; the old partitions are a subset of the new ones.
        """
        to_state = self.pending_state
        if to_state is None:
            log.critical("%s's transition to %s failed since pendingState is not defined: this should not happen",
                         self, transit_metadata)
            raise IllegalStateException(f"TransactionalId {self.transactional_id} completing transaction state "
                                        "transition while it does not have a pending state")
        if to_state is not transit_metadata.txn_state:
            self._throw_state_transition_failure(transit_metadata)
        if to_state is Empty:  # from InitProducerId
            if ((self.producer_epoch != transit_metadata.producer_epoch
                 and not self._valid_producer_epoch_bump(transit_metadata))
                    or transit_metadata.topic_partitions or transit_metadata.txn_start_timestamp != -1):
                self._throw_state_transition_failure(transit_metadata)
            self.txn_timeout_ms = transit_metadata.txn_timeout_ms
            self.producer_epoch = transit_metadata.producer_epoch
            self.producer_id = transit_metadata.producer_id
        elif to_state is Ongoing:  # from AddPartitions
            if (not self._valid_producer_epoch(transit_metadata)
                    or not self.topic_partitions <= transit_metadata.topic_partitions
                    or self.txn_timeout_ms != transit_metadata.txn_timeout_ms
                    or self.txn_start_timestamp > transit_metadata.txn_start_timestamp):
                self._throw_state_transition_failure(transit_metadata)
            self.txn_start_timestamp = transit_metadata.txn_start_timestamp
            self.add_partitions(transit_metadata.topic_partitions)
        elif to_state is PrepareAbort or to_state is PrepareCommit:  # from EndTxn
            if (not self._valid_producer_epoch(transit_metadata)
                    or self.topic_partitions != transit_metadata.topic_partitions
                    or self.txn_timeout_ms != transit_metadata.txn_timeout_ms
                    or self.txn_start_timestamp != transit_metadata.txn_start_timestamp):
                self._throw_state_transition_failure(transit_metadata)
        elif to_state is CompleteAbort or to_state is CompleteCommit:  # once every marker is written
            if (not self._valid_producer_epoch(transit_metadata)
                    or self.txn_timeout_ms != transit_metadata.txn_timeout_ms
                    or transit_metadata.txn_start_timestamp == -1):
                self._throw_state_transition_failure(transit_metadata)
            self.txn_start_timestamp = transit_metadata.txn_start_timestamp
            self.topic_partitions.clear()
        elif to_state is PrepareEpochFence:
            # Never completed: the fence goes straight on to PrepareAbort.
            self._throw_state_transition_failure(transit_metadata)
        else:  # Dead: an expired id is removed from the cache, never written as Dead
            raise IllegalStateException(f"TransactionalId {self.transactional_id} is trying to complete a transition "
                                        f"to {to_state}. This means that the transactionalId was being expired, and "
                                        "the only acceptable completion of this operation is to remove the "
                                        f"transaction metadata from the cache, not to persist the {to_state} in the "
                                        "log.")
        log.debug("TransactionalId %s complete transition from %s to %s", self.transactional_id, self.state,
                  transit_metadata)
        event("TX.state", self, transit_metadata=transit_metadata)
        self.txn_last_update_timestamp = transit_metadata.txn_last_update_timestamp
        self.pending_state = None
        self.state = to_state

    def _valid_producer_epoch(self, transit_metadata: TxnTransitMetadata) -> bool:
        return (transit_metadata.producer_epoch == self.producer_epoch
                and transit_metadata.producer_id == self.producer_id)

    def _valid_producer_epoch_bump(self, transit_metadata: TxnTransitMetadata) -> bool:
        return (transit_metadata.producer_epoch == self.producer_epoch + 1
                or (transit_metadata.producer_epoch == 0 and transit_metadata.producer_id != self.producer_id))

    def _throw_state_transition_failure(self, transit_metadata: TxnTransitMetadata) -> None:
        log.critical("%s's transition to %s failed: this should not happen", self, transit_metadata)
        raise IllegalStateException(f"TransactionalId {self.transactional_id} failed transition to state "
                                    f"{transit_metadata} due to unexpected metadata")

    @property
    def pending_transition_in_progress(self) -> bool:
        return self.pending_state is not None

    def __repr__(self) -> str:
        return (f"TransactionMetadata(transactionalId={self.transactional_id}, producerId={self.producer_id}, "
                f"producerEpoch={self.producer_epoch}, txnTimeoutMs={self.txn_timeout_ms}, state={self.state}, "
                f"pendingState={self.pending_state}, topicPartitions={sorted(self.topic_partitions)}, "
                f"txnStartTimestamp={self.txn_start_timestamp}, "
                f"txnLastUpdateTimestamp={self.txn_last_update_timestamp})")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, TransactionMetadata):
            return NotImplemented
        return (self.transactional_id == other.transactional_id and self.producer_id == other.producer_id
                and self.producer_epoch == other.producer_epoch and self.txn_timeout_ms == other.txn_timeout_ms
                and self.state is other.state and self.topic_partitions == other.topic_partitions
                and self.txn_start_timestamp == other.txn_start_timestamp
                and self.txn_last_update_timestamp == other.txn_last_update_timestamp)

    __hash__ = None  # type: ignore[assignment]
