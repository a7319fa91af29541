"""Port of raft/src/main/java/org/apache/kafka/raft/QuorumConfig.java (Kafka 3.9)."""

from __future__ import annotations

import re
from typing import Any

from kafka_edu.v1_0_2.clients.common.config.config_def import AbstractConfig, ConfigDef, ConfigException, Type
from kafka_edu.v1_0_2.clients.common.errors import IllegalArgumentException

# The raft timeouts are short next to request.timeout.ms on purpose: a controller fails over to a hot standby that
# already holds the metadata, so changing leaders is meant to be quick.
QUORUM_PREFIX = "controller.quorum."

# An endpoint that names no node in particular: a voter cannot be reached there.
NON_ROUTABLE_HOST = "0.0.0.0"

QUORUM_VOTERS_CONFIG = QUORUM_PREFIX + "voters"
DEFAULT_QUORUM_VOTERS: list[str] = []

QUORUM_BOOTSTRAP_SERVERS_CONFIG = QUORUM_PREFIX + "bootstrap.servers"
DEFAULT_QUORUM_BOOTSTRAP_SERVERS: list[str] = []

QUORUM_ELECTION_TIMEOUT_MS_CONFIG = QUORUM_PREFIX + "election.timeout.ms"
DEFAULT_QUORUM_ELECTION_TIMEOUT_MS = 1_000

QUORUM_FETCH_TIMEOUT_MS_CONFIG = QUORUM_PREFIX + "fetch.timeout.ms"
DEFAULT_QUORUM_FETCH_TIMEOUT_MS = 2_000

QUORUM_ELECTION_BACKOFF_MAX_MS_CONFIG = QUORUM_PREFIX + "election.backoff.max.ms"
DEFAULT_QUORUM_ELECTION_BACKOFF_MAX_MS = 1_000

QUORUM_LINGER_MS_CONFIG = QUORUM_PREFIX + "append.linger.ms"
DEFAULT_QUORUM_LINGER_MS = 25

QUORUM_REQUEST_TIMEOUT_MS_CONFIG = QUORUM_PREFIX + "request.timeout.ms"
DEFAULT_QUORUM_REQUEST_TIMEOUT_MS = 2_000

QUORUM_RETRY_BACKOFF_MS_CONFIG = QUORUM_PREFIX + "retry.backoff.ms"
DEFAULT_QUORUM_RETRY_BACKOFF_MS = 20

# Utils.HOST_PORT_PATTERN / VALID_HOST_CHARACTERS: "host:port", "[ipv6]:port", an optional "scheme://" in front.
_HOST_PORT_PATTERN = re.compile(r"(?:[0-9a-zA-Z\-%._]*://)?\[?([0-9a-zA-Z\-%._:]*)]?:([0-9]+)")
_VALID_HOST_CHARACTERS = re.compile(r"[0-9a-zA-Z\-%._:]*")
_JAVA_INT = re.compile(r"[+-]?[0-9]+")

InetSocketAddress = tuple[str, int]  # (host string, port), as Python's socket calls take it


def _get_host(address: str) -> str | None:
    match = _HOST_PORT_PATTERN.fullmatch(address)
    return match.group(1) if match else None


def _get_port(address: str) -> int | None:
    match = _HOST_PORT_PATTERN.fullmatch(address)
    return int(match.group(2)) if match else None


def _valid_host_pattern(address: str) -> bool:
    return _VALID_HOST_CHARACTERS.fullmatch(address) is not None


def _inet_socket_address(host: str, port: int) -> InetSocketAddress:
    if not 0 <= port <= 0xFFFF:
        raise IllegalArgumentException(f"port out of range:{port}")
    return host, port


class QuorumConfig:
    """The `controller.quorum.*` settings a KRaft replica runs with, read from the server's configuration."""

    def __init__(self, abstract_config: AbstractConfig) -> None:
        self._voters: list[str] = abstract_config.get_list(QUORUM_VOTERS_CONFIG)
        self._bootstrap_servers: list[str] = abstract_config.get_list(QUORUM_BOOTSTRAP_SERVERS_CONFIG)
        self._request_timeout_ms: int = abstract_config.get_int(QUORUM_REQUEST_TIMEOUT_MS_CONFIG)
        self._retry_backoff_ms: int = abstract_config.get_int(QUORUM_RETRY_BACKOFF_MS_CONFIG)
        self._election_timeout_ms: int = abstract_config.get_int(QUORUM_ELECTION_TIMEOUT_MS_CONFIG)
        self._election_backoff_max_ms: int = abstract_config.get_int(QUORUM_ELECTION_BACKOFF_MAX_MS_CONFIG)
        self._fetch_timeout_ms: int = abstract_config.get_int(QUORUM_FETCH_TIMEOUT_MS_CONFIG)
        self._append_linger_ms: int = abstract_config.get_int(QUORUM_LINGER_MS_CONFIG)

    @classmethod
    def of(cls, request_timeout_ms: int, retry_backoff_ms: int, election_timeout_ms: int,
           election_backoff_max_ms: int, fetch_timeout_ms: int, append_linger_ms: int) -> QuorumConfig:
        """3.9's QuorumConfig(requestTimeoutMs, retryBackoffMs, electionTimeoutMs, electionBackoffMaxMs,
        fetchTimeoutMs, appendLingerMs): the timeouts alone, no voters or bootstrap servers (tests build it so)."""
        config = cls.__new__(cls)
        config._voters = []
        config._bootstrap_servers = []
        config._request_timeout_ms = request_timeout_ms
        config._retry_backoff_ms = retry_backoff_ms
        config._election_timeout_ms = election_timeout_ms
        config._election_backoff_max_ms = election_backoff_max_ms
        config._fetch_timeout_ms = fetch_timeout_ms
        config._append_linger_ms = append_linger_ms
        return config

    def voters(self) -> list[str]:
        return self._voters

    def bootstrap_servers(self) -> list[str]:
        return self._bootstrap_servers

    def request_timeout_ms(self) -> int:
        return self._request_timeout_ms

    def retry_backoff_ms(self) -> int:
        return self._retry_backoff_ms

    def election_timeout_ms(self) -> int:
        return self._election_timeout_ms

    def election_backoff_max_ms(self) -> int:
        return self._election_backoff_max_ms

    def fetch_timeout_ms(self) -> int:
        return self._fetch_timeout_ms

    def append_linger_ms(self) -> int:
        return self._append_linger_ms

    @staticmethod
    def _parse_voter_id(id_string: str) -> int:
        if _JAVA_INT.fullmatch(id_string) is None or not -(2**31) <= int(id_string) < 2**31:
            raise ConfigException(f"Failed to parse voter ID as an integer from {id_string}")
        return int(id_string)

    @staticmethod
    def parse_voter_connections(voter_entries: list[str],
                                require_routable_addresses: bool = True) -> dict[int, InetSocketAddress]:
        """`controller.quorum.voters` = `id@host:port,...` -> {id: (host, port)}, in the order given."""
        voter_map: dict[int, InetSocketAddress] = {}
        for voter_map_entry in voter_entries:
            id_and_address = voter_map_entry.split("@")
            while id_and_address and id_and_address[-1] == "":  # String.split drops trailing empty strings
                id_and_address.pop()
            if len(id_and_address) != 2:
                raise ConfigException(f"Invalid configuration value for {QUORUM_VOTERS_CONFIG}. Each entry should "
                                      "be in the form `{id}@{host}:{port}`.")
            voter_id = QuorumConfig._parse_voter_id(id_and_address[0])
            host = _get_host(id_and_address[1])
            if host is None or not _valid_host_pattern(host):
                raise ConfigException(f"Failed to parse host name from entry {voter_map_entry} for the "
                                      f"configuration {QUORUM_VOTERS_CONFIG}. Each entry should be in the form "
                                      "`{id}@{host}:{port}`.")
            port = _get_port(id_and_address[1])
            if port is None:
                raise ConfigException(f"Failed to parse host port from entry {voter_map_entry} for the "
                                      f"configuration {QUORUM_VOTERS_CONFIG}. Each entry should be in the form "
                                      "`{id}@{host}:{port}`.")
            address = _inet_socket_address(host, port)
            if address[0] == NON_ROUTABLE_HOST and require_routable_addresses:
                raise ConfigException(f"Host string ({address[0]}) is not routeable")
            voter_map[voter_id] = address
        return voter_map

    @staticmethod
    def parse_voter_ids(voter_entries: list[str]) -> set[int]:
        """The voters' ids only: the meta-address is allowed here (a config check, not a connection)."""
        return set(QuorumConfig.parse_voter_connections(voter_entries, False))

    @staticmethod
    def parse_bootstrap_servers(bootstrap_servers: list[str]) -> list[InetSocketAddress]:
        return [QuorumConfig._parse_bootstrap_server(server) for server in bootstrap_servers]

    @staticmethod
    def _parse_bootstrap_server(bootstrap_server: str) -> InetSocketAddress:
        host = _get_host(bootstrap_server)
        if host is None or not _valid_host_pattern(host):
            raise ConfigException(f"Failed to parse host name from {bootstrap_server} for the configuration "
                                  f"{QUORUM_BOOTSTRAP_SERVERS_CONFIG}. Each entry should be in the form "
                                  '"{host}:{port}"')
        port = _get_port(bootstrap_server)
        if port is None:
            raise ConfigException(f"Failed to parse host port from {bootstrap_server} for the configuration "
                                  f"{QUORUM_BOOTSTRAP_SERVERS_CONFIG}. Each entry should be in the form "
                                  '"{host}:{port}"')
        return _inet_socket_address(host, port)

    @staticmethod
    def quorum_voter_strings_to_nodes(voters: list[str]) -> list[tuple[int, str, int]]:
        """The voters as (id, host, port) nodes, for clients that connect to the controllers."""
        return QuorumConfig.voter_connections_to_nodes(QuorumConfig.parse_voter_connections(voters))

    @staticmethod
    def voter_connections_to_nodes(voter_connections: dict[int, InetSocketAddress]) -> list[tuple[int, str, int]]:
        return [(voter_id, host, port) for voter_id, (host, port) in voter_connections.items()]


def _controller_quorum_voters_validator(name: str, value: Any) -> None:
    """ControllerQuorumVotersValidator: a voters list must at least parse (routable or not) when it is read."""
    if value is None:
        raise ConfigException(name, None)
    QuorumConfig.parse_voter_connections(value, False)


def _controller_quorum_bootstrap_servers_validator(name: str, value: Any) -> None:
    if value is None:
        raise ConfigException(name, None)
    for entry in value:
        QuorumConfig._parse_bootstrap_server(entry)


CONFIG_DEF = (
    ConfigDef()
    .define(QUORUM_VOTERS_CONFIG, Type.LIST, DEFAULT_QUORUM_VOTERS, _controller_quorum_voters_validator)
    .define(QUORUM_BOOTSTRAP_SERVERS_CONFIG, Type.LIST, DEFAULT_QUORUM_BOOTSTRAP_SERVERS,
            _controller_quorum_bootstrap_servers_validator)
    .define(QUORUM_ELECTION_TIMEOUT_MS_CONFIG, Type.INT, DEFAULT_QUORUM_ELECTION_TIMEOUT_MS)
    .define(QUORUM_FETCH_TIMEOUT_MS_CONFIG, Type.INT, DEFAULT_QUORUM_FETCH_TIMEOUT_MS)
    .define(QUORUM_ELECTION_BACKOFF_MAX_MS_CONFIG, Type.INT, DEFAULT_QUORUM_ELECTION_BACKOFF_MAX_MS)
    .define(QUORUM_LINGER_MS_CONFIG, Type.INT, DEFAULT_QUORUM_LINGER_MS)
    .define(QUORUM_REQUEST_TIMEOUT_MS_CONFIG, Type.INT, DEFAULT_QUORUM_REQUEST_TIMEOUT_MS)
    .define(QUORUM_RETRY_BACKOFF_MS_CONFIG, Type.INT, DEFAULT_QUORUM_RETRY_BACKOFF_MS)
)
