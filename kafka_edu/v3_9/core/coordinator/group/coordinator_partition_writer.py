"""Port of core/src/main/scala/kafka/coordinator/group/CoordinatorPartitionWriter.scala (Kafka 3.9).

The coordinator runtime's PartitionWriter on the broker's ReplicaManager: appends a coordinator's records to the
local leader (acks=1, the runtime waits for the high watermark itself), hands the high watermark listeners to the
partition, and starts the KIP-890 verification of a transactional offset commit.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kafka_edu.v1_0_2.clients.common.errors import IllegalStateException
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from kafka_edu.v3_9.clients.common.record.memory_records import MemoryRecords
from kafka_edu.v3_9.clients.common.record.record_batch import NO_SEQUENCE
from kafka_edu.v3_9.clients.common.requests.produce_response import PartitionResponse
from kafka_edu.v3_9.clients.common.topic_partition import TopicPartition
from kafka_edu.v3_9.core.cluster.partition import PartitionListener
from kafka_edu.v3_9.core.server.action_queue import ActionQueue
from kafka_edu.v3_9.core.server.add_partitions_to_txn_manager import default_error, generic_error
from kafka_edu.v3_9.core.server.remote_leader_end_point import error_exception
from kafka_edu.v3_9.group_coordinator.coordinator.group.runtime.partition_writer import Listener, PartitionWriter
from kafka_edu.v3_9.raft.raft.internals.completable_future import CompletableFuture
from kafka_edu.v3_9.storage.storage.internals.log.append_origin import AppendOrigin
from kafka_edu.v3_9.storage.storage.internals.log.log_config import LogConfig
from kafka_edu.v3_9.storage.storage.internals.log.verification_guard import VerificationGuard


class ListenerAdapter(PartitionListener):
    """A PartitionWriter.Listener as the Partition calls its listeners; equal when the wrapped listeners are, so that
    a fresh adapter removes the one registered."""

    def __init__(self, listener: Listener) -> None:
        self.listener = listener

    def on_high_watermark_updated(self, tp: TopicPartition, offset: int) -> None:
        self.listener.on_high_watermark_updated(tp, offset)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ListenerAdapter) and self.listener == other.listener

    def __hash__(self) -> int:
        return hash(self.listener)

    def __repr__(self) -> str:
        return f"ListenerAdapter(listener={self.listener})"


class _DirectActionQueue(ActionQueue):
    """Runs each action at once: the writer holds no lock the purgatories could conflict with."""

    def add(self, action: Callable[[], None]) -> None:
        action()

    def try_complete_actions(self) -> None:
        pass


class CoordinatorPartitionWriter(PartitionWriter):

    def __init__(self, replica_manager: Any) -> None:
        self.replica_manager = replica_manager
        self._direct_action_queue = _DirectActionQueue()

    def register_listener(self, tp: TopicPartition, listener: Listener) -> None:
        self.replica_manager.maybe_add_listener(tp, ListenerAdapter(listener))

    def deregister_listener(self, tp: TopicPartition, listener: Listener) -> None:
        self.replica_manager.remove_listener(tp, ListenerAdapter(listener))

    def config(self, tp: TopicPartition) -> LogConfig:
        log_config = self.replica_manager.get_log_config(tp)
        if log_config is None:
            raise error_exception(Errors.NOT_LEADER_OR_FOLLOWER)
        return log_config

    def maybe_start_transaction_verification(self, tp: TopicPartition, transactional_id: str, producer_id: int,
                                             producer_epoch: int,
                                             api_version: int) -> CompletableFuture[VerificationGuard]:
        transaction_supported_operation = generic_error if api_version >= 4 else default_error
        future: CompletableFuture[VerificationGuard] = CompletableFuture()

        def callback(error_and_guard: tuple[Errors, VerificationGuard]) -> None:
            error, verification_guard = error_and_guard
            if error is not Errors.NONE:
                future.complete_exceptionally(error_exception(error))
            else:
                future.complete(verification_guard)

        self.replica_manager.maybe_start_transaction_verification_for_partition(
            tp, transactional_id, producer_id, producer_epoch, NO_SEQUENCE, callback,
            transaction_supported_operation)
        return future

    def append(self, tp: TopicPartition, verification_guard: VerificationGuard, records: MemoryRecords) -> int:
        append_results: dict[TopicPartition, PartitionResponse] = {}

        def response_callback(results: dict[TopicPartition, PartitionResponse]) -> None:
            append_results.update(results)

        self.replica_manager.append_records(
            timeout=0,
            required_acks=1,
            internal_topics_allowed=True,
            origin=AppendOrigin.COORDINATOR,
            entries_per_partition={tp: records},
            response_callback=response_callback,
            verification_guards={tp: verification_guard},
            delayed_produce_lock=None,
            # no lock is held here, so the purgatories can be completed on this thread
            action_queue=self._direct_action_queue)

        partition_result = append_results.get(tp)
        if partition_result is None:
            raise IllegalStateException(f"Append status {append_results} should have partition {tp}.")
        if partition_result.error is not Errors.NONE:
            raise error_exception(partition_result.error)
        # the offset the runtime must wait for
        return partition_result.last_offset + 1
