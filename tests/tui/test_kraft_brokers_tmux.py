"""Our own test code, not a Kafka port: `kafka-edu tui --mode kraft` with brokers, in a real terminal (tmux, 160x45),
read back with capture-pane. One controller and two brokers (a short broker session): kill -9 of a broker, its
fencing once its session times out, x again on it (refused, and why), r (a new process, a new broker epoch,
unfenced), then c (a topic through the brokers) and P (a burst of records into it)."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.tui.test_live_tmux import REPO, Terminal

pytestmark = [pytest.mark.slow, pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux")]

BROKER = re.compile(r"│  b(\d+) (\S+) +e(\S+) +(\S+)")
OVERRIDES = ["broker.session.timeout.ms=4000", "broker.heartbeat.interval.ms=1000",
             "offsets.topic.replication.factor=2", "offsets.topic.num.partitions=2"]


class KRaftBrokersTerminal(Terminal):
    def __init__(self, traces: Path) -> None:  # Terminal's, with one controller and two brokers, at 160x45
        self.traces = traces
        self.session = f"kafka-edu-tui-brokers-{uuid.uuid4().hex[:8]}"
        overrides = " ".join(f"--override {o}" for o in OVERRIDES)
        command = (f"cd {REPO} && env -u COLUMNS -u LINES {sys.executable} -m kafka_edu.cli tui --mode kraft "
                   f"--controllers 1 --brokers 2 {overrides} --traces {traces}")
        subprocess.run(["tmux", "new-session", "-d", "-s", self.session, "-x", "160", "-y", "45", command], check=True)


def brokers(screen: str) -> dict[int, tuple[str, str, str]]:
    """The Quorum pane's broker rows: node id -> (fenced or unfenced, broker epoch, state)."""
    return {int(m.group(1)): (m.group(2), m.group(3), m.group(4)) for m in BROKER.finditer(screen)}


@pytest.fixture
def terminal(tmp_path: Path) -> Iterator[KRaftBrokersTerminal]:
    term = KRaftBrokersTerminal(tmp_path / "traces")
    try:
        term.wait_for(lambda s: " · live · " in s and brokers(s) and all(
            fenced == "unfenced" and state == "RUNNING" for fenced, _, state in brokers(s).values())
            and len(brokers(s)) == 2, "two unfenced RUNNING brokers", timeout_s=180)
        yield term
    finally:
        term.close()


def test_a_killed_broker_is_fenced_restarted_with_a_new_epoch_and_serves_a_topic(
        terminal: KRaftBrokersTerminal) -> None:
    _, epoch, _ = brokers(terminal.screen())[2]
    terminal.press("g", "j", "x")  # focus starts on the Quorum pane: c1, then b2
    terminal.wait_for(lambda s: "kill -9 broker 2" in s, "the kill of broker 2 to start", timeout_s=15)
    terminal.wait_for(lambda s: brokers(s).get(2, ("", "", ""))[2] == "killed", "b2 read as killed")
    screen = terminal.wait_for(lambda s: brokers(s).get(2, ("", "", ""))[0] == "fenced",
                               "b2 fenced once its session timed out", timeout_s=30)
    assert "fences broker 2: no heartbeat for" in screen or "broker 2 fenced, committed" in screen
    assert brokers(screen)[3][0] == "unfenced"

    terminal.press("x")  # the wrong thing: it is not running
    terminal.wait_for(lambda s: "broker 2 is not running (killed)" in s, "the refusal", timeout_s=15)

    terminal.press("r")
    screen = terminal.wait_for(lambda s: brokers(s).get(2, ("", "", ""))[0::2] == ("unfenced", "RUNNING")
                               and brokers(s)[2][1] != epoch, "b2 back, unfenced, with a new broker epoch",
                               timeout_s=120)
    assert int(brokers(screen)[2][1]) > int(epoch)

    terminal.press("c")
    terminal.wait_for(lambda s: "create topic" in s, "the create-topic dialog", timeout_s=15)
    terminal.press(*"clicks", "Enter")
    terminal.wait_for(lambda s: "TOPIC_RECORD clicks" in s, "the topic in the Metadata log", timeout_s=60)
    terminal.press("P")
    terminal.wait_for(lambda s: "produce 1000 messages to clicks: done (1000)" in s, "the burst acknowledged",
                      timeout_s=90)
