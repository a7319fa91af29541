"""`kafka-edu tui --lesson NAME`: a guided lesson on the TUI's own cluster, shown in a pane under the others.

The lesson is the same `kafka_edu.lessons.runner.run_lesson` that `kafka-edu lesson run` and `--auto` use, run on a
thread of its own against the run the TUI started (or attached to), with a `Terminal` that hands everything it would
print to the pane and blocks on answers typed in the pane's input. The learner acts with the TUI's own keys (x kill,
s stop, r restart, p pause, c create a topic, P produce): once such an action is done, the lesson checks, as if Enter
had been pressed; `d` lets the lesson act itself, as at a terminal.

When a check names a span (the lessons quote spans as `kafka_edu.lessons.traces.ref` and `at` write them: "... on
broker-1, trace `1a2b3c4d`"), the waterfall jumps to it; otherwise to the newest trace of the step's kind (a span
named after one of the Kafka symbols the step is `about`).
"""

from __future__ import annotations

import queue
import re
import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.markdown import Markdown
from rich.rule import Rule
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import Input, RichLog, Static

from kafka_edu.lessons.model import Lesson, Step
from kafka_edu.lessons.prompts import Quit, Terminal
from kafka_edu.tracing.query import SpanRecord

if TYPE_CHECKING:
    from tui.launch import ClusterLaunch
    from tui.store import SpanStore

STEP_HEADING = re.compile(r"^Step (\d+)/(\d+) · ")
# How the lessons quote a span (kafka_edu.lessons.traces.ref / at): "`name` (STEP) on broker-1, trace `1a2b3c4d`",
# "`name` on broker-1, trace `…`", "STEP on broker-1, trace `…`" or "on broker-1, trace `…`".
SPAN_REF = re.compile(r"(?:`(?P<name>[^`\s]+)`\s+(?:\((?P<step>[A-Z]+\.[\w.]+)\)\s+)?"
                      r"|(?P<bare_step>[A-Z]+\.[\w.]+)\s+)?on (?P<instance>[\w.-]+), trace `(?P<trace>[0-9a-f]{6,32})`")
ANOTHER_TERMINAL = "Your turn: in another terminal, run"
OR_IN_THE_TUI = re.compile(r"^\s*\(or in the TUI, `[^`]*`: (?P<how>.*)\)\s*$")
WATCH_ELSEWHERE = "Watch it live in another terminal"
# The actions of the TUI that answer a lesson waiting for the learner to act (not breakpoints or stepping).
LESSON_ACTIONS = {"kill", "stop", "restart", "start", "pause", "resume", "create_topic", "produce_burst"}


@dataclass(frozen=True)
class SpanRef:
    """A span as a lesson's text names it."""

    trace: str  # the trace id's first digits
    instance: str
    name: str = ""
    step: str = ""


def span_refs(text: str) -> list[SpanRef]:
    """Every span a lesson's text quotes, in the order it quotes them."""
    return [SpanRef(m["trace"], m["instance"], m["name"] or "", m["step"] or m["bare_step"] or "")
            for m in SPAN_REF.finditer(text)]


def find_ref(store: SpanStore, ref: SpanRef) -> SpanRecord | None:
    """The quoted span in the TUI's store: the earliest of its trace that matches the name, step and instance it was
    quoted with, or the trace's root; None while the trace has not arrived."""
    trace = next((t for trace_id, t in store.traces.items() if trace_id.startswith(ref.trace)), None)
    if trace is None:
        return None
    spans = sorted(trace.spans.values(), key=lambda s: s.start_ns)
    for wanted in ((ref.name, ref.step, ref.instance), (ref.name, ref.step, ""), (ref.name, "", ""),
                   ("", ref.step, "")):
        if not any(wanted):
            continue
        found = [s for s in spans if (not wanted[0] or s.name == wanted[0]) and (not wanted[1] or s.step == wanted[1])
                 and (not wanted[2] or s.instance == wanted[2])]
        if found:
            return found[0]
    return trace.root or (spans[0] if spans else None)


def newest_about(store: SpanStore, about: tuple[str, ...]) -> SpanRecord | None:
    """The newest span named after one of a step's Kafka symbols (`KafkaController.Reelect` finds
    `KafkaController.Reelect.process`)."""
    best: SpanRecord | None = None
    for trace in store.traces.values():
        for span in trace.spans.values():
            if (best is None or span.start_ns > best.start_ns) and any(
                    span.name == symbol or span.name.startswith(symbol + ".") for symbol in about):
                best = span
    return best


class LessonClosed(EOFError):
    """The TUI is gone: the lesson stops as if the learner had typed q."""


class PaneTerminal(Terminal):
    """What a lesson prints, posted to the pane as messages; what it asks, read from the pane's input.

    Called on the lesson's thread. `read` blocks until the pane answers (the learner typed a line, or acted with a
    TUI key while the lesson waited for an action), or raises LessonClosed once the TUI has quit."""

    def __init__(self, post: Callable[[Message], object]) -> None:
        super().__init__(interactive=True, read=self._read_answer)
        self._post = post
        self._answers: queue.Queue[str | None] = queue.Queue()
        self._choosing = False
        self._allowed = ""
        self.closed = False
        self.quit = False  # the learner typed q

    def _emit(self, kind: str, *args: Any) -> None:
        self._post(LessonPane.Output(kind, args))

    # -- printing -----------------------------------------------------------------------------------------------------

    def heading(self, text: str) -> None:
        self._emit("heading", text)

    def markdown(self, text: str) -> None:
        self._emit("markdown", text)

    def say(self, text: str, style: str = "") -> None:
        if text.startswith(WATCH_ELSEWHERE):
            return  # this is the live view
        tui = OR_IN_THE_TUI.match(text)
        if tui:  # the TUI's way first: it is on the screen already
            self._emit("tui_action", tui["how"])
        elif text == ANOTHER_TERMINAL:
            self._emit("say", "Your turn, in the TUI or in another terminal:", "bold")
        else:
            self._emit("say", text, style)

    def command(self, line: str) -> None:
        self._emit("command", line)

    def choices(self, choices: Mapping[str, str]) -> None:
        self._emit("choices", dict(choices))

    def passed(self, explain: str) -> None:
        self._emit("passed", explain)

    def failed(self, expected: str, seen: str, hint: str) -> None:
        self._emit("failed", expected, seen, hint)

    @contextmanager
    def waiting(self, text: str) -> Iterator[None]:
        self._emit("waiting", text)
        try:
            yield
        finally:
            self._emit("waiting", "")

    # -- asking -------------------------------------------------------------------------------------------------------

    def ask(self, prompt: str, allowed: str = "") -> str:
        self._allowed = allowed
        try:
            return super().ask(prompt, allowed)
        except Quit:
            self.quit = not self.closed
            raise

    def choose(self, prompt: str, letters: str) -> str:
        self._choosing = True
        try:
            return super().choose(prompt, letters)
        finally:
            self._choosing = False

    def _read_answer(self, prompt: str) -> str:
        if self.closed:
            raise LessonClosed()
        self._emit("ask", prompt, self._allowed, self._choosing)
        answer = self._answers.get()
        if answer is None:
            raise LessonClosed()
        return answer

    def answer(self, line: str) -> None:
        """From the UI thread: the learner's line."""
        self._answers.put(line)

    def close(self) -> None:
        self.closed = True
        self._answers.put(None)


class LessonPane(Vertical):
    """The current step: its text, the question and its choices, the action, then what the check found. Each time
    the lesson asks, the view starts where what is new since the last answer starts."""

    ALLOW_MAXIMIZE = True  # its style is in tui/app.tcss, with the other panes'

    @dataclass
    class Output(Message):
        """Something the lesson's thread printed or asked."""

        kind: str
        args: tuple[Any, ...]

    @dataclass
    class Waiting(Message):
        """The lesson now waits for `what`: "answer" (a typed line), "action" (a TUI key or Enter), or "" (nothing).
        The pane has put focus where the learner answers; the app refreshes its keys."""

        what: str

    @dataclass
    class Jump(Message):
        """The waterfall should show this: spans quoted by the step's check, or the step's Kafka symbols."""

        refs: list[SpanRef]
        about: tuple[str, ...]

    def __init__(self, lesson: Lesson, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.lesson = lesson
        self.text = RichLog(wrap=True, markup=False, auto_scroll=False, id="lesson-text")
        self.prompt = Static("", id="lesson-prompt")
        self.input = Input(placeholder="", id="lesson-input")
        self.terminal = PaneTerminal(self.post_message)
        self.step: Step | None = None
        self.asking: tuple[str, str, bool] | None = None  # prompt, allowed letters, a prediction
        self.finished = False
        self._anchor = 0  # the first line written since the learner last answered
        self._thread: threading.Thread | None = None

    def compose(self) -> ComposeResult:
        yield self.text
        yield self.prompt
        yield self.input

    def on_mount(self) -> None:
        self.border_title = f"Lesson · {self.lesson.title}"
        self.input.disabled = True

    # -- running ------------------------------------------------------------------------------------------------------

    def start(self, launch: ClusterLaunch | None, run_dir: Path | None) -> None:
        """Run the lesson on its thread: on `run_dir`, or on the run `launch` starts, once its brokers are up."""
        self._thread = threading.Thread(target=self._run, args=(launch, run_dir), name="lesson", daemon=True)
        self._thread.start()

    def _run(self, launch: ClusterLaunch | None, run_dir: Path | None) -> None:
        from kafka_edu.lessons.runner import cluster_shape, run_lesson
        t = self.terminal
        try:
            if launch is not None:
                if self.lesson.setup:
                    t.markdown(self.lesson.setup)
                shape = cluster_shape(launch.mode, launch.brokers, launch.controllers)
                with t.waiting(f"Starting {shape} for the lesson..."):
                    launch.wait()
                if launch.runner is None:
                    t.say(f"The cluster did not start: {launch.error}", "bold red")
                    return
                run_dir = launch.runner.run.path
            code = run_lesson(self.lesson, run_dir=run_dir, terminal=t)
            self._emit_done(code)
        except Exception as e:  # a bug in a lesson must not take the TUI down with it
            t.say(f"The lesson stopped: {type(e).__name__}: {e}", "bold red")
            self._emit_done(1)

    def _emit_done(self, code: int) -> None:
        self.post_message(self.Output("done", (code,)))

    def close(self) -> None:
        self.terminal.close()

    def on_unmount(self) -> None:
        self.close()

    # -- what the lesson printed --------------------------------------------------------------------------------------

    def on_lesson_pane_output(self, message: Output) -> None:
        message.stop()
        kind, args = message.kind, message.args
        write = self.text.write
        if kind == "heading":
            title = args[0]
            step = STEP_HEADING.match(title)
            if step:
                self.step = self.lesson.steps[int(step[1]) - 1]
                self.border_title = f"Lesson · {title}"
                self.post_message(self.Jump([], self.step.about))
            write(Rule(Text(title, style="bold"), align="left"), expand=True)
        elif kind == "markdown":
            write(Markdown(args[0].strip()), expand=True)
        elif kind == "say":
            text, style = args
            write(Text(text, style=style))
        elif kind == "tui_action":
            write(Text.assemble(("In the TUI: ", "bold"), (args[0], "bold cyan"), "; or run:"))
        elif kind == "command":
            write(Text.assemble(("  $ ", "bold cyan"), args[0]))
        elif kind == "choices":
            for letter, text in args[0].items():
                write(Text.assemble((f"  {letter}) ", "bold"), text))
        elif kind == "passed":
            write(Text("✓ The trace agrees.", style="bold green"))
            write(Markdown(args[0].strip()), expand=True)
            self.post_message(self.Jump(span_refs(args[0]), self.step.about if self.step else ()))
        elif kind == "failed":
            write(Text("✗ Not what the lesson expected.", style="bold red"))
            for label, text, style in zip(("expected", "seen", "hint"), args, ("bold", "bold yellow", "bold cyan"),
                                          strict=True):
                write(Text.assemble((f"  {label + ':':<9} ", style), text))
            refs = span_refs(args[1]) + span_refs(args[2])
            if refs:
                self.post_message(self.Jump(refs, ()))
        elif kind == "waiting":
            self._waiting(args[0])
        elif kind == "ask":
            self._ask(*args)
        elif kind == "done":
            self.finished = True
            self.asking = None
            self._leave_input()
            self.input.disabled = True
            self.input.placeholder = ""
            over = args[0] == 0 and not self.terminal.quit
            self.prompt.update("The lesson is over: the cluster runs on until you quit (q)." if over else
                               "The lesson stopped; q quits the TUI and stops the cluster.")
            self.post_message(self.Waiting(""))
        self._show_new()

    def _line_count(self) -> int:
        return len(self.text.lines)

    def _show_new(self) -> None:
        """What is new since the learner last answered: from its first line if it all fits, else its end (the
        question, the choices, what the check found); PgUp reads back."""
        def scroll() -> None:
            log = self.text
            if len(log.lines) - self._anchor > log.scrollable_content_region.height:
                log.scroll_end(animate=False)
            else:
                log.scroll_to(y=self._anchor, animate=False)
        self.call_after_refresh(scroll)

    def _waiting(self, text: str) -> None:
        if text:
            self.prompt.update(Text(f"⏳ {text}", style="dim"))
        elif self.asking is None:
            self.prompt.update("")

    def _ask(self, prompt: str, allowed: str, choosing: bool) -> None:
        self.asking = (prompt, allowed, choosing)
        action = self.waits_for_action
        keys = "Enter: check now · d: let the lesson do it · q: stop the lesson"
        if choosing:
            hint = f"{prompt.strip()} type a letter and Enter"
        elif action:
            hint = f"Act with the TUI's keys (the check starts once the action is done), or: {keys}"
        else:
            hint = prompt.strip()
        self.prompt.update(Text(hint))
        self.input.disabled = False
        self.input.placeholder = "a letter, then Enter" if choosing else ("d, or Enter" if action else "Enter")
        if action:
            self._leave_input()
        else:
            self.input.focus()
        self.post_message(self.Waiting("action" if action else "answer"))

    # -- what the learner does ----------------------------------------------------------------------------------------

    @on(Input.Submitted, "#lesson-input")
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.answer(event.value)

    def answer(self, line: str) -> None:
        """The learner's line (from the input, Enter or d elsewhere, or a TUI action done)."""
        if self.asking is None:
            return
        self.asking = None
        self.input.value = ""
        self._leave_input()
        self.input.disabled = True
        self.prompt.update("")
        self._anchor = self._line_count()
        self.post_message(self.Waiting(""))
        self.terminal.answer(line)

    def acted(self, verb: str) -> None:
        """A TUI action finished: if the lesson waits for the learner to act, it checks now."""
        if verb in LESSON_ACTIONS and self.waits_for_action:
            self.answer("")

    @property
    def waits_for_action(self) -> bool:
        """The lesson waits for the learner to act (or for d, the lesson acts): not a prediction, whose letters
        may run to d."""
        return self.asking is not None and not self.asking[2] and "d" in self.asking[1]

    def on_key(self, event: Any) -> None:
        """PgUp / PgDn in the input scroll the lesson's text; Esc leaves it for the panes (l comes back)."""
        if not self.input.has_focus:
            return
        if event.key in ("pageup", "pagedown"):
            self.text.scroll_page_up() if event.key == "pageup" else self.text.scroll_page_down()
            event.stop()
        elif event.key == "escape":
            self._leave_input(always=True)
            event.stop()

    def _leave_input(self, always: bool = False) -> None:
        """Focus on the panes (the first, Cluster, where the action keys act), if it is in this pane or nowhere."""
        focused = self.app.focused
        if always or focused is None or self in focused.ancestors_with_self:
            for widget in self.screen.focus_chain:
                if self not in widget.ancestors_with_self:
                    widget.focus()
                    break
