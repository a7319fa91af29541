"""Our own code, not a Kafka port: running a lesson against a real cluster.

`run_lesson` starts the lesson's cluster with the cluster runner (or attaches to `--run DIR`), then walks the steps:
text, the learner's prediction, the action, and the check, polled until it holds or its time is up. Interactive, a
failed check shows what it expected, what it saw and a hint, and Enter checks again without starting over; `--auto`
performs every action itself and stops at the first check that does not hold, with a non-zero exit.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from kafka_edu.cluster_runner.processes import process_alive
from kafka_edu.cluster_runner.run_directory import JsonFileWatch
from kafka_edu.cluster_runner.runner import NODE_ROLES, ClusterError, ClusterRunner
from kafka_edu.lessons.model import (
    Check,
    Command,
    Do,
    Evidence,
    Lesson,
    ProcessExit,
    ProcessPause,
    Result,
    Step,
    fill,
)
from kafka_edu.lessons.progress import Progress
from kafka_edu.lessons.prompts import Quit, Terminal
from kafka_edu.tracing.query import SpanRecord, Spans, read_span_file_from

POLL_S = 0.25
COMMAND_TIMEOUT_S = 180
_KAFKA_EDU = re.compile(r"(?<![\w/.-])kafka-edu(?=\s)")


class LessonFailed(Exception):
    """A check did not hold under --auto, or a command the lesson ran failed."""


class SpanReader:
    """Every span of a run directory, read incrementally: each call reads only what was written since the last."""

    def __init__(self, run_dir: Path) -> None:
        self.run_dir = run_dir
        self._offsets: dict[Path, int] = {}
        self._spans: list[SpanRecord] = []
        self._sorted = Spans([])

    def spans(self) -> Spans:
        grew = False
        for path in sorted(self.run_dir.glob("*.jsonl")):
            if path.name.endswith(".starts.jsonl"):
                continue
            offset, new = read_span_file_from(path, self._offsets.get(path, 0))
            self._offsets[path] = offset
            if new:
                self._spans.extend(new)
                grew = True
        if grew:
            self._sorted = Spans(self._spans)
        return self._sorted


class ProcessWatch(threading.Thread):
    """Notes when each broker (or KRaft controller) process of the run ends, whoever ended it (this lesson,
    `kafka-edu cluster kill` in another terminal, the TUI): the traces of a killed process stop without saying when
    it died. `run` names the cluster in what it notes ("" for the lesson's own)."""

    def __init__(self, runner: ClusterRunner, interval_s: float = 0.05, run: str = "") -> None:
        super().__init__(name="lesson-process-watch", daemon=True)
        self.runner = runner
        self.run_name = run
        self.interval_s = interval_s
        self.exits: list[ProcessExit] = []
        self.pauses: list[ProcessPause] = []
        self.alive: dict[int, int | None] = {}
        self._stopped: dict[int, bool] = {}  # pid -> last seen stopped (SIGSTOP)
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._manifest = JsonFileWatch(runner.run.manifest_path)
        self._pids: dict[int, int | None] = {}
        self.poll()

    def poll(self) -> None:
        manifest = self._manifest.read_if_changed()
        if manifest is not None:
            for entry in manifest["processes"]:
                if entry["role"] in NODE_ROLES:
                    self._pids[entry["id"]] = entry.get("pid")
        now = time.time_ns()
        with self._lock:
            for broker_id, pid in self._pids.items():
                known = self.alive.get(broker_id)
                running = bool(pid) and process_alive(pid)
                if known and (known != pid or not running) and not process_alive(known):
                    self.exits.append(ProcessExit(broker_id, known, now, self.run_name))
                self.alive[broker_id] = pid if running else None
                if running:
                    stopped = _is_stopped(pid)
                    if stopped != self._stopped.get(pid, False):
                        self.pauses.append(ProcessPause(broker_id, pid, now, resumed=not stopped,
                                                        run=self.run_name))
                    self._stopped[pid] = stopped

    def run(self) -> None:
        while not self._stop.wait(self.interval_s):
            self.poll()

    def stop(self) -> None:
        self._stop.set()

    def snapshot(self) -> tuple[list[ProcessExit], dict[int, int | None], list[ProcessPause]]:
        with self._lock:
            return list(self.exits), dict(self.alive), list(self.pauses)


def poll(check: Check, evidence: Callable[[], Evidence], wait_s: float) -> Result:
    """The check's verdict once it holds, once it says waiting will not help, or at the deadline."""
    deadline = time.monotonic() + wait_s
    while True:
        result = check(evidence())
        if result.ok or not result.wait or time.monotonic() >= deadline:
            return result
        time.sleep(POLL_S)


class LessonRun:
    """One lesson on one cluster: the facts the steps share, the run's spans, and the commands the lesson runs."""

    def __init__(self, lesson: Lesson, runner: ClusterRunner, terminal: Terminal, *, auto: bool,
                 owned: bool) -> None:
        self.lesson = lesson
        self.runner = runner
        self.terminal = terminal
        self.auto = auto
        self.owned = owned  # started by this lesson, so stopped by it too
        self.reader = SpanReader(runner.run.path)
        self.watch = ProcessWatch(runner)
        # the other clusters the lesson starts (start_cluster), by name: their runner, spans and processes
        self.others: dict[str, tuple[ClusterRunner, SpanReader, ProcessWatch]] = {}
        self.facts: dict[str, Any] = {**_cluster_facts(runner, ""), "started_ns": time.time_ns()}

    def start_cluster(self, name: str, brokers: int, *, mode: str = "zk", controllers: int = 3,
                      overrides: tuple[str, ...] = ()) -> ClusterRunner:
        """Another cluster beside the lesson's own (a ZooKeeper-mode one to compare a KRaft one with), in the same
        traces directory. Its spans are `Evidence.runs[name]`, its processes' exits carry `run=name`, its facts are
        the lesson's own with `name_` in front (`zk_run_dir`, `zk_bootstrap`, `zk_broker_ids`), and it is stopped
        with the lesson's own."""
        runner = ClusterRunner.up(brokers, self.runner.run.path.parent, None, list(overrides), mode=mode,
                                  controllers=controllers)
        watch = ProcessWatch(runner, run=name)
        self.others[name] = (runner, SpanReader(runner.run.path), watch)
        watch.start()
        self.facts.update(_cluster_facts(runner, f"{name}_"))
        return runner

    def stop_others(self) -> None:
        for runner, _, watch in self.others.values():
            watch.stop()
            runner.down()

    # -- what checks see --------------------------------------------------------------------------------------------

    def evidence(self) -> Evidence:
        self.watch.poll()  # a process that ended a moment ago counts now, not at the watcher's next turn
        exits, alive, pauses = self.watch.snapshot()
        runs = {}
        for name, (_, reader, watch) in self.others.items():
            watch.poll()
            other_exits, _, other_pauses = watch.snapshot()
            exits, pauses = exits + other_exits, pauses + other_pauses
            runs[name] = reader.spans()
        return Evidence(self.reader.spans(), dict(self.facts), sorted(exits, key=lambda e: e.at_ns), alive,
                        sorted(pauses, key=lambda p: p.at_ns), runs)

    def poll(self, check: Check, wait_s: float) -> Result:
        return poll(check, self.evidence, wait_s)

    # -- acting -----------------------------------------------------------------------------------------------------

    def text(self, template: str) -> str:
        """A lesson's string as the learner reads it: facts filled in, `kafka-edu` as this installation's."""
        return self.shown(fill(template, self.facts))

    def shown(self, command: str) -> str:
        """The command as the learner should type it here: `kafka-edu` is this installation's."""
        return _KAFKA_EDU.sub(_kafka_edu_for_display(), command)

    def run_command(self, command: str) -> str:
        """Run a step's command line in a shell, as the learner would; its output, or LessonFailed."""
        env = dict(os.environ)
        bin_dir = Path(sys.executable).parent
        if (bin_dir / "kafka-edu").exists():
            env["PATH"] = f"{bin_dir}{os.pathsep}{env.get('PATH', '')}"
        else:
            command = _KAFKA_EDU.sub(f"{sys.executable} -m kafka_edu.cli", command)
        done = subprocess.run(command, shell=True, env=env, capture_output=True, text=True,
                              timeout=COMMAND_TIMEOUT_S, stdin=subprocess.DEVNULL)
        output = (done.stdout + done.stderr).strip()
        if done.returncode != 0:
            raise LessonFailed(f"`{command}` exited with {done.returncode}:\n{output}")
        return output

    def act(self, step: Step) -> None:
        action = step.action
        if isinstance(action, Command):
            line = fill(action.command, self.facts)
            self.terminal.command(self.shown(line))
            try:
                if self.auto:
                    output = self.run_command(line).splitlines()
                else:
                    with self.terminal.waiting("Running it..."):
                        output = self.run_command(line).splitlines()
            except LessonFailed as e:
                if not action.may_fail:
                    raise
                output = str(e).splitlines()[-3:]
            for text in output if len(output) <= 4 else []:  # a short answer; not the tables some commands print
                self.terminal.say("    " + text, "dim")
        elif isinstance(action, Do):
            action.perform(self)

    # -- the steps --------------------------------------------------------------------------------------------------

    def prepare(self, step: Step) -> None:
        if step.prepare is None:
            return
        deadline = time.monotonic() + step.wait_s
        while (found := step.prepare(self.evidence())) is None:
            if time.monotonic() >= deadline:
                raise LessonFailed(f"step '{step.title}': what it needs from the traces did not appear within "
                                   f"{step.wait_s:.0f} s")
            time.sleep(POLL_S)
        self.facts.update(found)

    def run_step(self, index: int, step: Step) -> None:
        t = self.terminal
        t.heading(f"Step {index}/{len(self.lesson.steps)} · {step.title}")
        self.prepare(step)
        t.markdown(self.text(step.text))
        answer = self.ask_prediction(step)
        self.facts["action_ns"] = time.time_ns()
        if step.action is not None:
            self.show_action(step)
        if self.auto:
            if step.action is not None:
                self.act(step)
            result = self.check(step)
            if not result.ok:
                self.show_failure(result)
                raise LessonFailed(f"step {index} ({step.title}): the check did not hold\n"
                                   + fill(result.message(), self.facts))
        else:
            result = self.interact(step)
        if result.explain:
            t.passed(self.text(result.explain))
        self.facts.update(result.facts)
        if step.predict is not None:
            self.reveal(step, answer)

    def ask_prediction(self, step: Step) -> str | None:
        predict = step.predict
        if predict is None:
            return None
        t = self.terminal
        t.say("Predict first:", "bold magenta")
        t.markdown(self.text(predict.question))
        t.choices({k: self.text(v) for k, v in predict.choices.items()})
        if self.auto:
            return None
        return t.choose(f"Your answer ({'/'.join(predict.choices)}): ", "".join(predict.choices))

    def reveal(self, step: Step, answer: str | None) -> None:
        predict = step.predict
        correct = predict.answer_for(self.evidence())
        t = self.terminal
        if answer is None:
            t.say(f"Answer: {correct}) {self.text(predict.choices[correct])}", "bold magenta")
        elif answer == correct:
            t.say(f"You answered {answer}): right.", "bold green")
        else:
            t.say(f"You answered {answer}); this run says {correct}) {self.text(predict.choices[correct])}",
                  "bold yellow")
        t.markdown(self.text(predict.why))

    def show_action(self, step: Step) -> None:
        t, action = self.terminal, step.action
        if isinstance(action, Command):
            if self.auto:
                return  # act() prints the line as it runs it
            t.say("Your turn: in another terminal, run", "bold")
            t.command(self.text(action.command))
            if action.tui:
                t.say(self.text(f"  (or in the TUI, `kafka-edu tui --run {{run_dir}}`: {action.tui})"), "dim")
        elif isinstance(action, Do):
            t.say(f"The lesson {self.text(action.text)}", "bold")

    def check(self, step: Step) -> Result:
        if step.check is None:
            return Result.passed("")
        with self.terminal.waiting(f"Reading the traces (up to {step.wait_s:.0f} s)..."):
            return self.poll(step.check, step.wait_s)

    def show_failure(self, result: Result) -> None:
        self.terminal.failed(*(self.text(text) for text in (result.expected, result.seen, result.hint)))

    def interact(self, step: Step) -> Result:
        """The learner acts, the lesson checks; a failed check explains itself and Enter checks again."""
        t, action = self.terminal, step.action
        if isinstance(action, Command):
            key = t.ask("Press Enter once you have run it (d: let the lesson run it, q: quit) ", "d")
        elif isinstance(action, Do):
            t.ask("Press Enter to go on (q: quit) ")
            key = "d"
        else:
            key = ""
        while True:
            if key == "d" and action is not None:
                try:
                    self.act(step)
                except LessonFailed as e:
                    t.say(str(e), "red")
            result = self.check(step)
            if result.ok:
                return result
            self.show_failure(result)
            options = "d: let the lesson do it, q: quit" if action is not None else "q: quit"
            key = t.ask(f"Press Enter to check again ({options}) ", "d" if action is not None else "")


def _is_stopped(pid: int) -> bool:
    """Whether the process is stopped by a signal (state T in /proc), as `kafka-edu cluster pause` leaves it."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rfind(")") + 2:][:1] in ("T", "t")


def _cluster_facts(runner: ClusterRunner, prefix: str) -> dict[str, Any]:
    """What a lesson's strings and checks may name of a cluster: its run directory, how to reach it, its nodes."""
    manifest = runner.run.read_manifest()
    nodes = {role: sorted(p["id"] for p in manifest["processes"] if p["role"] == role) for role in NODE_ROLES}
    facts = {"run_dir": str(runner.run.path), "mode": manifest.get("mode", "zk"),
             "bootstrap": manifest["bootstrap_servers"], "zookeeper": manifest.get("zookeeper_connect") or "",
             "brokers": len(nodes["broker"]), "broker_ids": nodes["broker"],
             "session_timeout_s": _session_timeout_s(manifest.get("overrides", []))}
    if manifest.get("mode") == "kraft":
        facts.update(controller_ids=nodes["controller"],
                     bootstrap_controllers=manifest.get("bootstrap_controllers", ""))
    return {prefix + key: value for key, value in facts.items()}


def cluster_shape(mode: str, brokers: int, controllers: int) -> str:
    """"3 KRaft controllers and 2 brokers", "ZooKeeper and 3 brokers": what a lesson's cluster is, in words."""
    if mode == "kraft":
        return f"{controllers} KRaft controllers" + (f" and {brokers} brokers" if brokers else "")
    return f"ZooKeeper and {brokers} brokers"


def _session_timeout_s(overrides: list[str]) -> float:
    for override in overrides:
        key, _, value = override.partition("=")
        if key.strip() == "zookeeper.session.timeout.ms":
            return int(value) / 1000
    return 6.0  # Kafka 1.0.2's default


def _kafka_edu_for_display() -> str:
    """`kafka-edu` when the shell finds this installation's, else the path to it."""
    ours = Path(sys.executable).parent / "kafka-edu"
    found = shutil.which("kafka-edu")
    if found and ours.exists() and Path(found).resolve() == ours.resolve():
        return "kafka-edu"
    if not ours.exists():
        return f"{sys.executable} -m kafka_edu.cli"
    try:
        return str(ours.relative_to(Path.cwd()))
    except ValueError:
        return str(ours)


def run_lesson(lesson: Lesson, *, auto: bool = False, run_dir: Path | None = None, traces: Path = Path("traces"),
               keep: bool = False, terminal: Terminal | None = None, progress: Progress | None = None) -> int:
    """Run a lesson from its first step to its last: 0 when every check held, 1 when one did not (--auto) or a
    command failed, 0 too when the learner quits (nothing is recorded as finished then)."""
    t = terminal or Terminal(interactive=not auto)
    t.heading(f"{lesson.title}  (lesson {lesson.name}, about {lesson.minutes} min)")
    t.markdown(lesson.intro)
    if run_dir is not None:
        runner = ClusterRunner.open(run_dir)
        manifest = runner.run.read_manifest()
        missing = [o for o in lesson.overrides if o not in manifest.get("overrides", [])]
        if manifest.get("mode", "zk") != lesson.mode:
            t.say(f"This lesson wants {cluster_shape(lesson.mode, lesson.brokers, lesson.controllers)}; run "
                  f"{run_dir} is a {manifest.get('mode', 'zk')} cluster, so its checks will not hold.", "yellow")
        if missing:
            t.say(f"This run was started without {', '.join(missing)}; the lesson's numbers may differ.", "yellow")
    else:
        if lesson.netns and os.geteuid() != 0:
            t.say(f"Lesson {lesson.name} cuts network links between its processes (network namespaces and nftables "
                  "rules): run it as root, e.g. `sudo -E kafka-edu lesson run " + lesson.name + "`.", "bold red")
            return 1
        if lesson.setup:
            t.markdown(lesson.setup)
        with t.waiting(f"Starting {cluster_shape(lesson.mode, lesson.brokers, lesson.controllers)}..."):
            runner = ClusterRunner.up(lesson.brokers, traces, None, list(lesson.overrides), mode=lesson.mode,
                                      controllers=lesson.controllers, dynamic_quorum=lesson.dynamic_quorum,
                                      netns=lesson.netns)
    session = LessonRun(lesson, runner, t, auto=auto, owned=run_dir is None)
    session.watch.start()
    t.say(f"run directory: {runner.run.path}", "bold")
    if session.facts["bootstrap"]:
        t.say(f"bootstrap servers: {session.facts['bootstrap']}", "bold")
    if session.facts.get("bootstrap_controllers"):
        t.say(f"bootstrap controllers: {session.facts['bootstrap_controllers']}", "bold")
    if not auto:
        t.say(f"Watch it live in another terminal: {session.shown('kafka-edu ')}tui --run {runner.run.path}", "dim")
    try:
        for index, step in enumerate(lesson.steps, 1):
            session.run_step(index, step)
            if not auto and index < len(lesson.steps):
                t.ask("Press Enter for the next step (q: quit) ")
    except (Quit, KeyboardInterrupt):
        t.say(f"\nLesson stopped; `kafka-edu lesson run {lesson.name}` starts it again.", "yellow")
        return 0
    except (LessonFailed, ClusterError) as e:
        t.say(f"\nkafka-edu lesson {lesson.name}: {e}", "bold red")
        return 1
    finally:
        session.watch.stop()
        others = threading.Thread(target=session.stop_others, name="lesson-stop-others")
        if session.others and not keep:  # the lesson's other clusters stop while its own does
            others.start()
        for other, _, _ in session.others.values() if keep else ():
            t.say(f"still running: kafka-edu cluster down --run {other.run.path}", "dim")
        if session.owned and not keep:
            with t.waiting("Stopping the cluster..."):
                runner.down()
            t.say(f"traces are in {runner.run.path}", "dim")
        elif session.owned:
            t.say(f"the cluster is still running: kafka-edu cluster down --run {runner.run.path}", "dim")
        if others.is_alive():
            with t.waiting("Stopping the lesson's other clusters..."):
                others.join()
    if lesson.outro:
        t.heading("Done")
        t.markdown(session.text(lesson.outro))
    if not auto:
        (progress or Progress()).mark_finished(lesson.name)
        t.say(f"Lesson {lesson.name} finished; `kafka-edu lesson list` shows what is next.", "bold green")
    return 0
