"""Our own code, not a Kafka port: the KRaft controller quorum as the TUI shows it.

Four sources, each for what it knows best:
- the trace: each voter's Raft role and epoch (`raft.role.change` events, KR.role), on live and finished runs alike;
- DescribeQuorum, asked of the leader while the run is live: each voter's log end offset and lag, the high
  watermark, fetch times (the last answer is kept, and marked as such, when no voter answers);
- the metadata log on disk (`<run>/controller-<id>/logs/__cluster_metadata-0/*.log`): the committed records, read
  from the leader's log (or any live voter's) below the high watermark; each voter's log end offset on disk stands
  in for DescribeQuorum's on a run that was never asked;
- the KV spans (KIP-853): the voter set as each node read it from a VotersRecord, the requests that changed it and
  their commit, the controllers that observe (`VoterMembership`).

`QuorumPoller.poll` does the file and network work on a worker thread; `QuorumModel` is filed on the UI thread.
"""

from __future__ import annotations

import os
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from kafka_edu.cluster_runner.processes import process_alive
from kafka_edu.cluster_runner.run_directory import JsonFileWatch
from kafka_edu.tracing.query import SpanRecord
from kafka_edu.v1_0_2.clients.common.record.file_records import DefaultRecordBatch, FileRecords
from kafka_edu.v1_0_2.core.network.blocking_channel import BlockingChannel
from kafka_edu.v3_9.clients.common.protocol.api_keys import ApiKeys
from kafka_edu.v3_9.clients.common.record.control_record_utils import ControlRecordType, ControlRecordUtils
from kafka_edu.v3_9.clients.common.uuid import Uuid
from kafka_edu.v3_9.metadata.common.metadata.metadata_record_type import MetadataRecordType
from kafka_edu.v3_9.metadata.metadata.metadata_record_serde import MetadataRecordSerde
from kafka_edu.v3_9.tools.tools.metadata_quorum_command import ControllerAdmin
from tui.kraft_brokers import BrokerChange, KRaftBrokers
from tui.node_processes import NodeProcess, NodeView, node_id_of
from tui.store import TUI_POLL_CLIENT_ID

METADATA_PARTITION_DIR = "__cluster_metadata-0"
ROLE_EVENT = "raft.role.change"
NO_OP = "NO_OP_RECORD"
LEADER = "Leader"
DESCRIBE_TIMEOUT_S = 1.0  # a SIGSTOPped voter accepts the connection and never answers: give up on it soon
MAX_RECORDS = 20_000
_INT_MAX = 2**31 - 1


# -- the metadata log's records, one line each --------------------------------------------------------------------

@dataclass
class MetadataEntry:
    """One record of the metadata log, or a run of consecutive NoOps folded into one row (`count` of them)."""

    offset: int
    epoch: int  # the batch's partitionLeaderEpoch: the raft epoch of the leader that wrote it
    timestamp_ms: int
    kind: str  # the MetadataRecordType name, or the control record's ("LeaderChange", "KRaftVoters"...)
    summary: str = ""
    control: bool = False
    count: int = 1
    last_offset: int = -1
    broker: BrokerChange | None = None  # a broker registration record's meaning
    topic: str | None = None  # TOPIC_RECORD / REMOVE_TOPIC_RECORD: the topic's name

    def __post_init__(self) -> None:
        if self.last_offset < 0:
            self.last_offset = self.offset

    @property
    def folded(self) -> bool:
        return self.kind == NO_OP


class MetadataRecordDecoder:
    """Batches -> entries; keeps the topic ids it has seen so partition records can name their topic."""

    def __init__(self) -> None:
        self.serde = MetadataRecordSerde()
        self.topics: dict[Any, str] = {}

    def entries(self, batch: DefaultRecordBatch, from_offset: int) -> list[MetadataEntry]:
        found: list[MetadataEntry] = []
        epoch = batch.partition_leader_epoch
        for record in batch.records():
            if record.offset < from_offset:
                continue
            if batch.is_control_batch:
                kind, summary = self._control(record, epoch)
                entry = MetadataEntry(record.offset, epoch, record.timestamp, kind, summary, control=True)
            else:
                kind, summary, message = self._data(record.value, record.offset)
                entry = MetadataEntry(record.offset, epoch, record.timestamp, kind, summary,
                                      broker=broker_change(kind, message))
                if kind in ("TOPIC_RECORD", "REMOVE_TOPIC_RECORD"):
                    entry.topic = summary.split(" ", 1)[0] if kind == "TOPIC_RECORD" else summary
            fold(found, entry)
        return found

    def _control(self, record: Any, epoch: int) -> tuple[str, str]:
        control_type = ControlRecordType.parse(record.key)
        try:
            if control_type is ControlRecordType.LEADER_CHANGE:
                message = ControlRecordUtils.deserialize_leader_change_message(record)
                voters = ",".join(str(v.voter_id) for v in message.voters)
                return "LeaderChange", f"leader {message.leader_id} epoch {epoch} voters [{voters}]"
            if control_type is ControlRecordType.KRAFT_VERSION:
                message = ControlRecordUtils.deserialize_kraft_version_record(record)
                return "KRaftVersion", f"kraft.version {message.k_raft_version}"
            if control_type is ControlRecordType.KRAFT_VOTERS:
                message = ControlRecordUtils.deserialize_voters_record(record)
                return "KRaftVoters", "voters [" + ",".join(str(v.voter_id) for v in message.voters) + "]"
        except Exception as e:  # a record this reader cannot decode is shown as such, not raised
            return control_type.name, f"undecodable: {e}"
        return control_type.name, ""

    def _data(self, value: bytes | None, offset: int) -> tuple[str, str, Any]:
        try:
            if value is None:
                raise ValueError("no value")
            message = self.serde.read(value, len(value)).message
            kind = MetadataRecordType.for_message(message).name
        except Exception as e:
            return "?", f"undecodable at offset {offset}: {e}", None
        return kind, self.summary(kind, message), message

    def summary(self, kind: str, m: Any) -> str:
        """What a person wants from the record in one line; the whole of it is `kafka-edu dump-log`'s job."""
        if kind == "TOPIC_RECORD":
            self.topics[m.topic_id] = m.name
            return f"{m.name} ({_uuid(m.topic_id)})"
        if kind == "PARTITION_RECORD":
            return f"{self._topic(m.topic_id)}-{m.partition_id} replicas {_ids(m.replicas)} leader {m.leader}"
        if kind == "PARTITION_CHANGE_RECORD":
            text = f"{self._topic(m.topic_id)}-{m.partition_id}"
            if m.leader != -2:  # NO_LEADER_CHANGE
                text += f" leader {m.leader}"
            if m.isr is not None:
                text += f" isr {_ids(m.isr)}"
            if m.replicas is not None:
                text += f" replicas {_ids(m.replicas)}"
            return text
        if kind == "REMOVE_TOPIC_RECORD":
            return self._topic(m.topic_id)
        if kind in ("REGISTER_BROKER_RECORD", "UNREGISTER_BROKER_RECORD"):
            return f"broker {m.broker_id} epoch {m.broker_epoch}"
        if kind in ("FENCE_BROKER_RECORD", "UNFENCE_BROKER_RECORD"):
            return f"broker {m.id} epoch {m.epoch}"
        if kind == "BROKER_REGISTRATION_CHANGE_RECORD":
            # BrokerRegistrationFencingChange: 1 fence, -1 unfence, 0 none; the change first, where a narrow pane
            # still shows it
            changes = [{1: "fenced", -1: "unfenced"}[m.fenced]] if m.fenced in (1, -1) else []
            if m.in_controlled_shutdown == 1:
                changes.append("in controlled shutdown")
            said = f" {', '.join(changes)}," if changes else ""
            return f"broker {m.broker_id}{said} epoch {m.broker_epoch}"
        if kind == "FEATURE_LEVEL_RECORD":
            return f"{m.name} {m.feature_level}"
        if kind == "CONFIG_RECORD":
            resource = {2: "topic", 4: "broker", 8: "broker-logger"}.get(m.resource_type, str(m.resource_type))
            return f"{resource} {m.resource_name or '(default)'}: {m.name}={m.value}"
        if kind == "PRODUCER_IDS_RECORD":
            return f"broker {m.broker_id} next producer id {m.next_producer_id}"
        if kind in ("BEGIN_TRANSACTION_RECORD", "ABORT_TRANSACTION_RECORD"):
            return getattr(m, "name", None) or getattr(m, "reason", None) or ""
        return ""

    def _topic(self, topic_id: Any) -> str:
        return self.topics.get(topic_id) or _uuid(topic_id)


def broker_change(kind: str, m: Any) -> BrokerChange | None:
    """The registration change a record makes, as 3.9's ClusterControlManager replays it."""
    if kind == "REGISTER_BROKER_RECORD":  # a (re-)registration replaces the old one: fenced unless it says not
        return BrokerChange(m.broker_id, m.broker_epoch, bool(m.fenced), bool(m.in_controlled_shutdown))
    if kind == "UNREGISTER_BROKER_RECORD":
        return BrokerChange(m.broker_id, m.broker_epoch, registered=False)
    if kind in ("FENCE_BROKER_RECORD", "UNFENCE_BROKER_RECORD"):
        return BrokerChange(m.id, m.epoch, kind == "FENCE_BROKER_RECORD")
    if kind == "BROKER_REGISTRATION_CHANGE_RECORD":
        # BrokerRegistrationFencingChange 1 fence, -1 unfence, 0 none; InControlledShutdownChange 1 in it, 0 none
        return BrokerChange(m.broker_id, m.broker_epoch, {1: True, -1: False}.get(m.fenced),
                            True if m.in_controlled_shutdown == 1 else None)
    return None


def fold(entries: list[MetadataEntry], entry: MetadataEntry) -> None:
    """Append `entry`; a NoOp right after a NoOp row makes that row one longer instead."""
    last = entries[-1] if entries else None
    if entry.folded and last is not None and last.folded:
        last.count += entry.count
        last.last_offset = entry.last_offset
        last.epoch, last.timestamp_ms = entry.epoch, entry.timestamp_ms
    else:
        entries.append(entry)


def _ids(ids: Any) -> str:
    return "[" + ",".join(str(i) for i in ids) + "]"


def _uuid(value: Any) -> str:
    if isinstance(value, uuid.UUID):
        return str(Uuid.from_bytes(value.bytes))
    return str(value)


class MetadataLogTail:
    """The unread end of one voter's metadata log: its segments in offset order, read by batch from a position."""

    def __init__(self, log_dir: Path) -> None:
        self.log_dir = log_dir
        self.segment: Path | None = None
        self.position = 0
        self.end_offset: int | None = None  # the offset after the last whole batch read (None: no segment yet)

    def segments(self) -> list[Path]:
        try:
            found = [p for p in self.log_dir.glob("*.log") if p.stem.isdigit()]
        except OSError:
            return []
        return sorted(found, key=lambda p: int(p.stem))

    def read(self, upto: int | None = None, full: bool = True, skip_below: int = 0) -> list[DefaultRecordBatch]:
        """The whole batches written since the last read (loaded only if `full`, and not those wholly below
        `skip_below`); a batch reaching `upto` (the high watermark) or beyond stays unread until a later read."""
        segments = self.segments()
        if not segments:
            return []
        if self.end_offset is None:
            self.end_offset = int(segments[0].stem)  # an empty log ends where its first segment begins
        if self.segment not in segments:  # the first read, or the segment was deleted: the oldest one left
            later = [p for p in segments if self.segment is None or int(p.stem) > int(self.segment.stem)]
            self.segment, self.position = (later or segments)[0], 0
        found: list[DefaultRecordBatch] = []
        index = segments.index(self.segment)
        for segment in segments[index:]:
            if segment != self.segment:
                self.segment, self.position = segment, 0
            if not self._read_segment(segment, upto, full, skip_below, found):
                break
        return found

    def _read_segment(self, segment: Path, upto: int | None, full: bool, skip_below: int,
                      found: list[DefaultRecordBatch]) -> bool:
        """False when reading stopped at `upto`."""
        try:
            fd = os.open(segment, os.O_RDONLY)
        except OSError:
            return True
        try:
            records = FileRecords(segment, fd, 0, _INT_MAX, is_slice=False)
            if records.size_in_bytes() < self.position:  # truncated under us: read it again
                self.position = 0
            for batch in records.batches_from(self.position):
                last = batch.last_offset
                if upto is not None and last >= upto:
                    return False
                if full and last >= skip_below:
                    found.append(batch.load_full_batch())
                self.position += batch.size_in_bytes
                self.end_offset = last + 1
        except Exception:  # a batch still being written or torn: read it again next time
            return False
        finally:
            os.close(fd)
        return True


# -- DescribeQuorum -----------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class ReplicaProgress:
    log_end_offset: int
    last_fetch_ms: int
    last_caught_up_ms: int


@dataclass(frozen=True)
class Replication:
    """One DescribeQuorum answer, and when it came (wall clock)."""

    leader_id: int
    leader_epoch: int
    high_watermark: int
    voters: dict[int, ReplicaProgress]
    at: float

    @property
    def leader_end_offset(self) -> int | None:
        leader = self.voters.get(self.leader_id)
        return leader.log_end_offset if leader is not None else None


class QuorumAdmin(ControllerAdmin):
    """metadata-quorum's client with a short read timeout: the TUI asks twice a second and must not hang on a
    paused voter. Its client id is the TUI's polling one, so the trace list folds these requests as background
    traffic (tui.store.is_background): the tool's own traffic is not the cluster's."""

    def _send(self, api: ApiKeys, version: int, body: Any, address: tuple[str, int]) -> Any:
        channel = BlockingChannel(address[0], address[1], DESCRIBE_TIMEOUT_S, TUI_POLL_CLIENT_ID)
        try:
            return channel.send_and_receive(api, version, body)
        finally:
            channel.disconnect()


def describe_quorum(addresses: list[str]) -> Replication:
    """DescribeQuorum, tried on `addresses` in order (the leader first, when known); raises when none answers."""
    partition, _ = QuorumAdmin(",".join(addresses)).describe_metadata_quorum()
    voters = {v.replica_id: ReplicaProgress(v.log_end_offset, v.last_fetch_timestamp, v.last_caught_up_timestamp)
              for v in partition.current_voters}
    return Replication(partition.leader_id, partition.leader_epoch, partition.high_watermark, voters, time.time())


# -- what one poll found --------------------------------------------------------------------------------------------

@dataclass
class QuorumBatch:
    manifest: dict[str, Any] | None = None
    alive: dict[int, bool] = field(default_factory=dict)  # node id -> its process runs (a finished run: none)
    replication: Replication | None = None  # a new answer
    replication_error: str | None = None  # DescribeQuorum failed this time ("" when it was not asked)
    disk_end_offsets: dict[int, int] = field(default_factory=dict)
    records: list[MetadataEntry] = field(default_factory=list)
    source: int | None = None  # whose log the records were read from
    high_watermark_limit: int | None = None  # records at or above this offset were held back


class QuorumPoller:
    """Files and sockets, on a worker thread: the manifest, the voters' processes, DescribeQuorum, the logs."""

    def __init__(self, run_dir: Path, describe: Callable[[list[str]], Replication] | None = None) -> None:
        self.run_dir = Path(run_dir)
        self.describe = describe or (lambda addresses: describe_quorum(addresses))  # looked up when called
        self.tails: dict[int, MetadataLogTail] = {}
        self.decode_tail: MetadataLogTail | None = None
        self.source: int | None = None
        self.decoder = MetadataRecordDecoder()
        self.next_offset = 0  # records before this one have been handed over
        self.last_replication: Replication | None = None
        self._manifest = JsonFileWatch(self.run_dir / "manifest.json")
        self.manifest: dict[str, Any] = {}

    def controllers(self) -> list[dict[str, Any]]:
        return [p for p in self.manifest.get("processes", []) if p.get("role") == "controller"]

    def log_dir(self, node_id: int) -> Path:
        return self.run_dir / f"controller-{node_id}" / "logs" / METADATA_PARTITION_DIR

    def poll(self, leader_hint: int | None = None) -> QuorumBatch:
        batch = QuorumBatch()
        self._read_manifest(batch)
        live = bool(self.manifest) and not self.manifest.get("stopped_at")
        for entry in self.controllers():
            batch.alive[entry["id"]] = live and process_alive(entry.get("pid"))
        if live:
            self._describe(batch, leader_hint)
        for entry in self.controllers():
            tail = self.tails.setdefault(entry["id"], MetadataLogTail(self.log_dir(entry["id"])))
            tail.read(full=False)
            if tail.end_offset is not None:
                batch.disk_end_offsets[entry["id"]] = tail.end_offset
        self._read_records(batch, leader_hint)
        return batch

    def _read_manifest(self, batch: QuorumBatch) -> None:
        manifest = self._manifest.read_if_changed()
        if manifest is not None:
            self.manifest = batch.manifest = manifest

    def _describe(self, batch: QuorumBatch, leader_hint: int | None) -> None:
        answered = self.last_replication.leader_id if self.last_replication is not None else None
        reachable = [e for e in self.controllers() if batch.alive.get(e["id"]) and e.get("state") != "paused"
                     and e.get("port")]
        # The leader first (only it answers): the last answer's, else the trace's; a follower only says it is not.
        reachable.sort(key=lambda e: (e["id"] != answered, e["id"] != leader_hint, e["id"]))
        if not reachable:
            batch.replication_error = "no voter is running"
            return
        try:
            batch.replication = self.last_replication = self.describe([f"{e.get('address', '127.0.0.1')}:{e['port']}"
                                                                         for e in reachable])
        except Exception as e:  # no leader yet, an election, a voter going away: keep the last answer
            batch.replication_error = str(e) or type(e).__name__

    def _read_records(self, batch: QuorumBatch, leader_hint: int | None) -> None:
        """From the leader's log, else the live voter's with the longest log (any voter's on a finished run), up to
        the high watermark when one is known."""
        leader = self.last_replication.leader_id if self.last_replication is not None else leader_hint
        candidates = [node for node, alive in batch.alive.items() if alive] or list(batch.alive)
        if not candidates:
            return
        if leader in candidates:
            source = leader
        elif self.source in candidates:
            source = self.source
        else:
            source = max(candidates, key=lambda node: (batch.disk_end_offsets.get(node, 0), -node))
        if source != self.source or self.decode_tail is None:
            self.source, self.decode_tail = source, MetadataLogTail(self.log_dir(source))
        batch.source = source
        limit = self.last_replication.high_watermark if self.last_replication is not None else None
        batch.high_watermark_limit = limit
        for record_batch in self.decode_tail.read(upto=limit, skip_below=self.next_offset):
            if record_batch.last_offset < self.next_offset:
                continue  # shown already, from another voter's log
            for entry in self.decoder.entries(record_batch, self.next_offset):
                fold(batch.records, entry)
            self.next_offset = record_batch.last_offset + 1


# -- the model --------------------------------------------------------------------------------------------------

@dataclass
class RoleChange:
    time_ns: int
    role: str
    epoch: int
    leader: int | None = None


# -- the voter set (KIP-853) ---------------------------------------------------------------------------------------

@dataclass(frozen=True)
class VoterKey:
    """One voter of the set: its node id and directory id (Kafka's base64 Uuid), and its endpoint where known."""

    node_id: int
    directory_id: str = ""
    endpoint: str = ""

    @property
    def short_directory(self) -> str:
        return self.directory_id[:8] if self.directory_id else "—"


@dataclass
class VotersChange:
    """A VotersRecord (its offset; -1 the bootstrap checkpoint's set), or an AddRaftVoter / RemoveRaftVoter request
    that was refused (offset None): the set before and after, when it took effect and when it was committed."""

    offset: int | None
    time_ns: int
    before: tuple[int, ...]
    after: tuple[int, ...]
    instance: str = ""
    committed_ns: int | None = None
    request: str = ""  # "add" | "remove" when a traced request made it
    voter: int | None = None  # the voter the request named
    error: str = ""  # the request's answer, when not NONE
    applied_on: set[str] = field(default_factory=set)  # the nodes whose trace shows it read

    @property
    def added(self) -> tuple[int, ...]:
        return tuple(v for v in self.after if v not in self.before)

    @property
    def removed(self) -> tuple[int, ...]:
        return tuple(v for v in self.before if v not in self.after)


def describe_change(change: VotersChange) -> str:
    """`[1,2,3] → [1,2,3,4]: +4 (offset 153)`."""
    moved = [f"+{v}" for v in change.added] + [f"−{v}" for v in change.removed]
    where = f"offset {change.offset}" if change.offset is not None and change.offset >= 0 else "bootstrap"
    return f"{_ids(change.before)} → {_ids(change.after)}: {' '.join(moved) or 'unchanged'} ({where})"


class VoterMembership:
    """The quorum's voter set as it changes, from the KV spans: the newest KV.voters (each node traces the set it read
    from a VotersRecord, when it appended it), the bootstrap set (KV.format, KV.init), the requests that change it
    (KV.add, KV.apiv, KV.remove) and their commit (KV.commit); KV.observe names the controllers that are observers."""

    def __init__(self) -> None:
        self._ids: tuple[int, ...] | None = None  # the newest set known (None: no KV span seen)
        self.offset = -2  # the newest set's VotersRecord offset (-1: the bootstrap checkpoint)
        self._committed: dict[int, int] = {}  # VotersRecord offset -> when KV.commit saw the high watermark pass it
        self.changes: dict[int, VotersChange] = {}  # by offset
        self.refused: list[VotersChange] = []
        self.endpoints: dict[int, str] = {}
        self.directories: dict[int, str] = {}
        self.observing: dict[int, int] = {}  # node id -> when its trace last said it observes
        self._requests: dict[int, tuple[str, int, int]] = {}  # VotersRecord offset -> (add|remove, voter, time)
        self.version = 0
        self.log: Callable[[int, str, str, str], None] | None = None  # (time_ns, instance, text, level)

    @property
    def voters(self) -> list[VoterKey] | None:
        """The newest set, each voter with the directory id and endpoint known for it by now."""
        return [self.key(node) for node in self._ids] if self._ids is not None else None

    @property
    def voter_ids(self) -> list[int] | None:
        return list(self._ids) if self._ids is not None else None

    def is_observer(self, node_id: int) -> bool:
        """A controller that is not in the newest voter set (or whose trace says it observes, with no set known)."""
        ids = self.voter_ids
        return node_id not in ids if ids is not None else node_id in self.observing

    def history(self) -> list[VotersChange]:
        """Every change, oldest first (the bootstrap set first), refused requests where they happened."""
        return sorted([*self.changes.values(), *self.refused], key=lambda c: (c.time_ns, c.offset or 0))

    def key(self, node_id: int, directory_id: str = "") -> VoterKey:
        return VoterKey(node_id, directory_id or self.directories.get(node_id, ""), self.endpoints.get(node_id, ""))

    def observe(self, span: SpanRecord) -> bool:
        step, a = span.step, span.attributes
        if step is None or not step.startswith("KV."):
            return False
        for item in a.get("kafka.raft.voters.keys") or ():
            self._read_key(str(item))
        for item in a.get("kafka.raft.voters.endpoints") or ():  # KV.init, KV.voters: `id@host:port`
            node, _, endpoint = str(item).partition("@")
            if node.isdigit() and endpoint:
                self.endpoints[int(node)] = endpoint
        if step == "KV.init":
            if a.get("kafka.raft.is_voter") is False and (node := node_id_of(span.instance, "controller")) is not None:
                self.observing[node] = span.end_ns
            if isinstance(a.get("kafka.raft.voters.offset"), int) and a["kafka.raft.voters.offset"] >= -1:
                self._set(a["kafka.raft.voters.offset"], span, a.get("kafka.raft.voters") or [], None)
        elif step == "KV.voters":
            offset = a.get("kafka.raft.voters.offset")
            if isinstance(offset, int):
                self._set(offset, span, a.get("kafka.raft.voters") or [], a.get("kafka.raft.voters.before"))
        elif step == "KV.observe":
            if (node := node_id_of(span.instance, "controller")) is not None:
                self.observing[node] = span.end_ns
                if isinstance(a.get("kafka.raft.directory_id"), str):
                    self.directories.setdefault(node, a["kafka.raft.directory_id"])
        elif step in ("KV.add", "KV.remove"):
            self._request(span, "add" if step == "KV.add" else "remove")
        elif step == "KV.apiv":
            offset, voter = a.get("kafka.raft.voters_record.offset"), a.get("kafka.raft.voter.id")
            if isinstance(offset, int) and isinstance(voter, int):
                self._link(offset, "add", voter, span.end_ns)
        elif step == "KV.commit":
            offset = a.get("kafka.raft.voters_record.offset")
            if isinstance(offset, int):
                change = self.changes.get(offset)
                if change is not None and change.committed_ns is None:
                    change.committed_ns = span.end_ns
                if offset not in self._committed:
                    self._committed[offset] = span.end_ns
                    what = a.get("kafka.raft.voters.change", "change")
                    self._log(span.end_ns, span.instance, f"voter {what} at offset {offset} committed "
                              f"(high watermark {a.get('kafka.raft.high_watermark', '?')})", "controller")
        else:
            return False
        self.version += 1
        return True

    def _read_key(self, item: str) -> None:
        """`id:dir` (KV.init, KV.voters) or `id@host:port:dir` (KV.format)."""
        if "@" in item:
            node, _, rest = item.partition("@")
            endpoint, _, directory = rest.rpartition(":")
            if node.isdigit():
                self.endpoints.setdefault(int(node), endpoint)
                self.directories[int(node)] = directory
            return
        node, _, directory = item.partition(":")
        if node.isdigit() and directory:
            self.directories[int(node)] = directory

    def _set(self, offset: int, span: SpanRecord, after: list[Any], before: list[Any] | None) -> None:
        after_ids = tuple(sorted(int(v) for v in after))
        if self._ids is None or offset > self.offset:  # every node reads the same record: the highest offset wins
            self._ids, self.offset = after_ids, offset
        change = self.changes.get(offset)
        if change is None:
            before_ids = tuple(sorted(int(v) for v in before)) if before is not None else ()
            change = self.changes[offset] = VotersChange(offset, span.end_ns, before_ids, after_ids, span.instance)
            request = self._requests.get(offset)
            if request is not None:
                change.request, change.voter = request[0], request[1]
            change.committed_ns = self._committed.get(offset)
            if offset >= 0 and (change.added or change.removed):
                self._log(span.end_ns, span.instance, "voters " + describe_change(change), "controller")
            elif offset == -1:
                self._log(span.end_ns, span.instance, f"voters {_ids(after_ids)} (bootstrap checkpoint)", "info")
        elif before is not None and not change.before:
            change.before = tuple(sorted(int(v) for v in before))
        if span.end_ns < change.time_ns:  # the node that appended it first (the leader) names it
            change.time_ns, change.instance = span.end_ns, span.instance
        change.applied_on.add(span.instance)

    def _request(self, span: SpanRecord, kind: str) -> None:
        a = span.attributes
        voter = a.get("kafka.raft.voter.id")
        if not isinstance(voter, int):
            return
        directory = a.get("kafka.raft.voter.directory_id")
        if isinstance(directory, str) and directory:
            self.directories.setdefault(voter, directory)
        listeners = sorted(k for k in a if k.startswith("kafka.raft.voter.listener."))
        if listeners:
            self.endpoints[voter] = str(a[listeners[0]])
        error = str(a.get("kafka.error") or "")
        offset = a.get("kafka.raft.voters_record.offset")
        if a.get("kafka.raft.voters.answered") and error and error != "NONE":
            before = tuple(sorted(int(v) for v in a.get("kafka.raft.voters.before") or ()))
            self.refused.append(VotersChange(None, span.end_ns, before, before, span.instance, request=kind,
                                             voter=voter, error=error))
            self._log(span.end_ns, span.instance, f"{'AddRaftVoter' if kind == 'add' else 'RemoveRaftVoter'} "
                      f"{voter} refused: {error}", "warning")
        elif isinstance(offset, int):
            self._link(offset, kind, voter, span.end_ns)

    def _log(self, time_ns: int, instance: str, text: str, level: str) -> None:
        if self.log is not None:
            self.log(time_ns, instance, text, level)

    def _link(self, offset: int, kind: str, voter: int, time_ns: int) -> None:
        self._requests[offset] = (kind, voter, time_ns)
        change = self.changes.get(offset)
        if change is not None:
            change.request, change.voter = kind, voter


@dataclass
class VoterProcess(NodeProcess):
    change: RoleChange | None = None
    high_watermark: tuple[int, int] | None = None  # (time, offset) from its newest KR.poll span that did work


@dataclass
class VoterView(NodeView[VoterProcess]):
    process_role: ClassVar[str] = "controller"
    process_type: ClassVar[type[VoterProcess]] = VoterProcess

    disk_end_offset: int | None = None

    @property
    def change(self) -> RoleChange | None:
        """The newest process's last role change, as its trace tells it."""
        newest = self.newest
        return newest.change if newest is not None else None

    @property
    def role(self) -> str:
        change = self.change
        return change.role if change is not None else "—"

    @property
    def epoch(self) -> int | None:
        change = self.change
        return change.epoch if change is not None else None

    @property
    def status(self) -> str:
        """Its role while it runs; what happened to it when it does not (a killed leader is no leader)."""
        return self.not_running_status or (self.role if self.change is not None else "starting")


@dataclass
class QuorumModel:
    voters: dict[int, VoterView] = field(default_factory=dict)
    cluster_id: str = ""
    live: bool = False
    replication: Replication | None = None
    replication_error: str | None = None  # the last DescribeQuorum failed: `replication` is the last known
    records: list[MetadataEntry] = field(default_factory=list)
    noops: int = 0
    records_source: int | None = None
    high_watermark_limit: int | None = None
    version: int = 0
    records_version: int = 0
    add_log: Callable[[int, str, str, str], None] | None = None  # (time_ns, instance, text, level) to the Log pane
    brokers: KRaftBrokers = field(default_factory=KRaftBrokers)  # the run's brokers (tui.kraft_brokers)
    membership: VoterMembership = field(default_factory=VoterMembership)  # the voter set as it changes (KIP-853)

    def __post_init__(self) -> None:
        self.brokers.log = self._log  # looks add_log up when it logs: tests set it after construction
        self.membership.log = self._log

    def voter(self, node_id: int) -> VoterView:
        if node_id not in self.voters:
            self.voters[node_id] = VoterView(node_id)
        return self.voters[node_id]

    @property
    def leader_id(self) -> int | None:
        """The voter that leads the highest epoch any running voter knows, while it still runs; a paused leader is
        still the leader until the others elect another (then a higher epoch wins)."""
        best: tuple[int, int] | None = None
        for voter in self.voters.values():
            if voter.alive and voter.role == LEADER and voter.epoch is not None:
                if best is None or voter.epoch > best[0]:
                    best = (voter.epoch, voter.node_id)
        if best is None:
            return None
        if any(v.alive and (v.epoch or -1) > best[0] for v in self.voters.values()):
            return None  # someone has moved on to a newer epoch with no leader (yet) that we know
        return best[1]

    @property
    def last_leader(self) -> tuple[int, int] | None:
        """(node id, epoch) of the newest leader the trace names, running or not: a finished run's last leader."""
        leaders = [(v.epoch, v.node_id) for v in self.voters.values() if v.role == LEADER and v.epoch is not None]
        return (max(leaders)[1], max(leaders)[0]) if leaders else None

    @property
    def epoch(self) -> int:
        return max((v.epoch for v in self.voters.values() if v.epoch is not None), default=-1)

    # -- facts ------------------------------------------------------------------------------------------------------

    def observe_manifest(self, manifest: dict[str, Any]) -> None:
        self.cluster_id = manifest.get("cluster_id") or ""
        self.live = not manifest.get("stopped_at")
        for process in manifest.get("processes", []):
            if process.get("role") == VoterView.process_role:
                self.voter(process["id"]).observe_entry(process)
                if process.get("port"):  # its CONTROLLER listener, until a KV span names the voter's own endpoint
                    self.membership.endpoints.setdefault(
                        process["id"], f"{process.get('address', '127.0.0.1')}:{process['port']}")
        self.brokers.observe_manifest(manifest)
        self.version += 1

    def observe_dead(self, instances: set[str]) -> None:
        """Broker processes found gone (tui.reader); the controllers' are polled here (QuorumBatch.alive)."""
        self.brokers.observe_dead(instances)
        self.version += 1

    def observe_ended(self, spans: list[SpanRecord]) -> None:
        self.brokers.observe_ended(spans)
        for span in spans:
            self.membership.observe(span)
            node_id = node_id_of(span.instance, VoterView.process_role)
            if node_id is None:
                continue
            voter = self.voter(node_id)
            process = voter.track(span)
            high_watermark = span.attributes.get("kafka.raft.high_watermark")
            if process is not None and isinstance(high_watermark, int) and high_watermark >= 0 and (
                    process.high_watermark is None or process.high_watermark[0] <= span.end_ns):
                process.high_watermark = (span.end_ns, high_watermark)
            for event in span.events:
                change = role_change(event.time_ns, event.attributes) if event.name == ROLE_EVENT else None
                if change is None:
                    continue
                if process is not None and (process.change is None or process.change.time_ns <= event.time_ns):
                    process.change = change
                self._log(event.time_ns, voter.instance, _role_text(node_id, change, event.attributes),
                          "controller" if change.role == LEADER else "info")
        if spans:
            self._refresh()

    def observe_poll(self, batch: QuorumBatch) -> None:
        if batch.manifest is not None:
            self.observe_manifest(batch.manifest)
        for node_id, alive in batch.alive.items():
            self.voter(node_id).alive = alive
        for node_id, offset in batch.disk_end_offsets.items():
            self.voter(node_id).disk_end_offset = offset
        if batch.replication is not None:
            self.replication, self.replication_error = batch.replication, None
        elif batch.replication_error is not None:
            self.replication_error = batch.replication_error
        if batch.records:
            self.brokers.observe_records(batch.records)
            for entry in batch.records:
                if entry.folded:
                    self.noops += entry.count
                fold(self.records, entry)
            if len(self.records) > MAX_RECORDS:
                del self.records[: len(self.records) - MAX_RECORDS]
            self.records_version += 1
        if batch.source is not None:
            self.records_source = batch.source
        self.high_watermark_limit = batch.high_watermark_limit
        self._refresh()

    # -- what the pane asks -----------------------------------------------------------------------------------------

    def _reported(self, node_id: int) -> bool:
        """DescribeQuorum knows this voter's offset (a new leader reports -1 for a voter that has not fetched from it,
        such as one killed before the election)."""
        return self.replication is not None and self.replication.voters.get(node_id) is not None \
            and self.replication.voters[node_id].log_end_offset >= 0

    def end_offset(self, node_id: int) -> int | None:
        """The voter's log end offset: DescribeQuorum's (the leader's view of it), else its log on disk."""
        if self._reported(node_id):
            return self.replication.voters[node_id].log_end_offset
        return self.voters[node_id].disk_end_offset if node_id in self.voters else None

    def lag(self, node_id: int) -> int | None:
        """Records behind the leader (DescribeQuorum; a voter it cannot report, by its log on disk), else behind the
        longest log on disk."""
        mine = self.end_offset(node_id)
        if mine is None:
            return None
        if self.replication is not None and self.replication.leader_end_offset is not None:
            top = self.replication.leader_end_offset
        else:
            top = max((v.disk_end_offset for v in self.voters.values() if v.disk_end_offset is not None), default=0)
        return max((top or 0) - mine, 0)

    def high_watermark(self, node_id: int) -> int | None:
        """The leader's from DescribeQuorum (it reports the leader's); any voter's as its trace last told it (a
        KR.poll span that did work records the replica's high watermark)."""
        if self.replication is not None and self.replication.leader_id == node_id:
            return self.replication.high_watermark
        voter = self.voters.get(node_id)
        newest = voter.newest if voter is not None else None
        return newest.high_watermark[1] if newest is not None and newest.high_watermark is not None else None

    @property
    def replication_state(self) -> str:
        """fresh | last known | disk (no DescribeQuorum answer ever: log end offsets from the logs on disk)."""
        if self.replication is None:
            return "disk"
        return "fresh" if self.live and self.replication_error is None else "last known"

    # -- rules ------------------------------------------------------------------------------------------------------

    def _refresh(self) -> None:
        """A process that is not its voter's newest ended (a restart took its place), and on a live run a voter found
        gone ended now: the Log pane says so, once. A finished run's last processes were stopped with it."""
        for voter in self.voters.values():
            for process, newest in voter.ended(self.live):
                was = f" as {process.change.role} in epoch {process.change.epoch}" if process.change else ""
                who = f"controller {voter.node_id} (pid {process.pid})"
                if process is not newest:
                    text, level = f"{who} ended{was}; pid {newest.pid} took its place", "warning"
                elif voter.manifest_state == "killed":
                    text, level = f"{who} killed{was}", "warning"
                else:
                    text, level = f"{who} {voter.gone_as}{was}", "info"
                self._log(process.last_ns, voter.instance, text, level)
        self.version += 1

    def _log(self, time_ns: int, instance: str, text: str, level: str) -> None:
        if self.add_log is not None:
            self.add_log(time_ns, instance, text, level)


def role_change(time_ns: int, attributes: dict[str, Any]) -> RoleChange | None:
    """A `raft.role.change` event's new role, epoch and leader (KR.role's describer names them `kafka.raft.role.to`,
    `kafka.raft.epoch`, `kafka.raft.leader.id` with -1 for none; the short names are read too)."""
    to = attributes.get("kafka.raft.role.to", attributes.get("to"))
    if to is None:
        return None
    epoch = attributes.get("kafka.raft.epoch", attributes.get("epoch", -1))
    leader = attributes.get("kafka.raft.leader.id", attributes.get("leader"))
    return RoleChange(time_ns, str(to), int(epoch), leader if isinstance(leader, int) and leader >= 0 else None)


def _role_text(node_id: int, change: RoleChange, attributes: dict[str, Any]) -> str:
    old = attributes.get("kafka.raft.role.from", attributes.get("from", "?"))
    text = f"controller {node_id}: {old} → {change.role}, epoch {change.epoch}"
    if change.role == "Follower" and change.leader is not None:
        text += f", leader {change.leader}"
    if change.role == LEADER:
        text = "★ " + text
    return text


def is_kraft(manifest: dict[str, Any]) -> bool:
    return manifest.get("mode") == "kraft"
