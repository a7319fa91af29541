"""End to end, in a real terminal (tmux): `kafka-edu lesson run controller` completed by following its prompts only.

The test is the learner: it answers each prediction at the prompt, and for each action runs the command the lesson
printed, as one would in a second terminal. Once it answers a prediction wrong, and once it presses Enter without
doing the action: the lesson says what it expected, what it saw and gives a hint, and Enter after following the
hint carries on without starting over. At the end the lesson is recorded as finished in the user's state directory.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from kafka_edu.lessons.progress import Progress
from tests.lessons.helpers import REPO, Tmux, stop_leftover_clusters

pytestmark = [pytest.mark.slow, pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux")]

ANSWER = "Your answer"
NEXT = "Press Enter for the next step"
RAN_IT = "Press Enter once you have run it"
AGAIN = "Press Enter to check again"
COMMAND = re.compile(r"^\s+\$ (.+?)\s*$", re.MULTILINE)


class Learner:
    def __init__(self, term: Tmux) -> None:
        self.term = term

    def after(self, text: str, count: int, timeout_s: float = 120.0) -> str:
        """The terminal once `text` has appeared `count` times (prompts repeat, one per step)."""
        return self.term.wait_for(lambda s: s.count(text) >= count, f"{text!r} × {count}", timeout_s)

    def answer(self, step: int, letter: str) -> None:
        self.after(ANSWER, step)
        self.term.type(letter)

    def run_printed_command(self) -> str:
        """Run the last command the lesson printed, in a shell of our own, as a second terminal would."""
        command = COMMAND.findall(self.term.screen())[-1]
        done = subprocess.run(command, shell=True, cwd=REPO, capture_output=True, text=True, timeout=180)
        assert done.returncode == 0, f"{command}\n{done.stdout}\n{done.stderr}"
        return command

    def act(self, step_action: int) -> str:
        self.after(RAN_IT, step_action)
        command = self.run_printed_command()
        self.term.type("")
        return command


@pytest.fixture
def learner(tmp_path: Path) -> Iterator[Learner]:
    traces, state = tmp_path / "traces", tmp_path / "state"
    term = Tmux(f"{sys.executable} -m kafka_edu.cli lesson run controller --traces {traces}",
                f"kafka-edu-lesson-{uuid.uuid4().hex[:8]}", {"KAFKA_EDU_STATE_DIR": str(state)})
    try:
        yield Learner(term)
    finally:
        term.close()
        stop_leftover_clusters(traces)


def test_the_controller_lesson_completed_by_following_its_prompts(learner: Learner, tmp_path: Path):
    term = learner.term
    # 1. the race, 2. the failover: no action, only predictions
    learner.answer(1, "b")
    learner.after(NEXT, 1)
    assert "You answered b): right." in term.screen()
    term.type("")
    learner.answer(2, "a")
    learner.after(NEXT, 2)
    term.type("")

    # 3. the topic: a wrong prediction, then the printed command
    learner.answer(3, "a")
    command = learner.act(1)
    assert "topics --create --topic lesson" in command
    screen = learner.after(NEXT, 3)
    assert "You answered a); this run says b)" in screen
    term.type("")

    # 4. kill -9 of the controller: Enter without doing it first
    learner.answer(4, "b")
    learner.after(RAN_IT, 2)
    term.type("")
    screen = learner.after(AGAIN, 1)
    failure = screen[screen.rindex("✗ Not what the lesson expected."):]
    controller = re.search(r"expected: broker (\d+)'s process gone, then a new controller at epoch 2", failure)
    assert controller, failure
    assert "seen:     every broker is still running" in failure
    assert re.search(rf"hint:\s+run `\S*kafka-edu cluster kill {controller.group(1)} --run ", failure), failure
    # the hint's command is the one printed above it; run it and check again
    assert f"cluster kill {controller.group(1)} " in learner.run_printed_command()
    term.type("")
    screen = learner.after(NEXT, 4, timeout_s=90)
    assert "of it was ZooKeeper noticing the dead session" in screen
    term.type("")

    # 5. the old controller restarts, 6. a clean stop
    learner.answer(5, "b")
    assert f"cluster start {controller.group(1)} " in learner.act(3)
    learner.after(NEXT, 5)
    term.type("")
    learner.answer(6, "b")
    assert "cluster stop " in learner.act(4)
    screen = learner.after("LESSON-EXIT=", 1, timeout_s=180)
    assert "Lesson controller finished" in screen and "LESSON-EXIT=0" in screen
    assert screen.count("✓ The trace agrees.") == 6
    assert "controller" in Progress(tmp_path / "state" / "progress.json").finished()
