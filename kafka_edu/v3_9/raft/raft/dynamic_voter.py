"""Port of raft/src/main/java/org/apache/kafka/raft/DynamicVoter.java (Kafka 3.9).

One KIP-853 initial voter as `kafka-storage format --initial-controllers` spells it: `id@host:port:directoryId`,
the host in brackets when it is an IPv6 address.
"""

from __future__ import annotations

from dataclasses import dataclass

from kafka_edu.v1_0_2.clients.common.errors import IllegalArgumentException
from kafka_edu.v3_9.clients.common.feature.supported_version_range import SupportedVersionRange
from kafka_edu.v3_9.clients.common.network.listener_name import ListenerName
from kafka_edu.v3_9.clients.common.uuid import Uuid
from kafka_edu.v3_9.raft.raft.endpoints import Endpoints
from kafka_edu.v3_9.raft.raft.replica_key import ReplicaKey
from kafka_edu.v3_9.raft.raft.voter_set import VoterNode
from kafka_edu.v3_9.server_common.server.common.checkpoint_file import parse_integer


@dataclass(frozen=True)
class DynamicVoter:
    directory_id: Uuid
    node_id: int
    host: str
    port: int

    @staticmethod
    def parse(input: str) -> DynamicVoter:
        """IllegalArgumentException naming the part that is wrong."""
        input = input.strip()
        at_index = input.find("@")
        if at_index < 0:
            raise IllegalArgumentException("No @ found in dynamic voter string.")
        if at_index == 0:
            raise IllegalArgumentException("Invalid @ at beginning of dynamic voter string.")
        try:
            node_id = parse_integer(input[:at_index])  # Integer.parseInt
        except IllegalArgumentException as e:
            raise IllegalArgumentException("Failed to parse node id in dynamic voter string.") from e
        if node_id < 0:
            raise IllegalArgumentException(f"Invalid negative node id {node_id} in dynamic voter string.")
        input = input[at_index + 1:]
        if not input:
            raise IllegalArgumentException("No hostname found after node id.")
        if input.startswith("["):
            # an IPv6 address has colons of its own: the brackets say where it ends
            end_bracket_index = input.find("]")
            if end_bracket_index < 0:
                raise IllegalArgumentException("Hostname began with left bracket, but no right bracket was found.")
            host = input[1:end_bracket_index]
            input = input[end_bracket_index + 1:]
        else:
            end_colon_index = input.find(":")
            if end_colon_index < 0:
                raise IllegalArgumentException("No colon following hostname could be found.")
            host = input[:end_colon_index]
            input = input[end_colon_index:]
        if not input.startswith(":"):
            raise IllegalArgumentException("Port section must start with a colon.")
        input = input[1:]
        end_colon_index = input.find(":")
        if end_colon_index < 0:
            raise IllegalArgumentException("No colon following port could be found.")
        try:
            port = parse_integer(input[:end_colon_index])
        except IllegalArgumentException as e:
            raise IllegalArgumentException("Failed to parse port in dynamic voter string.") from e
        if port < 0 or port > 65535:
            raise IllegalArgumentException(f"Invalid port {port} in dynamic voter string.")
        try:
            directory_id = Uuid.from_string(input[end_colon_index + 1:])
        except IllegalArgumentException as e:
            raise IllegalArgumentException("Failed to parse directory ID in dynamic voter string.") from e
        return DynamicVoter(directory_id, node_id, host, port)

    def to_voter_node(self, controller_listener_name: str) -> VoterNode:
        """The voter as VoterSet holds it: one endpoint, on the controller listener; an initial voter is taken to
        support kraft.version 0 to 1."""
        voter_key = ReplicaKey.of(self.node_id, self.directory_id)
        listeners = Endpoints.from_inet_socket_addresses(
            {ListenerName.normalised(controller_listener_name).value(): (self.host, self.port)})
        supported_kraft_version = SupportedVersionRange(0, 1)
        return VoterNode.of(voter_key, listeners, supported_kraft_version)

    def __str__(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{self.node_id}@{host}:{self.port}:{self.directory_id}"
