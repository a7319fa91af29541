"""Our own code, not a Kafka port: OS process helpers for the cluster runner and the TUI (free ports, liveness,
signalling with a deadline)."""

from __future__ import annotations

import os
import random
import signal
import socket
import time
from pathlib import Path


def free_port() -> int:
    """A port free now, taken from below the kernel's ephemeral range: a port the kernel hands out itself (to a
    client's connection, or a bind to port 0) could be taken by anything on the machine between this choice and the
    process that binds it."""
    low = _ephemeral_range()[0]
    if low > _LOWEST_CHOSEN_PORT + 1000:
        for _ in range(50):
            port = _chooser.randrange(_LOWEST_CHOSEN_PORT, low)
            with socket.socket() as s:
                try:
                    s.bind(("127.0.0.1", port))
                except OSError:
                    continue
                return port
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


_LOWEST_CHOSEN_PORT = 10000  # above the well-known and most registered services' ports
_chooser = random.SystemRandom()  # not the random module's shared state, which a test may seed


def _ephemeral_range() -> tuple[int, int]:
    try:
        low, high = Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()
        return int(low), int(high)
    except (OSError, ValueError):
        return 32768, 60999  # Linux's default


def process_alive(pid: int | None) -> bool:
    """Whether process `pid` still runs. False for no pid, for a process that is gone, and for a zombie: a child of
    ours that has exited is reaped here, and another process's exited child is read as a zombie from /proc."""
    if not pid or pid < 0:
        return False  # 0 and negative numbers name process groups to waitpid and kill, never one process
    try:
        done, _ = os.waitpid(pid, os.WNOHANG)
        if done == pid:
            return False
    except ChildProcessError:
        pass  # not our child: its parent reaps it
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # it exists, as another user's process
    return not _is_zombie(pid)


def _is_zombie(pid: int) -> bool:
    """A process that has exited but that its parent has not yet reaped (state Z, or X while it goes)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False  # no /proc (or the process just went): os.kill already said it exists
    # The state follows the command name, which is in parentheses and may itself hold ") ".
    return stat[stat.rfind(")") + 2:][:1] in ("Z", "X")


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
