"""Port of raft/src/main/java/org/apache/kafka/raft/ReplicatedCounter.java (Kafka 3.9): the smallest state machine on
a raft client, a counter. The leader appends the next value (committed + 1, + 2, ...); every replica checks that the
values it is told are committed come one after the other, snapshots the counter every 10 committed records, and
loads a snapshot when the client hands it one. The raft simulation (raft_event_simulation.py) runs it on each node.
"""

from __future__ import annotations

import logging
import threading
from typing import Any

from kafka_edu.v1_0_2.clients.common.errors import KafkaException
from kafka_edu.v3_9.raft.raft.errors import NotLeaderException
from kafka_edu.v3_9.raft.raft.leader_and_epoch import LeaderAndEpoch
from kafka_edu.v3_9.raft.raft.offset_and_epoch import OffsetAndEpoch
from kafka_edu.v3_9.raft.raft.raft_client import RaftClient

log = logging.getLogger("org.apache.kafka.raft.ReplicatedCounter")

SNAPSHOT_DELAY_IN_RECORDS = 10


class ReplicatedCounter(RaftClient.Listener[int]):
    def __init__(self, node_id: int, client: RaftClient[int], log_context: Any = None) -> None:
        self.node_id = node_id
        self.client = client
        self.log = log  # Kafka's LogContext only prefixes the lines with the node
        self._lock = threading.RLock()  # Java's synchronized methods
        self.committed = 0
        self.uncommitted = 0
        self.claimed_epoch: int | None = None
        self.last_offset_snapshotted = -1
        self._handle_load_snapshot_calls = 0

    def is_writable(self) -> bool:
        with self._lock:
            return self.claimed_epoch is not None

    def increment(self) -> None:
        with self._lock:
            if self.claimed_epoch is None:
                raise KafkaException("Counter is not currently writable")
            epoch = self.claimed_epoch
            self.uncommitted += 1
            try:
                offset = self.client.prepare_append(epoch, [self.uncommitted])
                self.client.schedule_prepared_append()
                self.log.debug("Scheduled append of record %s with epoch %s at offset %s", self.uncommitted, epoch,
                               offset)
            except NotLeaderException:
                self.log.info("Appending failed, transition to resigned", exc_info=True)
                self.client.resign(epoch)

    def handle_commit(self, reader: Any) -> None:
        with self._lock:
            try:
                initial_committed = self.committed
                last_committed_offset = -1
                last_committed_epoch = 0
                last_committed_timestamp = -1
                for batch in reader:  # a BatchReader is a Python iterator
                    self.log.debug("Handle commit of batch with records %s at base offset %s", batch.records,
                                   batch.base_offset)
                    for next_committed in batch.records:
                        if next_committed != self.committed + 1:
                            raise AssertionError(f"Expected next committed value to be {self.committed + 1}, but "
                                                 f"instead found {next_committed} on node {self.node_id}")
                        self.committed = next_committed
                    last_committed_offset = batch.last_offset
                    last_committed_epoch = batch.epoch
                    last_committed_timestamp = batch.append_timestamp
                self.log.debug("Counter incremented from %s to %s", initial_committed, self.committed)
                if self.last_offset_snapshotted + SNAPSHOT_DELAY_IN_RECORDS < last_committed_offset:
                    self.log.debug("Generating new snapshot with committed offset %s and epoch %s since the previous "
                                   "snapshot includes %s", last_committed_offset, last_committed_epoch,
                                   self.last_offset_snapshotted)
                    snapshot = self.client.create_snapshot(
                        OffsetAndEpoch(last_committed_offset + 1, last_committed_epoch), last_committed_timestamp)
                    if snapshot is not None:
                        try:
                            snapshot.append([self.committed])
                            snapshot.freeze()
                            self.last_offset_snapshotted = last_committed_offset
                        finally:
                            snapshot.close()
                    else:
                        self.last_offset_snapshotted = last_committed_offset
            finally:
                reader.close()

    def handle_load_snapshot(self, reader: Any) -> None:
        with self._lock:
            try:
                self.log.debug("Loading snapshot %s", reader.snapshot_id())
                found_data_record = False
                while reader.has_next():
                    batch = reader.next()
                    if batch.records:
                        if found_data_record:
                            raise AssertionError(f"Expected the snapshot at {reader.snapshot_id()} to only one data "
                                                 f"batch {batch}")
                        if len(batch.records) != 1:
                            raise AssertionError(f"Expected the snapshot at {reader.snapshot_id()} to only contain "
                                                 f"one record {batch.records}")
                        found_data_record = True
                    for value in batch:
                        self.log.debug("Setting value: %s", value)
                        self.committed = value
                        self.uncommitted = value
                self.last_offset_snapshotted = reader.last_contained_log_offset()
                self._handle_load_snapshot_calls += 1
                self.log.debug("Finished loading snapshot. Set value: %s", self.committed)
            finally:
                reader.close()

    def handle_leader_change(self, new_leader: LeaderAndEpoch) -> None:
        with self._lock:
            if new_leader.is_leader(self.node_id):
                self.log.debug("Counter uncommitted value initialized to %s after claiming leadership in epoch %s",
                               self.committed, new_leader)
                self.uncommitted = self.committed
                self.claimed_epoch = new_leader.epoch
            else:
                self.log.debug("Counter uncommitted value reset after resigning leadership")
                self.uncommitted = -1
                self.claimed_epoch = None
            self._handle_load_snapshot_calls = 0

    def handle_load_snapshot_calls(self) -> int:
        """How many snapshots were loaded since the last leader change: a leader must never be asked to load one."""
        return self._handle_load_snapshot_calls
