"""Our own code, not a Kafka port: who talked to whom in a recorded lesson run, drawn as a sequence diagram.

A recorded run (`traces/samples/lesson-<name>/`, see traces/samples/record_lessons.py) is the lesson's spans and
`lesson.json`, which says when each step acted and which broker processes ended or were paused. From them:

- `messages`: every request a broker received (`RequestChannel.Request`), from the process that sent it (the
  controller's send thread, a broker's replica fetcher or controlled shutdown, else a client), a controller request
  that no broker received, each ZooKeeper write a span stands for (`ZOOKEEPER_WRITES`), and each controller event a
  ZooKeeper watch fired (`WATCHED_EVENTS`);
- `marks`: what happened to a process without talking to another: it started, reached a BrokerState, began its
  shutdown, was refused, was killed, paused or resumed;
- `rows`: both in time order, repeats close together merged, under a header per lesson step;
- `draw`: the rows as an SVG (matplotlib, no network): a lane per process (clients, broker-0..N, ZooKeeper), time
  going down, each arrow labelled with the span (or request) it is;

A KRaft run (Kafka 3.9, manifest mode "kraft") has controller lanes instead of ZooKeeper's: the requests a
controller received are Raft RPCs from another controller (client id `raft-client-<node>`) or a broker's
registration, heartbeats and forwarded requests (client id `<node>`), and its marks are Raft role changes (Candidate,
Leader, Resigned) and KRaft broker states;
- `figures`: the run's numbers that the spans hold (startups, stops, elections, how long a dead broker went
  unnoticed), for the table beside the diagram.
"""

from __future__ import annotations

import gzip
import io
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kafka_edu.tracing.query import SpanRecord, Spans, parse_traces_line

ZOOKEEPER = "ZooKeeper"
CLIENTS = "clients"
MERGE_NS = 3_000_000_000  # the same message again within 3 s of the last one joins its row (×N)

# span name -> the znode it writes (formatted with the span's attributes; `broker` is the writing broker's id)
ZOOKEEPER_WRITES = {
    "KafkaServer.initZk": "opens a session",
    "KafkaHealthcheck.register": "/brokers/ids/{broker}, ephemeral",
    "KafkaController.elect": "/controller",
    "KafkaController.incrementControllerEpoch": "/controller_epoch = {kafka.controller.epoch}",
    "KafkaController.triggerControllerMove": "deletes /controller",
    "PartitionStateMachine.handleStateChanges": "leader and ISR of {partitions} partition(s)",
    "Partition.updateIsr": "ISR of {kafka.topic}-{kafka.partition} = {kafka.isr}",
    "ReplicaManager.maybePropagateIsrChanges": "{kafka.zk.path}",
    "ZkUtils.close": "closes the session",
}
# controller events that a ZooKeeper watch queues (the others come from the broker itself or from a response)
WATCHED_EVENTS = {"ControllerChange", "Reelect", "BrokerChange", "TopicChange", "PartitionModifications",
                  "TopicDeletion", "PartitionReassignment", "PartitionReassignmentIsrChange", "IsrChangeNotification",
                  "LogDirEventNotification", "PreferredReplicaLeaderElection"}
SHOWN_STATES = {"RecoveringFromUncleanShutdown", "RunningAsBroker", "PendingControlledShutdown",
                "RECOVERY", "RUNNING", "PENDING_CONTROLLED_SHUTDOWN"}  # 1.0.2's names, then a KRaft broker's
SHOWN_ROLES = {"Candidate", "Leader", "Resigned"}  # a KRaft controller's Raft role changes drawn as marks
_FETCHER = re.compile(r"^broker-(\d+)-fetcher-\d+$")
_CONTROLLER = re.compile(r"^controller-(\d+)$")
_RAFT_CLIENT = re.compile(r"^raft-client-(\d+)$")

# colours (kind -> colour), shared by the arrows, the marks and the legend
COLOURS = {"client": "#1f5fa8", "controller": "#7b3fa0", "broker": "#2a7f62", "fetch": "#2a7f62",
           "zookeeper": "#c05a00", "watch": "#c05a00", "lost": "#c0392b",
           "start": "#444444", "state": "#2a7f62", "recovering": "#c05a00", "stop": "#444444",
           "killed": "#c0392b", "refused": "#c0392b", "paused": "#7b3fa0", "resumed": "#7b3fa0"}


@dataclass
class Recorded:
    """One recorded lesson run: its spans, `lesson.json` and manifest."""

    path: Path
    spans: Spans
    lesson: dict[str, Any]
    manifest: dict[str, Any]

    @property
    def mode(self) -> str:
        return self.manifest.get("mode", "zk")

    @property
    def brokers(self) -> list[str]:
        ids = sorted(p["id"] for p in self.manifest.get("processes", []) if p.get("role") == "broker")
        return [f"broker-{i}" for i in ids]

    @property
    def controllers(self) -> list[str]:
        """A KRaft run's controller lanes (none in ZooKeeper mode)."""
        ids = sorted(p["id"] for p in self.manifest.get("processes", []) if p.get("role") == "controller")
        return [f"controller-{i}" for i in ids]

    @property
    def lanes(self) -> list[str]:
        """Left to right: the clients, the brokers, then ZooKeeper or the KRaft controllers."""
        return [CLIENTS, *self.brokers, *(self.controllers if self.mode == "kraft" else [ZOOKEEPER])]

    @property
    def t0(self) -> int:
        """The run's first span: the clock the diagram's times count from."""
        return self.spans.first().start_ns

    def step_times(self) -> list[tuple[str, int, int]]:
        """(title, when its action began, when its check held) per lesson step, in order."""
        return [(s["title"], s["action_ns"], s["ended_ns"]) for s in self.lesson.get("steps", [])]


def load_spans(path: Path) -> Spans:
    """Every span of a run directory whose span files are plain (`*.jsonl`) or gzipped (`*.jsonl.gz`)."""
    def lines() -> Iterator[str]:
        for file in sorted(path.glob("*.jsonl")) + sorted(path.glob("*.jsonl.gz")):
            if ".starts." in file.name:
                continue
            opener = gzip.open if file.suffix == ".gz" else open
            with opener(file, "rt", encoding="utf-8") as f:
                yield from (line for line in f if line.endswith("\n"))
    return Spans(span for line in lines() for span in parse_traces_line(line))


def load_recorded(path: Path) -> Recorded:
    lesson = path / "lesson.json"
    return Recorded(path=path, spans=load_spans(path),
                    lesson=json.loads(lesson.read_text()) if lesson.exists() else {},
                    manifest=json.loads((path / "manifest.json").read_text()))


# -- what happened ---------------------------------------------------------------------------------------------------

@dataclass
class Message:
    """One arrow: `source` sent `label` to `target` (lanes) at `at_ns`; `kind` picks its colour and line."""

    at_ns: int
    source: str
    target: str
    label: str
    kind: str
    note: str = ""
    error: bool = False


@dataclass
class Mark:
    """Something that happened on one lane alone."""

    at_ns: int
    lane: str
    label: str
    kind: str


def _kraft_lane(node: int, lanes: set[str]) -> str:
    """A KRaft node's lane: node ids are one space, so the id says whether it is a controller or a broker."""
    return f"controller-{node}" if f"controller-{node}" in lanes else f"broker-{node}"


def _caller(request: SpanRecord, by_id: dict[tuple[str, str], SpanRecord], lanes: set[str] = frozenset()
            ) -> tuple[str, str]:
    """(lane, kind) of whoever sent a request a broker (or a KRaft controller) received."""
    client = str(request.attributes.get("kafka.client.id", ""))
    if request.instance.startswith("controller-"):  # KRaft: a Raft RPC from a voter or observer, or a broker's own
        if m := _RAFT_CLIENT.match(client):
            sender = _kraft_lane(int(m.group(1)), lanes)
            return sender, "controller" if sender.startswith("controller-") else "broker"
        if client.isdigit():
            return _kraft_lane(int(client), lanes), "broker"
        return CLIENTS, "client"
    for link in request.links:
        sender = by_id.get(link)
        if sender is not None:
            # a replica fetcher's request is linked too when sent inside a span (LE.request's OffsetForLeaderEpoch)
            kind = "controller" if sender.name == "RequestSendThread.doWork" else \
                "fetch" if _FETCHER.match(client) else "broker"
            return sender.instance, kind
    if m := _CONTROLLER.match(client):
        return f"broker-{m.group(1)}", "controller"
    if m := _FETCHER.match(client):
        return f"broker-{m.group(1)}", "fetch"
    if request.attributes.get("kafka.api.name") == "ControlledShutdown" and client.isdigit():
        return f"broker-{client}", "broker"
    return CLIENTS, "client"


def _write_note(span: SpanRecord) -> str | None:
    """What a ZooKeeper-writing span wrote, or None when this one wrote nothing."""
    template = ZOOKEEPER_WRITES[span.name]
    facts: dict[str, Any] = {"broker": span.attributes.get("kafka.broker.id", span.instance.rpartition("-")[2])}
    if span.name == "PartitionStateMachine.handleStateChanges":
        online = [e for e in span.events if e.name == "partition.state.change" and e.attributes.get("to") ==
                  "OnlinePartition" and e.attributes.get("kafka.leader") is not None]
        if not online:
            return None
        facts["partitions"] = len(online)
    if span.name == "Partition.updateIsr" and span.attributes.get("kafka.isr.update.succeeded") is False:
        return None
    if span.name == "KafkaController.elect":
        return "/controller: " + ("won" if span.attributes.get("kafka.controller.won") else
                                  f"held by broker {span.attributes.get('kafka.controller.id')}")
    facts.update(span.attributes)
    return re.sub(r"\{([a-z_.]+)\}", lambda m: str(facts.get(m.group(1), "?")), template)


def messages(spans: Spans) -> list[Message]:
    by_id = {(s.trace_id, s.span_id): s for s in spans}
    lanes = {s.instance for s in spans}
    out: list[Message] = []
    received: set[tuple[str, str]] = set()
    for request in spans.where(name="RequestChannel.Request"):
        source, kind = _caller(request, by_id, lanes)
        received.update(request.links)
        api = str(request.attributes.get("kafka.api.name", "?"))
        client = str(request.attributes.get("kafka.client.id", ""))
        out.append(Message(request.start_ns, source, request.instance, api, kind,
                           note=client if kind == "client" else "", error=request.is_error))
    for send in spans.where(name="RequestSendThread.doWork"):
        if (send.trace_id, send.span_id) in received or "kafka.destination.broker.id" not in send.attributes:
            continue
        out.append(Message(send.start_ns, send.instance, f"broker-{send.attributes['kafka.destination.broker.id']}",
                           str(send.attributes.get("kafka.api.name", "?")), "lost", note="no answer", error=True))
    for s in spans:
        if s.name in ZOOKEEPER_WRITES and (note := _write_note(s)) is not None:
            out.append(Message(s.start_ns, s.instance, ZOOKEEPER, s.name, "zookeeper", note=note, error=s.is_error))
    for event in spans.where(name="ControllerEventManager.process"):
        name = event.attributes.get("kafka.controller.event")
        if name in WATCHED_EVENTS:
            handled = spans.children_of(event)
            label = handled.first().name if len(handled) else f"KafkaController.{name}.process"
            note = ""
            if len(handled):
                dead, new = (handled.first().attributes.get(k) for k in ("kafka.brokers.dead", "kafka.brokers.new"))
                note = ", ".join(f"{what} {ids}" for what, ids in (("dead:", dead), ("new:", new)) if ids)
            out.append(Message(event.start_ns, ZOOKEEPER, event.instance, label, "watch", note=note))
    return sorted(out, key=lambda m: m.at_ns)


def _pid(span: SpanRecord) -> int | None:
    return span.resource.get("process.pid")


def _node_lane(node: int, spans: Spans) -> str:
    """The lane of a node id from `lesson.json` (a broker, or a KRaft controller)."""
    return f"controller-{node}" if len(spans.where(instance=f"controller-{node}")) else f"broker-{node}"


def marks(spans: Spans, lesson: dict[str, Any]) -> list[Mark]:
    out: list[Mark] = []
    stopped_pids = set()
    for span in spans:
        for event in span.events:
            a = event.attributes
            if event.name == "raft.role.change" and a.get("kafka.raft.role.to") in SHOWN_ROLES \
                    and span.instance.startswith("controller-"):
                role = a["kafka.raft.role.to"]
                out.append(Mark(event.time_ns, span.instance, f"{role}, epoch {a.get('kafka.raft.epoch')}",
                                "state" if role == "Leader" else "recovering" if role == "Candidate" else "stop"))
            elif event.name == "broker.state.change" and a.get("kafka.broker.state.to") in SHOWN_STATES:
                out.append(Mark(event.time_ns, span.instance, str(a["kafka.broker.state.to"]),
                                "recovering" if a["kafka.broker.state.to"] == "RECOVERY" else "state"))
    for main in spans.where(name="Kafka.main"):
        out.append(Mark(main.start_ns, main.instance, f"Kafka.main (pid {_pid(main)})", "start"))
    for change in spans.where(name="BrokerState.newState"):
        state = change.attributes.get("kafka.broker.state.to")
        if state in SHOWN_STATES:
            kind = "recovering" if state == "RecoveringFromUncleanShutdown" else "state"
            out.append(Mark(change.start_ns, change.instance, str(state), kind))
    for stop in spans.where(name="KafkaServer.shutdown"):
        stopped_pids.add(_pid(stop))
        if not len(spans.where(trace_id=stop.trace_id, name="KafkaServer.startup")):
            out.append(Mark(stop.start_ns, stop.instance, "KafkaServer.shutdown", "stop"))
    for startup in spans.where(name="KafkaServer.startup"):
        for event in startup.events:
            if event.name == "startup.fatal":
                out.append(Mark(event.time_ns, startup.instance,
                                f"startup refused: {event.attributes.get('exception.type', 'error')}", "refused"))
    for exit_ in lesson.get("exits", []):
        lane, killed = _node_lane(exit_["broker"], spans), exit_["pid"] not in stopped_pids
        out.append(Mark(exit_["at_ns"], lane, "killed (SIGKILL): no more spans" if killed else "process ended",
                        "killed" if killed else "stop"))
    for pause in lesson.get("pauses", []):
        resumed = pause.get("resumed")
        out.append(Mark(pause["at_ns"], _node_lane(pause["broker"], spans), "resumed (SIGCONT)" if resumed else
                        "paused (SIGSTOP)", "resumed" if resumed else "paused"))
    return sorted(out, key=lambda m: m.at_ns)


def lifetimes(spans: Spans, lesson: dict[str, Any]) -> dict[str, list[tuple[int, int]]]:
    """Per broker lane, when each of its processes ran: from its first span to its exit (or its last span)."""
    exits = {e["pid"]: e["at_ns"] for e in lesson.get("exits", [])}
    by_pid: dict[tuple[str, int], list[int]] = {}
    for s in spans:
        pid = _pid(s)
        if pid is not None and s.instance.startswith(("broker-", "controller-")):
            first_last = by_pid.setdefault((s.instance, pid), [s.start_ns, s.end_ns])
            first_last[0], first_last[1] = min(first_last[0], s.start_ns), max(first_last[1], s.end_ns)
    out: dict[str, list[tuple[int, int]]] = {}
    for (lane, pid), (first, last) in by_pid.items():
        out.setdefault(lane, []).append((first, max(exits.get(pid, last), last)))
    return {lane: sorted(times) for lane, times in out.items()}


# -- rows -------------------------------------------------------------------------------------------------------------

@dataclass
class Row:
    """One line of the diagram: a step's header, a message (possibly several, merged) or a mark."""

    at_ns: int
    header: str = ""
    message: Message | None = None
    mark: Mark | None = None
    count: int = 1
    last_ns: int = 0
    notes: list[str] = field(default_factory=list)


def rows(recorded: Recorded) -> list[Row]:
    """The diagram's lines in time order: the setup, then each step under its header, until the last step's check
    held (the lesson stopping its cluster is left out)."""
    steps = recorded.step_times()
    end_ns = steps[-1][2] if steps else recorded.spans.last().end_ns
    events: list[tuple[int, int, Message | Mark]] = [(m.at_ns, 1, m) for m in messages(recorded.spans)]
    events += [(m.at_ns, 0, m) for m in marks(recorded.spans, recorded.lesson)]
    events.sort(key=lambda e: (e[0], e[1]))
    boundaries = [(action_ns, f"Step {i} · {title}") for i, (title, action_ns, _) in enumerate(steps, 1)]
    out: list[Row] = [Row(recorded.t0, header="Setup: the lesson starts its cluster")] if steps else []
    open_rows: dict[tuple[str, str, str, str], Row] = {}
    for at_ns, _, item in events:
        if at_ns > end_ns:
            break
        while boundaries and boundaries[0][0] <= at_ns:
            start, title = boundaries.pop(0)
            out.append(Row(start, header=title))
            open_rows.clear()  # nothing merges across a step's header
        if isinstance(item, Mark):
            out.append(Row(at_ns, mark=item, last_ns=at_ns))
            continue
        key = (item.source, item.target, item.label, item.kind)
        row = open_rows.get(key)
        if row is not None and at_ns - row.last_ns <= MERGE_NS:
            row.count += 1
            row.last_ns = at_ns
            if item.note and item.note not in row.notes:
                row.notes.append(item.note)
            if item.error and row.message is not None:
                row.message.error = True
            continue
        row = Row(at_ns, message=item, last_ns=at_ns, notes=[item.note] if item.note else [])
        open_rows[key] = row
        out.append(row)
    out.extend(Row(start, header=title) for start, title in boundaries)
    return out


# -- drawing ----------------------------------------------------------------------------------------------------------

ROW_IN = 0.24  # inches per row
LANE_IN = 1.45  # inches between two broker lanes, or a broker and ZooKeeper (x is in inches)
CLIENTS_IN = 1.05  # between the clients and broker-0: client requests have short names
LEFT_IN = 0.75  # the time column
RIGHT_IN = 2.1  # beside ZooKeeper: what each write wrote
NOTE_CHARS = 36
FONT = 8.0


def _offset(ns: int, t0: int) -> str:
    return f"+{(ns - t0) / 1e9:.2f} s" if ns - t0 < 600e9 else f"+{(ns - t0) / 60e9:.1f} min"


def _y_of(times: list[tuple[int, float]], ns: int) -> float:
    """The row position of a time: between the rows around it, so lifelines start and end where they should."""
    if ns <= times[0][0]:
        return times[0][1] - 0.5
    for (t1, y1), (t2, y2) in zip(times, times[1:], strict=False):
        if t1 <= ns <= t2:
            return y1 if t2 == t1 else y1 + (y2 - y1) * (ns - t1) / (t2 - t1)
    return times[-1][1] + 1.0  # still running when the diagram ends: down to the lane's foot


def draw(recorded: Recorded, title: str = "") -> str:
    """The run's sequence diagram as an SVG document (text kept as text, so it stays small and searchable)."""
    import matplotlib
    matplotlib.use("Agg")
    from matplotlib import pyplot as plt
    from matplotlib.patches import FancyArrowPatch

    lanes = recorded.lanes
    x = {lane: 0.0 if i == 0 else CLIENTS_IN + LANE_IN * (i - 1) for i, lane in enumerate(lanes)}
    right = x[lanes[-1]]
    lines = rows(recorded)
    t0 = recorded.t0
    height = len(lines) + 3.5
    fig_w = LEFT_IN + right + RIGHT_IN
    columns = 3 if fig_w >= 6.6 else 2  # the legend's
    top = -2.6 - 0.6 * (6 // columns) - (0.8 if title else 0)
    with matplotlib.rc_context({"svg.fonttype": "none", "font.family": "sans-serif", "svg.hashsalt": "kafka-edu",
                                "font.size": FONT}):
        fig = plt.figure(figsize=(fig_w, (height - 0.5 - top) * ROW_IN))
        ax = fig.add_axes((0, 0, 1, 1))
        ax.set_xlim(-LEFT_IN, right + RIGHT_IN)
        ax.set_ylim(height - 0.5, top)
        ax.axis("off")
        left = -LEFT_IN + 0.08
        if title:
            ax.text(left, top + 0.45, title, fontsize=FONT + 2, fontweight="bold", va="center")
        # lane heads and lifelines
        times = [(row.at_ns, float(i)) for i, row in enumerate(lines)]
        lives = lifetimes(recorded.spans, recorded.lesson)
        for lane, i in x.items():  # i: the lane's x
            for y in (-0.95, height - 1.4):
                ax.text(i, y, lane, ha="center", va="center", fontweight="bold", fontsize=FONT + 0.5,
                        bbox={"boxstyle": "round,pad=0.3", "facecolor": "#eef2f7", "edgecolor": "#8a9bb0"})
            ax.plot([i, i], [-0.6, height - 1.8], color="#b8c2cc", lw=0.8, ls=(0, (2, 3)), zorder=0)
            if lane == ZOOKEEPER:
                ax.plot([i, i], [-0.6, height - 1.8], color="#8a9bb0", lw=2.2, zorder=0.5)
            for start, end in lives.get(lane, []):
                ax.plot([i, i], [_y_of(times, start), min(_y_of(times, end), height - 1.8)], color="#8a9bb0",
                        lw=2.2, zorder=0.5)
        paused: dict[str, int] = {}
        for pause in recorded.lesson.get("pauses", []):  # a stopped process: its lifeline striped while it is
            lane = _node_lane(pause["broker"], recorded.spans)
            if not pause.get("resumed"):
                paused[lane] = pause["at_ns"]
            elif lane in paused:
                ax.plot([x[lane]] * 2, [_y_of(times, paused.pop(lane)), _y_of(times, pause["at_ns"])],
                        color=COLOURS["paused"], lw=2.2, ls=(0, (1, 1.5)), zorder=0.6)
        for i, row in enumerate(lines):
            if row.header:
                ax.axhspan(i - 0.5, i + 0.5, color="#f3f0e6", zorder=0.2, lw=0)
                ax.text(left, i, row.header, fontweight="bold", va="center", fontsize=FONT + 0.5, zorder=3)
                continue
            ax.text(left, i, _offset(row.at_ns, t0), va="center", color="#666666", fontsize=FONT - 0.5)
            if row.mark is not None:
                mark = row.mark
                colour = COLOURS[mark.kind]
                symbol = {"killed": "X", "refused": "X", "start": ">", "paused": "s", "resumed": ">"}.get(mark.kind,
                                                                                                           "o")
                ax.plot([x[mark.lane]], [i], marker=symbol, color=colour, markersize=6, zorder=4,
                        markeredgecolor="white", markeredgewidth=0.6)
                ax.text(x[mark.lane] + 0.1, i, mark.label, va="center", color=colour, fontsize=FONT - 0.3,
                        zorder=3, bbox={"boxstyle": "square,pad=0.05", "facecolor": "white", "edgecolor": "none",
                                        "alpha": 0.85})
                continue
            message = row.message
            assert message is not None
            colour = COLOURS["lost" if message.error else message.kind]
            dashed = message.kind in ("watch", "lost")
            label = message.label + (f" ×{row.count}" if row.count > 1 else "")
            note = "; ".join(row.notes)
            if len(note) > NOTE_CHARS:
                note = note[:NOTE_CHARS - 1] + "…"
            x1, x2 = x[message.source], x[message.target]
            if x1 == x2:  # the controller to its own broker
                ax.add_patch(FancyArrowPatch((x1, i - 0.3), (x1, i + 0.3), connectionstyle="arc3,rad=-1.6",
                                             arrowstyle="-|>", mutation_scale=8, color=colour, lw=1.0, zorder=2,
                                             linestyle="--" if dashed else "-"))
                ax.text(x1 + 0.28, i, f"{label} (to itself)" + (f"  {note}" if note else ""), va="center",
                        color=colour, fontsize=FONT - 0.3, zorder=3)
                continue
            ax.add_patch(FancyArrowPatch((x1, i), (x2, i), arrowstyle="-|>", mutation_scale=9, color=colour,
                                         lw=1.1, zorder=2, linestyle="--" if dashed else "-", shrinkA=2, shrinkB=2))
            # a label wider than its arrow ends where the arrow's right end is, away from the note beside it
            wide = len(label) * (FONT - 0.2) * 0.55 / 72 > abs(x2 - x1) - 0.15
            anchor, align = (max(x1, x2) - 0.12, "right") if wide else ((x1 + x2) / 2, "center")
            ax.text(anchor, i - 0.08, label, ha=align, va="bottom", color=colour, fontsize=FONT - 0.2, zorder=3,
                    bbox={"boxstyle": "square,pad=0.05", "facecolor": "white", "edgecolor": "none", "alpha": 0.85})
            if note:
                side = max(x1, x2) + 0.1
                ax.text(side, i + 0.02, note, va="center", ha="left", color="#555555", fontsize=FONT - 0.6,
                        zorder=3, style="italic", bbox={"boxstyle": "square,pad=0.05", "facecolor": "white",
                                                        "edgecolor": "none", "alpha": 0.85})
        legend = [("client request", "client", "-"), ("controller request", "controller", "-"),
                  ("broker to broker", "broker", "-"), ("ZooKeeper write", "zookeeper", "-"),
                  ("ZooKeeper watch fired", "watch", "--"), ("failed, or no answer", "lost", "--")]
        if recorded.mode == "kraft":
            legend = [("client request", "client", "-"), ("Raft: controller to controller", "controller", "-"),
                      ("broker to broker or controller", "broker", "-"), ("failed, or no answer", "lost", "--")]
        for n, (text, kind, style) in enumerate(legend):
            lx, ly = left + 2.1 * (n % columns), top + (1.3 if title else 0.5) + 0.6 * (n // columns)
            ax.plot([lx, lx + 0.35], [ly, ly], color=COLOURS[kind], ls=style, lw=1.4)
            ax.text(lx + 0.45, ly, text, va="center", fontsize=FONT - 0.5, color="#333333")
        out = io.StringIO()
        fig.savefig(out, format="svg", metadata={"Date": None, "Creator": None})
        plt.close(fig)
    return out.getvalue()


# -- the run's numbers ------------------------------------------------------------------------------------------------

def took(ns: float) -> str:
    ms = ns / 1e6
    return f"{ms / 1000:.2f} s" if ms >= 1000 else f"{ms:.0f} ms" if ms >= 10 else f"{ms:.1f} ms"


def figures(recorded: Recorded) -> list[tuple[str, str]]:
    """(what, how much) for the run's startups, stops, elections and unnoticed deaths, in time order, until the last
    step's check held."""
    spans, t0 = recorded.spans, recorded.t0
    steps = recorded.step_times()
    end_ns = steps[-1][2] if steps else spans.last().end_ns
    found: list[tuple[int, str, str]] = []
    for startup in spans.where(name="KafkaServer.startup"):
        states = [s.attributes.get("kafka.broker.state.to") for s in spans.where(trace_id=startup.trace_id,
                                                                                name="BrokerState.newState")]
        how = ("refused" if any(e.name == "startup.fatal" for e in startup.events) else
               "through RecoveringFromUncleanShutdown" if "RecoveringFromUncleanShutdown" in states else "")
        found.append((startup.start_ns, f"`KafkaServer.startup` on {startup.instance} ({_offset(startup.start_ns, t0)})"
                      + (f", {how}" if how else ""), took(startup.end_ns - startup.start_ns)))
    stopped_pids = set()
    for stop in spans.where(name="KafkaServer.shutdown"):
        stopped_pids.add(_pid(stop))
        if not len(spans.where(trace_id=stop.trace_id, name="KafkaServer.startup")):
            found.append((stop.start_ns, f"`KafkaServer.shutdown` on {stop.instance} ({_offset(stop.start_ns, t0)})",
                          took(stop.end_ns - stop.start_ns)))
    for elect in spans.where(name="KafkaController.elect", kafka__controller__won=True):
        failover = spans.where(trace_id=elect.trace_id, name="KafkaController.onControllerFailover")
        found.append((elect.start_ns, f"{elect.instance} elected controller, epoch "
                      f"{elect.attributes.get('kafka.controller.epoch')} ({_offset(elect.start_ns, t0)}): its "
                      "`onControllerFailover`", took(failover.first().end_ns - failover.first().start_ns)
                      if len(failover) else "-"))
    for startup in spans.where(name="KafkaRaftServer.startup"):  # a KRaft node, controller or broker
        found.append((startup.start_ns, f"`KafkaRaftServer.startup` on {startup.instance} "
                      f"({_offset(startup.start_ns, t0)})", took(startup.end_ns - startup.start_ns)))
    raft = sorted(((e.time_ns, s.instance, e.attributes) for s in spans for e in s.events
                   if e.name == "raft.role.change"), key=lambda change: change[0])
    raft_leaders = [(at_ns, lane, a.get("kafka.raft.epoch")) for at_ns, lane, a in raft
                    if a.get("kafka.raft.role.to") == "Leader"]
    for at_ns, lane, epoch in raft_leaders:
        stood = [t for t, other, a in raft if other == lane and t <= at_ns and a.get("kafka.raft.epoch") == epoch
                 and a.get("kafka.raft.role.to") == "Candidate"]
        found.append((at_ns, f"{lane} elected leader, epoch {epoch} ({_offset(at_ns, t0)}): from its candidacy",
                      took(at_ns - stood[0]) if stood else "-"))
    changes = spans.where(name="KafkaController.BrokerChange.process")
    won = spans.where(name="KafkaController.elect", kafka__controller__won=True)
    exits = recorded.lesson.get("exits", [])
    for n, exit_ in enumerate(exits):
        if exit_["pid"] in stopped_pids:
            continue
        broker, at_ns = exit_["broker"], exit_["at_ns"]
        lane = _node_lane(broker, spans)
        until = min([e["at_ns"] for e in exits[n + 1:] if e["broker"] == broker] + [end_ns])
        # a dead broker is noticed by the controller's BrokerChange; a dead controller, by the next election won (in
        # KRaft, by the next leader elected: a dead follower changes nothing anyone notices)
        noticed = [(c.start_ns, "the controller's `BrokerChange` found it dead") for c in changes
                   if at_ns <= c.start_ns <= until and broker in (c.attributes.get("kafka.brokers.dead") or [])]
        noticed += [(e.start_ns, f"{e.instance} won the election (epoch {e.attributes.get('kafka.controller.epoch')})")
                    for e in won if at_ns <= e.start_ns <= until and e.instance != f"broker-{broker}"]
        noticed += [(t, f"{other} led epoch {epoch}") for t, other, epoch in raft_leaders
                    if at_ns <= t <= until and other != lane]
        what = f"{lane} killed ({_offset(at_ns, t0)})"
        if noticed:
            first_ns, how = min(noticed)
            found.append((at_ns, f"{what}: until {how}", took(first_ns - at_ns)))
        else:
            found.append((at_ns, f"{what}: noticed", "not during the lesson"))
    return [(what, value) for at_ns, what, value in sorted(found) if at_ns <= end_ns]
