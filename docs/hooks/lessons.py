"""MkDocs hook: one page per lesson, generated at build time from the lesson modules themselves.

For each lesson of `kafka_edu.lessons.catalog` (in its order) the site gets `lessons/<name>.md`, rendered from the
lesson's `LESSON`: title, minutes, summary, intro and setup, then every step's text, question and choices, action and
what its check looks at, in order, and the outro; and `lessons/<name>.svg`, the sequence diagram of the lesson's
recorded run (`traces/samples/lesson-<name>/`, drawn by `kafka_edu.lessons.diagram`), with that run's figures.
Placeholders (`{broker}`) are filled with the facts the recorded run filled them with, except the ones that only
mean something on the learner's own cluster (`YOURS`). A `Lessons` section is added to the nav after Home, and the
home page's "Start here" link must point at the first lesson (a warning otherwise, so `--strict` fails).

Nothing here reaches the network: matplotlib draws the SVG, and the pages are Markdown like the others.
"""

from __future__ import annotations

import importlib
import logging
import re
import sys
import types
from pathlib import Path
from typing import Any

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page

log = logging.getLogger("mkdocs.plugins.kafka_edu.lessons")

REPO = Path(__file__).resolve().parents[2]
SAMPLES = REPO / "traces" / "samples"
SECTION = "Lessons"
# facts that only mean something on the learner's own cluster: shown as a placeholder, not as the recorded value
YOURS = {"bootstrap": "<bootstrap>", "run_dir": "<run-dir>", "zookeeper": "<zookeeper>", "traces": "traces",
         "run_ids": "<run-ids>", "mining_out": "<run-dir>-mining", "bootstrap_controllers": "<bootstrap-controllers>",
         "zk_run_dir": "<zk-run-dir>", "zk_bootstrap": "<zk-bootstrap>", "zk_zookeeper": "<zk-zookeeper>",
         "kafka_python": "kafka-python"}
# what a check may read besides spans (Evidence's other fields), by the names its code uses
_ENDED, _PAUSED = "which broker processes ended and when", "which broker processes were paused"
EVIDENCE_READS = {"exits_since": _ENDED, "exits": _ENDED, "pauses_since": _PAUSED, "pauses": _PAUSED,
                  "alive": "which broker processes are running"}
# the reference pages each lesson draws on, best first; a lesson not listed gets the pages that name most of the
# Kafka symbols and FIDELITY steps it is about
DRAWS_ON = {
    "broker-life": ["startup-and-shutdown.md", "architecture.md", "controller.md"],
    "request-journey": ["request-path.md", "request-path-benchmark.md", "architecture.md"],
    "controller": ["controller.md", "controller-failover-benchmark.md", "startup-and-shutdown.md"],
    "replication": ["controller.md", "request-path.md", "long-runs.md"],
    "raft": ["kraft.md", "mining.md", "tui.md"],
    "metadata-journey": ["kraft.md", "architecture.md", "request-path.md"],
    "zk-or-kraft": ["kraft.md", "controller-failover-benchmark.md", "controller.md", "mining.md"],
}
LESSON_MODULES = ("lessons.", "kafka_edu.lessons.")  # a check's helpers, followed when reading what it looks at

if str(REPO) not in sys.path:  # `lessons/` is a top-level package of the repository
    sys.path.insert(0, str(REPO))


def _catalog() -> list[tuple[str, Any]]:
    """(module name, LESSON) in the learner's order."""
    catalog = importlib.import_module("kafka_edu.lessons.catalog")
    return [(module, importlib.import_module(f"lessons.{module}").LESSON) for module in catalog.ORDER]


def _page(lesson: Any) -> str:
    return f"lessons/{lesson.name}.md"


# -- MkDocs events ---------------------------------------------------------------------------------------------------

def on_config(config: MkDocsConfig) -> MkDocsConfig:
    lessons = [{f"{n}. {lesson.title}": _page(lesson)} for n, (_, lesson) in enumerate(_catalog(), 1)]
    nav = [item for item in config.nav or [] if not (isinstance(item, dict) and SECTION in item)]
    at = 1 if nav and isinstance(nav[0], dict) and "index.md" in nav[0].values() else 0
    nav.insert(at, {SECTION: [{"All lessons": "lessons/index.md"}, *lessons]})
    config.nav = nav
    return config


def on_files(files: Files, config: MkDocsConfig) -> Files:
    from kafka_edu.lessons import diagram
    catalog = _catalog()
    reference = {f.src_uri: Path(f.abs_src_path).read_text(encoding="utf-8") for f in files.documentation_pages()
                 if f.abs_src_path and not f.src_uri.startswith("lessons/")}
    titles = {uri: _title(text, uri) for uri, text in reference.items()}
    files.append(File.generated(config, "lessons/index.md", content=_index(catalog)))
    for n, (module, lesson) in enumerate(catalog, 1):
        sample = SAMPLES / f"lesson-{lesson.name}"
        recorded = diagram.load_recorded(sample) if (sample / "lesson.json").exists() else None
        if recorded is None:  # a page still, without its diagram (tests/test_site.py asks for the recording)
            log.info("lesson %s has no recorded run in %s: record one with traces/samples/record_lessons.py %s",
                     lesson.name, sample, lesson.name)
        else:
            files.append(File.generated(config, f"lessons/{lesson.name}.svg",
                                        content=diagram.draw(recorded, f"Lesson {n}: {lesson.name}, as recorded")))
        draws_on = _draws_on(lesson, reference, titles)
        neighbours = (catalog[n - 2][1] if n > 1 else None, catalog[n][1] if n < len(catalog) else None)
        files.append(File.generated(config, _page(lesson),
                                    content=lesson_page(n, lesson, module, recorded, draws_on, neighbours)))
    return files


def on_page_markdown(markdown: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    if page.file.src_uri == "index.md":
        first = _page(_catalog()[0][1])
        start = re.search(r"Start here[^\n]*?\]\(([^)]+)\)", markdown)
        if start is None or start.group(1).split("#")[0] != first:
            log.warning("docs/index.md should begin with a 'Start here' link to the first lesson, %s", first)
    return markdown


# -- the pages -------------------------------------------------------------------------------------------------------

def _title(text: str, uri: str) -> str:
    heading = re.search(r"^# (.+)$", text, re.M)
    return heading.group(1).strip() if heading else uri.removesuffix(".md")


def _index(catalog: list[tuple[str, Any]]) -> str:
    rows = ["| # | lesson | minutes | what it shows |", "|---:|---|---:|---|"]
    for n, (_, lesson) in enumerate(catalog, 1):
        rows.append(f"| {n} | [{lesson.title}]({lesson.name}.md) | {lesson.minutes} | {lesson.summary} |")
    return f"""# Lessons

Each lesson starts its own small cluster, asks you to predict what Kafka's code will do, has you break or poke the
cluster, and then checks your run's traces to show what really happened. Take them in order; each takes a quarter of
an hour or so.

{chr(10).join(rows)}

Every page below is generated from the lesson's own module in `lessons/`, the same text `kafka-edu lesson run`
prints. Each shows one recorded run of the lesson: who talked to whom, drawn from that run's spans, and its numbers.
"""


def _symbols(lesson: Any) -> set[str]:
    """The Kafka symbols and FIDELITY rows a lesson is about: its steps' `about`, and the span names and step ids in
    its checks' code."""
    found: set[str] = set()
    for step in lesson.steps:
        found.update(step.about)
        if step.check is not None:
            spans, step_ids, _ = looks_at(step.check)
            found.update(spans)
            found.update(step_ids)
    return found


def _draws_on(lesson: Any, reference: dict[str, str], titles: dict[str, str], most: int = 4) -> list[tuple[str, str]]:
    """The reference pages that explain most of what the lesson shows: (title, page), best first."""
    if lesson.name in DRAWS_ON:
        missing = [uri for uri in DRAWS_ON[lesson.name] if uri not in reference]
        if missing:
            log.warning("DRAWS_ON names pages that do not exist for lesson %s: %s", lesson.name, missing)
        return [(titles[uri], uri) for uri in DRAWS_ON[lesson.name] if uri in reference]
    symbols = {s.rstrip(".*") for s in _symbols(lesson)}
    scores = []
    for uri, text in reference.items():
        if uri == "index.md":
            continue
        hits = sum(1 for symbol in symbols if symbol in text)
        if hits >= 2:
            scores.append((-hits, uri))
    return [(titles[uri], uri) for _, uri in sorted(scores)[:most]]


def looks_at(check: Any) -> tuple[list[str], list[str], list[str]]:
    """What a check's code reads: the span names and FIDELITY step ids it names (in its own code and in the helper
    functions of the lessons it calls), and which other parts of the evidence it uses."""
    from kafka_edu.tracing.steps import STEPS, SYMBOLS
    span_names = {s.span_name for s in STEPS.values()} | set(SYMBOLS)
    strings: set[str] = set()
    names: set[str] = set()
    seen: set[int] = set()
    functions = [check]
    while functions:
        function = functions.pop()
        if id(function) in seen:
            continue
        seen.add(id(function))
        codes, own = [function.__code__], set()
        while codes:  # the function's code and the code nested in it (comprehensions, lambdas)
            code = codes.pop()
            own.update(code.co_names)
            strings.update(c for c in code.co_consts if isinstance(c, str))
            codes.extend(c for c in code.co_consts if isinstance(c, types.CodeType))
        names |= own
        for name in own:
            target = function.__globals__.get(name)
            if isinstance(target, types.FunctionType) and target.__module__.startswith(LESSON_MODULES):
                functions.append(target)
    spans = sorted(s for s in strings if s in span_names)
    step_ids = sorted({s if s in STEPS else s + "*" for s in strings
                       if s in STEPS or (s.endswith(".") and any(k.startswith(s) for k in STEPS))})
    reads = [text for name, text in EVIDENCE_READS.items() if name in names]
    return spans, step_ids, list(dict.fromkeys(reads))


def _fill(text: str, facts: dict[str, Any]) -> str:
    """`{name}` as the recorded run filled it, or a placeholder for what is the learner's own."""
    def one(m: re.Match[str]) -> str:
        name = m.group(1)
        if name in YOURS:
            return YOURS[name]
        return str(facts[name]) if name in facts else m.group(0)
    return re.sub(r"\{([a-z_][a-z0-9_]*)\}", one, text)


def _indent(text: str, by: int = 4) -> str:
    return "\n".join((" " * by + line) if line.strip() else "" for line in text.strip().splitlines())


def _when(ns: int, t0: int) -> str:
    return f"+{(ns - t0) / 1e9:.1f} s"


def _span_list(names: list[str]) -> str:
    return ", ".join(f"`{n}`" for n in names)


def _step(n: int, step: Any, facts: dict[str, Any], recorded_step: dict[str, Any] | None) -> str:
    out = [f"## Step {n}: {step.title}", ""]
    if step.about:
        out += [f"*About {_span_list(list(step.about))}*", ""]
    out += [_fill(step.text, facts).strip(), ""]
    if step.predict is not None:
        predict = step.predict
        out += ['!!! question "Predict first"', "", _indent(_fill(predict.question, facts)), ""]
        out += [f"    - **{letter})** {_fill(choice, facts)}" for letter, choice in predict.choices.items()]
        answer = recorded_step.get("answer") if recorded_step else None
        if answer is None and not callable(predict.answer):
            answer = predict.answer
        heading = (f"Answer: {answer}) {_fill(predict.choices[answer], facts)}" if answer in predict.choices else
                   "Answer: it depends on your run")
        out += ["", f'    ??? success "{_quote(heading)}"', "", _indent(_fill(predict.why, facts), 8), ""]
    action = step.action
    if action is not None and hasattr(action, "command"):
        command = _fill(action.command, facts)
        out += ["**Your turn.** Run, in another terminal:", "", "```shell", command, "```", ""]
        if action.tui:
            out += [f"Or in the TUI (`kafka-edu tui --run <run-dir>`): {_fill(action.tui, facts)}", ""]
        if action.may_fail:
            out += ["This command is meant to be refused: the step is about why.", ""]
    elif action is not None:
        out += [f"**The lesson acts itself:** it {_fill(action.text, facts)}", ""]
    if step.check is not None:
        spans, step_ids, reads = looks_at(step.check)
        parts = []
        if spans:
            parts.append(f"the spans {_span_list(spans)}")
        if step_ids:
            parts.append(f"the FIDELITY steps {_span_list(step_ids)}")
        parts += reads
        what = ", ".join(parts[:-1]) + (" and " if len(parts) > 1 else "") + parts[-1] if parts else "the run's spans"
        out += [f"**The check** (`{step.check.__name__}`, up to {step.wait_s:g} s) reads {what}.", ""]
        if recorded_step and recorded_step.get("explain"):
            out += ['??? success "What it found in the recorded run"', "", _indent(recorded_step["explain"]), ""]
    return "\n".join(out)


def _quote(text: str) -> str:
    return text.replace('"', "'")


def _recorded_run(n: int, lesson: Any, recorded: Any) -> str:
    from kafka_edu.lessons import diagram
    t0 = recorded.t0
    steps = recorded.lesson.get("steps", [])
    rows = ["| step | acted at | the check held after |", "|---|---:|---:|"]
    for i, s in enumerate(steps, 1):
        rows.append(f"| {i}. {s['title']} | {_when(s['action_ns'], t0)} | "
                    f"{(s['ended_ns'] - s['action_ns']) / 1e9:.1f} s |")
    figures = ["| what the spans say | took |", "|---|---:|"]
    figures += [f"| {what} | {value} |" for what, value in diagram.figures(recorded)]
    requests = recorded.spans.where(name="RequestChannel.Request")
    sample = recorded.path.resolve().relative_to(REPO)
    kraft = recorded.mode == "kraft"
    processes = (f"{len(recorded.controllers)} controller(s) and {len(recorded.brokers)} broker(s)" if kraft
                 else f"{len(recorded.brokers)} broker(s)")
    arrows = ("An arrow is a request a broker or a controller received, labelled with Kafka's name for it: a client's, "
              "a Raft RPC from another controller (Vote, BeginQuorumEpoch, Fetch), or a broker's own (registration, "
              "heartbeats, a request it forwards, its Fetch of the metadata log as an observer); a mark on a "
              "controller's lane is a Raft role change (Candidate, Leader, Resigned)" if kraft else
              "An arrow is a request a broker received (labelled with Kafka's name for it), a ZooKeeper write "
              "(labelled with the span that made it, the znode beside it) or a ZooKeeper watch firing a controller "
              "event")
    then = recorded.manifest.get("overrides", [])
    stale = ""
    if sorted(then) != sorted(lesson.overrides) or len(recorded.brokers) != lesson.brokers:
        log.info("lesson %s changed since its run was recorded: traces/samples/record_lessons.py %s records it again",
                 lesson.name, lesson.name)
        stale = (f"\n\n!!! note \"Recorded with other settings\"\n\n    The run below had {len(recorded.brokers)} "
                 f"broker(s) and {', '.join(f'`{o}`' for o in then) or 'no settings'} beyond the defaults; the "
                 "lesson has changed since.")
    return f"""## The recorded run

One run of this lesson, as `kafka-edu lesson run {lesson.name} --auto` runs it, recorded in `{sample}/` by
`traces/samples/record_lessons.py`: {len(recorded.spans)} spans from {processes}, {len(requests)}
requests received. Node ids and numbers on this page are that run's; yours will differ.{stale}

Below, time goes down and each process is a lane. {arrows}; a thick lane is a running process. Messages repeated
within a few seconds share a row (×N). The lesson's steps head their part of the run; the cluster's stop at the end
is left out.

<div class="lesson-diagram" markdown>
![Who talked to whom in the recorded run of lesson {n}, {lesson.name}]({lesson.name}.svg)
</div>

{chr(10).join(rows)}

{chr(10).join(figures)}
"""


def lesson_page(n: int, lesson: Any, module: str, recorded: Any, draws_on: list[tuple[str, str]],
                neighbours: tuple[Any, Any]) -> str:
    """The Markdown of a lesson's page."""
    recorded_steps = recorded.lesson.get("steps", []) if recorded is not None else []
    final = {**(recorded.lesson.get("facts", {}) if recorded is not None else {})}
    before, after = neighbours
    links = " · ".join(part for part in (
        f"previous: [{before.title}]({before.name}.md)" if before else "",
        f"next: [{after.title}]({after.name}.md)" if after else "") if part)
    out = ["---", "hide:", "  - toc", "---", "",  # the diagram wants the width; the steps are the page's headings
           f"# Lesson {n}: {lesson.title}", "",
           f"**About {lesson.minutes} minutes.** Run it: `kafka-edu lesson run {lesson.name}` "
           f"(source: `lessons/{module}.py`).{' ' + links if links else ''}", "",
           f"**What it shows:** {lesson.summary}.", "", lesson.intro.strip(), ""]
    if draws_on:
        out += ["**Reference pages it draws on:** "
                + " · ".join(f"[{title}](../{uri})" for title, uri in draws_on) + ".", ""]
    out += ["## The cluster", ""]
    if lesson.setup:
        out += [lesson.setup.strip(), ""]
    settings = ", ".join(f"`{o}`" for o in lesson.overrides) or "none"
    if lesson.mode == "kraft":
        brokers = f"{lesson.brokers} broker(s)" if lesson.brokers else "no brokers"
        out += [f"{lesson.controllers} KRaft controllers and {brokers} (Kafka 3.9); settings beyond "
                f"`config/kraft/*.properties`: {settings}.", ""]
    else:
        out += [f"ZooKeeper and {lesson.brokers} broker(s); settings beyond `config/server.properties`: {settings}.",
                ""]
    if recorded is not None:
        out += [_recorded_run(n, lesson, recorded), ""]
    else:
        out += ["## The recorded run", "", "No run of this lesson is recorded yet: "
                f"`.venv/bin/python traces/samples/record_lessons.py {lesson.name}` records one, and this page then "
                "shows who talked to whom in it.", ""]
    for i, step in enumerate(lesson.steps, 1):
        recorded_step = recorded_steps[i - 1] if i <= len(recorded_steps) else None
        facts = recorded_step.get("facts", final) if recorded_step else final
        out += [_step(i, step, facts, recorded_step), ""]
    if lesson.outro:
        out += ["## After the lesson", "", _fill(lesson.outro, final).strip(), ""]
    return "\n".join(out)

