"""The TUI's model without a screen: tailing files, the bounded store, Jaeger's critical path, the explanations."""

from __future__ import annotations

import gzip
import json
import re
from pathlib import Path

import pytest

from kafka_edu.tracing.query import SpanEvent, SpanRecord
from kafka_edu.tracing.steps import KAFKA_3_9, STEPS
from tui.critical_path import Section, critical_path
from tui.explanations import ROWS
from tui.reader import FileTail, GzipTail, RunReader
from tui.source import function_region, step_line
from tui.store import SpanStore, is_background


def span(span_id: str, parent: str, start: int, end: int, trace: str = "t1", name: str = "") -> SpanRecord:
    return SpanRecord(trace_id=trace, span_id=span_id, parent_id=parent, name=name or span_id, start_ns=start,
                      end_ns=end, attributes={}, resource={"service.instance.id": "broker-0"})


# -- critical path ------------------------------------------------------------------------------------------------


def test_critical_path_follows_the_last_finishing_child_and_returns_to_the_parent() -> None:
    # root 0..100; a 10..40; b 30..80 (finishes last); c 50..70 under b; d 5..20 finishes before b starts
    spans = [span("root", "", 0, 100), span("a", "root", 10, 40), span("b", "root", 30, 80),
             span("c", "b", 50, 70), span("d", "root", 5, 20)]
    assert critical_path(spans, "root", now_ns=100) == [
        Section("root", 80, 100), Section("b", 70, 80), Section("c", 50, 70), Section("b", 30, 50),
        # back in root before b started at 30: only children that ended before 30 count, so d (ends 20)
        Section("root", 20, 30), Section("d", 5, 20), Section("root", 0, 5)]


def test_critical_path_clips_children_that_overflow_their_parent_and_runs_running_spans_to_now() -> None:
    spans = [span("root", "", 0, 0), span("late", "root", 50, 0), span("outside", "root", 500, 600)]
    sections = critical_path(spans, "root", now_ns=100)
    assert sections == [Section("late", 50, 100), Section("root", 0, 50)]


# -- store --------------------------------------------------------------------------------------------------------


def test_a_start_then_its_end_is_one_span_and_no_longer_running() -> None:
    store = SpanStore()
    store.add_started([span("r", "", 0, 0)])
    assert store.traces["t1"].running == 1
    store.add_ended([span("r", "", 0, 10)])
    assert len(store) == 1 and store.traces["t1"].running == 0
    store.add_started([span("r", "", 0, 0)])  # a late start of an ended span changes nothing
    assert store.traces["t1"].spans["r"].end_ns == 10


def test_eviction_drops_the_oldest_whole_traces_and_ignores_their_late_spans() -> None:
    store = SpanStore(max_spans=10)
    for t in range(5):
        store.add_ended([span(f"s{t}{i}", "" if i == 0 else f"s{t}0", t * 100 + i, t * 100 + 50, trace=f"t{t}")
                         for i in range(3)])
    assert len(store) <= 10
    assert list(store.traces) == ["t2", "t3", "t4"]
    assert all(len(trace.spans) == 3 for trace in store)  # never half a trace
    store.add_ended([span("late", "s00", 5, 6, trace="t0")])
    assert "t0" not in store.traces
    assert sum(len(g) for g in store.groups.values()) == 3


def test_eviction_keeps_a_trace_that_is_still_running() -> None:
    store = SpanStore(max_spans=10)
    store.add_started([span("wait", "", 0, 0, trace="life", name="KafkaServer.awaitShutdown")])
    for t in range(5):
        store.add_ended([span(f"s{t}{i}", "" if i == 0 else f"s{t}0", t * 100 + i, t * 100 + 50, trace=f"t{t}")
                         for i in range(3)])
    assert list(store.traces)[0] == "life"  # the oldest, but its span has not ended
    assert len(store) <= 10
    store.add_ended([span("wait", "", 0, 900, trace="life", name="KafkaServer.awaitShutdown")])
    assert store.traces["life"].running == 0


def test_a_process_restart_makes_the_previous_processes_running_spans_lost() -> None:
    store = SpanStore()
    store.add_started([span("wait", "", 10, 0, trace="a", name="KafkaServer.awaitShutdown")])
    assert not store.is_lost(store.traces["a"].spans["wait"])
    store.add_started([span("main", "", 500, 0, trace="b", name="Kafka.main")])
    assert store.is_lost(store.traces["a"].spans["wait"])
    assert not store.is_lost(store.traces["b"].spans["main"])


# -- reader -------------------------------------------------------------------------------------------------------


def test_a_tail_reads_only_whole_lines_and_starts_over_after_truncation(tmp_path: Path) -> None:
    path = tmp_path / "broker-0.jsonl"
    path.write_bytes(b"one\ntw")
    tail = FileTail(path)
    assert tail.read_lines(1 << 20) == ["one"]
    with open(path, "ab") as f:
        f.write(b"o\nthree\n")
    assert tail.read_lines(1 << 20) == ["two", "three"]
    path.write_bytes(b"new\n")
    assert tail.read_lines(1 << 20) == ["new"] and tail.resets == 1


def test_a_compressed_span_file_is_read_in_pieces_to_its_last_line(tmp_path: Path) -> None:
    path = tmp_path / "broker-0.jsonl.gz"
    path.write_bytes(gzip.compress(b"one\ntwo\nthree"))  # the last line without its newline
    tail = GzipTail(path)
    assert tail.read_lines(5) == ["one"]
    assert tail.read_lines(1 << 20) == ["two"]
    assert tail.read_lines(1 << 20) == ["three"] and tail.done
    assert tail.read_lines(1 << 20) == []


def test_a_recorded_lesson_sample_replays_from_its_compressed_files() -> None:
    sample = Path(__file__).resolve().parents[2] / "traces" / "samples" / "lesson-rebalance-without-stopping"
    reader = RunReader(sample)
    ended = []
    for _ in range(1000):
        batch = reader.poll()
        if not batch.ended:
            break
        ended.extend(batch.ended)
    assert any(s.step == "GC.hb" for s in ended) and reader.finished
    assert "no span files yet" not in reader.problems()


def test_the_reader_turns_starts_and_ends_into_spans_and_knows_a_finished_run(tmp_path: Path) -> None:
    (tmp_path / "manifest.json").write_text(json.dumps({"run_id": "r", "stopped_at": "now", "processes": [
        {"role": "broker", "id": 0, "pid": 1}]}))
    (tmp_path / "broker-0.starts.jsonl").write_text(json.dumps({
        "traceId": "a" * 32, "spanId": "b" * 16, "parentSpanId": "", "name": "KafkaServer.startup",
        "startTimeUnixNano": "5", "attributes": {"kafka.step": "LC.main.4"}}) + "\n")
    batch = RunReader(tmp_path).poll()
    assert [s.name for s in batch.started] == ["KafkaServer.startup"]
    assert batch.started[0].instance == "broker-0" and batch.started[0].step == "LC.main.4"
    assert batch.dead == {"broker-0"}  # the run has stopped


# -- explanations -------------------------------------------------------------------------------------------------


def listed_names(span: str) -> set[str]:
    """The names a row's span lists: `A.b / c → D.e` is A.b, A.c and D.e (a bare method is of the class before it);
    `x (event)` is the event x; a parenthesised aside after the names is none."""
    if span.endswith(" (event)"):
        return {span.removesuffix(" (event)")}
    names: set[str] = set()
    owner = ""
    for part in re.split(r" / | → ", re.sub(r" \(.*\)$", "", span)):
        name = part if "." in part else f"{owner}.{part}"
        owner = name.rsplit(".", 1)[0]
        names.add(name)
    return names


def test_listed_names_reads_alternatives_chains_and_events() -> None:
    assert listed_names("KafkaRaftClient.pollFollowerAsVoter → maybeSendUpdateVoterRequest → "
                        "UpdateVoterHandler.handleUpdateVoterRequest") == {
        "KafkaRaftClient.pollFollowerAsVoter", "KafkaRaftClient.maybeSendUpdateVoterRequest",
        "UpdateVoterHandler.handleUpdateVoterRequest"}
    assert listed_names("CoordinatorLoaderImpl.load / doLoad") == {"CoordinatorLoaderImpl.load",
                                                                   "CoordinatorLoaderImpl.doLoad"}
    assert listed_names("QuorumController.createTopics (and registerBroker, ...)") == {"QuorumController.createTopics"}
    assert listed_names("txn.state.change (event)") == {"txn.state.change"}


def test_every_step_the_port_emits_is_explained_under_the_span_it_emits() -> None:
    # the detail pane and the site's player must never say "no explanation" for a span the port can emit
    assert [step for step in STEPS if step not in ROWS] == []
    assert all(row.why for row in ROWS.values())
    # the row names the span STEPS emits: as its span, one of the names it lists, or as its event
    wrong = {step: (ROWS[step].span, spec.span_name, spec.event) for step, spec in STEPS.items()
             if spec.span_name not in listed_names(ROWS[step].span)
             and not (spec.event and listed_names(ROWS[step].span) == {spec.event})}
    assert wrong == {}


def test_the_le_tx_gc_tx39_kv_rows_have_fidelity_s_spans_and_the_3_9_ones_say_what_1_0_2_did() -> None:
    sections = ("LE", "TX", "GC", "TX39", "KV")
    rows = {step: row for step, row in ROWS.items() if step.split(".")[0] in sections}
    assert {step.split(".")[0] for step in rows} == set(sections)
    assert all("1.0.2" in row.why for step, row in rows.items() if STEPS[step].version == KAFKA_3_9), \
        [step for step, row in rows.items() if STEPS[step].version == KAFKA_3_9 and "1.0.2" not in row.why]
    fidelity = Path(__file__).resolve().parents[3] / "shared" / "FIDELITY.md"  # beside the repository
    if not fidelity.exists():
        pytest.skip("the FIDELITY contract lives outside the repository; the spans were checked against STEPS above")
    spans = {step: re.sub(r"^\*event\* `([^`]+)`$", r"\1 (event)", span).replace("`", "")
             for step, span in re.findall(r"^\| ((?:LE|TX|GC|TX39|KV)\.[\w.]+) \| (.*?) \|", fidelity.read_text(),
                                          re.MULTILINE)}
    assert spans.keys() == rows.keys()
    assert {step: row.span for step, row in rows.items()} == spans


def test_every_rq_and_cl_step_is_explained_under_its_own_span_name() -> None:
    # a KRaft broker's request path and cleaner: the detail pane must never say "no explanation" for them
    rows = {step: spec for step, spec in STEPS.items() if step.split(".")[0] in ("RQ", "CL")}
    assert {step for step in rows if step.startswith("RQ.")} >= {"RQ.net.7", "RQ.produce.1", "RQ.fetch.1", "RQ.isr"}
    assert set(rows) - set(ROWS) == set()
    assert {step: ROWS[step].span for step in rows} == {step: spec.span_name for step, spec in rows.items()}
    assert all("1.0.2" in ROWS[step].why for step in rows if step.startswith("RQ."))  # each says what 1.0.2 did


def test_every_lc_nw_ct_rq_cl_row_of_fidelity_is_explained() -> None:
    fidelity = Path(__file__).resolve().parents[3] / "shared" / "FIDELITY.md"  # beside the repository
    if not fidelity.exists():
        pytest.skip("the FIDELITY contract lives outside the repository; the steps test above still runs")
    ids = set(re.findall(r"^\| ((?:LC|NW|CT|RQ|CL)\.[\w.]+) \|", fidelity.read_text(), re.MULTILINE))
    ids |= {f"LC.shutdown.{n:02d}" for n in range(1, 22)}  # the shutdown rows are a numbered paragraph
    assert ids - set(ROWS) == set()


def test_the_controller_s_partition_state_changes_name_the_leaders_of_new_partitions() -> None:
    from kafka_edu.tracing.query import SpanEvent
    from tui.cluster import ClusterModel

    controller = span("psm", "", 0, 10)
    controller.attributes["kafka.broker.id"] = 0
    controller.events = [SpanEvent("partition.state.change", 5, {"kafka.topic": "t", "kafka.partition": p,
                                                                  "from": "NewPartition", "to": "OnlinePartition",
                                                                  "kafka.leader": p % 2}) for p in range(3)]
    model = ClusterModel()
    model.observe_ended([controller])
    assert (model.leads(0), model.leads(1)) == (2, 1)
    assert model.topics == ["t"]


# -- where a span's code is now -----------------------------------------------------------------------------------

SOURCE = tuple('''class KafkaServer:
    def startup(self) -> None:
        self.log.info("starting")

        with step("LC.startup.07"):
            self.stats = Stats()

        with step("LC.startup.08"):
            self.log_manager = self.create_log_manager()
            self.log_manager.startup()

    def shutdown(self) -> None:
        with step("LC.startup.08"):  # the same id elsewhere (never in the real code; here to tell them apart)
            pass

    @step("CT.elect")
    def elect(
        self,
    ) -> None:
        self.zk.create("/controller")
        self.won = True
'''.splitlines())


def test_a_span_recorded_before_the_code_moved_finds_its_step_line_again() -> None:
    assert step_line(SOURCE, 8, "LC.startup.08", "KafkaServer.startup") == 8  # as recorded
    assert step_line(SOURCE, 4, "LC.startup.08", "KafkaServer.startup") == 8  # lines added above it since
    assert step_line(SOURCE, 14, "LC.startup.08", "KafkaServer.startup") == 8  # the one inside its function
    assert step_line(SOURCE, 14, "LC.startup.08", "KafkaServer.shutdown") == 13
    assert step_line(SOURCE, 2, "CT.elect", "KafkaServer.elect") == 16  # a decorated method: its decorator
    # A marker named only in the tracing tables: the recorded line while it is in its function, else the function.
    assert step_line(SOURCE, 20, "KafkaController.elect", "KafkaServer.elect") == 20
    assert step_line(SOURCE, 3, "KafkaController.elect", "KafkaServer.elect") == 16
    assert step_line(SOURCE, 3, "Nowhere.atAll", "Nowhere.at_all") == 3
    assert function_region(SOURCE, 1, "KafkaServer.elect") == (16, 21)
    assert function_region(SOURCE, 1, "KafkaServer.startup") == (2, 10)


# -- background traffic -------------------------------------------------------------------------------------------


def root(name: str, **attributes: object) -> SpanRecord:
    return SpanRecord(trace_id=name, span_id="r", parent_id="", name=name, start_ns=1, end_ns=2,
                      attributes=attributes, resource={"service.instance.id": "broker-0"})


def test_background_traffic_is_replica_fetching_processor_loops_and_followers_fetches() -> None:
    assert is_background(root("AbstractFetcherThread.processFetchRequest"))
    assert is_background(root("AbstractFetcherThread.maybeTruncate"))
    assert is_background(root("Processor.poll"))
    assert is_background(root("RequestChannel.Request", **{"kafka.api.name": "Fetch",
                                                          "kafka.client.id": "broker-2-fetcher-0"}))
    assert is_background(root("RequestChannel.sendResponse", **{"thread.name": "ExpirationReaper-1-Fetch"}))
    # 3.9: a long-poll fetch that waited out its time is read again on the Fetch purgatory's timer thread
    assert is_background(root("Partition.fetchRecords", **{"thread.name": "executor-Fetch"}))
    assert not is_background(root("Partition.fetchRecords", **{"thread.name": "data-plane-kafka-request-handler-0"}))
    # a consumer's fetch, a produce, a new connection, the controller: not background
    assert not is_background(root("RequestChannel.Request", **{"kafka.api.name": "Fetch",
                                                              "kafka.client.id": "rdkafka"}))
    assert not is_background(root("RequestChannel.Request", **{"kafka.api.name": "Produce",
                                                              "kafka.client.id": "broker-2-fetcher-0"}))
    assert not is_background(root("Acceptor.accept"))
    assert not is_background(root("RequestChannel.sendResponse", **{"thread.name": "kafka-request-handler-0"}))
    assert not is_background(root("ControllerEventManager.process"))
    assert not is_background(root("Partition.maybeShrinkIsr"))


def test_a_background_trace_with_an_error_or_lost_records_stays_in_the_list() -> None:
    store = SpanStore()
    store.add_ended([root("AbstractFetcherThread.processFetchRequest")])
    fetch = store.traces["AbstractFetcherThread.processFetchRequest"]
    assert fetch.background and fetch.folded
    truncate = root("AbstractFetcherThread.maybeTruncate")
    child = SpanRecord(trace_id=truncate.trace_id, span_id="c", parent_id="r", name="Log.truncateTo", start_ns=1,
                       end_ns=2, attributes={}, resource={"service.instance.id": "broker-0"},
                       events=[SpanEvent("records.truncated", 2, {"kafka.records.lost": 3})])
    store.add_ended([truncate, child])
    assert store.traces[truncate.trace_id].records_lost == 3 and not store.traces[truncate.trace_id].folded
    failed = root("Processor.poll")
    failed.status_code = 2
    store.add_ended([failed])
    assert not store.traces["Processor.poll"].folded


def _span(trace: str, span_id: str, parent: str, name: str, instance: str, at: int,
          events: list[SpanEvent] | None = None) -> SpanRecord:
    return SpanRecord(trace_id=trace, span_id=span_id, parent_id=parent, name=name, start_ns=at, end_ns=at + 1,
                      attributes={}, resource={"service.instance.id": instance}, events=events or [])


def test_kraft_chatter_is_folded_and_a_trace_that_did_something_is_not() -> None:
    store = SpanStore()
    # A follower's fetch of the leader's NoOp: the answer, the append, the listener's queue turn (children first)
    store.add_ended([_span("noop", "a", "r", "KafkaMetadataLog.appendAsFollower", "controller-1", 2),
                     _span("noop", "q", "r", "KafkaEventQueue.enqueue", "controller-1", 3),
                     _span("noop", "r", "", "KafkaRaftClient.handleFetchResponse", "controller-1", 1)])
    # A running broker's heartbeat turn that said nothing new
    store.add_ended([_span("beat", "r", "", "KafkaEventQueue.EventHandler.handleEvents", "broker-4", 1)])
    # The same fetch carrying a TopicRecord: committed and replayed on the standby
    store.add_ended([_span("topic", "a", "r", "KafkaMetadataLog.appendAsFollower", "controller-1", 2),
                     _span("topic", "c", "r", "QuorumController.replay", "controller-1", 3),
                     _span("topic", "r", "", "KafkaRaftClient.handleFetchResponse", "controller-1", 1)])
    # A poll whose span holds a role change (an election), and a heartbeat turn that changed the broker's state
    store.add_ended([_span("elect", "r", "", "KafkaRaftClient.poll", "controller-2", 1,
                           [SpanEvent("raft.role.change", 1, {"kafka.raft.role.to": "Candidate"})])])
    store.add_ended([_span("state", "r", "", "KafkaEventQueue.EventHandler.handleEvents", "broker-4", 1,
                           [SpanEvent("broker.state.change", 1, {"kafka.broker.state.to": "RUNNING"})])])
    folded = {t.trace_id for t in store if t.folded}
    assert folded == {"noop", "beat"}
    # A broker's queue turns are its lifecycle, not the quorum controller's; the controllers' stay theirs
    assert set(store.kinds()) >= {"raft", "broker lifecycle"}
    assert ("broker lifecycle", "state") in {(kind, t) for kind in store.kinds() for t in store.newest_first(kind)}


# -- the status line ----------------------------------------------------------------------------------------------


def test_the_status_line_shortens_then_leaves_out_parts_rather_than_cut_one() -> None:
    """At 80 columns the sampling policy ran off the edge mid-sentence ("request traces: all up to 100/s"): a part
    takes its short form, or goes if it may, from the line's end; what must stay (the run, a problem) stays."""
    from tui.app import StatusPart, fit_status

    run = StatusPart("20261129-122039-3b8a · live · 11,964 spans", keep=True)
    policy = StatusPart("request traces: all up to 100/s per kind, then 1 in 10, slow ≥ 100 ms and failed always",
                        "request traces sampled")
    evicted = StatusPart("1,204 old traces evicted", "1,204 evicted")
    problem = StatusPart("[red]broker-0.jsonl: last line cut off[/]", keep=True)
    assert fit_status([run, policy], 160) == f"{run.text} · {policy.text}"
    assert fit_status([run, policy], 78) == f"{run.text} · request traces sampled"
    assert fit_status([run, evicted, policy], 66) == f"{run.text} · 1,204 evicted"
    assert fit_status([run, evicted, policy, problem], 60) == f"{run.text} · {problem.text}"  # may run past the edge
