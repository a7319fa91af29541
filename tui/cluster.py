"""The cluster as its spans tell it: BrokerStates, the controller and its epoch, who leads what, and a log of
every state change in time order. Spans arrive out of order across files, so each fact keeps its time and the
newest one wins.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field
from typing import Any

from kafka_edu.tracing.query import SpanRecord

MAX_LOG = 20_000
NOT_RUNNING = "NotRunning"


@dataclass(order=True, frozen=True)
class LogEntry:
    time_ns: int
    instance: str
    text: str
    level: str = "info"  # info | controller | leader | warning


@dataclass
class ProcessView:
    """One OS process of a broker instance (a restart appends a new process to the same span files)."""

    pid: int
    first_ns: int
    last_ns: int
    state: str = "—"
    state_ns: int = 0
    death_reported: bool = False


@dataclass
class BrokerView:
    broker_id: int
    state: str = "—"  # Kafka's BrokerState name, from its newest process's last BrokerState.newState
    pid: int | None = None
    alive: bool = True
    paused: bool = False  # SIGSTOPped by the runner (the manifest says so)
    processes: dict[int, ProcessView] = field(default_factory=dict)

    @property
    def instance(self) -> str:
        return f"broker-{self.broker_id}"

    @property
    def newest(self) -> ProcessView | None:
        return max(self.processes.values(), key=lambda p: p.first_ns, default=None)


@dataclass
class ClusterModel:
    brokers: dict[int, BrokerView] = field(default_factory=dict)
    controller_id: int | None = None
    controller_epoch: int = 0
    zookeeper: str = ""  # connect string
    zookeeper_alive: bool = False
    topics: list[str] = field(default_factory=list)  # in creation order
    log: list[LogEntry] = field(default_factory=list)
    version: int = 0
    _leaders: dict[str, tuple[int, int | None]] = field(default_factory=dict)  # partition -> (time, leader)
    _elections: list[tuple[int, int]] = field(default_factory=list)  # (epoch, broker id) won
    _resigned: set[tuple[int, int]] = field(default_factory=set)

    def broker(self, broker_id: int) -> BrokerView:
        if broker_id not in self.brokers:
            self.brokers[broker_id] = BrokerView(broker_id)
        return self.brokers[broker_id]

    def leads(self, broker_id: int) -> int:
        return sum(1 for _, leader in self._leaders.values() if leader == broker_id)

    # -- facts from spans -----------------------------------------------------------------------------------------

    def observe_ended(self, spans: list[SpanRecord]) -> None:
        for span in spans:
            broker_id = _broker_id(span)
            if broker_id is None:
                continue
            broker = self.broker(broker_id)
            process = self._process(broker, span)
            attributes = span.attributes
            if span.name == "BrokerState.newState" and "kafka.broker.state.to" in attributes:
                self._broker_state(broker, process, span)
            elif span.name == "KafkaController.elect" and attributes.get("kafka.controller.won"):
                epoch = attributes.get("kafka.controller.epoch", 0)
                self._elections.append((epoch, broker_id))
                self._add_log(span.end_ns, span.instance, f"broker {broker_id} ★ elected controller, epoch {epoch}",
                              "controller")
            elif span.step == "CT.resign":
                # Every broker's KafkaController.shutdown resigns; only the active controller's is news.
                epoch = attributes.get("kafka.controller.epoch", 0)
                if (epoch, broker_id) in self._elections:
                    self._resigned.add((epoch, broker_id))
                    self._add_log(span.end_ns, span.instance, f"broker {broker_id} resigned as controller, epoch "
                                  f"{epoch}", "controller")
            elif span.step == "CT.select" and isinstance(attributes.get("kafka.leader"), int):
                # The controller's decision; with request-path spans on, the brokers' makeLeaders confirm it.
                partition = f"{attributes.get('kafka.topic')}-{attributes.get('kafka.partition')}"
                self._set_leaders(span, attributes["kafka.leader"], [partition], lead=True)
            elif span.name in ("ReplicaManager.makeLeaders", "ReplicaManager.applyLocalLeadersDelta"):
                self._set_leaders(span, broker_id, attributes.get("kafka.partitions") or [], lead=True)
            elif span.name in ("ReplicaManager.makeFollowers", "ReplicaManager.applyLocalFollowersDelta"):
                self._set_leaders(span, broker_id, attributes.get("kafka.partitions") or [], lead=False)
            for event in span.events:
                if event.name == "partition.state.change":
                    self._partition_state(span, event.time_ns, event.attributes)
        self._refresh()

    def observe_dead(self, instances: set[str]) -> None:
        """Processes found gone (the manifest, pid checks)."""
        for broker in self.brokers.values():
            broker.alive = broker.instance not in instances
        self._refresh()

    def observe_manifest(self, manifest: dict[str, Any]) -> None:
        self.zookeeper = manifest.get("zookeeper_connect") or ""
        for process in manifest.get("processes", []):
            if process.get("role") == "broker":
                broker = self.broker(process["id"])
                broker.pid = broker.pid or process.get("pid")
                broker.paused = process.get("state") == "paused"
            elif process.get("role") == "zookeeper":
                self.zookeeper_alive = process.get("state") == "running" and not manifest.get("stopped_at")
        self.version += 1

    # -- the facts' rules -------------------------------------------------------------------------------------------

    def _process(self, broker: BrokerView, span: SpanRecord) -> ProcessView | None:
        pid = span.resource.get("process.pid")
        if not pid:
            return None
        process = broker.processes.get(pid)
        if process is None:
            process = broker.processes[pid] = ProcessView(pid, span.start_ns, span.end_ns)
        process.first_ns = min(process.first_ns, span.start_ns)
        process.last_ns = max(process.last_ns, span.end_ns)
        return process

    def _broker_state(self, broker: BrokerView, process: ProcessView | None, span: SpanRecord) -> None:
        attributes = span.attributes
        old, new = attributes.get("kafka.broker.state.from", "?"), attributes["kafka.broker.state.to"]
        if process is not None and span.start_ns >= process.state_ns:
            process.state, process.state_ns = new, span.start_ns
        self._add_log(span.start_ns, span.instance, f"broker {broker.broker_id}: {old} → {new}")
        if new == NOT_RUNNING:
            self._died(broker.broker_id, span.start_ns)

    def _refresh(self) -> None:
        """Each broker shows its newest process; a process that ended without NotRunning was killed."""
        for broker in self.brokers.values():
            newest = broker.newest
            if newest is None:
                continue
            broker.pid, broker.state = newest.pid, newest.state
            for process in broker.processes.values():
                gone = process is not newest or not broker.alive
                if gone and process.state not in (NOT_RUNNING, "—") and not process.death_reported:
                    process.death_reported = True
                    self._add_log(process.last_ns, broker.instance, f"broker {broker.broker_id} (pid {process.pid}) "
                                  f"died in {process.state}: no shutdown in its trace (killed)", "warning")
                    self._died(broker.broker_id, process.last_ns)
        self._update_controller()
        self.version += 1

    def _set_leaders(self, span: SpanRecord, broker_id: int, partitions: list[str], lead: bool) -> None:
        for partition in partitions:
            at, leader = self._leaders.get(partition, (0, None))
            if at > span.start_ns:
                continue
            if lead:
                self._leaders[partition] = (span.start_ns, broker_id)
                if leader != broker_id:
                    self._add_log(span.start_ns, span.instance, f"{partition}: leader is now broker {broker_id}",
                                  "leader")
            elif leader == broker_id:
                self._leaders[partition] = (span.start_ns, None)

    def _partition_state(self, span: SpanRecord, time_ns: int, attributes: dict[str, Any]) -> None:
        topic = attributes.get("kafka.topic")
        if topic and topic not in self.topics:
            self.topics.append(topic)
        old, new = attributes.get("from"), attributes.get("to")
        if new == "OnlinePartition" and isinstance(attributes.get("kafka.leader"), int):
            # The controller names the leader of every partition it brings online, new ones included.
            self._set_leaders(span, attributes["kafka.leader"], [f"{topic}-{attributes.get('kafka.partition')}"],
                              lead=True)
        if old != new and new in ("OnlinePartition", "OfflinePartition"):
            self._add_log(time_ns, span.instance, f"{topic}-{attributes.get('kafka.partition')}: {old} → {new}",
                          "warning" if new == "OfflinePartition" else "leader")

    def _died(self, broker_id: int, at: int) -> None:
        """A stopped or killed broker leads nothing any more."""
        for partition, (since, leader) in list(self._leaders.items()):
            if leader == broker_id and since <= at:
                self._leaders[partition] = (at, None)

    def _update_controller(self) -> None:
        """The winner of the highest epoch, unless it has resigned or died since."""
        self.controller_id, self.controller_epoch = None, max((e for e, _ in self._elections), default=0)
        if self._elections:
            epoch, broker_id = max(self._elections)
            broker = self.brokers.get(broker_id)
            if (epoch, broker_id) not in self._resigned and broker is not None and broker.alive \
                    and broker.state != NOT_RUNNING:
                self.controller_id = broker_id

    def _add_log(self, time_ns: int, instance: str, text: str, level: str = "info") -> None:
        bisect.insort(self.log, LogEntry(time_ns, instance, text, level))
        if len(self.log) > MAX_LOG:
            del self.log[: len(self.log) - MAX_LOG]

    def add_log(self, time_ns: int, instance: str, text: str, level: str = "info") -> None:
        """A Log pane entry from another model of the run (tui.quorum's role changes), in time order with ours."""
        self._add_log(time_ns, instance, text, level)
        self.version += 1


def _broker_id(span: SpanRecord) -> int | None:
    if span.instance.startswith("controller-"):
        return None  # a KRaft controller: tui.quorum's (its spans may name a broker it deals with)
    if isinstance(span.attributes.get("kafka.broker.id"), int):
        return span.attributes["kafka.broker.id"]
    instance = span.instance
    if instance.startswith("broker-") and instance[7:].isdigit():
        return int(instance[7:])
    return None
