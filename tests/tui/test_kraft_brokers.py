"""Our own test code, not a Kafka port: a KRaft run's brokers beside the quorum in the TUI, on a run fabricated here
(three controllers and three brokers: the manifest, span files, the controllers' metadata logs), with DescribeQuorum
answered by a stand-in and the processes' liveness by a fixed table, so the screens do not depend on real pids.

Broker 4 runs; broker 5 was killed, the active controller fenced it for silence (KR.fence) and committed that;
broker 6 is paused (SIGSTOP) and not fenced yet."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from kafka_edu.tracing.query import SpanEvent, SpanRecord, read_span_file
from kafka_edu.v1_0_2.clients.common.record.memory_records_builder import with_leader_change_message, with_records
from kafka_edu.v3_9.metadata.common.metadata.broker_registration_change_record import BrokerRegistrationChangeRecord
from kafka_edu.v3_9.metadata.common.metadata.feature_level_record import FeatureLevelRecord
from kafka_edu.v3_9.metadata.common.metadata.no_op_record import NoOpRecord
from kafka_edu.v3_9.metadata.common.metadata.partition_change_record import PartitionChangeRecord
from kafka_edu.v3_9.metadata.common.metadata.partition_record import PartitionRecord
from kafka_edu.v3_9.metadata.common.metadata.register_broker_record import RegisterBrokerRecord
from kafka_edu.v3_9.metadata.common.metadata.remove_topic_record import RemoveTopicRecord
from kafka_edu.v3_9.metadata.common.metadata.topic_record import TopicRecord
from tests.tui import fake_kraft
from tests.tui.fake_kraft import MS, T0, leader_change, quorum_log, record_value, role_span, run, span_line, write_log
from tests.tui.helpers import row_texts, screen_lines, wait_for
from tui import quorum, reader
from tui.app import KafkaEduApp
from tui.kraft_brokers import BrokerChange, KRaftBrokers
from tui.quorum import MetadataEntry, MetadataLogTail, QuorumModel, QuorumPoller, Replication
from tui.widgets.dialogs import CreateTopicScreen

T0_MS = T0 // MS
PIDS = {1: 4101, 2: 4102, 3: 4103, 4: 4204, 5: 4205, 6: 4206}
ALIVE = {4102, 4103, 4204, 4206}  # controller 1 and broker 5 were killed
TOPIC_ID = uuid.UUID("0b6a7c1e-2f3d-4e5f-8a9b-0c1d2e3f4a5b")


# -- the fabricated run -----------------------------------------------------------------------------------------

def metadata_log() -> list[Any]:
    """Epoch 1 led by controller 1: the brokers register and are unfenced, a topic; epoch 2 led by controller 2:
    broker 5 fenced (its heartbeats stopped) and dropped from the ISR. Record n is written at T0 + n seconds."""
    batches: list[Any] = []

    def data(epoch: int, message: Any, version: int = 0) -> None:
        offset = len(batches)
        batches.append(with_records(offset, T0_MS + offset * 1000, epoch, [record_value(message, version)]))

    def control(epoch: int, leader: int) -> None:
        offset = len(batches)
        batches.append(with_leader_change_message(offset, T0_MS + offset * 1000, epoch, leader_change(leader)))

    control(1, 1)                                                                          # 0
    data(1, FeatureLevelRecord(name="metadata.version", feature_level=21))                # 1
    for broker in (4, 5, 6):                                                               # 2, 3, 4: epochs 2, 3, 4
        data(1, RegisterBrokerRecord(broker_id=broker, incarnation_id=uuid.UUID(int=broker), broker_epoch=broker - 2,
                                     end_points=(), features=(), rack=None), 3)
    for broker in (4, 5, 6):                                                               # 5, 6, 7
        data(1, BrokerRegistrationChangeRecord(broker_id=broker, broker_epoch=broker - 2, fenced=-1), 1)
    data(1, TopicRecord(name="foo", topic_id=TOPIC_ID))                                    # 8
    data(1, PartitionRecord(partition_id=0, topic_id=TOPIC_ID, replicas=(4, 5, 6), isr=(4, 5, 6), removing_replicas=(),
                            adding_replicas=(), leader=5, leader_recovery_state=0, leader_epoch=0, partition_epoch=0),
         1)                                                                                # 9
    for _ in range(4):
        data(1, NoOpRecord())                                                              # 10-13
    control(2, 2)                                                                          # 14
    for _ in range(5):
        data(2, NoOpRecord())                                                              # 15-19
    data(2, BrokerRegistrationChangeRecord(broker_id=5, broker_epoch=3, fenced=1), 1)      # 20
    data(2, PartitionChangeRecord(partition_id=0, topic_id=TOPIC_ID, isr=(4, 6), leader=4))  # 21
    data(2, NoOpRecord())                                                                  # 22
    return batches


def broker_spans(node: int, states: list[tuple[str, str, int, int]], last_ms: int | None = None) -> str:
    """The lifecycle manager's queue events that changed the broker's state ((from, to, broker epoch, at ms)), its
    startup span, and an idle queue turn at `last_ms` (its last span)."""
    lines = []
    for i, (old, new, epoch, at_ms) in enumerate(states):
        at = T0 + at_ms * MS
        lines.append(span_line(f"broker-{node}", PIDS[node], "KafkaEventQueue.EventHandler.handleEvents", at, at + MS,
                               [(at, "broker.state.change", {"kafka.broker.id": node, "kafka.broker.state.from": old,
                                                             "kafka.broker.state.to": new,
                                                             "kafka.broker.epoch": epoch})],
                               step="KR.queue", trace=100 * node + i, span=100 * node + i))
    lines.append(span_line(f"broker-{node}", PIDS[node], "BrokerServer.startup", T0 + (states[0][3] - 100) * MS,
                           T0 + (states[-1][3] + 2) * MS, step="KR.broker", trace=100 * node + 50,
                           span=100 * node + 50,
                           attributes={"kafka.broker.state": states[-1][1], "kafka.broker.epoch": states[-1][2]}))
    if last_ms is not None:
        lines.append(span_line(f"broker-{node}", PIDS[node], "KafkaEventQueue.EventHandler.handleEvents",
                               T0 + last_ms * MS, T0 + (last_ms + 1) * MS, step="KR.queue", trace=100 * node + 60,
                               span=100 * node + 60))
    return "".join(lines)


def broker_life(node: int) -> list[tuple[str, str, int, int]]:
    """Registered by record n-2 (its epoch), unfenced by record n+1: STARTING before, RECOVERY and RUNNING after."""
    registered, unfenced = (node - 2) * 1000, (node + 1) * 1000
    return [("NOT_RUNNING", "STARTING", -1, registered - 500), ("STARTING", "RECOVERY", node - 2, registered + 200),
            ("RECOVERY", "RUNNING", node - 2, unfenced + 200)]


def fabricate(run_dir: Path, *, brokers: bool = True) -> Path:
    run_dir.mkdir(parents=True)
    states = {1: "killed", 2: "Leader", 3: "Follower", 4: "RUNNING", 5: "killed", 6: "paused"}
    processes = [{"role": "controller" if n <= 3 else "broker", "id": n, "pid": PIDS[n], "port": 19090 + n,
                  "config": str(run_dir / f"node-{n}.properties"), "log": str(run_dir / f"node-{n}.log"),
                  "state": states[n]} for n in PIDS if n <= 3 or brokers]
    bootstrap_servers = ",".join(f"127.0.0.1:{19090 + n}" for n in (4, 5, 6)) if brokers else ""
    fake_kraft.write_manifest(run_dir, processes, bootstrap_servers=bootstrap_servers)
    controllers = {
        1: [role_span("controller-1", PIDS[1], 0, [("Unattached", "Candidate", 1, None),
                                                   ("Candidate", "Leader", 1, None)], 1, 1)],
        2: [role_span("controller-2", PIDS[2], 10, [("Unattached", "Follower", 1, 1)], 2, 2),
            role_span("controller-2", PIDS[2], 14_000, [("Follower", "Candidate", 2, None),
                                                        ("Candidate", "Leader", 2, None)], 3, 3),
            # The active controller's fencing check found broker 5 silent past its session, just before record 20
            span_line("controller-2", PIDS[2], "ReplicationControlManager.maybeFenceOneStaleBroker",
                      T0 + 19_900 * MS, T0 + 19_950 * MS, step="KR.fence", trace=40, span=41,
                      attributes={"kafka.broker.id": 5, "kafka.broker.silent.ms": 4012.5,
                                  "kafka.broker.session.timeout.ms": 4000}),
            span_line("controller-2", PIDS[2], "QuorumController.rescheduleMaybeFenceStaleBrokers",
                      T0 + 19_890 * MS, T0 + 19_960 * MS, step="KR.fence", trace=40, span=40,
                      attributes={"kafka.broker.id": 5, "kafka.broker.silent.ms": 4012.4,
                                  "kafka.broker.session.timeout.ms": 4000})],
        3: [role_span("controller-3", PIDS[3], 20, [("Unattached", "Follower", 1, 1)], 5, 5),
            role_span("controller-3", PIDS[3], 14_010, [("Follower", "Unattached", 2, None),
                                                        ("Unattached", "Follower", 2, 2)], 6, 6)],
    }
    for node, lines in controllers.items():
        (run_dir / f"controller-{node}.jsonl").write_text("".join(lines))
    if brokers:
        for node in (4, 5, 6):  # broker 5 was killed at 15.85 s, 4 s before the fencing check found it silent
            (run_dir / f"broker-{node}.jsonl").write_text(broker_spans(node, broker_life(node),
                                                                      15_850 if node == 5 else None))
    batches = metadata_log()
    write_log(quorum_log(run_dir, 1), batches[:14])  # killed before epoch 2
    write_log(quorum_log(run_dir, 2), batches)
    write_log(quorum_log(run_dir, 3), batches)
    return run_dir


def fake_describe(run_dir: Path, at: float = T0 / 1e9 + 30) -> Callable[[list[str]], Replication]:
    """Leader 2 has everything committed; controller 1 was killed 16 s before."""
    return fake_kraft.describe_by_leader_2(run_dir, at, high_watermark_of=2, voter_1_behind_ms=16_000)


@pytest.fixture
def alive(monkeypatch: pytest.MonkeyPatch) -> set[int]:
    """Which of the fabricated pids run: the reader and the quorum poller ask this table instead of the OS."""
    table = set(ALIVE)
    monkeypatch.setattr(reader, "process_alive", lambda pid: pid in table)
    monkeypatch.setattr(quorum, "process_alive", lambda pid: pid in table)
    return table


@pytest.fixture
def kraft_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, alive: set[int]) -> Path:
    run_dir = fabricate(tmp_path / "run")
    monkeypatch.setattr(quorum, "describe_quorum", fake_describe(run_dir))
    return run_dir


def model_of(run_dir: Path, records_first: bool = False) -> tuple[QuorumModel, list[str]]:
    """The quorum model fed as the app feeds it: the manifest, every span file, the dead brokers, one poll."""
    logged: list[tuple[int, str]] = []
    model = QuorumModel(add_log=lambda t, _i, text, _level: logged.append((t, text)))
    model.observe_manifest(json.loads((run_dir / "manifest.json").read_text()))
    poll = QuorumPoller(run_dir, describe=fake_describe(run_dir)).poll()
    if records_first:
        model.observe_poll(poll)
    for path in sorted(run_dir.glob("*.jsonl"), reverse=not records_first):
        model.observe_ended(list(read_span_file(path)))
    model.observe_dead({f"broker-{n}" for n in (4, 5, 6) if PIDS[n] not in ALIVE})
    if not records_first:
        model.observe_poll(poll)
    return model, [text for _, text in sorted(logged)]


# -- the model --------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("records_first", [False, True])
def test_each_broker_is_fenced_or_not_with_its_epoch_state_and_fate(kraft_run: Path, records_first: bool) -> None:
    model, logged = model_of(kraft_run, records_first)
    brokers = model.brokers.brokers
    assert sorted(brokers) == [4, 5, 6] and sorted(model.voters) == [1, 2, 3]
    seen = {n: (b.registration, b.epoch, b.status, b.state, b.pid) for n, b in brokers.items()}
    assert seen == {4: ("unfenced", 2, "RUNNING", "RUNNING", PIDS[4]),
                    5: ("fenced", 3, "killed", "RUNNING", PIDS[5]),  # the state it was killed in
                    6: ("unfenced", 4, "paused", "RUNNING", PIDS[6])}
    assert model.brokers.unfenced == [4, 6] and model.brokers.fenced == [5]
    assert model.brokers.topics == ["foo"]
    # The Log pane's story of broker 5, in time order, whichever source came first
    five = [text for text in logged if "broker 5" in text]
    assert five == [
        "broker 5: NOT_RUNNING → STARTING",
        "broker 5 registered, broker epoch 3 (offset 3), fenced",
        "broker 5: STARTING → RECOVERY, broker epoch 3 (registered: fenced while it catches up)",
        "broker 5 unfenced, committed (offset 6)",
        "broker 5: RECOVERY → RUNNING",
        f"broker 5 (pid {PIDS[5]}) killed in RUNNING: the controller fences it once its session times out",
        "controller 2 fences broker 5: no heartbeat for 4,012 ms (broker.session.timeout.ms 4,000)",
        "broker 5 fenced, committed (offset 20)",
    ]


def test_the_newest_fact_wins_and_a_broker_only_the_records_name_is_not_a_process(tmp_path: Path) -> None:
    brokers = KRaftBrokers()
    brokers.observe_manifest({"processes": [{"role": "broker", "id": 4, "pid": 1, "state": "RUNNING"}]})

    def state(to: str, at_ms: int, epoch: int = 7) -> SpanRecord:
        return SpanRecord("t", f"s{at_ms}", "", "KafkaEventQueue.EventHandler.handleEvents", at_ms * MS,
                          at_ms * MS + 1, {}, {"service.instance.id": "broker-4", "process.pid": 1},
                          [SpanEvent("broker.state.change", at_ms * MS, {"kafka.broker.state.to": to,
                                                                          "kafka.broker.epoch": epoch})])

    def record(offset: int, at_ms: int, change: BrokerChange, kind: str) -> MetadataEntry:
        return MetadataEntry(offset, 1, at_ms, kind, broker=change)

    brokers.observe_ended([state("RUNNING", 100)])
    assert brokers.brokers[4].registration == "unfenced"
    # A record older than the broker's own word does not undo it; a newer one does.
    brokers.observe_records([record(9, 50, BrokerChange(4, 7, fenced=True), "BROKER_REGISTRATION_CHANGE_RECORD")])
    assert brokers.brokers[4].registration == "unfenced"
    brokers.observe_records([record(10, 200, BrokerChange(4, 7, controlled_shutdown=True),
                                    "BROKER_REGISTRATION_CHANGE_RECORD")])
    assert brokers.brokers[4].registration == "shutdown"  # unfenced, leaderships moving away
    brokers.observe_records([record(11, 300, BrokerChange(4, 7, fenced=True), "BROKER_REGISTRATION_CHANGE_RECORD")])
    assert brokers.brokers[4].registration == "fenced"
    # Re-registered (a new process): a new epoch, fenced, no longer in controlled shutdown; RUNNING unfences it.
    brokers.observe_records([record(40, 400, BrokerChange(4, 40, fenced=True, controlled_shutdown=False),
                                    "REGISTER_BROKER_RECORD")])
    assert (brokers.brokers[4].registration, brokers.brokers[4].epoch) == ("fenced", 40)
    brokers.observe_ended([state("RUNNING", 500, epoch=40)])
    assert (brokers.brokers[4].registration, brokers.brokers[4].controlled_shutdown) == ("unfenced", False)
    # A broker that only the records name (not started by this run) has no process to show or act on.
    brokers.observe_records([record(50, 600, BrokerChange(9, 50, fenced=True), "REGISTER_BROKER_RECORD")])
    assert brokers.brokers[9].status == "—" and not brokers.brokers[9].running


# -- the pane in the app ----------------------------------------------------------------------------------------

async def _settled(app: KafkaEduApp, pilot: Any) -> None:
    def brokers_loaded() -> bool:
        brokers = app.quorum.brokers.brokers
        return (len(brokers) == 3 and brokers[5].registration == "fenced" and not brokers[5].alive
                and len(app.quorum_pane.rows) == 6)

    await fake_kraft.quorum_settled(app, pilot, brokers_loaded, "the quorum and the brokers to load")


def test_the_brokers_are_listed_under_the_voters(kraft_run: Path) -> None:
    async def scenario() -> None:
        app = KafkaEduApp(kraft_run, watch=True)
        async with app.run_test(size=(160, 45)) as pilot:
            await _settled(app, pilot)
            rows = row_texts(app.quorum_pane)
            assert [row.split()[0 if row.startswith("  ") else 1] for row in rows[:6]] == \
                ["c1", "c2", "c3", "b4", "b5", "b6"]
            assert rows[3].split()[:4] == ["b4", "unfenced", "e2", "RUNNING"] and f"pid {PIDS[4]}" in rows[3]
            assert rows[4].split()[:4] == ["b5", "fenced", "e3", "killed"] and "was RUNNING" in rows[4]
            assert rows[5].split()[:4] == ["b6", "unfenced", "e4", "paused"]
            assert app.quorum_pane.border_subtitle.startswith("brokers: 2 unfenced, fenced b5")
            log = [entry.text for entry in app.model.log]
            assert "controller 2 fences broker 5: no heartbeat for 4,012 ms (broker.session.timeout.ms 4,000)" in log
    run(scenario)


def test_the_fault_keys_act_on_the_broker_under_the_cursor_and_say_why_not(kraft_run: Path) -> None:
    async def scenario() -> None:
        async with fake_kraft.with_recording_control(kraft_run, (160, 45), _settled) as (app, pilot, calls):
            app.quorum_pane.focus()
            await pilot.press("j", "j", "j")  # b4
            assert app.quorum_pane.selected_node == 4 and app.quorum_pane.selected_voter is None
            await pilot.press("x")
            await wait_for(pilot, lambda: calls, what="the kill")
            assert calls == [("kill", (4,))]
            assert any("kill -9 broker 4" in str(n.message) for n in app._notifications)
            await pilot.press("j", "x")  # b5 was killed: said, not attempted
            await wait_for(pilot, lambda: any("broker 5 is not running (killed); r starts it" in str(n.message)
                                              for n in app._notifications), what="the refusal")
            assert len(calls) == 1
            await pilot.press("r")  # starts it, no stop first: it does not run
            await wait_for(pilot, lambda: len(calls) == 2, what="the start")
            assert calls[1] == ("start", (5,))
            await pilot.press("j", "p")  # b6 is paused: p resumes it
            await wait_for(pilot, lambda: len(calls) == 3, what="the resume")
            assert calls[2] == ("resume", (6,))
            await pilot.press("k", "k", "k", "p")  # back on c3: the controllers still answer to the same keys
            await wait_for(pilot, lambda: len(calls) == 4, what="the pause")
            assert calls[3] == ("pause", (3,))
    run(scenario)


def test_c_and_P_go_through_the_brokers(kraft_run: Path) -> None:
    answers = {"produce_burst": 1000}  # the messages the burst had acknowledged

    async def scenario() -> None:
        async with fake_kraft.with_recording_control(kraft_run, (160, 45), _settled, answers) as (app, pilot, calls):
            app.refresh_bindings()
            await pilot.press("c")
            await wait_for(pilot, lambda: isinstance(app.screen, CreateTopicScreen), what="the create-topic dialog")
            assert app.screen.query_one("#replication").value == "3"  # three brokers
            await pilot.press(*"orders", "enter")
            await wait_for(pilot, lambda: calls, what="the topic's creation")
            assert calls == [("create_topic", ("orders", 3, 3))]
            await pilot.press("P")  # the newest committed topic: foo
            await wait_for(pilot, lambda: len(calls) == 2, what="the produce burst")
            assert calls[1] == ("produce_burst", ("foo", 1000))
            await wait_for(pilot, lambda: any("produce 1000 messages to foo: done (1000)" in str(n.message)
                                              for n in app._notifications), what="the burst's result")
    run(scenario)


def test_a_run_of_controllers_only_says_c_needs_brokers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                        alive: set[int]) -> None:
    run_dir = fabricate(tmp_path / "run", brokers=False)
    monkeypatch.setattr(quorum, "describe_quorum", fake_describe(run_dir))

    async def scenario() -> None:
        app = KafkaEduApp(run_dir, watch=True)
        async with app.run_test(size=(120, 40)) as pilot:
            await wait_for(pilot, lambda: app.control is not None and app.quorum.records, what="the run to load")
            assert "controllers only, and topics live on brokers" in app.refusal("create_topic")
            # The records name brokers 4-6, which this run never started: no process to act on
            await wait_for(pilot, lambda: len(app.quorum_pane.rows) == 6, what="the brokers the records name")
            app.quorum_pane.focus()
            await pilot.press("G", "x")
            await wait_for(pilot, lambda: any("broker 6 is not one of this run's processes" in str(n.message)
                                              for n in app._notifications), what="the refusal")
    run(scenario)


def test_records_remove_a_deleted_topic_from_the_topics_P_produces_to() -> None:
    brokers = KRaftBrokers()
    brokers.observe_records([MetadataEntry(1, 1, 0, "TOPIC_RECORD", topic="a"),
                             MetadataEntry(2, 1, 0, "TOPIC_RECORD", topic="b"),
                             MetadataEntry(3, 1, 0, "REMOVE_TOPIC_RECORD", topic="b")])
    assert brokers.topics == ["a"]


def test_the_decoder_names_the_topic_of_a_removal(tmp_path: Path) -> None:
    batches = [with_records(0, T0_MS, 1, [record_value(TopicRecord(name="gone", topic_id=TOPIC_ID))]),
               with_records(1, T0_MS, 1, [record_value(RemoveTopicRecord(topic_id=TOPIC_ID))])]
    write_log(tmp_path / "log", batches)
    tail = MetadataLogTail(tmp_path / "log")
    decoder = quorum.MetadataRecordDecoder()
    entries = [e for batch in tail.read() for e in decoder.entries(batch, 0)]
    assert [(e.kind, e.topic) for e in entries] == [("TOPIC_RECORD", "gone"), ("REMOVE_TOPIC_RECORD", "gone")]


# -- snapshots (look at the PNG before accepting one) -----------------------------------------------------------

@pytest.mark.parametrize("size", [(160, 45), (80, 24)])
def test_snapshot_of_the_quorum_and_its_brokers(kraft_run: Path, size: tuple[int, int]) -> None:
    async def steps(app: KafkaEduApp, pilot: Any) -> None:
        await _settled(app, pilot)
        app.quorum_pane.focus()
        await pilot.press("j", "j", "j", "j")  # b5, the killed one
        await fake_kraft.still_screen(app, pilot)
        assert any("b5" in line for line in screen_lines(app))

    fake_kraft.utc_snapshot(kraft_run, f"kraft_brokers_{size[0]}x{size[1]}", size, steps)


# -- the key bar ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("size", [(80, 24), (160, 45)])
def test_every_key_the_key_bar_shows_is_whole_and_none_runs_into_another(kraft_run: Path,
                                                                         size: tuple[int, int]) -> None:
    """A live run has ten keys and the command palette's: at 80 columns Textual's Footer ran them on under the
    palette's key (`P ▏^p paletter`). Each key shown is whole, inside the screen, after the one before it; those left
    out are the least needed (tui.widgets.footer.KEEP_ORDER), never `?`."""
    async def scenario() -> None:
        app = KafkaEduApp(kraft_run, watch=True)
        async with app.run_test(size=size) as pilot:
            await _settled(app, pilot)
            await wait_for(pilot, lambda: app.control is not None and any(
                key.action == "kill" for key in app.query("FooterKey")), what="the action keys in the key bar")
            # the key bar refits after the keys arrive: wait until every key shown has been laid out
            await wait_for(pilot, lambda: all(key.region.width > 0 for key in app.query("FooterKey")),
                           what="the key bar laid out")
            keys = sorted(app.query("FooterKey"), key=lambda key: key.region.x)
            bottom = screen_lines(app)[-1]
            for key in keys:
                label = f"{key.key_display} {key.description}"
                assert key.region.width >= len(label) and key.region.right <= size[0], label
                assert label in bottom, (label, bottom)
            for before, after in zip(keys, keys[1:], strict=False):
                assert before.region.right <= after.region.x, (before.description, after.description)
            actions = [key.action for key in keys]
            assert {"help", "quit", "kill", "stop", "restart", "pause", "create_topic", "produce"} <= set(actions)
            if size[0] >= 160:
                assert {"search", "breakpoint", "command_palette"} <= set(actions)
    run(scenario)


def test_the_key_bar_leaves_out_the_least_needed_keys_first() -> None:
    from types import SimpleNamespace

    from tui.widgets.footer import fitted, key_width

    def key(action: str, display: str, description: str) -> Any:
        return SimpleNamespace(action=action, key_display=display, description=description)

    keys = [key("quit", "q", "Quit"), key("help", "?", "Help"), key("search", "/", "Search"),
            key("kill", "x", "Kill -9"), key("continue_paused", "c", "Continue"), key("next_step", "n", "Next step"),
            key("lesson_do", "d", "Lesson does it"), key("breakpoint", "b", "Break"),
            key("command_palette", "^p", "palette")]
    assert fitted(keys, 200) == keys
    assert [k.action for k in fitted(keys, 64)] == ["quit", "help", "kill", "continue_paused", "next_step",
                                                     "lesson_do"]
    # narrower: what a paused broker and the lesson wait for stays, the node's keys go
    assert [k.action for k in fitted(keys, 60)] == ["quit", "help", "continue_paused", "next_step", "lesson_do"]
    assert sum(key_width(k) for k in fitted(keys, 60)) <= 60
    assert [k.action for k in fitted(keys, 5)] == ["help"]  # however narrow
