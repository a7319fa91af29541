"""The partition leader's side of transactions on a real broker: transactional batches hold the last stable offset
back, WriteTxnMarkers (sent here as a coordinator would) writes the COMMIT and ABORT control batches, a read_committed
Fetch stops at the LSO and lists the aborted transactions, and real consumers in read_committed see only committed
data. Bad markers get 1.0.2's errors; the TX.write span is in the run's trace. Last, the same through the real
coordinator with kafka-python's transactional producer, and check_trace --require TX on the run."""

from __future__ import annotations

import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from confluent_kafka import Consumer
from confluent_kafka import TopicPartition as ConfluentTopicPartition
from confluent_kafka.admin import AdminClient, NewTopic
from kafka import KafkaConsumer, KafkaProducer
from kafka import TopicPartition as KafkaPythonTopicPartition
from kafka.record.default_records import DefaultRecordBatchBuilder
from kafka.structs import OffsetAndMetadata

from kafka_edu.cluster_runner.runner import ClusterRunner
from kafka_edu.tracing.query import load_run
from kafka_edu.v1_0_2.clients.common.record.compression_type import CompressionType
from kafka_edu.v1_0_2.clients.common.record.end_transaction_marker import EndTransactionMarker
from kafka_edu.v1_0_2.clients.common.record.file_records import MemoryRecords, TimestampType
from kafka_edu.v1_0_2.clients.common.record.memory_records_builder import MemoryRecordsBuilder
from kafka_edu.v1_0_2.core.log.transaction_index import AbortedTxn, TransactionIndex
from kafka_edu.v3_9.clients.common.protocol import ApiKeys, Errors
from kafka_edu.v3_9.clients.common.protocol.builder import build
from kafka_edu.v3_9.clients.common.record.control_record_utils import ControlRecordType
from tests.integration.helpers import REPO, wait_until
from tests.integration.kafka_wire import WireConnection

CHECK_TRACE = REPO.parent / "shared" / "acceptance" / "check_trace.py"
OVERRIDES = ["offsets.topic.replication.factor=1", "transaction.state.log.replication.factor=1",
             "transaction.state.log.min.isr=1", "group.initial.rebalance.delay.ms=0"]
READ_UNCOMMITTED, READ_COMMITTED = 0, 1
NOW_MS = int(time.time() * 1000)  # the markers' time too: records from long ago would roll the segment (segment.ms)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ClusterRunner]:
    runner = ClusterRunner.up(1, tmp_path_factory.mktemp("read-committed") / "traces", overrides=OVERRIDES,
                              timeout_s=90)
    try:
        yield runner
    finally:
        runner.down()


@pytest.fixture(scope="module")
def bootstrap(cluster: ClusterRunner) -> str:
    return cluster.run.read_manifest()["bootstrap_servers"]


@pytest.fixture(scope="module")
def address(bootstrap: str) -> tuple[str, int]:
    host, port = bootstrap.split(",")[0].rsplit(":", 1)
    return host, int(port)


def new_topic(bootstrap: str, partitions: int = 1) -> str:
    topic = f"orders-{uuid.uuid4().hex[:8]}"
    admin = AdminClient({"bootstrap.servers": bootstrap})
    admin.create_topics([NewTopic(topic, partitions, 1)])[topic].result(30)
    wait_until(lambda: topic in admin.list_topics(timeout=5).topics
               and not admin.list_topics(timeout=5).topics[topic].error, 30, f"{topic} in the metadata")
    return topic


# -- the wire ------------------------------------------------------------------------------------------------------

def txn_batch(producer_id: int, base_sequence: int, values: list[bytes], epoch: int = 0) -> bytes:
    builder = DefaultRecordBatchBuilder(magic=2, compression_type=0, is_transactional=True, producer_id=producer_id,
                                        producer_epoch=epoch, base_sequence=base_sequence, batch_size=1 << 20)
    for i, value in enumerate(values):
        builder.append(i, timestamp=NOW_MS, key=None, value=value, headers=[])
    return bytes(builder.build())


def plain_batch(values: list[bytes]) -> bytes:
    builder = DefaultRecordBatchBuilder(magic=2, compression_type=0, is_transactional=False, producer_id=-1,
                                        producer_epoch=-1, base_sequence=-1, batch_size=1 << 20)
    for i, value in enumerate(values):
        builder.append(i, timestamp=NOW_MS, key=None, value=value, headers=[])
    return bytes(builder.build())


def produce(conn: WireConnection, topic: str, batch: bytes, transactional_id: str | None = None) -> tuple[Errors, int]:
    body = build(ApiKeys.PRODUCE.request_schema(3), transactional_id=transactional_id, acks=-1, timeout=30000,
                 topic_data=[dict(name=topic, partition_data=[dict(index=0, records=batch)])])
    [partition] = conn.request(ApiKeys.PRODUCE, 3, body).responses[0].partition_responses
    return Errors.for_code(partition.error_code), partition.base_offset


def fetch(conn: WireConnection, topic: str, isolation_level: int, fetch_offset: int = 0, version: int = 4) -> Any:
    body = build(ApiKeys.FETCH.request_schema(version), replica_id=-1, max_wait=0, min_bytes=0, max_bytes=1 << 20,
                 isolation_level=isolation_level, topics=[dict(topic=topic, partitions=[dict(
                     partition=0, fetch_offset=fetch_offset, log_start_offset=-1, partition_max_bytes=1 << 20)])])
    return conn.request(ApiKeys.FETCH, version, body).responses[0].partitions[0]


def fetched_offsets(partition_data: Any) -> list[int]:
    return [r.offset for b in MemoryRecords(bytes(partition_data.records or b"")).batches() for r in b.records()]


def list_latest(conn: WireConnection, topic: str, isolation_level: int) -> int:
    body = build(ApiKeys.LIST_OFFSETS.request_schema(2), replica_id=-1, isolation_level=isolation_level,
                 topics=[dict(name=topic, partitions=[dict(partition_index=0, timestamp=-1)])])
    [partition] = conn.request(ApiKeys.LIST_OFFSETS, 2, body).topics[0].partitions
    assert Errors.for_code(partition.error_code) is Errors.NONE
    return partition.offset


def write_markers(conn: WireConnection, *markers: dict[str, Any], version: int = 0) -> dict[tuple[int, str, int],
                                                                                            Errors]:
    """WriteTxnMarkers as a transaction coordinator sends it; (producer id, topic, partition) -> error."""
    body = build(ApiKeys.WRITE_TXN_MARKERS.request_schema(version), markers=list(markers))
    response = conn.request(ApiKeys.WRITE_TXN_MARKERS, version, body)
    return {(m.producer_id, t.name, p.partition_index): Errors.for_code(p.error_code)
            for m in response.markers for t in m.topics for p in t.partitions}


def marker(producer_id: int, commit: bool, topic: str, epoch: int = 0, coordinator_epoch: int = 0,
           partitions: tuple[int, ...] = (0,)) -> dict[str, Any]:
    return dict(producer_id=producer_id, producer_epoch=epoch, transaction_result=commit,
                topics=[dict(name=topic, partition_indexes=list(partitions))], coordinator_epoch=coordinator_epoch)


# -- the tests -----------------------------------------------------------------------------------------------------

def test_read_committed_stops_at_the_lso_and_lists_the_aborted_transaction(bootstrap, address) -> None:
    topic = new_topic(bootstrap)
    a, b = 9_000_001, 9_000_002  # two producers' transactions, interleaved
    with WireConnection(address) as conn:
        assert produce(conn, topic, plain_batch([b"plain-0"])) == (Errors.NONE, 0)                   # 0
        assert produce(conn, topic, txn_batch(a, 0, [b"a-0", b"a-1"]), "txn-a") == (Errors.NONE, 1)  # 1-2
        assert produce(conn, topic, txn_batch(b, 0, [b"b-0"]), "txn-b") == (Errors.NONE, 3)          # 3
        assert produce(conn, topic, plain_batch([b"plain-1"])) == (Errors.NONE, 4)                   # 4
        assert produce(conn, topic, txn_batch(a, 2, [b"a-2"]), "txn-a") == (Errors.NONE, 5)          # 5

        # Both transactions are open: a read_committed consumer sees only offset 0.
        committed = fetch(conn, topic, READ_COMMITTED)
        assert (committed.high_watermark, committed.last_stable_offset) == (6, 1)
        assert fetched_offsets(committed) == [0] and list(committed.aborted_transactions) == []
        uncommitted = fetch(conn, topic, READ_UNCOMMITTED)
        assert fetched_offsets(uncommitted) == [0, 1, 2, 3, 4, 5]
        assert uncommitted.last_stable_offset == -1 and uncommitted.aborted_transactions is None  # 1.0.2's answer
        assert (list_latest(conn, topic, READ_COMMITTED), list_latest(conn, topic, READ_UNCOMMITTED)) == (1, 6)

        # The coordinator aborts a's transaction and commits b's, in one request.
        errors = write_markers(conn, marker(a, False, topic), marker(b, True, topic))
        assert errors == {(a, topic, 0): Errors.NONE, (b, topic, 0): Errors.NONE}
        committed = fetch(conn, topic, READ_COMMITTED)
        assert (committed.high_watermark, committed.last_stable_offset) == (8, 8)
        assert [(t.producer_id, t.first_offset) for t in committed.aborted_transactions] == [(a, 1)]
        batches = list(MemoryRecords(bytes(committed.records)).batches())
        assert [(bt.base_offset, bt.is_control_batch) for bt in batches][-2:] == [(6, True), (7, True)]
        assert list_latest(conn, topic, READ_COMMITTED) == 8
        # From past the abort's marker there is nothing aborted to report.
        assert list(fetch(conn, topic, READ_COMMITTED, fetch_offset=7).aborted_transactions) == []

    # Real consumers in read_committed drop a's records and every control record; read_uncommitted keeps a's.
    def confluent_values(isolation: str) -> list[bytes]:
        consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": f"g-{uuid.uuid4().hex[:6]}",
                             "isolation.level": isolation, "enable.auto.commit": False})
        try:
            consumer.assign([ConfluentTopicPartition(topic, 0, 0)])
            values: list[bytes] = []
            wait_until(lambda: values.extend(m.value() for m in consumer.consume(10, 1) if not m.error())
                       or len(values) >= (3 if isolation == "read_committed" else 6), 30, f"{isolation} records")
            values.extend(m.value() for m in consumer.consume(10, 0.5) if not m.error())
            return values
        finally:
            consumer.close()

    assert confluent_values("read_committed") == [b"plain-0", b"b-0", b"plain-1"]
    assert confluent_values("read_uncommitted") == [b"plain-0", b"a-0", b"a-1", b"b-0", b"plain-1", b"a-2"]
    consumer = KafkaConsumer(bootstrap_servers=bootstrap, isolation_level="read_committed", enable_auto_commit=False,
                             consumer_timeout_ms=3000)
    try:
        consumer.assign([KafkaPythonTopicPartition(topic, 0)])
        consumer.seek(KafkaPythonTopicPartition(topic, 0), 0)
        assert [m.value for m in consumer] == [b"plain-0", b"b-0", b"plain-1"]
    finally:
        consumer.close()


def test_bad_markers_get_1_0_2s_errors_and_nothing_acknowledged_is_lost(bootstrap, address) -> None:
    topic = new_topic(bootstrap)
    p = 9_000_100
    with WireConnection(address) as conn:
        assert produce(conn, topic, txn_batch(p, 0, [b"t-0"], epoch=3), "txn-p") == (Errors.NONE, 0)
        # A partition this broker does not have: only that partition fails, and no append is tried for it.
        errors = write_markers(conn, marker(p, True, "no-such-topic"), marker(p, True, topic, partitions=(7,)))
        assert errors == {(p, "no-such-topic", 0): Errors.UNKNOWN_TOPIC_OR_PARTITION,
                          (p, topic, 7): Errors.UNKNOWN_TOPIC_OR_PARTITION}
        assert write_markers(conn) == {}  # no markers: an empty answer
        # A marker of an older producer epoch than the data's is fenced (1.0.2 names it INVALID_PRODUCER_EPOCH).
        assert write_markers(conn, marker(p, False, topic, epoch=2)) == {(p, topic, 0): Errors.INVALID_PRODUCER_EPOCH}
        # A coordinator of epoch 5 commits; a zombie coordinator of epoch 4 is fenced afterwards.
        assert write_markers(conn, marker(p, True, topic, epoch=3, coordinator_epoch=5)) == {
            (p, topic, 0): Errors.NONE}
        assert produce(conn, topic, txn_batch(p, 1, [b"t-1"], epoch=3), "txn-p") == (Errors.NONE, 2)
        assert write_markers(conn, marker(p, False, topic, epoch=3, coordinator_epoch=4)) == {
            (p, topic, 0): Errors.TRANSACTION_COORDINATOR_FENCED}
        # The zombie producer of epoch 2 cannot write either.
        assert produce(conn, topic, txn_batch(p, 0, [b"zombie"], epoch=2), "txn-p")[0] is Errors.INVALID_PRODUCER_EPOCH
        # A control batch from a client is refused (InvalidRecordException: CORRUPT_MESSAGE in 1.0.2).
        forged = MemoryRecordsBuilder(CompressionType.NONE, TimestampType.CREATE_TIME, 0, NOW_MS, p, 3, 2, True, -1,
                                      is_control_batch=True)
        forged.append_end_txn_marker(NOW_MS, EndTransactionMarker(ControlRecordType.COMMIT, 5))
        assert produce(conn, topic, bytes(forged.build().buffer), "txn-p")[0] is Errors.CORRUPT_MESSAGE
        assert produce(conn, topic, txn_batch(p, 2, [b"x"], epoch=3), "txn-p") == (Errors.NONE, 3)
        assert write_markers(conn, marker(p, True, topic, epoch=3, coordinator_epoch=5)) == {
            (p, topic, 0): Errors.NONE}
        committed = fetch(conn, topic, READ_COMMITTED)
        values = [r.value for bt in MemoryRecords(bytes(committed.records)).batches() if not bt.is_control_batch
                  for r in bt.records()]
        assert values == [b"t-0", b"t-1", b"x"] and list(committed.aborted_transactions) == []
        assert committed.last_stable_offset == committed.high_watermark == 5

    # An isolation level that is neither 0 nor 1 fails the request's parse: the connection is closed, and the broker
    # serves everyone else as before.
    with WireConnection(address) as conn:
        conn.send_frame(conn.encode(ApiKeys.FETCH, 4, build(
            ApiKeys.FETCH.request_schema(4), replica_id=-1, max_wait=0, min_bytes=0, max_bytes=1024,
            isolation_level=7, topics=[dict(topic=topic, partitions=[dict(partition=0, fetch_offset=0,
                                                                          partition_max_bytes=1024)])])))
        assert conn.is_closed_by_peer()
    with WireConnection(address) as conn:
        assert fetch(conn, topic, READ_COMMITTED).last_stable_offset == 5


@pytest.mark.skipif(not CHECK_TRACE.exists(), reason="shared/acceptance/check_trace.py is not in this checkout")
def test_each_marker_write_is_a_tx_write_span_and_the_trace_passes_check_trace(cluster, bootstrap, address) -> None:
    topic = new_topic(bootstrap)
    p = 9_000_200
    with WireConnection(address) as conn:
        produce(conn, topic, txn_batch(p, 0, [b"x"]), "txn-trace")
        write_markers(conn, marker(p, False, topic))  # v0, what a 1.0.2 coordinator sends

    def tx_write_spans() -> list[Any]:
        return [s for s in load_run(cluster.run.path).where(step="TX.write")
                if f"{topic}-0" in s.attributes.get("kafka.txn.partitions", ())]
    [span] = wait_until(tx_write_spans, 30, "the TX.write span of the abort")
    assert span.name == "KafkaApis.handleWriteTxnMarkersRequest"
    assert span.attributes["kafka.txn.results"] == ["ABORT"]
    assert span.attributes["kafka.txn.aborts.indexed"] == [f"{topic}-0 producer={p} first=0 marker=1 lso=2"]
    assert span.attributes["kafka.txn.partitions.written"] == [f"{topic}-0 leo=2 lso=2 hw=2"]
    done = subprocess.run([sys.executable, str(CHECK_TRACE), str(cluster.run.path), "--require", "TX.write"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr


def test_a_kafka_python_transactional_producer_end_to_end(cluster, bootstrap, address) -> None:
    """Through the real coordinator: the abort lands in the leader's .txnindex under the producer id InitProducerId
    gave, read_committed consumers skip it, and the leader's TX.write is in the transaction's trace."""
    topic = new_topic(bootstrap)
    producer = KafkaProducer(bootstrap_servers=bootstrap, transactional_id=f"kp-{topic}")
    try:
        producer.init_transactions()
        producer.begin_transaction()
        producer.send(topic, b"kept")
        # offsets of a (pretend) consumed input, committed with the transaction (TX.offsets)
        producer.send_offsets_to_transaction({KafkaPythonTopicPartition(topic, 0): OffsetAndMetadata(1, "", -1)},
                                             f"g-{topic}")
        producer.commit_transaction()
        producer.begin_transaction()
        producer.send(topic, b"dropped")
        producer.flush()
        producer.abort_transaction()
        producer_id = producer._transaction_manager.producer_id_and_epoch.producer_id
    finally:
        producer.close()

    # EndTxn is answered once PrepareAbort is durable; the markers follow. kept 0, COMMIT 1, dropped 2, ABORT 3:
    with WireConnection(address) as conn:
        committed = wait_until(lambda: (f := fetch(conn, topic, READ_COMMITTED)).last_stable_offset == 4 and f, 30,
                               "the ABORT marker below the high watermark")
        assert [(t.producer_id, t.first_offset) for t in committed.aborted_transactions] == [(producer_id, 2)]
    # the abort is in the leader's index with the LSO right after its marker
    log_dir = cluster.run.path / "broker-0" / "logs" / f"{topic}-0"
    index = TransactionIndex(0, log_dir / "00000000000000000000.txnindex")
    try:
        assert index.all_aborted_txns() == [AbortedTxn(producer_id, 2, 3, 4)]
    finally:
        index.close()
    consumer = KafkaConsumer(bootstrap_servers=bootstrap, isolation_level="read_committed", enable_auto_commit=False,
                             consumer_timeout_ms=3000)
    try:
        consumer.assign([KafkaPythonTopicPartition(topic, 0)])
        consumer.seek(KafkaPythonTopicPartition(topic, 0), 0)
        assert [m.value for m in consumer] == [b"kept"]
    finally:
        consumer.close()

    def marker_writes() -> list[Any]:
        return [s for s in load_run(cluster.run.path).where(step="TX.write")
                if f"{topic}-0" in s.attributes.get("kafka.txn.partitions", ())]
    writes = wait_until(lambda: len(marker_writes()) >= 2 and marker_writes(), 30, "both markers' TX.write spans")
    spans = load_run(cluster.run.path)
    for write in writes:  # each a child of the coordinator's send, in a trace that the transaction's TX.add opened
        assert write.parent_id and spans.where(trace_id=write.trace_id, step="TX.add")
    assert sorted(w.attributes["kafka.txn.results"][0] for w in writes) == ["ABORT", "COMMIT"]
    done = subprocess.run([sys.executable, str(CHECK_TRACE), str(cluster.run.path), "--require", "TX"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
