"""Port of core/src/main/scala/kafka/server/epoch/LeaderEpochFileCache.scala (Kafka 1.0.2), plus the
`endOffsetFor(epoch, logEndOffset)` of storage/.../epoch/LeaderEpochFileCache.java (Kafka 3.9) that the raft log's
divergence check needs."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from kafka_edu.tracing import step
from kafka_edu.v1_0_2.clients.common.requests.epoch_end_offset import UNDEFINED_EPOCH, UNDEFINED_EPOCH_OFFSET
from kafka_edu.v1_0_2.core.utils.kafka_logging import Logging

if TYPE_CHECKING:
    from kafka_edu.v1_0_2.core.server.checkpoints.leader_epoch_checkpoint_file import LeaderEpochCheckpointFile

__all__ = ["UNDEFINED_EPOCH", "UNDEFINED_EPOCH_OFFSET", "EpochEntry", "LeaderEpochFileCache"]


@dataclass(frozen=True)
class EpochEntry:
    """An epoch and the offset of its first record."""

    epoch: int
    start_offset: int


class LeaderEpochFileCache:
    """Epoch -> the offset of its first record, for one replica's log, kept in memory and in the checkpoint file.

    `leo` gives the log end offset: the end of the latest epoch is wherever the log ends now.
    """

    def __init__(self, topic_partition: object, leo: Callable[[], int], checkpoint: LeaderEpochCheckpointFile) -> None:
        self.topic_partition = topic_partition
        self._leo = leo
        self._checkpoint = checkpoint
        self._lock = threading.RLock()  # Kafka's ReentrantReadWriteLock; reads here are cheap enough to share it
        self.log = Logging("kafka.server.epoch.LeaderEpochFileCache")
        with self._lock:
            self._epochs: list[EpochEntry] = list(checkpoint.read())

    def assign(self, epoch: int, offset: int) -> None:
        """Record that `epoch` starts at `offset`; an epoch once assigned is never moved."""
        with self._lock:
            if epoch >= 0 and epoch > self.latest_epoch() and offset >= self._latest_offset():
                # only a new epoch is a step: every other batch of the epoch passes through here too
                with step("LE.assign", self, epoch=epoch, offset=offset):
                    self.log.info(f"Updated PartitionLeaderEpoch. {self._epoch_change_msg(epoch, offset)}. Cache "
                                  f"now contains {len(self._epochs)} entries.")
                    self._epochs.append(EpochEntry(epoch, offset))
                    self._flush()
            else:
                self._validate_and_maybe_warn(epoch, offset)

    def latest_epoch(self) -> int:
        """The latest epoch that has records, or UNDEFINED_EPOCH."""
        with self._lock:
            return self._epochs[-1].epoch if self._epochs else UNDEFINED_EPOCH

    def end_offset_for(self, requested_epoch: int) -> int:
        """1.0.2's answer to OffsetsForLeaderEpoch: the start of the next epoch, or the LEO for the latest one.

        UNDEFINED_EPOCH_OFFSET when the epoch is older than every cached one or newer than all.
        """
        with self._lock:
            if requested_epoch == UNDEFINED_EPOCH:
                # a bootstrapping follower, or one on a message format without epochs: never the LEO, even when
                # the cache is empty and its latest epoch is UNDEFINED_EPOCH too
                offset = UNDEFINED_EPOCH_OFFSET
            elif requested_epoch == self.latest_epoch():
                offset = self._leo()
            else:
                subsequent_epochs = [e for e in self._epochs if e.epoch > requested_epoch]
                if not subsequent_epochs or requested_epoch < self._epochs[0].epoch:
                    offset = UNDEFINED_EPOCH_OFFSET
                else:
                    offset = subsequent_epochs[0].start_offset
            self.log.debug(f"Processed offset for epoch request for partition {self.topic_partition} "
                           f"epoch:{requested_epoch} and returning offset {offset} from epoch list of size "
                           f"{len(self._epochs)}")
            return offset

    def end_offset_for_epoch(self, requested_epoch: int, log_end_offset: int) -> tuple[int, int]:
        """3.9's endOffsetFor(epoch, logEndOffset): (the largest epoch <= `requested_epoch`, the offset it ends at).

        A follower asking about an epoch the log never had learns the epoch before it and where the next one starts:
        that is where the two logs agree, and where it must truncate to.
        """
        with self._lock:
            if requested_epoch == UNDEFINED_EPOCH:
                return UNDEFINED_EPOCH, UNDEFINED_EPOCH_OFFSET
            if self._epochs and self._epochs[-1].epoch == requested_epoch:
                # the latest epoch is still being written: it ends where the log ends now
                return requested_epoch, log_end_offset
            higher = next((e for e in self._epochs if e.epoch > requested_epoch), None)
            if higher is None:
                return UNDEFINED_EPOCH, UNDEFINED_EPOCH_OFFSET
            floor = next((e for e in reversed(self._epochs) if e.epoch <= requested_epoch), None)
            if floor is None:
                # older than anything cached: the data is gone, answer from the oldest epoch we know
                return requested_epoch, higher.start_offset
            return floor.epoch, higher.start_offset

    def clear_and_flush_latest(self, offset: int) -> None:
        """Drop the entries starting at or after `offset` (the log was truncated to it)."""
        with self._lock:
            before = list(self._epochs)
            if 0 <= offset <= self._latest_offset():
                self._epochs = [e for e in self._epochs if e.start_offset < offset]
                self._flush()
                self.log.info(f"Cleared latest {[e for e in before if e not in self._epochs]} entries from epoch "
                              f"cache based on passed offset {offset} leaving {len(self._epochs)} in EpochFile for "
                              f"partition {self.topic_partition}")

    def clear_and_flush_earliest(self, offset: int) -> None:
        """Drop the entries wholly below `offset` (the log start moved to it); the epoch holding it starts there."""
        with self._lock:
            before = list(self._epochs)
            if offset >= 0 and self._earliest_offset() < offset:
                earliest = [e for e in self._epochs if e.start_offset < offset]
                if earliest:
                    self._epochs = [e for e in self._epochs if e not in earliest]
                    if not self._epochs or offset < self._earliest_offset():
                        self._epochs.insert(0, EpochEntry(earliest[-1].epoch, offset))
                    self._flush()
                    self.log.info(f"Cleared earliest {len([e for e in before if e not in self._epochs])} entries "
                                  f"from epoch cache based on passed offset {offset} leaving {len(self._epochs)} in "
                                  f"EpochFile for partition {self.topic_partition}")

    def clear_and_flush(self) -> None:
        with self._lock:
            self._epochs.clear()
            self._flush()

    def clear(self) -> None:
        with self._lock:
            self._epochs.clear()

    def epoch_entries(self) -> list[EpochEntry]:
        with self._lock:
            return list(self._epochs)

    def _earliest_offset(self) -> int:
        return self._epochs[0].start_offset if self._epochs else -1

    def _latest_offset(self) -> int:
        return self._epochs[-1].start_offset if self._epochs else -1

    def _flush(self) -> None:
        self._checkpoint.write(self._epochs)

    def _epoch_change_msg(self, epoch: int, offset: int) -> str:
        return (f"New: {{epoch:{epoch}, offset:{offset}}}, Current: {{epoch:{self.latest_epoch()}, "
                f"offset{self._latest_offset()}}} for Partition: {self.topic_partition}")

    def _validate_and_maybe_warn(self, epoch: int, offset: int) -> None:
        if epoch < 0:
            raise AssertionError(f"Received a PartitionLeaderEpoch assignment for an epoch < 0. This should not "
                                 f"happen. {self._epoch_change_msg(epoch, offset)}")
        if epoch < self.latest_epoch():
            self.log.warning(f"Received a PartitionLeaderEpoch assignment for an epoch < latestEpoch. This implies "
                             f"messages have arrived out of order. {self._epoch_change_msg(epoch, offset)}")
        elif offset < self._latest_offset():
            self.log.warning(f"Received a PartitionLeaderEpoch assignment for an offset < latest offset for the most "
                             f"recent, stored PartitionLeaderEpoch. This implies messages have arrived out of order. "
                             f"{self._epoch_change_msg(epoch, offset)}")
