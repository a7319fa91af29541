"""Port of core/src/main/scala/kafka/coordinator/transaction/TransactionMetadata.scala (Kafka 3.9).

What 3.9 adds to 1.0.2's class: the last producer id and epoch (KIP-360), so a producer that retries
InitProducerId after an error gets the epoch it was given back instead of being fenced, and `has_failed_epoch_fence`,
so a fence whose write failed does not bump the epoch a second time.

Scala's `Either[Errors, TxnTransitMetadata]` is `Errors | TxnTransitMetadata` here: an Errors member is the Left.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from kafka_edu.tracing import event
from kafka_edu.v1_0_2.clients.common.errors import IllegalArgumentException, IllegalStateException
from kafka_edu.v1_0_2.core.utils.kafka_logging import Logging
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from kafka_edu.v3_9.clients.common.record.record_batch import NO_PRODUCER_EPOCH, NO_PRODUCER_ID
from kafka_edu.v3_9.clients.common.topic_partition import TopicPartition

SHORT_MAX_VALUE = 32767


class TransactionState:
    """One state of a transactional id; `id` is the byte `__transaction_state` stores, `name` what
    DescribeTransactions reports."""

    __slots__ = ("id", "name", "_valid_previous_names", "is_expiration_allowed")

    ALL_STATES: frozenset[TransactionState]

    def __init__(self, id: int, name: str, valid_previous_names: tuple[str, ...],
                 is_expiration_allowed: bool = False) -> None:
        self.id = id
        self.name = name
        # names, resolved lazily: several states name each other as predecessors
        self._valid_previous_names = valid_previous_names
        self.is_expiration_allowed = is_expiration_allowed

    @property
    def valid_previous_states(self) -> frozenset[TransactionState]:
        return frozenset(s for s in TransactionState.ALL_STATES if s.name in self._valid_previous_names)

    @staticmethod
    def from_name(name: str) -> TransactionState | None:
        return next((s for s in TransactionState.ALL_STATES if s.name == name), None)

    @staticmethod
    def from_id(id: int) -> TransactionState:
        state = _BY_ID.get(id)
        if state is None:
            raise IllegalStateException(f"Unknown transaction state id {id} from the transaction status message")
        return state

    def __repr__(self) -> str:
        return self.name

    __str__ = __repr__


# No transaction running: AddPartitionsToTxn / AddOffsetsToTxn move it to Ongoing.
Empty = TransactionState(0, "Empty", ("Empty", "CompleteCommit", "CompleteAbort"), is_expiration_allowed=True)
# Partitions were added; EndTxn moves it to PrepareCommit or PrepareAbort.
Ongoing = TransactionState(1, "Ongoing", ("Ongoing", "Empty", "CompleteCommit", "CompleteAbort"))
# Commit decided; once every partition has its marker -> CompleteCommit.
PrepareCommit = TransactionState(2, "PrepareCommit", ("Ongoing",))
# Abort decided (by the client, or to fence it); once every partition has its marker -> CompleteAbort.
PrepareAbort = TransactionState(3, "PrepareAbort", ("Ongoing", "PrepareEpochFence"))
CompleteCommit = TransactionState(4, "CompleteCommit", ("PrepareCommit",), is_expiration_allowed=True)
CompleteAbort = TransactionState(5, "CompleteAbort", ("PrepareAbort",), is_expiration_allowed=True)
# The transactional id expired and is about to leave the cache.
Dead = TransactionState(6, "Dead", ("Empty", "CompleteAbort", "CompleteCommit"))
# Only ever pending: the epoch is being bumped to fence an older producer before its transaction is aborted.
PrepareEpochFence = TransactionState(7, "PrepareEpochFence", ("Ongoing",))

TransactionState.ALL_STATES = frozenset({Empty, Ongoing, PrepareCommit, PrepareAbort, CompleteCommit, CompleteAbort,
                                         Dead, PrepareEpochFence})
_BY_ID = {s.id: s for s in TransactionState.ALL_STATES}


@dataclass(frozen=True)
class TxnTransitMetadata:
    """The metadata a transactional id moves to: written to the log first, adopted once the write succeeded."""

    producer_id: int
    last_producer_id: int
    producer_epoch: int
    last_producer_epoch: int
    txn_timeout_ms: int
    txn_state: TransactionState
    topic_partitions: frozenset[TopicPartition]
    txn_start_timestamp: int
    txn_last_update_timestamp: int

    def __post_init__(self) -> None:
        object.__setattr__(self, "topic_partitions", frozenset(TopicPartition(*tp) for tp in self.topic_partitions))

    def __str__(self) -> str:
        return (f"TxnTransitMetadata(producerId={self.producer_id}, lastProducerId={self.last_producer_id}, "
                f"producerEpoch={self.producer_epoch}, lastProducerEpoch={self.last_producer_epoch}, "
                f"txnTimeoutMs={self.txn_timeout_ms}, txnState={self.txn_state}, "
                f"topicPartitions={set(self.topic_partitions)}, txnStartTimestamp={self.txn_start_timestamp}, "
                f"txnLastUpdateTimestamp={self.txn_last_update_timestamp})")


class TransactionMetadata:
    """A transactional id's producer id and epoch (current and last), its transaction's state and partitions.

    Not thread safe by itself: callers hold `lock` (`with txn_metadata.in_lock():`). `pending_state` is set while a
    transition is being written to `__transaction_state` and blocks any other transition until the write is done.
    """

    def __init__(self, transactional_id: str, producer_id: int, last_producer_id: int, producer_epoch: int,
                 last_producer_epoch: int, txn_timeout_ms: int, state: TransactionState,
                 topic_partitions: Iterable[TopicPartition], *, txn_start_timestamp: int = -1,
                 txn_last_update_timestamp: int) -> None:
        self.log = Logging("kafka.coordinator.transaction.TransactionMetadata")
        self.transactional_id = transactional_id
        self.producer_id = producer_id
        self.last_producer_id = last_producer_id
        self.producer_epoch = producer_epoch
        self.last_producer_epoch = last_producer_epoch
        self.txn_timeout_ms = txn_timeout_ms
        self.state = state
        self.topic_partitions: set[TopicPartition] = {TopicPartition(*tp) for tp in topic_partitions}
        self.txn_start_timestamp = txn_start_timestamp
        self.txn_last_update_timestamp = txn_last_update_timestamp
        self.pending_state: TransactionState | None = None
        # a fence whose log write failed may not have reached the log: the next fence reuses the bumped epoch
        self.has_failed_epoch_fence = False
        self.lock = threading.RLock()

    @classmethod
    def apply(cls, transactional_id: str, producer_id: int, *args: int | TransactionState) -> TransactionMetadata:
        """The companion object's three `apply`s, told apart by arity:
        (producerEpoch, txnTimeoutMs, timestamp), (producerEpoch, txnTimeoutMs, state, timestamp) and
        (lastProducerId, producerEpoch, lastProducerEpoch, txnTimeoutMs, state, timestamp)."""
        if len(args) == 3:
            producer_epoch, txn_timeout_ms, timestamp = args
            last_producer_id, last_producer_epoch, state = NO_PRODUCER_ID, NO_PRODUCER_EPOCH, Empty
        elif len(args) == 4:
            producer_epoch, txn_timeout_ms, state, timestamp = args
            last_producer_id, last_producer_epoch = NO_PRODUCER_ID, NO_PRODUCER_EPOCH
        elif len(args) == 6:
            last_producer_id, producer_epoch, last_producer_epoch, txn_timeout_ms, state, timestamp = args
        else:
            raise TypeError(f"TransactionMetadata.apply takes 5, 6 or 8 arguments, not {len(args) + 2}")
        assert isinstance(state, TransactionState)
        return cls(transactional_id, producer_id, int(last_producer_id), int(producer_epoch),
                   int(last_producer_epoch), int(txn_timeout_ms), state, set(),
                   txn_start_timestamp=int(timestamp), txn_last_update_timestamp=int(timestamp))

    @staticmethod
    def is_epoch_exhausted(producer_epoch: int) -> bool:
        return producer_epoch >= SHORT_MAX_VALUE - 1

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
        """The current metadata as a transit, leaving the pending state alone (a later abort sets it)."""
        return TxnTransitMetadata(self.producer_id, self.last_producer_id, self.producer_epoch,
                                  self.last_producer_epoch, self.txn_timeout_ms, self.state,
                                  frozenset(self.topic_partitions), self.txn_start_timestamp,
                                  self.txn_last_update_timestamp)

    def prepare_fence_producer_epoch(self) -> TxnTransitMetadata:
        if self.producer_epoch == SHORT_MAX_VALUE:
            raise IllegalStateException("Cannot fence producer with epoch equal to Short.MaxValue since this would "
                                        "overflow")
        # The epoch was never returned to a client when the earlier fence failed, so reusing it is safe.
        bumped_epoch = self.producer_epoch if self.has_failed_epoch_fence else self.producer_epoch + 1
        return self._prepare_transition_to(PrepareEpochFence, self.producer_id, bumped_epoch, NO_PRODUCER_EPOCH,
                                           self.txn_timeout_ms, frozenset(self.topic_partitions),
                                           self.txn_start_timestamp, self.txn_last_update_timestamp)

    def prepare_increment_producer_epoch(self, new_txn_timeout_ms: int, expected_producer_epoch: int | None,
                                         update_timestamp: int) -> Errors | TxnTransitMetadata:
        if self.is_producer_epoch_exhausted:
            raise IllegalStateException(f"Cannot allocate any more producer epochs for producerId {self.producer_id}")
        bumped_epoch = self.producer_epoch + 1
        if expected_producer_epoch is None:
            # a new producer instance: bump, and forget the last epoch (-1 becomes 0 for a brand-new id)
            next_epoch, last_epoch = bumped_epoch, NO_PRODUCER_EPOCH
        elif self.producer_epoch == NO_PRODUCER_EPOCH or expected_producer_epoch == self.producer_epoch:
            # the same producer recovering from an error, with nobody initialized since: bump and remember
            next_epoch, last_epoch = bumped_epoch, self.producer_epoch
        elif expected_producer_epoch == self.last_producer_epoch:
            # a retry of a bump that already succeeded: hand back the current epoch unchanged
            next_epoch, last_epoch = self.producer_epoch, self.last_producer_epoch
        else:
            self.log.info("Expected producer epoch %s does not match current producer epoch %s or previous producer "
                          "epoch %s", expected_producer_epoch, self.producer_epoch, self.last_producer_epoch)
            return Errors.PRODUCER_FENCED
        return self._prepare_transition_to(Empty, self.producer_id, next_epoch, last_epoch, new_txn_timeout_ms,
                                           frozenset(), -1, update_timestamp)

    def prepare_producer_id_rotation(self, new_producer_id: int, new_txn_timeout_ms: int, update_timestamp: int,
                                     record_last_epoch: bool) -> TxnTransitMetadata:
        if self._has_pending_transaction:
            raise IllegalStateException("Cannot rotate producer ids while a transaction is still pending")
        return self._prepare_transition_to(Empty, new_producer_id, 0,
                                           self.producer_epoch if record_last_epoch else NO_PRODUCER_EPOCH,
                                           new_txn_timeout_ms, frozenset(), -1, update_timestamp)

    def prepare_add_partitions(self, added_topic_partitions: Iterable[TopicPartition],
                               update_timestamp: int) -> TxnTransitMetadata:
        # the first partition of a transaction starts its timeout clock
        if self.state in (Empty, CompleteAbort, CompleteCommit):
            new_txn_start_timestamp = update_timestamp
        else:
            new_txn_start_timestamp = self.txn_start_timestamp
        partitions = frozenset(self.topic_partitions | {TopicPartition(*tp) for tp in added_topic_partitions})
        return self._prepare_transition_to(Ongoing, self.producer_id, self.producer_epoch, self.last_producer_epoch,
                                           self.txn_timeout_ms, partitions, new_txn_start_timestamp,
                                           update_timestamp)

    def prepare_abort_or_commit(self, new_state: TransactionState, update_timestamp: int) -> TxnTransitMetadata:
        return self._prepare_transition_to(new_state, self.producer_id, self.producer_epoch, self.last_producer_epoch,
                                           self.txn_timeout_ms, frozenset(self.topic_partitions),
                                           self.txn_start_timestamp, update_timestamp)

    def prepare_complete(self, update_timestamp: int) -> TxnTransitMetadata:
        new_state = CompleteCommit if self.state is PrepareCommit else CompleteAbort
        # the Prepare* record made it to the log, so any earlier fence did too
        self.has_failed_epoch_fence = False
        return self._prepare_transition_to(new_state, self.producer_id, self.producer_epoch, self.last_producer_epoch,
                                           self.txn_timeout_ms, frozenset(), self.txn_start_timestamp,
                                           update_timestamp)

    def prepare_dead(self) -> TxnTransitMetadata:
        return self._prepare_transition_to(Dead, self.producer_id, self.producer_epoch, self.last_producer_epoch,
                                           self.txn_timeout_ms, frozenset(), self.txn_start_timestamp,
                                           self.txn_last_update_timestamp)

    @property
    def is_producer_epoch_exhausted(self) -> bool:
        """Short.MaxValue stays free so the coordinator can always fence the current producer once more."""
        return TransactionMetadata.is_epoch_exhausted(self.producer_epoch)

    @property
    def _has_pending_transaction(self) -> bool:
        return self.state in (Ongoing, PrepareAbort, PrepareCommit)

    def _prepare_transition_to(self, new_state: TransactionState, new_producer_id: int, new_epoch: int,
                               new_last_epoch: int, new_txn_timeout_ms: int,
                               new_topic_partitions: frozenset[TopicPartition], new_txn_start_timestamp: int,
                               update_timestamp: int) -> TxnTransitMetadata:
        if self.pending_state is not None:
            raise IllegalStateException(f"Preparing transaction state transition to {new_state} while it already a "
                                        f"pending state {self.pending_state}")
        if new_producer_id < 0:
            raise IllegalArgumentException(f"Illegal new producer id {new_producer_id}")
        # a never-initialized id (epoch -1) may still go straight to Dead
        if new_state is not Dead and new_epoch < 0:
            raise IllegalArgumentException(f"Illegal new producer epoch {new_epoch}")
        if self.state not in new_state.valid_previous_states:
            raise IllegalStateException(f"Preparing transaction state transition to {new_state} failed since the "
                                        f"target state {new_state} is not a valid previous state of the current "
                                        f"state {self.state}")
        # the transit's last producer id is always the id in use now
        transit_metadata = TxnTransitMetadata(new_producer_id, self.producer_id, new_epoch, new_last_epoch,
                                              new_txn_timeout_ms, new_state, new_topic_partitions,
                                              new_txn_start_timestamp, update_timestamp)
        self.log.debug("TransactionalId %s prepare transition from %s to %s", self.transactional_id, self.state,
                       transit_metadata)
        self.pending_state = new_state
        return transit_metadata

    def complete_transition_to(self, transit_metadata: TxnTransitMetadata) -> None:
        """Adopt a transition whose record is now in `__transaction_state`; anything but what was prepared is a bug.

        Valid only when the new state is the pending one, the epoch stays, goes up by one, or restarts at 0 with a
        new producer id, and the old partitions are a subset of the new ones.
        """
        to_state = self.pending_state
        if to_state is None:
            self.log.critical("%s's transition to %s failed since pendingState is not defined: this should not "
                              "happen", self, transit_metadata)
            raise IllegalStateException(f"TransactionalId {self.transactional_id} completing transaction state "
                                        "transition while it does not have a pending state")
        if to_state is not transit_metadata.txn_state:
            self._throw_state_transition_failure(transit_metadata)
        elif to_state is Empty:  # from InitProducerId
            if ((self.producer_epoch != transit_metadata.producer_epoch
                 and not self._valid_producer_epoch_bump(transit_metadata))
                    or transit_metadata.topic_partitions or transit_metadata.txn_start_timestamp != -1):
                self._throw_state_transition_failure(transit_metadata)
            self.txn_timeout_ms = transit_metadata.txn_timeout_ms
            self.producer_epoch = transit_metadata.producer_epoch
            self.last_producer_epoch = transit_metadata.last_producer_epoch
            self.producer_id = transit_metadata.producer_id
            self.last_producer_id = transit_metadata.last_producer_id
        elif to_state is Ongoing:  # from AddPartitions
            if (not self._valid_producer_epoch(transit_metadata)
                    or not self.topic_partitions <= transit_metadata.topic_partitions
                    or self.txn_timeout_ms != transit_metadata.txn_timeout_ms):
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
            # never completed: the coordinator swaps the pending state for PrepareAbort first
            self._throw_state_transition_failure(transit_metadata)
        else:  # Dead: an expired id leaves the cache, it is never written as Dead
            raise IllegalStateException(f"TransactionalId {self.transactional_id} is trying to complete a transition "
                                        f"to {to_state}. This means that the transactionalId was being expired, and "
                                        "the only acceptable completion of this operation is to remove the "
                                        f"transaction metadata from the cache, not to persist the {to_state} in the "
                                        "log.")
        self.log.debug("TransactionalId %s complete transition from %s to %s", self.transactional_id, self.state,
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
        self.log.critical("%s's transition to %s failed: this should not happen", self, transit_metadata)
        raise IllegalStateException(f"TransactionalId {self.transactional_id} failed transition to state "
                                    f"{transit_metadata} due to unexpected metadata")

    @property
    def pending_transition_in_progress(self) -> bool:
        return self.pending_state is not None

    def __repr__(self) -> str:
        return (f"TransactionMetadata(transactionalId={self.transactional_id}, producerId={self.producer_id}, "
                f"producerEpoch={self.producer_epoch}, txnTimeoutMs={self.txn_timeout_ms}, state={self.state}, "
                f"pendingState={self.pending_state}, topicPartitions={self.topic_partitions}, "
                f"txnStartTimestamp={self.txn_start_timestamp}, "
                f"txnLastUpdateTimestamp={self.txn_last_update_timestamp})")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, TransactionMetadata):
            return NotImplemented
        return (self.transactional_id == other.transactional_id and self.producer_id == other.producer_id
                and self.producer_epoch == other.producer_epoch
                and self.last_producer_epoch == other.last_producer_epoch
                and self.txn_timeout_ms == other.txn_timeout_ms and self.state is other.state
                and self.topic_partitions == other.topic_partitions
                and self.txn_start_timestamp == other.txn_start_timestamp
                and self.txn_last_update_timestamp == other.txn_last_update_timestamp)

    def __hash__(self) -> int:
        return hash((self.transactional_id, self.producer_id, self.producer_epoch, self.txn_timeout_ms, self.state,
                     frozenset(self.topic_partitions), self.txn_start_timestamp, self.txn_last_update_timestamp))
