"""Our own test code, not a Kafka port: `kafka-edu tui --mode kraft` on a live quorum of three KRaft controllers in a
real terminal (tmux, 160x45), read back with capture-pane: kill -9 of the leader, a new leader in a higher epoch, the
old one read as killed, the new leader's LeaderChange in the Metadata log."""

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

LEADER = re.compile(r"Quorum · ★ c(\d+) · epoch (\d+)")
ROW = re.compile(r"│(★| ) c(\d+) (\S+) +e(\S+) ")


class KRaftTerminal(Terminal):
    """The TUI on a quorum it starts itself, at 160x45."""

    def __init__(self, traces: Path) -> None:  # Terminal's, but `--mode kraft` and a bigger screen
        self.traces = traces
        self.session = f"kafka-edu-tui-kraft-{uuid.uuid4().hex[:8]}"
        command = (f"cd {REPO} && env -u COLUMNS -u LINES {sys.executable} -m kafka_edu.cli tui --mode kraft "
                   f"--controllers 3 --brokers 0 --traces {traces}")
        subprocess.run(["tmux", "new-session", "-d", "-s", self.session, "-x", "160", "-y", "45", command], check=True)


def rows(screen: str) -> dict[int, tuple[bool, str, str]]:
    """The Quorum pane's rows: node id -> (★, status, epoch)."""
    return {int(m.group(2)): (m.group(1) == "★", m.group(3), m.group(4)) for m in ROW.finditer(screen)}


@pytest.fixture
def terminal(tmp_path: Path) -> Iterator[KRaftTerminal]:
    term = KRaftTerminal(tmp_path / "traces")
    try:
        term.wait_for(lambda s: LEADER.search(s) and sum(status in ("Leader", "Follower")
                                                         for _, status, _ in rows(s).values()) == 3,
                      "a leader and two followers", timeout_s=120)
        yield term
    finally:
        term.close()


def test_kill_9_of_the_quorum_leader_shows_a_new_leader_and_the_old_one_killed(terminal: KRaftTerminal) -> None:
    screen = terminal.wait_for(lambda s: "LeaderChange" in s and "Metadata log (c" in s and " · HW " in s,
                               "the first leader's LeaderChange and DescribeQuorum's high watermark")
    leader, epoch = map(int, LEADER.search(screen).groups())
    terminal.press("g", *["j"] * (leader - 1), "x")  # focus starts on the Quorum pane, its cursor on c1

    def new_leader(screen: str) -> bool:
        found = LEADER.search(screen)
        return bool(found) and int(found.group(1)) != leader and int(found.group(2)) > epoch

    screen = terminal.wait_for(new_leader, "a new leader in a higher epoch")
    new, new_epoch = map(int, LEADER.search(screen).groups())
    screen = terminal.wait_for(lambda s: rows(s).get(leader, (0, ""))[1] == "killed", "the old leader read as killed")
    assert not rows(screen)[leader][0]  # no star on it
    terminal.wait_for(lambda s: f"LeaderChange leader {new} epoch {new_epoch}" in s,
                      "the new leader's LeaderChange in the Metadata log")
    terminal.wait_for(lambda s: re.search(rf"c{leader} killed .* \d+ behind", s), "the killed voter falling behind")
