"""Port of core/src/main/scala/kafka/coordinator/group/GroupMetadata.scala (read: Kafka 1.1.0, where AwaitingSync is
renamed CompletingRebalance; this port keeps 1.0.2's name AwaitingSync)."""

from __future__ import annotations

import contextlib
import enum
import threading
import uuid
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from kafka_edu.tracing import event
from kafka_edu.v1_0_2.clients.common.errors import IllegalStateException
from kafka_edu.v1_0_2.core.coordinator.group.member_metadata import MemberMetadata, MemberSummary
from kafka_edu.v1_0_2.core.coordinator.group.offset_and_metadata import OffsetAndMetadata
from kafka_edu.v1_0_2.core.log.log import TopicPartition

NO_PROTOCOL = ""  # GroupCoordinator.NoProtocol


class GroupState(enum.Enum):
    """Where a group is in its rebalance protocol; `.name` is what DescribeGroups reports.

    PreparingRebalance: JoinGroups are parked until every known member has rejoined (or the rebalance times out);
        heartbeats and SyncGroups get REBALANCE_IN_PROGRESS.
    AwaitingSync: a new generation exists; SyncGroups are parked until the leader sends the assignment.
    Stable: members heartbeat, commit offsets and get their assignment.
    Dead: the group is being removed from this coordinator (it emigrated, or expired); no way back.
    Empty: no members, but committed offsets keep the group alive until they expire.
    """

    PreparingRebalance = "PreparingRebalance"
    AwaitingSync = "AwaitingSync"
    Stable = "Stable"
    Dead = "Dead"
    Empty = "Empty"

    def __str__(self) -> str:
        return self.name


PreparingRebalance = GroupState.PreparingRebalance
AwaitingSync = GroupState.AwaitingSync
Stable = GroupState.Stable
Dead = GroupState.Dead
Empty = GroupState.Empty

VALID_PREVIOUS_STATES: dict[GroupState, frozenset[GroupState]] = {
    Dead: frozenset({Stable, PreparingRebalance, AwaitingSync, Empty, Dead}),
    AwaitingSync: frozenset({PreparingRebalance}),
    Stable: frozenset({AwaitingSync}),
    PreparingRebalance: frozenset({Stable, AwaitingSync, Empty}),
    Empty: frozenset({PreparingRebalance}),
}


@dataclass(frozen=True)
class GroupOverview:
    """One group as ListGroups shows it."""

    group_id: str
    protocol_type: str


@dataclass(frozen=True)
class GroupSummary:
    """One group as DescribeGroups shows it."""

    state: str
    protocol_type: str
    protocol: str
    members: list[MemberSummary]


@dataclass(frozen=True)
class CommitRecordMetadataAndOffset:
    """A cached offset with the log offset of the batch that wrote it, so the newest write wins."""

    appended_batch_offset: int | None
    offset_and_metadata: OffsetAndMetadata

    def older_than(self, that: CommitRecordMetadataAndOffset) -> bool:
        return self.appended_batch_offset < that.appended_batch_offset


class GroupMetadata:
    """A group's members, generation, leader and chosen protocol, its state, and its committed offsets.

    Not thread safe by itself: callers hold `lock` (`with group.in_lock():`) around every use.
    """

    def __init__(self, group_id: str, initial_state: GroupState = Empty) -> None:
        self.group_id = group_id
        self.lock = threading.RLock()
        self.state = initial_state
        self.protocol_type: str | None = None
        self.generation_id = 0
        self.leader_id: str | None = None
        self.protocol: str | None = None
        self.members: dict[str, MemberMetadata] = {}
        self.offsets: dict[TopicPartition, CommitRecordMetadataAndOffset] = {}
        # Commits appended to the log but not acknowledged yet; expiration leaves them alone.
        self.pending_offset_commits: dict[TopicPartition, OffsetAndMetadata] = {}
        # Transactional commits by producer id: they count only once the producer's COMMIT marker is written.
        self.pending_transactional_offset_commits: dict[int, dict[TopicPartition, CommitRecordMetadataAndOffset]] = {}
        self.received_transactional_offset_commits = False
        self.received_consumer_offset_commits = False
        # Set when a member joins during the initial rebalance delay, so the delay is extended once more.
        self.new_member_added = False

    @staticmethod
    def load_group(group_id: str, initial_state: GroupState, generation_id: int, protocol_type: str | None,
                   protocol: str | None, leader_id: str | None, members: Iterable[MemberMetadata]) -> GroupMetadata:
        group = GroupMetadata(group_id, initial_state)
        group.generation_id = generation_id
        group.protocol_type = protocol_type or None
        group.protocol = protocol
        group.leader_id = leader_id
        for member in members:
            group.add(member)
        return group

    @contextlib.contextmanager
    def in_lock(self) -> Iterator[None]:
        with self.lock:
            yield

    def is_(self, group_state: GroupState) -> bool:
        return self.state is group_state

    def not_(self, group_state: GroupState) -> bool:
        return self.state is not group_state

    def has(self, member_id: str) -> bool:
        return member_id in self.members

    def get(self, member_id: str) -> MemberMetadata:
        return self.members[member_id]

    def is_leader(self, member_id: str) -> bool:
        return self.leader_id == member_id

    @property
    def leader_or_null(self) -> str | None:
        return self.leader_id

    @property
    def protocol_or_null(self) -> str | None:
        return self.protocol

    @property
    def current_state(self) -> GroupState:
        return self.state

    def add(self, member: MemberMetadata) -> None:
        if not self.members:
            self.protocol_type = member.protocol_type
        assert self.group_id == member.group_id
        assert self.protocol_type == member.protocol_type
        assert self.supports_protocols(member.protocols)
        if self.leader_id is None:
            self.leader_id = member.member_id
        self.members[member.member_id] = member

    def remove(self, member_id: str) -> None:
        self.members.pop(member_id, None)
        if self.is_leader(member_id):
            self.leader_id = next(iter(self.members), None)

    def not_yet_rejoined_members(self) -> list[MemberMetadata]:
        return [member for member in self.members.values() if member.awaiting_join_callback is None]

    def all_members(self) -> set[str]:
        return set(self.members)

    def all_member_metadata(self) -> list[MemberMetadata]:
        return list(self.members.values())

    @property
    def rebalance_timeout_ms(self) -> int:
        return max((member.rebalance_timeout_ms for member in self.members.values()), default=0)

    @staticmethod
    def generate_member_id_suffix() -> str:
        return str(uuid.uuid4())

    def can_rebalance(self) -> bool:
        return self.state in VALID_PREVIOUS_STATES[PreparingRebalance]

    def transition_to(self, group_state: GroupState) -> None:
        self._assert_valid_transition(group_state)
        event("group.state.change", self, group_state=group_state)
        self.state = group_state

    def select_protocol(self) -> str:
        """The protocol every member supports that most members prefer."""
        if not self.members:
            raise IllegalStateException("Cannot select protocol for empty group")
        candidates = self._candidate_protocols()
        votes = Counter(member.vote(candidates) for member in self.all_member_metadata())
        return votes.most_common(1)[0][0]

    def _candidate_protocols(self) -> set[str]:
        protocols = [member.protocols for member in self.all_member_metadata()]
        return set.intersection(*protocols) if protocols else set()

    def supports_protocols(self, member_protocols: set[str]) -> bool:
        return not self.members or bool(member_protocols & self._candidate_protocols())

    def init_next_generation(self) -> None:
        assert not self.not_yet_rejoined_members()
        self.generation_id += 1
        if self.members:
            self.protocol = self.select_protocol()
            self.transition_to(AwaitingSync)
        else:
            self.protocol = None
            self.transition_to(Empty)

    def current_member_metadata(self) -> dict[str, bytes]:
        if self.is_(Dead) or self.is_(PreparingRebalance):
            raise IllegalStateException(f"Cannot obtain member metadata for group in state {self.state}")
        return {member_id: member.metadata(self.protocol) for member_id, member in self.members.items()}

    def summary(self) -> GroupSummary:
        if self.is_(Stable):
            protocol = self.protocol_or_null
            if protocol is None:
                raise IllegalStateException("Invalid null group protocol for stable group")
            members = [member.summary(protocol) for member in self.members.values()]
            return GroupSummary(self.state.name, self.protocol_type or "", protocol, members)
        members = [member.summary_no_metadata() for member in self.members.values()]
        return GroupSummary(self.state.name, self.protocol_type or "", NO_PROTOCOL, members)

    def overview(self) -> GroupOverview:
        return GroupOverview(self.group_id, self.protocol_type or "")

    # -- offsets --------------------------------------------------------------------------------------------------

    def initialize_offsets(self, offsets: dict[TopicPartition, CommitRecordMetadataAndOffset],
                           pending_txn_offsets: dict[int, dict[TopicPartition, CommitRecordMetadataAndOffset]]
                           | None = None) -> None:
        self.offsets.update(offsets)
        for producer_id, producer_offsets in (pending_txn_offsets or {}).items():
            self.pending_transactional_offset_commits.setdefault(producer_id, {}).update(producer_offsets)

    def on_offset_commit_append(self, topic_partition: TopicPartition,
                                offset_with_commit_record_metadata: CommitRecordMetadataAndOffset) -> None:
        if topic_partition in self.pending_offset_commits:
            if offset_with_commit_record_metadata.appended_batch_offset is None:
                raise IllegalStateException("Cannot complete offset commit write without providing the metadata of "
                                            "the record in the log.")
            current = self.offsets.get(topic_partition)
            if current is None or current.older_than(offset_with_commit_record_metadata):
                self.offsets[topic_partition] = offset_with_commit_record_metadata
        staged = self.pending_offset_commits.get(topic_partition)
        if staged is not None and staged == offset_with_commit_record_metadata.offset_and_metadata:
            del self.pending_offset_commits[topic_partition]

    def fail_pending_offset_write(self, topic_partition: TopicPartition, offset: OffsetAndMetadata) -> None:
        if self.pending_offset_commits.get(topic_partition) == offset:
            del self.pending_offset_commits[topic_partition]

    def prepare_offset_commit(self, offsets: dict[TopicPartition, OffsetAndMetadata]) -> None:
        self.received_consumer_offset_commits = True
        self.pending_offset_commits.update(offsets)

    def prepare_txn_offset_commit(self, producer_id: int, offsets: dict[TopicPartition, OffsetAndMetadata]) -> None:
        self.received_transactional_offset_commits = True
        producer_offsets = self.pending_transactional_offset_commits.setdefault(producer_id, {})
        for topic_partition, offset_and_metadata in offsets.items():
            producer_offsets[topic_partition] = CommitRecordMetadataAndOffset(None, offset_and_metadata)

    def has_received_consistent_offset_commits(self) -> bool:
        """False when both consumers and transactional producers commit this group's offsets (surprising)."""
        return not self.received_consumer_offset_commits or not self.received_transactional_offset_commits

    def fail_pending_txn_offset_commit(self, producer_id: int, topic_partition: TopicPartition) -> None:
        """The commit's record was not written: forget it (the client retries, maybe with another coordinator)."""
        pending_offsets = self.pending_transactional_offset_commits.get(producer_id)
        if pending_offsets is None:
            return  # the offsets partition emigrated meanwhile
        pending_offsets.pop(topic_partition, None)
        if not pending_offsets:
            del self.pending_transactional_offset_commits[producer_id]

    def on_txn_offset_commit_append(self, producer_id: int, topic_partition: TopicPartition,
                                    commit_record_metadata_and_offset: CommitRecordMetadataAndOffset) -> None:
        """The commit's record is in the log: remember where, so its completion knows which write is newest."""
        pending_offsets = self.pending_transactional_offset_commits.get(producer_id)
        if pending_offsets is None:
            return  # the offsets partition emigrated meanwhile
        pending = pending_offsets.get(topic_partition)
        if pending is not None and pending.offset_and_metadata == commit_record_metadata_and_offset.offset_and_metadata:
            pending_offsets[topic_partition] = commit_record_metadata_and_offset

    def complete_pending_txn_offset_commit(self, producer_id: int, is_commit: bool) -> None:
        """The producer's marker is written: a COMMIT makes its offsets the group's, an ABORT drops them."""
        pending_offsets = self.pending_transactional_offset_commits.pop(producer_id, None)
        if not is_commit or pending_offsets is None:
            return
        for topic_partition, commit_record_metadata_and_offset in pending_offsets.items():
            if commit_record_metadata_and_offset.appended_batch_offset is None:
                raise IllegalStateException(f"Trying to complete a transactional offset commit for producerId "
                                            f"{producer_id} and groupId {self.group_id} even though the offset commit "
                                            "record itself hasn't been appended to the log.")
            current = self.offsets.get(topic_partition)
            if current is None or current.older_than(commit_record_metadata_and_offset):
                self.offsets[topic_partition] = commit_record_metadata_and_offset

    def active_producers(self) -> set[int]:
        return set(self.pending_transactional_offset_commits)

    def has_pending_offset_commits_from_producer(self, producer_id: int) -> bool:
        return producer_id in self.pending_transactional_offset_commits

    def remove_offsets(self, topic_partitions: Iterable[TopicPartition]) -> dict[TopicPartition, OffsetAndMetadata]:
        removed = {}
        for topic_partition in topic_partitions:
            self.pending_offset_commits.pop(topic_partition, None)
            for pending_offsets in self.pending_transactional_offset_commits.values():
                pending_offsets.pop(topic_partition, None)
            offset = self.offsets.pop(topic_partition, None)
            if offset is not None:
                removed[topic_partition] = offset.offset_and_metadata
        return removed

    def remove_expired_offsets(self, start_ms: int) -> dict[TopicPartition, OffsetAndMetadata]:
        expired = {tp: commit.offset_and_metadata for tp, commit in self.offsets.items()
                   if commit.offset_and_metadata.expire_timestamp < start_ms
                   and tp not in self.pending_offset_commits}
        for topic_partition in expired:
            del self.offsets[topic_partition]
        return expired

    def all_offsets(self) -> dict[TopicPartition, OffsetAndMetadata]:
        return {tp: commit.offset_and_metadata for tp, commit in self.offsets.items()}

    def offset(self, topic_partition: TopicPartition) -> OffsetAndMetadata | None:
        commit = self.offsets.get(topic_partition)
        return commit.offset_and_metadata if commit else None

    @property
    def num_offsets(self) -> int:
        return len(self.offsets)

    def has_offsets(self) -> bool:
        return bool(self.offsets or self.pending_offset_commits or self.pending_transactional_offset_commits)

    def _assert_valid_transition(self, target_state: GroupState) -> None:
        valid = VALID_PREVIOUS_STATES[target_state]
        if self.state not in valid:
            raise IllegalStateException(
                f"Group {self.group_id} should be in the {','.join(sorted(s.name for s in valid))} states before "
                f"moving to {target_state.name} state. Instead it is in {self.state.name} state")

    def __repr__(self) -> str:
        return (f"GroupMetadata(groupId={self.group_id}, generation={self.generation_id}, "
                f"protocolType={self.protocol_type}, currentState={self.state.name}, members={self.members})")
