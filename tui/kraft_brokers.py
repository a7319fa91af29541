"""Our own code, not a Kafka port: a KRaft run's brokers as the TUI shows them, beside the quorum.

Each broker's registration as the controllers decided it (fenced or not, its broker epoch, in controlled shutdown)
and its process as it tells it (BrokerState, pid), from:
- the committed metadata records (tui.quorum reads them from the leader's log): RegisterBrokerRecord,
  BrokerRegistrationChangeRecord, Fence/UnfenceBrokerRecord, UnregisterBrokerRecord; the cluster's own word;
- the trace, which comes sooner: the active controller's KR.fence span (a broker fenced for silence, and for how
  long it was silent), each broker's `broker.state.change` events (RECOVERY: registered, fenced while it catches up;
  RUNNING: the controller unfenced it), the broker epoch its startup and heartbeats carry;
- the manifest and the pids: killed, stopped, paused.
Facts arrive out of order across files and sources; each keeps its time, and the newest wins.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

from kafka_edu.tracing.query import SpanRecord
from tui.node_processes import NodeProcess, NodeView, node_id_of

if TYPE_CHECKING:
    from tui.quorum import MetadataEntry

STATE_EVENT = "broker.state.change"
FENCE_SPANS = ("ReplicationControlManager.maybeFenceOneStaleBroker",
               "QuorumController.rescheduleMaybeFenceStaleBrokers")
# The fencing a broker's own state implies: RECOVERY is reached once registered (a new registration is fenced),
# RUNNING once a heartbeat answer said the controller unfenced it.
FENCED_IN_STATE = {"RECOVERY": True, "RUNNING": False}


@dataclass(frozen=True)
class BrokerChange:
    """What a metadata record says of one broker's registration (tui.quorum decodes it from the record)."""

    broker_id: int
    epoch: int | None = None
    fenced: bool | None = None  # None: the record does not change it
    controlled_shutdown: bool | None = None
    registered: bool = True  # False: UnregisterBrokerRecord


@dataclass
class BrokerProcess(NodeProcess):
    """One OS process of a broker (a restart appends a new process to the same span files)."""

    state: str = ""  # 3.9's BrokerState name, from its last `broker.state.change`
    state_ns: int = 0


@dataclass
class KRaftBrokerView(NodeView[BrokerProcess]):
    process_role: ClassVar[str] = "broker"
    process_type: ClassVar[type[BrokerProcess]] = BrokerProcess

    registered: bool = False  # the controllers know it (a registration, fenced or not)
    fenced: bool | None = None
    fenced_ns: int = -1
    epoch: int | None = None  # its broker epoch: the offset of its RegisterBrokerRecord
    epoch_ns: int = -1
    controlled_shutdown: bool = False
    shutdown_ns: int = -1
    in_run: bool = False  # the run's manifest or trace has it (else only the metadata records name it)

    @property
    def state(self) -> str:
        """The newest process's BrokerState, as its trace tells it."""
        newest = self.newest
        return newest.state if newest is not None and newest.state else ""

    @property
    def status(self) -> str:
        """Its BrokerState while it runs; what happened to it when it does not."""
        if not self.in_run:
            return "—"  # a broker the records name and this run did not start
        return self.not_running_status or self.state or "starting"

    @property
    def running(self) -> bool:
        return self.in_run and super().running

    @property
    def registration(self) -> str:
        """What the controllers make of it: fenced, unfenced, in controlled shutdown, or not registered (—)."""
        if not self.registered or self.fenced is None:
            return "—"
        if self.controlled_shutdown and not self.fenced:
            return "shutdown"  # in controlled shutdown: still unfenced while its leaderships move away
        return "fenced" if self.fenced else "unfenced"


@dataclass
class KRaftBrokers:
    brokers: dict[int, KRaftBrokerView] = field(default_factory=dict)
    topics: list[str] = field(default_factory=list)  # committed, in creation order
    live: bool = False
    log: Callable[[int, str, str, str], None] | None = None  # (time_ns, instance, text, level) to the Log pane
    _fence_traces: set[str] = field(default_factory=set)
    _dead: set[str] = field(default_factory=set)  # the last word on which broker processes are gone

    def broker(self, node_id: int) -> KRaftBrokerView:
        if node_id not in self.brokers:
            view = self.brokers[node_id] = KRaftBrokerView(node_id)
            view.alive = view.instance not in self._dead
        return self.brokers[node_id]

    @property
    def unfenced(self) -> list[int]:
        return sorted(n for n, b in self.brokers.items() if b.registered and b.fenced is False)

    @property
    def fenced(self) -> list[int]:
        return sorted(n for n, b in self.brokers.items() if b.registered and b.fenced)

    # -- facts ------------------------------------------------------------------------------------------------------

    def observe_manifest(self, manifest: dict[str, Any]) -> None:
        self.live = not manifest.get("stopped_at")
        for process in manifest.get("processes", []):
            if process.get("role") == KRaftBrokerView.process_role:
                broker = self.broker(process["id"])
                broker.in_run = True
                broker.observe_entry(process)

    def observe_dead(self, instances: set[str]) -> None:
        """Broker processes found gone (tui.reader: the manifest's pids; every one, on a finished run)."""
        self._dead = set(instances)
        for broker in self.brokers.values():
            broker.alive = broker.instance not in instances
        self._refresh()

    def observe_ended(self, spans: list[SpanRecord]) -> None:
        for span in spans:
            node_id = node_id_of(span.instance, KRaftBrokerView.process_role)
            if node_id is not None:
                self._broker_span(self.broker(node_id), span)
            elif span.name in FENCE_SPANS and isinstance(span.attributes.get("kafka.broker.id"), int):
                self._fenced_for_silence(span)
        if spans:
            self._refresh()

    def observe_records(self, entries: list[MetadataEntry]) -> None:
        """Committed metadata records, in offset order."""
        for entry in entries:
            if entry.topic is not None:
                if entry.kind == "TOPIC_RECORD" and entry.topic not in self.topics:
                    self.topics.append(entry.topic)
                elif entry.kind == "REMOVE_TOPIC_RECORD" and entry.topic in self.topics:
                    self.topics.remove(entry.topic)
            if entry.broker is not None:
                self._record(entry, entry.broker)

    # -- rules ------------------------------------------------------------------------------------------------------

    def _broker_span(self, broker: KRaftBrokerView, span: SpanRecord) -> None:
        broker.in_run = True
        process = broker.track(span)
        attributes = span.attributes
        epoch = attributes.get("kafka.broker.epoch")
        if span.name in ("BrokerServer.startup", "BrokerLifecycleManager.sendBrokerHeartbeat") and \
                isinstance(epoch, int) and epoch >= 0 and attributes.get("kafka.broker.id", broker.node_id) == \
                broker.node_id:
            self._epoch(broker, epoch, span.end_ns)
        for event in span.events:
            if event.name != STATE_EVENT:
                continue
            old, new = event.attributes.get("kafka.broker.state.from", "?"), event.attributes.get(
                "kafka.broker.state.to")
            if not isinstance(new, str):
                continue
            if process is not None and event.time_ns >= process.state_ns:
                process.state, process.state_ns = new, event.time_ns
            epoch = event.attributes.get("kafka.broker.epoch")
            if isinstance(epoch, int) and epoch >= 0:
                self._epoch(broker, epoch, event.time_ns)
            if new in FENCED_IN_STATE:
                self._fence(broker, FENCED_IN_STATE[new], event.time_ns)
            if new == "RECOVERY" and event.time_ns >= broker.shutdown_ns:  # registered anew: not shutting down
                broker.controlled_shutdown, broker.shutdown_ns = False, event.time_ns
            text = f"broker {broker.node_id}: {old} → {new}"
            if new == "RECOVERY" and isinstance(epoch, int) and epoch >= 0:
                text += f", broker epoch {epoch} (registered: fenced while it catches up)"
            self._log(event.time_ns, broker.instance, text, "warning" if new in ("PENDING_CONTROLLED_SHUTDOWN",
                                                                                 "SHUTTING_DOWN") else "info")

    def _fenced_for_silence(self, span: SpanRecord) -> None:
        """The active controller's KR.fence: a broker whose heartbeats stopped for longer than its session. Its
        Log line says the decision; the record's, once committed, says so again with its offset."""
        attributes = span.attributes
        broker = self.broker(attributes["kafka.broker.id"])
        self._fence(broker, True, span.end_ns)
        if span.trace_id in self._fence_traces:
            return  # the step's span and the manager's inside it, one decision
        self._fence_traces.add(span.trace_id)
        text = f"{span.instance.replace('-', ' ')} fences broker {broker.node_id}"
        silent = attributes.get("kafka.broker.silent.ms")
        if isinstance(silent, (int, float)):
            text += f": no heartbeat for {silent:,.0f} ms"
            timeout = attributes.get("kafka.broker.session.timeout.ms")
            if isinstance(timeout, int):
                text += f" (broker.session.timeout.ms {timeout:,})"
        self._log(span.start_ns, broker.instance, text, "warning")

    def _record(self, entry: MetadataEntry, change: BrokerChange) -> None:
        broker = self.broker(change.broker_id)
        at = entry.timestamp_ms * 1_000_000
        where = f"offset {entry.offset}"
        if not change.registered:
            broker.registered = False
            self._log(at, broker.instance, f"broker {broker.node_id} unregistered ({where})", "warning")
            return
        registering = entry.kind == "REGISTER_BROKER_RECORD"
        if registering:
            broker.registered = True
            self._log(at, broker.instance, f"broker {broker.node_id} registered, broker epoch {change.epoch} "
                                           f"({where}){', fenced' if change.fenced else ''}", "info")
        if change.epoch is not None:
            self._epoch(broker, change.epoch, at)
        if change.controlled_shutdown is not None and at >= broker.shutdown_ns:
            if change.controlled_shutdown and not broker.controlled_shutdown:
                self._log(at, broker.instance, f"broker {broker.node_id} in controlled shutdown ({where}): the "
                                               f"controller moves its leaderships away", "warning")
            broker.controlled_shutdown, broker.shutdown_ns = change.controlled_shutdown, at
        if change.fenced is not None:
            self._fence(broker, change.fenced, at)
            if not registering:
                self._log(at, broker.instance, f"broker {broker.node_id} {'fenced' if change.fenced else 'unfenced'}"
                                               f", committed ({where})", "warning" if change.fenced else "info")

    def _fence(self, broker: KRaftBrokerView, fenced: bool, at: int) -> None:
        """A fencing fact: the newest wins."""
        if at >= broker.fenced_ns:
            broker.registered = True
            broker.fenced, broker.fenced_ns = fenced, at

    def _epoch(self, broker: KRaftBrokerView, epoch: int, at: int) -> None:
        if at >= broker.epoch_ns:
            broker.epoch, broker.epoch_ns = epoch, at

    def _refresh(self) -> None:
        """A process that is not its broker's newest ended (a restart took its place), and on a live run a broker found
        gone ended now: the Log pane says so, once, with the state it was in."""
        for broker in self.brokers.values():
            for process, newest in broker.ended(self.live):
                was = f" in {process.state}" if process.state else ""
                who = f"broker {broker.node_id} (pid {process.pid})"
                if process.state == "SHUTTING_DOWN":
                    text, level = f"{who} shut down", "info"
                elif process is not newest:
                    text, level = f"{who} ended{was} with no shutdown; pid {newest.pid} took its place", "warning"
                elif broker.manifest_state == "killed":
                    text, level = f"{who} killed{was}: the controller fences it once its session times out", "warning"
                else:
                    text, level = f"{who} {broker.gone_as}{was}", "info"
                self._log(process.last_ns, broker.instance, text, level)

    def _log(self, time_ns: int, instance: str, text: str, level: str) -> None:
        if self.log is not None:
            self.log(time_ns, instance, text, level)
