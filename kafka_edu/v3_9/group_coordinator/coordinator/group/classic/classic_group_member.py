"""Port of group-coordinator/src/main/java/org/apache/kafka/coordinator/group/classic/ClassicGroupMember.java
(Kafka 3.9).

Kafka's wire messages are kio's: the supported protocols are a list of JoinGroup (v9) JoinGroupRequestProtocol (Java's
JoinGroupRequestProtocolCollection compares as an ordered list, and so does this), the join and sync futures
complete with JoinGroup (v9) and SyncGroup (v5) responses, a described member is DescribeGroups (v5)
DescribedGroupMember. Java's Optional<String> group instance id is `str | None`; byte[] is bytes.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence, Set

from kio.schema.describe_groups.v5.response import DescribedGroupMember
from kio.schema.join_group.v9.request import JoinGroupRequestProtocol
from kio.schema.join_group.v9.response import JoinGroupResponse
from kio.schema.sync_group.v5.response import SyncGroupResponse

from kafka_edu.v1_0_2.clients.common.errors import IllegalArgumentException
from kafka_edu.v3_9.raft.raft.internals.completable_future import CompletableFuture

EMPTY_ASSIGNMENT = b""


class ClassicGroupMember:
    """One member of a classic group: what it sent in its last JoinGroup (timeouts, protocols and their metadata),
    the assignment the leader gave it, and the JoinGroup/SyncGroup responses it is parked on during a rebalance."""

    EMPTY_ASSIGNMENT = EMPTY_ASSIGNMENT

    def __init__(self, member_id: str, group_instance_id: str | None, client_id: str, client_host: str,
                 rebalance_timeout_ms: int, session_timeout_ms: int, protocol_type: str,
                 supported_protocols: Sequence[JoinGroupRequestProtocol],
                 assignment: bytes | None = EMPTY_ASSIGNMENT) -> None:
        """Kafka's two constructors: without an assignment the member starts with the empty one."""
        self._member_id = member_id
        self._group_instance_id = group_instance_id
        self._client_id = client_id
        self._client_host = client_host
        self._rebalance_timeout_ms = rebalance_timeout_ms
        self._session_timeout_ms = session_timeout_ms
        self._protocol_type = protocol_type
        self._supported_protocols: list[JoinGroupRequestProtocol] = list(supported_protocols)
        self._assignment = assignment
        self._awaiting_join_future: CompletableFuture[JoinGroupResponse] | None = None
        self._awaiting_sync_future: CompletableFuture[SyncGroupResponse] | None = None
        self._is_new = False

    def is_static_member(self) -> bool:
        return self._group_instance_id is not None

    def is_awaiting_join(self) -> bool:
        return self._awaiting_join_future is not None

    def is_awaiting_sync(self) -> bool:
        return self._awaiting_sync_future is not None

    def metadata(self, protocol_name: str | None) -> bytes:
        """The metadata the member sent for that protocol."""
        for protocol in self._supported_protocols:
            if protocol.name == protocol_name:
                return protocol.metadata
        raise IllegalArgumentException(f"Member does not support protocol {protocol_name}")

    def has_satisfied_heartbeat(self) -> bool:
        """A member parked in a join or sync counts as heartbeating, unless it is new: a new member that never
        completes its join must still be able to expire."""
        if self._is_new:
            return False
        return self.is_awaiting_join() or self.is_awaiting_sync()

    def matches(self, protocols: Iterable[JoinGroupRequestProtocol]) -> bool:
        """Whether these are exactly the member's protocols, metadata and order included."""
        return list(protocols) == self._supported_protocols

    def vote(self, candidates: Set[str]) -> str:
        """The member's most preferred protocol among the candidates (its protocols are in preference order)."""
        for protocol in self._supported_protocols:
            if protocol.name in candidates:
                return protocol.name
        raise IllegalArgumentException("Member does not support any of the candidate protocols")

    @staticmethod
    def plain_protocol_set(supported_protocols: Iterable[JoinGroupRequestProtocol]) -> set[str]:
        return {protocol.name for protocol in supported_protocols}

    def has_assignment(self) -> bool:
        return self._assignment is not None and len(self._assignment) > 0

    def member_id(self) -> str:
        return self._member_id

    def group_instance_id(self) -> str | None:
        return self._group_instance_id

    def client_id(self) -> str:
        return self._client_id

    def client_host(self) -> str:
        return self._client_host

    def rebalance_timeout_ms(self) -> int:
        return self._rebalance_timeout_ms

    def session_timeout_ms(self) -> int:
        return self._session_timeout_ms

    def protocol_type(self) -> str:
        return self._protocol_type

    def supported_protocols(self) -> list[JoinGroupRequestProtocol]:
        return self._supported_protocols

    def assignment(self) -> bytes | None:
        return self._assignment

    def awaiting_join_future(self) -> CompletableFuture[JoinGroupResponse] | None:
        return self._awaiting_join_future

    def awaiting_sync_future(self) -> CompletableFuture[SyncGroupResponse] | None:
        return self._awaiting_sync_future

    def is_new(self) -> bool:
        return self._is_new

    def describe_no_metadata(self) -> DescribedGroupMember:
        # Kafka's generated message starts with empty member metadata
        return DescribedGroupMember(
            member_id=self._member_id,
            group_instance_id=self._group_instance_id,
            client_id=self._client_id,
            client_host=self._client_host,
            member_metadata=b"",
            member_assignment=self._assignment,
        )

    def describe(self, protocol_name: str) -> DescribedGroupMember:
        return dataclasses.replace(self.describe_no_metadata(), member_metadata=self.metadata(protocol_name))

    def set_rebalance_timeout_ms(self, value: int) -> None:
        self._rebalance_timeout_ms = value

    def set_session_timeout_ms(self, value: int) -> None:
        self._session_timeout_ms = value

    def set_supported_protocols(self, value: Sequence[JoinGroupRequestProtocol]) -> None:
        self._supported_protocols = list(value)

    def set_assignment(self, value: bytes | None) -> None:
        self._assignment = value

    def set_awaiting_join_future(self, value: CompletableFuture[JoinGroupResponse] | None) -> None:
        self._awaiting_join_future = value

    def set_awaiting_sync_future(self, value: CompletableFuture[SyncGroupResponse] | None) -> None:
        self._awaiting_sync_future = value

    def set_is_new(self, value: bool) -> None:
        self._is_new = value

    def __repr__(self) -> str:
        return (f"ClassicGroupMember(memberId='{self._member_id}', "
                f"groupInstanceId='{self._group_instance_id or ''}', clientId='{self._client_id}', "
                f"clientHost='{self._client_host}', rebalanceTimeoutMs={self._rebalance_timeout_ms}, "
                f"sessionTimeoutMs={self._session_timeout_ms}, protocolType='{self._protocol_type}', "
                f"supportedProtocols={[protocol.name for protocol in self._supported_protocols]})")
