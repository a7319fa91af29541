"""Port of core/src/main/scala/kafka/cluster/Replica.scala (Kafka 3.9): what a partition leader knows of one
follower, from that follower's fetches (ReplicaState, Replica)."""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass, replace
from typing import Any, ClassVar

from kafka_edu.v3_9.clients.common.errors.not_leader_or_follower_exception import NotLeaderOrFollowerException
from kafka_edu.v3_9.clients.common.topic_partition import TopicPartition
from kafka_edu.v3_9.storage.storage.internals.log.log_offset_metadata import LogOffsetMetadata

log = logging.getLogger("kafka.cluster.Replica")

UNKNOWN_OFFSET = -1  # UnifiedLog.UnknownOffset


@dataclass(frozen=True)
class ReplicaState:
    """One follower's position as the leader last saw it; replaced whole on each update."""

    EMPTY: ClassVar[ReplicaState]

    # the follower's log start offset, as its last fetch reported it
    log_start_offset: int
    # the follower's log end offset: the offset its last fetch asked for
    log_end_offset_metadata: LogOffsetMetadata
    # the leader's LEO when that fetch arrived; decides the follower's last caught-up time
    last_fetch_leader_log_end_offset: int
    # when that fetch arrived
    last_fetch_time_ms: int
    # the latest time t at which the follower had fetched up to the leader's LEO of time t
    last_caught_up_time_ms: int
    # the broker epoch the follower's fetch carried (None before any fetch)
    broker_epoch: int | None

    @property
    def log_end_offset(self) -> int:
        return self.log_end_offset_metadata.message_offset

    def is_caught_up(self, leader_end_offset: int, current_time_ms: int, replica_max_lag_ms: int) -> bool:
        """At the leader's end, or caught up within the allowed lag."""
        return (leader_end_offset == self.log_end_offset
                or current_time_ms - self.last_caught_up_time_ms <= replica_max_lag_ms)


ReplicaState.EMPTY = ReplicaState(
    log_start_offset=UNKNOWN_OFFSET,
    log_end_offset_metadata=LogOffsetMetadata.UNKNOWN_OFFSET_METADATA,
    last_fetch_leader_log_end_offset=0,
    last_fetch_time_ms=0,
    last_caught_up_time_ms=0,
    broker_epoch=None,
)


class Replica:
    """A follower of a partition this broker leads."""

    def __init__(self, broker_id: int, topic_partition: TopicPartition, metadata_cache: Any) -> None:
        self.broker_id = broker_id
        self.topic_partition = topic_partition
        self.metadata_cache = metadata_cache
        self._replica_state = ReplicaState.EMPTY
        # Scala's AtomicReference.updateAndGet: each update reads and replaces the state as one step
        self._lock = threading.Lock()

    @property
    def state_snapshot(self) -> ReplicaState:
        return self._replica_state

    def update_fetch_state_or_throw(self, follower_fetch_offset_metadata: LogOffsetMetadata,
                                    follower_start_offset: int, follower_fetch_time_ms: int,
                                    leader_end_offset: int, broker_epoch: int) -> None:
        """Record a fetch. The last caught-up time moves to this fetch's time when it reached the leader's current
        LEO, or to the previous fetch's time when it reached the LEO the leader had then.
        NotLeaderOrFollowerException when the fetch carries a broker epoch older than the metadata's (KIP-903)."""
        from kafka_edu.v3_9.core.server.metadata.kraft_metadata_cache import KRaftMetadataCache

        with self._lock:
            current = self._replica_state
            if isinstance(self.metadata_cache, KRaftMetadataCache):
                cached_broker_epoch = self.metadata_cache.get_alive_broker_epoch(self.broker_id)
                if broker_epoch != -1 and cached_broker_epoch is not None and cached_broker_epoch > broker_epoch:
                    raise NotLeaderOrFollowerException(
                        f"Received stale fetch state update. broker epoch={broker_epoch} "
                        f"vs expected={cached_broker_epoch}")

            if follower_fetch_offset_metadata.message_offset >= leader_end_offset:
                last_caught_up_time = max(current.last_caught_up_time_ms, follower_fetch_time_ms)
            elif follower_fetch_offset_metadata.message_offset >= current.last_fetch_leader_log_end_offset:
                last_caught_up_time = max(current.last_caught_up_time_ms, current.last_fetch_time_ms)
            else:
                last_caught_up_time = current.last_caught_up_time_ms

            self._replica_state = ReplicaState(
                log_start_offset=follower_start_offset,
                log_end_offset_metadata=follower_fetch_offset_metadata,
                last_fetch_leader_log_end_offset=max(leader_end_offset, current.last_fetch_leader_log_end_offset),
                last_fetch_time_ms=follower_fetch_time_ms,
                last_caught_up_time_ms=last_caught_up_time,
                broker_epoch=broker_epoch,
            )

    def reset_replica_state(self, current_time_ms: int, leader_end_offset: int, is_new_leader: bool,
                            is_follower_in_sync: bool) -> None:
        """On becoming leader, or on a new leader epoch: an ISR member counts as caught up now, others not at all,
        so that a follower outside the ISR does not hold the high watermark back."""
        with self._lock:
            current = self._replica_state
            last_caught_up_time_ms = current_time_ms if is_follower_in_sync else 0
            if is_new_leader:
                self._replica_state = ReplicaState(
                    log_start_offset=UNKNOWN_OFFSET,
                    log_end_offset_metadata=LogOffsetMetadata.UNKNOWN_OFFSET_METADATA,
                    last_fetch_leader_log_end_offset=UNKNOWN_OFFSET,
                    last_fetch_time_ms=0,
                    last_caught_up_time_ms=last_caught_up_time_ms,
                    broker_epoch=None,
                )
            else:
                # re-elected: a follower outside the ISR must fetch again before it may rejoin
                self._replica_state = replace(
                    current,
                    last_fetch_leader_log_end_offset=leader_end_offset,
                    last_fetch_time_ms=current_time_ms if is_follower_in_sync else 0,
                    last_caught_up_time_ms=last_caught_up_time_ms,
                )
        log.debug("Reset state of replica to %s", self)

    def __str__(self) -> str:
        state = self._replica_state
        broker_epoch = -2 if state.broker_epoch is None else state.broker_epoch
        return (f"Replica(replicaId={self.broker_id}, topic={self.topic_partition.topic}, "
                f"partition={self.topic_partition.partition}, lastCaughtUpTimeMs={state.last_caught_up_time_ms}, "
                f"logStartOffset={state.log_start_offset}, logEndOffset={state.log_end_offset}, "
                f"logEndOffsetMetadata={state.log_end_offset_metadata}, "
                f"lastFetchLeaderLogEndOffset={state.last_fetch_leader_log_end_offset}, "
                f"brokerEpoch={broker_epoch}, lastFetchTimeMs={state.last_fetch_time_ms})")

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, Replica) and self.broker_id == other.broker_id
                and self.topic_partition == other.topic_partition)

    def __hash__(self) -> int:
        return 31 + hash(self.topic_partition) + 17 * self.broker_id
