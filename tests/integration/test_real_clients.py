"""Real Kafka clients (kcat, confluent-kafka, kafka-python) producing to and fetching from one broker."""

from __future__ import annotations

import shutil
import subprocess
import uuid
from pathlib import Path

import pytest
from confluent_kafka import Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic
from kafka import KafkaConsumer, KafkaProducer
from kafka.record.default_records import DefaultRecordBatch

from tests.integration.helpers import wait_until

N = 2000


@pytest.fixture
def broker(brokers, tmp_path):
    return brokers("b0", broker_id="0", num_partitions="3").start().wait_running().wait_for_controller()


def bootstrap(broker) -> str:
    return broker.props["listeners"].removeprefix("PLAINTEXT://")


def read_all(bootstrap_servers: str, topic: str, expected: int) -> list[tuple[int, int, bytes, bytes]]:
    """(partition, offset, key, value) of every record, read by assignment (no consumer group)."""
    consumer = Consumer({"bootstrap.servers": bootstrap_servers, "group.id": "unused", "enable.auto.commit": False,
                         "auto.offset.reset": "earliest"})
    try:
        partitions = consumer.list_topics(topic, timeout=30).topics[topic].partitions
        consumer.assign([TopicPartition(topic, p, 0) for p in partitions])
        records: list[tuple[int, int, bytes, bytes]] = []

        def more() -> bool:
            for message in consumer.consume(num_messages=1000, timeout=0.5):
                if not message.error():
                    records.append((message.partition(), message.offset(), message.key(), message.value()))
            return len(records) >= expected
        wait_until(more, 90, f"{expected} records from {topic}")
        return records
    finally:
        consumer.close()


@pytest.mark.skipif(shutil.which("kcat") is None, reason="kcat is installed by ./run")
def test_kcat_produces_and_consumes(broker):
    topic = f"kcat-{uuid.uuid4().hex[:6]}"
    payload = "".join(f"k{i}:v{i}\n" for i in range(N))
    produced = subprocess.run(["kcat", "-b", bootstrap(broker), "-P", "-t", topic, "-K:", "-X",
                               "topic.request.required.acks=-1"], input=payload, text=True, capture_output=True,
                              timeout=120)
    assert produced.returncode == 0, produced.stderr
    consumed = subprocess.run(["kcat", "-b", bootstrap(broker), "-C", "-t", topic, "-o", "beginning", "-e", "-q",
                               "-K:"], capture_output=True, text=True, timeout=120)
    assert sorted(consumed.stdout.split()) == sorted(payload.split())


@pytest.mark.parametrize("compression", ["none", "gzip", "snappy", "lz4", "zstd"])
def test_confluent_idempotent_producer_with_compression(broker, compression):
    topic = f"ck-{compression}-{uuid.uuid4().hex[:6]}"
    errors: list[object] = []
    producer = Producer({"bootstrap.servers": bootstrap(broker), "acks": "all", "enable.idempotence": True,
                         "linger.ms": 5, "compression.type": compression})
    for i in range(N):
        producer.produce(topic, key=f"k{i}".encode(), value=f"v{i}".encode() * 10,
                         on_delivery=lambda err, _msg: errors.append(err) if err else None)
        producer.poll(0)
    assert producer.flush(60) == 0 and errors == []

    records = read_all(bootstrap(broker), topic, N)
    assert sorted(r[3] for r in records) == sorted(f"v{i}".encode() * 10 for i in range(N))
    for partition in {r[0] for r in records}:  # offsets are dense and in order within each partition
        offsets = [r[1] for r in records if r[0] == partition]
        assert offsets == list(range(len(offsets)))

    # The segment files hold Kafka's format: kafka-python's own batch parser reads every batch written.
    log_dir = Path(broker.props["log.dirs"])
    parsed = 0
    for segment in sorted(log_dir.glob(f"{topic}-*/*.log")):
        data = segment.read_bytes()
        position = 0
        while position < len(data):
            length = int.from_bytes(data[position + 8:position + 12], "big")
            batch = DefaultRecordBatch(data[position:position + 12 + length])
            assert batch.validate_crc()
            parsed += len(list(batch))
            position += 12 + length
    assert parsed == N


def test_kafka_python_default_producer_and_consumer(broker):
    topic = f"kp-{uuid.uuid4().hex[:6]}"
    producer = KafkaProducer(bootstrap_servers=bootstrap(broker), acks="all")
    futures = [producer.send(topic, key=f"k{i}".encode(), value=f"v{i}".encode()) for i in range(N)]
    producer.flush(60)
    producer.close()
    assert not [f for f in futures if f.failed()]
    consumer = KafkaConsumer(topic, bootstrap_servers=bootstrap(broker), auto_offset_reset="earliest",
                             consumer_timeout_ms=20000)
    values = {m.value for m in consumer}
    consumer.close()
    assert values == {f"v{i}".encode() for i in range(N)}


def test_topic_admin_through_the_admin_client(broker, zookeeper):
    admin = AdminClient({"bootstrap.servers": bootstrap(broker)})
    topic = f"admin-{uuid.uuid4().hex[:6]}"
    admin.create_topics([NewTopic(topic, num_partitions=4, replication_factor=1,
                                  config={"retention.ms": "3600000"})])[topic].result(30)
    assert zookeeper.exists(f"/brokers/topics/{topic}")
    assert len(admin.list_topics(topic, timeout=10).topics[topic].partitions) == 4
    duplicate = admin.create_topics([NewTopic(topic, num_partitions=1, replication_factor=1)])[topic]
    with pytest.raises(Exception, match="TOPIC_ALREADY_EXISTS"):
        duplicate.result(30)
    too_many = admin.create_topics([NewTopic(f"{topic}-rf", num_partitions=1, replication_factor=3)])
    with pytest.raises(Exception, match="INVALID_REPLICATION_FACTOR"):
        too_many[f"{topic}-rf"].result(30)

    # The answer comes once brokers stop serving the topic; the controller removes its znodes when every replica
    # has been deleted (StopReplica), just after.
    admin.delete_topics([topic])[topic].result(30)
    wait_until(lambda: not zookeeper.exists(f"/brokers/topics/{topic}"), 10, "the controller to remove the topic")
    wait_until(lambda: not list(Path(broker.props["log.dirs"]).glob(f"{topic}-*")) or all(
        p.name.endswith("-delete") for p in Path(broker.props["log.dirs"]).glob(f"{topic}-*")), 30,
        "the topic's logs to be taken out of service")


def test_every_request_is_one_trace_across_processor_and_handler_threads(broker):
    topic = f"traced-{uuid.uuid4().hex[:6]}"
    producer = Producer({"bootstrap.servers": bootstrap(broker), "acks": "all"})
    producer.produce(topic, value=b"hello")
    assert producer.flush(30) == 0

    def produce_trace():
        spans = broker.spans()
        roots = [s for s in spans.where(name="RequestChannel.Request") if s.attributes["kafka.api.name"] == "Produce"]
        return (spans, roots[0]) if roots else None
    spans, root = wait_until(produce_trace, 10, "the produce request's trace")
    trace = spans.where(trace_id=root.trace_id)
    # the topic's first append is its leader's first in epoch 0: the log records the epoch (LE.assign) as it appends
    assert trace.steps() == ["NW.processor.4", "NW.handler.1", "NW.apis.1", "NW.apis.produce", "NW.rm.append",
                             "NW.log.append", "LE.assign", "NW.channel.resp"]
    threads = {s.step or s.name: s.attributes["thread.name"] for s in trace if s is not root}
    assert threads["NW.processor.4"].startswith("kafka-network-thread-")
    assert threads["NW.handler.1"].startswith("kafka-request-handler-")
    assert threads["Processor.sendResponse"].startswith("kafka-network-thread-")  # and back
    metrics = {k: v for k, v in root.attributes.items() if k.startswith("kafka.request.")}
    assert set(metrics) >= {"kafka.request.queue_time_ms", "kafka.request.local_time_ms",
                            "kafka.request.remote_time_ms", "kafka.request.throttle_time_ms",
                            "kafka.request.response_queue_time_ms", "kafka.request.response_send_time_ms",
                            "kafka.request.total_time_ms"}
    parts = sum(metrics[f"kafka.request.{k}_time_ms"] for k in ("queue", "local", "remote", "response_queue",
                                                                   "response_send"))
    total = metrics["kafka.request.total_time_ms"]
    # The parts add up to the total, except in the race Kafka's metrics have too: the follower's fetch completes the
    # acks=all produce (response complete) before the handler thread marks its local part done; remote time is then
    # clamped to 0 and local time runs past the response, so the parts add up to more.
    assert abs(parts - total) < 1.0 or (metrics["kafka.request.remote_time_ms"] == 0 and parts > total)
