"""Port of core/src/main/scala/kafka/server/KafkaConfig.scala (Kafka 1.0.2), with the KRaft configs and checks of
Kafka 3.9 (KRaftConfigs.java, QuorumConfig.java and KafkaConfig.validateValues)."""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Any

from kafka_edu.v1_0_2.clients.common.config.config_def import (
    DOUBLE_MAX,
    INT_MAX,
    LONG_MAX,
    AbstractConfig,
    ConfigDef,
    ConfigException,
    Range,
    Type,
    ValidList,
    ValidString,
)
from kafka_edu.v1_0_2.clients.common.errors import IllegalArgumentException, KafkaException
from kafka_edu.v3_9.raft.raft import quorum_config
from kafka_edu.v3_9.raft.raft.quorum_config import QuorumConfig
from kafka_edu.v3_9.server_common.server.common.metadata_version import MINIMUM_KRAFT_VERSION, MetadataVersion

__all__ = ["ConfigException", "EndPoint", "IllegalArgumentException", "KafkaConfig", "KafkaException", "ProcessRole",
           "api_version", "api_version_at_least"]

log = logging.getLogger("kafka.server.KafkaConfig")


class ProcessRole(Enum):
    """org.apache.kafka.server.ProcessRole (Kafka 3.9): what a KRaft node runs, from `process.roles`."""

    BROKER_ROLE = "broker"
    CONTROLLER_ROLE = "controller"

    def __str__(self) -> str:
        return self.value


def _require(condition: bool, message: str) -> None:
    if not condition:
        raise IllegalArgumentException(f"requirement failed: {message}")


# --- kafka.api.ApiVersion (1.0.2): every version in release order, with the message format it writes. ---
_API_VERSIONS: tuple[tuple[str, int], ...] = (
    ("0.8.0", 0), ("0.8.1", 0), ("0.8.2", 0), ("0.9.0", 0),
    ("0.10.0-IV0", 1), ("0.10.0-IV1", 1), ("0.10.1-IV0", 1), ("0.10.1-IV1", 1), ("0.10.1-IV2", 1),
    ("0.10.2-IV0", 1), ("0.11.0-IV0", 2), ("0.11.0-IV1", 2), ("0.11.0-IV2", 2), ("1.0-IV0", 2),
)
_API_VERSION_INDEX = {v: i for i, (v, _) in enumerate(_API_VERSIONS)}
# A short version ("0.10.0", "1.0") names the newest internal version of that release.
_API_VERSION_MAP = {**{v.split("-")[0]: v for v, _ in _API_VERSIONS}, **{v: v for v, _ in _API_VERSIONS}}
LATEST_API_VERSION = _API_VERSIONS[-1][0]


def api_version(version_string: str) -> str:
    """`ApiVersion.apply`: "0.10.0" -> "0.10.0-IV1", "1.0.2" -> "1.0-IV0"; unknown versions are rejected."""
    segments = version_string.split(".")
    key = ".".join(segments[: 3 if version_string.startswith("0.") else 2])
    if key not in _API_VERSION_MAP:
        raise IllegalArgumentException(f"Version `{version_string}` is not a valid version")
    return _API_VERSION_MAP[key]


def api_version_at_least(version: str, minimum: str) -> bool:
    """`version >= minimum` in ApiVersion order (both may be short or full version strings)."""
    return _API_VERSION_INDEX[api_version(version)] >= _API_VERSION_INDEX[api_version(minimum)]


def _message_format_version(version: str) -> int:
    return _API_VERSIONS[_API_VERSION_INDEX[version]][1]


def _min_version_for_message_format(message_format: int) -> str:
    return {0: "0.8.0", 1: "0.10.0", 2: "0.11.0"}[message_format]


# --- org.apache.kafka.common.security.auth.SecurityProtocol / kafka.cluster.EndPoint ---
SECURITY_PROTOCOLS = ("PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL")
DEFAULT_SECURITY_PROTOCOL_MAP = {sp: sp for sp in SECURITY_PROTOCOLS}
BROKER_COMPRESSION_OPTIONS = ("uncompressed", "snappy", "lz4", "gzip", "producer")
COMPRESSION_CODECS = {0: "none", 1: "gzip", 2: "snappy", 3: "lz4"}


def _security_protocol_for_name(name: str) -> str:
    """`SecurityProtocol.forName`: case-insensitive; IllegalArgumentException for anything else."""
    upper = name.upper()
    if upper not in SECURITY_PROTOCOLS:
        raise IllegalArgumentException(f"No enum constant SecurityProtocol.{upper}")
    return upper


@dataclass(frozen=True)
class EndPoint:
    """A listener: host (None = default interface), port, listener name and the security protocol it speaks."""

    host: str | None
    port: int
    listener_name: str
    security_protocol: str

    _URI_PARSE_EXP = re.compile(r"^(.*)://\[?([0-9a-zA-Z\-%._:]*)\]?:(-?[0-9]+)")

    @staticmethod
    def parse_listener_name(connection_string: str) -> str:
        """The listener name of "NAME://host:port", upper-cased (3.9's EndPoint.parseListenerName)."""
        match = EndPoint._URI_PARSE_EXP.fullmatch(connection_string)
        if match is None:
            raise KafkaException(f"Unable to parse a listener name from {connection_string}")
        return match.group(1).upper()

    @staticmethod
    def create_end_point(connection_string: str, security_protocol_map: Mapping[str, str] | None = None) -> EndPoint:
        """Parse "LISTENER://host:port" (or "LISTENER://[ipv6]:port"); an empty host means the default interface."""
        protocol_map = DEFAULT_SECURITY_PROTOCOL_MAP if security_protocol_map is None else security_protocol_map
        match = EndPoint._URI_PARSE_EXP.fullmatch(connection_string)
        if match is None:
            raise KafkaException(f"Unable to parse {connection_string} to a broker endpoint")
        listener_name = match.group(1).upper()  # ListenerName.normalised
        if listener_name not in protocol_map:
            raise IllegalArgumentException(f"No security protocol defined for listener {listener_name}")
        host = match.group(2) or None
        return EndPoint(host, int(match.group(3)), listener_name, protocol_map[listener_name])

    def connection_string(self) -> str:
        if self.host is None:
            hostport = f":{self.port}"
        elif ":" in self.host:  # Utils.formatAddress brackets IPv6 literals
            hostport = f"[{self.host}]:{self.port}"
        else:
            hostport = f"{self.host}:{self.port}"
        return f"{self.listener_name}://{hostport}"


# --- kafka.utils.CoreUtils helpers that KafkaConfig calls ---
def parse_csv_list(csv_list: str | None) -> list[str]:
    if not csv_list:
        return []
    return [v for v in re.split(r"\s*,\s*", csv_list) if v != ""]


def parse_csv_map(text: str) -> dict[str, str]:
    """ "a:1, b:2" -> {"a": "1", "b": "2"}; the last colon splits key from value (IPv6 keys keep theirs)."""
    if text == "":
        return {}
    result = {}
    for entry in re.split(r"\s*,\s*", text):
        colon = entry.rfind(":")
        if colon < 0:
            raise IllegalArgumentException("String index out of range: -1")
        result[entry[:colon].strip()] = entry[colon + 1:].strip()
    return result


def listener_list_to_end_points(listeners: str, security_protocol_map: Mapping[str, str]) -> list[EndPoint]:
    try:
        end_points = [EndPoint.create_end_point(s, security_protocol_map) for s in parse_csv_list(listeners)]
    except Exception as e:
        raise IllegalArgumentException(f"Error creating broker listeners from '{listeners}': {e}") from e
    ports_excluding_zero = [ep.port for ep in end_points if ep.port != 0]  # port 0 means "pick one" in tests
    _require(len(set(ports_excluding_zero)) == len(ports_excluding_zero),
             f"Each listener must have a different port, listeners: {listeners}")
    _require(len({ep.listener_name for ep in end_points}) == len(end_points),
             f"Each listener must have a different name, listeners: {listeners}")
    return end_points


MIN_MESSAGE_OVERHEAD = 14  # Message.MinMessageOverhead: crc + magic + attributes + key length + value length
LOG_OVERHEAD = 12  # MessageSet.LogOverhead: offset + size

at_least = Range.at_least

# --- object KafkaConfig: configDef. One line per broker property of 1.0.2: name, type, default, validator. ---
CONFIG_DEF = (
    ConfigDef()
    # ZooKeeper (no longer required at parse time: a KRaft node has none; validate_values checks ZooKeeper mode)
    .define("zookeeper.connect", Type.STRING, None)
    .define("zookeeper.session.timeout.ms", Type.INT, 6000)
    .define("zookeeper.connection.timeout.ms", Type.INT, None)
    .define("zookeeper.sync.time.ms", Type.INT, 2000)
    .define("zookeeper.set.acl", Type.BOOLEAN, False)
    # General
    .define("broker.id.generation.enable", Type.BOOLEAN, True)
    .define("reserved.broker.max.id", Type.INT, 1000, at_least(0))
    .define("broker.id", Type.INT, -1)
    .define("message.max.bytes", Type.INT, 1000000 + LOG_OVERHEAD, at_least(0))
    .define("num.network.threads", Type.INT, 3, at_least(1))
    .define("num.io.threads", Type.INT, 8, at_least(1))
    .define("background.threads", Type.INT, 10, at_least(1))
    .define("queued.max.requests", Type.INT, 500, at_least(1))
    .define("queued.max.request.bytes", Type.LONG, -1)
    .define("request.timeout.ms", Type.INT, 30000)
    # Authorizer
    .define("authorizer.class.name", Type.STRING, "")
    # SimpleAclAuthorizer's own settings: 1.0.2 passes unknown keys through to the authorizer, this port refuses
    # unknown keys, so they are named here (docs/security.md)
    .define("super.users", Type.STRING, None)
    .define("allow.everyone.if.no.acl.found", Type.BOOLEAN, False)
    .define("authorizer.zookeeper.url", Type.STRING, None)
    .define("authorizer.zookeeper.connection.timeout.ms", Type.INT, None)
    .define("authorizer.zookeeper.session.timeout.ms", Type.INT, None)
    # Socket server
    .define("port", Type.INT, 9092)
    .define("host.name", Type.STRING, "")
    .define("listeners", Type.STRING, None)
    .define("advertised.host.name", Type.STRING, None)
    .define("advertised.port", Type.INT, None)
    .define("advertised.listeners", Type.STRING, None)
    .define("listener.security.protocol.map", Type.STRING, ",".join(f"{sp}:{sp}" for sp in SECURITY_PROTOCOLS))
    .define("socket.send.buffer.bytes", Type.INT, 100 * 1024)
    .define("socket.receive.buffer.bytes", Type.INT, 100 * 1024)
    .define("socket.request.max.bytes", Type.INT, 100 * 1024 * 1024, at_least(1))
    .define("max.connections.per.ip", Type.INT, INT_MAX, at_least(1))
    .define("max.connections.per.ip.overrides", Type.STRING, "")
    .define("connections.max.idle.ms", Type.LONG, 10 * 60 * 1000)
    # Socket server, 3.9 (SocketServerConfigs): broker-wide connection limits, listen backlog, auth-failure delay
    .define("max.connections", Type.INT, INT_MAX, at_least(0))
    .define("max.connection.creation.rate", Type.INT, INT_MAX, at_least(0))
    .define("socket.listen.backlog.size", Type.INT, 50, at_least(1))
    .define("connection.failed.authentication.delay.ms", Type.INT, 100, at_least(0))
    # Rack
    .define("broker.rack", Type.STRING, None)
    # Log
    .define("num.partitions", Type.INT, 1, at_least(1))
    .define("log.dir", Type.STRING, "/tmp/kafka-logs")
    .define("log.dirs", Type.STRING, None)
    .define("log.segment.bytes", Type.INT, 1024 * 1024 * 1024, at_least(MIN_MESSAGE_OVERHEAD))
    .define("log.roll.ms", Type.LONG, None)
    .define("log.roll.hours", Type.INT, 24 * 7, at_least(1))
    .define("log.roll.jitter.ms", Type.LONG, None)
    .define("log.roll.jitter.hours", Type.INT, 0, at_least(0))
    .define("log.retention.ms", Type.LONG, None)
    .define("log.retention.minutes", Type.INT, None)
    .define("log.retention.hours", Type.INT, 24 * 7)
    .define("log.retention.bytes", Type.LONG, -1)
    .define("log.retention.check.interval.ms", Type.LONG, 5 * 60 * 1000, at_least(1))
    .define("log.cleanup.policy", Type.LIST, "delete", ValidList.in_("compact", "delete"))
    .define("log.cleaner.threads", Type.INT, 1, at_least(0))
    .define("log.cleaner.io.max.bytes.per.second", Type.DOUBLE, DOUBLE_MAX)
    .define("log.cleaner.dedupe.buffer.size", Type.LONG, 128 * 1024 * 1024)
    .define("log.cleaner.io.buffer.size", Type.INT, 512 * 1024, at_least(0))
    .define("log.cleaner.io.buffer.load.factor", Type.DOUBLE, 0.9)
    .define("log.cleaner.backoff.ms", Type.LONG, 15 * 1000, at_least(0))
    .define("log.cleaner.min.cleanable.ratio", Type.DOUBLE, 0.5)
    .define("log.cleaner.enable", Type.BOOLEAN, True)
    .define("log.cleaner.delete.retention.ms", Type.LONG, 24 * 60 * 60 * 1000)
    .define("log.cleaner.min.compaction.lag.ms", Type.LONG, 0)
    .define("log.index.size.max.bytes", Type.INT, 10 * 1024 * 1024, at_least(4))
    .define("log.index.interval.bytes", Type.INT, 4096, at_least(0))
    .define("log.flush.interval.messages", Type.LONG, LONG_MAX, at_least(1))
    .define("log.segment.delete.delay.ms", Type.LONG, 60000, at_least(0))
    .define("log.flush.scheduler.interval.ms", Type.LONG, LONG_MAX)
    .define("log.flush.interval.ms", Type.LONG, None)
    .define("log.flush.offset.checkpoint.interval.ms", Type.INT, 60000, at_least(0))
    .define("log.flush.start.offset.checkpoint.interval.ms", Type.INT, 60000, at_least(0))
    .define("log.preallocate", Type.BOOLEAN, False)
    .define("num.recovery.threads.per.data.dir", Type.INT, 1, at_least(1))
    .define("auto.create.topics.enable", Type.BOOLEAN, True)
    .define("min.insync.replicas", Type.INT, 1, at_least(1))
    .define("log.message.format.version", Type.STRING, LATEST_API_VERSION)
    .define("log.message.timestamp.type", Type.STRING, "CreateTime", ValidString.in_("CreateTime", "LogAppendTime"))
    .define("log.message.timestamp.difference.max.ms", Type.LONG, LONG_MAX)
    .define("create.topic.policy.class.name", Type.CLASS, None)
    .define("alter.config.policy.class.name", Type.CLASS, None)
    # Replication
    .define("controller.socket.timeout.ms", Type.INT, 30000)
    .define("default.replication.factor", Type.INT, 1)
    .define("replica.lag.time.max.ms", Type.LONG, 10000)
    .define("replica.socket.timeout.ms", Type.INT, 30 * 1000)
    .define("replica.socket.receive.buffer.bytes", Type.INT, 64 * 1024)
    .define("replica.fetch.max.bytes", Type.INT, 1024 * 1024, at_least(0))
    .define("replica.fetch.wait.max.ms", Type.INT, 500)
    .define("replica.fetch.backoff.ms", Type.INT, 1000, at_least(0))
    .define("replica.fetch.min.bytes", Type.INT, 1)
    .define("replica.fetch.response.max.bytes", Type.INT, 10 * 1024 * 1024, at_least(0))
    .define("num.replica.fetchers", Type.INT, 1)
    .define("replica.high.watermark.checkpoint.interval.ms", Type.LONG, 5000)
    .define("fetch.purgatory.purge.interval.requests", Type.INT, 1000)
    .define("producer.purgatory.purge.interval.requests", Type.INT, 1000)
    .define("delete.records.purgatory.purge.interval.requests", Type.INT, 1)
    .define("auto.leader.rebalance.enable", Type.BOOLEAN, True)
    .define("leader.imbalance.per.broker.percentage", Type.INT, 10)
    .define("leader.imbalance.check.interval.seconds", Type.LONG, 300)
    .define("unclean.leader.election.enable", Type.BOOLEAN, False)
    .define("security.inter.broker.protocol", Type.STRING, "PLAINTEXT")
    .define("inter.broker.protocol.version", Type.STRING, LATEST_API_VERSION)
    .define("inter.broker.listener.name", Type.STRING, None)
    # Controlled shutdown
    .define("controlled.shutdown.max.retries", Type.INT, 3)
    .define("controlled.shutdown.retry.backoff.ms", Type.LONG, 5000)
    .define("controlled.shutdown.enable", Type.BOOLEAN, True)
    # Group coordinator
    .define("group.min.session.timeout.ms", Type.INT, 6000)
    .define("group.max.session.timeout.ms", Type.INT, 300000)
    .define("group.initial.rebalance.delay.ms", Type.INT, 3000)
    # Offset management
    .define("offset.metadata.max.bytes", Type.INT, 4096)
    .define("offsets.load.buffer.size", Type.INT, 5 * 1024 * 1024, at_least(1))
    .define("offsets.topic.replication.factor", Type.SHORT, 3, at_least(1))
    .define("offsets.topic.num.partitions", Type.INT, 50, at_least(1))
    .define("offsets.topic.segment.bytes", Type.INT, 100 * 1024 * 1024, at_least(1))
    .define("offsets.topic.compression.codec", Type.INT, 0)
    .define("offsets.retention.minutes", Type.INT, 24 * 60, at_least(1))
    .define("offsets.retention.check.interval.ms", Type.LONG, 600000, at_least(1))
    .define("offsets.commit.timeout.ms", Type.INT, 5000, at_least(1))
    .define("offsets.commit.required.acks", Type.SHORT, -1)
    .define("delete.topic.enable", Type.BOOLEAN, True)
    .define("compression.type", Type.STRING, "producer")
    # Transaction management
    .define("transactional.id.expiration.ms", Type.INT, 7 * 24 * 60 * 60 * 1000, at_least(1))
    .define("transaction.max.timeout.ms", Type.INT, 15 * 60 * 1000, at_least(1))
    .define("transaction.state.log.min.isr", Type.INT, 2, at_least(1))
    .define("transaction.state.log.load.buffer.size", Type.INT, 5 * 1024 * 1024, at_least(1))
    .define("transaction.state.log.replication.factor", Type.SHORT, 3, at_least(1))
    .define("transaction.state.log.num.partitions", Type.INT, 50, at_least(1))
    .define("transaction.state.log.segment.bytes", Type.INT, 100 * 1024 * 1024, at_least(1))
    .define("transaction.abort.timed.out.transaction.cleanup.interval.ms", Type.INT, 60 * 1000, at_least(1))
    .define("transaction.remove.expired.transaction.cleanup.interval.ms", Type.INT, 60 * 60 * 1000, at_least(1))
    # Metrics
    .define("metrics.num.samples", Type.INT, 2, at_least(1))
    .define("metrics.sample.window.ms", Type.LONG, 30000, at_least(1))
    .define("metric.reporters", Type.LIST, "")
    .define("metrics.recording.level", Type.STRING, "INFO")
    # Quotas
    .define("quota.producer.default", Type.LONG, LONG_MAX, at_least(1))
    .define("quota.consumer.default", Type.LONG, LONG_MAX, at_least(1))
    .define("quota.window.num", Type.INT, 11, at_least(1))
    .define("replication.quota.window.num", Type.INT, 11, at_least(1))
    .define("quota.window.size.seconds", Type.INT, 1, at_least(1))
    .define("replication.quota.window.size.seconds", Type.INT, 1, at_least(1))
    # SSL (accepted and validated; our listeners speak PLAINTEXT)
    .define("principal.builder.class", Type.CLASS, None)
    .define("ssl.protocol", Type.STRING, "TLS")
    .define("ssl.provider", Type.STRING, None)
    .define("ssl.enabled.protocols", Type.LIST, "TLSv1.2,TLSv1.1,TLSv1")
    .define("ssl.keystore.type", Type.STRING, "JKS")
    .define("ssl.keystore.location", Type.STRING, None)
    .define("ssl.keystore.password", Type.PASSWORD, None)
    .define("ssl.key.password", Type.PASSWORD, None)
    .define("ssl.truststore.type", Type.STRING, "JKS")
    .define("ssl.truststore.location", Type.STRING, None)
    .define("ssl.truststore.password", Type.PASSWORD, None)
    .define("ssl.keymanager.algorithm", Type.STRING, "SunX509")
    .define("ssl.trustmanager.algorithm", Type.STRING, "PKIX")
    .define("ssl.endpoint.identification.algorithm", Type.STRING, None)
    .define("ssl.secure.random.implementation", Type.STRING, None)
    .define("ssl.client.auth", Type.STRING, "none", ValidString.in_("required", "requested", "none"))
    .define("ssl.cipher.suites", Type.LIST, None)
    # SASL
    .define("sasl.mechanism.inter.broker.protocol", Type.STRING, "GSSAPI")
    .define("sasl.enabled.mechanisms", Type.LIST, ["GSSAPI"])
    .define("sasl.kerberos.service.name", Type.STRING, None)
    .define("sasl.kerberos.kinit.cmd", Type.STRING, "/usr/bin/kinit")
    .define("sasl.kerberos.ticket.renew.window.factor", Type.DOUBLE, 0.80)
    .define("sasl.kerberos.ticket.renew.jitter", Type.DOUBLE, 0.05)
    .define("sasl.kerberos.min.time.before.relogin", Type.LONG, 1 * 60 * 1000)
    .define("sasl.kerberos.principal.to.local.rules", Type.LIST, ["DEFAULT"])
    # The JAAS file a SASL listener's logins read (PLAIN's users): the JVM's -Djava.security.auth.login.config,
    # given to this port as a broker property (docs/security.md)
    .define("java.security.auth.login.config", Type.STRING, None)
    # KRaft (Kafka 3.9, KRaftConfigs.java): roles, node id, controller listeners, the metadata log and its snapshots
    .define("process.roles", Type.LIST, [], ValidList.in_("broker", "controller"))
    .define("node.id", Type.INT, -1)
    .define("initial.broker.registration.timeout.ms", Type.INT, 60000)
    .define("broker.heartbeat.interval.ms", Type.INT, 2000)
    .define("broker.session.timeout.ms", Type.INT, 9000)
    .define("controller.listener.names", Type.STRING, None)
    .define("metadata.log.dir", Type.STRING, None)
    .define("metadata.log.segment.bytes", Type.INT, 1024 * 1024 * 1024, at_least(LOG_OVERHEAD))
    .define("metadata.log.segment.min.bytes", Type.INT, 8 * 1024 * 1024, at_least(LOG_OVERHEAD))  # internal
    .define("metadata.log.segment.ms", Type.LONG, 7 * 24 * 60 * 60 * 1000)
    .define("metadata.max.retention.bytes", Type.LONG, 100 * 1024 * 1024)
    .define("metadata.max.retention.ms", Type.LONG, 7 * 24 * 60 * 60 * 1000)
    .define("metadata.max.idle.interval.ms", Type.INT, 500, at_least(0))
    .define("metadata.log.max.record.bytes.between.snapshots", Type.LONG, 20 * 1024 * 1024, at_least(1))
    .define("metadata.log.max.snapshot.interval.ms", Type.LONG, 60 * 60 * 1000, at_least(0))
    .define("server.max.startup.time.ms", Type.LONG, LONG_MAX, at_least(0))  # internal
    .define("unstable.feature.versions.enable", Type.BOOLEAN, False)  # internal (ServerConfigs)
    # The group protocols 3.9's group coordinator serves (GroupCoordinatorConfig); 3.9's KafkaConfig validates them
    .define("group.coordinator.rebalance.protocols", Type.LIST, ["classic"],
            ValidList.in_("classic", "consumer", "share"))
    # KIP-848 members' session and heartbeat bounds (3.9's GroupCoordinatorConfig reads them): a broker must accept them
    .define("group.consumer.session.timeout.ms", Type.INT, 45000, at_least(1))
    .define("group.consumer.min.session.timeout.ms", Type.INT, 45000, at_least(1))
    .define("group.consumer.max.session.timeout.ms", Type.INT, 60000, at_least(1))
    .define("group.consumer.heartbeat.interval.ms", Type.INT, 5000, at_least(1))
    .define("group.consumer.min.heartbeat.interval.ms", Type.INT, 5000, at_least(1))
    .define("group.consumer.max.heartbeat.interval.ms", Type.INT, 15000, at_least(1))
    # kafka-edu's own: what a ZooKeeper-mode broker advertises in ApiVersions (docs/api-versions.md). "1.0.2": the
    # versions Kafka 1.0.2 served; "latest": the newest this port implements (what a 2.x+ client would use).
    .define("kafka.edu.advertised.api.versions", Type.STRING, "1.0.2", ValidString.in_("1.0.2", "latest"))
)
# The controller.quorum.* rows live with QuorumConfig, as 3.9 merges QuorumConfig's definitions into the broker's.
for _key in quorum_config.CONFIG_DEF.config_keys.values():
    CONFIG_DEF.define(_key.name, _key.type, _key.default_value, _key.validator)


class KafkaConfig(AbstractConfig):
    """The broker's configuration: parsed properties plus the values Kafka derives from them."""

    ZK_CONNECT_PROP = "zookeeper.connect"
    BROKER_ID_PROP = "broker.id"
    LISTENERS_PROP = "listeners"
    ADVERTISED_LISTENERS_PROP = "advertised.listeners"
    LISTENER_SECURITY_PROTOCOL_MAP_PROP = "listener.security.protocol.map"
    INTER_BROKER_LISTENER_NAME_PROP = "inter.broker.listener.name"
    INTER_BROKER_SECURITY_PROTOCOL_PROP = "security.inter.broker.protocol"
    LOG_DIRS_PROP = "log.dirs"
    LOG_DIR_PROP = "log.dir"
    PROCESS_ROLES_PROP = "process.roles"
    NODE_ID_PROP = "node.id"
    CONTROLLER_LISTENER_NAMES_PROP = "controller.listener.names"
    METADATA_LOG_DIR_PROP = "metadata.log.dir"
    QUORUM_VOTERS_PROP = quorum_config.QUORUM_VOTERS_CONFIG
    QUORUM_BOOTSTRAP_SERVERS_PROP = quorum_config.QUORUM_BOOTSTRAP_SERVERS_CONFIG

    @staticmethod
    def config_names() -> list[str]:
        return sorted(CONFIG_DEF.names())

    @classmethod
    def from_props(cls, props: Mapping[str, Any], do_log: bool = True) -> KafkaConfig:
        return cls(props, do_log)

    @classmethod
    def from_props_with_overrides(cls, defaults: Mapping[str, Any], overrides: Mapping[str, Any],
                                  do_log: bool = True) -> KafkaConfig:
        return cls({**defaults, **overrides}, do_log)

    def __init__(self, props: Mapping[str, Any], do_log: bool = True) -> None:
        # Deliberate difference: Kafka 1.0.2 accepts unknown keys and at most logs them; we refuse them.
        for key in props:
            if key not in CONFIG_DEF.config_keys:
                raise ConfigException(f"Unknown configuration '{key}'")
        super().__init__(CONFIG_DEF, props, do_log)
        self.props = self.originals()
        # KRaft (3.9): the roles come first, everything below may depend on them
        self.process_roles: frozenset[ProcessRole] = self._parse_process_roles()

        # ZooKeeper
        self.zk_connect: str | None = self.get_string("zookeeper.connect")
        if self.requires_zookeeper and self.zk_connect is None:
            # 1.0.2 refused this while parsing, before any other check; 3.9 words it with backticks
            raise ConfigException('Missing required configuration "zookeeper.connect" which has no default value.')
        self.zk_session_timeout_ms: int = self.get_int("zookeeper.session.timeout.ms")
        connection_timeout = self.get_int("zookeeper.connection.timeout.ms")
        self.zk_connection_timeout_ms: int = (connection_timeout if connection_timeout is not None
                                              else self.zk_session_timeout_ms)
        self.zk_sync_time_ms: int = self.get_int("zookeeper.sync.time.ms")
        self.zk_enable_secure_acls: bool = self.get_boolean("zookeeper.set.acl")

        # General
        self.broker_id_generation_enable: bool = self.get_boolean("broker.id.generation.enable")
        self.max_reserved_broker_id: int = self.get_int("reserved.broker.max.id")
        # 3.9's populateSynonyms: either of broker.id and node.id stands for the other when only one is given
        given = self.originals()
        self.broker_id: int = self.get_int(  # a var: KafkaServer may swap in a generated id
            "broker.id" if "broker.id" in given or "node.id" not in given else "node.id")
        self.node_id: int = self.get_int("node.id" if "node.id" in given or "broker.id" not in given else "broker.id")
        self.initial_registration_timeout_ms: int = self.get_int("initial.broker.registration.timeout.ms")
        self.broker_heartbeat_interval_ms: int = self.get_int("broker.heartbeat.interval.ms")
        self.broker_session_timeout_ms: int = self.get_int("broker.session.timeout.ms")
        self.num_network_threads: int = self.get_int("num.network.threads")
        self.background_threads: int = self.get_int("background.threads")
        self.queued_max_requests: int = self.get_int("queued.max.requests")
        self.queued_max_bytes: int = self.get_long("queued.max.request.bytes")
        self.num_io_threads: int = self.get_int("num.io.threads")
        self.message_max_bytes: int = self.get_int("message.max.bytes")
        self.request_timeout_ms: int = self.get_int("request.timeout.ms")

        # Authorizer
        self.authorizer_class_name: str = self.get_string("authorizer.class.name")

        # Socket server
        self.host_name: str = self.get_string("host.name")
        self.port: int = self.get_int("port")
        advertised_host_name = self.get_string("advertised.host.name")
        advertised_port = self.get_int("advertised.port")
        self.advertised_host_name: str = advertised_host_name if advertised_host_name is not None else self.host_name
        self.advertised_port: int = advertised_port if advertised_port is not None else self.port
        self.socket_send_buffer_bytes: int = self.get_int("socket.send.buffer.bytes")
        self.socket_receive_buffer_bytes: int = self.get_int("socket.receive.buffer.bytes")
        self.socket_request_max_bytes: int = self.get_int("socket.request.max.bytes")
        self.max_connections_per_ip: int = self.get_int("max.connections.per.ip")
        self.max_connections_per_ip_overrides: dict[str, int] = {
            k: _java_int(v) for k, v in self._get_map("max.connections.per.ip.overrides").items()}
        self.connections_max_idle_ms: int = self.get_long("connections.max.idle.ms")
        self.max_connections: int = self.get_int("max.connections")
        self.max_connection_creation_rate: int = self.get_int("max.connection.creation.rate")
        self.socket_listen_backlog_size: int = self.get_int("socket.listen.backlog.size")
        self.failed_authentication_delay_ms: int = self.get_int("connection.failed.authentication.delay.ms")

        # Rack
        self.rack: str | None = self.get_string("broker.rack")

        # Log
        self.auto_create_topics_enable: bool = self.get_boolean("auto.create.topics.enable")
        self.num_partitions: int = self.get_int("num.partitions")
        log_dirs = self.get_string("log.dirs")
        self.log_dirs: list[str] = parse_csv_list(log_dirs if log_dirs is not None else self.get_string("log.dir"))
        self.log_segment_bytes: int = self.get_int("log.segment.bytes")
        self.log_flush_interval_messages: int = self.get_long("log.flush.interval.messages")
        self.log_cleaner_threads: int = self.get_int("log.cleaner.threads")
        self.num_recovery_threads_per_data_dir: int = self.get_int("num.recovery.threads.per.data.dir")
        self.log_flush_scheduler_interval_ms: int = self.get_long("log.flush.scheduler.interval.ms")
        self.log_flush_offset_checkpoint_interval_ms: int = self.get_int("log.flush.offset.checkpoint.interval.ms")
        self.log_flush_start_offset_checkpoint_interval_ms: int = self.get_int(
            "log.flush.start.offset.checkpoint.interval.ms")
        self.log_cleanup_interval_ms: int = self.get_long("log.retention.check.interval.ms")
        self.log_cleanup_policy: list[str] = self.get_list("log.cleanup.policy")
        self.offsets_retention_minutes: int = self.get_int("offsets.retention.minutes")
        self.offsets_retention_check_interval_ms: int = self.get_long("offsets.retention.check.interval.ms")
        self.log_retention_bytes: int = self.get_long("log.retention.bytes")
        self.log_cleaner_dedupe_buffer_size: int = self.get_long("log.cleaner.dedupe.buffer.size")
        self.log_cleaner_dedupe_buffer_load_factor: float = self.get_double("log.cleaner.io.buffer.load.factor")
        self.log_cleaner_io_buffer_size: int = self.get_int("log.cleaner.io.buffer.size")
        self.log_cleaner_io_max_bytes_per_second: float = self.get_double("log.cleaner.io.max.bytes.per.second")
        self.log_cleaner_delete_retention_ms: int = self.get_long("log.cleaner.delete.retention.ms")
        self.log_cleaner_min_compaction_lag_ms: int = self.get_long("log.cleaner.min.compaction.lag.ms")
        self.log_cleaner_backoff_ms: int = self.get_long("log.cleaner.backoff.ms")
        self.log_cleaner_min_clean_ratio: float = self.get_double("log.cleaner.min.cleanable.ratio")
        self.log_cleaner_enable: bool = self.get_boolean("log.cleaner.enable")
        self.log_index_size_max_bytes: int = self.get_int("log.index.size.max.bytes")
        self.log_index_interval_bytes: int = self.get_int("log.index.interval.bytes")
        self.log_delete_delay_ms: int = self.get_long("log.segment.delete.delay.ms")
        self.log_roll_time_millis: int = self._millis_or("log.roll.ms", "log.roll.hours", 60 * 60 * 1000)
        self.log_roll_time_jitter_millis: int = self._millis_or("log.roll.jitter.ms", "log.roll.jitter.hours",
                                                                60 * 60 * 1000)
        flush_interval_ms = self.get_long("log.flush.interval.ms")
        self.log_flush_interval_ms: int = (flush_interval_ms if flush_interval_ms is not None
                                           else self.log_flush_scheduler_interval_ms)
        self.log_retention_time_millis: int = self._get_log_retention_time_millis()
        self.min_in_sync_replicas: int = self.get_int("min.insync.replicas")
        self.log_pre_allocate_enable: bool = self.get_boolean("log.preallocate")
        # the string as given is kept: "0.10.0" resolves to "0.10.0-IV1" but logs and errors quote the user's text
        self.log_message_format_version_string: str = self.get_string("log.message.format.version")
        self.log_message_format_version: str = api_version(self.log_message_format_version_string)
        self.log_message_timestamp_type: str = self.get_string("log.message.timestamp.type")
        self.log_message_timestamp_difference_max_ms: int = self.get_long("log.message.timestamp.difference.max.ms")
        self.create_topic_policy_class_name: str | None = self.get_class("create.topic.policy.class.name")
        self.alter_config_policy_class_name: str | None = self.get_class("alter.config.policy.class.name")

        # Replication
        self.controller_socket_timeout_ms: int = self.get_int("controller.socket.timeout.ms")
        self.default_replication_factor: int = self.get_int("default.replication.factor")
        self.replica_lag_time_max_ms: int = self.get_long("replica.lag.time.max.ms")
        self.replica_socket_timeout_ms: int = self.get_int("replica.socket.timeout.ms")
        self.replica_socket_receive_buffer_bytes: int = self.get_int("replica.socket.receive.buffer.bytes")
        self.replica_fetch_max_bytes: int = self.get_int("replica.fetch.max.bytes")
        self.replica_fetch_wait_max_ms: int = self.get_int("replica.fetch.wait.max.ms")
        self.replica_fetch_min_bytes: int = self.get_int("replica.fetch.min.bytes")
        self.replica_fetch_response_max_bytes: int = self.get_int("replica.fetch.response.max.bytes")
        self.replica_fetch_backoff_ms: int = self.get_int("replica.fetch.backoff.ms")
        self.num_replica_fetchers: int = self.get_int("num.replica.fetchers")
        self.replica_high_watermark_checkpoint_interval_ms: int = self.get_long(
            "replica.high.watermark.checkpoint.interval.ms")
        self.fetch_purgatory_purge_interval_requests: int = self.get_int("fetch.purgatory.purge.interval.requests")
        self.producer_purgatory_purge_interval_requests: int = self.get_int(
            "producer.purgatory.purge.interval.requests")
        self.delete_records_purgatory_purge_interval_requests: int = self.get_int(
            "delete.records.purgatory.purge.interval.requests")
        self.auto_leader_rebalance_enable: bool = self.get_boolean("auto.leader.rebalance.enable")
        self.leader_imbalance_per_broker_percentage: int = self.get_int("leader.imbalance.per.broker.percentage")
        self.leader_imbalance_check_interval_seconds: int = self.get_long("leader.imbalance.check.interval.seconds")
        self.unclean_leader_election_enable: bool = self.get_boolean("unclean.leader.election.enable")

        # Listener names map to security protocols first: everything listener-related below reads the map.
        self.listener_security_protocol_map: dict[str, str] = self._get_listener_security_protocol_map()
        self.inter_broker_listener_name, self.inter_broker_security_protocol = (
            self._get_inter_broker_listener_name_and_security_protocol())
        self.inter_broker_protocol_version_string: str = self.get_string("inter.broker.protocol.version")
        if self.requires_zookeeper:
            self.inter_broker_protocol_version: str = api_version(self.inter_broker_protocol_version_string)
        else:
            if "inter.broker.protocol.version" in self.props:  # 3.9: only a KRaft-era version, and only as a hint
                configured = MetadataVersion.from_version_string(self.inter_broker_protocol_version_string)
                if not configured.is_kraft_supported():
                    raise ConfigException(f"A non-KRaft version {self.inter_broker_protocol_version_string} given "
                                          f"for inter.broker.protocol.version. The minimum version is "
                                          f"{MINIMUM_KRAFT_VERSION}")
                log.warning("inter.broker.protocol.version is deprecated in KRaft mode as of 3.3 and will only be "
                            "read when first upgrading from a KRaft prior to 3.3. See kafka-storage.sh help for "
                            "details on setting the metadata.version for a new KRaft cluster.")
            # 3.9 pins the IBP of a KRaft node; the 1.0.2 broker code here reads a 1.0 version: the newest stands in
            self.inter_broker_protocol_version = LATEST_API_VERSION

        # Controlled shutdown
        self.controlled_shutdown_max_retries: int = self.get_int("controlled.shutdown.max.retries")
        self.controlled_shutdown_retry_backoff_ms: int = self.get_long("controlled.shutdown.retry.backoff.ms")
        self.controlled_shutdown_enable: bool = self.get_boolean("controlled.shutdown.enable")

        # Group coordinator
        self.group_min_session_timeout_ms: int = self.get_int("group.min.session.timeout.ms")
        self.group_max_session_timeout_ms: int = self.get_int("group.max.session.timeout.ms")
        self.group_initial_rebalance_delay_ms: int = self.get_int("group.initial.rebalance.delay.ms")
        self.group_initial_rebalance_delay: int = self.group_initial_rebalance_delay_ms  # the Scala val's name

        # Offset management
        self.offset_metadata_max_size: int = self.get_int("offset.metadata.max.bytes")
        self.offsets_load_buffer_size: int = self.get_int("offsets.load.buffer.size")
        self.offsets_topic_replication_factor: int = self.get_short("offsets.topic.replication.factor")
        self.offsets_topic_partitions: int = self.get_int("offsets.topic.num.partitions")
        self.offset_commit_timeout_ms: int = self.get_int("offsets.commit.timeout.ms")
        self.offset_commit_required_acks: int = self.get_short("offsets.commit.required.acks")
        self.offsets_topic_segment_bytes: int = self.get_int("offsets.topic.segment.bytes")
        codec = self.get_int("offsets.topic.compression.codec")
        if codec not in COMPRESSION_CODECS:  # CompressionCodec.getCompressionCodec
            raise KafkaException(f"{codec} is an unknown compression codec")
        self.offsets_topic_compression_codec: int = codec

        # Transaction management (Scala names, then aliases named after the properties)
        self.transactional_id_expiration_ms: int = self.get_int("transactional.id.expiration.ms")
        self.transaction_id_expiration_ms: int = self.transactional_id_expiration_ms
        self.transaction_max_timeout_ms: int = self.get_int("transaction.max.timeout.ms")
        self.transaction_topic_min_isr: int = self.get_int("transaction.state.log.min.isr")
        self.transactions_load_buffer_size: int = self.get_int("transaction.state.log.load.buffer.size")
        self.transaction_topic_replication_factor: int = self.get_short("transaction.state.log.replication.factor")
        self.transaction_topic_partitions: int = self.get_int("transaction.state.log.num.partitions")
        self.transaction_topic_segment_bytes: int = self.get_int("transaction.state.log.segment.bytes")
        self.transaction_abort_timed_out_transaction_cleanup_interval_ms: int = self.get_int(
            "transaction.abort.timed.out.transaction.cleanup.interval.ms")
        self.transaction_remove_expired_transactional_id_cleanup_interval_ms: int = self.get_int(
            "transaction.remove.expired.transaction.cleanup.interval.ms")
        self.transaction_state_log_min_isr = self.transaction_topic_min_isr
        self.transaction_state_log_load_buffer_size = self.transactions_load_buffer_size
        self.transaction_state_log_replication_factor = self.transaction_topic_replication_factor
        self.transaction_state_log_num_partitions = self.transaction_topic_partitions
        self.transaction_state_log_segment_bytes = self.transaction_topic_segment_bytes

        # Metrics
        self.metric_num_samples: int = self.get_int("metrics.num.samples")
        self.metric_sample_window_ms: int = self.get_long("metrics.sample.window.ms")
        self.metric_reporter_classes: list[str] = self.get_list("metric.reporters")
        self.metric_recording_level: str = self.get_string("metrics.recording.level")

        # SSL
        self.principal_builder_class: str | None = self.get_class("principal.builder.class")
        self.ssl_protocol: str = self.get_string("ssl.protocol")
        self.ssl_provider: str | None = self.get_string("ssl.provider")
        self.ssl_enabled_protocols: list[str] = self.get_list("ssl.enabled.protocols")
        self.ssl_keystore_type: str = self.get_string("ssl.keystore.type")
        self.ssl_keystore_location: str | None = self.get_string("ssl.keystore.location")
        self.ssl_keystore_password = self.get_password("ssl.keystore.password")
        self.ssl_key_password = self.get_password("ssl.key.password")
        self.ssl_truststore_type: str = self.get_string("ssl.truststore.type")
        self.ssl_truststore_location: str | None = self.get_string("ssl.truststore.location")
        self.ssl_truststore_password = self.get_password("ssl.truststore.password")
        self.ssl_key_manager_algorithm: str = self.get_string("ssl.keymanager.algorithm")
        self.ssl_trust_manager_algorithm: str = self.get_string("ssl.trustmanager.algorithm")
        self.ssl_client_auth: str = self.get_string("ssl.client.auth")
        self.ssl_cipher: list[str] | None = self.get_list("ssl.cipher.suites")

        # SASL
        self.sasl_mechanism_inter_broker_protocol: str = self.get_string("sasl.mechanism.inter.broker.protocol")
        self.sasl_enabled_mechanisms: list[str] = self.get_list("sasl.enabled.mechanisms")
        self.sasl_kerberos_service_name: str | None = self.get_string("sasl.kerberos.service.name")
        self.sasl_kerberos_kinit_cmd: str = self.get_string("sasl.kerberos.kinit.cmd")
        self.sasl_kerberos_ticket_renew_window_factor: float = self.get_double(
            "sasl.kerberos.ticket.renew.window.factor")
        self.sasl_kerberos_ticket_renew_jitter: float = self.get_double("sasl.kerberos.ticket.renew.jitter")
        self.sasl_kerberos_min_time_before_relogin: int = self.get_long("sasl.kerberos.min.time.before.relogin")
        self.sasl_kerberos_principal_to_local_rules: list[str] = self.get_list(
            "sasl.kerberos.principal.to.local.rules")
        self.sasl_inter_broker_handshake_request_enable: bool = api_version_at_least(
            self.inter_broker_protocol_version, "0.10.0-IV1")

        # Quotas
        self.producer_quota_bytes_per_second_default: int = self.get_long("quota.producer.default")
        self.consumer_quota_bytes_per_second_default: int = self.get_long("quota.consumer.default")
        self.num_quota_samples: int = self.get_int("quota.window.num")
        self.quota_window_size_seconds: int = self.get_int("quota.window.size.seconds")
        self.num_replication_quota_samples: int = self.get_int("replication.quota.window.num")
        self.replication_quota_window_size_seconds: int = self.get_int("replication.quota.window.size.seconds")

        self.delete_topic_enable: bool = self.get_boolean("delete.topic.enable")
        self.compression_type: str = self.get_string("compression.type")
        self.listeners: list[EndPoint] = self._get_listeners()
        self.advertised_listeners: list[EndPoint] = self._get_advertised_listeners()

        # KRaft (3.9): the metadata log, its snapshots, the quorum
        self.metadata_snapshot_max_new_record_bytes: int = self.get_long(
            "metadata.log.max.record.bytes.between.snapshots")
        self.metadata_snapshot_max_interval_ms: int = self.get_long("metadata.log.max.snapshot.interval.ms")
        idle_ns = self.get_int("metadata.max.idle.interval.ms") * 1_000_000
        self.metadata_max_idle_interval_ns: int | None = idle_ns if idle_ns > 0 else None  # 0: no NoOp records
        self.metadata_log_segment_bytes: int = self.get_int("metadata.log.segment.bytes")
        self.metadata_log_segment_min_bytes: int = self.get_int("metadata.log.segment.min.bytes")
        self.metadata_log_segment_millis: int = self.get_long("metadata.log.segment.ms")
        self.metadata_retention_bytes: int = self.get_long("metadata.max.retention.bytes")
        self.metadata_retention_millis: int = self.get_long("metadata.max.retention.ms")
        self.server_max_startup_time_ms: int = self.get_long("server.max.startup.time.ms")
        self.unstable_feature_versions_enabled: bool = self.get_boolean("unstable.feature.versions.enable")
        self.quorum_config: QuorumConfig = QuorumConfig(self)

        self._validate_values()

    # --- KRaft (3.9) ---
    def _parse_process_roles(self) -> frozenset[ProcessRole]:
        roles = []
        for role in self.get_list(self.PROCESS_ROLES_PROP):
            if role not in ("broker", "controller"):  # ValidList already refused it; kept as 3.9 has it
                raise ConfigException(f"Unknown process role '{role}' (only 'broker' and 'controller' are allowed "
                                      "roles)")
            roles.append(ProcessRole(role))
        distinct_roles = frozenset(roles)
        if len(distinct_roles) != len(roles):
            raise ConfigException(f"Duplicate role names found in `{self.PROCESS_ROLES_PROP}`: "
                                  f"ArrayBuffer({', '.join(str(r) for r in roles)})")
        return distinct_roles

    @property
    def requires_zookeeper(self) -> bool:
        """No `process.roles`: a ZooKeeper-mode broker, which is everything this port ran before KRaft."""
        return not self.process_roles

    @property
    def uses_self_managed_quorum(self) -> bool:
        return bool(self.process_roles)

    @property
    def is_kraft_combined_mode(self) -> bool:
        return self.process_roles == {ProcessRole.BROKER_ROLE, ProcessRole.CONTROLLER_ROLE}

    @property
    def metadata_log_dir(self) -> str:
        """Where `__cluster_metadata-0` lives: `metadata.log.dir`, else the first log directory."""
        configured = self.get_string(self.METADATA_LOG_DIR_PROP)
        return configured if configured is not None else self.log_dirs[0]

    @property
    def controller_listener_names(self) -> list[str]:
        value = self.get_string(self.CONTROLLER_LISTENER_NAMES_PROP) or ""
        if not value:
            return []
        names = value.split(",")  # as Java's split: no trimming, trailing empty names dropped
        while names and names[-1] == "":
            names.pop()
        return names

    @property
    def controller_listeners(self) -> list[EndPoint]:
        names = self.controller_listener_names
        return [ep for ep in self.listeners if ep.listener_name in names]

    @property
    def data_plane_listeners(self) -> list[EndPoint]:
        names = self.controller_listener_names
        return [ep for ep in self.listeners if ep.listener_name not in names]

    @property
    def effective_advertised_controller_listeners(self) -> list[EndPoint]:
        """For each controller listener name: its advertised endpoint, else the endpoint it listens on."""
        names = self.controller_listener_names
        advertised = [ep for ep in self.advertised_listeners if ep.listener_name in names]
        listening = self.controller_listeners
        result = []
        for name in names:
            found = next((ep for ep in advertised if ep.listener_name == name.upper()), None) or next(
                (ep for ep in listening if ep.listener_name == name.upper()), None)
            if found is not None:
                result.append(found)
        return result

    @property
    def effective_advertised_broker_listeners(self) -> list[EndPoint]:
        names = self.controller_listener_names
        return [ep for ep in self.advertised_listeners if ep.listener_name not in names]

    # --- derivations ---
    def _millis_or(self, millis_prop: str, coarse_prop: str, unit_ms: int) -> int:
        millis = self.get_long(millis_prop)
        return millis if millis is not None else unit_ms * self.get_int(coarse_prop)

    def _get_log_retention_time_millis(self) -> int:
        """log.retention.ms wins over .minutes, which wins over .hours; any negative result means unlimited (-1)."""
        millis = self.get_long("log.retention.ms")
        if millis is None:
            minutes = self.get_int("log.retention.minutes")
            millis = (60 * 1000 * minutes if minutes is not None
                      else 60 * 60 * 1000 * self.get_int("log.retention.hours"))
        return -1 if millis < 0 else millis

    def _get_map(self, prop_name: str) -> dict[str, str]:
        try:
            return parse_csv_map(self.get_string(prop_name))
        except Exception as e:
            raise IllegalArgumentException(f"Error parsing configuration property '{prop_name}': {e}") from e

    def _get_security_protocol(self, protocol_name: str, config_name: str) -> str:
        try:
            return _security_protocol_for_name(protocol_name)
        except IllegalArgumentException:
            raise ConfigException(f"Invalid security protocol `{protocol_name}` defined in {config_name}") from None

    def _get_listener_security_protocol_map(self) -> dict[str, str]:
        prop = self.LISTENER_SECURITY_PROTOCOL_MAP_PROP
        map_value = {name.upper(): self._get_security_protocol(protocol, prop)
                     for name, protocol in self._get_map(prop).items()}
        if self.uses_self_managed_quorum and prop not in self.props:
            # 3.9 (effectiveListenerSecurityProtocolMap): with the default map, a KRaft node's controller listeners
            # speak PLAINTEXT, unless SSL or SASL is in use somewhere, which needs an explicit map
            def is_ssl_or_sasl(name: str) -> bool:
                return name in ("SSL", "SASL_SSL", "SASL_PLAINTEXT")
            if any(is_ssl_or_sasl(n) for n in self.controller_listener_names) or any(
                    is_ssl_or_sasl(EndPoint.parse_listener_name(listener))
                    for listener in parse_csv_list(self.get_string(self.LISTENERS_PROP))):
                return map_value
            map_value.update({name: "PLAINTEXT" for name in self.controller_listener_names if name != "PLAINTEXT"})
        return map_value

    def _get_inter_broker_listener_name_and_security_protocol(self) -> tuple[str, str]:
        name = self.get_string(self.INTER_BROKER_LISTENER_NAME_PROP)
        if name is not None and self.INTER_BROKER_SECURITY_PROTOCOL_PROP in self.props:
            raise ConfigException(f"Only one of {self.INTER_BROKER_LISTENER_NAME_PROP} and "
                                  f"{self.INTER_BROKER_SECURITY_PROTOCOL_PROP} should be set.")
        if name is not None:
            listener_name = name.upper()
            if listener_name not in self.listener_security_protocol_map:
                raise ConfigException(f"Listener with name {listener_name} defined in "
                                      f"{self.INTER_BROKER_LISTENER_NAME_PROP} not found in "
                                      f"{self.LISTENER_SECURITY_PROTOCOL_MAP_PROP}.")
            return listener_name, self.listener_security_protocol_map[listener_name]
        protocol = self._get_security_protocol(self.get_string(self.INTER_BROKER_SECURITY_PROTOCOL_PROP),
                                               self.INTER_BROKER_SECURITY_PROTOCOL_PROP)
        return protocol, protocol  # ListenerName.forSecurityProtocol

    def _get_listeners(self) -> list[EndPoint]:
        """`listeners` if set; otherwise the deprecated host.name/port pair, which by default gives PLAINTEXT://:9092."""
        listeners = self.get_string(self.LISTENERS_PROP)
        if listeners is None:
            listeners = f"PLAINTEXT://{self.host_name}:{self.port}"
        return listener_list_to_end_points(listeners, self.listener_security_protocol_map)

    def _get_advertised_listeners(self) -> list[EndPoint]:
        """`advertised.listeners`; else advertised.host.name/port (filled from host.name/port); else `listeners`."""
        advertised = self.get_string(self.ADVERTISED_LISTENERS_PROP)
        if advertised is not None:
            return listener_list_to_end_points(advertised, self.listener_security_protocol_map)
        if self.get_string("advertised.host.name") is not None or self.get_int("advertised.port") is not None:
            return listener_list_to_end_points(f"PLAINTEXT://{self.advertised_host_name}:{self.advertised_port}",
                                               self.listener_security_protocol_map)
        return self._get_listeners()

    def _validate_values(self) -> None:
        if self.node_id != self.broker_id:
            raise ConfigException(f"You must set `{self.NODE_ID_PROP}` to the same value as `{self.BROKER_ID_PROP}`.")
        if self.requires_zookeeper:  # (zookeeper.connect was checked when it was read)
            if self.broker_id_generation_enable:
                _require(-1 <= self.broker_id <= self.max_reserved_broker_id,
                         "broker.id must be equal or greater than -1 and not greater than reserved.broker.max.id")
            else:
                _require(self.broker_id >= 0, "broker.id must be equal or greater than 0")
        elif self.node_id < 0:  # KRaft-based metadata quorum
            raise ConfigException(f"Missing configuration `{self.NODE_ID_PROP}` which is required when "
                                  "`process.roles` is defined (i.e. when running in KRaft mode).")
        _require(self.log_roll_time_millis >= 1, "log.roll.ms must be equal or greater than 1")
        _require(self.log_roll_time_jitter_millis >= 0, "log.roll.jitter.ms must be equal or greater than 0")
        _require(self.log_retention_time_millis >= 1 or self.log_retention_time_millis == -1,
                 "log.retention.ms must be unlimited (-1) or, equal or greater than 1")
        _require(len(self.log_dirs) > 0, "At least one log directory must be defined via log.dirs or log.dir.")
        _require(self.log_cleaner_dedupe_buffer_size // self.log_cleaner_threads > 1024 * 1024,
                 "log.cleaner.dedupe.buffer.size must be at least 1MB per cleaner thread.")
        _require(self.replica_fetch_wait_max_ms <= self.replica_socket_timeout_ms,
                 "replica.socket.timeout.ms should always be at least replica.fetch.wait.max.ms"
                 " to prevent unnecessary socket timeouts")
        _require(self.replica_fetch_wait_max_ms <= self.replica_lag_time_max_ms,
                 "replica.fetch.wait.max.ms should always be less than or equal to replica.lag.time.max.ms"
                 " to prevent frequent changes in ISR")
        _require(-1 <= self.offset_commit_required_acks <= self.offsets_topic_replication_factor,
                 "offsets.commit.required.acks must be greater or equal -1 and less or equal to "
                 "offsets.topic.replication.factor")
        _require(self.compression_type.lower() in BROKER_COMPRESSION_OPTIONS,
                 f"compression.type : {self.compression_type} is not valid. Valid options are "
                 + ",".join(BROKER_COMPRESSION_OPTIONS))

        if self.requires_zookeeper:
            self._validate_zookeeper_listeners()
        else:
            self._validate_kraft_values()

        message_format = _message_format_version(self.log_message_format_version)
        _require(_message_format_version(self.inter_broker_protocol_version) >= message_format,
                 f"log.message.format.version {self.log_message_format_version_string} can only be used when "
                 f"inter.broker.protocol.version is set to version {_min_version_for_message_format(message_format)}"
                 " or higher")

        uses_sasl = self.inter_broker_security_protocol in ("SASL_PLAINTEXT", "SASL_SSL")
        _require(not uses_sasl or self.sasl_inter_broker_handshake_request_enable
                 or self.sasl_mechanism_inter_broker_protocol == "GSSAPI",
                 "Only GSSAPI mechanism is supported for inter-broker communication with SASL when "
                 f"inter.broker.protocol.version is set to {self.inter_broker_protocol_version_string}")
        _require(not uses_sasl or self.sasl_mechanism_inter_broker_protocol in self.sasl_enabled_mechanisms,
                 "sasl.mechanism.inter.broker.protocol must be included in sasl.enabled.mechanisms when SASL is used"
                 " for inter-broker communication")
        _require(self.queued_max_bytes <= 0 or self.queued_max_bytes >= self.socket_request_max_bytes,
                 "queued.max.request.bytes must be larger or equal to socket.request.max.bytes")


    def _validate_zookeeper_listeners(self) -> None:
        """1.0.2's listener checks, as a ZooKeeper-mode broker has always run them."""
        advertised_names = list(dict.fromkeys(ep.listener_name for ep in self.advertised_listeners))
        listener_names = list(dict.fromkeys(ep.listener_name for ep in self.listeners))
        _require(self.controller_listener_names == [],  # 3.9: a ZooKeeper broker has no controller listeners
                 f"{self.CONTROLLER_LISTENER_NAMES_PROP} must be empty when not running in KRaft mode: "
                 f"[{', '.join(self.controller_listener_names)}]")
        _require(self.inter_broker_listener_name in advertised_names,
                 f"{self.INTER_BROKER_LISTENER_NAME_PROP} must be a listener name defined in "
                 f"{self.ADVERTISED_LISTENERS_PROP}. The valid options based on currently configured listeners are "
                 + ",".join(advertised_names))
        _require(set(advertised_names) <= set(listener_names),
                 f"{self.ADVERTISED_LISTENERS_PROP} listener names must be equal to or a subset of the ones defined in "
                 f"{self.LISTENERS_PROP}. Found {','.join(advertised_names)}. The valid options based on the current "
                 f"configuration are {','.join(listener_names)}")
        _require(not any(ep.host == "0.0.0.0" for ep in self.advertised_listeners),
                 f"{self.ADVERTISED_LISTENERS_PROP} cannot use the nonroutable meta-address 0.0.0.0. "
                 "Use a routable IP address.")

    def _validate_kraft_values(self) -> None:
        """3.9's checks of a KRaft node's quorum and listeners, by its roles."""
        advertised_broker_listener_names = list(
            dict.fromkeys(ep.listener_name for ep in self.effective_advertised_broker_listeners))
        voters = self.quorum_config.voters()
        voter_ids = QuorumConfig.parse_voter_ids(voters)
        voter_set = "Set(" + ", ".join(str(i) for i in QuorumConfig.parse_voter_connections(voters, False)) + ")"
        controller_listener_names = self.controller_listener_names
        listeners_prop, names_prop, roles_prop = (self.LISTENERS_PROP, self.CONTROLLER_LISTENER_NAMES_PROP,
                                                  self.PROCESS_ROLES_PROP)

        def validate_quorum_voters_and_quorum_bootstrap_server_for_kraft() -> None:
            if not voter_ids and not self.quorum_config.bootstrap_servers():
                raise ConfigException(f"If using {roles_prop}, either {self.QUORUM_BOOTSTRAP_SERVERS_PROP} must "
                                      "contain the set of bootstrap controllers or "
                                      f"{self.QUORUM_VOTERS_PROP} must contain a parseable set of controllers.")

        def validate_controller_quorum_voters_must_contain_node_id_for_kraft_controller() -> None:
            _require(not voter_ids or self.node_id in voter_ids,
                     f"If {roles_prop} contains the 'controller' role, the node id {self.node_id} must be included "
                     f"in the set of voters {self.QUORUM_VOTERS_PROP}={voter_set}")

        def validate_advertised_controller_listeners_non_empty_for_kraft_controller() -> None:
            _require(bool(self.effective_advertised_controller_listeners),
                     f"{names_prop} must contain at least one value appearing in the '{listeners_prop}' "
                     "configuration when running the KRaft controller role")

        def validate_controller_listener_names_must_appear_in_listeners_for_kraft_controller() -> None:
            listener_name_values = {ep.listener_name for ep in self.listeners}
            _require(all(name in listener_name_values for name in controller_listener_names),
                     f"{names_prop} must only contain values appearing in the '{listeners_prop}' configuration "
                     "when running the KRaft controller role")

        def validate_advertised_broker_listeners_non_empty_for_broker() -> None:
            _require(bool(advertised_broker_listener_names),
                     "There must be at least one broker advertised listener."
                     + (f" Perhaps all listeners appear in {names_prop}?"
                        if ProcessRole.BROKER_ROLE in self.process_roles else ""))

        if self.process_roles == {ProcessRole.BROKER_ROLE}:
            # KRaft broker-only
            validate_quorum_voters_and_quorum_bootstrap_server_for_kraft()
            _require(self.node_id not in voter_ids,  # a broker is an observer of the quorum, never a voter
                     f"If {roles_prop} contains just the 'broker' role, the node id {self.node_id} must not be "
                     f"included in the set of voters {self.QUORUM_VOTERS_PROP}={voter_set}")
            _require(bool(controller_listener_names),
                     f"{names_prop} must contain at least one value when running KRaft with just the broker role")
            _require(not self.controller_listeners,
                     f"{names_prop} must not contain a value appearing in the '{listeners_prop}' configuration "
                     "when running KRaft with just the broker role")
            for name in controller_listener_names:
                if name.upper() not in self.listener_security_protocol_map:
                    raise ConfigException(
                        f"Controller listener with name {name.upper()} defined in {names_prop} not found in "
                        f"{self.LISTENER_SECURITY_PROTOCOL_MAP_PROP}  (an explicit security mapping for each "
                        f"controller listener is required if {self.LISTENER_SECURITY_PROTOCOL_MAP_PROP} is "
                        "non-empty, or if there are security protocols other than PLAINTEXT in use)")
            if len(controller_listener_names) > 1:
                log.warning("%s has multiple entries; only the first will be used since %s=broker: [%s]",
                            names_prop, roles_prop, ", ".join(controller_listener_names))
        elif self.process_roles == {ProcessRole.CONTROLLER_ROLE}:
            # KRaft controller-only
            validate_quorum_voters_and_quorum_bootstrap_server_for_kraft()
            _require(len(self.effective_advertised_controller_listeners) == len(self.listeners),
                     f"The {listeners_prop} config must only contain KRaft controller listeners from {names_prop} "
                     f"when {roles_prop}=controller")
            if self.get_string(self.INTER_BROKER_LISTENER_NAME_PROP) is not None:
                _require(self.inter_broker_listener_name not in controller_listener_names,
                         f"{names_prop} must not contain an explicitly set {self.INTER_BROKER_LISTENER_NAME_PROP} "
                         f"configuration value when {roles_prop}=controller'")
            validate_controller_quorum_voters_must_contain_node_id_for_kraft_controller()
            validate_advertised_controller_listeners_non_empty_for_kraft_controller()
            validate_controller_listener_names_must_appear_in_listeners_for_kraft_controller()
        else:
            # KRaft combined broker and controller
            validate_quorum_voters_and_quorum_bootstrap_server_for_kraft()
            validate_controller_quorum_voters_must_contain_node_id_for_kraft_controller()
            validate_advertised_controller_listeners_non_empty_for_kraft_controller()
            validate_controller_listener_names_must_appear_in_listeners_for_kraft_controller()

        listener_names = list(dict.fromkeys(ep.listener_name for ep in self.listeners))
        if ProcessRole.BROKER_ROLE in self.process_roles:
            validate_advertised_broker_listeners_non_empty_for_broker()
            _require(self.inter_broker_listener_name in advertised_broker_listener_names,
                     f"{self.INTER_BROKER_LISTENER_NAME_PROP} must be a listener name defined in "
                     f"{self.ADVERTISED_LISTENERS_PROP}. The valid options based on currently configured listeners "
                     f"are {','.join(advertised_broker_listener_names)}")
            _require(set(advertised_broker_listener_names) <= set(listener_names),
                     f"{self.ADVERTISED_LISTENERS_PROP} listener names must be equal to or a subset of the ones "
                     f"defined in {listeners_prop}. Found {','.join(advertised_broker_listener_names)}. The valid "
                     f"options based on the current configuration are {','.join(listener_names)}")
        for endpoints in (self.effective_advertised_broker_listeners, self.effective_advertised_controller_listeners):
            _require(not any(ep.host == "0.0.0.0" for ep in endpoints),
                     f"{self.ADVERTISED_LISTENERS_PROP} cannot use the nonroutable meta-address 0.0.0.0. "
                     "Use a routable IP address.")

def _java_int(text: str) -> int:
    """`String.toInt`: a NumberFormatException (an IllegalArgumentException) for anything but a 32-bit integer."""
    if re.fullmatch(r"[+-]?[0-9]+", text) is None or not -(2**31) <= int(text) <= INT_MAX:
        raise IllegalArgumentException(f'For input string: "{text}"')
    return int(text)


# --- Kafka 3.9's KafkaConfig.configType, for the request log's masking of sensitive values ---

_LISTENER_CONFIG_REGEX = re.compile(r"listener\.name\.[^.]*\.(.*)")  # DynamicBrokerConfig.ListenerConfigRegex


def config_type(config_name: str) -> Type | None:
    """KafkaConfig.configType: the type of a broker config, None if it is not one; a listener override
    (`listener.name.<l>.<name>`, or `listener.name.<l>.<mechanism>.<name>`) has the type of the config it
    overrides (DynamicBrokerConfig.brokerConfigSynonyms with matchListenerOverride)."""
    names = [config_name]
    match = _LISTENER_CONFIG_REGEX.fullmatch(config_name)
    if match is not None:
        base_name = match.group(1)
        names += [base_name, base_name[base_name.find(".") + 1:]]
    for name in names:
        key = CONFIG_DEF.config_keys.get(name)
        if key is not None:
            return key.type
    return None
