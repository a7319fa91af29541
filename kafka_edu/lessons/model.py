"""Our own code, not a Kafka port: what a lesson is made of.

A `Lesson` is a list of `Step`s. A step has text (Markdown, our words, naming the Kafka class and method it is
about), an optional prediction the learner makes first (`Predict`), an optional action (`Command`: the learner runs
a printed command, and `--auto` runs the same line; `Do`: the lesson acts itself), and a check: a function from the
run's `Evidence` (its spans, what the lesson knows, which broker processes ended when) to a `Result` that either
explains what happened with this run's numbers or says what it expected, what it saw, and gives a hint.

Every string a learner reads is plain Markdown, so that a docs generator can import a lesson module and print the
same text; `{name}` in a question, a command or an instruction is filled from the run's facts (`fill`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from kafka_edu.tracing.query import Spans

if TYPE_CHECKING:
    from kafka_edu.lessons.runner import LessonRun


@dataclass(frozen=True)
class ProcessExit:
    """A broker process (or a KRaft controller's: `broker_id` is then its node id) seen to end while the lesson ran:
    which node, which process, when (time.time_ns(), the clock span timestamps use); `run` names the cluster, "" for
    the lesson's own, else the name it gave another cluster it started (`LessonRun.start_cluster`)."""

    broker_id: int
    pid: int
    at_ns: int
    run: str = ""


@dataclass(frozen=True)
class ProcessPause:
    """A broker or controller process seen to stop (SIGSTOP, `kafka-edu cluster pause`) or, with `resumed`, to
    continue."""

    broker_id: int
    pid: int
    at_ns: int
    resumed: bool = False
    run: str = ""


@dataclass
class Evidence:
    """What a check may look at.

    spans: every span of the run so far (`kafka_edu.tracing.query`).
    facts: what the lesson knows that the traces do not say, or said earlier: the run directory, the bootstrap
        servers, `action_ns` (when the current step's action began), and whatever earlier checks found (`controller`,
        `epoch`, ...).
    exits: broker (and KRaft controller) processes that ended during the lesson, oldest first.
    alive: node id -> pid for the brokers and controllers whose process runs now (None: not running), in the
        lesson's own cluster.
    pauses: those processes seen to stop and continue during the lesson, oldest first.
    runs: the spans of the other clusters the lesson started (`LessonRun.start_cluster`), by the name it gave each.
    """

    spans: Spans
    facts: dict[str, Any] = field(default_factory=dict)
    exits: list[ProcessExit] = field(default_factory=list)
    alive: dict[int, int | None] = field(default_factory=dict)
    pauses: list[ProcessPause] = field(default_factory=list)
    runs: dict[str, Spans] = field(default_factory=dict)

    def since(self, at_ns: int) -> Spans:
        """The spans that started at or after `at_ns`."""
        return Spans(s for s in self.spans if s.start_ns >= at_ns)

    def exits_since(self, at_ns: int, run: str = "") -> list[ProcessExit]:
        """The exits since `at_ns` in one cluster: the lesson's own by default."""
        return [e for e in self.exits if e.at_ns >= at_ns and e.run == run]

    def pauses_since(self, at_ns: int, run: str = "") -> list[ProcessPause]:
        return [p for p in self.pauses if p.at_ns >= at_ns and p.run == run]


@dataclass
class Result:
    """A check's verdict. Passed: `explain` tells what happened, with this run's numbers and spans, and `facts` are
    handed to the next steps. Failed: `expected`, `seen` and `hint`; `wait` says whether more time could still turn
    it into a pass (a failover in progress) or not (nothing was killed), so the runner stops polling early."""

    ok: bool
    explain: str = ""
    expected: str = ""
    seen: str = ""
    hint: str = ""
    facts: dict[str, Any] = field(default_factory=dict)
    wait: bool = True

    @classmethod
    def passed(cls, explain: str, **facts: Any) -> Result:
        return cls(True, explain=explain, facts=facts)

    @classmethod
    def failed(cls, expected: str, seen: str, hint: str, *, wait: bool = True) -> Result:
        return cls(False, expected=expected, seen=seen, hint=hint, wait=wait)

    def message(self) -> str:
        """The failure as plain text, three labelled lines (what `--auto` prints before it exits non-zero)."""
        return f"expected: {self.expected}\nseen:     {self.seen}\nhint:     {self.hint}"


Check = Callable[[Evidence], Result]


@dataclass(frozen=True)
class Predict:
    """A multiple-choice question asked before the action. `answer` is a letter, or a function of the evidence once
    the check has passed (for questions whose answer is this run's, such as which startup step was slowest). `why`
    is shown after the check, beside the learner's answer."""

    question: str
    choices: Mapping[str, str]
    answer: str | Callable[[Evidence], str]
    why: str

    def answer_for(self, evidence: Evidence) -> str:
        return self.answer(evidence) if callable(self.answer) else self.answer


@dataclass(frozen=True)
class Command:
    """The learner runs `command` in a shell (another terminal), or does the same in the TUI as `tui` says; `--auto`
    (and a learner who types `d`) runs the very same line, with `kafka-edu` resolved to this installation."""

    command: str
    tui: str = ""
    may_fail: bool = False  # a command that is meant to be refused (the lesson is about why); --auto carries on


@dataclass(frozen=True)
class Do:
    """The lesson acts itself, in every mode: `text` says what it does, `perform` does it."""

    text: str
    perform: Callable[[LessonRun], None]


Action = Command | Do


@dataclass(frozen=True)
class Step:
    """One step of a lesson.

    title: a short heading.
    about: the Kafka symbols the step is about (`KafkaController.elect`), as the text names them.
    text: Markdown, our own words.
    predict, action, check: see the classes above; each is optional.
    prepare: a function of the evidence returning facts the step's question and command need (None: not known yet,
        ask again); run before the step is shown.
    wait_s: how long the check may take to hold after the action (traces land within a second; a failover takes a
        ZooKeeper session timeout).
    """

    title: str
    about: tuple[str, ...]
    text: str
    predict: Predict | None = None
    action: Action | None = None
    check: Check | None = None
    prepare: Callable[[Evidence], dict[str, Any] | None] | None = None
    wait_s: float = 15.0


@dataclass(frozen=True)
class Lesson:
    """A lesson: `name` is what `kafka-edu lesson run NAME` takes; `seed` names the article in shared/seeds it grew
    from, if any; `mode`, `brokers`, `controllers` and `overrides` shape the cluster it starts: ZooKeeper and
    `brokers` Kafka 1.0.2 brokers (mode "zk"), or `controllers` KRaft controllers and `brokers` KRaft brokers (mode
    "kraft", Kafka 3.9); each override is explained in `setup`."""

    name: str
    title: str
    summary: str
    minutes: int
    intro: str
    steps: list[Step]
    seed: str = ""
    brokers: int = 3
    overrides: tuple[str, ...] = ()
    mode: str = "zk"
    controllers: int = 3  # mode "kraft" only
    dynamic_quorum: bool = False  # mode "kraft": a KIP-853 quorum (`cluster up --dynamic-quorum`)
    netns: bool = False  # each process in a network namespace of its own (`cluster up --netns`, root): cuttable links
    setup: str = ""
    outro: str = ""


_PLACEHOLDER = re.compile(r"\{([a-z_][a-z0-9_]*)\}")


def fill(text: str, facts: Mapping[str, Any]) -> str:
    """`{name}` replaced by the fact of that name; anything else in braces (JSON, a placeholder not known yet) stays."""
    return _PLACEHOLDER.sub(lambda m: str(facts[m.group(1)]) if m.group(1) in facts else m.group(0), text)
