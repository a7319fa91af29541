"""How times, durations and instances are written in every pane."""

from __future__ import annotations

import time


def clock(time_ns: int) -> str:
    """Wall-clock time to the millisecond: 08:04:12.345."""
    seconds, ns = divmod(time_ns, 1_000_000_000)
    return time.strftime("%H:%M:%S", time.localtime(seconds)) + f".{ns // 1_000_000:03d}"


def duration(ns: int) -> str:
    if ns < 1_000_000:
        return f"{ns / 1000:.0f}µs"
    if ns < 1_000_000_000:
        return f"{ns / 1e6:.1f}ms"
    return f"{ns / 1e9:.2f}s"


def short_instance(instance: str) -> str:
    """broker-2 -> b2, controller-1 -> c1, so trace rows keep their width for the label."""
    if instance.startswith("broker-"):
        return "b" + instance[7:]
    if instance.startswith("controller-"):
        return "c" + instance[11:]
    return instance[:3]
