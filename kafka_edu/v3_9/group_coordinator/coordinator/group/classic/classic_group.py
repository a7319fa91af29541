"""Port of group-coordinator/src/main/java/org/apache/kafka/coordinator/group/classic/ClassicGroup.java (Kafka 3.9).

Differences: the port has no metrics registry, so there is no GroupCoordinatorMetricsShard argument and state
transitions are not counted. LogContext is its prefix string, as elsewhere in the port. Java's HashMaps of members
iterate in hash order; the dicts here iterate in insertion order, so when the leader leaves, the oldest remaining
member leads (Kafka picks the first in hash order), and a tie in the protocol vote goes to the protocol voted for
first. Responses are kio's JoinGroup (v9) and SyncGroup (v5) messages, with Kafka's generated defaults for the
fields a call does not set. Java's Optional fields are `X | None`.
"""

from __future__ import annotations

import datetime
import uuid
from collections.abc import Collection, Iterable, Set
from typing import TYPE_CHECKING, Any

from kio.schema.errors import ErrorCode
from kio.schema.join_group.v9.request import JoinGroupRequestProtocol
from kio.schema.join_group.v9.response import JoinGroupResponse, JoinGroupResponseMember
from kio.schema.list_groups.v5.response import ListedGroup
from kio.schema.sync_group.v5.response import SyncGroupResponse
from kio.static.primitive import i32Timedelta

from kafka_edu.v1_0_2.clients.common.errors import (
    CoordinatorNotAvailableException,
    IllegalArgumentException,
    IllegalStateException,
)
from kafka_edu.v1_0_2.core.utils.kafka_logging import Logging
from kafka_edu.v3_9.clients.clients.consumer.internals import consumer_protocol
from kafka_edu.v3_9.clients.common.errors.fenced_instance_id_exception import FencedInstanceIdException
from kafka_edu.v3_9.clients.common.errors.group_id_not_found_exception import GroupIdNotFoundException
from kafka_edu.v3_9.clients.common.errors.group_not_empty_exception import GroupNotEmptyException
from kafka_edu.v3_9.clients.common.errors.illegal_generation_exception import IllegalGenerationException
from kafka_edu.v3_9.clients.common.errors.rebalance_in_progress_exception import RebalanceInProgressException
from kafka_edu.v3_9.clients.common.errors.unknown_member_id_exception import UnknownMemberIdException
from kafka_edu.v3_9.clients.common.network.java_nio import ByteBuffer
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from kafka_edu.v3_9.clients.common.protocol.types.schema_exception import SchemaException
from kafka_edu.v3_9.clients.common.utils.time import Time
from kafka_edu.v3_9.group_coordinator.coordinator.group import coordinator_record_helpers
from kafka_edu.v3_9.group_coordinator.coordinator.group.classic.classic_group_member import ClassicGroupMember
from kafka_edu.v3_9.group_coordinator.coordinator.group.classic.classic_group_state import ClassicGroupState
from kafka_edu.v3_9.group_coordinator.coordinator.group.group import Group
from kafka_edu.v3_9.group_coordinator.coordinator.group.offset_expiration_condition import OffsetExpirationCondition
from kafka_edu.v3_9.group_coordinator.coordinator.group.offset_expiration_condition_impl import (
    OffsetExpirationConditionImpl,
)

if TYPE_CHECKING:
    from kafka_edu.v3_9.group_coordinator.coordinator.group.coordinator_record import CoordinatorRecord
    from kafka_edu.v3_9.group_coordinator.coordinator.group.modern.consumer.consumer_group import ConsumerGroup
    from kafka_edu.v3_9.metadata.image.metadata_image import MetadataImage
    from kafka_edu.v3_9.metadata.image.topics_image import TopicsImage
    from kafka_edu.v3_9.raft.raft.internals.completable_future import CompletableFuture
    from kafka_edu.v3_9.server_common.server.common.metadata_version import MetadataVersion

EMPTY = ClassicGroupState.EMPTY
PREPARING_REBALANCE = ClassicGroupState.PREPARING_REBALANCE
COMPLETING_REBALANCE = ClassicGroupState.COMPLETING_REBALANCE
STABLE = ClassicGroupState.STABLE
DEAD = ClassicGroupState.DEAD

NO_LEADER = ""
# a generated member id is the client id (or group instance id), this, and a random UUID
_MEMBER_ID_DELIMITER = "-"
_LOGGER_NAME = "org.apache.kafka.coordinator.group.classic.ClassicGroup"

# stands for "not given": the short constructor stamps the state with the time of creation, the long one takes
# the timestamp it is given, which may be None (a group loaded from an old record has none)
_NOW: Any = object()


def join_group_response(**fields: Any) -> JoinGroupResponse:
    """A JoinGroup response with Kafka's generated defaults for the fields not given (kio requires them all)."""
    defaults: dict[str, Any] = dict(throttle_time=i32Timedelta.parse(datetime.timedelta(0)),
                                    error_code=ErrorCode.none, protocol_name="", leader="", member_id="",
                                    members=())
    return JoinGroupResponse(**{**defaults, **fields})


def sync_group_response(**fields: Any) -> SyncGroupResponse:
    """A SyncGroup response with Kafka's generated defaults for the fields not given."""
    defaults: dict[str, Any] = dict(throttle_time=i32Timedelta.parse(datetime.timedelta(0)),
                                    error_code=ErrorCode.none, assignment=b"")
    return SyncGroupResponse(**{**defaults, **fields})


class ClassicGroup(Group):
    """A group whose members (JoinGroup, SyncGroup, Heartbeat, LeaveGroup) rebalance among themselves: the
    coordinator collects the members and their protocols, picks a protocol and a leader, and hands the leader's
    assignment to each member."""

    def __init__(self, log_context: str, group_id: str, initial_state: ClassicGroupState, time: Time,
                 generation_id: int = 0, protocol_type: str | None = None, protocol_name: str | None = None,
                 leader_id: str | None = None, current_state_timestamp: int | None = _NOW) -> None:
        """Kafka's two constructors: (logContext, groupId, initialState, time) and the same with the generation,
        protocol type and name, leader and state timestamp of a group read back from its record."""
        if log_context is None or group_id is None or initial_state is None or time is None:
            raise TypeError("logContext, groupId, initialState and time are required")  # Objects.requireNonNull
        self._log = Logging(_LOGGER_NAME, log_context)
        self._group_id = group_id
        self._state = initial_state
        self._previous_state = DEAD
        self._time = time
        self._generation_id = generation_id
        self._protocol_type = protocol_type
        self._protocol_name = protocol_name
        self._leader_id = leader_id
        self._current_state_timestamp: int | None = (
            time.milliseconds() if current_state_timestamp is _NOW else current_state_timestamp)
        self._members: dict[str, ClassicGroupMember] = {}
        # group instance id -> member id
        self._static_members: dict[str, str] = {}
        # members asked to rejoin (a new dynamic member given its id) that have not joined yet
        self._pending_join_members: set[str] = set()
        self._num_members_awaiting_join_response = 0
        # protocol name -> how many members support it
        self._supported_protocols: dict[str, int] = {}
        # members that have not sent their SyncGroup in this generation
        self._pending_sync_members: set[str] = set()
        self._subscribed_topics: set[str] | None = None
        # lets the first join of a new group wait a little longer for others
        self._new_member_added = False

    def type(self) -> Group.GroupType:
        return Group.GroupType.CLASSIC

    def state_as_string(self, committed_offset: int | None = None) -> str:
        # a classic group's state is not on the timeline: the same at every offset
        return str(self._state)

    def group_id(self) -> str:
        return self._group_id

    def generation_id(self) -> int:
        return self._generation_id

    def protocol_name(self) -> str | None:
        return self._protocol_name

    def protocol_type(self) -> str | None:
        return self._protocol_type

    def current_state(self) -> ClassicGroupState:
        return self._state

    def previous_state(self) -> ClassicGroupState:
        return self._previous_state

    def new_member_added(self) -> bool:
        return self._new_member_added

    def is_in_state(self, group_state: ClassicGroupState) -> bool:
        return self._state == group_state

    def has_member(self, member_id: str) -> bool:
        return member_id in self._members

    def member(self, member_id: str) -> ClassicGroupMember | None:
        return self._members.get(member_id)

    def num_members(self) -> int:
        return len(self._members)

    def is_leader(self, member_id: str) -> bool:
        return self._leader_id is not None and self._leader_id == member_id

    def leader_or_null(self) -> str | None:
        return self._leader_id

    def current_state_timestamp_or_default(self) -> int:
        return -1 if self._current_state_timestamp is None else self._current_state_timestamp

    def supported_protocols(self) -> dict[str, int]:
        return self._supported_protocols

    def set_new_member_added(self, value: bool) -> None:
        self._new_member_added = value

    def set_subscribed_topics(self, subscribed_topics: set[str] | None) -> None:
        self._subscribed_topics = subscribed_topics

    def set_protocol_name(self, protocol_name: str | None) -> None:
        self._protocol_name = protocol_name

    def uses_consumer_group_protocol(self) -> bool:
        return self._protocol_type == consumer_protocol.PROTOCOL_TYPE

    def add(self, member: ClassicGroupMember, future: CompletableFuture[JoinGroupResponse] | None = None) -> None:
        """Adds the member; with a future, the member is parked until the join phase completes."""
        instance_id = member.group_instance_id()
        if instance_id is not None:
            if instance_id in self._static_members:
                raise IllegalStateException(
                    f"Static member with groupInstanceId={instance_id} cannot be added to group {self._group_id} "
                    "since it is already a member.")
            self._static_members[instance_id] = member.member_id()

        # the first member sets the group's protocol type
        if not self._members:
            self._protocol_type = member.protocol_type()

        if self._protocol_type != member.protocol_type():
            raise IllegalStateException("The group and member's protocol type must be the same.")

        if not self.supports_protocols(member):
            raise IllegalStateException("None of the member's protocols can be supported.")

        if self._leader_id is None:
            self._leader_id = member.member_id()

        self._members[member.member_id()] = member
        self._increment_supported_protocols(member)
        member.set_awaiting_join_future(future)

        if member.is_awaiting_join():
            self._num_members_awaiting_join_response += 1

        self._pending_join_members.discard(member.member_id())

    def remove(self, member_id: str) -> None:
        removed_member = self._members.pop(member_id, None)
        if removed_member is not None:
            self._decrement_supported_protocols(removed_member)
            if removed_member.is_awaiting_join():
                self._num_members_awaiting_join_response -= 1
            if removed_member.group_instance_id() is not None:
                self._static_members.pop(removed_member.group_instance_id(), None)

        if self.is_leader(member_id):
            # any remaining member will do; none left means no leader
            self._leader_id = next(iter(self._members), None)

        self._pending_join_members.discard(member_id)
        self._pending_sync_members.discard(member_id)

    def maybe_elect_new_joined_leader(self) -> bool:
        """True if the leader has rejoined, or if it has not and another member that rejoined now leads; False
        if the group has no leader or no member rejoined."""
        if self._leader_id is not None:
            current_leader = self._members[self._leader_id]
            if not current_leader.is_awaiting_join():
                for member in self._members.values():
                    if member.is_awaiting_join():
                        self._leader_id = member.member_id()
                        self._log.info(
                            "Group leader [memberId: %s, groupInstanceId: %s] failed to join before the rebalance "
                            "timeout. Member %s was elected as the new leader.",
                            current_leader.member_id(), current_leader.group_instance_id() or "None", member)
                        return True
                self._log.info(
                    "Group leader [memberId: %s, groupInstanceId: %s] failed to join before the rebalance timeout "
                    "and the group couldn't proceed to the next generation because no member joined.",
                    current_leader.member_id(), current_leader.group_instance_id() or "None")
                return False
            return True
        return False

    def replace_static_member(self, group_instance_id: str, old_member_id: str,
                              new_member_id: str) -> ClassicGroupMember:
        """A static member rejoined under a new member id: the same member, everything but its id kept. The
        old id's parked join or sync is answered FENCED_INSTANCE_ID at once, in case a stale duplicate waits."""
        removed_member = self._members.pop(old_member_id, None)
        if removed_member is None:
            raise IllegalArgumentException(f"Cannot replace non-existing member id {old_member_id}")

        self.complete_join_future(removed_member, join_group_response(
            members=(),
            member_id=old_member_id,
            protocol_name=None,
            protocol_type=None,
            leader=NO_LEADER,
            skip_assignment=False,
            error_code=ErrorCode.fenced_instance_id,
        ))
        self.complete_sync_future(removed_member, sync_group_response(
            assignment=b"",
            protocol_name=None,
            protocol_type=None,
            error_code=ErrorCode.fenced_instance_id,
        ))

        new_member = ClassicGroupMember(
            new_member_id,
            removed_member.group_instance_id(),
            removed_member.client_id(),
            removed_member.client_host(),
            removed_member.rebalance_timeout_ms(),
            removed_member.session_timeout_ms(),
            removed_member.protocol_type(),
            removed_member.supported_protocols(),
            removed_member.assignment(),
        )
        self._members[new_member_id] = new_member

        if self.is_leader(old_member_id):
            self._leader_id = new_member_id

        self._static_members[group_instance_id] = new_member_id
        return new_member

    def is_pending_member(self, member_id: str) -> bool:
        return member_id in self._pending_join_members

    def add_pending_member(self, member_id: str) -> bool:
        """True if the member was not pending yet."""
        if self.has_member(member_id):
            raise IllegalStateException(
                f"Attempt to add pending member {member_id} which is already a stable member of the group.")
        return _add(self._pending_join_members, member_id)

    def num_pending_join_members(self) -> int:
        return len(self._pending_join_members)

    def add_pending_sync_member(self, member_id: str) -> bool:
        if not self.has_member(member_id):
            raise IllegalStateException(
                f"Attempt to add pending sync member {member_id} which is already a stable member of the group.")
        return _add(self._pending_sync_members, member_id)

    def remove_pending_sync_member(self, member_id: str) -> bool:
        if not self.has_member(member_id):
            raise IllegalStateException(
                f"Attempt to add pending member {member_id} which is already a stable member of the group.")
        if member_id in self._pending_sync_members:
            self._pending_sync_members.remove(member_id)
            return True
        return False

    def has_received_sync_from_all_members(self) -> bool:
        return not self._pending_sync_members

    def all_pending_sync_members(self) -> set[str]:
        return self._pending_sync_members

    def clear_pending_sync_members(self) -> None:
        self._pending_sync_members.clear()

    def has_static_member(self, group_instance_id: str) -> bool:
        return group_instance_id in self._static_members

    def static_member_id(self, group_instance_id: str) -> str | None:
        return self._static_members.get(group_instance_id)

    def not_yet_rejoined_members(self) -> dict[str, ClassicGroupMember]:
        return {member.member_id(): member for member in self._members.values() if not member.is_awaiting_join()}

    def has_all_members_joined(self) -> bool:
        return (len(self._members) == self._num_members_awaiting_join_response
                and not self._pending_join_members)

    def all_member_ids(self) -> Set[str]:
        return self._members.keys()

    def all_static_member_ids(self) -> set[str]:
        return set(self._static_members.values())

    def all_dynamic_member_ids(self) -> set[str]:
        """For tests: the members without a group instance id."""
        return set(self._members) - set(self._static_members.values())

    def num_awaiting_join_response(self) -> int:
        return self._num_members_awaiting_join_response

    def all_members(self) -> Collection[ClassicGroupMember]:
        return self._members.values()

    def rebalance_timeout_ms(self) -> int:
        """The longest of the members' rebalance timeouts: the join phase waits that long."""
        return max((member.rebalance_timeout_ms() for member in self._members.values()), default=0)

    def generate_member_id(self, client_id: str, group_instance_id: str | None) -> str:
        prefix = client_id if group_instance_id is None else group_instance_id
        return prefix + _MEMBER_ID_DELIMITER + str(uuid.uuid4())

    def validate_member(self, member_id: str, group_instance_id: str | None, operation: str) -> None:
        """UnknownMemberIdException if the instance id (when given) or the member id is unknown;
        FencedInstanceIdException if the instance id belongs to another member id now."""
        if group_instance_id is not None:
            existing_member_id = self.static_member_id(group_instance_id)
            if existing_member_id is None:
                raise UnknownMemberIdException("The coordinator is not aware of this member.")
            if existing_member_id != member_id:
                self._log.info(
                    "Request memberId=%s for static member with groupInstanceId=%s is fenced by existing "
                    "memberId=%s during operation %s", member_id, group_instance_id, existing_member_id, operation)
                raise FencedInstanceIdException(
                    "The broker rejected this static consumer since another consumer with the same "
                    "group.instance.id has registered with a different member.id.")

        if not self.has_member(member_id):
            raise UnknownMemberIdException("The coordinator is not aware of this member.")

    def validate_offset_commit(self, member_id: str, group_instance_id: str | None,
                               generation_id_or_member_epoch: int, is_transactional: bool,
                               api_version: int) -> None:
        generation_id = generation_id_or_member_epoch
        if self.is_in_state(DEAD):
            raise CoordinatorNotAvailableException("The coordinator is not available.")

        # no generation (-1): the admin client, or a consumer outside group management; fine in an empty group
        if generation_id < 0 and self.is_in_state(EMPTY):
            return

        if generation_id >= 0 or member_id != "" or group_instance_id is not None:
            # Kafka names the operations this way round; kept, it only shows in the log
            self.validate_member(member_id, group_instance_id,
                                 "offset-commit" if is_transactional else "txn-offset-commit")
            if generation_id != self._generation_id:
                raise IllegalGenerationException("Specified group generation id is not valid.")
        elif not is_transactional and not self.is_in_state(EMPTY):
            # an OffsetCommit v0 carries neither member nor generation: only an empty group takes it (an old
            # TxnOffsetCommit does not carry them either, so it is not held to that)
            raise UnknownMemberIdException("The coordinator is not aware of this member.")

        if not is_transactional and self.is_in_state(COMPLETING_REBALANCE):
            # a member of the new generation commits before its SyncGroup: let it retry once the group is stable
            raise RebalanceInProgressException("The group is rebalancing, so a rejoin is needed.")

    def validate_offset_fetch(self, member_id: str | None, member_epoch: int, last_committed_offset: int) -> None:
        """Classic groups fetch without member id and epoch: only a dead group refuses."""
        if self.is_in_state(DEAD):
            raise GroupIdNotFoundException(f"Group {self._group_id} is in dead state.")

    def validate_offset_delete(self) -> None:
        if self._state == DEAD:
            raise GroupIdNotFoundException(f"Group {self._group_id} is in dead state.")
        if self._state in (STABLE, PREPARING_REBALANCE, COMPLETING_REBALANCE):
            # a consumer group's offsets of topics it no longer subscribes to may go while it has members
            if not self.uses_consumer_group_protocol():
                raise GroupNotEmptyException("The group is not empty.")

    def validate_delete_group(self) -> None:
        if self._state == DEAD:
            raise GroupIdNotFoundException(f"Group {self._group_id} is in dead state.")
        if self._state in (STABLE, PREPARING_REBALANCE, COMPLETING_REBALANCE):
            raise GroupNotEmptyException("The group is not empty.")

    def create_group_tombstone_records(self, records: list[CoordinatorRecord]) -> None:
        records.append(coordinator_record_helpers.new_group_metadata_tombstone_record(self.group_id()))

    def is_empty(self) -> bool:
        return self.is_in_state(EMPTY)

    def offset_expiration_condition(self) -> OffsetExpirationCondition | None:
        """From when an offset's retention counts, given the group's state and protocol; None: nothing expires."""
        if self._protocol_type is not None:
            if self.is_in_state(EMPTY):
                # no members: retention counts from when the group became empty (from the commit for a group
                # read from an old record, which has no state timestamp)
                return OffsetExpirationConditionImpl(
                    lambda offset_and_metadata: (offset_and_metadata.commit_timestamp_ms
                                                 if self._current_state_timestamp is None
                                                 else self._current_state_timestamp))
            if self.uses_consumer_group_protocol() and self._subscribed_topics is not None \
                    and self.is_in_state(STABLE):
                # a stable consumer group that knows its topics: from the commit
                return OffsetExpirationConditionImpl(
                    lambda offset_and_metadata: offset_and_metadata.commit_timestamp_ms)
        else:
            # no protocol type: a simple consumer that only stores offsets; from the commit
            return OffsetExpirationConditionImpl(lambda offset_and_metadata: offset_and_metadata.commit_timestamp_ms)
        return None

    def is_in_states(self, states_filter: Set[str], committed_offset: int) -> bool:
        return self._state.to_lower_case_string() in states_filter

    def is_static_member_fenced(self, group_instance_id: str, member_id: str) -> bool:
        """Whether the instance id is known and held by another member id."""
        existing_member_id = self.static_member_id(group_instance_id)
        return existing_member_id is not None and existing_member_id != member_id

    def can_rebalance(self) -> bool:
        return self._state in PREPARING_REBALANCE.valid_previous_states()

    def transition_to(self, group_state: ClassicGroupState) -> None:
        self._assert_valid_transition(group_state)
        self._previous_state = self._state
        self._state = group_state
        self._current_state_timestamp = self._time.milliseconds()
        # Kafka reports the transition to its metrics shard here; the port has no metrics

    def select_protocol(self) -> str:
        """The protocol every member supports that most members prefer."""
        if not self._members:
            raise IllegalStateException("Cannot select protocol for empty group")

        candidates = self._candidate_protocols()

        votes_by_protocol: dict[str, int] = {}
        for member in self._members.values():
            protocol_name = member.vote(candidates)
            votes_by_protocol[protocol_name] = votes_by_protocol.get(protocol_name, 0) + 1

        # max keeps the first of equal counts, as Java's Stream.max does
        return max(votes_by_protocol.items(), key=lambda entry: entry[1])[0]

    def _increment_supported_protocols(self, member: ClassicGroupMember) -> None:
        for protocol in member.supported_protocols():
            self._supported_protocols[protocol.name] = self._supported_protocols.get(protocol.name, 0) + 1

    def _decrement_supported_protocols(self, member: ClassicGroupMember) -> None:
        for protocol in member.supported_protocols():
            self._supported_protocols[protocol.name] = self._supported_protocols.get(protocol.name, 0) - 1

    def _candidate_protocols(self) -> set[str]:
        """The protocols every member supports."""
        return {name for name, count in self._supported_protocols.items() if count == len(self._members)}

    def supports_protocols(self, member_or_protocol_type: ClassicGroupMember | str,
                           member_protocols: Iterable[JoinGroupRequestProtocol] | Set[str] | None = None) -> bool:
        """Kafka's three overloads: (member), (protocol type, JoinGroup protocols) and (protocol type, protocol
        names). An empty group takes any non-empty protocol type with some protocol; otherwise the type must be
        the group's and one of the protocols must be supported by every member."""
        if isinstance(member_or_protocol_type, ClassicGroupMember):
            member_protocol_type = member_or_protocol_type.protocol_type()
            names = ClassicGroupMember.plain_protocol_set(member_or_protocol_type.supported_protocols())
        else:
            member_protocol_type = member_or_protocol_type
            protocols = list(member_protocols or ())
            names = set(protocols) if all(isinstance(p, str) for p in protocols) else \
                ClassicGroupMember.plain_protocol_set(protocols)

        if self.is_in_state(EMPTY):
            return member_protocol_type != "" and len(names) > 0
        return (self._protocol_type is not None and self._protocol_type == member_protocol_type
                and any(self._supported_protocols.get(name, 0) == len(self._members) for name in names))

    def subscribed_topics(self) -> set[str] | None:
        return self._subscribed_topics

    def is_subscribed_to_topic(self, topic: str) -> bool:
        """When the group's topics are not known (not computed yet, or the metadata did not parse), a group using
        the consumer protocol counts as subscribed, so that its offsets are kept."""
        if self._subscribed_topics is not None:
            return topic in self._subscribed_topics
        return self.uses_consumer_group_protocol()

    def compute_subscribed_topics(self) -> set[str] | None:
        """The union of the members' subscribed topics, for a group of the consumer protocol type; None when the
        type is another, the protocol is not chosen yet, or a member's metadata does not parse."""
        if self._protocol_type is None:
            return None
        if self._protocol_type != consumer_protocol.PROTOCOL_TYPE:
            return None
        if not self._members:
            return set()

        if self._protocol_name is not None:
            try:
                all_subscribed_topics: set[str] = set()
                for member in self._members.values():
                    # read as version 0, which every version starts with: any version a client sends parses
                    buffer = ByteBuffer.wrap(member.metadata(self._protocol_name))
                    consumer_protocol.deserialize_version(buffer)
                    all_subscribed_topics.update(
                        consumer_protocol.deserialize_consumer_protocol_subscription(buffer, 0).topics)
                return all_subscribed_topics
            except SchemaException as e:
                self._log.warning(
                    "Failed to parse Consumer Protocol %s:%s of group %s. Consumer group coordinator is not aware "
                    "of the subscribed topics.", consumer_protocol.PROTOCOL_TYPE, self._protocol_name,
                    self._group_id, exc_info=e)

        return None

    def update_member(self, member: ClassicGroupMember, protocols: Iterable[JoinGroupRequestProtocol],
                      rebalance_timeout_ms: int, session_timeout_ms: int,
                      future: CompletableFuture[JoinGroupResponse] | None) -> None:
        """A known member rejoined: its new protocols and timeouts, and its join future (None: not parked)."""
        self._decrement_supported_protocols(member)
        member.set_supported_protocols(list(protocols))
        self._increment_supported_protocols(member)
        member.set_rebalance_timeout_ms(rebalance_timeout_ms)
        member.set_session_timeout_ms(session_timeout_ms)

        if future is not None and not member.is_awaiting_join():
            self._num_members_awaiting_join_response += 1
        elif future is None and member.is_awaiting_join():
            self._num_members_awaiting_join_response -= 1
        member.set_awaiting_join_future(future)

    def complete_join_future(self, member: ClassicGroupMember, response: JoinGroupResponse) -> bool:
        """True if the member was parked in a join and is answered now."""
        future = member.awaiting_join_future()
        if future is not None:
            future.complete(response)
            member.set_awaiting_join_future(None)
            self._num_members_awaiting_join_response -= 1
            return True
        return False

    def complete_all_join_futures(self, error: Errors) -> None:
        for member_id, member in list(self._members.items()):
            self.complete_join_future(member, join_group_response(member_id=member_id,
                                                                  error_code=ErrorCode(error.code)))

    def complete_sync_future(self, member: ClassicGroupMember, response: SyncGroupResponse) -> bool:
        """True if the member was parked in a sync and is answered now."""
        future = member.awaiting_sync_future()
        if future is not None:
            future.complete(response)
            member.set_awaiting_sync_future(None)
            return True
        return False

    def complete_all_sync_futures(self, error: Errors) -> None:
        for member in list(self._members.values()):
            self.complete_sync_future(member, sync_group_response(error_code=ErrorCode(error.code)))

    def init_next_generation(self) -> None:
        """A new generation: with members, a protocol is chosen and the leader's assignment is awaited; without,
        the group is empty."""
        self._generation_id += 1
        if self._members:
            self.set_protocol_name(self.select_protocol())
            self._subscribed_topics = self.compute_subscribed_topics()
            self.transition_to(COMPLETING_REBALANCE)
        else:
            self.set_protocol_name(None)
            self._subscribed_topics = self.compute_subscribed_topics()
            self.transition_to(EMPTY)
        self.clear_pending_sync_members()

    def current_classic_group_members(self) -> list[JoinGroupResponseMember]:
        """The members as the leader's JoinGroup response lists them, with their metadata for the chosen
        protocol."""
        if self.is_in_state(DEAD) or self.is_in_state(PREPARING_REBALANCE):
            raise IllegalStateException(
                f"Cannot obtain classic member metadata for group {self._group_id} in state {self._state}")

        return [JoinGroupResponseMember(member_id=member.member_id(),
                                        group_instance_id=member.group_instance_id(),
                                        metadata=member.metadata(self._protocol_name))
                for member in self._members.values()]

    def as_listed_group(self, committed_offset: int) -> ListedGroup:
        return ListedGroup(
            group_id=self._group_id,
            protocol_type=self._protocol_type or "",
            group_state=str(self._state),
            group_type=str(self.type()),
        )

    def group_assignment(self) -> dict[str, bytes | None]:
        """Every member's assignment, by member id."""
        return {member.member_id(): member.assignment() for member in self._members.values()}

    @staticmethod
    def from_consumer_group(consumer_group: ConsumerGroup, leaving_member_id: str, log_context: str, time: Time,
                            metadata_image: MetadataImage) -> ClassicGroup:
        """The downgrade of a consumer group whose last consumer-protocol member (leaving_member_id) leaves:
        the remaining (classic-protocol) members, each with its target assignment serialized in the consumer
        protocol version of its own metadata, in a stable group of the same epoch."""
        classic_group = ClassicGroup(
            log_context,
            consumer_group.group_id(),
            STABLE,
            time,
            consumer_group.group_epoch(),
            consumer_protocol.PROTOCOL_TYPE,
            None,
            None,
            time.milliseconds(),
        )

        for member_id, member in consumer_group.members().items():
            if member_id != leaving_member_id:
                classic_group.add(ClassicGroupMember(
                    member_id,
                    member.instance_id(),
                    member.client_id(),
                    member.client_host(),
                    member.rebalance_timeout_ms(),
                    _get(member.classic_protocol_session_timeout()),
                    consumer_protocol.PROTOCOL_TYPE,
                    member.supported_join_group_request_protocols(),
                    None,
                ))

        classic_group.set_protocol_name(classic_group.select_protocol())
        classic_group.set_subscribed_topics(classic_group.compute_subscribed_topics())

        for classic_group_member in classic_group.all_members():
            version = consumer_protocol.deserialize_version(
                ByteBuffer.wrap(classic_group_member.metadata(classic_group.protocol_name() or "")))
            assignment = consumer_protocol.serialize_assignment(
                to_consumer_protocol_assignment(
                    consumer_group.target_assignment().get(classic_group_member.member_id()).partitions(),
                    metadata_image.topics,
                ),
                version,
            )
            classic_group_member.set_assignment(bytes(assignment.array()))

        return classic_group

    def create_classic_group_records(self, metadata_version: MetadataVersion,
                                     records: list[CoordinatorRecord]) -> None:
        """Appends the record that writes this whole group (after a downgrade from a consumer group)."""
        assignments = {member.member_id(): member.assignment() for member in self._members.values()}
        records.append(coordinator_record_helpers.new_group_metadata_record(self, assignments, metadata_version))

    def _assert_valid_transition(self, target_state: ClassicGroupState) -> None:
        if self._state not in target_state.valid_previous_states():
            raise IllegalStateException(
                f"Group {self._group_id} should be in one of "
                f"{sorted(str(s) for s in target_state.valid_previous_states())} states before moving to "
                f"{target_state} state. Instead it is in {self._state} state.")

    def __repr__(self) -> str:
        return (f"ClassicGroupMetadata(groupId={self._group_id}, generation={self._generation_id}, "
                f"protocolType={self._protocol_type}, currentState={self._state}, members={self._members})")


def to_consumer_protocol_assignment(assignment: Any, topics_image: TopicsImage) -> Any:
    """Kafka's group Utils.toConsumerProtocolAssignment (only ClassicGroup uses it here): topic ids to names
    through the image; a topic the image does not know is left out."""
    topic_partitions = []
    for topic_id, partitions in assignment.items():
        topic_image = topics_image.get_topic(topic_id)
        if topic_image is not None:
            topic_partitions.append(consumer_protocol.ConsumerProtocolAssignmentTopicPartition(
                # Kafka copies a HashSet of small ints, which iterates in ascending order
                topic=topic_image.name, partitions=tuple(sorted(partitions))))
    return consumer_protocol.ConsumerProtocolAssignment(assigned_partitions=tuple(topic_partitions))


def _add(target: set[str], value: str) -> bool:
    """Java's Set.add: True if the value was not there."""
    if value in target:
        return False
    target.add(value)
    return True


def _get(value: int | None) -> int:
    """Java's Optional.get: the value, or NoSuchElementException (a ValueError here) when there is none."""
    if value is None:
        raise ValueError("No value present")
    return value
