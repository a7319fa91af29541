"""Port of raft/src/main/java/org/apache/kafka/raft/Endpoints.java (Kafka 3.9): a replica's listeners."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from kio.schema.voters_record.v0.data import Endpoint as VotersRecordEndpoint
from kio.static.primitive import u16

InetSocketAddress = tuple[str, int]


@dataclass(frozen=True)
class Endpoints:
    """Listener name -> (host, port). Static voters know one listener each, the first of controller.listener.names."""

    endpoints: Mapping[str, InetSocketAddress] = field(default_factory=dict)

    @staticmethod
    def empty() -> Endpoints:
        return _EMPTY

    @staticmethod
    def from_inet_socket_addresses(addresses: Mapping[str, InetSocketAddress]) -> Endpoints:
        return Endpoints(dict(addresses))

    def address(self, listener: str) -> InetSocketAddress | None:
        return self.endpoints.get(listener)

    def voters_record_endpoints(self) -> list[VotersRecordEndpoint]:
        """The endpoints of a VotersRecord voter (KIP-853)."""
        return [VotersRecordEndpoint(name=name, host=host, port=u16(port))
                for name, (host, port) in self.endpoints.items()]

    def is_empty(self) -> bool:
        return not self.endpoints

    def size(self) -> int:
        return len(self.endpoints)

    def __hash__(self) -> int:
        return hash(tuple(sorted(self.endpoints.items())))

    def to_leader_endpoints(self) -> list[dict[str, Any]]:
        """The `leaderEndpoints` of a BeginQuorumEpoch/EndQuorumEpoch request (v1)."""
        return [{"name": name, "host": host, "port": port} for name, (host, port) in self.endpoints.items()]

    def to_node_endpoints(self, leader_id: int, listener: str) -> list[dict[str, Any]]:
        """The `nodeEndpoints` of a response (v1): the leader's address on the listener the request came in on."""
        address = self.endpoints.get(listener)
        return [] if address is None else [{"node_id": leader_id, "host": address[0], "port": address[1]}]

    @staticmethod
    def from_voters_record_endpoints(endpoints: Iterable[Any]) -> Endpoints:
        return Endpoints({e.name: (e.host, int(e.port)) for e in endpoints})

    @staticmethod
    def from_leader_endpoints(leader_endpoints: Iterable[Any]) -> Endpoints:
        return Endpoints({e.name: (e.host, int(e.port)) for e in leader_endpoints})

    @staticmethod
    def from_node_endpoints(listener: str, leader_id: int, node_endpoints: Iterable[Any]) -> Endpoints:
        for e in node_endpoints:
            if int(e.node_id) == leader_id:
                return Endpoints({listener: (e.host, int(e.port))})
        return _EMPTY

    def to_add_voter_request(self) -> list[dict[str, Any]]:
        return [{"name": name, "host": host, "port": port} for name, (host, port) in self.endpoints.items()]

    def to_update_voter_request(self) -> list[dict[str, Any]]:
        return [{"name": name, "host": host, "port": port} for name, (host, port) in self.endpoints.items()]

    @staticmethod
    def from_add_voter_request(listeners: Iterable[Any]) -> Endpoints:
        return Endpoints({e.name: (e.host, int(e.port)) for e in listeners})

    @staticmethod
    def from_update_voter_request(listeners: Iterable[Any]) -> Endpoints:
        return Endpoints({e.name: (e.host, int(e.port)) for e in listeners})

    def __str__(self) -> str:
        return f"Endpoints(endpoints={dict(self.endpoints)})"


_EMPTY = Endpoints({})
