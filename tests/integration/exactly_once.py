"""Our own test code: the exactly-once consume-transform-produce loop across a kill -9 of the transaction
coordinator's broker, and the helpers around it, shared by the ZooKeeper-mode test (1.0.2's coordinator,
test_transactions.py) and the KRaft one (test_kraft_transactions_failover.py).

The cluster must have `__transaction_state` and `__consumer_offsets` with one partition each, replicated to every
broker (so one broker is the coordinator and the kill moves it), and the topics it creates are replicated 3 times.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from typing import TypeVar

from confluent_kafka import OFFSET_BEGINNING, Consumer, KafkaException, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

from kafka_edu.cluster_runner.runner import ClusterRunner
from tests.integration.helpers import wait_until

T = TypeVar("T")
TXN_STATE = "__transaction_state"


def bootstrap(runner: ClusterRunner) -> str:
    return runner.run.read_manifest()["bootstrap_servers"]


def create_topics(runner: ClusterRunner, *names: str, partitions: int = 3) -> None:
    admin = AdminClient({"bootstrap.servers": bootstrap(runner)})
    for future in admin.create_topics([NewTopic(name, partitions, 3) for name in names]).values():
        future.result(60)
    wait_until(lambda: all(len(admin.list_topics(name, timeout=10).topics[name].partitions) == partitions
                           and all(p.leader >= 0 for p in admin.list_topics(name, timeout=10).topics[name]
                                   .partitions.values()) for name in names), 60, f"leaders for {names}")


def read_all(runner: ClusterRunner, topic: str, isolation: str, expected: int, partitions: int = 3,
             timeout_s: float = 90) -> list[bytes]:
    """Every record a consumer with `isolation` reads from the topic: until `expected` arrived and each partition's
    position reached its end (so nothing more is coming)."""
    consumer = Consumer({"bootstrap.servers": bootstrap(runner), "group.id": f"verify-{uuid.uuid4()}",
                         "isolation.level": isolation, "enable.auto.commit": False})
    values: list[bytes] = []
    try:
        tps = [TopicPartition(topic, p, OFFSET_BEGINNING) for p in range(partitions)]
        consumer.assign(tps)
        deadline = time.monotonic() + timeout_s

        def at_end() -> bool:
            for tp in consumer.position([TopicPartition(topic, p) for p in range(partitions)]):
                low, high = consumer.get_watermark_offsets(tp, timeout=10)
                if high > low and tp.offset < high:  # an empty partition has no position to reach
                    return False
            return True

        while time.monotonic() < deadline:
            for message in consumer.consume(100, 0.5):
                if message.error() is None:
                    values.append(message.value())
            if len(values) >= expected and at_end():
                break
    finally:
        consumer.close()
    return values


def coordinator_of_transactions(runner: ClusterRunner) -> int:
    admin = AdminClient({"bootstrap.servers": bootstrap(runner)})
    return admin.list_topics(TXN_STATE, timeout=10).topics[TXN_STATE].partitions[0].leader


def produce_input(runner: ClusterRunner, topic: str, n: int) -> list[bytes]:
    producer = Producer({"bootstrap.servers": bootstrap(runner), "enable.idempotence": True})
    values = [b"in-%04d" % i for i in range(n)]
    for i, value in enumerate(values):
        producer.produce(topic, key=b"%d" % i, value=value)
    assert producer.flush(60) == 0
    return values


def rewind_to_committed(consumer: Consumer) -> None:
    """After an abort: the consumer goes back to the offsets the last committed transaction left."""
    assignment = consumer.assignment()
    for tp in retrying(lambda: consumer.committed(assignment, timeout=30)):
        consumer.seek(TopicPartition(tp.topic, tp.partition, tp.offset if tp.offset >= 0 else OFFSET_BEGINNING))


def retrying(operation: Callable[[], T], deadline: float | None = None) -> T:
    """librdkafka's advice for a retriable error (a timeout while the coordinator moves): call again, until the
    deadline (time.monotonic()) if there is one."""
    while True:
        try:
            return operation()
        except KafkaException as e:
            if not e.args[0].retriable() or (deadline is not None and time.monotonic() > deadline):
                raise


def after_the_kill(runner: ClusterRunner) -> str:
    """What a failure after the kill needs to be understood: leader and ISR of the partitions the transaction
    touches, and what each broker logged at WARN or above since the kill."""
    lines = []
    admin = AdminClient({"bootstrap.servers": bootstrap(runner)})
    try:
        for topic in (TXN_STATE, "__consumer_offsets", "ctp-out"):
            for p, meta in sorted(admin.list_topics(topic, timeout=10).topics[topic].partitions.items()):
                lines.append(f"{topic}-{p}: leader {meta.leader} isr {meta.isrs}")
    except KafkaException as e:
        lines.append(f"metadata: {e}")
    manifest = runner.run.read_manifest()
    kills = [f["time_ns"] for f in manifest.get("faults", []) if f["fault"] == "kill -9"]
    since = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(kills[-1] / 1e9)) if kills else ""
    for log in sorted(runner.run.path.glob("broker-*.log")):
        logged = [line for line in log.read_text(errors="replace").splitlines()
                  if line[1:20] >= since and ("WARN" in line or "ERROR" in line)]
        lines += [f"{log.name}: {line[:300]}" for line in logged[-40:]]
    return "\n".join(lines)


def consume_transform_produce_across_a_kill(cluster: ClusterRunner, running_state: str) -> None:
    """A consume-transform-produce loop of transactions (read_committed in, transactional out, the input's offsets
    committed with each transaction), the transaction coordinator's broker killed with -9 in the middle of the fourth
    transaction; then every input record must be in the output exactly once. The killed broker is started again
    (until `running_state`) for the tests after."""
    create_topics(cluster, "ctp-in", "ctp-out")
    n = 120
    inputs = produce_input(cluster, "ctp-in", n)
    consumer = Consumer({"bootstrap.servers": bootstrap(cluster), "group.id": "ctp", "isolation.level":
                         "read_committed", "enable.auto.commit": False, "auto.offset.reset": "earliest",
                         "session.timeout.ms": 10000})
    # The transaction open across the kill must outlive the failover: past transaction.timeout.ms the new
    # coordinator aborts it by bumping the epoch (TX.expire), which fences this producer, as Kafka does. On a loaded
    # machine the failover took more than a minute, so the timeout is the most this cluster allows (OVERRIDES).
    producer = Producer({"bootstrap.servers": bootstrap(cluster), "transactional.id": "ctp-1",
                         "transaction.timeout.ms": 120000})
    retrying(lambda: producer.init_transactions(60))
    consumer.subscribe(["ctp-in"])
    killed = None
    transactions = aborts = 0
    deadline = time.monotonic() + 400
    try:
        while time.monotonic() < deadline:
            committed = retrying(lambda: consumer.committed([TopicPartition("ctp-in", p) for p in range(3)],
                                                            timeout=30))
            if sum(max(tp.offset, 0) for tp in committed) >= n:
                break
            messages = [m for m in consumer.consume(15, 1.0) if m.error() is None]
            if not messages:
                continue
            producer.begin_transaction()
            for message in messages:
                producer.produce("ctp-out", key=message.key(), value=b"out:" + message.value())
            if transactions == 3 and killed is None:
                # in the middle of the fourth transaction: its records are produced, nothing is committed
                producer.flush(60)
                killed = coordinator_of_transactions(cluster)
                cluster.kill(killed)
            try:
                positions = consumer.position(consumer.assignment())
                group_metadata = consumer.consumer_group_metadata()
                retrying(lambda p=positions, g=group_metadata: producer.send_offsets_to_transaction(p, g, 60),
                         deadline)
                retrying(lambda: producer.commit_transaction(60), deadline)
                transactions += 1
            except KafkaException as e:
                if not e.args[0].txn_requires_abort():
                    raise AssertionError(f"{e} after {transactions} transactions\n{after_the_kill(cluster)}") from e
                retrying(lambda: producer.abort_transaction(60), deadline)
                aborts += 1
                rewind_to_committed(consumer)
    finally:
        consumer.close()
    progress = f"killed={killed} transactions={transactions} aborts={aborts}"
    assert killed is not None and transactions >= 4, progress
    assert coordinator_of_transactions(cluster) != killed

    out = read_all(cluster, "ctp-out", "read_committed", n, timeout_s=180)
    assert len(out) == len(set(out)), "a record was written twice"
    assert sorted(out) == sorted(b"out:" + value for value in inputs), (len(out), n, progress)

    cluster.start(killed)  # back for the tests after this one
    cluster.wait_for_state(killed, running_state, 120)
