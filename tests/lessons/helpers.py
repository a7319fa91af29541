"""Our own test code, not a Kafka port: small made-up runs for the lessons' checks.

A `FakeRun` builds the spans a check reads, a few at a time, on a clock of milliseconds since the run began, with the
same names, steps and attributes the brokers write; `evidence()` hands them to a check with the lesson's facts.
"""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from kafka_edu.lessons import Evidence, ProcessExit, ProcessPause
from kafka_edu.tracing.query import SpanEvent, SpanRecord, Spans
from tests.integration.helpers import wait_until

REPO = Path(__file__).resolve().parents[2]
T0 = 1_700_000_000_000_000_000  # the made-up run's start, in ns
_ids = itertools.count(1)


def ns(ms: float) -> int:
    return T0 + int(ms * 1_000_000)


class FakeRun:
    def __init__(self) -> None:
        self.spans: list[SpanRecord] = []

    def span(self, name: str, broker: int, at_ms: float, took_ms: float = 1.0, *, step: str | None = None,
             trace: str | None = None, parent: SpanRecord | None = None, events: list[tuple[str, dict]] = (),
             links: list[SpanRecord] = (), role: str = "broker", **attributes: Any) -> SpanRecord:
        """One span on `broker-<broker>` (or `controller-<broker>`, a KRaft node, with role="controller"); attribute
        names use `__` for dots (`kafka__controller__won`)."""
        attrs = {k.replace("__", "."): v for k, v in attributes.items()}
        attrs.setdefault("kafka.broker.id" if role == "broker" else "kafka.node.id", broker)
        if step:
            attrs["kafka.step"] = step
        record = SpanRecord(
            trace_id=trace or (parent.trace_id if parent else f"{next(_ids):032x}"), span_id=f"{next(_ids):016x}",
            parent_id=parent.span_id if parent else "", name=name, start_ns=ns(at_ms), end_ns=ns(at_ms + took_ms),
            attributes=attrs, resource={"service.instance.id": f"{role}-{broker}"},
            events=[SpanEvent(n, ns(at_ms), a) for n, a in events],
            links=[(s.trace_id, s.span_id) for s in links])
        self.spans.append(record)
        return record

    def startup(self, broker: int, at_ms: float, states: tuple[str, ...] = ("Starting", "RunningAsBroker")
                ) -> SpanRecord:
        root = self.span("KafkaServer.startup", broker, at_ms, 100, step="LC.main.4")
        before = "NotRunning"
        for i, state in enumerate(states):
            self.span("BrokerState.newState", broker, at_ms + 1 + i, 0.01, parent=root,
                      kafka__broker__state__from=before, kafka__broker__state__to=state)
            before = state
        return root

    def elect(self, broker: int, at_ms: float, won: bool, controller: int, epoch: int | None = None,
              event: str = "Startup", failover: list[str] | None = None) -> SpanRecord:
        """A controller event whose `elect` won or lost; a winner's failover runs the `failover` steps in order."""
        root = self.span("ControllerEventManager.process", broker, at_ms, 50, step="CT.event",
                         kafka__controller__event=event)
        if event == "Reelect":
            self.span("KafkaController.Reelect.process", broker, at_ms + 0.1, 40, step="CT.reelect", parent=root)
        attrs: dict[str, Any] = {"kafka__controller__won": won, "kafka__controller__id": controller}
        if won:
            attrs["kafka__controller__epoch"] = epoch
        elect = self.span("KafkaController.elect", broker, at_ms + 0.2, 30, step="CT.elect", parent=root, **attrs)
        if won:
            failover_span = self.span("KafkaController.onControllerFailover", broker, at_ms + 1, 20, parent=elect)
            for i, step in enumerate(failover or []):
                extra: dict[str, Any] = {}
                if step in ("CT.failover.01", "CT.failover.02"):
                    extra = {"kafka__controller__epoch": epoch - (step == "CT.failover.01"),
                             "kafka__controller__epoch_zk_version": epoch - (step == "CT.failover.01")}
                if step == "CT.failover.05":
                    extra = {"kafka__brokers__live": [0, 1, 2], "kafka__topics": []}
                self.span(f"Failover.{step}", broker, at_ms + 1 + i, 0.5, step=step, parent=failover_span, **extra)
        return elect

    def evidence(self, exits: list[ProcessExit] = (), alive: dict[int, int | None] | None = None,
                 pauses: list[ProcessPause] = (), **facts: Any) -> Evidence:
        return Evidence(Spans(self.spans), {"broker_ids": [0, 1, 2], "run_dir": "/tmp/run", "bootstrap": "b:1",
                                            "session_timeout_s": 6.0, "action_ns": T0, **facts},
                        list(exits), alive if alive is not None else {0: 100, 1: 101, 2: 102}, list(pauses))


def died(broker: int, at_ms: float, pid: int | None = None) -> ProcessExit:
    return ProcessExit(broker, pid or 100 + broker, ns(at_ms))


def paused(broker: int, at_ms: float, resumed: bool = False) -> ProcessPause:
    return ProcessPause(broker, 100 + broker, ns(at_ms), resumed)


# -- driving `kafka-edu lesson` in a real terminal ------------------------------------------------------------------

class Tmux:
    """One tmux session running a command, 140×50, read back with capture-pane (the whole scrollback)."""

    def __init__(self, command: str, name: str, env: dict[str, str]) -> None:
        self.session = name
        exports = " ".join(f"{k}={v}" for k, v in env.items())
        # COLUMNS/LINES inherited from a test runner would pin rich at their size
        shell = f"cd {REPO} && env -u COLUMNS -u LINES {exports} {command}; echo LESSON-EXIT=$?; sleep 600"
        subprocess.run(["tmux", "new-session", "-d", "-s", name, "-x", "140", "-y", "50", shell], check=True)

    def screen(self) -> str:
        return subprocess.run(["tmux", "capture-pane", "-p", "-J", "-S", "-", "-t", self.session],
                              capture_output=True, text=True).stdout

    def type(self, text: str) -> None:
        """Type `text` and press Enter ("" presses Enter alone)."""
        if text:
            subprocess.run(["tmux", "send-keys", "-t", self.session, "-l", text], check=True)
        subprocess.run(["tmux", "send-keys", "-t", self.session, "Enter"], check=True)

    def wait_for(self, condition: Callable[[str], object], what: str, timeout_s: float = 90.0) -> str:
        """The terminal once `condition(screen)` holds; at the deadline, fail with the end of the terminal."""
        def shown() -> str | None:
            screen = self.screen()
            return screen if condition(screen) else None
        try:
            return wait_until(shown, timeout_s, what)
        except AssertionError as e:
            raise AssertionError(f"{e}; the terminal:\n{self.screen()[-6000:]}") from None

    def close(self) -> None:
        subprocess.run(["tmux", "kill-session", "-t", self.session], check=False, capture_output=True)


def run_lesson_auto(name: str, traces: Path, state_dir: Path, timeout_s: float = 600) -> subprocess.CompletedProcess:
    """`kafka-edu lesson run NAME --auto`, as CI runs it."""
    env = {**os.environ, "KAFKA_EDU_STATE_DIR": str(state_dir), "COLUMNS": "120"}
    return subprocess.run([sys.executable, "-m", "kafka_edu.cli", "lesson", "run", name, "--auto",
                           "--traces", str(traces)], capture_output=True, text=True, timeout=timeout_s, env=env,
                          cwd=REPO)


def stop_leftover_clusters(traces: Path) -> None:
    """A lesson that failed half-way has stopped its cluster already; this is the belt to that brace."""
    from kafka_edu.cluster_runner.runner import ClusterRunner
    for manifest in traces.glob("*/manifest.json"):
        if not json.loads(manifest.read_text()).get("stopped_at"):
            ClusterRunner.open(manifest.parent).down()
