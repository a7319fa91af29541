"""Our own code, not a Kafka port: the terminal side of a lesson, what it prints and what it asks.

Step text is Markdown (rendered by rich); commands are printed as plain lines, never wrapped in a box, so a learner
can copy them whole. Answers are typed at a prompt and read with `input`, which is all a terminal, a pipe or tmux
needs.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager

from rich.console import Console
from rich.markdown import Markdown
from rich.markup import escape
from rich.rule import Rule


class Quit(Exception):
    """The learner typed q (or closed the input)."""


class Terminal:
    """Prints a lesson and asks the learner; `interactive=False` (--auto) prints the same and never asks."""

    def __init__(self, console: Console | None = None, interactive: bool = True,
                 read: Callable[[str], str] | None = None) -> None:
        self.console = console or Console()
        self.interactive = interactive
        self._read = read

    # -- printing ---------------------------------------------------------------------------------------------------

    def heading(self, text: str) -> None:
        self.console.print()
        self.console.print(Rule(f"[bold]{escape(text)}[/]", align="left"))

    def markdown(self, text: str) -> None:
        self.console.print(Markdown(text.strip()))

    def say(self, text: str, style: str = "") -> None:
        self.console.print(f"[{style}]{escape(text)}[/]" if style else escape(text), soft_wrap=True, highlight=False)

    def command(self, line: str) -> None:
        """A command to copy: one plain line, never folded into a box."""
        self.console.print(f"  [bold cyan]$[/] {escape(line)}", soft_wrap=True, highlight=False)

    def choices(self, choices: Mapping[str, str]) -> None:
        for letter, text in choices.items():
            self.console.print(f"  [bold]{letter})[/] {escape(text)}", highlight=False)

    def passed(self, explain: str) -> None:
        self.console.print("[bold green]✓ The trace agrees.[/]")
        self.markdown(explain)

    def failed(self, expected: str, seen: str, hint: str) -> None:
        self.console.print("[bold red]✗ Not what the lesson expected.[/]")
        for label, text, style in (("expected", expected, "bold"), ("seen", seen, "bold yellow"),
                                   ("hint", hint, "bold cyan")):
            self.console.print(f"  [{style}]{label + ':':<9}[/] {escape(text)}", soft_wrap=True, highlight=False)

    @contextmanager
    def waiting(self, text: str) -> Iterator[None]:
        if self.interactive and self.console.is_terminal:
            with self.console.status(escape(text)):
                yield
        else:
            self.say(text, "dim")
            yield

    # -- asking -----------------------------------------------------------------------------------------------------

    def ask(self, prompt: str, allowed: str = "") -> str:
        """Enter gives "", a letter in `allowed` gives that letter; anything else asks again. q quits."""
        while True:
            try:
                line = self._read(prompt) if self._read else self.console.input(f"[bold]{escape(prompt)}[/]")
            except (EOFError, KeyboardInterrupt):
                raise Quit() from None
            answer = line.strip().lower()
            if answer == "q":
                raise Quit()
            if answer == "" or (answer in allowed and len(answer) == 1):
                return answer
            self.say(f"Type one of {', '.join(allowed)}, or press Enter (q quits)." if allowed
                     else "Press Enter (q quits).", "yellow")

    def choose(self, prompt: str, letters: str) -> str:
        """A letter from `letters`; Enter alone is not an answer."""
        while True:
            answer = self.ask(prompt, letters)
            if answer:
                return answer
            self.say(f"Type {', '.join(letters)} and press Enter.", "yellow")
