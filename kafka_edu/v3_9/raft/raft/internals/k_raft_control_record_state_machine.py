"""Port of raft/src/main/java/org/apache/kafka/raft/internals/KRaftControlRecordStateMachine.java (Kafka 3.9).

Follows the KRaftVersionRecord and VotersRecord control records of the KRaft partition (latest snapshot, then the log)
and keeps, by offset, the finalized kraft.version and the voter set between the snapshot and the log end (KIP-853).

Two kinds of caller use it: the raft driver, which updates it as the log changes, and the callers of
`RaftClient.create_snapshot`, which ask for the voter set and kraft.version at the snapshot's offset. As in Java each
history has its own lock, and `_next_offset` is only moved after the histories are updated, so a reader that checks
the offset first never sees a history behind it.
"""

from __future__ import annotations

import logging
import threading
from typing import Any

from kafka_edu.tracing.step import step
from kafka_edu.v1_0_2.clients.common.errors import IllegalArgumentException
from kafka_edu.v3_9.clients.common.record.control_record_utils import ControlRecordType
from kafka_edu.v3_9.raft.raft.batch import Batch
from kafka_edu.v3_9.raft.raft.internals.log_history import LogHistory
from kafka_edu.v3_9.raft.raft.internals.records_batch_reader import RecordsIterator
from kafka_edu.v3_9.raft.raft.internals.tree_map_log_history import TreeMapLogHistory
from kafka_edu.v3_9.raft.raft.internals.voter_set_history import VoterSetHistory
from kafka_edu.v3_9.raft.raft.isolation import Isolation
from kafka_edu.v3_9.raft.raft.replicated_log import ReplicatedLog
from kafka_edu.v3_9.raft.raft.voter_set import VoterSet
from kafka_edu.v3_9.raft.snapshot.records_snapshot_reader import RecordsSnapshotReader
from kafka_edu.v3_9.server_common.server.common.k_raft_version import FEATURE_NAME, KRaftVersion
from kafka_edu.v3_9.server_common.server.common.serialization.record_serde import RecordSerde

STARTING_NEXT_OFFSET = -1
SMALLEST_LOG_OFFSET = 0


class KRaftControlRecordStateMachine:
    def __init__(self, static_voter_set: VoterSet, log: ReplicatedLog, serde: RecordSerde[Any], buffer_supplier: Any,
                 max_batch_size_bytes: int, log_context: Any = None) -> None:
        """`buffer_supplier` and `log_context` are Kafka's: the port's readers allocate their own buffers and log
        through the module logger."""
        self._log = log
        self._voter_set_history = VoterSetHistory(static_voter_set)
        self._serde = serde
        self._buffer_supplier = buffer_supplier
        self._max_batch_size_bytes = max_batch_size_bytes
        self._logger = logging.getLogger("org.apache.kafka.raft.internals.KRaftControlRecordStateMachine")
        self._kraft_version_history: LogHistory[KRaftVersion] = TreeMapLogHistory()
        self._voter_set_lock = threading.Lock()
        self._kraft_version_lock = threading.Lock()
        self._next_offset = STARTING_NEXT_OFFSET

    def update_state(self) -> None:
        """Call after every change to the log."""
        self._maybe_load_snapshot()
        self._maybe_load_log()

    def truncate_new_entries(self, end_offset: int) -> None:
        """Drop what was read at `end_offset` and after (exclusive end)."""
        with self._voter_set_lock:
            self._voter_set_history.truncate_new_entries(end_offset)
        with self._kraft_version_lock:
            self._kraft_version_history.truncate_new_entries(end_offset)

    def truncate_old_entries(self, start_offset: int) -> None:
        """Drop what was read before `start_offset` (inclusive start), keeping the value in force there."""
        with self._voter_set_lock:
            self._voter_set_history.truncate_old_entries(start_offset)
        with self._kraft_version_lock:
            self._kraft_version_history.truncate_old_entries(start_offset)

    def last_voter_set(self) -> VoterSet:
        with self._voter_set_lock:
            return self._voter_set_history.last_value()

    def last_voter_set_entry(self) -> LogHistory.Entry[VoterSet] | None:
        with self._voter_set_lock:
            return self._voter_set_history.last_entry()

    def last_voter_set_offset(self) -> int | None:
        with self._voter_set_lock:
            return self._voter_set_history.last_voter_set_offset()

    def last_kraft_version(self) -> KRaftVersion:
        with self._kraft_version_lock:
            last_entry = self._kraft_version_history.last_entry()
            return last_entry.value if last_entry is not None else KRaftVersion.KRAFT_VERSION_0

    def voter_set_at_offset(self, offset: int) -> VoterSet | None:
        """The voter set at `offset` (inclusive), None if the log and snapshot set none by then."""
        self._check_offset_is_valid(offset)
        with self._voter_set_lock:
            return self._voter_set_history.value_at_or_before(offset)

    def kraft_version_at_offset(self, offset: int) -> KRaftVersion:
        """The finalized kraft.version at `offset` (inclusive); 0 if none was set by then."""
        self._check_offset_is_valid(offset)
        with self._kraft_version_lock:
            value = self._kraft_version_history.value_at_or_before(offset)
            return value if value is not None else KRaftVersion.KRAFT_VERSION_0

    def _check_offset_is_valid(self, offset: int) -> None:
        fixed_next_offset = self._next_offset
        if offset >= fixed_next_offset:
            raise IllegalArgumentException(
                f"Attempting the read a value at an offset ({offset}) which is greater than or equal to the largest "
                f"known offset ({fixed_next_offset - 1})")

    def _maybe_load_log(self) -> None:
        while self._log.end_offset().offset > self._next_offset:
            info = self._log.read(self._next_offset, Isolation.UNCOMMITTED)
            iterator: RecordsIterator[Any] = RecordsIterator(info.records, self._serde, True)  # validate the CRCs
            for batch in iterator:
                self._handle_batch(batch, None)
                self._next_offset = batch.last_offset + 1

    def _maybe_load_snapshot(self) -> None:
        if ((self._next_offset == STARTING_NEXT_OFFSET or self._next_offset < self._log.start_offset())
                and self._log.latest_snapshot() is not None):
            raw_snapshot = self._log.latest_snapshot()
            # reload from scratch: this reader starts over from the snapshot
            with self._kraft_version_lock:
                self._kraft_version_history.clear()
            with self._voter_set_lock:
                self._voter_set_history.clear()

            # at the start of the log, or the log no longer has the next offset: the snapshot has the state
            with RecordsSnapshotReader.of(raw_snapshot, self._serde, self._max_batch_size_bytes, True,
                                          include_control_batches=True) as reader:
                self._logger.info(
                    "Loading snapshot (%s) since log start offset (%s) is greater than the internal listener's next "
                    "offset (%s)", reader.snapshot_id(), self._log.start_offset(), self._next_offset)
                current_offset = reader.last_contained_log_offset()
                while reader.has_next():
                    batch = reader.next()
                    self._handle_batch(batch, current_offset)
                self._next_offset = reader.last_contained_log_offset() + 1
        elif self._next_offset == STARTING_NEXT_OFFSET:
            # no snapshot: read the log from its first offset
            self._next_offset = SMALLEST_LOG_OFFSET

    def _handle_batch(self, batch: Batch[Any], override_offset: int | None) -> None:
        """Records of a snapshot all count at the snapshot's last contained offset (`override_offset`)."""
        for offset_delta, record in enumerate(batch.control_records):
            current_offset = override_offset if override_offset is not None else batch.base_offset + offset_delta
            if record.type is ControlRecordType.KRAFT_VOTERS:
                voters = VoterSet.from_voters_record(record.message)
                self._logger.info("Latest set of voters is %s at offset %s", voters, current_offset)
                with step("KV.voters", self, offset=current_offset), self._voter_set_lock:
                    self._voter_set_history.add_at(current_offset, voters)
            elif record.type is ControlRecordType.KRAFT_VERSION:
                kraft_version = KRaftVersion.from_feature_level(int(record.message.k_raft_version))
                self._logger.info("Latest %s is %s at offset %s", FEATURE_NAME, kraft_version, current_offset)
                with self._kraft_version_lock:
                    self._kraft_version_history.add_at(current_offset, kraft_version)
            # the other control records are not this state machine's
