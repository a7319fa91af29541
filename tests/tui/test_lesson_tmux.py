"""End to end, in a real terminal (tmux): `kafka-edu tui --lesson controller` completed by following its prompts.

The test is the learner at the TUI: it reads the lesson's pane, types each prediction into the lesson's input, and
acts with the TUI's own keys where the lesson says how (`x` on the controller, `r` on the killed broker, `s` on the
broker the lesson names), moving the Cluster pane's cursor onto the broker first. Once it presses Enter without
acting: the lesson says what it expected and what it saw, and the key press that follows is checked without starting
over. The topic it lets the lesson create (`d`). At the end the lesson is recorded as finished.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from kafka_edu.lessons.progress import Progress
from tests.tui.test_live_tmux import REPO, Terminal

pytestmark = [pytest.mark.slow, pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux")]

IN_THE_TUI = re.compile(r"In the TUI: put the Cluster pane's cursor on b(\d+) and press (\w)")
ANSWERS = {1: "b", 2: "a", 3: "b", 4: "b", 5: "b", 6: "b"}  # the controller lesson's right answers


class LessonTui(Terminal):
    """The TUI with a lesson, in one tmux session (test_live_tmux's, with another command and size)."""

    def __init__(self, traces: Path, state: Path, width: int = 160, height: int = 45) -> None:
        self.traces = traces
        self.session = f"kafka-edu-lesson-tui-{uuid.uuid4().hex[:8]}"
        # COLUMNS/LINES inherited from a test runner would pin the TUI at their size
        command = (f"cd {REPO} && env -u COLUMNS -u LINES KAFKA_EDU_STATE_DIR={state} {sys.executable} -m "
                   f"kafka_edu.cli tui --lesson controller --traces {traces}")
        subprocess.run(["tmux", "new-session", "-d", "-s", self.session, "-x", str(width), "-y", str(height),
                        command], check=True)

    def close(self) -> None:
        if self.alive():
            self.press("C-q")  # quits from anywhere, the lesson's input included; the cluster stops
        super().close()


@pytest.fixture
def tui(tmp_path: Path) -> Iterator[LessonTui]:
    screen = LessonTui(tmp_path / "traces", tmp_path / "state")
    try:
        yield screen
    finally:
        screen.close()


def at_step(step: int, prompt: str) -> Callable[[str], bool]:
    return lambda screen: f"Lesson · Step {step}/6 ·" in screen and prompt in screen


def test_the_controller_lesson_completed_inside_the_tui(tui: LessonTui, tmp_path: Path):
    for step in range(1, 7):
        tui.wait_for(at_step(step, "Your answer ("), f"step {step}'s prediction", timeout_s=120)
        tui.press("-l", ANSWERS[step])
        tui.press("Enter")
        if step in (1, 2):  # no action: the check runs at once
            pass
        elif step == 3:  # create the topic: the lesson does it
            tui.wait_for(at_step(step, "Act with the TUI's keys"), "the topic step to wait for an action")
            tui.press("d")
        else:
            screen = tui.wait_for(lambda s, n=step: at_step(n, "Act with the TUI's keys")(s) and IN_THE_TUI.search(s),
                                  f"step {step}'s action")
            broker, key = IN_THE_TUI.search(screen).groups()
            if step == 4:  # first Enter without acting: the check says why it does not hold
                tui.press("Enter")
                screen = tui.wait_for(at_step(step, "Act with the TUI's keys"), "the failed check", timeout_s=30)
                screen = tui.wait_for(lambda s: "✗ Not what the lesson expected." in s, "the failure shown")
                assert "every broker is still running" in screen
            tui.press("g", *["j"] * (int(broker) + 1))  # the Cluster pane's cursor: after ZooKeeper, the brokers
            tui.press(key)
        if step < 6:
            tui.wait_for(at_step(step, "Press Enter for the next step"), f"step {step}'s check to hold", timeout_s=120)
            tui.press("Enter")
    tui.wait_for(lambda s: "The lesson is over" in s and "Lesson controller finished" in s, "the end of the lesson",
                 timeout_s=120)
    assert "controller" in Progress(tmp_path / "state" / "progress.json").finished()
