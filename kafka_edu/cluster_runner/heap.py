"""Our own code, not a Kafka port: the bound a JVM's heap gives a Kafka process, for a Python one.

kafka-server-start.sh starts Kafka with `KAFKA_HEAP_OPTS` (`-Xmx1G -Xms1G` when unset): an allocation past `-Xmx`
throws OutOfMemoryError in the thread that asked for it, the request it served fails (KafkaApis.handle answers it
with UNKNOWN_SERVER_ERROR, AdminManager.createTopics per topic) and the broker serves on. A Python process has no
heap of its own: `bound_memory` caps the process's private writable memory (RLIMIT_DATA: every object, malloc arena
and thread stack; shared file mappings such as index files are not counted) at the `-Xmx` size, so that an
allocation past it raises MemoryError in the thread that asked, where the ported `catch` clauses meet it.

Two differences with the JVM are made up for here. Thread stacks are counted in Python's bound: each is reserved at
4 MiB (`-Xss` when KAFKA_HEAP_OPTS gives one, 2 MiB at least) rather than glibc's 8 MiB. Not at the JVM's 1 MiB:
Python's interpreter needs more C stack than the JVM's frames, and a thread recursing to Python's recursion limit
through C calls overflows 1 MiB (a segmentation fault, not a RecursionError); 2 MiB measured enough. And a caught
Python exception keeps the frames it unwound alive through its traceback, with the locals that filled the memory
(a half-built assignment of 2^31-1 partitions): where the ports catch a request's error they clear those frames
(`traceback.clear_frames`), as the JVM's collector would free them, so that the handler itself can allocate.
"""

from __future__ import annotations

import os
import re
import resource
import threading
from collections.abc import Mapping

HEAP_OPTS_ENV = "KAFKA_HEAP_OPTS"
DEFAULT_HEAP_OPTS = "-Xmx1G -Xms1G"  # kafka-server-start.sh's when KAFKA_HEAP_OPTS is unset
THREAD_STACK_BYTES = 4 << 20
MIN_THREAD_STACK_BYTES = 2 << 20  # below it, deep recursion crashes the process instead of raising RecursionError
_UNITS = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}
_XMX = re.compile(r"-Xmx(\d+)([kKmMgGtT]?)$")
_XSS = re.compile(r"-Xss(\d+)([kKmMgGtT]?)$")


def _size(match: re.Match[str]) -> int:
    return int(match.group(1)) * _UNITS[match.group(2).lower()]


def max_heap_bytes(heap_opts: str) -> int:
    """The `-Xmx` size of a KAFKA_HEAP_OPTS value, as the JVM reads it (the last one wins; k, m, g, t suffixes in
    either case, bytes without one). ValueError names what is wrong."""
    sizes = []
    for option in heap_opts.split():
        if option.startswith("-Xmx"):
            match = _XMX.match(option)
            if match is None:
                raise ValueError(f"{HEAP_OPTS_ENV}: invalid maximum heap size {option!r} (expected e.g. -Xmx1G)")
            sizes.append(_size(match))
    if not sizes:
        raise ValueError(f"{HEAP_OPTS_ENV}={heap_opts!r} has no -Xmx: the broker's memory needs a bound")
    if sizes[-1] < 64 << 20:
        raise ValueError(f"{HEAP_OPTS_ENV}: maximum heap size {sizes[-1]} bytes is below 64 MB, too small to start")
    return sizes[-1]


def thread_stack_bytes(heap_opts: str) -> int:
    """The `-Xss` size when KAFKA_HEAP_OPTS gives one (2 MiB at least), else 4 MiB."""
    sizes = [_size(m) for m in map(_XSS.match, heap_opts.split()) if m is not None]
    return max(sizes[-1], MIN_THREAD_STACK_BYTES) if sizes else THREAD_STACK_BYTES


def heap_opts(environ: Mapping[str, str] = os.environ) -> str:
    return environ.get(HEAP_OPTS_ENV, "").strip() or DEFAULT_HEAP_OPTS


def bound_memory(environ: Mapping[str, str] = os.environ) -> int:
    """Cap this process's data at the `-Xmx` of KAFKA_HEAP_OPTS and size the stacks of the threads it will start;
    returns the bound in bytes. Call before any thread starts. ValueError for a KAFKA_HEAP_OPTS without a valid
    -Xmx."""
    opts = heap_opts(environ)
    bound = max_heap_bytes(opts)
    threading.stack_size(thread_stack_bytes(opts))
    _, hard = resource.getrlimit(resource.RLIMIT_DATA)
    if hard != resource.RLIM_INFINITY:
        bound = min(bound, hard)
    resource.setrlimit(resource.RLIMIT_DATA, (bound, hard))
    return bound


def memory_bound() -> int | None:
    """This process's bound (RLIMIT_DATA), None when it has none."""
    soft, _ = resource.getrlimit(resource.RLIMIT_DATA)
    return None if soft == resource.RLIM_INFINITY else soft


