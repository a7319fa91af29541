"""Our own test code, not a Kafka port: what the Quorum pane's tests (test_quorum, test_kraft_brokers) share.

A KRaft run fabricated on disk (the manifest, OTLP/JSON span lines as the exporter writes them, metadata log segments
written with kafka_edu.v1_0_2.core.log), DescribeQuorum answered by a stand-in, and the app driven on such a run:
waiting for the
quorum to load, a stand-in for the cluster control that records what the keys ask of it, and a snapshot taken once
the screen is still.
"""

from __future__ import annotations

import asyncio
import json
import os
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

from kio.schema.leader_change_message.v0.data import LeaderChangeMessage, Voter
from textual.pilot import Pilot

from kafka_edu.v1_0_2.clients.common.record.file_records import FileRecords
from kafka_edu.v3_9.metadata.metadata.metadata_record_serde import MetadataRecordSerde
from kafka_edu.v3_9.server_common.server.common.api_message_and_version import ApiMessageAndVersion
from tests.tui.helpers import wait_for
from tests.tui.test_snapshots import snapshot
from tui.app import KafkaEduApp
from tui.quorum import MetadataLogTail, ReplicaProgress, Replication
from tui.widgets.rows import RowsView

T0 = 1_795_334_652_000_000_000  # span times (ns), as in the samples: 2026-11-22
MS = 1_000_000


# -- the run on disk --------------------------------------------------------------------------------------------

def write_manifest(run_dir: Path, processes: list[dict[str, Any]], *, stopped_at: str | None = None,
                   bootstrap_servers: str = "") -> None:
    """The runner's manifest of a KRaft run whose voters are controllers 1-3 on ports 19091-19093."""
    manifest = {"run_id": run_dir.name, "mode": "kraft", "run_dir": str(run_dir), "started_at": "2026-11-22T08:04:08Z",
                "stopped_at": stopped_at, "zookeeper_connect": None, "bootstrap_servers": bootstrap_servers,
                "processes": processes, "overrides": [], "dropped_spans": {}, "cluster_id": "MkU3OEVBNTcwNTJENDM2Qg",
                "controller_quorum_voters": "1@127.0.0.1:19091,2@127.0.0.1:19092,3@127.0.0.1:19093",
                "bootstrap_controllers": "127.0.0.1:19091,127.0.0.1:19092,127.0.0.1:19093"}
    (run_dir / "manifest.json").write_text(json.dumps(manifest, indent=2))


def _attr(key: str, value: Any) -> dict[str, Any]:
    if isinstance(value, bool):
        return {"key": key, "value": {"boolValue": value}}
    if isinstance(value, int):
        return {"key": key, "value": {"intValue": str(value)}}
    if isinstance(value, float):
        return {"key": key, "value": {"doubleValue": value}}
    return {"key": key, "value": {"stringValue": str(value)}}


def span_line(instance: str, pid: int, name: str, start_ns: int, end_ns: int,
              events: list[tuple[int, str, dict[str, Any]]] = (), step: str | None = None,
              trace: int = 1, span: int = 1, attributes: dict[str, Any] | None = None) -> str:
    """One OTLP/JSON TracesData line, as the exporter writes it."""
    attributes = [_attr("kafka.step", step)] * bool(step) + [_attr(k, v) for k, v in (attributes or {}).items()]
    doc = {"resourceSpans": [{"resource": {"attributes": [
        _attr("service.instance.id", instance), _attr("service.name", "kafka-edu"), _attr("kafka.mode", "kraft"),
        _attr("process.pid", pid)]},
        "scopeSpans": [{"scope": {"name": "kafka_edu"}, "spans": [{
            "traceId": f"{trace:032x}", "spanId": f"{span:016x}", "parentSpanId": "", "name": name, "kind": 1,
            "startTimeUnixNano": str(start_ns), "endTimeUnixNano": str(end_ns), "attributes": attributes,
            "events": [{"timeUnixNano": str(t), "name": n, "attributes": [_attr(k, v) for k, v in a.items()]}
                       for t, n, a in events]}]}]}]}
    return json.dumps(doc, separators=(",", ":")) + "\n"


def role_span(instance: str, pid: int, at_ms: int, changes: list[tuple[str, str, int, int | None]],
              trace: int, span: int) -> str:
    """A KafkaRaftClient.poll span holding `raft.role.change` events (from, to, epoch, leader), 1 ms apart."""
    events = []
    for i, (old, new, epoch, leader) in enumerate(changes):
        attributes: dict[str, Any] = {"kafka.raft.role.from": old, "kafka.raft.role.to": new, "kafka.raft.epoch": epoch,
                                      "kafka.raft.leader.id": -1 if leader is None else leader, "kafka.step": "KR.role"}
        events.append((T0 + (at_ms + i) * MS, "raft.role.change", attributes))
    return span_line(instance, pid, "KafkaRaftClient.poll", T0 + at_ms * MS, T0 + (at_ms + len(changes) + 1) * MS,
                     events, step="KR.poll", trace=trace, span=span)


def record_value(message: Any, version: int = 0) -> bytes:
    """A metadata record's value, as the controller writes it."""
    return MetadataRecordSerde().write(ApiMessageAndVersion(message, version))


def leader_change(leader: int) -> LeaderChangeMessage:
    """The LeaderChange control record of a new leader of voters 1-3."""
    voters = tuple(Voter(voter_id=i) for i in (1, 2, 3))
    return LeaderChangeMessage(version=0, leader_id=leader, voters=voters, granting_voters=voters)


def write_log(log_dir: Path, batches: list[Any]) -> None:
    log_dir.mkdir(parents=True, exist_ok=True)
    records = FileRecords.open(log_dir / "00000000000000000000.log")
    try:
        for batch in batches:
            records.append(batch)
    finally:
        os.close(records.fd)


def quorum_log(run_dir: Path, node: int) -> Path:
    return run_dir / f"controller-{node}" / "logs" / "__cluster_metadata-0"


def log_end(run_dir: Path, node: int) -> int:
    tail = MetadataLogTail(quorum_log(run_dir, node))
    tail.read(full=False)
    return tail.end_offset


def describe_by_leader_2(run_dir: Path, at: float, high_watermark_of: int,
                         voter_1_behind_ms: int) -> Callable[[list[str]], Replication]:
    """DescribeQuorum as leader 2 of epoch 2 answers on a fabricated run: each voter's log end offset as on disk,
    voter 1 (killed) last fetching `voter_1_behind_ms` before the others, the high watermark at the end of voter
    `high_watermark_of`'s log."""
    ends = {n: log_end(run_dir, n) for n in (1, 2, 3)}

    def describe(_addresses: list[str]) -> Replication:
        fetched = int(at * 1000) - 200
        voters = {n: ReplicaProgress(end, fetched if n != 1 else fetched - voter_1_behind_ms, fetched)
                  for n, end in ends.items()}
        return Replication(2, 2, ends[high_watermark_of], voters, at)
    return describe


# -- the app on it ----------------------------------------------------------------------------------------------

def run(scenario: Callable[[], Awaitable[Any]]) -> None:
    asyncio.run(scenario())


async def quorum_settled(app: KafkaEduApp, pilot: Pilot, also: Callable[[], object], what: str) -> None:
    """Until the quorum has loaded (its records, DescribeQuorum's answer, every voter's role), `also` holds, and the
    Log pane has caught up with its newest line; then a moment for the panes to draw it."""
    def settled() -> bool:
        log = app.log_pane
        return bool(app.loaded.is_set() and app.quorum.records and app.quorum.voters
                    and all(v.change is not None for v in app.quorum.voters.values())
                    and app.quorum.replication is not None and also()
                    and len(log.rows) == len(app.model.log) and log.cursor == len(log.rows) - 1
                    and log.scroll_y == log.max_scroll_y)

    await wait_for(pilot, settled, what=what)
    await pilot.pause(0.2)


class RecordingControl:
    """Stands in for the app's cluster control: each call is recorded as (verb, args) and answered from `answers`
    (None for a verb not in it), so the fault keys can be tested without processes."""

    def __init__(self, answers: dict[str, Any] | None = None) -> None:
        self.calls: list[tuple[str, tuple[Any, ...]]] = []
        self.answers = answers or {}

    def __getattr__(self, verb: str) -> Callable[..., Any]:
        return lambda *args: self.calls.append((verb, args)) or self.answers.get(verb)


@asynccontextmanager
async def with_recording_control(run_dir: Path, size: tuple[int, int],
                                 settled: Callable[[KafkaEduApp, Pilot], Awaitable[None]],
                                 answers: dict[str, Any] | None = None
                                 ) -> AsyncIterator[tuple[KafkaEduApp, Pilot, list[tuple[str, tuple[Any, ...]]]]]:
    """The app watching `run_dir`, once `settled`, its cluster control a RecordingControl: (app, pilot, the calls)."""
    app = KafkaEduApp(run_dir, watch=True)
    async with app.run_test(size=size) as pilot:
        await settled(app, pilot)
        control = RecordingControl(answers)
        app.control = control  # type: ignore[assignment]
        yield app, pilot, control.calls


async def still_screen(app: KafkaEduApp, pilot: Pilot) -> None:
    """Until two screens a frame apart are the same (at most 10 s), each scrollbar's thumb put where its pane is: a
    RowsView that scrolls before its scrollbar is shown can leave the thumb where it was (at the top) until the next
    scroll, depending on timing, and a snapshot must not depend on timing."""
    for pane in app.query(RowsView):
        if pane.show_vertical_scrollbar:
            pane.vertical_scrollbar.position = pane.scroll_y
            pane.vertical_scrollbar.refresh()
    before, deadline = "", time.monotonic() + 10
    while (after := app.export_screenshot()) != before and time.monotonic() < deadline:
        before = after
        await pilot.pause(0.3)


@contextmanager
def utc_clock() -> Iterator[None]:
    """TZ=UTC for the span times the screens show as clock times (restored after), so a snapshot does not depend on
    the machine's zone."""
    zone = os.environ.get("TZ")
    os.environ["TZ"] = "UTC"
    time.tzset()
    try:
        yield
    finally:
        if zone is None:
            os.environ.pop("TZ", None)
        else:
            os.environ["TZ"] = zone
        time.tzset()


def utc_snapshot(run_dir: Path, name: str, size: tuple[int, int],
                 steps: Callable[[KafkaEduApp, Pilot], Awaitable[None]]) -> None:
    """test_snapshots' comparison of the screen after `steps` with the stored SVG, in UTC (look at the PNG before
    accepting a new one)."""
    with utc_clock():
        snapshot(run_dir, name, size, steps)
