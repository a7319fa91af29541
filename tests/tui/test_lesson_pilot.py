"""`kafka-edu tui --lesson request-journey` in a headless pilot, on a real one-broker cluster: the lesson that
`kafka-edu lesson run` teaches, completed inside the TUI with the TUI's own keys.

The learner answers each prediction in the lesson's input, creates the topic with `c` (the create-topic dialog) and
produces with `P`: each action, once done, starts the step's check without Enter. A passed check that names a span
puts that span under the waterfall's cursor. Without a cluster, the span references and the prompts are tested on
their own.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from kafka_edu.lessons.catalog import find
from kafka_edu.lessons.model import Lesson
from kafka_edu.lessons.progress import STATE_DIR_ENV, Progress
from kafka_edu.lessons.prompts import Quit
from tests.tui.helpers import wait_for
from tui.app import KafkaEduApp
from tui.launch import ClusterLaunch
from tui.lesson_pane import LessonPane, PaneTerminal, SpanRef, span_refs


def test_span_refs_read_the_way_lessons_quote_spans():
    text = ("Broker 1 won (CT.elect on broker-1, trace `1a2b3c4d`); `KafkaController.elect` (CT.elect) on broker-2, "
            "trace `deadbeef`; `RequestChannel.Request` on broker-0, trace `0badcafe`; on broker-0, trace `12345678`")
    assert span_refs(text) == [SpanRef("1a2b3c4d", "broker-1", "", "CT.elect"),
                               SpanRef("deadbeef", "broker-2", "KafkaController.elect", "CT.elect"),
                               SpanRef("0badcafe", "broker-0", "RequestChannel.Request", ""),
                               SpanRef("12345678", "broker-0", "", "")]


def test_the_pane_terminal_points_at_the_tui_and_blocks_on_the_pane():
    posted: list[LessonPane.Output] = []
    t = PaneTerminal(posted.append)
    t.say("Watch it live in another terminal: kafka-edu tui --run x", "dim")
    t.say("Your turn: in another terminal, run", "bold")
    t.say("  (or in the TUI, `kafka-edu tui --run x`: put the Cluster pane's cursor on b1 and press x)", "dim")
    assert [(m.kind, m.args[0]) for m in posted] == [
        ("say", "Your turn, in the TUI or in another terminal:"),
        ("tui_action", "put the Cluster pane's cursor on b1 and press x")]
    t.answer("x")
    t.answer("b")
    assert t.choose("Your answer (a/b/c): ", "abc") == "b"  # x is no answer: asked again
    t.close()
    with pytest.raises(Quit):  # the TUI has quit: the lesson stops as if q had been typed
        t.ask("Press Enter ")


def lesson_text(pane: LessonPane) -> str:
    return "\n".join(strip.text for strip in pane.text.lines)


@pytest.mark.slow
def test_request_journey_completed_inside_the_tui(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv(STATE_DIR_ENV, str(tmp_path / "state"))
    lesson = find("request-journey")
    launch = ClusterLaunch(tmp_path / "traces", lesson.brokers, None, list(lesson.overrides))
    launch.start()
    try:
        asyncio.run(learner(launch, lesson))
    finally:
        launch.stop()


async def learner(launch: ClusterLaunch, lesson: Lesson) -> None:
    """The learner: predictions typed in the lesson's input, actions done with the TUI's keys."""
    app = KafkaEduApp(None, launch, lesson=lesson)
    async with app.run_test(size=(160, 45)) as pilot:
        pane = app.lesson_pane

        def asked(text: str) -> bool:
            return pane.asking is not None and text in pane.asking[0]

        async def reply(prompt: str, *keys: str) -> None:
            """Once the lesson asks, and its input has the keys, as the learner sees the cursor there."""
            try:
                await wait_for(pilot, lambda: asked(prompt) and app.focused is pane.input, 120, repr(prompt))
            except AssertionError as e:
                raise AssertionError(f"{e}; asking {pane.asking}, focus on {app.focused}; the lesson:\n"
                                     f"{lesson_text(pane)[-2000:]}") from None
            await pilot.press(*keys)

        async def predict(letter: str) -> None:
            await reply("Your answer", letter, "enter")

        async def passed(count: int) -> None:
            await wait_for(pilot, lambda: lesson_text(pane).count("✓ The trace agrees.") >= count, 60,
                           f"check {count} to pass")

        # 1. a connection: the topic, created with the TUI's dialog
        await predict("b")
        await wait_for(pilot, lambda: pane.waits_for_action and app.focused is app.cluster_pane, 30,
                       "the lesson to wait for an action, on the Cluster pane where the action keys act")
        await pilot.press("c")
        await wait_for(pilot, lambda: app.screen.query("#name"), 10, "the create-topic dialog")
        for field, value in (("#name", "journey"), ("#partitions", "1"), ("#replication", "1")):
            app.screen.query_one(field).value = value
        await pilot.press("enter")  # no Enter for the lesson: the action done starts its check
        await passed(1)
        await wait_for(pilot, lambda: (app.waterfall.current_span is not None
                                       and app.waterfall.current_span.step == "NW.acceptor.1"), 10,
                       f"the waterfall on the Acceptor.accept the check names:\n{lesson_text(pane)[-3000:]}")
        await reply("next step", "enter")

        # 2. one produce, with P
        await predict("b")
        await wait_for(pilot, lambda: pane.waits_for_action, 30, "the lesson to wait for an action")
        await pilot.press("P")
        await passed(2)
        await wait_for(pilot, lambda: (app.waterfall.trace is not None and app.waterfall.trace.root is not None
                                       and app.waterfall.trace.root.name == "RequestChannel.Request"), 10,
                       "the waterfall on the produce request the check names")
        await reply("next step", "enter")

        # 3. the metrics: no action
        await predict("b")
        await passed(3)
        await reply("next step", "enter")

        # 4. the lesson acts itself: Enter goes on
        await predict("b")
        await reply("Press Enter to go on", "enter")  # the lesson's own action
        await passed(4)
        await wait_for(pilot, lambda: pane.finished, 30, "the lesson to finish")
        assert "The lesson is over" in str(pane.prompt.render())
        assert "request-journey" in Progress().finished()
        assert app.focused is not pane.input  # q quits again
