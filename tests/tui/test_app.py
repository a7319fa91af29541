"""The TUI on recorded runs (App.run_test): what a learner sees when they open a run and move around in it."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path

from kafka_edu.tracing.query import SpanRecord
from tests.tui.helpers import copy_run, opened, plain, row_texts, screen_lines, wait_for
from tui.app import KafkaEduApp
from tui.store import ORPHANS
from tui.widgets.cluster_pane import ZOOKEEPER, ClusterPane
from tui.widgets.detail import DetailPane
from tui.widgets.dialogs import KEY_GROUPS
from tui.widgets.log_pane import LogPane
from tui.widgets.rows import RowsView
from tui.widgets.trace_list import GROUP, TRACE, TraceList
from tui.widgets.waterfall import Waterfall


def run(scenario) -> None:
    asyncio.run(scenario())


def detail_text(app: KafkaEduApp) -> str:
    return plain(app.query_one("#detail-body").content)


def test_opening_a_run_shows_a_broker_startup_with_its_steps(produce: Path) -> None:
    async def scenario() -> None:
        async with opened(produce) as (app, pilot):
            traces = app.query_one(TraceList)
            assert traces.rows[0] == (GROUP, "startup")
            waterfall = app.query_one(Waterfall)
            assert waterfall.trace.root.name == "KafkaServer.startup"
            names = [waterfall.trace.spans[span_id].name for _, span_id in waterfall.rows]
            # every startup step in Kafka's order, as the waterfall lists them
            steps = [waterfall.trace.spans[span_id].step for _, span_id in waterfall.rows]
            startup_steps = [s for s in steps if s and s.startswith("LC.startup.")]
            assert startup_steps == sorted(startup_steps) and "LC.startup.08" in startup_steps
            assert "LogManager.startup" in names
            assert any("KafkaServer.startup" in line for line in row_texts(waterfall))
    run(scenario)


def test_j_and_k_move_between_traces_and_tab_moves_between_panes(failover: Path) -> None:
    async def scenario() -> None:
        async with opened(failover) as (app, pilot):
            traces, waterfall = app.query_one(TraceList), app.query_one(Waterfall)
            first = waterfall.trace_id
            await pilot.press("tab")  # from the Cluster pane, where focus starts
            assert app.focused is traces
            await pilot.press("j")
            await wait_for(pilot, lambda: waterfall.trace_id != first, what="the next trace")
            assert waterfall.trace_id == traces.current[1]
            await pilot.press("k")
            await wait_for(pilot, lambda: waterfall.trace_id == first, what="the first trace again")
            await pilot.press("tab")
            assert app.focused is waterfall
            await pilot.press("tab")
            assert isinstance(app.focused, DetailPane)
            await pilot.press("tab")
            assert isinstance(app.focused, LogPane)
            await pilot.press("tab")
            assert isinstance(app.focused, ClusterPane)
    run(scenario)


class FakeControl:
    """Stands in for tui.control.ClusterControl: records what the keys asked of the cluster."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, tuple[object, ...]]] = []

    def __getattr__(self, verb: str):
        return lambda *args: self.calls.append((verb, args))


def notices(app: KafkaEduApp) -> list[str]:
    return [notification.message for notification in app._notifications]


def test_focus_starts_on_the_cluster_pane_with_the_cursor_on_the_first_broker(failover: Path) -> None:
    async def scenario() -> None:
        async with opened(failover) as (app, pilot):
            assert app.focused is app.cluster_pane
            assert app.cluster_pane.selected_broker == 0
            assert "b0 NotRunning" in row_texts(app.cluster_pane)[app.cluster_pane.cursor]
    run(scenario)


def test_the_cluster_cursor_moves_to_the_first_broker_when_brokers_appear(failover: Path, tmp_path: Path) -> None:
    run_dir = copy_run(failover, tmp_path / "run")
    manifest = run_dir / "manifest.json"
    full = json.loads(manifest.read_text())
    for spans in run_dir.glob("broker-*"):
        spans.rename(tmp_path / spans.name)
    manifest.write_text(json.dumps({**full, "processes": [p for p in full["processes"] if p["role"] != "broker"]}))

    async def scenario() -> None:
        app = KafkaEduApp(run_dir, watch=True)
        async with app.run_test(size=(120, 40)) as pilot:
            await wait_for(pilot, lambda: app.loaded.is_set() and app.cluster_pane.rows == [ZOOKEEPER])
            assert app.cluster_pane.selected_broker is None
            manifest.write_text(json.dumps(full))  # ZooKeeper first, then the brokers, as a new cluster starts
            await wait_for(pilot, lambda: len(app.cluster_pane.rows) == 4, what="the brokers")
            assert app.cluster_pane.selected_broker == 0
    run(scenario)


def test_action_keys_in_a_replay_say_they_need_a_live_cluster(failover: Path) -> None:
    async def scenario() -> None:
        async with opened(failover) as (app, pilot):
            for key in ("x", "s", "r", "p", "c", "P", "b", "n"):
                await pilot.press(key)
                await wait_for(pilot, lambda key=key: any(n.startswith(f"{key} (") for n in notices(app)),
                               what=f"why {key} did nothing")
            assert all("acts on a live cluster" in n and "replay" in n for n in notices(app))
    run(scenario)


def test_action_keys_on_a_live_cluster_act_on_the_broker_under_the_cursor_or_say_why_not(failover: Path) -> None:
    async def scenario() -> None:
        async with opened(failover) as (app, pilot):
            app.control = control = FakeControl()  # as if the run were live
            app.model.brokers[2].alive = True
            await pilot.press("j", "j")  # from b0 to b2
            assert app.cluster_pane.selected_broker == 2
            await pilot.press("x")
            await wait_for(pilot, lambda: ("kill", (2,)) in control.calls, what="kill -9 of broker 2")
            await pilot.press("k", "k", "k")  # up to ZooKeeper
            assert app.cluster_pane.current == ZOOKEEPER
            await pilot.press("s")
            await wait_for(pilot, lambda: any("cursor is on ZooKeeper" in n for n in notices(app)))
            await pilot.press("j")  # b0, whose process is gone
            await pilot.press("p")
            await wait_for(pilot, lambda: any("broker 0 is not running; r starts it" in n for n in notices(app)))
            await pilot.press("r")
            await wait_for(pilot, lambda: ("start", (0,)) in control.calls, what="a start of broker 0")
            await pilot.press("n")
            await wait_for(pilot, lambda: any("no broker is paused at a breakpoint" in n for n in notices(app)))
            assert [verb for verb, _ in control.calls] == ["kill", "start"]
    run(scenario)


def test_search_filters_the_traces_and_escape_clears_it(failover: Path) -> None:
    async def scenario() -> None:
        async with opened(failover) as (app, pilot):
            traces = app.query_one(TraceList)
            total = traces.matching
            await pilot.press("slash", *"reelect", "enter")
            await wait_for(pilot, lambda: traces.needle == "reelect")
            shown = [row[1] for row in traces.rows if row[0] == TRACE]
            assert shown and len(shown) < total
            for trace_id in shown:
                names = {s.name for s in app.store.traces[trace_id].spans.values()}
                assert "KafkaController.Reelect.process" in names
            assert [row[1] for row in traces.rows if row[0] == GROUP] == ["controller event"]
            assert app.query_one(Waterfall).trace_id in shown  # the selection follows the filter
            assert app.focused is traces
            await pilot.press("slash", "escape")
            await wait_for(pilot, lambda: traces.matching == total, what="the filter to clear")
    run(scenario)


def test_background_traffic_is_folded_and_f_shows_it(failover: Path) -> None:
    async def scenario() -> None:
        async with opened(failover, size=(160, 45)) as (app, pilot):
            traces = app.query_one(TraceList)
            folded = {t.trace_id for t in app.store if t.folded}
            assert len(folded) == 64  # 29 replica fetcher traces, 35 empty long-poll Fetch answers
            shown = {row[1] for row in traces.rows if row[0] == TRACE}
            assert shown and not shown & folded
            assert [row[1] for row in traces.rows if row[0] == GROUP] == [
                "startup", "shutdown", "controller event", "state change", "controller request", "other"]
            assert "Traces · 64 background hidden (f shows)" in "\n".join(screen_lines(app))
            await pilot.press("f")
            await wait_for(pilot, lambda: folded <= {row[1] for row in traces.rows if row[0] == TRACE},
                           what="the background traces")
            assert "Traces · background shown (f hides)" in "\n".join(screen_lines(app))
            assert traces.matching == len(app.store.traces)
            await pilot.press("f")
            await wait_for(pilot, lambda: not folded & {row[1] for row in traces.rows if row[0] == TRACE})
    run(scenario)


def test_enter_folds_a_span_and_brackets_collapse_and_expand_everything(produce: Path) -> None:
    async def scenario() -> None:
        async with opened(produce) as (app, pilot):
            waterfall = app.query_one(Waterfall)
            waterfall.focus()
            everything = len(waterfall.rows)
            await pilot.press("enter")  # on the root
            assert len(waterfall.rows) == 1
            await pilot.press("enter")
            assert len(waterfall.rows) == everything
            await pilot.press("left_square_bracket")
            assert len(waterfall.rows) == 1
            await pilot.press("right_square_bracket")
            assert len(waterfall.rows) == everything
            # in the trace list, Enter on a group header folds the group
            traces = app.query_one(TraceList)
            traces.focus()
            traces.action_jump(0)
            await pilot.press("enter")
            assert "startup" in traces.collapsed
            assert traces.rows[1][0] == GROUP
    run(scenario)


def test_the_critical_path_runs_from_the_root_through_its_last_finishing_child(produce: Path) -> None:
    async def scenario() -> None:
        async with opened(produce) as (app, pilot):
            waterfall = app.query_one(Waterfall)
            trace = waterfall.trace
            root = trace.root
            assert root.span_id in waterfall.critical
            children = [s for s in trace.spans.values() if s.parent_id == root.span_id]
            last = max(children, key=lambda s: s.end_ns)
            assert last.span_id in waterfall.critical
            # every section lies inside its span, and no two sections overlap in time
            sections = sorted((s for ss in waterfall.critical.values() for s in ss), key=lambda s: s.start_ns)
            for section in sections:
                span = trace.spans[section.span_id]
                assert span.start_ns <= section.start_ns <= section.end_ns <= span.end_ns
            for before, after in zip(sections, sections[1:], strict=False):
                assert before.end_ns <= after.start_ns
    run(scenario)


def test_detail_shows_the_step_its_explanation_the_origin_and_the_ported_source(produce: Path) -> None:
    async def scenario() -> None:
        async with opened(produce) as (app, pilot):
            waterfall = app.query_one(Waterfall)
            waterfall.focus()
            index = next(i for i, (_, span_id) in enumerate(waterfall.rows)
                         if waterfall.trace.spans[span_id].step == "LC.startup.08")
            waterfall.action_jump(index)
            await wait_for(pilot, lambda: "LC.startup.08" in detail_text(app), what="the detail of LC.startup.08")
            text = detail_text(app)
            assert "LogManager.startup" in text
            assert "clean-shutdown marker" in text  # the FIDELITY row's "what happens"
            assert "RecoveringFromUncleanShutdown" in text
            assert "core/src/main/scala/kafka/log/LogManager.scala" in text
            span = waterfall.current_span
            path = span.attributes["code.file.path"]
            source = (Path(__file__).resolve().parents[2] / path).read_text().splitlines()
            line = next(n for n, text in enumerate(source, 1) if 'step("LC.startup.08"' in text)
            assert f"{path}:{line}" in text  # where the step is in this checkout, whatever line the run recorded
            assert source[line - 1].strip() in text
    run(scenario)


def detail_lines(app: KafkaEduApp) -> list[str]:
    """The Detail pane as it is on the screen, inside its border."""
    region = app.detail.region
    return [line[region.x + 1:region.right - 2] for line in screen_lines(app)[region.y + 1:region.bottom - 1]]


def test_the_python_port_shows_the_steps_own_line_without_scrolling(produce: Path, failover: Path) -> None:
    async def scenario(run_dir: Path, step_id: str, search: str, marker: str, after: str) -> None:
        async with opened(run_dir, size=(160, 45)) as (app, pilot):
            await pilot.press("slash", *search, "enter")
            await wait_for(pilot, lambda: any(s.step == step_id for s in app.waterfall.trace.spans.values()))
            app.waterfall.focus()
            app.waterfall.action_jump(next(i for i, (_, span_id) in enumerate(app.waterfall.rows)
                                           if app.waterfall.trace.spans[span_id].step == step_id))
            await wait_for(pilot, lambda: f"Detail · {step_id}" in "\n".join(screen_lines(app)))
            shown = detail_lines(app)
            heading = next(i for i, text in enumerate(shown) if text.startswith("Python port "))
            code = [text for text in shown[heading + 1:] if re.match(r"\s*❱?\s*\d+ ", text)]
            # at most one line above the step's, the step's own line highlighted (❱), then what it runs
            step_at = next(i for i, text in enumerate(code) if "❱" in text)
            assert step_at <= 1 and marker in code[step_at], shown
            assert after in code[step_at + 1], shown

    run(lambda: scenario(produce, "LC.startup.08", "startup", 'with step("LC.startup.08", self):',
                         "self.log_manager = self.create_log_manager("))
    run(lambda: scenario(failover, "CT.elect", "reelect", '@step("CT.elect")', "def elect(self)"))


def test_the_python_port_of_a_span_is_in_the_tree_of_its_kafka_version(produce: Path) -> None:
    """A 1.0.2 span's source is shown from kafka_edu/v1_0_2/, a 3.9 span's from kafka_edu/v3_9/, at its marker."""
    kraft = produce.parent / "mining-kraft"

    async def scenario(run_dir: Path, step_id: str, tree: str, marker: str) -> None:
        app = KafkaEduApp(run_dir, watch=False)
        async with app.run_test(size=(160, 45)) as pilot:
            def the_span() -> SpanRecord | None:
                return next((s for t in app.store for s in t.spans.values() if s.step == step_id), None)

            await wait_for(pilot, the_span, timeout_s=30, what=f"a span of {step_id}")
            app.show_span(the_span())
            await wait_for(pilot, lambda: f"Detail · {step_id}" in "\n".join(screen_lines(app)))
            # the border title is drawn a frame before the body's new height is laid out
            await wait_for(pilot, lambda: any(text.startswith("Python port ") for text in detail_lines(app)))
            shown = detail_lines(app)
            heading = next(text for text in shown if text.startswith("Python port "))
            assert f"kafka_edu/{tree}/" in heading, shown
            path, line = heading.removeprefix("Python port ").split()[0].rsplit(":", 1)
            source = (Path(__file__).resolve().parents[2] / path).read_text().splitlines()
            assert marker in source[int(line) - 1], (path, line)

    run(lambda: scenario(produce, "LC.startup.08", "v1_0_2/core/server", 'with step("LC.startup.08"'))
    run(lambda: scenario(kraft, "KR.server", "v3_9/core/server", '@step("KR.server")'))


def test_the_cluster_and_log_tell_the_failover_story(failover: Path) -> None:
    async def scenario() -> None:
        async with opened(failover) as (app, pilot):
            log = "\n".join(entry.text for entry in app.model.log)
            assert "★ elected controller, epoch 1" in log
            assert "★ elected controller, epoch 2" in log
            assert "no shutdown in its trace (killed)" in log
            times = [entry.time_ns for entry in app.model.log]
            assert times == sorted(times)
            assert app.model.controller_epoch == 3
            # the run has ended: every broker is NotRunning and nobody is controller
            assert {b.state for b in app.model.brokers.values()} == {"NotRunning"}
            assert app.model.controller_id is None
            cluster = app.query_one(ClusterPane)
            assert "last epoch 3" in cluster.border_title
            # the killed process's awaitShutdown never ended, and says so
            lost = [s for t in app.store for s in t.spans.values() if app.store.is_lost(s)]
            assert [s.name for s in lost] == ["KafkaServer.awaitShutdown"]
    run(scenario)


def test_a_replay_has_no_action_keys(failover: Path) -> None:
    async def scenario() -> None:
        async with opened(failover) as (app, pilot):
            assert not app.live
            for action in ("kill", "stop", "restart", "pause", "create_topic", "produce", "breakpoint"):
                assert not app.check_action(action, ())
            await pilot.press("x")  # nothing to do, and no crash
            await pilot.press("question_mark")
            await wait_for(pilot, lambda: app.screen.__class__.__name__ == "HelpScreen")
            await pilot.press("escape")
            await wait_for(pilot, lambda: app.screen.__class__.__name__ != "HelpScreen")
    run(scenario)


# Keys without a character of their own, as the help names them.
KEY_NAMES = {"down": "↓", "up": "↑", "pagedown": "PgDn", "pageup": "PgUp", "home": "Home", "end": "End",
             "enter": "Enter", "question_mark": "?", "slash": "/", "left_square_bracket": "[",
             "right_square_bracket": "]"}


def test_help_lists_every_key_with_what_it_does_by_group(produce: Path) -> None:
    listed = {token for _, keys in KEY_GROUPS for key, _ in keys for part in key.split(", ")
              for token in part.split(" / ")}
    for owner in (KafkaEduApp, RowsView, TraceList, Waterfall):
        for binding in owner.BINDINGS:
            for key in binding.key.split(","):
                assert KEY_NAMES.get(key, key) in listed, f"{owner.__name__}: {key} ({binding.action}) not in the help"

    async def scenario() -> None:
        async with opened(produce) as (app, pilot):
            await pilot.press("question_mark")
            await wait_for(pilot, lambda: app.screen.__class__.__name__ == "HelpScreen")
            await pilot.pause()
            screen = "\n".join(screen_lines(app))
            for group, keys in KEY_GROUPS:
                assert group in screen
                for key, what in keys:
                    assert f"{key}  " in screen and " ".join(what.split()[:4]) in screen, (key, what)
            for words in ("kill -9", "controlled stop", "restart", "pause / resume", "create a topic", "produce",
                          "breakpoint", "next step", "continue", "filter traces", "screenshot", "quit"):
                assert words in screen
    run(scenario)


def test_help_scrolls_at_80x24(produce: Path) -> None:
    async def scenario() -> None:
        async with opened(produce, size=(80, 24)) as (app, pilot):
            await pilot.press("question_mark")
            await wait_for(pilot, lambda: app.screen.__class__.__name__ == "HelpScreen")
            await pilot.pause()
            assert "moving around" in "\n".join(screen_lines(app))
            await pilot.press(*["j"] * 60)
            await pilot.pause()
            screen = "\n".join(screen_lines(app))
            assert "quit (a cluster the TUI started is stopped)" in screen
            assert all(len(line) <= 80 for line in screen_lines(app))
            await pilot.press("g")
            await pilot.pause()
            assert "moving around" in "\n".join(screen_lines(app))
            await pilot.press("G")
            await pilot.pause()
            assert "quit (a cluster the TUI started is stopped)" in "\n".join(screen_lines(app))
    run(scenario)


def test_screenshot_saves_an_svg_into_the_run_directory(produce: Path, tmp_path: Path) -> None:
    run_dir = copy_run(produce, tmp_path / "run")

    async def scenario() -> None:
        async with opened(run_dir) as (app, pilot):
            await pilot.press("S")
            await wait_for(pilot, lambda: list(run_dir.glob("*.svg")), what="a screenshot")
            assert "<svg" in next(run_dir.glob("*.svg")).read_text()[:200]
    run(scenario)


# -- bad input ------------------------------------------------------------------------------------------------------


async def _status(app: KafkaEduApp, pilot) -> str:
    await wait_for(pilot, app.loaded.is_set, what="the reader to finish")
    await pilot.pause(0.1)
    return str(app.query_one("#status").content)


def test_a_missing_run_directory_is_reported_not_fatal(tmp_path: Path) -> None:
    async def scenario() -> None:
        app = KafkaEduApp(tmp_path / "nowhere", watch=False)
        async with app.run_test(size=(80, 24)) as pilot:
            assert "no run directory" in await _status(app, pilot)
    run(scenario)


def test_an_empty_run_directory_is_reported(tmp_path: Path) -> None:
    async def scenario() -> None:
        app = KafkaEduApp(tmp_path, watch=False)
        async with app.run_test(size=(80, 24)) as pilot:
            status = await _status(app, pilot)
            assert "no manifest.json" in status and "no span files yet" in status
    run(scenario)


def test_a_cut_off_last_line_and_a_corrupt_line_are_skipped_and_reported(produce: Path, tmp_path: Path) -> None:
    run_dir = copy_run(produce, tmp_path / "run")
    spans = run_dir / "broker-0.jsonl"
    lines = spans.read_text().splitlines(keepends=True)
    spans.write_text("".join(lines[:-1]) + '{"resourceSpans": [{"scopeSpans": [{"spans": [ garbage\n'
                     + lines[-1][: len(lines[-1]) // 2])

    async def scenario() -> None:
        async with opened(run_dir) as (app, pilot):
            status = await _status(app, pilot)
            assert "broker-0.jsonl: 1 unreadable line(s) skipped" in status
            assert "broker-0.jsonl: last line cut off" in status
            assert len(app.store) > 100  # everything before the damage is there
    run(scenario)


def test_spans_whose_parent_never_arrives_hang_under_orphans(produce: Path, tmp_path: Path) -> None:
    run_dir = copy_run(produce, tmp_path / "run")
    # Drop the startup root from both files: its children lose their parent.
    (run_dir / "broker-0.starts.jsonl").write_text("".join(
        line for line in (run_dir / "broker-0.starts.jsonl").read_text().splitlines(keepends=True)
        if '"name":"KafkaServer.startup"' not in line))
    ended = (run_dir / "broker-0.jsonl").read_text()
    root_line = next(line for line in ended.splitlines() if '"name":"KafkaServer.startup","kind"' in line)
    (run_dir / "broker-0.jsonl").write_text(ended.replace(root_line + "\n", ""))

    async def scenario() -> None:
        async with opened(run_dir) as (app, pilot):
            traces = app.query_one(TraceList)
            waterfall = app.query_one(Waterfall)
            orphan_traces = [t for t in app.store if t.root is not None and t.root.parent_id]
            assert orphan_traces
            traces.select_trace(orphan_traces[0].trace_id)
            await wait_for(pilot, lambda: waterfall.trace_id == orphan_traces[0].trace_id)
            assert (0, ORPHANS) in waterfall.rows
            assert any("orphans" in line for line in row_texts(waterfall))
    run(scenario)


def test_unknown_attributes_are_shown_as_they_are(produce: Path, tmp_path: Path) -> None:
    run_dir = copy_run(produce, tmp_path / "run")
    starts = run_dir / "broker-0.starts.jsonl"
    text = starts.read_text()
    starts.write_text(text + '{"traceId":"%s","spanId":"00000000000000ff","parentSpanId":"","name":"Mystery.step",'
                      '"startTimeUnixNano":"1","attributes":{"x.weird":{"nested":[1,2]},"kafka.step":"ZZ.9"}}\n'
                      % ("f" * 32))

    async def scenario() -> None:
        async with opened(run_dir) as (app, pilot):
            traces = app.query_one(TraceList)
            traces.select_trace("f" * 32)
            await wait_for(pilot, lambda: "Mystery.step" in detail_text(app))
            text = detail_text(app)
            assert "x.weird" in text and "nested" in text
            assert "ZZ.9" in text and "no explanation for this step yet" in text
            assert "never ended" in text  # the run is over and this span has no end
    run(scenario)


def test_a_file_truncated_under_a_live_reader_is_read_again(produce: Path, tmp_path: Path) -> None:
    run_dir = copy_run(produce, tmp_path / "run")
    spans = run_dir / "broker-0.jsonl"

    async def scenario() -> None:
        app = KafkaEduApp(run_dir, watch=True)
        async with app.run_test(size=(100, 30)) as pilot:
            await wait_for(pilot, app.loaded.is_set)
            before = len(app.store)
            first_line = spans.read_text().splitlines(keepends=True)[0]
            spans.write_text(first_line)  # a new process rewrote the file
            await wait_for(pilot, lambda: "truncated or replaced" in str(app.query_one("#status").content),
                           what="the truncation to be noticed")
            assert len(app.store) == before  # spans read again are not counted twice
    run(scenario)
