"""process_alive, the one liveness check the cluster runner and the TUI share: no pid, a running child, an exited
child (reaped), another process's zombie (read from /proc), a process that is gone."""

from __future__ import annotations

import socket
import subprocess
import sys
import time

from kafka_edu.cluster_runner.processes import process_alive


def test_no_pid_is_not_alive() -> None:
    assert not process_alive(None)
    assert not process_alive(0)  # kill(0, 0) would signal our own process group and say "alive"
    assert not process_alive(-1)


def test_a_running_child_is_alive_and_an_exited_one_is_not() -> None:
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        assert process_alive(child.pid)
    finally:
        child.kill()
    deadline = time.monotonic() + 10
    while process_alive(child.pid) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert not process_alive(child.pid)  # exited and unreaped is a zombie: process_alive reaps it


def test_another_processs_zombie_is_not_alive() -> None:
    # The child forks a grandchild that exits at once and never reaps it: a zombie that is not our child.
    script = ("import os, sys, time\n"
              "pid = os.fork()\n"
              "if pid == 0:\n"
              "    os._exit(0)\n"
              "print(pid, flush=True)\n"
              "time.sleep(30)\n")
    parent = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    try:
        assert parent.stdout is not None
        zombie = int(parent.stdout.readline())
        deadline = time.monotonic() + 10
        while process_alive(zombie) and time.monotonic() < deadline:
            time.sleep(0.02)
        assert not process_alive(zombie)
        assert process_alive(parent.pid)
    finally:
        parent.kill()
        parent.wait()


def test_free_port_is_below_the_ephemeral_range_and_can_be_bound():
    from kafka_edu.cluster_runner.processes import _ephemeral_range, free_port

    low, _ = _ephemeral_range()
    ports = {free_port() for _ in range(20)}
    for port in ports:
        assert port < low  # never one the kernel could hand to another process's connection meanwhile
        with socket.socket() as s:
            s.bind(("127.0.0.1", port))
    assert len(ports) > 1  # chosen at random, so two runs side by side rarely pick the same
