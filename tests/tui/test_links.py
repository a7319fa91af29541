"""Our own test code, not a Kafka port: the Detail pane lists a span's links and `o` follows them, on a run
fabricated here (a KIP-848 rebalance told as linked traces: a member's GC.reconcile links to the GC.target another
member's heartbeat computed, and to the GC.fence of a third trace)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from kafka_edu.tracing.query import parse_traces_line
from tests.tui.helpers import opened, plain, wait_for
from tui.app import KafkaEduApp
from tui.widgets.format import clock

T0 = 1_795_334_652_000_000_000  # 2026-11-22, as the samples
MS = 1_000_000
HEARTBEAT_A, HEARTBEAT_B, LEAVE_C = 0xA, 0xB, 0xC  # trace ids
TARGET, RECONCILE, FENCE = 0xA2, 0xB2, 0xC2  # span ids of the linked spans and the one linking
MISSING = ("deadbeef" * 4, "feedface" * 2)  # a trace the run never wrote (evicted, or not recorded)


def _attr(key: str, value: Any) -> dict[str, Any]:
    if isinstance(value, int):
        return {"key": key, "value": {"intValue": str(value)}}
    return {"key": key, "value": {"stringValue": str(value)}}


def span_line(trace: int, span: int, parent: int | None, name: str, step: str | None, at_ms: int,
              links: list[tuple[str, str]] = (), attributes: dict[str, Any] | None = None) -> str:
    """One OTLP/JSON line of broker-1's exporter: a span ending 1 ms after `at_ms`, with its links."""
    attrs = [_attr("kafka.step", step)] * bool(step) + [_attr(k, v) for k, v in (attributes or {}).items()]
    doc = {"resourceSpans": [{"resource": {"attributes": [_attr("service.instance.id", "broker-1"),
                                                          _attr("process.pid", 4242)]},
                              "scopeSpans": [{"scope": {"name": "kafka_edu"}, "spans": [{
                                  "traceId": f"{trace:032x}", "spanId": f"{span:016x}",
                                  "parentSpanId": f"{parent:016x}" if parent else "", "name": name, "kind": 1,
                                  "startTimeUnixNano": str(T0 + at_ms * MS),
                                  "endTimeUnixNano": str(T0 + (at_ms + 1) * MS), "attributes": attrs,
                                  "links": [{"traceId": t, "spanId": s} for t, s in links]}]}]}]}
    return json.dumps(doc, separators=(",", ":")) + "\n"


def heartbeat(trace: int, at_ms: int) -> str:
    return span_line(trace, trace << 4 | 1, None, "RequestChannel.Request", None, at_ms,
                     attributes={"kafka.api.name": "ConsumerGroupHeartbeat"})


def fabricate_run(run_dir: Path) -> Path:
    """A finished run of one broker: three heartbeat traces; the second's GC.reconcile links to the first's GC.target,
    to the third's GC.fence, and to a span no file holds."""
    run_dir.mkdir()
    manifest = {"run_id": run_dir.name, "mode": "zk", "run_dir": str(run_dir), "started_at": "2026-11-22T08:04:08Z",
                "stopped_at": "2026-11-22T08:05:08Z", "zookeeper_connect": None, "bootstrap_servers": "",
                "processes": [{"role": "broker", "id": 1, "pid": 4242, "port": 19092, "state": "NotRunning"}],
                "overrides": [], "dropped_spans": {}}
    (run_dir / "manifest.json").write_text(json.dumps(manifest))
    lines = [
        heartbeat(HEARTBEAT_A, 100),
        span_line(HEARTBEAT_A, TARGET, HEARTBEAT_A << 4 | 1, "TargetAssignmentBuilder.build", "GC.target", 101),
        heartbeat(HEARTBEAT_B, 300),
        span_line(HEARTBEAT_B, RECONCILE, HEARTBEAT_B << 4 | 1, "CurrentAssignmentBuilder.build", "GC.reconcile", 301,
                  links=[(f"{HEARTBEAT_A:032x}", f"{TARGET:016x}"), (f"{LEAVE_C:032x}", f"{FENCE:016x}"), MISSING]),
        heartbeat(LEAVE_C, 200),
        span_line(LEAVE_C, FENCE, LEAVE_C << 4 | 1, "GroupMetadataManager.consumerGroupFenceMember", "GC.fence", 201),
    ]
    (run_dir / "broker-1.jsonl").write_text("".join(lines))
    return run_dir


@pytest.fixture
def linked_run(tmp_path: Path) -> Path:
    return fabricate_run(tmp_path / "linked-run")


def run(scenario) -> None:
    asyncio.run(scenario())


def detail_text(app: KafkaEduApp) -> str:
    return plain(app.query_one("#detail-body").content)


def footer_actions(app: KafkaEduApp) -> set[str]:
    return {key.action for key in app.query("FooterKey")}


async def select(app: KafkaEduApp, pilot: Any, trace: int, span: int) -> None:
    """The span under the waterfall's cursor, its detail shown."""
    app.show_span(app.store.find_span(f"{trace:032x}", f"{span:016x}"))
    await wait_for(pilot, lambda: app.detail.span is not None and app.detail.span.span_id == f"{span:016x}",
                   what=f"span {span:x} in the Detail pane")
    await pilot.pause()


def selected(app: KafkaEduApp) -> tuple[str | None, str | None]:
    span = app.waterfall.current_span
    return app.waterfall.trace_id, span.span_id if span is not None else None


def test_the_detail_lists_each_link_by_the_linked_spans_name_step_instance_and_time(linked_run: Path) -> None:
    async def scenario() -> None:
        async with opened(linked_run) as (app, pilot):
            await select(app, pilot, HEARTBEAT_B, RECONCILE)
            text = detail_text(app)
            assert "links" in text and "o: to the linked span, again: the next" in text
            rows = [line for line in text.splitlines() if line.lstrip()[:2] in ("1 ", "2 ", "3 ")]
            assert len(rows) == 3, text
            target, fence, missing = rows
            for word in ("TargetAssignmentBuilder.build", "GC.target", "broker-1", clock(T0 + 101 * MS),
                         "200.0ms before this span"):
                assert word in target, (word, target)
            for word in ("GroupMetadataManager.consumerGroupFenceMember", "GC.fence", clock(T0 + 201 * MS),
                         "100.0ms before this span"):
                assert word in fence, (word, fence)
            assert "trace deadbeef… span feedface…" in missing and "not loaded" in missing
            # its trace arrives (a live run's reader, late): the pane names the span
            late = span_line(int(MISSING[0], 16), int(MISSING[1], 16), None, "GroupCoordinatorShard.replay", None, 350)
            app.store.add_ended(parse_traces_line(late))
            await wait_for(pilot, lambda: "GroupCoordinatorShard.replay" in detail_text(app), what="the late span")
            assert "not loaded" not in detail_text(app)
            # a span without links says nothing about them
            await select(app, pilot, HEARTBEAT_A, TARGET)
            assert "links" not in detail_text(app)
    run(scenario)


def test_o_selects_the_linked_span_in_its_trace_and_again_the_next_link(linked_run: Path) -> None:
    async def scenario() -> None:
        async with opened(linked_run) as (app, pilot):
            await select(app, pilot, HEARTBEAT_B, RECONCILE)
            await wait_for(pilot, lambda: "follow_link" in footer_actions(app), what="o in the key bar")
            await pilot.press("o")
            await wait_for(pilot, lambda: selected(app) == (f"{HEARTBEAT_A:032x}", f"{TARGET:016x}"),
                           what="the GC.target in the first heartbeat's trace")
            await wait_for(pilot, lambda: app.detail.span.step == "GC.target", what="its detail")
            assert app.traces.current == ("trace", f"{HEARTBEAT_A:032x}")  # the trace list follows
            # GC.target has no links of its own, and `o` stays: it goes on to the reconciliation's next link
            await wait_for(pilot, lambda: "follow_link" in footer_actions(app), what="o still in the key bar")
            await pilot.press("o")  # on the span it led to: the reconciliation's next link
            await wait_for(pilot, lambda: selected(app) == (f"{LEAVE_C:032x}", f"{FENCE:016x}"),
                           what="the GC.fence in the third trace")
            await pilot.press("o")  # the third link's span is not held: it says so, and stays
            await wait_for(pilot, lambda: any("not loaded" in str(n.message) for n in app._notifications),
                           what="the warning")
            assert selected(app) == (f"{LEAVE_C:032x}", f"{FENCE:016x}")
            await pilot.press("o")  # round again, to the first
            await wait_for(pilot, lambda: selected(app) == (f"{HEARTBEAT_A:032x}", f"{TARGET:016x}"),
                           what="the first link again")
            # moved away and back, GC.target is a span of its own again: it has no links to follow
            app.waterfall.focus()
            await pilot.press("k")
            await wait_for(pilot, lambda: app.detail.span.span_id == f"{HEARTBEAT_A << 4 | 1:016x}", what="the root")
            await pilot.press("j")
            await wait_for(pilot, lambda: app.detail.span.span_id == f"{TARGET:016x}", what="GC.target again")
            await wait_for(pilot, lambda: "follow_link" not in footer_actions(app), what="o out of the key bar")
    run(scenario)


def test_o_on_a_span_without_links_says_why_it_does_nothing(linked_run: Path) -> None:
    async def scenario() -> None:
        async with opened(linked_run) as (app, pilot):
            await select(app, pilot, HEARTBEAT_A, TARGET)
            before = selected(app)
            assert "follow_link" not in footer_actions(app)
            await pilot.press("o")
            await wait_for(pilot, lambda: any("o follows a span's links" in str(n.message) for n in app._notifications),
                           what="the refusal")
            assert selected(app) == before
    run(scenario)


def test_o_unfolds_the_spans_that_hide_a_linked_span_in_the_trace_shown(tmp_path: Path) -> None:
    run_dir = fabricate_run(tmp_path / "run")
    # a fourth trace whose root links to its own grandchild
    trace = 0xD
    with open(run_dir / "broker-1.jsonl", "a") as out:
        out.write(span_line(trace, 0xD1, None, "GroupCoordinatorService.fenceStaleMembers", None, 400,
                            links=[(f"{trace:032x}", f"{0xD3:016x}")]))
        out.write(span_line(trace, 0xD2, 0xD1, "CoordinatorWriteEvent.run", None, 401))
        out.write(span_line(trace, 0xD3, 0xD2, "GroupMetadataManager.consumerGroupFenceMember", "GC.fence", 402))

    async def scenario() -> None:
        async with opened(run_dir) as (app, pilot):
            await select(app, pilot, trace, 0xD1)
            app.waterfall.collapsed.add(f"{0xD2:016x}")  # GC.fence is not a row now
            app.waterfall.rebuild(force=True)
            assert (1, f"{0xD3:016x}") not in app.waterfall.rows and (2, f"{0xD3:016x}") not in app.waterfall.rows
            await pilot.press("o")
            await wait_for(pilot, lambda: selected(app) == (f"{trace:032x}", f"{0xD3:016x}"), what="GC.fence, unfolded")
            assert f"{0xD2:016x}" not in app.waterfall.collapsed
    run(scenario)
