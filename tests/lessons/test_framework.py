"""The lesson framework without a cluster: placeholders, progress kept in the user's state directory, the prompt,
polling a check, noticing a broker process end, and every lesson's own consistency."""

from __future__ import annotations

import io
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import pytest
from rich.console import Console

from kafka_edu.cli import build_parser
from kafka_edu.lessons import Command, Evidence, Result, fill
from kafka_edu.lessons.catalog import all_lessons, find
from kafka_edu.lessons.progress import STATE_DIR_ENV, Progress, state_dir
from kafka_edu.lessons.prompts import Quit, Terminal
from kafka_edu.lessons.runner import ProcessWatch, SpanReader, poll
from kafka_edu.tracing.query import Spans
from tests.integration.helpers import wait_until


def test_fill_replaces_known_names_and_leaves_json_and_unknown_names_alone():
    text = 'kill {controller}; {"version":1}; {victim} and {run_dir}'
    assert fill(text, {"controller": 2, "run_dir": "/r"}) == 'kill 2; {"version":1}; {victim} and /r'


def test_progress_lives_in_the_state_directory_and_counts_finishes(tmp_path, monkeypatch):
    monkeypatch.setenv(STATE_DIR_ENV, str(tmp_path / "state"))
    progress = Progress()
    assert progress.path == tmp_path / "state" / "progress.json"
    assert progress.finished() == {}
    progress.mark_finished("controller")
    progress.mark_finished("controller")
    data = json.loads(progress.path.read_text())
    assert data["lessons"]["controller"]["times"] == 2
    assert set(Progress().finished()) == {"controller"}


def test_state_directory_follows_xdg_and_defaults_to_local_state(monkeypatch, tmp_path):
    monkeypatch.delenv(STATE_DIR_ENV, raising=False)
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    assert state_dir() == tmp_path / "kafka-edu"
    monkeypatch.delenv("XDG_STATE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert state_dir() == tmp_path / "home" / ".local" / "state" / "kafka-edu"


def test_an_unreadable_progress_file_starts_again(tmp_path):
    path = tmp_path / "progress.json"
    path.write_text("{not json")
    progress = Progress(path)
    assert progress.finished() == {}
    progress.mark_finished("broker-life")
    assert set(progress.finished()) == {"broker-life"}


def terminal(*answers: str) -> tuple[Terminal, io.StringIO]:
    out = io.StringIO()
    replies = iter(answers)
    return Terminal(Console(file=out, width=100), read=lambda prompt: next(replies)), out


def test_the_prompt_takes_enter_or_an_allowed_letter_and_asks_again_otherwise():
    t, out = terminal("x", " D ")
    assert t.ask("go? ", "d") == "d"
    assert "Type one of d" in out.getvalue()
    t, _ = terminal("", "b")
    assert t.choose("answer: ", "abc") == "b"


def test_q_and_end_of_input_quit():
    t, _ = terminal("q")
    with pytest.raises(Quit):
        t.ask("go? ")

    def closed(_prompt: str) -> str:
        raise EOFError
    with pytest.raises(Quit):
        Terminal(Console(file=io.StringIO()), read=closed).ask("go? ")


def evidence() -> Evidence:
    return Evidence(Spans([]))


def test_polling_stops_at_once_on_a_failure_that_waiting_cannot_change():
    calls = []

    def check(ev: Evidence) -> Result:
        calls.append(ev)
        return Result.failed("x", "y", "z", wait=False)
    started = time.monotonic()
    assert not poll(check, evidence, wait_s=30).ok
    assert len(calls) == 1 and time.monotonic() - started < 1


def test_polling_retries_until_the_check_holds():
    answers = iter([Result.failed("x", "y", "z"), Result.failed("x", "y", "z"), Result.passed("done")])
    assert poll(lambda ev: next(answers), evidence, wait_s=30).explain == "done"


def test_polling_gives_up_at_the_deadline_with_the_last_verdict():
    result = poll(lambda ev: Result.failed("x", "still not", "z"), evidence, wait_s=0.3)
    assert not result.ok and result.seen == "still not"


def test_the_span_reader_reads_only_what_was_added(tmp_path):
    line = json.dumps({"resourceSpans": [{"resource": {"attributes": [
        {"key": "service.instance.id", "value": {"stringValue": "broker-0"}}]}, "scopeSpans": [{"spans": [
            {"traceId": "a" * 32, "spanId": "b" * 16, "name": "KafkaServer.startup", "startTimeUnixNano": "1",
             "endTimeUnixNano": "2"}]}]}]})
    path = tmp_path / "broker-0.jsonl"
    path.write_text(line + "\n")
    (tmp_path / "broker-0.starts.jsonl").write_text(line + "\n")  # starts are not spans
    reader = SpanReader(tmp_path)
    assert len(reader.spans()) == 1
    with open(path, "a") as f:
        f.write(line + "\n" + line[:20])  # a second span and the start of a third, still being written
    assert len(reader.spans()) == 2


def test_the_process_watch_notes_when_a_broker_process_stops_continues_and_ends(tmp_path):
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    manifest = tmp_path / "manifest.json"
    manifest.write_text(json.dumps({"processes": [{"role": "broker", "id": 1, "pid": child.pid}]}))
    run = SimpleNamespace(manifest_path=manifest, read_manifest=lambda: json.loads(manifest.read_text()))
    watch = ProcessWatch(SimpleNamespace(run=run))
    assert watch.snapshot() == ([], {1: child.pid}, [])
    os.kill(child.pid, signal.SIGSTOP)
    wait_until(lambda: (watch.poll(), watch.snapshot()[2])[1], 10, "the pause to be seen")
    os.kill(child.pid, signal.SIGCONT)
    wait_until(lambda: (watch.poll(), len(watch.snapshot()[2]) == 2)[1], 10, "the resume to be seen")
    assert [(p.broker_id, p.resumed) for p in watch.snapshot()[2]] == [(1, False), (1, True)]
    before = time.time_ns()
    child.kill()
    child.wait()
    watch.poll()
    exits, alive, _ = watch.snapshot()
    assert alive == {1: None}
    assert [(e.broker_id, e.pid) for e in exits] == [(1, child.pid)] and exits[0].at_ns >= before


# -- every lesson ----------------------------------------------------------------------------------------------------

LESSONS = all_lessons()
PLACEHOLDER = re.compile(r"\{([a-z_][a-z0-9_]*)\}")


def test_lessons_have_unique_names_and_are_found_by_name():
    names = [lesson.name for lesson in LESSONS]
    assert len(set(names)) == len(names)
    assert all(find(name).name == name for name in names)
    assert find("no-such-lesson") is None


@pytest.mark.parametrize("lesson", LESSONS, ids=lambda lesson: lesson.name)
def test_each_step_names_the_kafka_classes_it_is_about_and_asks_answerable_questions(lesson):
    assert lesson.seed in {"", "000", "001", "002", "003"} and lesson.minutes > 0 and lesson.steps
    for step in lesson.steps:
        assert step.about, step.title
        for symbol in step.about:
            for part in symbol.split("."):
                assert part in step.text, f"{step.title}: the text never names {part} ({symbol})"
        for text in (step.text, lesson.intro, lesson.outro):
            assert isinstance(text, str)  # Markdown strings a docs generator can print as they are
        if step.predict is not None:
            assert len(step.predict.choices) >= 2
            if isinstance(step.predict.answer, str):
                assert step.predict.answer in step.predict.choices


class _Parsed(Exception):
    """Raised where `kafka-edu metadata-quorum` would connect: its arguments parsed."""


@pytest.mark.parametrize("lesson", LESSONS, ids=lambda lesson: lesson.name)
def test_each_kafka_edu_command_a_lesson_prints_is_one_the_cli_accepts(lesson, monkeypatch):
    from kafka_edu.v3_9.tools.tools import metadata_quorum_command
    parser = build_parser()

    def connect(bootstrap: str) -> None:
        raise _Parsed(bootstrap)
    monkeypatch.setattr(metadata_quorum_command, "ControllerAdmin", connect)
    for step in lesson.steps:
        if isinstance(step.action, Command):
            for part in re.split(r"&&|;|\|", PLACEHOLDER.sub("1", step.action.command)):
                if not part.strip().startswith("kafka-edu "):
                    continue
                words = part.split()[1:]
                if words[0] == "metadata-quorum":  # the tool's own grammar (kafka-metadata-quorum.sh's)
                    with pytest.raises(_Parsed):
                        metadata_quorum_command.main(words[1:])
                else:
                    parser.parse_args(words)  # SystemExit on an unknown verb or option


def test_lesson_list_shows_each_lesson_and_what_is_finished(tmp_path):
    env_dir = tmp_path / "state"
    Progress(env_dir / "progress.json").mark_finished(LESSONS[0].name)
    out = subprocess.run([sys.executable, "-m", "kafka_edu.cli", "lesson", "list"], capture_output=True, text=True,
                         env={"KAFKA_EDU_STATE_DIR": str(env_dir), "PATH": "/usr/bin:/bin", "COLUMNS": "160"},
                         cwd=Path(__file__).resolve().parents[2], check=True).stdout
    lines = out.splitlines()
    for number, lesson in enumerate(LESSONS, 1):
        row = next(line for line in lines if re.match(rf"{number}\s+{re.escape(lesson.name)}\s", line))
        assert str(lesson.minutes) in row
        assert ("✓" in row) == (number == 1)
