"""The TUI's model of a run: spans grouped into traces, bounded, evicting the oldest whole traces first.

Spans come from two files per process (TRACING.md): `<instance>.starts.jsonl` (a span has started) and
`<instance>.jsonl` (it has ended). A span seen only as a start is *running*; if its process is gone it is *lost*
(a kill -9 never writes the end). The store is fed in batches on the UI thread and never reads files itself.
"""

from __future__ import annotations

import bisect
import re
from collections import OrderedDict, deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from kafka_edu.tracing.query import SpanRecord

DEFAULT_MAX_SPANS = 100_000
ORPHANS = "orphans"  # the pseudo-node holding spans whose parent never arrived

# Trace kinds in the order the trace list shows their groups.
STARTUP, SHUTDOWN, CONTROLLER_EVENT, STATE_CHANGE, CONTROLLER_REQUEST = (
    "startup", "shutdown", "controller event", "state change", "controller request")
REPLICATION, NETWORK, OTHER = "replication", "network", "other"
RAFT, QUORUM_CONTROLLER = "raft", "quorum controller"  # KRaft: the Raft client's turns, the controller's events
BROKER_LIFECYCLE, METADATA = "broker lifecycle", "metadata"  # KRaft: a broker's registration and heartbeats; the
# metadata loader publishing committed records (brokers and controllers alike)
KIND_ORDER = (STARTUP, SHUTDOWN, CONTROLLER_EVENT, STATE_CHANGE, CONTROLLER_REQUEST, RAFT, QUORUM_CONTROLLER,
              BROKER_LIFECYCLE, METADATA, "request", REPLICATION, NETWORK, OTHER)
_ROOT_KINDS = {
    "Kafka.main": STARTUP, "KafkaServer.startup": STARTUP,
    "KafkaServer.shutdown": SHUTDOWN, "KafkaServer.awaitShutdown": SHUTDOWN,
    "Kafka.buildServer": STARTUP, "KafkaRaftServer.startup": STARTUP, "StorageTool.runFormatCommand": STARTUP,
    "BrokerServer.shutdown": SHUTDOWN, "ControllerServer.shutdown": SHUTDOWN, "KafkaRaftServer.shutdown": SHUTDOWN,
    "ControllerEventManager.process": CONTROLLER_EVENT,
    "PartitionStateMachine.handleStateChanges": STATE_CHANGE, "ReplicaStateMachine.handleStateChanges": STATE_CHANGE,
    "ControllerChannelManager.sendRequest": CONTROLLER_REQUEST, "RequestSendThread.doWork": CONTROLLER_REQUEST,
}


def trace_kind(root: SpanRecord) -> str:
    """The group a trace is listed under, from its root span: a client request is grouped by its API."""
    if root.name == "RequestChannel.Request":
        return f"request {root.attributes.get('kafka.api.name', '?')}"
    if root.name in _ROOT_KINDS:
        return _ROOT_KINDS[root.name]
    if root.name.startswith(("Processor.", "Acceptor.", "RequestChannel.")):
        return NETWORK
    if root.name.startswith(("AbstractFetcherThread.", "ReplicaFetcher", "Partition.")):
        return REPLICATION
    if root.name.startswith(("KafkaRaftClient", "QuorumState.")):
        return RAFT
    if root.name.startswith(("BrokerLifecycleManager.", "AlterPartitionManager.")) or (
            root.name.startswith("KafkaEventQueue.") and root.instance.startswith("broker-")):
        return BROKER_LIFECYCLE
    if root.name.startswith(("QuorumController.", "KafkaEventQueue.", "ReplicationControlManager.")):
        return QUORUM_CONTROLLER
    if root.name.startswith(("MetadataLoader.", "BrokerMetadataPublisher.")):
        return METADATA
    return OTHER


FOLLOWER_FETCHER = re.compile(r"broker-\d+-fetcher-\d+|raft-client-\d+")  # a replica fetcher, or a Raft voter
# The TUI's own requests that nobody asked for: the Quorum pane's DescribeQuorum polls (tui.quorum.QuorumAdmin), twice
# a second on a live KRaft run. The tool's traffic, not the cluster's: folded. (What the user asks for, the `P` key's
# produce burst, has the client id `kafka-edu-tui` and stays in the list.)
TUI_POLL_CLIENT_ID = "kafka-edu-tui-poll"
# An idle KRaft cluster's chatter (see Trace.quiet): the Raft fetches that carry the leader's NoOps (a follower's or
# observer's fetch, the answer, the append; the leader's poll and its NoOp append) and an event queue's turn that did
# nothing traced (a running broker's heartbeat, the controller's fencing check).
KRAFT_CHATTER = frozenset({
    "KafkaRaftClient.poll", "KafkaRaftClient.pollLeader", "KafkaRaftClient.pollFollower",
    "KafkaRaftClient.maybeSendFetchOrFetchSnapshot", "KafkaRaftClient.handleFetchRequest",
    "KafkaRaftClient.handleFetchResponse", "KafkaMetadataLog.appendAsLeader", "KafkaMetadataLog.appendAsFollower",
    "KafkaEventQueue.enqueue", "KafkaEventQueue.EventHandler.handleEvents"})


def is_background(root: SpanRecord) -> bool:
    """Background chatter, folded out of the trace list by default (`f` shows it): what an idle cluster does several
    times a second, which would otherwise bury everything else within minutes. The one rule, by the trace's root:

    - a follower's replica fetcher at work: `AbstractFetcherThread.*`;
    - a network processor's loop phases: `Processor.*` (poll, new connections, responses, completed sends);
    - the TUI's own polls (client id `kafka-edu-tui-poll`: the Quorum pane's DescribeQuorum, twice a second);
    - a Fetch request a follower's fetcher sent (client id `broker-N-fetcher-M`; at replication factor 3 each
      follower asks each leader twice a second) or a KRaft voter sent its leader (`raft-client-N`), and the
      empty answer of a long-poll Fetch that waited out its time: a `RequestChannel.sendResponse` root on the
      Fetch purgatory's `ExpirationReaper-N-Fetch` thread (1.0.2), or on a KRaft broker the re-read of its
      partitions, a `Partition.fetchRecords` root on the purgatory's timer thread `executor-Fetch` (3.9).

    On a KRaft run, a trace is folded too when it is KRaft chatter through and through (`Trace.quiet`): every span
    one of KRAFT_CHATTER's, none with an event. An election, a record committed and replayed, a heartbeat that says
    something new, a broker's state change: each brings a span or event of its own, and is shown.

    A trace with an error or lost records is never folded (`Trace.folded`)."""
    name, attributes = root.name, root.attributes
    if name.startswith(("AbstractFetcherThread.", "Processor.")):
        return True
    if name == "RequestChannel.Request":
        if attributes.get("kafka.client.id") == TUI_POLL_CLIENT_ID:
            return True
        return (attributes.get("kafka.api.name") == "Fetch"
                and FOLLOWER_FETCHER.fullmatch(str(attributes.get("kafka.client.id", ""))) is not None)
    thread = str(attributes.get("thread.name", ""))
    if not thread.endswith("-Fetch"):
        return False
    # 1.0.2: the reaper answers; 3.9: the purgatory's timer thread (`executor-Fetch`) re-reads the partitions
    # (RQ.fetch.5's onComplete). Runs recorded since that re-read stays in its request's trace (a child of RQ.fetch.3)
    # have no such root; older recordings do, and keep being folded.
    return ((name == "RequestChannel.sendResponse" and thread.startswith("ExpirationReaper-"))
            or (name == "Partition.fetchRecords" and thread.startswith("executor-")))


def kind_rank(kind: str) -> tuple[int, str]:
    return (KIND_ORDER.index("request" if kind.startswith("request ") else kind), kind)


def trace_label(root: SpanRecord) -> str:
    """A root span in a few words: the controller event or API it handles, else its name."""
    attributes = root.attributes
    detail = attributes.get("kafka.controller.event") or attributes.get("kafka.api.name")
    return f"{root.name} {detail}" if detail else root.name


@dataclass
class Trace:
    """One trace as far as it has arrived."""

    trace_id: str
    spans: dict[str, SpanRecord] = field(default_factory=dict)
    root: SpanRecord | None = None  # the span without a parent; until it arrives, the earliest span stands in
    running: int = 0  # spans seen started but not ended
    errors: int = 0
    start_ns: int = 0
    version: int = 0  # bumped on every change, so views redraw only what changed
    terms: set[str] = field(default_factory=set)  # lower-cased words the search matches
    background: bool = False  # its root is background chatter (is_background)
    quiet: bool = True  # every span so far is KRaft chatter (KRAFT_CHATTER) without an event
    records_lost: int = 0  # records a follower's truncation threw away, as its spans' events say

    @property
    def folded(self) -> bool:
        """Left out of the trace list unless background traffic is shown: chatter, unless something went wrong."""
        return (self.background or self.quiet) and not self.errors and not self.records_lost

    @property
    def instance(self) -> str:
        root = self.root
        return root.instance if root else ""

    @property
    def end_ns(self) -> int:
        return max((s.end_ns or s.start_ns for s in self.spans.values()), default=self.start_ns)

    def matches(self, needle: str) -> bool:
        return any(needle in term for term in self.terms)


class SpanStore:
    """Traces in memory, at most `max_spans` spans; the oldest whole finished traces are evicted first."""

    def __init__(self, max_spans: int = DEFAULT_MAX_SPANS) -> None:
        self.max_spans = max_spans
        self.traces: OrderedDict[str, Trace] = OrderedDict()  # in arrival order: eviction order
        self.span_count = 0
        self.version = 0
        self.evicted_traces = 0
        # Late spans of an evicted trace are dropped rather than starting a half trace again.
        self._evicted_ids: set[str] = set()
        self._evicted_order: deque[str] = deque()
        # kind -> [(start_ns, trace_id)] ascending; the trace list reads it newest first.
        self.groups: dict[str, list[tuple[int, str]]] = {}
        self._filed: dict[str, tuple[str, int]] = {}  # trace_id -> (kind, start_ns) it is filed under
        # Process restarts and deaths, so a span that will never end can be told from one still running.
        self.restarted_at: dict[str, int] = {}  # instance -> start of its newest Kafka.main
        self.dead_instances: set[str] = set()

    def __len__(self) -> int:
        return self.span_count

    def __iter__(self) -> Iterator[Trace]:
        return iter(self.traces.values())

    # -- ingestion ------------------------------------------------------------------------------------------------

    def add_ended(self, spans: Iterable[SpanRecord]) -> None:
        for span in spans:
            trace = self._trace_for(span)
            if trace is None:
                continue
            previous = trace.spans.get(span.span_id)
            if previous is not None and previous.end_ns:
                continue  # the same span twice (a file read again after truncation)
            if previous is None:
                self.span_count += 1
            else:
                trace.running -= 1
            trace.spans[span.span_id] = span
            if span.is_error:
                trace.errors += 1
            self._touched(trace, span)
        self._evict()

    def add_started(self, spans: Iterable[SpanRecord]) -> None:
        for span in spans:
            if span.name == "Kafka.main" and not span.parent_id:
                # A new process of this instance: whatever the previous one left running will never end.
                self.restarted_at[span.instance] = max(self.restarted_at.get(span.instance, 0), span.start_ns)
                self.dead_instances.discard(span.instance)
            trace = self._trace_for(span)
            if trace is None or span.span_id in trace.spans:
                continue  # its end is already here
            trace.spans[span.span_id] = span
            trace.running += 1
            self.span_count += 1
            self._touched(trace, span)
        self._evict()

    def set_dead(self, instances: set[str]) -> None:
        """Instances whose process is gone (from the manifest): their running spans are lost."""
        if instances != self.dead_instances:
            self.dead_instances = set(instances)
            self.version += 1

    def is_lost(self, span: SpanRecord) -> bool:
        """A span that started and will never end: its process was killed or restarted."""
        return not span.end_ns and (span.instance in self.dead_instances
                                    or span.start_ns < self.restarted_at.get(span.instance, 0))

    def _trace_for(self, span: SpanRecord) -> Trace | None:
        trace = self.traces.get(span.trace_id)
        if trace is None:
            if span.trace_id in self._evicted_ids:
                return None
            trace = self.traces[span.trace_id] = Trace(span.trace_id, start_ns=span.start_ns)
        return trace

    def _touched(self, trace: Trace, span: SpanRecord) -> None:
        trace.version += 1
        self.version += 1
        if trace.quiet and (span.name not in KRAFT_CHATTER or span.events):
            trace.quiet = False
        trace.terms.add(span.name.lower())
        for event in span.events:
            lost = event.attributes.get("kafka.records.lost")
            if isinstance(lost, int) and lost > 0:
                trace.records_lost += lost
        if span.step:
            trace.terms.add(span.step.lower())
        root = trace.root
        if (root is None or root.span_id == span.span_id or (root.parent_id and not span.parent_id)
                or (bool(root.parent_id) == bool(span.parent_id) and span.start_ns < root.start_ns)):
            trace.root = span
            trace.start_ns = span.start_ns
            trace.background = is_background(span)
            trace.terms.update((trace_label(span).lower(), span.instance.lower(), trace_kind(span).lower()))
            self._file(trace, trace_kind(span))

    def _file(self, trace: Trace, kind: str) -> None:
        """Keep each group's list sorted by start time; a trace moves when its root arrives."""
        key = (kind, trace.start_ns)
        old = self._filed.get(trace.trace_id)
        if old == key:
            return
        if old is not None:
            self._unfile(trace.trace_id, *old)
        bisect.insort(self.groups.setdefault(kind, []), (trace.start_ns, trace.trace_id))
        self._filed[trace.trace_id] = key

    def _unfile(self, trace_id: str, kind: str, start_ns: int) -> None:
        group = self.groups[kind]
        index = bisect.bisect_left(group, (start_ns, trace_id))
        if index < len(group) and group[index] == (start_ns, trace_id):
            del group[index]
        if not group:
            del self.groups[kind]

    def _evict(self) -> None:
        while self.span_count > self.max_spans and len(self.traces) > 1:
            # The oldest finished trace goes first: a running one (a broker's awaitShutdown lasts its whole life)
            # would lose the spans still to come. Only when every trace is running does the oldest go.
            trace_id = next((t for t, tr in self.traces.items() if not tr.running), next(iter(self.traces)))
            trace = self.traces.pop(trace_id)
            self.span_count -= len(trace.spans)
            self.evicted_traces += 1
            filed = self._filed.pop(trace_id, None)
            if filed is not None:
                self._unfile(trace_id, *filed)
            self._evicted_ids.add(trace_id)
            self._evicted_order.append(trace_id)
            if len(self._evicted_order) > self.max_spans:
                self._evicted_ids.discard(self._evicted_order.popleft())
            self.version += 1

    # -- questions views ask ----------------------------------------------------------------------------------------

    def find_span(self, trace_id: str, span_id: str) -> SpanRecord | None:
        """A span by its ids (a link names both), if it is held."""
        trace = self.traces.get(trace_id)
        return trace.spans.get(span_id) if trace is not None else None

    def kinds(self) -> list[str]:
        return sorted(self.groups, key=kind_rank)

    def newest_first(self, kind: str) -> list[str]:
        return [trace_id for _, trace_id in reversed(self.groups.get(kind, []))]
