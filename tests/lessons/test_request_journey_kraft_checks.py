"""Lesson `request-journey-kraft`: each check, fed a made-up KRaft run in which the thing it looks for did not happen,
says what it expected, what it saw, and what to do; fed one in which it did, it explains it with the run's numbers."""

from __future__ import annotations

from kafka_edu.lessons import Evidence
from kafka_edu.tracing.query import SpanRecord
from lessons import request_journey_kraft as lesson
from tests.lessons.helpers import FakeRun, ns

LEADER, FOLLOWER = 3, 2
P = lesson.PARTITION
CLIENT_ADDRESS = "127.0.0.1:50000"
CONNECTION = f"127.0.0.1:9092-{CLIENT_ADDRESS}-1"  # local-remote-index, as a Processor names it
CONSUMER = "127.0.0.1:9092-127.0.0.1:50002-4"


def evidence(run: FakeRun, **facts) -> Evidence:
    return run.evidence(**{"leader": LEADER, "follower": FOLLOWER, "broker_ids": [2, 3], **facts})


def request(run: FakeRun, api: str, at_ms: float, took_ms: float, *, client: str = "rdkafka",
            connection: str = CONNECTION, links: list[SpanRecord] = (), **attributes) -> tuple[SpanRecord, SpanRecord]:
    """A client request on the leader: its root, the network thread's RQ.net.5, a handler's RQ.net.7 and
    KafkaApis.handle, which it returns with the root."""
    root = run.span("RequestChannel.Request", LEADER, at_ms, took_ms, kafka__api__name=api, kafka__api__version=7,
                    kafka__client__id=client, kafka__connection__id=connection, links=links, **attributes)
    run.span("Processor.processCompletedReceives", LEADER, at_ms + 0.1, 0.05, step="RQ.net.5", parent=root,
             thread__name="data-plane-kafka-network-thread-3-PLAINTEXT-PLAINTEXT-0")
    handler = run.span("KafkaRequestHandler.run", LEADER, at_ms + 0.2, 3, step="RQ.net.7", parent=root,
                       thread__name="data-plane-kafka-request-handler-5")
    apis = run.span("KafkaApis.handle", LEADER, at_ms + 0.25, 2.9, step="NW.apis.1", parent=handler,
                    thread__name="data-plane-kafka-request-handler-5")
    return root, apis


def topic_applied(run: FakeRun, at_ms: float = 1, *, follower: bool = True, fetching: bool = True) -> None:
    run.span("ReplicaManager.applyDelta", LEADER, at_ms, 1, kafka__partitions__leader=[P],
             kafka__partitions__follower=[])
    if follower:
        run.span("ReplicaManager.applyDelta", FOLLOWER, at_ms, 1, kafka__partitions__leader=[],
                 kafka__partitions__follower=[P])
    if fetching:
        fetch_round(run, at_ms + 30)


def fetch_round(run: FakeRun, at_ms: float, took_ms: float = 500) -> SpanRecord:
    return run.span("AbstractFetcherThread.processFetchRequest", FOLLOWER, at_ms, took_ms, step="RQ.follower.1",
                    kafka__partitions=[P], thread__name=f"ReplicaFetcherThread-0-{LEADER}")


def accepted(run: FakeRun, at_ms: float = 50) -> None:
    accept = run.span("Acceptor.accept", LEADER, at_ms, 0.3, step="RQ.net.3", kafka__listener="PLAINTEXT",
                      kafka__client__address=CLIENT_ADDRESS, thread__name="data-plane-kafka-socket-acceptor")
    run.span("Processor.configureNewConnections", LEADER, at_ms + 0.5, 0.1, step="NW.processor.1", links=[accept],
             kafka__processor__id=0)


def follower_fetch(run: FakeRun, at_ms: float, offset: int, records_bytes: int = 0) -> SpanRecord:
    """A fetch round on the follower and the leader's handling of its Fetch, linked through its traceparent; returns
    the leader's RQ.fetch.1."""
    round_ = fetch_round(run, at_ms - 1, 10)
    _, apis = request(run, "Fetch", at_ms, 500, client=f"broker-{FOLLOWER}-fetcher-0",
                      connection="127.0.0.1:9092-127.0.0.1:50001-0", links=[round_])
    fetch = run.span("KafkaApis.handleFetchRequest", LEADER, at_ms + 0.3, 2, step="RQ.fetch.1", parent=apis,
                     links=[round_], kafka__fetch__replica_id=FOLLOWER, kafka__fetch__session__id=7,
                     kafka__fetch__session__epoch=5)
    messages = run.span("ReplicaManager.fetchMessages", LEADER, at_ms + 0.5, 1.5, step="RQ.fetch.3", parent=fetch)
    run.span("Partition.fetchRecords", LEADER, at_ms + 0.6, 1, step="RQ.fetch.4", parent=messages,
             kafka__topic=lesson.TOPIC, kafka__fetch__replica_id=FOLLOWER, kafka__fetch__offset=offset,
             kafka__records__bytes=records_bytes, thread__name="data-plane-kafka-request-handler-7")
    return fetch


def produce(run: FakeRun, at_ms: float = 100, *, acks: int = -1, idempotent: bool = True, nested: bool = True,
            rows: tuple[str, ...] = ("RQ.produce.1", "RQ.produce.2", "RQ.produce.3", "RQ.produce.4", "RQ.produce.5",
                                     "RQ.produce.6", "RQ.produce.7"),
            tries: int = 2, completed_by: str | None = "follower", error: str = "NONE",
            hw_change: str = "SAME") -> SpanRecord:
    """An idempotent acks=all produce of one record at offset 0 to the leader, its steps nested as the code calls
    them; `completed_by` the follower's next fetch, another replica's ("other"), or nothing yet (None)."""
    if idempotent:
        request(run, "InitProducerId", at_ms - 10, 1)
    root, apis = request(run, "Produce", at_ms, 20, kafka__request__remote_time_ms=6.0,
                         kafka__request__total_time_ms=20.0)
    spans: dict[str, SpanRecord] = {}

    def step(row: str, name: str, inside: str | None, at: float, **attributes) -> None:
        if row in rows:
            parent = spans.get(inside, apis) if inside else apis
            spans[row] = run.span(name, LEADER, at_ms + at, 1, step=row, parent=parent,
                                  thread__name="data-plane-kafka-request-handler-5", **attributes)

    step("RQ.produce.1", "KafkaApis.handleProduceRequest", None, 1, kafka__produce__acks=acks)
    step("RQ.produce.2", "ReplicaManager.handleProduceAppend", "RQ.produce.1", 1.1, kafka__transactional__id="")
    step("RQ.produce.3", "ReplicaManager.appendRecords", "RQ.produce.2", 1.2)
    step("RQ.produce.4", "Partition.appendRecordsToLeader", "RQ.produce.3", 1.3, kafka__topic=lesson.TOPIC,
         kafka__leader__hw__change=hw_change, kafka__high_watermark=0)
    step("RQ.produce.5", "UnifiedLog.append", "RQ.produce.4" if nested else "RQ.produce.3", 1.4, kafka__offset__first=0,
         kafka__offset__last=0, kafka__records__count=1, kafka__records__bytes=80, kafka__log__end_offset__before=0,
         kafka__log__end_offset=1)
    step("RQ.produce.6", "LogValidator.validateMessagesAndAssignOffsets", "RQ.produce.5", 1.5,
         kafka__compression__source="NONE", kafka__timestamp__type="CreateTime", kafka__leader__epoch=0)
    step("RQ.produce.7", "LocalLog.append", "RQ.produce.5", 1.6, kafka__log__segment=0)
    appends = spans.get("RQ.produce.3", apis)
    for i in range(tries):
        run.span("DelayedProduce.tryComplete", LEADER, at_ms + 2 + i * 0.1, 0.05, step="RQ.produce.8",
                 parent=appends, kafka__delayed__completed=False, kafka__partitions__pending=[P])
    if completed_by is not None:
        if completed_by == "follower":
            follower_fetch(run, at_ms + 3, offset=0, records_bytes=80)  # the record goes to the follower
            trigger = follower_fetch(run, at_ms + 10, offset=1)         # the next fetch says it has it
        else:
            trigger = run.span("KafkaApis.handleFetchRequest", LEADER, at_ms + 10, 1, step="RQ.fetch.1",
                               kafka__fetch__replica_id=5)
        run.span("DelayedProduce.tryComplete", LEADER, at_ms + 12, 0.5, step="RQ.produce.8", parent=appends,
                 links=[trigger], kafka__delayed__completed=True, kafka__partitions__pending=[],
                 kafka__partitions__errors=[f"{P}:{error}"], thread__name="data-plane-kafka-request-handler-7")
        run.span("RequestChannel.sendResponse", LEADER, at_ms + 13, 0.5, step="NW.channel.resp", parent=root,
                 thread__name="data-plane-kafka-request-handler-7")
    return root


def consumer_fetch(run: FakeRun, at_ms: float, session: int, epoch: int, *, partitions: int = 1, offset: int = 1,
                   records_bytes: int = 0) -> SpanRecord:
    context = "FullFetchContext" if epoch == 0 else "SessionlessFetchContext" if epoch == -1 else \
        "IncrementalFetchContext"
    root, apis = request(run, "Fetch", at_ms, 500, client="kafka-python-3.0.12", connection=CONSUMER,
                         kafka__request__bytes=102 if partitions else 59, kafka__request__remote_time_ms=500.0)
    fetch = run.span("KafkaApis.handleFetchRequest", LEADER, at_ms + 0.3, 2, step="RQ.fetch.1", parent=apis,
                     kafka__fetch__replica_id=-1, kafka__fetch__session__id=session,
                     kafka__fetch__session__epoch=epoch, kafka__partitions__count=partitions)
    run.span("FetchManager.newContext", LEADER, at_ms + 0.4, 0.1, step="RQ.fetch.2", parent=fetch,
             kafka__fetch__context=context)
    messages = run.span("ReplicaManager.fetchMessages", LEADER, at_ms + 0.5, 1.5, step="RQ.fetch.3", parent=fetch)
    run.span("Partition.fetchRecords", LEADER, at_ms + 0.6, 1, step="RQ.fetch.4", parent=messages,
             kafka__topic=lesson.TOPIC, kafka__fetch__replica_id=-1, kafka__fetch__offset=offset,
             kafka__records__bytes=records_bytes, kafka__high_watermark=1, kafka__fetch__isolation="HIGH_WATERMARK")
    return root


def consumer(run: FakeRun, at_ms: float = 1000, epochs: tuple[int, ...] = (0, 1, 2, 3)) -> list[SpanRecord]:
    """A kafka-python consumer: a full fetch that reads the record, then incremental ones in session 42."""
    roots = []
    for i, epoch in enumerate(epochs):
        roots.append(consumer_fetch(run, at_ms + i * 501, 0 if epoch == 0 else 42, epoch, offset=0 if i == 0 else 1,
                                    records_bytes=80 if i == 0 else 0, partitions=1 if i < 2 else 0))
    return roots


# -- 1. A partition with a leader and a follower ------------------------------------------------------------------

def test_no_topic_applied_gets_the_command():
    result = lesson.leader_and_follower(evidence(FakeRun(), action_ns=ns(0)))
    assert not result.ok and f"leader of `{P}`" in result.expected and "run the command above" in result.hint


def test_a_partition_without_a_follower_is_waited_for_and_its_replication_factor_named():
    run = FakeRun()
    topic_applied(run, follower=False)
    result = lesson.leader_and_follower(evidence(run, action_ns=ns(0)))
    assert not result.ok and result.wait
    assert f"broker {LEADER} leads it" in result.seen and "--replication-factor 2" in result.hint


def test_a_follower_that_has_not_fetched_yet_is_waited_for():
    run = FakeRun()
    topic_applied(run, fetching=False)
    result = lesson.leader_and_follower(evidence(run, action_ns=ns(0)))
    assert not result.ok and result.wait and "replica fetcher" in result.expected


def test_the_leader_and_the_follower_are_found():
    run = FakeRun()
    topic_applied(run)
    result = lesson.leader_and_follower(evidence(run, action_ns=ns(0)))
    assert result.ok, result.message()
    assert result.facts == {"leader": LEADER, "follower": FOLLOWER}
    assert "began 30 ms after" in result.explain


# -- 2. The connection, the network thread, the handler ------------------------------------------------------------

def test_no_produce_gets_the_kcat_command():
    result = lesson.produce_arrived(evidence(FakeRun(), action_ns=ns(0)))
    assert not result.ok and "idempotent acks=all Produce" in result.expected and "kcat" in result.hint


def test_a_produce_with_acks_1_is_refused_at_once():
    run = FakeRun()
    produce(run, acks=1)
    result = lesson.produce_arrived(evidence(run, action_ns=ns(0)))
    assert not result.ok and not result.wait and result.seen == "acks=1" and "acks=all" in result.hint


def test_a_produce_without_init_producer_id_is_not_idempotent():
    run = FakeRun()
    produce(run, idempotent=False)
    result = lesson.produce_arrived(evidence(run, action_ns=ns(0)))
    assert not result.ok and "InitProducerId" in result.expected and "enable.idempotence=true" in result.hint


def test_the_connection_its_processor_and_the_threads_are_named():
    run = FakeRun()
    accepted(run)
    root = produce(run)
    result = lesson.produce_arrived(evidence(run, action_ns=ns(0)))
    assert result.ok, result.message()
    assert result.facts == {"produce_trace": root.trace_id, "client": "rdkafka"}
    assert f"accepted it from {CLIENT_ADDRESS}" in result.explain and "processor 0 took it over" in result.explain
    assert "| InitProducerId v7 |" in result.explain and "| Produce v7 |" in result.explain


# -- 3. acks=all, down to the log ----------------------------------------------------------------------------------

def test_missing_produce_rows_are_named():
    run = FakeRun()
    root = produce(run, rows=("RQ.produce.1", "RQ.produce.2", "RQ.produce.3", "RQ.produce.4"))
    result = lesson.down_to_the_log(evidence(run, produce_trace=root.trace_id))
    assert not result.ok and "RQ.produce.5, RQ.produce.6, RQ.produce.7" in result.seen


def test_a_step_outside_its_caller_is_reported():
    run = FakeRun()
    root = produce(run, nested=False)
    result = lesson.down_to_the_log(evidence(run, produce_trace=root.trace_id))
    assert not result.ok and not result.wait and result.seen == "RQ.produce.5 inside RQ.produce.3"


def test_the_append_is_followed_down_to_local_log_and_the_high_watermark_stays():
    run = FakeRun()
    root = produce(run)
    ev = evidence(run, produce_trace=root.trace_id)
    result = lesson.down_to_the_log(ev)
    assert result.ok, result.message()
    assert "| `LocalLog.append` | RQ.produce.7 |" in result.explain and "**SAME**" in result.explain
    assert lesson.log.predict.answer_for(ev) == "b"
    moved = FakeRun()
    root = produce(moved, hw_change="INCREASED")
    assert lesson.log.predict.answer_for(evidence(moved, produce_trace=root.trace_id)) == "a"


# -- 4. The delayed produce and the follower -----------------------------------------------------------------------

def test_a_produce_that_never_waited_has_no_delayed_produce():
    run = FakeRun()
    root = produce(run, tries=0, completed_by=None)
    result = lesson.follower_completes(evidence(run, produce_trace=root.trace_id))
    assert not result.ok and not result.wait and "RQ.produce.8" in result.expected


def test_a_produce_still_parked_is_waited_for():
    run = FakeRun()
    root = produce(run, completed_by=None)
    result = lesson.follower_completes(evidence(run, produce_trace=root.trace_id))
    assert not result.ok and result.wait and result.seen == "2 tries, none completed"


def test_a_produce_completed_with_an_error_is_reported():
    run = FakeRun()
    root = produce(run, error="REQUEST_TIMED_OUT")
    result = lesson.follower_completes(evidence(run, produce_trace=root.trace_id))
    assert not result.ok and not result.wait and "REQUEST_TIMED_OUT" in result.seen


def test_a_produce_completed_by_another_replicas_fetch_is_reported():
    run = FakeRun()
    root = produce(run, completed_by="other")
    result = lesson.follower_completes(evidence(run, produce_trace=root.trace_id))
    assert not result.ok and f"broker {FOLLOWER}'s Fetch" in result.expected and "replica 5" in result.seen


def test_a_completing_fetch_not_written_yet_is_waited_for():
    run = FakeRun()
    root = produce(run)
    written = [s for s in run.spans if s.step != "RQ.fetch.1" or s.start_ns < ns(110)]  # the trigger's still open
    run.spans[:] = written
    result = lesson.follower_completes(evidence(run, produce_trace=root.trace_id))
    assert not result.ok and result.wait and "not in the traces yet" in result.seen


def test_the_followers_next_fetch_completes_the_produce():
    run = FakeRun()
    root = produce(run)
    ev = evidence(run, produce_trace=root.trace_id, appended_offset=0)
    result = lesson.follower_completes(ev)
    assert result.ok, result.message()
    assert "reads 80 bytes from offset 0" in result.explain and "asks from offset 1" in result.explain
    assert "**done**" in result.explain and "6.0 ms in the produce purgatory" in result.explain
    assert lesson.delayed.predict.answer_for(ev) == "b"


# -- 5. A consumer and its fetch session ----------------------------------------------------------------------------

def test_no_consumer_fetch_gets_the_kafka_python_command():
    result = lesson.fetch_session(evidence(FakeRun(), action_ns=ns(0)))
    assert not result.ok and f"`{P}`" in result.expected and "kafka-python" in result.hint


def test_a_sessionless_client_is_named():
    run = FakeRun()
    consumer_fetch(run, 10, 0, -1)
    consumer_fetch(run, 600, 0, -1)
    result = lesson.fetch_session(evidence(run, action_ns=ns(0)))
    assert not result.ok and not result.wait and "sessionless" in result.seen and "kafka-python" in result.hint


def test_a_session_with_one_incremental_fetch_so_far_is_waited_for():
    run = FakeRun()
    consumer(run, epochs=(0, 1))
    result = lesson.fetch_session(evidence(run, action_ns=ns(0)))
    assert not result.ok and result.wait and result.seen == "1 so far"


def test_epochs_that_skip_are_reported():
    run = FakeRun()
    consumer(run, epochs=(0, 1, 3))
    result = lesson.fetch_session(evidence(run, action_ns=ns(0)))
    assert not result.ok and not result.wait and result.seen == "epochs [1, 3]"


def test_the_session_and_its_epochs_are_shown():
    run = FakeRun()
    roots = consumer(run)
    result = lesson.fetch_session(evidence(run, action_ns=ns(0)))
    assert result.ok, result.message()
    assert result.facts == {"session_id": 42, "full_fetch_trace": roots[0].trace_id}
    assert "| 42 | 3 | IncrementalFetchContext | 0 | 59 |" in result.explain
    words = " ".join(result.explain.split())
    assert "1 of them named the partition again" in words and "2 named **no partition at all**" in words
    assert "shrank from 102 to 59 bytes" in words


def test_the_consumer_command_finds_kafka_python():
    assert lesson.kafka_python(evidence(FakeRun()))["kafka_python"].endswith("kafka-python")


# -- 6. What changed since 1.0.2 ------------------------------------------------------------------------------------

def test_rows_missing_from_the_run_are_named():
    run = FakeRun()
    accepted(run)
    root = produce(run)
    result = lesson.what_changed(evidence(run, produce_trace=root.trace_id, full_fetch_trace="0" * 32))
    assert not result.ok and "RQ.fetch.1, RQ.fetch.2, RQ.fetch.3, RQ.fetch.4" in result.seen


def test_every_row_is_set_against_its_1_0_2_step():
    run = FakeRun()
    accepted(run)
    root = produce(run)
    fetches = consumer(run)
    result = lesson.what_changed(evidence(run, produce_trace=root.trace_id, full_fetch_trace=fetches[0].trace_id))
    assert result.ok, result.message()
    assert "| `Log.append` (NW.log.append) | `UnifiedLog.append` (RQ.produce.5) |" in result.explain
    assert "| none | `FetchManager.newContext` (RQ.fetch.2) |" in result.explain
