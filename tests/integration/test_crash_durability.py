"""kill -9 the broker under an idempotent acks=all producer: nothing acknowledged is lost or duplicated."""

from __future__ import annotations

import threading
from collections import defaultdict

import pytest
from confluent_kafka import Consumer, Producer, TopicPartition

from tests.integration.helpers import wait_until

RECORDS = 200_000


@pytest.mark.slow
def test_every_acknowledged_record_survives_kill_9_exactly_once_in_order(brokers, zookeeper, tmp_path):
    log_dir = tmp_path / "logs"
    props = dict(broker_id="0", num_partitions="3", zookeeper_session_timeout_ms="2000")
    broker = brokers("first", log_dirs=[log_dir], **props).start().wait_running()
    bootstrap = broker.props["listeners"].removeprefix("PLAINTEXT://")

    acked: dict[int, list[tuple[int, int]]] = defaultdict(list)  # partition -> [(offset, sequence number)]
    failures: list[str] = []
    lock = threading.Lock()

    def on_delivery(err, message) -> None:
        with lock:
            if err:
                failures.append(str(err))
            else:
                acked[message.partition()].append((message.offset(), int(message.value())))

    def acked_count() -> int:
        with lock:
            return sum(len(v) for v in acked.values())

    producer = Producer({"bootstrap.servers": bootstrap, "acks": "all", "enable.idempotence": True, "linger.ms": 5,
                         "message.timeout.ms": 120000})
    stop_polling = threading.Event()
    poller = threading.Thread(target=lambda: [producer.poll(0.1) for _ in iter(stop_polling.is_set, True)])
    poller.start()
    try:
        for i in range(RECORDS):
            while True:
                try:
                    producer.produce("crash", value=f"{i:07d}".encode(), on_delivery=on_delivery)
                    break
                except BufferError:  # the local queue is full: let deliveries drain
                    producer.poll(0.1)
            if i == RECORDS // 3:
                wait_until(lambda: acked_count() > RECORDS // 10, 60, "a share of the records to be acknowledged")
                broker.kill()
                wait_until(lambda: not zookeeper.exists("/brokers/ids/0"), 30, "the dead broker's session to expire")
                brokers("second", log_dirs=[log_dir], listeners=broker.props["listeners"], **props).start()
        assert producer.flush(180) == 0
    finally:
        stop_polling.set()
        poller.join()
    assert failures == []
    assert acked_count() == RECORDS

    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": "unused", "enable.auto.commit": False})
    read: dict[int, list[tuple[int, int]]] = defaultdict(list)
    try:
        consumer.assign([TopicPartition("crash", p, 0) for p in range(3)])

        def read_more() -> bool:
            for message in consumer.consume(num_messages=5000, timeout=0.5):
                if not message.error():
                    read[message.partition()].append((message.offset(), int(message.value())))
            return sum(len(v) for v in read.values()) >= RECORDS
        wait_until(read_more, 120, "every record to be read back")
    finally:
        consumer.close()

    for partition, records in read.items():
        sequence = [number for _, number in sorted(records)]
        assert sequence == sorted(sequence), f"partition {partition} is out of order"
        assert sorted(records) == sorted(acked[partition])  # same offsets, same records: no loss, no duplicate
    assert sorted(n for records in read.values() for _, n in records) == list(range(RECORDS))
