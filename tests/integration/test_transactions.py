"""Exactly-once transactions (KIP-98, Kafka 1.0.2) on real processes, with confluent-kafka (librdkafka) clients: a
transactional producer and read_committed consumers; a consume-transform-produce loop that stays exactly-once across
a kill -9 of the transaction coordinator's broker; the bad input 1.0.2 refuses (unknown transactional ids,
out-of-order EndTxn, fenced producer epochs); and `check_trace.py --require TX` on the run.

One three-broker cluster for the module: `__transaction_state` and `__consumer_offsets` have one partition each,
replicated three times (min.insync.replicas 2), so one broker is the transaction coordinator and the kill moves it.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator

import pytest
from confluent_kafka import KafkaError, KafkaException, Producer

from kafka_edu.cluster_runner.runner import ClusterRunner
from kafka_edu.tracing.query import load_run
from kafka_edu.v3_9.clients.common.protocol.api_keys import ApiKeys
from kafka_edu.v3_9.clients.common.protocol.builder import build
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from tests.integration.exactly_once import (
    bootstrap,
    consume_transform_produce_across_a_kill,
    coordinator_of_transactions,
    create_topics,
    read_all,
)
from tests.integration.helpers import REPO, wait_until
from tests.integration.kafka_wire import WireConnection

CHECK_TRACE = REPO.parent / "shared" / "acceptance" / "check_trace.py"
# A loaded 2-core CI machine stalls a broker for seconds at a time: a 3 s ZooKeeper session or a 4 s replica lag
# there expired sessions and shrank ISRs of brokers that were alive, on top of the kill the test makes.
OVERRIDES = ["zookeeper.session.timeout.ms=6000", "replica.lag.time.max.ms=10000",
             "transaction.state.log.num.partitions=1", "transaction.state.log.replication.factor=3",
             "transaction.state.log.min.isr=2", "offsets.topic.num.partitions=1",
             "offsets.topic.replication.factor=3", "min.insync.replicas=2", "default.replication.factor=3",
             "transaction.max.timeout.ms=120000", "transaction.abort.timed.out.transaction.cleanup.interval.ms=1000",
             "group.initial.rebalance.delay.ms=0"]


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ClusterRunner]:
    runner = ClusterRunner.up(3, tmp_path_factory.mktemp("txn") / "traces", overrides=OVERRIDES, timeout_s=120)
    try:
        yield runner
    finally:
        if runner.run.read_manifest().get("stopped_at") is None:
            runner.down()


def address(runner: ClusterRunner, broker_id: int) -> tuple[str, int]:
    return "127.0.0.1", runner.broker_entry(broker_id)["port"]


def wire(runner: ClusterRunner, api: ApiKeys, version: int, broker_id: int | None = None, **body: object) -> object:
    broker = coordinator_of_transactions(runner) if broker_id is None else broker_id
    with WireConnection(address(runner, broker)) as connection:
        return connection.request(api, version, build(api.request_schema(version), **body))


def find_transaction_coordinator(runner: ClusterRunner, transactional_id: str) -> int:
    """FindCoordinator with key type 1 (the first one creates __transaction_state): the coordinator's broker id."""
    def found() -> tuple[int] | None:  # a tuple: broker 0 is a coordinator too
        response = wire(runner, ApiKeys.FIND_COORDINATOR, 1, broker_id=0, key=transactional_id, key_type=1)
        return (response.node_id,) if response.error_code == Errors.NONE else None
    return wait_until(found, 60, "a transaction coordinator")[0]


def init_producer_id(runner: ClusterRunner, transactional_id: str, timeout_ms: int = 10000) -> object:
    def answered() -> object:
        response = wire(runner, ApiKeys.INIT_PRODUCER_ID, 0, transactional_id=transactional_id,
                        transaction_timeout=timeout_ms)
        retriable = (Errors.COORDINATOR_LOAD_IN_PROGRESS, Errors.CONCURRENT_TRANSACTIONS, Errors.NOT_COORDINATOR)
        return None if response.error_code in retriable else response
    return wait_until(answered, 60, "InitProducerId answered")


# -- the transactional producer and read_committed consumers -------------------------------------------------------


def test_committed_records_are_read_and_aborted_ones_are_not(cluster: ClusterRunner) -> None:
    create_topics(cluster, "txn-basic")
    producer = Producer({"bootstrap.servers": bootstrap(cluster), "transactional.id": "basic-1"})
    producer.init_transactions(60)
    producer.begin_transaction()
    for i in range(6):
        producer.produce("txn-basic", key=b"%d" % i, value=b"committed-%d" % i)
    producer.commit_transaction(60)
    producer.begin_transaction()
    for i in range(4):
        producer.produce("txn-basic", key=b"%d" % i, value=b"aborted-%d" % i)
    producer.flush(60)  # the records are in the log before the abort
    producer.abort_transaction(60)
    producer.begin_transaction()
    producer.produce("txn-basic", key=b"x", value=b"committed-last")
    producer.commit_transaction(60)

    committed = read_all(cluster, "txn-basic", "read_committed", 7)
    assert sorted(committed) == sorted([b"committed-%d" % i for i in range(6)] + [b"committed-last"])
    everything = read_all(cluster, "txn-basic", "read_uncommitted", 11)
    assert sorted(everything) == sorted(committed + [b"aborted-%d" % i for i in range(4)])


def test_a_second_producer_with_the_same_transactional_id_fences_the_first(cluster: ClusterRunner) -> None:
    create_topics(cluster, "txn-fence")
    first = Producer({"bootstrap.servers": bootstrap(cluster), "transactional.id": "fence-1"})
    first.init_transactions(60)
    first.begin_transaction()
    first.produce("txn-fence", value=b"from-the-zombie")
    first.flush(60)
    second = Producer({"bootstrap.servers": bootstrap(cluster), "transactional.id": "fence-1"})
    second.init_transactions(60)  # aborts the zombie's transaction and bumps the epoch
    with pytest.raises(KafkaException) as fenced:
        first.commit_transaction(30)
    assert fenced.value.args[0].fatal() or fenced.value.args[0].code() in (KafkaError._FENCED,
                                                                           KafkaError.INVALID_PRODUCER_EPOCH)
    second.begin_transaction()
    second.produce("txn-fence", value=b"from-the-new-producer")
    second.commit_transaction(60)
    assert read_all(cluster, "txn-fence", "read_committed", 1) == [b"from-the-new-producer"]


def test_a_transaction_left_open_past_its_timeout_is_aborted_by_the_coordinator(cluster: ClusterRunner) -> None:
    create_topics(cluster, "txn-timeout", partitions=1)
    abandoned = Producer({"bootstrap.servers": bootstrap(cluster), "transactional.id": "timeout-1",
                          "transaction.timeout.ms": 3000})
    abandoned.init_transactions(60)
    abandoned.begin_transaction()
    abandoned.produce("txn-timeout", value=b"never-committed")
    abandoned.flush(60)
    # the open transaction holds the last stable offset back until the coordinator aborts it
    plain = Producer({"bootstrap.servers": bootstrap(cluster)})
    plain.produce("txn-timeout", value=b"after")
    plain.flush(60)
    assert read_all(cluster, "txn-timeout", "read_committed", 1, partitions=1, timeout_s=60) == [b"after"]
    spans = load_run(cluster.run.path)
    assert spans.where(step="TX.expire"), "no TX.expire span"


# -- bad input: 1.0.2's errors, and the broker keeps serving -------------------------------------------------------


def test_bad_input_gets_1_0_2s_errors(cluster: ClusterRunner) -> None:
    create_topics(cluster, "txn-bad", partitions=1)
    find_transaction_coordinator(cluster, "bad-1")
    # FindCoordinator with a coordinator type 1.0.2 does not know
    response = wire(cluster, ApiKeys.FIND_COORDINATOR, 1, broker_id=0, key="bad-1", key_type=2)
    assert response.error_code == Errors.INVALID_REQUEST
    # a transaction timeout over transaction.max.timeout.ms
    response = wire(cluster, ApiKeys.INIT_PRODUCER_ID, 0, transactional_id="bad-1", transaction_timeout=120001)
    assert response.error_code == Errors.INVALID_TRANSACTION_TIMEOUT
    # unknown transactional ids
    topics = [dict(name="txn-bad", partitions=[0])]
    response = wire(cluster, ApiKeys.ADD_PARTITIONS_TO_TXN, 0, v3_and_below_transactional_id="nobody",
                    v3_and_below_producer_id=7, v3_and_below_producer_epoch=0, v3_and_below_topics=topics)
    assert response.results_by_topic_v3_and_below[0].results_by_partition[0].partition_error_code == \
        Errors.INVALID_PRODUCER_ID_MAPPING
    response = wire(cluster, ApiKeys.END_TXN, 0, transactional_id="nobody", producer_id=7, producer_epoch=0,
                    committed=True)
    assert response.error_code == Errors.INVALID_PRODUCER_ID_MAPPING
    # out-of-order EndTxn: no transaction begun
    first = init_producer_id(cluster, "bad-1")
    assert first.error_code == Errors.NONE
    response = wire(cluster, ApiKeys.END_TXN, 0, transactional_id="bad-1", producer_id=first.producer_id,
                    producer_epoch=first.producer_epoch, committed=True)
    assert response.error_code == Errors.INVALID_TXN_STATE
    # internal topics and unknown topics cannot join a transaction: the request fails as a whole
    response = wire(cluster, ApiKeys.ADD_PARTITIONS_TO_TXN, 0, v3_and_below_transactional_id="bad-1",
                    v3_and_below_producer_id=first.producer_id, v3_and_below_producer_epoch=first.producer_epoch,
                    v3_and_below_topics=[dict(name="txn-bad", partitions=[0]), dict(name="no-such", partitions=[0]),
                                         dict(name="__consumer_offsets", partitions=[0])])
    errors = {(t.name, r.partition_index): r.partition_error_code
              for t in response.results_by_topic_v3_and_below for r in t.results_by_partition}
    assert errors == {("txn-bad", 0): Errors.OPERATION_NOT_ATTEMPTED, ("no-such", 0): Errors.UNKNOWN_TOPIC_OR_PARTITION,
                      ("__consumer_offsets", 0): Errors.TOPIC_AUTHORIZATION_FAILED}
    # a fenced producer epoch: a second InitProducerId bumps it
    second = init_producer_id(cluster, "bad-1")
    assert (second.producer_id, second.producer_epoch) == (first.producer_id, first.producer_epoch + 1)
    response = wire(cluster, ApiKeys.ADD_PARTITIONS_TO_TXN, 0, v3_and_below_transactional_id="bad-1",
                    v3_and_below_producer_id=first.producer_id, v3_and_below_producer_epoch=first.producer_epoch,
                    v3_and_below_topics=topics)
    assert response.results_by_topic_v3_and_below[0].results_by_partition[0].partition_error_code == \
        Errors.INVALID_PRODUCER_EPOCH
    response = wire(cluster, ApiKeys.END_TXN, 0, transactional_id="bad-1", producer_id=first.producer_id,
                    producer_epoch=first.producer_epoch, committed=False)
    assert response.error_code == Errors.INVALID_PRODUCER_EPOCH
    # ...and the current producer goes on
    response = wire(cluster, ApiKeys.ADD_PARTITIONS_TO_TXN, 0, v3_and_below_transactional_id="bad-1",
                    v3_and_below_producer_id=second.producer_id, v3_and_below_producer_epoch=second.producer_epoch,
                    v3_and_below_topics=topics)
    assert response.results_by_topic_v3_and_below[0].results_by_partition[0].partition_error_code == Errors.NONE
    response = wire(cluster, ApiKeys.END_TXN, 0, transactional_id="bad-1", producer_id=second.producer_id,
                    producer_epoch=second.producer_epoch, committed=False)
    assert response.error_code == Errors.NONE


# -- exactly-once across a kill -9 of the coordinator -------------------------------------------------------------


def test_consume_transform_produce_is_exactly_once_across_a_kill_9_of_the_transaction_coordinators_broker(
        cluster: ClusterRunner) -> None:
    consume_transform_produce_across_a_kill(cluster, "RunningAsBroker")


# -- the trace -------------------------------------------------------------------------------------------------------


@pytest.mark.skipif(not CHECK_TRACE.exists(), reason="shared/acceptance/check_trace.py is not in this checkout")
def test_check_trace_requires_tx(cluster: ClusterRunner) -> None:
    cluster.down()
    done = subprocess.run([sys.executable, str(CHECK_TRACE), str(cluster.run.path), "--require", "TX"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert done.stdout.strip().endswith("trace contract: OK")

    spans = load_run(cluster.run.path)
    # one committed transaction of the loop: its steps on the coordinator and every partition leader in one trace
    complete = next(s for s in spans.where(step="TX.complete") if s.attributes.get("kafka.txn.state") ==
                    "CompleteCommit")
    story = spans.where(trace_id=complete.trace_id)
    steps = {s.attributes.get("kafka.step") for s in story}
    assert {"TX.add", "TX.end", "TX.markers", "TX.write", "TX.complete"} <= steps
    assert len({s.resource.get("service.instance.id") for s in story}) >= 2  # the coordinator and other leaders
