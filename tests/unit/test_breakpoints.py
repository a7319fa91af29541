"""Step-through breakpoints: the file protocol between tui/control.py and kafka_edu/tracing/breakpoints.py."""

from __future__ import annotations

import builtins
import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from kafka_edu.tracing import breakpoints, setup_tracing, step
from tests.integration.helpers import REPO, wait_until
from tests.unit.helpers import lenient_describers  # noqa: F401  (a fixture)
from tui.control import ClusterControl, Paused

pytestmark = pytest.mark.usefixtures("lenient_describers")


@pytest.fixture
def control(tmp_path: Path) -> Iterator[ClusterControl]:
    """A process traced into tmp_path as broker-7, watching the run's control file, and the UI's handle on it."""
    tracing = setup_tracing("broker-7", "run-1", run_dir=tmp_path)
    breakpoints.watch(tmp_path, "broker-7")
    try:
        yield ClusterControl(tmp_path)
    finally:
        breakpoints.unwatch()  # also releases any thread a failed test left paused
        tracing.shutdown()


def started_steps(run_dir: Path) -> list[str]:
    path = run_dir / "broker-7.starts.jsonl"
    lines = path.read_text().splitlines() if path.exists() else []
    return [json.loads(line)["attributes"].get("kafka.step") for line in lines]


def run_in_thread(target, name: str = "kafka-main") -> threading.Thread:
    thread = threading.Thread(target=target, name=name, daemon=True)
    thread.start()
    return thread


def paused_steps(control: ClusterControl) -> list[str]:
    return [p.step for p in control.paused()]


def test_a_breakpoint_blocks_before_the_span_opens_next_pauses_at_the_next_step_continue_runs_on(control, tmp_path):
    control.set_breakpoint("LC.startup.08")
    assert control.breakpoints() == {"LC.startup.08"}
    wait_until(lambda: breakpoints.ACTIVE, 5, "the watcher to arm")
    ran: list[str] = []

    def startup() -> None:
        for step_id in ("LC.startup.07", "LC.startup.08", "LC.startup.09", "LC.startup.10"):
            with step(step_id):
                ran.append(step_id)

    thread = run_in_thread(startup)
    (paused,) = wait_until(control.paused, 5, "the thread to pause")
    assert paused == Paused("broker-7", 7, "LC.startup.08", "LogManager.startup", paused.since_ns, os.getpid(),
                            "kafka-main")
    assert ran == ["LC.startup.07"]
    # starts reach the file in batches, a few times a second
    wait_until(lambda: "LC.startup.07" in started_steps(tmp_path), 5, "LC.startup.07's start on disk")
    assert "LC.startup.08" not in started_steps(tmp_path)

    control.step_next("broker-7")
    wait_until(lambda: paused_steps(control) == ["LC.startup.09"], 5, "a pause at the next step")
    assert ran == ["LC.startup.07", "LC.startup.08"]
    wait_until(lambda: "LC.startup.08" in started_steps(tmp_path), 5, "LC.startup.08's start on disk")

    control.continue_("broker-7")
    thread.join(5)
    assert not thread.is_alive() and ran[-1] == "LC.startup.10"
    assert control.paused() == [] and not (tmp_path / "broker-7.paused.json").exists()
    control.clear_breakpoint("LC.startup.08")
    assert control.breakpoints() == set()
    wait_until(lambda: not breakpoints.ACTIVE, 5, "the watcher to disarm")


def test_a_disarmed_step_touches_no_control_file_and_never_enters_the_breakpoint_module(control, monkeypatch,
                                                                                      tmp_path):
    assert not breakpoints.ACTIVE
    me = threading.get_ident()
    io_calls: list[str] = []

    def spy(name, original):
        def wrapper(*args, **kwargs):
            # Only the run directory counts: span() itself resolves source paths (a stat) for code.file.path.
            if threading.get_ident() == me and str(tmp_path) in " ".join(map(str, args)):
                io_calls.append(f"{name}{args}")
            return original(*args, **kwargs)
        return wrapper

    for module, name in ((os, "stat"), (os, "replace"), (builtins, "open"), (Path, "read_text"),
                         (Path, "write_text"), (Path, "exists")):
        monkeypatch.setattr(module, name, spy(name, getattr(module, name)))

    def must_not_be_called(*_args: object) -> None:
        raise AssertionError("step() entered the breakpoint module while nothing is armed")

    monkeypatch.setattr(breakpoints, "on_step", must_not_be_called)
    for _ in range(200):
        with step("LC.startup.08"):
            pass
    assert io_calls == []


def test_other_threads_run_their_steps_while_one_is_paused_at_a_breakpoint(control):
    control.set_breakpoint("LC.startup.08")
    wait_until(lambda: breakpoints.ACTIVE, 5, "the watcher to arm")

    def hit() -> None:
        with step("LC.startup.08"):
            pass

    thread = run_in_thread(hit)
    wait_until(control.paused, 5, "the thread to pause")
    with step("LC.startup.03"):  # not a breakpoint, and nobody asked for "next": runs at once
        pass
    control.continue_("broker-7")
    thread.join(5)
    assert not thread.is_alive()


def test_next_on_a_running_process_pauses_it_at_its_next_step(control):
    control.step_next("broker-7")
    wait_until(lambda: breakpoints.ACTIVE, 5, "the watcher to see the command")

    def hit() -> None:
        with step("LC.main.5"):
            pass

    thread = run_in_thread(hit)
    wait_until(lambda: paused_steps(control) == ["LC.main.5"], 5, "a pause at the next step")
    control.continue_("broker-7")
    thread.join(5)
    assert not thread.is_alive() and not breakpoints.ACTIVE


def test_commands_left_for_an_earlier_process_of_the_instance_are_history(tmp_path):
    (tmp_path / "breakpoints.json").write_text(json.dumps(
        {"steps": [], "commands": {"broker-7": {"seq": 4, "action": "next"}}}))
    tracing = setup_tracing("broker-7", "run-1")
    breakpoints.watch(tmp_path, "broker-7")
    try:
        assert not breakpoints.ACTIVE
        with step("LC.startup.01"):
            pass
    finally:
        breakpoints.unwatch()
        tracing.shutdown()


def test_removing_the_control_file_releases_a_paused_thread(control, tmp_path):
    control.set_breakpoint("LC.startup.08")
    wait_until(lambda: breakpoints.ACTIVE, 5, "the watcher to arm")

    def hit() -> None:
        with step("LC.startup.08"):
            pass

    thread = run_in_thread(hit)
    wait_until(control.paused, 5, "the thread to pause")
    (tmp_path / "breakpoints.json").unlink()
    thread.join(5)
    assert not thread.is_alive() and control.paused() == [] and not breakpoints.ACTIVE


def test_paused_files_of_dead_processes_are_ignored_and_a_new_process_removes_its_own(tmp_path):
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    stale = {"instance": "broker-9", "broker_id": 9, "step": "LC.startup.08", "span_name": "LogManager.startup",
             "since_ns": 1, "pid": dead.pid}
    (tmp_path / "broker-9.paused.json").write_text(json.dumps(stale))
    assert ClusterControl(tmp_path).paused() == []
    breakpoints.watch(tmp_path, "broker-9")
    try:
        assert not (tmp_path / "broker-9.paused.json").exists()
    finally:
        breakpoints.unwatch()


def test_unknown_steps_are_refused(tmp_path):
    control = ClusterControl(tmp_path)
    with pytest.raises(ValueError, match="LC.startup.99"):
        control.set_breakpoint("LC.startup.99")
    with pytest.raises(ValueError):
        control.clear_breakpoint("KafkaServer.startup")
    assert control.breakpoints() == set()


CHILD = """
import sys, threading, time
from pathlib import Path
from kafka_edu.tracing import breakpoints, setup_tracing, step
run = Path(sys.argv[1])
setup_tracing("broker-5", "run-1", run_dir=run)
def hit():
    with step("LC.startup.08"):
        pass
threading.Thread(target=hit, daemon=True).start()
deadline = time.monotonic() + 20
while not (run / "broker-5.paused.json").exists() and time.monotonic() < deadline:
    time.sleep(0.02)
print("paused" if (run / "broker-5.paused.json").exists() else "not paused", flush=True)
"""


def test_a_process_that_exits_while_paused_leaves_no_paused_file_and_tracing_starts_the_watcher(tmp_path):
    ClusterControl(tmp_path).set_breakpoint("LC.startup.08")
    lenient = {k: v for k, v in os.environ.items() if k != "KAFKA_EDU_TRACING_STRICT"}  # a step outside its code
    child = subprocess.run([sys.executable, "-c", CHILD, str(tmp_path)], capture_output=True, text=True, timeout=60,
                           cwd=REPO, env=lenient)
    assert child.stdout.strip() == "paused", child.stderr  # the first step() found the run dir by itself
    assert not (tmp_path / "broker-5.paused.json").exists()


def test_without_a_run_directory_steps_never_pause(monkeypatch):
    monkeypatch.setattr(breakpoints, "_initialized", False)
    monkeypatch.setattr(breakpoints, "_watcher", None)
    monkeypatch.setattr(breakpoints, "ACTIVE", True)
    tracing = setup_tracing("broker-0", "run-1")  # in memory: no run directory
    with step("LC.startup.08"):
        pass
    assert breakpoints.ACTIVE is False and breakpoints._watcher is None
    tracing.shutdown()
