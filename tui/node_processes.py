"""Our own code, not a Kafka port: a KRaft node's OS processes as its spans and the run's manifest tell them.

What the Quorum pane's voters (tui.quorum) and brokers (tui.kraft_brokers) share: `NodeProcess`, one process of a
node, found by the pid its spans carry; `NodeView`, a node with the manifest's word on it (pid, port, state), its
processes, the newest of them, and which ended processes the Log pane has not yet been told of; `GONE_STATES`, what
a node whose process is gone is called. Each view adds what its role's trace says (a voter's Raft role, a broker's
BrokerState and registration).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, ClassVar, Generic, TypeVar

from kafka_edu.tracing.query import SpanRecord

# What a node whose process is gone is called, by the manifest's last word on it.
GONE_STATES = {"killed": "killed", "NotRunning": "stopped"}


@dataclass
class NodeProcess:
    """One OS process of a node (a restart appends a new process to the same span files)."""

    pid: int
    first_ns: int
    last_ns: int
    end_reported: bool = False


P = TypeVar("P", bound=NodeProcess)


@dataclass
class NodeView(Generic[P]):
    """A broker or controller of the run: the manifest's word on it, and its processes as their spans tell them."""

    # Set by each subclass: the manifest's `role` for this kind of node, and its process record's class, built as
    # (pid, first_ns, last_ns).
    process_role: ClassVar[str]
    process_type: ClassVar[Callable[[int, int, int], Any]]

    node_id: int
    pid: int | None = None
    port: int | None = None
    manifest_state: str = ""  # the runner's word: Starting, RUNNING, Leader, paused, resumed, killed, NotRunning
    alive: bool = True
    processes: dict[int, P] = field(default_factory=dict)

    @property
    def instance(self) -> str:
        return f"{self.process_role}-{self.node_id}"

    @property
    def newest(self) -> P | None:
        return max(self.processes.values(), key=lambda p: p.first_ns, default=None)

    @property
    def paused(self) -> bool:
        return self.alive and self.manifest_state == "paused"

    @property
    def running(self) -> bool:
        return self.alive and not self.paused

    @property
    def gone_as(self) -> str:
        """What its process's end is called: killed, stopped, or exited when the manifest does not say."""
        return GONE_STATES.get(self.manifest_state, "exited")

    @property
    def not_running_status(self) -> str | None:
        """Its status while its process does not run (not started yet, gone, paused); None while it runs, when the
        trace says the rest."""
        if not self.alive:
            if self.pid is None and self.manifest_state == "Starting":
                return "starting"  # the runner has written its entry and not yet started it
            return self.gone_as
        if self.paused:
            return "paused"
        return None

    def observe_entry(self, entry: dict[str, Any]) -> None:
        """Its entry in the run's manifest."""
        self.pid, self.port = entry.get("pid"), entry.get("port")
        self.manifest_state = entry.get("state") or ""

    def track(self, span: SpanRecord) -> P | None:
        """The process that wrote `span` (by the pid in its resource), widened to the span's times; None when the
        span carries no pid."""
        pid = span.resource.get("process.pid")
        if not pid:
            return None
        process = self.processes.get(pid)
        if process is None:
            process = self.processes[pid] = self.process_type(pid, span.start_ns, span.end_ns)
        process.first_ns = min(process.first_ns, span.start_ns)
        process.last_ns = max(process.last_ns, span.end_ns)
        return process

    def ended(self, live: bool) -> Iterator[tuple[P, P]]:
        """(process, the newest) for each process whose end the Log pane has not been told of yet, marked told: one
        that is not the newest (a restart took its place) and, on a live run, the newest of a node found gone. A
        finished run's last processes were stopped with it."""
        newest = self.newest
        for process in self.processes.values():
            if process.end_reported or (process is newest and (self.alive or not live)):
                continue
            process.end_reported = True
            yield process, newest


def node_id_of(instance: str, role: str) -> int | None:
    """The node id in a span's instance name (`broker-4`, `controller-1`) when it is a `role` node's."""
    prefix = f"{role}-"
    if instance.startswith(prefix) and instance[len(prefix):].isdigit():
        return int(instance[len(prefix):])
    return None
