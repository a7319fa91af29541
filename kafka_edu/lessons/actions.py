"""Our own code, not a Kafka port: the cluster actions lessons ask for, as a command to print and the TUI key that
does the same, and as the line a hint quotes. A node id names a broker or, in KRaft mode, a controller."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kafka_edu.lessons.model import Command

TUI_KEYS = {"kill": "x", "stop": "s", "start": "r", "pause": "p", "resume": "p"}


def cluster(verb: str, broker: str) -> Command:
    """`kafka-edu cluster VERB {broker} --run {run_dir}` for the broker named by the fact `broker`."""
    return Command(f"kafka-edu cluster {verb} {{{broker}}} --run {{run_dir}}",
                   tui=f"put the Cluster pane's cursor on b{{{broker}}} and press {TUI_KEYS[verb]}")


def controller(verb: str, node: str) -> Command:
    """The same for a KRaft controller named by the fact `node`: the TUI shows controllers in its Quorum pane."""
    return Command(f"kafka-edu cluster {verb} {{{node}}} --run {{run_dir}}",
                   tui=f"put the Quorum pane's cursor on c{{{node}}} and press {TUI_KEYS[verb]}")


def cluster_line(verb: str, broker_id: int, facts: Mapping[str, Any]) -> str:
    """The same command for one broker, quoted, for a hint."""
    return f"`kafka-edu cluster {verb} {broker_id} --run {facts['run_dir']}`"
