"""Our own test code, not a Kafka port: the TUI's Groups view (consumer groups from the GC spans, and from the brokers'
ListGroups / ConsumerGroupDescribe / DescribeGroups on a live run) and its Voters view (KIP-853's voter set as it
changes, from the KV spans), on the KRaft run test_quorum fabricates, with a broker's GC spans and the controllers'
KV spans added here."""

from __future__ import annotations

import json
import os
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from kafka_edu.tracing.query import read_span_file
from kafka_edu.v3_9.clients.common.protocol.api_keys import ApiKeys
from tests.tui import fake_kraft
from tests.tui.fake_kraft import MS, T0, role_span, run
from tests.tui.helpers import row_texts, wait_for
from tests.tui.test_quorum import fabricate_run, fake_describe
from tui import groups, quorum
from tui.app import KafkaEduApp
from tui.groups import GroupsModel, GroupsPoller, compact_partitions
from tui.quorum import QuorumModel

A = "aaaa1111-member-a"
B = "bbbb2222-member-b"
C = "cccc3333-member-c"
CLASSIC_MEMBER = "rdkafka-0f0e1d2c-3b4a-4c5d-8e9f-0a1b2c3d4e5f"  # <client id>-<uuid>
DIR = {1: "kQ3xR1mNTf-q9vHhJ2kL0A", 2: "Wm7pA0bcRZ6x1yQeL4uT8g", 3: "c9Hd2sPqQw2vE5nJ8aYb3Q",
       4: "Zt4uB7nyS1uo0KfG6rXw5A"}


# -- spans as the exporter writes them, list attributes included --------------------------------------------------

def _value(value: Any) -> dict[str, Any]:
    if isinstance(value, bool):
        return {"boolValue": value}
    if isinstance(value, int):
        return {"intValue": str(value)}
    if isinstance(value, list | tuple):
        return {"arrayValue": {"values": [_value(v) for v in value]}}
    return {"stringValue": str(value)}


def span(instance: str, pid: int, name: str, step: str | None, at_ms: int, attributes: dict[str, Any],
         events: list[tuple[str, dict[str, Any]]] = (), span_id: int = 1, error: bool = False,
         trace: int | None = None) -> str:
    """One OTLP/JSON line: a span (of `step`, if any) ending 1 ms after `at_ms`, its events at its start."""
    attrs = [{"key": k, "value": _value(v)} for k, v in ({"kafka.step": step} if step else {}).items()]
    attrs += [{"key": k, "value": _value(v)} for k, v in attributes.items()]
    doc = {"resourceSpans": [{"resource": {"attributes": [
        {"key": "service.instance.id", "value": {"stringValue": instance}},
        {"key": "process.pid", "value": {"intValue": str(pid)}}]},
        "scopeSpans": [{"scope": {"name": "kafka_edu"}, "spans": [{
            "traceId": f"{trace or span_id:032x}", "spanId": f"{span_id:016x}", "parentSpanId": "", "name": name,
            "kind": 1, "startTimeUnixNano": str(T0 + at_ms * MS), "endTimeUnixNano": str(T0 + (at_ms + 1) * MS),
            "attributes": attrs, "status": {"code": 2} if error else {},
            "events": [{"timeUnixNano": str(T0 + at_ms * MS), "name": n,
                        "attributes": [{"key": k, "value": _value(v)} for k, v in a.items()]} for n, a in events]}]}]}]}
    return json.dumps(doc, separators=(",", ":")) + "\n"


def gc_spans(instance: str, pid: int) -> str:
    """A broker's group coordinator, with the GC attributes its describer gives: consumer group `orders` (a joins
    and gets demo-0..2; b joins, the target moves demo-2 to b, a must revoke it first; c joins, the group epoch moves
    to 3 before a new target, and c is fenced: epoch 4), classic group `legacy` (one member, generation 3) and its
    offset commit. Each request's trace ends with its root, the request, which names the client."""
    lines: list[str] = []
    ids = iter(range(1000, 2000))

    def add(trace: int, name: str, step: str | None, at_ms: int, attributes: dict[str, Any],
            events: list[tuple[str, dict[str, Any]]] = ()) -> None:
        lines.append(span(instance, pid, name, step, at_ms, attributes, events, span_id=next(ids), trace=trace))

    def bump(old: int, new: int, reason: str) -> tuple[str, dict[str, Any]]:
        return ("group.epoch.bump", {"kafka.group.id": "orders", "kafka.group.epoch.from": old,
                                     "kafka.group.epoch.to": new, "kafka.reason": reason})

    def heartbeat(trace: int, at_ms: int, member: str, request: int, answer: int, client: str | None,
                  events: list[tuple[str, dict[str, Any]]] = ()) -> None:
        add(trace, "GroupMetadataManager.consumerGroupHeartbeat", "GC.hb", at_ms,
            {"kafka.group.id": "orders", "kafka.member.id": member, "kafka.member.epoch.request": request,
             "kafka.member.epoch": answer, "kafka.assignment.sent": True}, events)
        if client is not None:
            add(trace, "RequestChannel.Request", None, at_ms + 5, {"kafka.client.id": client})

    def target(trace: int, at_ms: int, epoch: int, assignment: list[str]) -> None:
        add(trace, "TargetAssignmentBuilder.build", "GC.target", at_ms,
            {"kafka.group.id": "orders", "kafka.target.epoch": epoch, "kafka.assignor": "uniform",
             "kafka.target.assignment": assignment})

    def reconcile(trace: int, at_ms: int, member: str, epoch: int, state: str, assigned: list[str],
                  new_epoch: int, new_state: str, new_assigned: list[str], revoking: list[str]) -> None:
        add(trace, "CurrentAssignmentBuilder.build", "GC.reconcile", at_ms,
            {"kafka.member.id": member, "kafka.member.epoch": epoch, "kafka.member.state": state,
             "kafka.assignment.partitions": assigned, "kafka.member.epoch.next": new_epoch,
             "kafka.member.state.next": new_state, "kafka.assignment.partitions.next": new_assigned,
             "kafka.partitions.pending.revocation": revoking})

    all_three = ["demo-0", "demo-1", "demo-2"]
    target(11, 1000, 1, [f"{A}: demo-0, demo-1, demo-2"])
    reconcile(11, 1001, A, 0, "STABLE", [], 1, "STABLE", all_three, [])
    heartbeat(11, 1002, "", 0, 1, "client-a", [bump(0, 1, "member subscription changed")])
    target(13, 2000, 2, [f"{A}: demo-0, demo-1", f"{B}: demo-2"])
    reconcile(13, 2001, B, 0, "STABLE", [], 2, "UNRELEASED_PARTITIONS", [], [])
    heartbeat(13, 2002, "", 0, 2, "client-b", [bump(1, 2, "member subscription changed")])
    reconcile(15, 2500, A, 1, "STABLE", all_three, 1, "UNREVOKED_PARTITIONS", ["demo-0", "demo-1"], ["demo-2"])
    heartbeat(15, 2501, A, 1, 1, "client-a")
    reconcile(17, 3000, C, 0, "STABLE", [], 2, "STABLE", [], [])
    heartbeat(17, 3001, "", 0, 2, "client-c", [bump(2, 3, "member subscription changed")])
    add(18, "GroupMetadataManager.consumerGroupFenceMember", "GC.fence", 4000,  # its session timed out: a timer
        {"kafka.group.id": "orders", "kafka.member.id": C, "kafka.member.epoch": 2, "kafka.group.epoch": 3},
        [bump(3, 4, "member fenced")])
    add(19, "GroupMetadataManager.classicGroupJoin", "GC.join", 5000,
        {"kafka.group.id": "legacy", "kafka.member.id": CLASSIC_MEMBER, "kafka.group.generation": 3,
         "kafka.group.state": "CompletingRebalance"})
    add(19, "RequestChannel.Request", None, 5005, {"kafka.client.id": "kcat"})
    add(20, "OffsetMetadataManager.commitOffset", "GC.commit", 5100,
        {"kafka.group.id": "legacy", "kafka.partitions": ["demo-0"]})
    return "".join(lines)


def kv_spans(pids: dict[int, int]) -> dict[int, str]:
    """The controllers' KV spans: bootstrap voters 1-3; c4 added (AddRaftVoter, its VotersRecord at offset 30,
    committed); an AddRaftVoter of 1 refused; c3 removed (offset 40, not committed yet): c3 then observes."""
    keys = [f"{n}:{DIR[n]}" for n in (1, 2, 3)]
    out: dict[int, str] = {n: "" for n in (1, 2, 3, 4)}
    for n in (1, 2, 3):
        out[n] += span(f"controller-{n}", pids[n], "KafkaRaftClient.initialize", "KV.init", 10 + n,
                       {"kafka.raft.voters": [1, 2, 3], "kafka.raft.voters.keys": keys, "kafka.raft.voters.offset": -1,
                        "kafka.raft.is_voter": True}, span_id=100 + n)
    out[2] += span("controller-2", pids[2], "KafkaRaftClient.handleAddVoterRequest", "KV.add", 6000,
                   {"kafka.raft.voter.id": 4, "kafka.raft.voter.directory_id": DIR[4],
                    "kafka.raft.voter.listener.CONTROLLER": "localhost:19094", "kafka.raft.voters.before": [1, 2, 3],
                    "kafka.raft.voters.answered": False}, span_id=110)
    out[2] += span("controller-2", pids[2], "AddVoterHandler.handleApiVersionsResponse", "KV.apiv", 6100,
                   {"kafka.raft.voter.id": 4, "kafka.raft.voters_record.offset": 30,
                    "kafka.raft.voters.after": [1, 2, 3, 4]}, span_id=111)
    after_add = [f"{n}:{DIR[n]}" for n in (1, 2, 3, 4)]
    for n, at in ((2, 6101), (1, 6150), (3, 6151), (4, 6152)):
        out[n] += span(f"controller-{n}", pids[n], "KRaftControlRecordStateMachine.updateState", "KV.voters", at,
                       {"kafka.raft.voters.before": [1, 2, 3], "kafka.raft.voters": [1, 2, 3, 4],
                        "kafka.raft.voters.keys": after_add, "kafka.raft.voters.offset": 30}, span_id=120 + n)
    out[2] += span("controller-2", pids[2], "AddVoterHandler.highWatermarkUpdated", "KV.commit", 6200,
                   {"kafka.raft.voters_record.offset": 30, "kafka.raft.high_watermark": 31,
                    "kafka.raft.voters.change": "add"}, span_id=130)
    out[2] += span("controller-2", pids[2], "KafkaRaftClient.handleAddVoterRequest", "KV.add", 7000,
                   {"kafka.raft.voter.id": 1, "kafka.raft.voters.before": [1, 2, 3, 4],
                    "kafka.raft.voters.answered": True, "kafka.error": "DUPLICATE_VOTER"}, span_id=131, error=True)
    out[2] += span("controller-2", pids[2], "KafkaRaftClient.handleRemoveVoterRequest", "KV.remove", 8000,
                   {"kafka.raft.voter.id": 3, "kafka.raft.voter.directory_id": DIR[3],
                    "kafka.raft.voters.before": [1, 2, 3, 4], "kafka.raft.voters.answered": False,
                    "kafka.raft.voters_record.offset": 40}, span_id=140)
    after_remove = [f"{n}:{DIR[n]}" for n in (1, 2, 4)]
    for n, at in ((2, 8001), (1, 8050), (3, 8051), (4, 8052)):
        out[n] += span(f"controller-{n}", pids[n], "KRaftControlRecordStateMachine.updateState", "KV.voters", at,
                       {"kafka.raft.voters.before": [1, 2, 3, 4], "kafka.raft.voters": [1, 2, 4],
                        "kafka.raft.voters.keys": after_remove, "kafka.raft.voters.offset": 40}, span_id=150 + n)
    out[3] += span("controller-3", pids[3], "KafkaRaftClient.pollFollowerAsObserver", "KV.observe", 9000,
                   {"kafka.raft.is_voter": False, "kafka.raft.directory_id": DIR[3]}, span_id=160)
    return out


def fabricate_group_run(run_dir: Path, *, live: bool = True) -> Path:
    """test_quorum's run (controllers 1-3, 2 leads epoch 2), with controller 4 (added as a voter, see kv_spans) and
    broker 5, whose coordinator served the groups of gc_spans."""
    fabricate_run(run_dir, live=live)
    manifest = json.loads((run_dir / "manifest.json").read_text())
    alive = os.getpid()
    broker = alive if live else 4242  # a finished run's broker row shows its pid: fixed, for the snapshot
    manifest["processes"] += [
        {"role": "controller", "id": 4, "pid": alive, "port": 19094, "state": "Follower" if live else "NotRunning"},
        {"role": "broker", "id": 5, "pid": broker, "port": 19095, "state": "RUNNING" if live else "NotRunning"}]
    (run_dir / "manifest.json").write_text(json.dumps(manifest))
    pids = {p["id"]: p["pid"] for p in manifest["processes"]}
    (run_dir / "broker-5.jsonl").write_text(gc_spans("broker-5", broker))
    for node, lines in kv_spans(pids).items():
        with open(run_dir / f"controller-{node}.jsonl", "a") as out:
            out.write(lines)
    with open(run_dir / "controller-4.jsonl", "a") as out:
        out.write(role_span("controller-4", alive, 6300, [("Unattached", "Follower", 2, 2)], 170, 170))
    return run_dir


def _spans(run_dir: Path) -> list[Any]:
    found = []
    for path in sorted(run_dir.glob("*.jsonl")):
        if not path.name.endswith(".starts.jsonl"):
            found += list(read_span_file(path))
    return found


# -- the models on their own ----------------------------------------------------------------------------------------

def test_groups_members_epochs_and_assignment_come_from_the_gc_spans(tmp_path: Path) -> None:
    run_dir = fabricate_group_run(tmp_path / "run", live=False)
    model = GroupsModel()
    logged: list[str] = []
    model.add_log = lambda _t, _i, text, _level: logged.append(text)
    model.observe_ended(_spans(run_dir))
    orders, legacy = model.groups()[1], model.groups()[0]
    assert (orders.group_id, orders.protocol, orders.epoch, orders.assignment_epoch, orders.coordinator) == (
        "orders", "consumer", 4, 2, 5)
    assert sorted(orders.members) == [A, B]  # c was fenced
    a, b = orders.members[A], orders.members[B]
    # Kafka's member: what it keeps (assigned) apart from what it must still give up (pending revocation)
    assert (a.client_id, a.epoch, a.state, a.assigned, a.to_revoke, a.target) == (
        "client-a", 1, "UNREVOKED_PARTITIONS", ("demo-0", "demo-1"), ("demo-2",), ("demo-0", "demo-1"))
    assert (b.epoch, b.assigned, b.target, b.pending) == (2, (), ("demo-2",), ("demo-2",))
    assert (legacy.protocol, legacy.epoch, legacy.state, legacy.committed) == ("classic", 3, "CompletingRebalance", 1)
    assert list(legacy.members) == [CLASSIC_MEMBER]
    assert "group orders: epoch 1 → 2 (member subscription changed)" in logged
    assert "group orders: member cccc3333 fenced (GC.fence)" in logged


def test_a_reconciliation_makes_a_member_a_heartbeat_that_leaves_removes_it_a_refused_one_adds_none() -> None:
    from kafka_edu.tracing.query import SpanRecord

    def gc(step: str, trace: str, at: int, error: bool = False, **attributes: Any) -> SpanRecord:
        return SpanRecord(trace, f"s{at}", "", step, at, at + 1, {"kafka.step": step, **attributes},
                          {"service.instance.id": "broker-4"}, status_code=2 if error else 0)

    model = GroupsModel()
    # the reconciliation ends before the heartbeat that names the group, and may come in an earlier batch
    model.observe_ended([gc("GC.reconcile", "t1", 10, **{"kafka.member.id": "m1", "kafka.member.epoch.next": 1,
                                                        "kafka.assignment.partitions.next": ["t-0"]})])
    assert model.traced == {}
    model.observe_ended([gc("GC.hb", "t1", 11, **{"kafka.group.id": "g", "kafka.member.id": "",
                                                 "kafka.member.epoch.request": 0, "kafka.member.epoch": 1})])
    assert model.traced["g"].members["m1"].assigned == ("t-0",) and model.traced["g"].epoch == 1
    model.observe_ended([gc("GC.hb", "t2", 20, error=True, **{"kafka.group.id": "g", "kafka.member.id": "m2",
                                                             "kafka.member.epoch.request": 5,
                                                             "kafka.member.epoch": -1})])
    assert list(model.traced["g"].members) == ["m1"]  # fenced at once (FENCED_MEMBER_EPOCH): never a member
    model.observe_ended([gc("GC.hb", "t3", 30, **{"kafka.group.id": "g", "kafka.member.id": "m1",
                                                 "kafka.member.epoch.request": -1, "kafka.member.epoch": -1})])
    assert model.traced["g"].members == {}


def _gc(step: str, trace: str, at: int, **attributes: Any) -> Any:
    from kafka_edu.tracing.query import SpanRecord
    return SpanRecord(trace, f"s{at}", "", step, at, at + 1, {"kafka.step": step, **attributes},
                      {"service.instance.id": "broker-4"})


def test_a_classic_group_from_join_sync_heartbeat_and_the_leave_or_expiry_that_removes_its_members() -> None:
    """What group_coordinator_39.py gives the classic rows: GC.join the generation, the state and the member id the
    coordinator made (the request had none), GC.sync the member's decoded assignment, GC.classic the operation and
    the members it removed (a LeaveGroup names no single member; an expiry does)."""
    model = GroupsModel()
    logged: list[str] = []
    model.add_log = lambda _t, _i, text, _level: logged.append(text)
    for n, member in enumerate(("m1", "m2")):
        model.observe_ended([_gc("GC.join", f"j{n}", 10 + n, **{
            "kafka.group.id": "legacy", "kafka.member.id": member, "kafka.group.generation": 1,
            "kafka.group.state": "CompletingRebalance"})])
        model.observe_ended([_gc("GC.sync", f"s{n}", 20 + n, **{
            "kafka.group.id": "legacy", "kafka.member.id": member, "kafka.group.generation": 1,
            "kafka.group.state": "Stable", "kafka.assignment.partitions": [f"demo-{n}", f"demo-{n + 2}"]})])
    legacy = model.traced["legacy"]
    assert (legacy.protocol, legacy.epoch, legacy.state) == ("classic", 1, "Stable")
    assert {m.member_id: (m.epoch, m.assigned) for m in legacy.members.values()} == {
        "m1": (1, ("demo-0", "demo-2")), "m2": (1, ("demo-1", "demo-3"))}
    model.observe_ended([_gc("GC.classic", "h1", 30, **{
        "kafka.group.id": "legacy", "kafka.member.id": "m1", "kafka.classic.operation": "heartbeat",
        "kafka.members.removed": [], "kafka.group.generation": 1, "kafka.group.state": "Stable"})])
    assert sorted(legacy.members) == ["m1", "m2"]
    model.observe_ended([_gc("GC.classic", "l1", 40, **{
        "kafka.group.id": "legacy", "kafka.classic.operation": "leave", "kafka.members.removed": ["m1"],
        "kafka.group.generation": 1, "kafka.group.state": "PreparingRebalance"})])
    assert list(legacy.members) == ["m2"] and legacy.state == "PreparingRebalance"
    model.observe_ended([_gc("GC.classic", "e1", 50, **{
        "kafka.group.id": "legacy", "kafka.member.id": "m2", "kafka.classic.operation": "expire",
        "kafka.members.removed": ["m2"], "kafka.group.generation": 2, "kafka.group.state": "Empty"})])
    assert legacy.members == {} and (legacy.epoch, legacy.state) == (2, "Empty")
    assert logged[-2:] == ["group legacy: member m1 left (LeaveGroup)",
                           "group legacy: member m2 expired (session timeout)"]
    # a late SyncGroup of a member that left makes it no member again
    model.observe_ended([_gc("GC.sync", "s9", 60, **{"kafka.group.id": "legacy", "kafka.member.id": "m1",
                                                     "kafka.assignment.partitions": ["demo-0"]})])
    assert legacy.members == {}


def test_a_heartbeat_names_the_group_epoch_and_state_and_a_reconciliation_its_group() -> None:
    model = GroupsModel()
    model.observe_ended([_gc("GC.reconcile", "t1", 10, **{"kafka.group.id": "g", "kafka.member.id": "m1",
                                                          "kafka.member.epoch.next": 1,
                                                          "kafka.assignment.partitions.next": ["t-0"]})])
    assert model.traced["g"].members["m1"].assigned == ("t-0",)  # no heartbeat needed to name the group
    model.observe_ended([_gc("GC.hb", "t1", 11, **{"kafka.group.id": "g", "kafka.member.id": "",
                                                  "kafka.member.epoch.request": 0, "kafka.member.epoch": 1,
                                                  "kafka.group.epoch": 1, "kafka.group.state": "Stable"})])
    assert (model.traced["g"].epoch, model.traced["g"].state) == (1, "Stable")


def test_the_voters_endpoints_come_from_kv_init_and_kv_voters() -> None:
    from kafka_edu.tracing.query import SpanRecord
    membership = quorum.VoterMembership()
    membership.endpoints[4] = "127.0.0.1:19094"  # the manifest's port, until a span names the voter's own endpoint
    membership.observe(SpanRecord("t", "s1", "", "KRaftControlRecordStateMachine.updateState", 1, 2, {
        "kafka.step": "KV.voters", "kafka.raft.voters": [1, 4], "kafka.raft.voters.offset": 30,
        "kafka.raft.voters.keys": [f"1:{DIR[1]}", f"4:{DIR[4]}"],
        "kafka.raft.voters.endpoints": ["1@127.0.0.1:19091", "4@localhost:19094"]},
        {"service.instance.id": "controller-1"}))
    assert [(k.node_id, k.directory_id, k.endpoint) for k in membership.voters] == [
        (1, DIR[1], "127.0.0.1:19091"), (4, DIR[4], "localhost:19094")]


def test_partitions_are_written_compactly() -> None:
    assert compact_partitions(["demo-0", "demo-1", "demo-2", "demo-5", "other-4", "a-b-1"]) == \
        "demo 0-2,5 · other 4 · a-b 1"
    assert compact_partitions([]) == ""


def test_the_voter_set_its_history_and_observers_come_from_the_kv_spans(tmp_path: Path) -> None:
    run_dir = fabricate_group_run(tmp_path / "run", live=False)
    model = QuorumModel()
    logged: list[str] = []
    model.add_log = lambda _t, _i, text, _level: logged.append(text)
    model.observe_manifest(json.loads((run_dir / "manifest.json").read_text()))
    model.observe_ended(_spans(run_dir))
    membership = model.membership
    assert membership.voter_ids == [1, 2, 4] and membership.offset == 40
    assert [(k.node_id, k.directory_id, k.endpoint) for k in membership.voters] == [
        (1, DIR[1], "127.0.0.1:19091"), (2, DIR[2], "127.0.0.1:19092"), (4, DIR[4], "localhost:19094")]
    assert membership.is_observer(3) and not membership.is_observer(4)
    history = membership.history()
    assert [(c.offset, c.added, c.removed, c.request, c.committed_ns is not None, c.error) for c in history] == [
        (-1, (1, 2, 3), (), "", False, ""),
        (30, (4,), (), "add", True, ""),
        (None, (), (), "add", False, "DUPLICATE_VOTER"),
        (40, (), (3,), "remove", False, ""),
    ]
    assert history[1].instance == "controller-2" and history[1].applied_on == {f"controller-{n}" for n in (1, 2, 3, 4)}
    assert "voters [1,2,3] → [1,2,3,4]: +4 (offset 30)" in logged
    assert "voter add at offset 30 committed (high watermark 31)" in logged
    assert "AddRaftVoter 1 refused: DUPLICATE_VOTER" in logged


def test_a_static_quorum_has_no_voter_set_and_no_observers(tmp_path: Path) -> None:
    run_dir = fabricate_run(tmp_path / "run", live=False)
    model = QuorumModel()
    model.observe_ended(_spans(run_dir))
    assert model.membership.voters is None and not any(model.membership.is_observer(n) for n in (1, 2, 3))


# -- the live poll -----------------------------------------------------------------------------------------------

def _partitions(*names: tuple[str, tuple[int, ...]]) -> SimpleNamespace:
    return SimpleNamespace(topic_partitions=[SimpleNamespace(topic_name=t, partitions=p) for t, p in names])


def fake_broker(asked: list[tuple[tuple[str, int], ApiKeys]]) -> Any:
    """Broker 5 answering ListGroups, ConsumerGroupDescribe and DescribeGroups as a 3.9 coordinator would."""
    from kafka_edu.v3_9.clients.clients.consumer.consumer_partition_assignor import Assignment
    from kafka_edu.v3_9.clients.clients.consumer.internals.consumer_protocol import serialize_assignment
    from kafka_edu.v3_9.clients.common.topic_partition import TopicPartition

    buffer = serialize_assignment(Assignment([TopicPartition("demo", 0), TopicPartition("demo", 1)]))
    classic_assignment = bytes(buffer.array()[buffer.position():buffer.limit()])

    def send(address: tuple[str, int], api: ApiKeys, _version: int, body: Any) -> Any:
        asked.append((address, api))
        if api is ApiKeys.LIST_GROUPS:
            return SimpleNamespace(groups=[SimpleNamespace(group_id="orders", group_type="consumer"),
                                           SimpleNamespace(group_id="legacy", group_type="classic")])
        if api is ApiKeys.CONSUMER_GROUP_DESCRIBE:
            assert list(body.group_ids) == ["orders"]
            members = [SimpleNamespace(member_id=A, client_id="client-a", member_epoch=4, instance_id=None,
                                       assignment=_partitions(("demo", (0, 1))),
                                       target_assignment=_partitions(("demo", (0, 1)))),
                       SimpleNamespace(member_id=B, client_id="client-b", member_epoch=4, instance_id=None,
                                       assignment=_partitions(("demo", (2,))),
                                       target_assignment=_partitions(("demo", (2,))))]
            return SimpleNamespace(groups=[SimpleNamespace(error_code=0, group_id="orders", group_state="Stable",
                                                           group_epoch=4, assignment_epoch=4, assignor_name="uniform",
                                                           members=members)])
        assert api is ApiKeys.DESCRIBE_GROUPS and list(body.groups) == ["legacy"]
        member = SimpleNamespace(member_id=CLASSIC_MEMBER, client_id="kcat", group_instance_id=None,
                                 member_assignment=classic_assignment)
        return SimpleNamespace(groups=[SimpleNamespace(error_code=0, group_id="legacy", group_state="Stable",
                                                       protocol_type="consumer", protocol_data="range",
                                                       members=[member])])
    return send


def test_the_poller_asks_each_running_broker_what_it_coordinates(tmp_path: Path) -> None:
    run_dir = fabricate_group_run(tmp_path / "run", live=True)
    asked: list[tuple[tuple[str, int], ApiKeys]] = []
    batch = GroupsPoller(run_dir, send=fake_broker(asked)).poll()
    assert {address for address, _ in asked} == {("127.0.0.1", 19095)}  # the brokers only, not the controllers
    assert batch.asked == [5] and not batch.errors
    model = GroupsModel()
    model.observe_ended(_spans(run_dir))
    model.observe_poll(batch)
    legacy, orders = model.groups()
    assert (orders.state, orders.epoch, orders.live_at is not None) == ("Stable", 4, True)
    assert orders.members[B].assigned == ("demo-2",) and orders.members[B].pending == ()
    assert legacy.members[CLASSIC_MEMBER].assigned == ("demo-0", "demo-1")
    model.clear_live()
    assert model.groups()[1].epoch == 4  # the trace's picture again


# -- the panes in the app -------------------------------------------------------------------------------------------

@pytest.fixture
def group_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    run_dir = fabricate_group_run(tmp_path / "run", live=True)
    monkeypatch.setattr(quorum, "describe_quorum", fake_describe(run_dir))
    monkeypatch.setattr(groups, "_send", fake_broker([]))
    return run_dir


async def _settled(app: KafkaEduApp, pilot: Any) -> None:
    await fake_kraft.quorum_settled(app, pilot, lambda: len(app.groups.traced) == 2
                                    and app.quorum.membership.offset == 40, "the quorum, groups and voters to load")


def test_v_shows_the_groups_then_the_voters_then_the_metadata_log_again(group_run: Path) -> None:
    async def scenario() -> None:
        app = KafkaEduApp(group_run, watch=True)
        async with app.run_test(size=(120, 40)) as pilot:
            await _settled(app, pilot)
            assert app.records_pane.display and not app.groups_pane.display
            # c3 was removed from the voter set: it observes
            assert row_texts(app.quorum_pane)[2].startswith("◇ c3") and "observer" in app.quorum_pane.border_subtitle
            await pilot.press("v")
            assert app.groups_pane.display and not app.records_pane.display
            await wait_for(pilot, lambda: app.groups.live_at is not None, what="the brokers' answer")
            await pilot.pause(0.1)
            rows = [line for line in row_texts(app.groups_pane) if line.strip()]
            assert rows[0].startswith("legacy classic Stable")
            assert rows[1].strip().startswith("0f0e1d2c kcat") and "demo 0-1" in rows[1]
            assert rows[2] == "orders consumer Stable epoch 4 · 2 members · on b5 · live"
            assert "aaaa1111 client-a" in rows[3] and "e4" in rows[3] and "demo 0-1" in rows[3]
            assert "2 live" in app.groups_pane.border_title
            await pilot.press("v")
            assert app.voters_pane.display and not app.groups_pane.display
            assert app.groups.live_at is None  # left the view: no more asking
            rows = [line for line in row_texts(app.voters_pane) if line.strip()]
            assert rows[0].startswith("  c1 dir kQ3xR1mN 127.0.0.1:19091") and "killed" in rows[0]
            assert rows[2].startswith("  c4 dir Zt4uB7ny localhost:19094") and "Follower" in rows[2]
            assert rows[1].startswith("★ c2")
            assert rows[1].startswith("★ c2") and "Leader" in rows[1]
            assert rows[3].startswith("◇ c3") and "observer" in rows[3]
            assert "[1,2,3,4] → [1,2,4]: −3 (offset 40) not committed yet" in rows[-1]
            assert "+4 (offset 30) committed" in rows[-3] and "AddRaftVoter 1 refused: DUPLICATE_VOTER" in rows[-2]
            assert app.voters_pane.border_title == "Voters · [1,2,4] since offset 40"
            await pilot.press("v")
            assert app.records_pane.display and not app.voters_pane.display
    run(scenario)


def test_v_is_not_offered_on_a_zookeeper_run(failover: Path) -> None:
    from tests.tui.helpers import opened

    async def scenario() -> None:
        async with opened(failover) as (app, pilot):
            assert app.check_action("next_view", ()) is False
            await pilot.press("v")
            assert app.cluster_pane.display and not app.groups_pane.display
    run(scenario)


# -- snapshots (tests/tui/test_snapshots.py's comparison; look at the PNG before accepting one) ------------------

@pytest.fixture
def finished_group_run(tmp_path: Path) -> Path:
    return fabricate_group_run(tmp_path / "run", live=False)


async def _finished_settled(app: KafkaEduApp, pilot: Any) -> None:
    """A finished run: its records, every voter's role, the groups and the voter set read, the Log pane caught up."""
    def settled() -> bool:
        log = app.log_pane
        return bool(app.loaded.is_set() and app.quorum.records and len(app.groups.traced) == 2
                    and all(v.change is not None for v in app.quorum.voters.values())
                    and app.quorum.membership.offset == 40 and len(log.rows) == len(app.model.log)
                    and log.cursor == len(log.rows) - 1)

    await wait_for(pilot, settled, what="the finished run to load")


@pytest.mark.parametrize("view", ["groups", "voters"])
def test_snapshot_of_the_groups_and_voters_views_of_a_finished_run(finished_group_run: Path, view: str) -> None:
    """From the trace alone: orders is at epoch 4 with its target at 2 (c joined and was fenced), a gives up demo-2,
    b waits for it; the voter set went [1,2,3] → +4 → −3."""
    async def steps(app: KafkaEduApp, pilot: Any) -> None:
        await _finished_settled(app, pilot)
        await pilot.press("v", *(["v"] if view == "voters" else []))
        app.view_pane.focus()
        await fake_kraft.still_screen(app, pilot)

    fake_kraft.utc_snapshot(finished_group_run, f"{view}_120x40", (120, 40), steps)


def test_a_finished_run_shows_the_groups_from_the_trace(finished_group_run: Path) -> None:
    async def scenario() -> None:
        app = KafkaEduApp(finished_group_run, watch=False)
        async with app.run_test(size=(160, 45)) as pilot:
            await _finished_settled(app, pilot)
            await pilot.press("v")
            await pilot.pause(0.1)
            rows = [line for line in row_texts(app.groups_pane) if line.strip()]
            assert rows[2] == "orders consumer epoch 4 (target 2) · 2 members · on b5 · trace"
            assert "aaaa1111 client-a" in rows[3] and "demo 0-1 · revoking demo 2" in rows[3]
            assert "bbbb2222 client-b" in rows[4] and "no partitions · pending demo 2" in rows[4]
            assert app.groups_pane.border_title == "Groups · 2 · from the trace"
            assert app.groups.live_at is None  # a finished run is never asked
    run(scenario)


@pytest.mark.parametrize("size", [(80, 24), (160, 45)])
def test_the_views_render_at_other_sizes(group_run: Path, size: tuple[int, int]) -> None:
    async def scenario() -> None:
        app = KafkaEduApp(group_run, watch=True)
        async with app.run_test(size=size) as pilot:
            await _settled(app, pilot)
            for _ in range(2):
                await pilot.press("v")
                await pilot.pause(0.2)
                pane = app.view_pane
                texts = [line for line in row_texts(pane) if line.strip()]
                assert texts, f"{app.view} is empty at {size}"
                width = pane.scrollable_content_region.width
                assert all(len(line) <= width for line in texts)
            # a long row ends in … rather than being cut mid-word
            if size == (80, 24):
                assert any(line.endswith("…") for line in row_texts(app.voters_pane))
    run(scenario)
