"""Consumer groups on a KRaft cluster served by Kafka 3.9's own group coordinator (GroupCoordinatorService on its
CoordinatorRuntime), through real clients on real processes.

KIP-848: confluent-kafka consumers with `group.protocol=consumer` (Kafka 3.9's era of the client, each a process of
its own: kafka_edu/cluster_runner/group_member.py) form a group, share a topic's partitions and rebalance
incrementally when a member joins and when one is killed (its partitions move when its session expires); a
partition is never owned by two members at once (all members' assign/revoke callbacks, replayed as one timeline).
The same protocol spoken on the wire by the test itself (WireMember). Classic consumers (confluent-kafka and
kafka-python; kcat's in test_kraft_brokers_data.py) still form groups and commit on the same coordinator. And the
ConsumerGroupHeartbeat errors 3.9 answers to bad input, on the wire.
"""
from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from confluent_kafka import Consumer, Producer
from confluent_kafka import TopicPartition as CTopicPartition
from confluent_kafka.admin import AdminClient, NewTopic
from kafka import KafkaConsumer

from kafka_edu.cluster_runner.group_member import MemberProcess
from kafka_edu.cluster_runner.runner import ClusterRunner
from kafka_edu.v3_9.clients.common.protocol.api_keys import ApiKeys
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from tests.integration.helpers import request_to, wait_until

# KIP-848's session is the broker's to set: short, so that a killed member's partitions move within seconds (3.9
# requires the session and the heartbeat interval within their min/max bounds, whose defaults are 45 s and 5 s)
SESSION_TIMEOUT_MS = 6000
HEARTBEAT_INTERVAL_MS = 1000
OVERRIDES = ["offsets.topic.replication.factor=1", "offsets.topic.num.partitions=1",
             "group.initial.rebalance.delay.ms=0",
             f"broker:group.consumer.session.timeout.ms={SESSION_TIMEOUT_MS}",
             f"broker:group.consumer.min.session.timeout.ms={SESSION_TIMEOUT_MS}",
             f"broker:group.consumer.heartbeat.interval.ms={HEARTBEAT_INTERVAL_MS}",
             f"broker:group.consumer.min.heartbeat.interval.ms={HEARTBEAT_INTERVAL_MS}"]
PARTITIONS = 6


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ClusterRunner]:
    runner = ClusterRunner.up(1, tmp_path_factory.mktemp("kraft-groups") / "traces", mode="kraft", controllers=1,
                              timeout_s=120, overrides=OVERRIDES)
    try:
        yield runner
    finally:
        runner.down()


def bootstrap(cluster: ClusterRunner) -> str:
    return cluster.run.read_manifest()["bootstrap_servers"]


def broker_port(cluster: ClusterRunner) -> int:
    return next(p["port"] for p in cluster.run.read_manifest()["processes"] if p["role"] == "broker")


def new_topic(cluster: ClusterRunner, partitions: int = PARTITIONS) -> str:
    topic = f"t-{uuid.uuid4().hex[:8]}"
    admin = AdminClient({"bootstrap.servers": bootstrap(cluster)})
    admin.create_topics([NewTopic(topic, partitions, 1)])[topic].result(30)
    wait_until(lambda: all(p.leader >= 0 for p in admin.list_topics(topic, timeout=10).topics[topic]
                           .partitions.values()), 30, f"a leader for {topic}")
    return topic


def produce(cluster: ClusterRunner, topic: str, count: int, partitions: int = PARTITIONS) -> None:
    producer = Producer({"bootstrap.servers": bootstrap(cluster)})
    for i in range(count):
        producer.produce(topic, value=f"v{i}".encode(), partition=i % partitions)
    assert producer.flush(30) == 0


def find_coordinator(cluster: ClusterRunner, group: str) -> None:
    """FindCoordinator until the group has one, as a client looks it up first: on a new cluster it creates
    `__consumer_offsets`, whose election loads the coordinator."""
    def found() -> bool:
        answer = request_to(broker_port(cluster), ApiKeys.FIND_COORDINATOR, 4, key_type=0, coordinator_keys=[group])
        return answer.coordinators[0].error_code == Errors.NONE
    wait_until(found, 60, f"a coordinator for {group}")


# -- KIP-848 consumers -------------------------------------------------------------------------------------------


@dataclass
class History:
    """Every member's owned partitions over time: (monotonic time, member, event, partitions) in callback order,
    under one lock, so that the events of all members form one timeline."""

    lock: threading.Lock = field(default_factory=threading.Lock)
    events: list[tuple[str, str, frozenset[int]]] = field(default_factory=list)
    owned: dict[str, set[int]] = field(default_factory=dict)
    overlaps: list[str] = field(default_factory=list)

    def assigned(self, member: str, partitions: list[CTopicPartition]) -> None:
        with self.lock:
            added = {p.partition for p in partitions}
            for other, theirs in self.owned.items():
                if other != member and theirs & added:
                    self.overlaps.append(f"{member} got {sorted(theirs & added)} still owned by {other}")
            self.owned.setdefault(member, set()).update(added)
            self.events.append((member, "assign", frozenset(added)))

    def revoked(self, member: str, partitions: list[CTopicPartition]) -> None:
        with self.lock:
            removed = {p.partition for p in partitions}
            self.owned.setdefault(member, set()).difference_update(removed)
            self.events.append((member, "revoke", frozenset(removed)))

    def snapshot(self) -> dict[str, set[int]]:
        with self.lock:
            return {m: set(p) for m, p in self.owned.items()}


class WireMember:
    """A KIP-848 member spoken on the wire, ConsumerGroupHeartbeat v0 as 3.9 serves it, on a thread of its own: it
    heartbeats, takes the assignment the coordinator answers, and acknowledges it in its next heartbeat (the owned
    partitions), as a consumer does once its callbacks ran. Revocations are recorded before assignments."""

    def __init__(self, cluster: ClusterRunner, group: str, topic: str, name: str, history: History) -> None:
        self.name = name
        self.group = group
        self.topic = topic
        self.port = broker_port(cluster)
        self.history = history
        self.member_id = uuid.uuid4().hex
        self.member_epoch = 0
        self.owned: dict[uuid.UUID, set[int]] = {}
        self.errors: list[int] = []
        self._stop = threading.Event()
        self._closed = threading.Event()
        find_coordinator(cluster, group)
        self._thread = threading.Thread(target=self._run, name=f"member-{name}", daemon=True)
        self._thread.start()

    def _heartbeat(self) -> object:
        joining = self.member_epoch == 0
        return request_to(self.port, ApiKeys.CONSUMER_GROUP_HEARTBEAT, 0, group_id=self.group,
                          member_id=self.member_id, member_epoch=self.member_epoch, instance_id=None, rack_id=None,
                          rebalance_timeout=30000, subscribed_topic_names=[self.topic] if joining else None,
                          server_assignor=None,
                          topic_partitions=[] if joining else [dict(topic_id=t, partitions=sorted(p))
                                                               for t, p in self.owned.items()])

    def _run(self) -> None:
        try:
            while not self._stop.is_set():
                response = self._heartbeat()
                if response.error_code != Errors.NONE:
                    self.errors.append(response.error_code)
                else:
                    self.member_epoch = response.member_epoch
                    if response.assignment is not None:
                        self._reconcile({tp.topic_id: set(tp.partitions)
                                         for tp in response.assignment.topic_partitions})
                self._stop.wait(0.2)
            # leave: the coordinator takes the partitions back
            self.history.revoked(self.name, [CTopicPartition(self.topic, p)
                                             for ps in self.owned.values() for p in ps])
            self.member_epoch = -1
            left = self._heartbeat()
            assert left.error_code == Errors.NONE, left
        finally:
            self._closed.set()

    def _reconcile(self, target: dict[uuid.UUID, set[int]]) -> None:
        owned = {p for ps in self.owned.values() for p in ps}
        wanted = {p for ps in target.values() for p in ps}
        if owned - wanted:
            self.history.revoked(self.name, [CTopicPartition(self.topic, p) for p in owned - wanted])
        if wanted - owned:
            self.history.assigned(self.name, [CTopicPartition(self.topic, p) for p in wanted - owned])
        self.owned = target

    def close(self) -> None:
        self._stop.set()
        assert self._closed.wait(60), f"{self.name} did not close"


def balanced(history: History, members: list[str]) -> bool:
    owned = history.snapshot()
    counts = sorted(len(owned.get(m, set())) for m in members)
    union = set().union(*(owned.get(m, set()) for m in members))
    return union == set(range(PARTITIONS)) and counts[-1] - counts[0] <= 1


def test_consumer_protocol_members_share_partitions_and_rebalance_incrementally(cluster: ClusterRunner) -> None:
    topic = new_topic(cluster)
    produce(cluster, topic, 60)
    group = f"g-848-{uuid.uuid4().hex[:6]}"
    history = History()
    members: list[WireMember] = []
    try:
        members.append(WireMember(cluster, group, topic, "a", history))
        wait_until(lambda: balanced(history, ["a"]), 60, "the first member to own every partition")

        members.append(WireMember(cluster, group, topic, "b", history))
        wait_until(lambda: balanced(history, ["a", "b"]), 60, "two members sharing the partitions")
        # incremental: the first member gave up only what the second got, it was never revoked everything
        a_revokes = [p for m, e, p in history.events if m == "a" and e == "revoke"]
        assert a_revokes and all(len(p) < PARTITIONS for p in a_revokes), history.events

        members.append(WireMember(cluster, group, topic, "c", history))
        wait_until(lambda: balanced(history, ["a", "b", "c"]), 60, "three members sharing the partitions")

        members.pop(0).close()  # "a" leaves: its partitions go to the others
        wait_until(lambda: balanced(history, ["b", "c"]), 60, "the partitions of the member that left reassigned")
        assert not history.snapshot().get("a")
        assert history.overlaps == [], history.overlaps

        # the group, as ConsumerGroupDescribe gives it
        described = request_to(broker_port(cluster), ApiKeys.CONSUMER_GROUP_DESCRIBE, 0, group_ids=[group],
                               include_authorized_operations=False)
        (described_group,) = described.groups
        assert described_group.error_code == Errors.NONE and described_group.group_state == "Stable"
        assert sorted(m.member_id for m in described_group.members) == sorted(m.member_id for m in members)
        for member in members:
            assert member.errors == []
    finally:
        for member in members:
            member.close()
    assert history.overlaps == [], history.overlaps


# -- KIP-848 consumers as processes: confluent-kafka of 3.9's era (group_member.py) --------------------------------


class Feeder:
    """Produces to every partition in turn on a thread of its own, so that members have records to read before,
    during and after a rebalance."""

    def __init__(self, cluster: ClusterRunner, topic: str) -> None:
        self.topic = topic
        self.producer = Producer({"bootstrap.servers": bootstrap(cluster), "linger.ms": 5})
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="feeder", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        sent = 0
        while not self._stop.wait(0.02):  # pacing (about 50 records a second), not synchronisation
            self.producer.produce(self.topic, value=f"v{sent}".encode(), partition=sent % PARTITIONS)
            self.producer.poll(0)
            sent += 1

    def close(self) -> None:
        self._stop.set()
        self._thread.join(10)
        self.producer.flush(10)


def start_member(cluster: ClusterRunner, group: str, topic: str, name: str) -> MemberProcess:
    return MemberProcess(bootstrap(cluster), group, topic, name, protocol="consumer")


def ownership_events(members: list[MemberProcess]) -> list[dict[str, Any]]:
    """Every member's assigned/revoked/lost events in one timeline (by `t`, one clock: all on this machine)."""
    events = [e for m in members for e in m.snapshot()
              if e["event"] in ("assigned", "revoked", "lost") and e["partitions"]]
    return sorted(events, key=lambda e: e["t"])


def double_ownership(members: list[MemberProcess], killed_at: dict[str, int] | None = None) -> list[str]:
    """Replays the timeline: each moment a partition is assigned to a member while another still owns it. A killed
    member owns nothing from the moment it was killed (`killed_at`: name -> t)."""
    owned: dict[str, set[int]] = {m.name: set() for m in members}
    pending_kills = sorted((t, name) for name, t in (killed_at or {}).items())
    found = []
    for event in ownership_events(members):
        while pending_kills and pending_kills[0][0] <= event["t"]:
            owned[pending_kills.pop(0)[1]].clear()
        member, partitions = event["member"], set(event["partitions"])
        if event["event"] == "assigned":
            for other, theirs in owned.items():
                if other != member and theirs & partitions:
                    found.append(f"{member} assigned {sorted(theirs & partitions)} at {event['t']} while {other} "
                                 f"owned them")
            owned[member] |= partitions
        else:
            owned[member] -= partitions
    return found


def whole_revokes(member: MemberProcess, since_ns: int = 0) -> list[str]:
    """The member's revokes (after `since_ns`) that took everything it owned, or something it did not own: with
    KIP-848 a member gives up only the partitions that move."""
    owned: set[int] = set()
    found = []
    for event in member.snapshot():
        if event["event"] not in ("assigned", "revoked", "lost"):
            continue
        partitions = set(event["partitions"])
        if event["event"] == "assigned":
            owned |= partitions
            continue
        if event["t"] > since_ns and partitions and not partitions < owned:
            found.append(f"{member.name} {event['event']} {sorted(partitions)} owning {sorted(owned)}")
        owned -= partitions
    return found


def revoked_since(member: MemberProcess, since_ns: int) -> set[int]:
    return {p for e in member.snapshot() if e["event"] in ("revoked", "lost") and e["t"] > since_ns
            for p in e["partitions"]}


def records_since(member: MemberProcess, partitions: set[int], since_ns: int) -> int:
    return sum(1 for e in member.snapshot()
               if e["event"] == "record" and e["t"] > since_ns and e["partition"] in partitions)


def shared_evenly(members: list[MemberProcess]) -> bool:
    """Every partition owned by exactly one of the members (by their callbacks), the counts one apart at most."""
    for member in members:
        assert member.alive(), f"member {member.name} exited: {member.snapshot()[-5:]}"
    owned = [member.owned() for member in members]
    counts = [len(o) for o in owned]
    return (set().union(*owned) == set(range(PARTITIONS)) and sum(counts) == PARTITIONS
            and max(counts) - min(counts) <= 1)


def describe(cluster: ClusterRunner, group: str) -> Any:
    answer = request_to(broker_port(cluster), ApiKeys.CONSUMER_GROUP_DESCRIBE, 0, group_ids=[group],
                        include_authorized_operations=False)
    (described,) = answer.groups
    return described


def described_as(cluster: ClusterRunner, group: str, client_ids: list[str]) -> bool:
    described = describe(cluster, group)
    return (described.error_code == Errors.NONE and described.group_state == "Stable"
            and sorted(m.client_id for m in described.members) == client_ids)


def member_errors(members: list[MemberProcess]) -> list[dict[str, Any]]:
    return [e for m in members for e in m.snapshot() if e["event"] == "error"]


def test_confluent_kafka_consumer_protocol_members_share_partitions_and_rebalance_incrementally(
        cluster: ClusterRunner) -> None:
    topic = new_topic(cluster)
    group = f"g-848-{uuid.uuid4().hex[:6]}"
    feeder = Feeder(cluster, topic)
    members: list[MemberProcess] = []
    try:
        for name in ("a", "b", "c"):
            # records flow to every member before the join ...
            for member in members:
                mine = member.owned()
                wait_until(lambda m=member, p=mine: records_since(m, p, 0) > 0, 30, f"records for {member.name}")
            before = {member.name: member.owned() for member in members}
            joined_at = time.time_ns()
            members.append(start_member(cluster, group, topic, name))
            wait_until(lambda: shared_evenly(members), 60, f"{[m.name for m in members]} sharing the partitions")
            settled_at = time.time_ns()
            for member in members[:-1]:
                kept = before[member.name] & member.owned()
                # incremental: a member keeps some partitions, gives up only what moves, never all it owned
                assert kept, (member.name, before[member.name], member.owned())
                assert whole_revokes(member, joined_at) == [], member.snapshot()
                assert not revoked_since(member, joined_at) & kept, (member.name, kept, member.snapshot())
                # ... and keeps flowing to it on the partitions that stayed
                wait_until(lambda m=member, p=kept, t=settled_at: records_since(m, p, t) > 0, 30,
                           f"records for {member.name} on {sorted(kept)} after {name} joined")
            assert member_errors(members) == []

        assert double_ownership(members) == [], ownership_events(members)
        wait_until(lambda: described_as(cluster, group, ["a", "b", "c"]), 30,
                   "ConsumerGroupDescribe to list a, b and c, Stable")
    finally:
        feeder.close()
        for member in members:
            member.close()


def test_a_killed_consumer_protocol_member_s_partitions_move_after_its_session_times_out(
        cluster: ClusterRunner) -> None:
    topic = new_topic(cluster)
    group = f"g-848-{uuid.uuid4().hex[:6]}"
    members: list[MemberProcess] = []
    try:
        for name in ("a", "b", "c"):
            members.append(start_member(cluster, group, topic, name))
        wait_until(lambda: shared_evenly(members), 60, "a, b and c sharing the partitions")
        wait_until(lambda: described_as(cluster, group, ["a", "b", "c"]), 30, "a Stable group of a, b and c")
        survivors, victim = members[:2], members[2]
        before = {member.name: member.owned() for member in survivors}
        orphaned = victim.owned()

        killed_at = time.time_ns()
        victim.kill()
        wait_until(lambda: shared_evenly(survivors), SESSION_TIMEOUT_MS / 1000 + 30,
                   "the survivors to share the killed member's partitions")

        # the coordinator moved them only when the session expired: the victim's last heartbeat came at most one
        # heartbeat interval before the kill
        moved_at = min(e["t"] for e in ownership_events(survivors)
                       if e["event"] == "assigned" and e["t"] > killed_at and set(e["partitions"]) & orphaned)
        waited_ms = (moved_at - killed_at) / 1e6
        assert waited_ms >= SESSION_TIMEOUT_MS - HEARTBEAT_INTERVAL_MS - 250, waited_ms
        for member in survivors:
            assert before[member.name] <= member.owned(), (member.name, before[member.name], member.owned())
            assert revoked_since(member, killed_at) == set(), member.snapshot()
            assert whole_revokes(member) == [], member.snapshot()
        assert double_ownership(members, {victim.name: killed_at}) == [], ownership_events(members)
        assert member_errors(members) == []
        wait_until(lambda: described_as(cluster, group, ["a", "b"]), 30,
                   "ConsumerGroupDescribe to list the survivors only")
    finally:
        for member in members:
            member.close()


# -- classic consumers on the same coordinator -------------------------------------------------------------------


def test_classic_confluent_kafka_consumers_still_form_a_group_and_commit(cluster: ClusterRunner) -> None:
    topic = new_topic(cluster, partitions=2)
    produce(cluster, topic, 10, partitions=2)
    group = f"g-classic-{uuid.uuid4().hex[:6]}"
    consumer = Consumer({"bootstrap.servers": bootstrap(cluster), "group.id": group, "group.protocol": "classic",
                         "auto.offset.reset": "earliest", "enable.auto.commit": False})
    try:
        consumer.subscribe([topic])
        seen = 0
        deadline = time.monotonic() + 60
        while seen < 10 and time.monotonic() < deadline:
            message = consumer.poll(0.5)
            if message is not None and message.error() is None:
                seen += 1
        assert seen == 10
        consumer.commit(asynchronous=False)
        committed = consumer.committed([CTopicPartition(topic, 0), CTopicPartition(topic, 1)], timeout=30)
        assert sorted(tp.offset for tp in committed) == [5, 5]
    finally:
        consumer.close()


def test_classic_kafka_python_consumer_still_forms_a_group_and_commits(cluster: ClusterRunner) -> None:
    topic = new_topic(cluster, partitions=2)
    produce(cluster, topic, 10, partitions=2)
    group = f"g-kp-{uuid.uuid4().hex[:6]}"
    consumer = KafkaConsumer(topic, bootstrap_servers=bootstrap(cluster), group_id=group,
                             auto_offset_reset="earliest", enable_auto_commit=False, consumer_timeout_ms=30000)
    try:
        values = []
        for message in consumer:
            values.append(message.value)
            if len(values) == 10:
                break
        assert len(values) == 10
        consumer.commit()
        from kafka import TopicPartition as KTopicPartition
        assert sorted(consumer.committed(KTopicPartition(topic, p)) for p in (0, 1)) == [5, 5]
    finally:
        consumer.close()


# -- ConsumerGroupHeartbeat bad input ------------------------------------------------------------------------------


def heartbeat(cluster: ClusterRunner, group: str, topic: str, *, member_id: str = "", member_epoch: int = 0,
              server_assignor: str | None = None) -> object:
    return request_to(broker_port(cluster), ApiKeys.CONSUMER_GROUP_HEARTBEAT, 0, group_id=group, member_id=member_id,
                      member_epoch=member_epoch, instance_id=None, rack_id=None, rebalance_timeout=30000,
                      subscribed_topic_names=[topic], server_assignor=server_assignor, topic_partitions=[])


def test_consumer_group_heartbeat_bad_input_gets_3_9s_errors(cluster: ClusterRunner) -> None:
    topic = new_topic(cluster, partitions=1)
    group = f"g-bad-{uuid.uuid4().hex[:6]}"
    member_id = uuid.uuid4().hex
    find_coordinator(cluster, group)

    joined = heartbeat(cluster, group, topic, member_id=member_id)
    assert joined.error_code == Errors.NONE and joined.member_epoch >= 1
    # a stale (older) epoch: fenced
    stale = heartbeat(cluster, group, topic, member_id=member_id, member_epoch=joined.member_epoch + 1)
    assert stale.error_code == Errors.FENCED_MEMBER_EPOCH
    # a member the group does not know
    unknown = heartbeat(cluster, group, topic, member_id=uuid.uuid4().hex, member_epoch=1)
    assert unknown.error_code == Errors.UNKNOWN_MEMBER_ID
    # an assignor the broker does not have
    bad_assignor = heartbeat(cluster, group, topic, member_id=uuid.uuid4().hex, server_assignor="sticky")
    assert bad_assignor.error_code == Errors.UNSUPPORTED_ASSIGNOR
    # the member leaves
    left = heartbeat(cluster, group, topic, member_id=member_id, member_epoch=-1)
    assert left.error_code == Errors.NONE and left.member_epoch == -1

    # a classic group's id: 3.9 will not turn a non-empty classic group into a consumer group by a heartbeat
    classic_group = f"g-classic-{uuid.uuid4().hex[:6]}"
    classic = Consumer({"bootstrap.servers": bootstrap(cluster), "group.id": classic_group,
                        "group.protocol": "classic", "auto.offset.reset": "earliest"})
    try:
        classic.subscribe([topic])
        wait_until(lambda: (classic.poll(0.2), classic.assignment())[1], 60, "the classic member's assignment")
        answer = heartbeat(cluster, classic_group, topic, member_id=uuid.uuid4().hex)
        assert answer.error_code == Errors.GROUP_ID_NOT_FOUND, answer
    finally:
        classic.close()
