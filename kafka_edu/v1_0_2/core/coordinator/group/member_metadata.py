"""Port of core/src/main/scala/kafka/coordinator/group/MemberMetadata.scala (read: Kafka 0.11.0.0, unchanged in 1.0)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from kafka_edu.v1_0_2.clients.common.errors import IllegalArgumentException
from kafka_edu.v3_9.clients.common.protocol.errors import Errors

if TYPE_CHECKING:
    from kafka_edu.v1_0_2.core.coordinator.group.group_coordinator import JoinGroupResult


@dataclass(frozen=True)
class MemberSummary:
    """One member as DescribeGroups shows it."""

    member_id: str
    client_id: str
    client_host: str
    metadata: bytes
    assignment: bytes


class MemberMetadata:
    """One member of a group: its session, the assignors it supports (with their metadata, in preference order),
    and the JoinGroup / SyncGroup response it is waiting for, if any."""

    def __init__(self, member_id: str, group_id: str, client_id: str, client_host: str, rebalance_timeout_ms: int,
                 session_timeout_ms: int, protocol_type: str, supported_protocols: list[tuple[str, bytes]]) -> None:
        self.member_id = member_id
        self.group_id = group_id
        self.client_id = client_id
        self.client_host = client_host
        self.rebalance_timeout_ms = rebalance_timeout_ms
        self.session_timeout_ms = session_timeout_ms
        self.protocol_type = protocol_type
        self.supported_protocols = list(supported_protocols)
        # The member's share of the group's state, as the leader assigned it in SyncGroup.
        self.assignment: bytes = b""
        # Set while the member's JoinGroup waits for the rebalance to complete.
        self.awaiting_join_callback: Callable[[JoinGroupResult], None] | None = None
        # Set while the member's SyncGroup waits for the leader's assignment.
        self.awaiting_sync_callback: Callable[[bytes, Errors], None] | None = None
        # When the coordinator last heard from the member (ms).
        self.latest_heartbeat: int = -1
        # Set by LeaveGroup so the pending heartbeat expectation completes at once.
        self.is_leaving = False

    @property
    def protocols(self) -> set[str]:
        return {name for name, _ in self.supported_protocols}

    def metadata(self, protocol: str) -> bytes:
        """The member's metadata for one protocol."""
        for name, metadata in self.supported_protocols:
            if name == protocol:
                return metadata
        raise IllegalArgumentException("Member does not support protocol")

    def matches(self, protocols: list[tuple[str, bytes]]) -> bool:
        """Same protocols, same order, same metadata bytes as stored."""
        if len(protocols) != len(self.supported_protocols):
            return False
        for (name1, metadata1), (name2, metadata2) in zip(protocols, self.supported_protocols, strict=True):
            if name1 != name2 or bytes(metadata1) != bytes(metadata2):
                return False
        return True

    def summary(self, protocol: str) -> MemberSummary:
        return MemberSummary(self.member_id, self.client_id, self.client_host, self.metadata(protocol),
                             self.assignment)

    def summary_no_metadata(self) -> MemberSummary:
        return MemberSummary(self.member_id, self.client_id, self.client_host, b"", b"")

    def vote(self, candidates: set[str]) -> str:
        """The member's most preferred protocol among the candidates."""
        for name, _ in self.supported_protocols:
            if name in candidates:
                return name
        raise IllegalArgumentException("Member does not support any of the candidate protocols")

    def __repr__(self) -> str:
        return (f"MemberMetadata(memberId={self.member_id}, clientId={self.client_id}, clientHost={self.client_host}, "
                f"sessionTimeoutMs={self.session_timeout_ms}, rebalanceTimeoutMs={self.rebalance_timeout_ms}, "
                f"supportedProtocols={[name for name, _ in self.supported_protocols]})")
