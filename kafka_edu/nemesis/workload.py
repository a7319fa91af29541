"""Our own code, not a Kafka port: the nemesis's workload, real clients (confluent-kafka) whose every step goes into
the history (history.py).

Producers send at a stated total rate, each record's key and value its unique id (`p<producer>-<n>`), to a partition
chosen by the workload (so the send already names it); optionally in transactions of a few records, some aborted on
purpose. Consumers in one group read with read_committed and commit after each batch. At the end, the read-back
reads every partition from its first offset, with read_committed and then with read_uncommitted.
"""

from __future__ import annotations

import random
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from confluent_kafka import OFFSET_BEGINNING, Consumer, KafkaError, KafkaException, Producer, TopicPartition

from kafka_edu.nemesis.checker import FINAL, FINAL_UNCOMMITTED
from kafka_edu.nemesis.history import History

# Send errors after which the record was certainly not written: it never left the client, or the broker refused it
# for good. After any other (a timeout, a lost connection, a retriable error on the last try) it may have been.
DEFINITE_FAILURES = frozenset({KafkaError._PURGE_QUEUE, KafkaError.MSG_SIZE_TOO_LARGE, KafkaError.INVALID_MSG_SIZE,
                               KafkaError.INVALID_RECORD, KafkaError._INVALID_ARG,
                               KafkaError.TOPIC_AUTHORIZATION_FAILED, KafkaError._UNKNOWN_TOPIC})
TXN_TIMEOUT_S = 30.0
# librdkafka logs every lost connection (a fault does that on purpose) to stderr; its errors reach the history through
# the callbacks instead, so only critical ones are logged
CLIENT_LOG_LEVEL = 2


@dataclass
class WorkloadSettings:
    bootstrap: str
    topic: str
    partitions: int
    rate: float  # records a second, all producers together
    acks: str  # "all", "1" or "0"
    idempotence: bool
    transactions: bool
    seed: int
    producers: int = 2
    consumers: int = 2
    txn_records: int = 5  # records per transaction
    abort_one_in: int = 4  # one transaction in this many is aborted on purpose
    message_timeout_ms: int = 60_000


def record_id(value: bytes | None) -> str | None:
    """A record's id, or None for a value that is not one of ours."""
    if value is None:
        return None
    try:
        text = value.decode()
    except UnicodeDecodeError:
        return None
    return text if text.startswith("p") and "-" in text else None


class Workload:
    """The producer and consumer threads of one run; `start`, then `stop`, then `read_back`."""

    def __init__(self, settings: WorkloadSettings, history: History) -> None:
        self.settings = settings
        self.history = history
        self.group = f"nemesis-{uuid.uuid4().hex[:8]}"
        self._stop_producing = threading.Event()
        self._stop_consuming = threading.Event()
        self._producers = [threading.Thread(target=self._produce, args=(n,), name=f"nemesis-producer-{n}", daemon=True)
                           for n in range(settings.producers)]
        self._consumers = [threading.Thread(target=self._consume, args=(n,), name=f"nemesis-consumer-{n}",
                                            daemon=True) for n in range(settings.consumers)]
        self.errors: list[str] = []  # what stopped a thread early (the run reports it)

    def start(self) -> None:
        for thread in self._consumers + self._producers:
            thread.start()

    def stop(self, drain_s: float = 5.0) -> None:
        """Producers finish (every send answered, or timed out), then the consumers get `drain_s` to catch up."""
        self._stop_producing.set()
        for thread in self._producers:
            thread.join(self.settings.message_timeout_ms / 1000 + TXN_TIMEOUT_S + 10)
        deadline = time.monotonic() + drain_s
        # aborted records are never read with read_committed: with transactions, the drain is the whole `drain_s`
        while time.monotonic() < deadline and (self.settings.transactions or self._consumers_behind()):
            time.sleep(0.2)
        self._stop_consuming.set()
        for thread in self._consumers:
            thread.join(30)

    def _consumers_behind(self) -> bool:
        acks = {(e["partition"], e["offset"]) for e in list(self.history.events) if e["type"] == "ack"}
        reads = {(e["partition"], e["offset"]) for e in list(self.history.events) if e["type"] == "read"}
        return bool(acks - reads)

    # -- producers ------------------------------------------------------------------------------------------------

    def producer_config(self, n: int) -> dict[str, Any]:
        s = self.settings
        config: dict[str, Any] = {"bootstrap.servers": s.bootstrap, "client.id": f"nemesis-producer-{n}",
                                  "acks": s.acks, "enable.idempotence": s.idempotence, "linger.ms": 5,
                                  "message.timeout.ms": s.message_timeout_ms, "log_level": CLIENT_LOG_LEVEL}
        if s.transactions:
            config["transactional.id"] = f"{self.group}-{n}"
            config["transaction.timeout.ms"] = s.message_timeout_ms  # librdkafka: at least message.timeout.ms
        return config

    def _produce(self, n: int) -> None:
        try:
            if self.settings.transactions:
                self._produce_transactions(n)
            else:
                self._produce_plain(n)
        except Exception as e:  # a client that cannot go on: the run reports it, the history says how far it got
            self.errors.append(f"producer {n}: {type(e).__name__}: {e}")

    def _pacer(self) -> Callable[[Producer], None]:
        """Waits (serving delivery callbacks meanwhile) until this producer's next send is due."""
        period = self.settings.producers / self.settings.rate
        due = [time.monotonic()]

        def wait(producer: Producer) -> None:
            due[0] += period
            while (left := due[0] - time.monotonic()) > 0:
                producer.poll(left)
            if -left > 1.0:  # far behind (a long fault): start afresh rather than send a burst
                due[0] = time.monotonic()
        return wait

    def _send(self, producer: Producer, n: int, i: int, seqs: dict[int, int], txn: str | None) -> None:
        partition = i % self.settings.partitions
        rid = f"p{n}-{i}"
        seq = seqs.get(partition, 0)
        seqs[partition] = seq + 1
        while True:
            try:
                producer.produce(self.settings.topic, key=rid.encode(), value=rid.encode(), partition=partition,
                                 on_delivery=self._delivered)
                break
            except BufferError:  # the client's queue is full: serve callbacks, then try again
                producer.poll(0.1)
        # recorded before any poll, so before its callback can run
        self.history.record("send", id=rid, producer=n, partition=partition, seq=seq, txn=txn)

    def _delivered(self, err: KafkaError | None, message: Any) -> None:
        rid = record_id(message.value())
        if err is None:
            self.history.record("ack", id=rid, partition=message.partition(), offset=message.offset())
        else:
            self.history.record("fail", id=rid, error=err.name(), indeterminate=err.code() not in DEFINITE_FAILURES)

    def _produce_plain(self, n: int) -> None:
        producer = Producer(self.producer_config(n))
        wait, seqs, i = self._pacer(), {}, 0
        while not self._stop_producing.is_set():
            self._send(producer, n, i, seqs, None)
            i += 1
            wait(producer)
        producer.flush(self.settings.message_timeout_ms / 1000 + 5)

    def _produce_transactions(self, n: int) -> None:
        rng = random.Random(self.settings.seed * 1000 + n)
        producer = Producer(self.producer_config(n))
        producer.init_transactions(TXN_TIMEOUT_S)
        wait, seqs, i, k = self._pacer(), {}, 0, 0
        while not self._stop_producing.is_set():
            txn = f"p{n}-t{k}"
            k += 1
            producer.begin_transaction()
            for _ in range(self.settings.txn_records):
                self._send(producer, n, i, seqs, txn)
                i += 1
                wait(producer)
            outcome = "abort" if rng.randrange(self.settings.abort_one_in) == 0 else "commit"
            if not self._end_transaction(producer, n, txn, outcome):
                # the producer cannot go on (fenced, or its state unknown): a new one with the same transactional id
                # fences it and finishes whatever it left open
                producer = Producer(self.producer_config(n))
                producer.init_transactions(TXN_TIMEOUT_S)

    def _end_transaction(self, producer: Producer, n: int, txn: str, outcome: str) -> bool:
        """Commit or abort `txn`, recording how it ended; False when the producer must be replaced."""
        for _ in range(3):
            try:
                if outcome == "commit":
                    producer.commit_transaction(TXN_TIMEOUT_S)
                else:
                    # its records written first (commit flushes by itself): an abort then has data to hide from
                    # read_committed readers, rather than records purged before they were ever sent
                    producer.flush(TXN_TIMEOUT_S)
                    producer.abort_transaction(TXN_TIMEOUT_S)
                self.history.record("txn", producer=n, txn=txn, outcome=outcome, ok=True, error=None)
                return True
            except KafkaException as e:
                error: KafkaError = e.args[0]
                self.history.record("txn", producer=n, txn=txn, outcome=outcome, ok=False, error=error.name())
                if error.txn_requires_abort() and outcome == "commit":
                    outcome = "abort"  # the commit was refused: the transaction can still be aborted cleanly
                elif not error.retriable():
                    return False
        return False

    # -- consumers ------------------------------------------------------------------------------------------------

    def consumer_config(self, group: str, isolation: str, client_id: str) -> dict[str, Any]:
        return {"bootstrap.servers": self.settings.bootstrap, "group.id": group, "client.id": client_id,
                "enable.auto.commit": False, "auto.offset.reset": "earliest", "isolation.level": isolation,
                "log_level": CLIENT_LOG_LEVEL}

    def _consume(self, n: int) -> None:
        name = f"member-{n}"
        consumer = Consumer(self.consumer_config(self.group, "read_committed", f"nemesis-{name}"))
        try:
            consumer.subscribe([self.settings.topic])
            while not self._stop_consuming.is_set():
                messages = [m for m in consumer.consume(200, timeout=0.5) if m.error() is None]
                for m in messages:
                    self.history.record("read", consumer=name, isolation="read_committed", partition=m.partition(),
                                        offset=m.offset(), id=record_id(m.value()))
                if messages:
                    self._commit(consumer, name, {m.partition() for m in messages})
        except Exception as e:
            self.errors.append(f"consumer {n}: {type(e).__name__}: {e}")
        finally:
            consumer.close()

    def _commit(self, consumer: Consumer, name: str, partitions: set[int]) -> None:
        try:
            committed = consumer.commit(asynchronous=False)
        except KafkaException as e:
            for partition in sorted(partitions):
                self.history.record("commit", consumer=name, partition=partition, offset=None, ok=False,
                                    error=e.args[0].name())
            return
        for tp in committed or []:
            if tp.offset < 0:  # a partition assigned but not read from yet: librdkafka lists it, commits nothing
                continue
            self.history.record("commit", consumer=name, partition=tp.partition, offset=tp.offset,
                                ok=tp.error is None, error=tp.error.name() if tp.error else None)

    # -- the read-back --------------------------------------------------------------------------------------------

    def read_back(self, timeout_s: float = 60.0) -> None:
        """Every partition from its first offset to its end, with read_committed (FINAL) and read_uncommitted."""
        for isolation, name in (("read_committed", FINAL), ("read_uncommitted", FINAL_UNCOMMITTED)):
            self._read_all(isolation, name, timeout_s)

    def _read_all(self, isolation: str, name: str, timeout_s: float) -> None:
        config = self.consumer_config(f"{self.group}-{name}", isolation, f"nemesis-{name}")
        config["enable.partition.eof"] = True
        consumer = Consumer(config)
        topic, partitions = self.settings.topic, range(self.settings.partitions)
        try:
            deadline = time.monotonic() + timeout_s
            highs = {p: self._high_watermark(consumer, p, deadline) for p in partitions}
            reached = dict.fromkeys(partitions, 0)
            consumer.assign([TopicPartition(topic, p, OFFSET_BEGINNING) for p in partitions])
            pending = {p for p in partitions if highs[p] != 0}
            while pending and time.monotonic() < deadline:
                for m in consumer.consume(500, timeout=1.0):
                    err = m.error()
                    if err is not None:
                        if err.code() == KafkaError._PARTITION_EOF:
                            reached[m.partition()] = max(reached[m.partition()], m.offset())
                            if m.offset() >= highs[m.partition()]:
                                pending.discard(m.partition())
                        continue
                    reached[m.partition()] = max(reached[m.partition()], m.offset() + 1)
                    self.history.record("read", consumer=name, isolation=isolation, partition=m.partition(),
                                        offset=m.offset(), id=record_id(m.value()))
            for p in partitions:
                self.history.record("final", partition=p, high=highs[p], reached=max(reached[p], 0),
                                    isolation=isolation)
        finally:
            consumer.close()

    def _high_watermark(self, consumer: Consumer, partition: int, deadline: float) -> int:
        """The partition's high watermark, asked again while its leader is unknown; unknown at the deadline: a
        number no read reaches, so that the verdict names the partition as not read to its end."""
        while True:
            try:
                return consumer.get_watermark_offsets(TopicPartition(self.settings.topic, partition), timeout=10,
                                                      cached=False)[1]
            except KafkaException:
                if time.monotonic() > deadline:
                    return 1 << 62
                time.sleep(0.5)
