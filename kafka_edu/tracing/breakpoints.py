"""Step-through breakpoints on FIDELITY rows, driven through files in the run directory (no socket, no service).

The UI writes `<run>/breakpoints.json` atomically (tmp + os.replace):

    {"steps": ["LC.startup.08"], "commands": {"broker-1": {"seq": 3, "action": "next"}}}

Each traced process with a run directory runs one daemon thread that stats that file every POLL_S and re-reads it
when it changed. When `step(id)` reaches an armed row (or the process is stepping after a "next"), the calling thread
writes `<run>/<instance>.paused.json` and blocks before the step's span opens, until a command for its instance
with a higher `seq` arrives: "next" runs the step and pauses at the very next `step()` of the process (any thread),
"continue" runs until the next breakpoint. Removing breakpoints.json releases every paused thread.

Cost when nothing is armed: `step()` reads the module boolean ACTIVE and moves on.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import re
import threading
import time
from pathlib import Path
from typing import Any

from kafka_edu.tracing import provider

CONTROL_FILE = "breakpoints.json"
PAUSED_SUFFIX = ".paused.json"
POLL_S = 0.1
RACY_NS = 1_000_000_000
NEXT, CONTINUE = "next", "continue"

# step() calls on_step() only while this is True. True at import so that the first step() of a process finds its run
# directory and starts the watcher; from then on it is True only while a breakpoint or a "next" is armed.
ACTIVE = True


def paused_path(run_dir: Path, instance: str) -> Path:
    return run_dir / f"{instance}{PAUSED_SUFFIX}"


def write_json_atomically(path: Path, data: dict[str, Any]) -> None:
    """Readers polling the file never see half of it."""
    temp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    temp.write_text(json.dumps(data, indent=1) + "\n")
    os.replace(temp, path)


def read_control(run_dir: Path) -> dict[str, Any] | None:
    """breakpoints.json as written by the UI; None when there is none."""
    try:
        data = json.loads((run_dir / CONTROL_FILE).read_text())
    except FileNotFoundError:
        return None
    except (OSError, ValueError):
        return {}  # unreadable: nothing armed, but no release either
    return data if isinstance(data, dict) else {}


def _command(data: dict[str, Any] | None, instance: str) -> tuple[int, str]:
    command = ((data or {}).get("commands") or {}).get(instance) or {}
    try:
        return int(command.get("seq", 0)), str(command.get("action", CONTINUE))
    except (TypeError, ValueError):
        return 0, CONTINUE


class Watcher:
    """This process's side of the channel: the armed rows, the stepping mode and the one paused thread."""

    def __init__(self, run_dir: Path, instance: str) -> None:
        self.run_dir = run_dir
        self.instance = instance
        self.paused_file = paused_path(run_dir, instance)
        self._cv = threading.Condition()
        self._steps: frozenset[str] = frozenset()
        self._stepping = False
        self._seq = 0
        self._released = 0  # bumped when the control file disappears: every paused thread runs on
        self._paused_by: int | None = None
        self._stopped = threading.Event()
        self._thread = threading.Thread(target=self._poll, name="kafka-edu-breakpoints", daemon=True)
        self._signature: tuple[int, int, int] | None = self._stat()
        data = read_control(run_dir)
        with self._cv:
            # Commands already in the file were for an earlier process of this instance: history, not orders.
            self._seq = _command(data, instance)[0]
            self._apply(data, obey=False)
        self._remove_stale_paused_file()

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stopped.set()
        if self._thread.is_alive():
            self._thread.join()
        with self._cv:  # a thread paused on a watcher that goes away must not wait forever
            self._steps, self._stepping = frozenset(), False
            self._released += 1
            self._cv.notify_all()
        self.remove_paused_file()

    # -- reading the UI's file ------------------------------------------------------------------------------------

    def _poll(self) -> None:
        while not self._stopped.wait(POLL_S):
            signature = self._stat()
            # A file replaced twice within one mtime tick can look unchanged (same size, recycled inode): while its
            # mtime is recent, read it anyway (git's "racy clean" rule). Re-applying a command is harmless.
            recent = signature is not None and time.time_ns() - signature[0] < RACY_NS
            if signature != self._signature or recent:
                self.refresh()

    def _stat(self) -> tuple[int, int, int] | None:
        try:
            st = os.stat(self.run_dir / CONTROL_FILE)
        except OSError:
            return None
        return st.st_mtime_ns, st.st_size, st.st_ino  # os.replace gives every version a new inode

    def refresh(self) -> None:
        signature = self._stat()  # before the read: a write in between is seen at the next poll
        data = read_control(self.run_dir)
        with self._cv:
            self._signature = signature
            self._apply(data, obey=True)

    def _apply(self, data: dict[str, Any] | None, obey: bool) -> None:
        global ACTIVE
        if data is None:
            if self._steps or self._stepping or self._paused_by is not None:
                self._released += 1
            self._steps, self._stepping = frozenset(), False
        else:
            steps = data.get("steps") or []
            self._steps = frozenset(s for s in steps if isinstance(s, str))
            seq, action = _command(data, self.instance)
            if obey and seq > self._seq:
                self._seq = seq
                self._stepping = action == NEXT
        ACTIVE = bool(self._steps) or self._stepping
        self._cv.notify_all()

    # -- the broker's side: one call per step() while ACTIVE ------------------------------------------------------

    def on_step(self, step_id: str, span_name: str) -> None:
        with self._cv:
            while True:
                if not (self._stepping or step_id in self._steps):
                    return
                if self._paused_by is None:
                    break
                self._cv.wait(POLL_S)  # another thread is paused: all stepping threads stop, one is shown at a time
            self._paused_by = threading.get_ident()
            try:
                self._signature = self._stat()
                self._apply(read_control(self.run_dir), obey=True)  # a command sent just now must not resume us
                if not (self._stepping or step_id in self._steps):
                    return
                baseline, released = self._seq, self._released
                write_json_atomically(self.paused_file, self._paused_record(step_id, span_name, baseline))
                while self._seq <= baseline and self._released == released:
                    self._cv.wait(1.0)
            finally:
                self._paused_by = None
                self.remove_paused_file()
                self._cv.notify_all()

    def _paused_record(self, step_id: str, span_name: str, seq: int) -> dict[str, Any]:
        return {"instance": self.instance, "broker_id": self._broker_id(), "step": step_id, "span_name": span_name,
                "since_ns": time.time_ns(), "pid": os.getpid(), "thread": threading.current_thread().name,
                "seq": seq}

    def _broker_id(self) -> int | None:
        tracing = provider.current_tracing()
        broker_id = tracing.process_attributes.attributes.get("kafka.broker.id") if tracing else None
        if isinstance(broker_id, int):
            return broker_id
        match = re.fullmatch(r"broker-(\d+)", self.instance)
        return int(match.group(1)) if match else None

    # -- no stale paused files ------------------------------------------------------------------------------------

    def remove_paused_file(self) -> None:
        """Remove our paused file, only if it is ours (a restarted process of the instance may own it now)."""
        if read_paused_record(self.paused_file).get("pid") == os.getpid():
            with contextlib.suppress(FileNotFoundError):
                self.paused_file.unlink()

    def _remove_stale_paused_file(self) -> None:
        if self.paused_file.exists() and read_paused_record(self.paused_file).get("pid") != os.getpid():
            with contextlib.suppress(FileNotFoundError):
                self.paused_file.unlink()  # one instance, one process: the previous one is gone


def read_paused_record(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


_lock = threading.Lock()
_watcher: Watcher | None = None
_initialized = False


def watch(run_dir: Path, instance: str) -> Watcher:
    """Start this process's watcher on `run_dir` (replacing any other)."""
    with _lock:
        return _watch_locked(run_dir, instance)


def _watch_locked(run_dir: Path, instance: str) -> Watcher:
    global _watcher, _initialized
    _initialized = True
    if _watcher is not None:
        _watcher.stop()
    _watcher = Watcher(run_dir, instance)
    _watcher.start()
    return _watcher


def unwatch() -> None:
    """Stop watching: step() never pauses again in this process."""
    global _watcher, _initialized, ACTIVE
    with _lock:
        _initialized = True
        ACTIVE = False
        if _watcher is not None:
            _watcher.stop()
            _watcher = None


def _initialize() -> Watcher | None:
    """The first step(): watch the run directory of this process's tracing; nothing at all without one."""
    global _initialized, ACTIVE
    with _lock:
        if _initialized:
            return _watcher
        tracing = provider.current_tracing()
        if tracing is None or tracing.span_file is None:
            _initialized, ACTIVE = True, False
            return None
        instance = str(tracing.provider.resource.attributes.get("service.instance.id", f"pid{os.getpid()}"))
        return _watch_locked(tracing.span_file.parent, instance)


def on_step(step_id: str, span_name: str) -> None:
    """Called by step() before its span opens, only while ACTIVE: blocks while this step is a breakpoint."""
    watcher = _watcher if _initialized else _initialize()
    if watcher is not None:
        watcher.on_step(step_id, span_name)


@atexit.register
def _remove_paused_file_at_exit() -> None:
    if _watcher is not None:
        _watcher.remove_paused_file()
