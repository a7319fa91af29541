"""Project-own module, not a port: the seams that let the KRaft broker run Kafka 1.0.2's GroupCoordinator
(kafka_edu/v1_0_2/core/coordinator/group/) on Kafka 3.9's ReplicaManager and UnifiedLog. It goes when 3.9's own
group coordinator is wired. (The transaction coordinator is 3.9's own, kafka_edu/v3_9/core/coordinator/transaction/,
which calls 3.9's ReplicaManager directly.)

- `CoordinatorReplicaManager` is the part of a ReplicaManager that 1.0.2's GroupMetadataManager uses (append_records,
  get_log, get_log_end_offset, get_partition, get_magic), answered by 3.9's ReplicaManager: appends go through 3.9's
  append_records with the COORDINATOR origin, as 3.9's coordinators append, and come back in 1.0.2's
  PartitionResponse shape; the loader's reads of a partition's log are 3.9 UnifiedLog reads up to the log end
  (FetchIsolation.LOG_END, as 3.9's loaders read) returned as the bytes 1.0.2's MemoryRecords iterates.
- `VerifyingGroupCoordinator` adds to 1.0.2's GroupCoordinator the transaction verification (KIP-890) 3.9's old
  GroupCoordinator runs before a transactional offset commit.

(The group side's 3.9 face is kafka_edu/v3_9/core/coordinator/group/group_coordinator_adapter.py, a port of 3.9's
adapter.)
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from kafka_edu.v1_0_2.clients.common.errors import IllegalArgumentException
from kafka_edu.v3_9.clients.common.internals.topic import GROUP_METADATA_TOPIC_NAME
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from kafka_edu.v3_9.clients.common.record.file_records import FileRecords
from kafka_edu.v3_9.clients.common.record.memory_records import MemoryRecords
from kafka_edu.v3_9.clients.common.record.record_batch import (
    CURRENT_MAGIC_VALUE,
    NO_SEQUENCE,
)
from kafka_edu.v3_9.clients.common.requests.produce_response import PartitionResponse as PartitionResponse39
from kafka_edu.v3_9.clients.common.topic_partition import TopicPartition
from kafka_edu.v3_9.core.cluster.partition import Partition
from kafka_edu.v3_9.core.log.unified_log import UnifiedLog
from kafka_edu.v3_9.core.server.add_partitions_to_txn_manager import default_error, generic_error
from kafka_edu.v3_9.core.server.kafka_request_handler import wrap_async_callback
from kafka_edu.v3_9.core.server.replica_manager import ReplicaManager
from kafka_edu.v3_9.storage.storage.internals.log.append_origin import AppendOrigin
from kafka_edu.v3_9.storage.storage.internals.log.fetch_isolation import FetchIsolation
from kafka_edu.v3_9.storage.storage.internals.log.verification_guard import VerificationGuard

log = logging.getLogger("kafka.server.KRaftCoordinatorBridge")


# -- the ReplicaManager face of 1.0.2's group coordinator -------------------------------------------------------


@dataclass
class PartitionResponse:
    """1.0.2's ProduceResponse.PartitionResponse, the shape 1.0.2's coordinators read their appends' outcome in."""

    error: Errors
    base_offset: int = -1
    log_append_time: int = -1
    log_start_offset: int = -1


class CoordinatorReplicaManager:
    """3.9's ReplicaManager as 1.0.2's GroupMetadataManager calls it."""

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


# -- 1.0.2's GroupCoordinator as 3.9's old one verifies transactional offset commits ----------------------------


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
