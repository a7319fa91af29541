"""Our own test code, not a Kafka port: the memory bound kafka-edu server-start gives a broker from KAFKA_HEAP_OPTS
(kafka_edu/cluster_runner/heap.py)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import traceback
from pathlib import Path

import pytest

from kafka_edu.cluster_runner.heap import (
    DEFAULT_HEAP_OPTS,
    THREAD_STACK_BYTES,
    heap_opts,
    max_heap_bytes,
    thread_stack_bytes,
)

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(("opts", "expected"), [
    (DEFAULT_HEAP_OPTS, 1 << 30),
    ("-Xmx512m", 512 << 20),
    ("-Xms1G -Xmx2g -Xmx768M", 768 << 20),  # the last -Xmx wins, as in the JVM
    ("-Xmx2097152k", 2 << 30),
    ("-Xmx1t", 1 << 40),
    (f"-Xmx{100 << 20}", 100 << 20),  # bytes without a suffix
])
def test_the_bound_is_the_last_xmx(opts, expected):
    assert max_heap_bytes(opts) == expected


@pytest.mark.parametrize(("opts", "message"), [
    ("-Xms1G", "has no -Xmx"),
    ("-Xmx1Q", "invalid maximum heap size '-Xmx1Q'"),
    ("-Xmx", "invalid maximum heap size '-Xmx'"),
    ("-Xmx16m", "below 64 MB"),
])
def test_a_heap_setting_without_a_usable_xmx_is_refused(opts, message):
    with pytest.raises(ValueError, match=message):
        max_heap_bytes(opts)


def test_defaults_are_kafka_server_start_sh_s():
    assert heap_opts({}) == heap_opts({"KAFKA_HEAP_OPTS": "  "}) == "-Xmx1G -Xms1G"
    assert heap_opts({"KAFKA_HEAP_OPTS": "-Xmx256M"}) == "-Xmx256M"
    assert thread_stack_bytes("-Xmx1G") == THREAD_STACK_BYTES == 4 << 20
    assert thread_stack_bytes("-Xmx1G -Xss8m") == 8 << 20
    assert thread_stack_bytes("-Xmx1G -Xss512k") == 2 << 20  # less crashes deep recursion: see heap.py


def test_clearing_the_unwound_frames_frees_what_a_failed_call_built():
    import weakref

    class Big:
        pass

    refs = []

    def build() -> None:
        made = Big()
        refs.append(weakref.ref(made))
        raise MemoryError

    try:
        build()
    except MemoryError as e:
        assert refs[0]() is not None  # the traceback keeps the failed frame's locals
        traceback.clear_frames(e.__traceback__)
        assert refs[0]() is None


def _python(code: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=120,
                          cwd=REPO, env={**os.environ, "PYTHONPATH": str(REPO), **env})


def test_an_allocation_past_the_bound_fails_in_its_thread_and_the_process_goes_on():
    result = _python("""
        import threading
        import traceback
        from kafka_edu.cluster_runner.heap import bound_memory, memory_bound

        bound = bound_memory()
        assert memory_bound() == bound == 256 << 20, bound
        ticks = []
        stop = threading.Event()
        def bystander():
            while not stop.wait(0.001):
                ticks.append(bytearray(100))
                del ticks[:-10]
        other = threading.Thread(target=bystander)
        other.start()

        def assign(n):
            assignment = {}
            for partition in range(n):
                assignment[partition] = [partition % 3]
            return assignment

        for attempt in range(3):
            try:
                assign(2**31 - 1)
                raise SystemExit("no MemoryError")
            except MemoryError as e:
                traceback.clear_frames(e.__traceback__)
                print(f"attempt {attempt}: MemoryError")
        # after it, memory is there again for the next request
        assert len(assign(100_000)) == 100_000
        stop.set()
        other.join()
        print("served on")
        """, KAFKA_HEAP_OPTS="-Xmx256M")
    assert result.returncode == 0, result.stderr
    assert result.stdout.split("\n") == ["attempt 0: MemoryError", "attempt 1: MemoryError",
                                         "attempt 2: MemoryError", "served on", ""]


def test_server_start_refuses_a_heap_setting_it_cannot_use_in_one_line(tmp_path):
    config = tmp_path / "server.properties"
    result = subprocess.run([sys.executable, "-m", "kafka_edu.cli", "server-start", str(config)],
                            capture_output=True, text=True, timeout=120, cwd=REPO,
                            env={**os.environ, "PYTHONPATH": str(REPO), "KAFKA_HEAP_OPTS": "-Xmx1Q"})
    assert result.returncode == 1
    assert result.stdout.strip() == "KAFKA_HEAP_OPTS: invalid maximum heap size '-Xmx1Q' (expected e.g. -Xmx1G)"


def test_a_thread_recursing_to_the_limit_gets_a_recursion_error_not_a_crash():
    result = _python("""
        import json, threading
        from kafka_edu.cluster_runner.heap import bound_memory

        bound_memory()
        class Call:
            def __call__(self, n):
                return self(n - 1) + 1
        outcome = []
        def recurse():
            nested = []
            for _ in range(950):
                nested = [nested]
            outcome.append(len(json.dumps(nested)))
            try:
                Call()(100_000)
            except RecursionError:
                outcome.append("RecursionError")
        thread = threading.Thread(target=recurse)
        thread.start()
        thread.join()
        print(outcome)
        """, KAFKA_HEAP_OPTS="-Xmx256M -Xss512k")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "[1902, 'RecursionError']\n"
