"""Transactions and OffsetDelete on a KRaft broker (issue 24), through real clients on real processes: confluent-kafka
and kafka-python transactional producers commit and abort, read_committed consumers skip what was aborted, offsets
commit with a transaction (TxnOffsetCommit), a second producer fences the first, ListTransactions and
DescribeTransactions answer what the coordinator holds, and confluent-kafka deletes a group's offset (OffsetDelete).

The transaction coordinator behind 3.9's handlers is 3.9's own (kafka_edu/v3_9/core/coordinator/transaction/); what
these tests pin is what a client sees, and the TX39 rows its trace holds.
"""

from __future__ import annotations

import subprocess
import sys
import time
import uuid
from collections.abc import Iterator

import pytest
from confluent_kafka import OFFSET_BEGINNING, Consumer, KafkaError, KafkaException, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic
from kafka import KafkaConsumer, KafkaProducer
from kafka import TopicPartition as KTopicPartition
from kafka.admin import KafkaAdminClient
from kafka.structs import OffsetAndMetadata

from kafka_edu.cluster_runner.runner import ClusterRunner
from kafka_edu.tracing.query import load_run
from kafka_edu.v3_9.clients.common.protocol.api_keys import ApiKeys
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from tests.integration.helpers import REPO, request_to, wait_until

OVERRIDES = ["offsets.topic.replication.factor=1", "offsets.topic.num.partitions=1",
             "transaction.state.log.replication.factor=1", "transaction.state.log.min.isr=1",
             "group.initial.rebalance.delay.ms=0"]  # __transaction_state: the default 50 partitions


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ClusterRunner]:
    runner = ClusterRunner.up(1, tmp_path_factory.mktemp("kraft-txn") / "traces", mode="kraft", controllers=1,
                              timeout_s=120, overrides=OVERRIDES)
    try:
        yield runner
    finally:
        runner.down()


def bootstrap(cluster: ClusterRunner) -> str:
    return cluster.run.read_manifest()["bootstrap_servers"]


def broker_port(cluster: ClusterRunner) -> int:
    return next(p["port"] for p in cluster.run.read_manifest()["processes"] if p["role"] == "broker")


def new_topic(cluster: ClusterRunner, partitions: int = 1) -> str:
    topic = f"t-{uuid.uuid4().hex[:8]}"
    admin = AdminClient({"bootstrap.servers": bootstrap(cluster)})
    admin.create_topics([NewTopic(topic, partitions, 1)])[topic].result(30)
    wait_until(lambda: all(p.leader >= 0 for p in admin.list_topics(topic, timeout=10).topics[topic]
                           .partitions.values()), 30, f"a leader for {topic}")
    return topic


def read_values(cluster: ClusterRunner, topic: str, isolation: str, expected: int) -> list[bytes]:
    """What a consumer with `isolation` reads from partition 0: until `expected` values came and its position
    reached the end (so nothing more is coming)."""
    consumer = Consumer({"bootstrap.servers": bootstrap(cluster), "group.id": f"verify-{uuid.uuid4()}",
                         "isolation.level": isolation, "enable.auto.commit": False})
    values: list[bytes] = []
    try:
        consumer.assign([TopicPartition(topic, 0, OFFSET_BEGINNING)])
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            message = consumer.poll(0.5)
            if message is not None and message.error() is None:
                values.append(message.value())
            elif len(values) >= expected:
                position = consumer.position([TopicPartition(topic, 0)])[0].offset
                if position >= consumer.get_watermark_offsets(TopicPartition(topic, 0), timeout=10)[1]:
                    break
        return values
    finally:
        consumer.close()


def transactional_producer(cluster: ClusterRunner, transactional_id: str) -> Producer:
    producer = Producer({"bootstrap.servers": bootstrap(cluster), "transactional.id": transactional_id,
                         "transaction.timeout.ms": 60000})
    producer.init_transactions(60)
    return producer


def test_a_committed_transaction_is_read_and_an_aborted_one_is_not(cluster: ClusterRunner) -> None:
    topic = new_topic(cluster)
    producer = transactional_producer(cluster, f"ck-{topic}")
    producer.begin_transaction()
    for i in range(3):
        producer.produce(topic, f"kept-{i}".encode())
    producer.commit_transaction(60)
    producer.begin_transaction()
    producer.produce(topic, b"dropped")
    producer.flush(30)
    producer.abort_transaction(60)
    producer.begin_transaction()
    producer.produce(topic, b"kept-last")
    producer.commit_transaction(60)

    assert read_values(cluster, topic, "read_committed", 4) == [b"kept-0", b"kept-1", b"kept-2", b"kept-last"]
    # read_uncommitted sees the aborted record too (the markers are never delivered)
    assert read_values(cluster, topic, "read_uncommitted", 5) == [b"kept-0", b"kept-1", b"kept-2", b"dropped",
                                                                  b"kept-last"]


def test_a_second_producer_with_the_same_transactional_id_fences_the_first(cluster: ClusterRunner) -> None:
    topic = new_topic(cluster)
    transactional_id = f"fence-{topic}"
    first = transactional_producer(cluster, transactional_id)
    first.begin_transaction()
    first.produce(topic, b"from-the-first")
    first.flush(30)
    second = transactional_producer(cluster, transactional_id)  # bumps the epoch: the first's open one is aborted
    second.begin_transaction()
    second.produce(topic, b"from-the-second")
    second.commit_transaction(60)
    with pytest.raises(KafkaException) as raised:
        first.commit_transaction(30)
    error = raised.value.args[0]
    assert error.fatal() and error.code() == KafkaError._FENCED  # librdkafka's name for PRODUCER_FENCED
    assert read_values(cluster, topic, "read_committed", 1) == [b"from-the-second"]


def test_kafka_python_commits_offsets_with_its_transaction_and_infers_3_9(cluster: ClusterRunner) -> None:
    topic = new_topic(cluster)
    group = f"g-{topic}"
    producer = KafkaProducer(bootstrap_servers=bootstrap(cluster), transactional_id=f"kp-{topic}")
    try:
        assert producer.config["api_version"] >= (3, 9)
        producer.init_transactions()
        producer.begin_transaction()
        producer.send(topic, b"kept")
        # the offsets of a consumed input, committed only if the transaction is (AddOffsetsToTxn, TxnOffsetCommit)
        producer.send_offsets_to_transaction({KTopicPartition(topic, 0): OffsetAndMetadata(7, "", -1)}, group)
        producer.commit_transaction()
        producer.begin_transaction()
        producer.send(topic, b"dropped")
        producer.send_offsets_to_transaction({KTopicPartition(topic, 0): OffsetAndMetadata(99, "", -1)}, group)
        producer.flush()
        producer.abort_transaction()
    finally:
        producer.close()

    consumer = KafkaConsumer(bootstrap_servers=bootstrap(cluster), group_id=group, enable_auto_commit=False,
                             isolation_level="read_committed", consumer_timeout_ms=3000)
    try:
        partition = KTopicPartition(topic, 0)
        # the aborted transaction's offset (99) never became the group's
        wait_until(lambda: consumer.committed(partition) == 7, 30, "the committed offset 7")
        consumer.assign([partition])
        consumer.seek(partition, 0)
        assert [m.value for m in consumer] == [b"kept"]
    finally:
        consumer.close()


def test_list_and_describe_transactions_name_what_the_coordinator_holds(cluster: ClusterRunner) -> None:
    topic = new_topic(cluster)
    transactional_id = f"open-{topic}"
    producer = transactional_producer(cluster, transactional_id)
    producer.begin_transaction()
    producer.produce(topic, b"pending")
    producer.flush(30)  # the partition is now in the transaction, which stays open
    try:
        port = broker_port(cluster)
        listed = request_to(port, ApiKeys.LIST_TRANSACTIONS, 1, state_filters=("Ongoing",), producer_id_filters=(),
                            duration_filter=-1)
        assert Errors.for_code(listed.error_code) is Errors.NONE
        ongoing = {t.transactional_id: t for t in listed.transaction_states}
        assert ongoing[transactional_id].transaction_state == "Ongoing"

        described = request_to(port, ApiKeys.DESCRIBE_TRANSACTIONS, 0,
                               transactional_ids=(transactional_id, "no-such-id"))
        by_id = {t.transactional_id: t for t in described.transaction_states}
        state = by_id[transactional_id]
        assert Errors.for_code(state.error_code) is Errors.NONE and state.transaction_state == "Ongoing"
        assert state.producer_id == ongoing[transactional_id].producer_id
        assert state.transaction_timeout.total_seconds() == 60  # kio reads transactionTimeoutMs as a timedelta
        assert [(t.topic, list(t.partitions)) for t in state.topics] == [(topic, [0])]
        assert Errors.for_code(by_id["no-such-id"].error_code) is Errors.TRANSACTIONAL_ID_NOT_FOUND
    finally:
        producer.abort_transaction(60)
    # once aborted, the transactional id is listed in CompleteAbort, not Ongoing
    listed = wait_until(lambda: (r := request_to(broker_port(cluster), ApiKeys.LIST_TRANSACTIONS, 1,
                                                 state_filters=("CompleteAbort",), producer_id_filters=(),
                                                 duration_filter=-1))
                        and transactional_id in {t.transactional_id for t in r.transaction_states} and r,
                        30, "CompleteAbort in ListTransactions")
    assert Errors.for_code(listed.error_code) is Errors.NONE


def test_offset_delete_removes_a_committed_offset_of_a_group_that_no_longer_consumes_it(
        cluster: ClusterRunner) -> None:
    topic = new_topic(cluster, partitions=2)
    group = f"od-{topic}"
    consumer = Consumer({"bootstrap.servers": bootstrap(cluster), "group.id": group, "enable.auto.commit": False})
    try:
        consumer.commit(offsets=[TopicPartition(topic, 0, 5), TopicPartition(topic, 1, 6)], asynchronous=False)
    finally:
        consumer.close()
    admin = KafkaAdminClient(bootstrap_servers=bootstrap(cluster))
    try:
        result = admin.delete_group_offsets(group, [KTopicPartition(topic, 0)])
    finally:
        admin.close()
    assert {tp: error.__name__ for tp, error in result.items()} == {KTopicPartition(topic, 0): "NoError"}

    committed = Consumer({"bootstrap.servers": bootstrap(cluster), "group.id": group})
    try:
        offsets = committed.committed([TopicPartition(topic, 0), TopicPartition(topic, 1)], timeout=30)
        assert [tp.offset for tp in offsets] == [-1001, 6]  # partition 0's offset is gone (OFFSET_INVALID)
    finally:
        committed.close()

    # an unknown group: GROUP_ID_NOT_FOUND, as 3.9 answers it
    unknown = request_to(broker_port(cluster), ApiKeys.OFFSET_DELETE, 0, group_id="no-such-group",
                         topics=({"name": topic, "partitions": ({"partition_index": 0},)},))
    assert Errors.for_code(unknown.error_code) is Errors.GROUP_ID_NOT_FOUND


def test_offset_delete_on_an_active_group_spares_the_topics_its_members_consume(cluster: ClusterRunner) -> None:
    consumed, other = new_topic(cluster), new_topic(cluster)
    group = f"active-{consumed}"
    member = Consumer({"bootstrap.servers": bootstrap(cluster), "group.id": group, "enable.auto.commit": False})
    try:
        member.subscribe([consumed])
        wait_until(lambda: member.poll(0.2) is None and bool(member.assignment()), 60, "the member's assignment")
        member.commit(offsets=[TopicPartition(consumed, 0, 3), TopicPartition(other, 0, 4)], asynchronous=False)

        admin = KafkaAdminClient(bootstrap_servers=bootstrap(cluster))
        try:
            result = admin.delete_group_offsets(group, [KTopicPartition(consumed, 0), KTopicPartition(other, 0)])
        finally:
            admin.close()
        # 3.9: the group is Stable, so only the topic no member subscribes to loses its offset
        assert {tp.topic: error.__name__ for tp, error in result.items()} == {
            consumed: "GroupSubscribedToTopicError", other: "NoError"}
        offsets = member.committed([TopicPartition(consumed, 0), TopicPartition(other, 0)], timeout=30)
        assert [tp.offset for tp in offsets] == [3, -1001]
    finally:
        member.close()


# -- the trace (last: it stops the cluster) ----------------------------------------------------------------------------

CHECK_TRACE = REPO.parent / "shared" / "acceptance" / "check_trace.py"


@pytest.mark.skipif(not CHECK_TRACE.exists(), reason="shared/acceptance/check_trace.py is not in this checkout")
def test_check_trace_requires_tx39(cluster: ClusterRunner) -> None:
    cluster.down()
    # every TX39 row (TX39.txoffsets is conditional: check_trace leaves it out), now that the broker runs 3.9's own
    # transaction coordinator and marker channel
    done = subprocess.run([sys.executable, str(CHECK_TRACE), str(cluster.run.path), "--require", "TX39"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert done.stdout.strip().endswith("trace contract: OK")

    spans = load_run(cluster.run.path)
    # a transactional produce on the leader: its verification, the check it sends, and the coordinator's answer,
    # which joins the producer's trace through the request's traceparent
    produces = {s.trace_id for s in spans.where(step="RQ.produce.2") if s.attributes.get("kafka.transactional.id")}
    verified = [trace_id for trace_id in produces
                if {"TX39.verify", "TX39.vsend", "TX39.vcheck"} <= set(spans.where(trace_id=trace_id).steps())]
    assert verified, "no produce trace holds TX39.verify, TX39.vsend and TX39.vcheck"
