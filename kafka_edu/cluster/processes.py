"""OS process helpers for the cluster runner: free ports, liveness, signalling with a deadline."""

from __future__ import annotations

import os
import signal
import socket
import time


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def process_alive(pid: int) -> bool:
    try:
        done, _ = os.waitpid(pid, os.WNOHANG)  # reaps our own children, so a dead child is not a zombie
        if done == pid:
            return False
    except ChildProcessError:
        pass  # not our child: its parent reaps it
    try:
        os.kill(pid, 0)
        return True
    except ProcessLookupError:
        return False


def wait_exit(pid: int, timeout_s: float) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if not process_alive(pid):
            return True
        time.sleep(0.05)
    return not process_alive(pid)


def signal_process(pid: int, sig: int) -> bool:
    try:
        os.kill(pid, sig)
        return True
    except ProcessLookupError:
        return False


def stop_process(pid: int, timeout_s: float = 30.0) -> bool:
    """SIGTERM, then SIGKILL after the deadline. True when the process ended on its own."""
    if not signal_process(pid, signal.SIGTERM):
        return True
    if wait_exit(pid, timeout_s):
        return True
    signal_process(pid, signal.SIGKILL)
    wait_exit(pid, 5)
    return False
