"""Our own test code, not a Kafka port: the TUI's quorum pane and metadata-log pane on a KRaft run fabricated here (a
manifest, controller span files with `raft.role.change` events, metadata log segments written with
kafka_edu.v1_0_2.core.log),
with DescribeQuorum answered by a stand-in."""

from __future__ import annotations

import json
import os
import subprocess
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from kafka_edu.v1_0_2.clients.common.record.file_records import FileRecords
from kafka_edu.v1_0_2.clients.common.record.memory_records_builder import with_leader_change_message, with_records
from kafka_edu.v3_9.metadata.common.metadata.feature_level_record import FeatureLevelRecord
from kafka_edu.v3_9.metadata.common.metadata.no_op_record import NoOpRecord
from kafka_edu.v3_9.metadata.common.metadata.partition_change_record import PartitionChangeRecord
from kafka_edu.v3_9.metadata.common.metadata.partition_record import PartitionRecord
from kafka_edu.v3_9.metadata.common.metadata.register_broker_record import RegisterBrokerRecord
from kafka_edu.v3_9.metadata.common.metadata.topic_record import TopicRecord
from tests.tui import fake_kraft
from tests.tui.fake_kraft import MS, T0, leader_change, log_end, quorum_log, role_span, run, span_line, write_log
from tests.tui.helpers import row_texts, wait_for
from tui import quorum
from tui.app import KafkaEduApp
from tui.quorum import QuorumModel, QuorumPoller, ReplicaProgress, Replication

TOPIC_ID = uuid.UUID("6f1c1d2e-3b4a-4c5d-8e9f-0a1b2c3d4e5f")


# -- a fabricated KRaft run -------------------------------------------------------------------------------------

def metadata_log(epoch_one_noops: int = 4, epoch_two_noops: int = 9) -> list[Any]:
    """The quorum's log: epoch 1 led by 1 (bootstrap, a broker, a topic, NoOps), then epoch 2 led by 2."""
    register = RegisterBrokerRecord(broker_id=4, incarnation_id=uuid.UUID(int=7), broker_epoch=12, end_points=(),
                                    features=(), rack=None)
    partition = PartitionRecord(partition_id=0, topic_id=TOPIC_ID, replicas=(4,), isr=(4,), removing_replicas=(),
                                adding_replicas=(), leader=4, leader_recovery_state=0, leader_epoch=0,
                                partition_epoch=0)
    batches: list[Any] = []
    offset = 0

    def data(epoch: int, *messages: tuple[Any, int]) -> None:
        nonlocal offset
        values = [fake_kraft.record_value(m, v) for m, v in messages]
        batches.append(with_records(offset, 1_795_334_652_000 + offset, epoch, values))
        offset += len(messages)

    def control(epoch: int, leader: int) -> None:
        nonlocal offset
        batches.append(with_leader_change_message(offset, 1_795_334_652_000 + offset, epoch, leader_change(leader)))
        offset += 1

    control(1, 1)
    data(1, (FeatureLevelRecord(name="metadata.version", feature_level=21), 0))
    for _ in range(epoch_one_noops):
        data(1, (NoOpRecord(), 0))
    data(1, (register, 3))
    data(1, (TopicRecord(name="foo", topic_id=TOPIC_ID), 0), (partition, 1))
    data(1, (NoOpRecord(), 0))
    control(2, 2)
    for _ in range(epoch_two_noops):
        data(2, (NoOpRecord(), 0))
    data(2, (PartitionChangeRecord(partition_id=0, topic_id=TOPIC_ID, isr=(4,), leader=4), 0))
    return batches


def dead_pid() -> int:
    done = subprocess.Popen(["true"])
    done.wait()
    return done.pid


def fabricate_run(run_dir: Path, *, live: bool) -> Path:
    """Three voters: 1 led epoch 1 and was killed; 2 won epoch 2, 3 follows it. On a live run 2 and 3 are this
    process (so they read as running); voter 1's log stops where it was killed."""
    run_dir.mkdir(parents=True)
    alive = os.getpid()
    pids = {1: dead_pid(), 2: alive, 3: alive}
    processes = [{"role": "controller", "id": n, "pid": pids[n], "port": 19090 + n,
                  "config": str(run_dir / f"controller-{n}.properties"), "log": str(run_dir / f"controller-{n}.log"),
                  "state": state if live else "NotRunning"}  # `cluster down` leaves every process NotRunning
                 for n, state in ((1, "killed"), (2, "Leader"), (3, "Follower"))]
    fake_kraft.write_manifest(run_dir, processes, stopped_at=None if live else "2026-11-22T08:05:00Z")
    lines = {
        1: [role_span("controller-1", pids[1], 0, [("Unattached", "Unattached", 0, None)], 1, 1),
            role_span("controller-1", pids[1], 100, [("Unattached", "Candidate", 1, None),
                                                     ("Candidate", "Leader", 1, None)], 2, 2)],
        2: [role_span("controller-2", pids[2], 0, [("Unattached", "Unattached", 0, None)], 3, 3),
            role_span("controller-2", pids[2], 110, [("Unattached", "Follower", 1, 1)], 4, 4),
            role_span("controller-2", pids[2], 5000, [("Follower", "Candidate", 2, None),
                                                      ("Candidate", "Leader", 2, None)], 5, 5)],
        3: [role_span("controller-3", pids[3], 0, [("Unattached", "Unattached", 0, None)], 6, 6),
            role_span("controller-3", pids[3], 120, [("Unattached", "Follower", 1, 1)], 7, 7),
            role_span("controller-3", pids[3], 5010, [("Follower", "Unattached", 2, None),
                                                      ("Unattached", "Follower", 2, 2)], 8, 8),
            # A poll that handled a Fetch response: the follower's own high watermark, as KR.poll's describer says it
            span_line("controller-3", pids[3], "KafkaRaftClient.poll", T0 + 4000 * MS, T0 + 4001 * MS, step="KR.poll",
                      trace=9, span=9, attributes={"kafka.raft.high_watermark": 9, "kafka.raft.log_end_offset": 10,
                                                   "kafka.raft.role": "Follower", "kafka.raft.epoch": 1})],
    }
    for node, node_lines in lines.items():
        (run_dir / f"controller-{node}.jsonl").write_text("".join(node_lines))
    batches = metadata_log()
    killed_at = next(i for i, b in enumerate(batches) if DefaultBatch(b).epoch == 2)  # voter 1 saw epoch 1 only
    write_log(quorum_log(run_dir, 1), batches[:killed_at])
    write_log(quorum_log(run_dir, 2), batches)
    write_log(quorum_log(run_dir, 3), batches[:-1])  # one batch behind
    return run_dir


class DefaultBatch:
    def __init__(self, records: Any) -> None:
        self.batch = next(iter(records.batches()))

    @property
    def epoch(self) -> int:
        return self.batch.partition_leader_epoch


def fake_describe(run_dir: Path, at: float = 1_795_334_660.0) -> Callable[[list[str]], Replication]:
    """DescribeQuorum as leader 2 would answer on the fabricated run: voter 1's offset frozen where it was killed, the
    high watermark where voter 3 (one batch behind) has fetched to."""
    return fake_kraft.describe_by_leader_2(run_dir, at, high_watermark_of=3, voter_1_behind_ms=60_000)


# -- the model on its own ---------------------------------------------------------------------------------------

def test_the_poller_reads_committed_records_from_the_leaders_log_with_noops_folded(tmp_path: Path) -> None:
    run_dir = fabricate_run(tmp_path / "run", live=True)
    poller = QuorumPoller(run_dir, describe=fake_describe(run_dir))
    model = QuorumModel()
    model.observe_poll(poller.poll())
    assert model.records_source == 2  # DescribeQuorum named the leader
    high_watermark = log_end(run_dir, 3)
    assert model.high_watermark_limit == high_watermark
    assert all(entry.last_offset < high_watermark for entry in model.records)  # nothing past the high watermark
    kinds = [(entry.kind, entry.summary, entry.count) for entry in model.records]
    assert kinds == [
        ("LeaderChange", "leader 1 epoch 1 voters [1,2,3]", 1),
        ("FEATURE_LEVEL_RECORD", "metadata.version 21", 1),
        ("NO_OP_RECORD", "", 4),
        ("REGISTER_BROKER_RECORD", "broker 4 epoch 12", 1),
        ("TOPIC_RECORD", "foo (bxwdLjtKTF2OnwobLD1OXw)", 1),
        ("PARTITION_RECORD", "foo-0 replicas [4] leader 4", 1),
        ("NO_OP_RECORD", "", 1),
        ("LeaderChange", "leader 2 epoch 2 voters [1,2,3]", 1),
        ("NO_OP_RECORD", "", 9),
    ]
    assert model.noops == 14
    assert model.records[-1].epoch == 2 and model.records[2].offset == 2 and model.records[2].last_offset == 5


def test_a_record_arrives_once_the_high_watermark_passes_it_and_noops_keep_folding(tmp_path: Path) -> None:
    run_dir = fabricate_run(tmp_path / "run", live=True)
    describe = fake_describe(run_dir)
    answer = describe([])
    poller = QuorumPoller(run_dir, describe=lambda _: answer)
    model = QuorumModel()
    model.observe_poll(poller.poll())
    assert model.records[-1].kind == "NO_OP_RECORD"
    end = log_end(run_dir, 2)
    answer = Replication(2, 2, end, answer.voters, answer.at)  # voter 3 has fetched the last batch
    model.observe_poll(poller.poll())
    assert model.records[-1].kind == "PARTITION_CHANGE_RECORD"
    assert model.records[-1].summary == "foo-0 leader 4 isr [4]"
    write_log_more = FileRecords.open(quorum_log(run_dir, 2) / "00000000000000000000.log")
    try:
        for i in range(3):
            write_log_more.append(with_records(end + i, 0, 2, [fake_kraft.record_value(NoOpRecord())]))
    finally:
        os.close(write_log_more.fd)
    answer = Replication(2, 2, end + 3, answer.voters, answer.at)
    model.observe_poll(poller.poll())
    assert [e.kind for e in model.records[-2:]] == ["PARTITION_CHANGE_RECORD", "NO_OP_RECORD"]
    assert model.records[-1].count == 3 and model.noops == 17


def test_a_new_leaders_log_takes_over_where_the_records_stopped_without_repeating_any(tmp_path: Path) -> None:
    run_dir = fabricate_run(tmp_path / "run", live=True)
    answer = fake_describe(run_dir)([])
    poller = QuorumPoller(run_dir, describe=lambda _: answer)
    model = QuorumModel()
    model.observe_poll(poller.poll())
    shown = sum(entry.count for entry in model.records)
    end = log_end(run_dir, 3)
    segment = FileRecords.open(quorum_log(run_dir, 3) / "00000000000000000000.log")
    try:  # voter 3 wins epoch 3 and writes its LeaderChange after what it had
        segment.append(with_leader_change_message(end, 0, 3, leader_change(3)))
    finally:
        os.close(segment.fd)
    answer = Replication(3, 3, end + 1, answer.voters, answer.at)
    model.observe_poll(poller.poll())
    assert model.records_source == 3
    assert sum(entry.count for entry in model.records) == shown + 1
    assert (model.records[-1].kind, model.records[-1].offset) == ("LeaderChange", end)
    assert model.records[-1].summary == "leader 3 epoch 3 voters [1,2,3]"


def test_roles_and_epochs_come_from_the_trace_and_a_killed_leader_is_no_leader(tmp_path: Path) -> None:
    from kafka_edu.tracing.query import read_span_file

    run_dir = fabricate_run(tmp_path / "run", live=True)
    model = QuorumModel()
    logged: list[str] = []
    model.add_log = lambda _t, _i, text, _level: logged.append(text)
    poller = QuorumPoller(run_dir, describe=fake_describe(run_dir))
    model.observe_poll(poller.poll())
    for node in (1, 2, 3):
        model.observe_ended(list(read_span_file(run_dir / f"controller-{node}.jsonl")))
    assert {n: (v.role, v.epoch) for n, v in model.voters.items()} == {1: ("Leader", 1), 2: ("Leader", 2),
                                                                     3: ("Follower", 2)}
    assert model.voters[1].status == "killed" and not model.voters[1].running
    assert model.leader_id == 2 and model.epoch == 2
    assert model.high_watermark(2) == log_end(run_dir, 3) and model.high_watermark(3) == 9  # DescribeQuorum, trace
    assert model.high_watermark(1) is None
    assert model.lag(1) == log_end(run_dir, 2) - log_end(run_dir, 1) and model.lag(2) == 0
    assert any("killed as Leader in epoch 1" in text for text in logged)
    assert "★ controller 2: Candidate → Leader, epoch 2" in logged


def test_a_paused_leader_reads_as_paused_and_a_newer_epoch_without_a_leader_is_an_election(tmp_path: Path) -> None:
    model = QuorumModel()
    model.observe_manifest({"mode": "kraft", "processes": [
        {"role": "controller", "id": n, "pid": os.getpid(), "state": "paused" if n == 1 else "Follower"}
        for n in (1, 2, 3)]})
    from kafka_edu.tracing.query import SpanEvent, SpanRecord

    def changed(node: int, to: str, epoch: int, at: int) -> SpanRecord:
        return SpanRecord("t", f"s{node}{at}", "", "KafkaRaftClient.poll", at, at + 1, {},
                          {"service.instance.id": f"controller-{node}", "process.pid": 100 + node},
                          [SpanEvent("raft.role.change", at, {"to": to, "epoch": epoch})])

    model.observe_ended([changed(1, "Leader", 1, 1), changed(2, "Follower", 1, 2), changed(3, "Follower", 1, 3)])
    assert model.voters[1].status == "paused" and model.leader_id == 1  # still the leader, for now
    model.observe_ended([changed(2, "Candidate", 2, 10)])
    assert model.leader_id is None and model.epoch == 2  # an election
    model.observe_ended([changed(2, "Leader", 2, 11)])
    assert model.leader_id == 2


def test_a_finished_run_shows_the_log_end_offsets_on_disk_and_every_record(tmp_path: Path) -> None:
    run_dir = fabricate_run(tmp_path / "run", live=False)
    calls: list[list[str]] = []
    poller = QuorumPoller(run_dir, describe=lambda addresses: calls.append(addresses))  # type: ignore[arg-type]
    model = QuorumModel()
    model.observe_poll(poller.poll())
    assert not calls  # a finished run is never asked
    assert model.replication_state == "disk" and model.high_watermark_limit is None
    assert model.end_offset(2) == log_end(run_dir, 2) and model.lag(3) == 1
    assert model.records[-1].kind == "PARTITION_CHANGE_RECORD"  # the whole log, the high watermark unknown
    assert model.records_source == 2  # the longest log


def test_describe_quorum_failing_keeps_the_last_answer_marked_last_known(tmp_path: Path) -> None:
    run_dir = fabricate_run(tmp_path / "run", live=True)
    answers: list[Any] = [fake_describe(run_dir)([])]

    def describe(_addresses: list[str]) -> Replication:
        if not answers:
            raise OSError("Connection refused")
        return answers.pop()

    poller = QuorumPoller(run_dir, describe=describe)
    model = QuorumModel()
    model.observe_poll(poller.poll())
    assert model.replication_state == "fresh"
    model.observe_poll(poller.poll())
    assert model.replication_state == "last known" and "refused" in model.replication_error
    assert model.end_offset(1) == log_end(run_dir, 1)


# -- the pane in the app ----------------------------------------------------------------------------------------

@pytest.fixture
def live_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    run_dir = fabricate_run(tmp_path / "run", live=True)
    monkeypatch.setattr(quorum, "describe_quorum", fake_describe(run_dir))
    return run_dir


async def _settled(app: KafkaEduApp, pilot: Any) -> None:
    def killed_leader_logged() -> bool:  # the quorum's own Log lines have arrived
        return any("killed as Leader" in entry.text for entry in app.model.log)

    await fake_kraft.quorum_settled(app, pilot, killed_leader_logged,
                                    "the quorum to load and the Log pane to follow it")


def test_the_quorum_pane_replaces_the_cluster_pane_on_a_kraft_run(live_run: Path) -> None:
    async def scenario() -> None:
        app = KafkaEduApp(live_run, watch=True)
        async with app.run_test(size=(120, 40)) as pilot:
            await _settled(app, pilot)
            assert app.kraft and not app.cluster_pane.display and app.quorum_pane.display
            rows = row_texts(app.quorum_pane)
            assert "c1" in rows[0] and "killed" in rows[0] and "Leader" not in rows[0].split("killed")[0]
            assert rows[1].startswith("★ c2") and "Leader" in rows[1] and "e2" in rows[1]
            assert "c3" in rows[2] and "Follower" in rows[2] and "e2" in rows[2]
            assert "epoch 2" in app.quorum_pane.border_title and "★ c2" in app.quorum_pane.border_title
            records = [line for line in row_texts(app.records_pane) if line.strip()]
            assert any("LeaderChange leader 2 epoch 2" in line for line in records)
            assert any("REGISTER_BROKER_RECORD broker 4 epoch 12" in line for line in records)
            assert any("NO_OP_RECORD × 9" in line for line in records)  # folded
            assert "14 NoOps folded" in app.records_pane.border_title
            # The fault keys act on the voter under the cursor: x on the killed one says why it does nothing.
            app.quorum_pane.focus()
            assert app.quorum_pane.selected_voter == 1
            assert "controller 1 is not running" in app.refusal("kill")
            # `cluster pause 3` (SIGSTOP): the manifest says so, and the follower reads as paused, not as Follower.
            manifest = json.loads((live_run / "manifest.json").read_text())
            manifest["processes"][2]["state"] = "paused"
            (live_run / "manifest.json").write_text(json.dumps(manifest))
            os.utime(live_run / "manifest.json", (time.time() + 5, time.time() + 5))  # a new mtime, however coarse
            await wait_for(pilot, lambda: "paused" in row_texts(app.quorum_pane)[2], what="c3 to read as paused")
            assert "Follower" not in row_texts(app.quorum_pane)[2]
    run(scenario)


def test_the_fault_keys_act_on_the_controller_under_the_cursor(live_run: Path) -> None:
    async def scenario() -> None:
        async with fake_kraft.with_recording_control(live_run, (120, 40), _settled) as (app, pilot, calls):
            app.quorum_pane.focus()
            await pilot.press("j", "x")  # c2, the leader
            await wait_for(pilot, lambda: calls, what="the kill")
            assert calls == [("kill", (2,))]
            await pilot.press("j", "p")
            await wait_for(pilot, lambda: len(calls) == 2, what="the pause")
            assert calls[1] == ("pause", (3,))
            await pilot.press("c")  # no brokers on this run: said, not attempted
            assert len(calls) == 2
    run(scenario)


# -- snapshots (tests/tui/test_snapshots.py's comparison; look at the PNG before accepting one) ------------------

@pytest.mark.parametrize("size", [(120, 40), (80, 24)])
def test_snapshot_of_a_quorum_whose_old_leader_was_killed(live_run: Path, size: tuple[int, int]) -> None:
    async def steps(app: KafkaEduApp, pilot: Any) -> None:
        await _settled(app, pilot)
        await fake_kraft.still_screen(app, pilot)

    fake_kraft.utc_snapshot(live_run, f"quorum_killed_leader_{size[0]}x{size[1]}", size, steps)


def test_enter_on_a_record_shows_the_trace_that_wrote_it(live_run: Path) -> None:
    pid = json.loads((live_run / "manifest.json").read_text())["processes"][0]["pid"]
    with open(live_run / "controller-1.jsonl", "a") as spans:  # the write event that appended offsets 7 and 8
        spans.write(span_line("controller-1", pid, "QuorumController.ControllerWriteEvent.run", T0 + 300 * MS,
                              T0 + 302 * MS, step="KR.qc", trace=77, span=77,
                              attributes={"kafka.raft.offset.first": 7, "kafka.raft.offset.last": 8}))

    async def scenario() -> None:
        app = KafkaEduApp(live_run, watch=True)
        async with app.run_test(size=(120, 40)) as pilot:
            await _settled(app, pilot)
            app.records_pane.focus()
            index = next(i for i, entry in enumerate(app.records_pane.rows) if entry.kind == "TOPIC_RECORD")
            app.records_pane.action_jump(index)
            await pilot.press("enter")
            await wait_for(pilot, lambda: app.waterfall.trace_id == f"{77:032x}", what="the write event's trace")
            app.records_pane.focus()
            app.records_pane.action_jump(0)  # the LeaderChange: no span names it
            await pilot.press("enter")
            await wait_for(pilot, lambda: any("no span held names offset 0" in str(n.message)
                                              for n in app._notifications), what="the warning")
    run(scenario)


def test_after_an_election_the_trace_leader_is_asked_first_and_an_unreported_voter_falls_back_to_its_disk(
        tmp_path: Path) -> None:
    run_dir = fabricate_run(tmp_path / "run", live=True)
    asked: list[list[str]] = []
    first = fake_describe(run_dir)([])
    # The new leader has not heard from voter 1 (killed before the election): it reports -1 for it.
    after = Replication(3, 3, first.high_watermark, {**first.voters, 1: ReplicaProgress(-1, -1, -1)}, first.at)

    def describe(addresses: list[str]) -> Replication:
        asked.append(addresses)
        return first if len(asked) == 1 else after

    poller = QuorumPoller(run_dir, describe=describe)
    poller.poll(leader_hint=None)
    poller.last_replication = Replication(1, 1, 0, {}, 0.0)  # the last answer named voter 1, killed since
    model = QuorumModel()
    model.observe_poll(poller.poll(leader_hint=3))
    assert asked[-1][0] == "127.0.0.1:19093"  # the trace's leader, 3, before 2
    assert model.end_offset(1) == log_end(run_dir, 1)
    assert model.lag(1) == after.leader_end_offset - log_end(run_dir, 1)


# -- the TUI's own DescribeQuorum polls are not cluster traffic ----------------------------------------------------

def _client_id_sent(describe: Callable[[list[str]], Any]) -> str:
    """The client id in the request header the poller's DescribeQuorum puts on the wire (header v1/v2: api key, api
    version, correlation id, then the client id as an INT16-length string), read by a listener that then hangs up."""
    import socket
    import struct
    import threading

    server = socket.create_server(("127.0.0.1", 0))
    seen: list[str] = []

    def accept() -> None:
        connection, _ = server.accept()
        with connection:
            connection.settimeout(5)
            data = b""
            while len(data) < 4 or len(data) < 4 + struct.unpack(">i", data[:4])[0]:
                chunk = connection.recv(65536)
                if not chunk:
                    break
                data += chunk
            (length,) = struct.unpack(">h", data[12:14])
            seen.append(data[14:14 + length].decode())

    listener = threading.Thread(target=accept, daemon=True)
    listener.start()
    try:
        with pytest.raises(Exception):  # noqa: B017 - the listener hangs up: no voter answers
            describe([f"127.0.0.1:{server.getsockname()[1]}"])
        listener.join(5)
    finally:
        server.close()
    assert seen, "no DescribeQuorum request arrived"
    return seen[0]


def test_the_tuis_own_describe_quorum_polls_are_folded_as_background_traffic() -> None:
    """Each poll is a request trace on the leader (RequestChannel.Request > RQ.net.5, RQ.net.7 > KR.apis): with a
    client id of the TUI's own it is folded with the background traffic, not listed as if a client had sent it. A
    request the user asked for (the `P` key's produce, client id kafka-edu-tui) stays in the list."""
    from kafka_edu.tracing.query import SpanRecord
    from tui.store import SpanStore

    client_id = _client_id_sent(quorum.describe_quorum)
    resource = {"service.instance.id": "controller-1"}

    def request(trace_id: str, api: str, client: str) -> list[SpanRecord]:
        root = SpanRecord(trace_id=trace_id, span_id="r", parent_id="", name="RequestChannel.Request", start_ns=1,
                          end_ns=9, attributes={"kafka.api.name": api, "kafka.client.id": client},
                          resource=resource)
        handle = SpanRecord(trace_id=trace_id, span_id="h", parent_id="r", name="ControllerApis.handle",
                            start_ns=2, end_ns=8, attributes={"kafka.step": "KR.apis"}, resource=resource)
        return [root, handle]

    store = SpanStore()
    store.add_ended(request("poll", "DescribeQuorum", client_id))
    store.add_ended(request("asked", "DescribeQuorum", "kafka-metadata-quorum"))  # the learner's own command
    store.add_ended(request("burst", "Produce", "kafka-edu-tui"))
    assert store.traces["poll"].folded
    assert not store.traces["asked"].folded and not store.traces["burst"].folded
