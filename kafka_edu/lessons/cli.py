"""`kafka-edu lesson list | run NAME [--auto] [--run DIR]`: the guided lessons (wired into `kafka_edu.cli`)."""

from __future__ import annotations

import argparse
from pathlib import Path

from rich.console import Console
from rich.table import Table


def add_parser(sub: argparse._SubParsersAction) -> None:
    lesson = sub.add_parser("lesson", help="guided lessons on a live cluster: list | run NAME [--auto]")
    verbs = lesson.add_subparsers(dest="verb", required=True)
    verbs.add_parser("list", help="the lessons in order, how long each takes, and which you have finished")
    run = verbs.add_parser("run", help="run a lesson: it starts its own cluster and walks you through it")
    run.add_argument("name", help="a lesson name from `kafka-edu lesson list`")
    run.add_argument("--auto", action="store_true",
                     help="perform every action and check every step without asking; exit non-zero on the first "
                          "check that does not hold (what CI runs)")
    run.add_argument("--run", help="use this running cluster's run directory instead of starting one")
    run.add_argument("--traces", default="traces", help="where the lesson's run directory goes (default: traces)")
    run.add_argument("--keep", action="store_true", help="leave the lesson's cluster running at the end")


def run(options: argparse.Namespace) -> int:
    from kafka_edu.lessons.catalog import all_lessons, find
    from kafka_edu.lessons.progress import Progress
    console = Console()
    if options.verb == "list":
        finished = Progress().finished()
        table = Table(title_justify="left", box=None, pad_edge=False)
        for column in ("#", "lesson", "min", "done", "what it shows"):
            table.add_column(column, overflow="fold")
        for number, lesson in enumerate(all_lessons(), 1):
            done = "✓ " + finished[lesson.name][:10] if lesson.name in finished else ""
            table.add_row(str(number), lesson.name, str(lesson.minutes), done, lesson.summary)
        console.print(table)
        console.print("Start one with: kafka-edu lesson run NAME", style="dim")
        return 0
    from kafka_edu.lessons.runner import run_lesson
    lesson = find(options.name)
    if lesson is None:
        names = ", ".join(lesson.name for lesson in all_lessons())
        console.print(f"[red]no lesson {options.name!r}; the lessons are: {names}[/]")
        return 2
    return run_lesson(lesson, auto=options.auto, run_dir=Path(options.run) if options.run else None,
                      traces=Path(options.traces), keep=options.keep)
