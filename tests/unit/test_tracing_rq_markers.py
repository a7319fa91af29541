"""FIDELITY RQ on Kafka 3.9's classes: the markers, their order and nesting, checked on spans made in memory.

An append through 3.9's ReplicaManager over a real LogManager in a tmp dir is RQ.produce.3 > RQ.produce.4 >
RQ.produce.5 > (RQ.produce.6, RQ.produce.7); a fetch is RQ.fetch.3 > RQ.fetch.4; a fetch session's requests are
RQ.fetch.2 with the context each got; a delayed produce's tries stay in the trace that created it.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kafka_edu.tracing import setup_tracing
from kafka_edu.tracing.provider import Tracing
from kafka_edu.v3_9.clients.common.requests.fetch_metadata import FetchMetadata
from kafka_edu.v3_9.clients.common.requests.fetch_request import PartitionData
from kafka_edu.v3_9.clients.common.topic_id_partition import TopicIdPartition
from kafka_edu.v3_9.clients.common.topic_partition import TopicPartition
from kafka_edu.v3_9.clients.common.utils.mock_time import MockTime
from kafka_edu.v3_9.clients.common.uuid import ZERO_UUID
from kafka_edu.v3_9.core.server.fetch_session import FetchManager, FetchSessionCacheShard
from tests.kafka_tests.v3_9.core.server.fetch_session_test import (
    EMPTY_PART_LIST,
    LATEST,
    create_request,
    new_context_of,
    random_uuid,
    response_of,
    swap,
)
from tests.kafka_tests.v3_9.core.server.replica_manager_test import (
    TOPIC,
    TOPIC_ID,
    World,
    append_records,
    become_leader,
    fetch_partition_as_follower,
    setup_replica_manager,
    singleton_records,
)


@pytest.fixture
def tracing() -> Iterator[Tracing]:
    tracing = setup_tracing("broker-0", "run-1", mode="kraft")
    yield tracing
    tracing.shutdown()


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    w = setup_replica_manager(tmp_path)
    yield w
    w.replica_manager.shutdown(checkpoint_hw=False)


def _rq_spans(tracing: Tracing) -> list[Any]:
    """The RQ spans made so far, in the order they started."""
    spans = [s for s in tracing.memory.get_finished_spans()
             if str(s.attributes.get("kafka.step", "")).startswith("RQ.")]
    return sorted(spans, key=lambda s: s.start_time)


def _step(span: Any) -> str:
    return str(span.attributes["kafka.step"])


def _children(spans: list[Any], parent: Any) -> list[Any]:
    return [s for s in spans if s.parent is not None and s.parent.span_id == parent.context.span_id]


def test_an_append_is_produce_3_then_4_then_5_with_the_validator_and_the_local_log_inside(tracing: Tracing,
                                                                                        world: World) -> None:
    tp = TopicPartition(TOPIC, 0)
    become_leader(world, tp, TOPIC_ID, leader_epoch=0, replicas=[0])
    tracing.memory.clear()

    response = append_records(world.replica_manager, tp, singleton_records(b"message"), required_acks=1)
    assert response.assert_fired().base_offset == 0

    spans = _rq_spans(tracing)
    assert [_step(s) for s in spans] == ["RQ.produce.3", "RQ.produce.4", "RQ.produce.5", "RQ.produce.6",
                                         "RQ.produce.7"]
    append_records_span, to_leader, log_append, validate, local_append = spans
    assert append_records_span.name == "ReplicaManager.appendRecords"
    assert append_records_span.parent is None  # no request around it here: a trace of its own
    assert _children(spans, append_records_span) == [to_leader]
    assert _children(spans, to_leader) == [log_append]
    assert _children(spans, log_append) == [validate, local_append]  # validated first, then written
    assert {s.context.trace_id for s in spans} == {append_records_span.context.trace_id}
    assert [s.name for s in (to_leader, log_append, validate, local_append)] == [
        "Partition.appendRecordsToLeader", "UnifiedLog.append", "LogValidator.validateMessagesAndAssignOffsets",
        "LocalLog.append"]
    # 3.9's origin even where 1.0.2 has a row of the same name (NW.rm.append is ReplicaManager.appendRecords too)
    assert append_records_span.attributes["kafka.origin.version"] == "3.9"
    assert append_records_span.attributes["kafka.origin.file"].endswith("kafka/server/ReplicaManager.scala")
    assert validate.attributes["kafka.origin.file"].startswith("storage/src/main/java/")
    assert to_leader.attributes["kafka.topic"] == TOPIC and to_leader.attributes["kafka.partition"] == 0
    assert to_leader.attributes["kafka.offset.first"] == 0 and to_leader.attributes["kafka.offset.last"] == 0
    assert log_append.attributes["kafka.log.end_offset"] == 1
    assert local_append.attributes["kafka.log.end_offset"] == 1


def test_a_fetch_is_fetch_3_with_fetch_4_inside(tracing: Tracing, world: World) -> None:
    tp = TopicPartition(TOPIC, 0)
    become_leader(world, tp, TOPIC_ID, leader_epoch=0, replicas=[0, 1])
    append_records(world.replica_manager, tp, singleton_records(b"message"), required_acks=1)
    tracing.memory.clear()

    data = fetch_partition_as_follower(world.replica_manager, TopicIdPartition(TOPIC_ID, tp),
                                       PartitionData(ZERO_UUID, 0, 0, 100000, None), replica_id=1).assert_fired()
    assert next(iter(data.records.batches()), None) is not None

    spans = _rq_spans(tracing)
    assert [_step(s) for s in spans] == ["RQ.fetch.3", "RQ.fetch.4"]
    fetch_messages, fetch_records = spans
    assert (fetch_messages.name, fetch_records.name) == ("ReplicaManager.fetchMessages", "Partition.fetchRecords")
    assert _children(spans, fetch_messages) == [fetch_records]
    assert fetch_messages.attributes["kafka.fetch.from_follower"] is True
    assert fetch_records.attributes["kafka.fetch.offset"] == 0
    assert fetch_records.attributes["kafka.log.end_offset"] == 1
    assert fetch_records.attributes["kafka.records.bytes"] > 0


def test_a_full_then_an_incremental_fetch_is_fetch_2_with_its_context(tracing: Tracing) -> None:
    fetch_manager = FetchManager(MockTime(), FetchSessionCacheShard(10, 1000))
    topic_names = {random_uuid(): "foo"}
    foo_id = swap(topic_names)["foo"]
    foo0 = TopicIdPartition(foo_id, TopicPartition("foo", 0))

    full = create_request(FetchMetadata.INITIAL, {foo0.topic_partition: PartitionData(foo_id, 0, 0, 100, None)},
                          EMPTY_PART_LIST, False, LATEST)
    response = new_context_of(fetch_manager, full, topic_names).update_and_generate_response_data(
        {foo0: response_of(0, 100)})
    incremental = create_request(FetchMetadata(response.session_id(), 1), {}, EMPTY_PART_LIST, False, LATEST)
    new_context_of(fetch_manager, incremental, topic_names)
    stale = create_request(FetchMetadata(response.session_id(), 1), {}, EMPTY_PART_LIST, False, LATEST)
    new_context_of(fetch_manager, stale, topic_names)  # the epoch is 2 now

    spans = _rq_spans(tracing)
    assert [(s.name, _step(s)) for s in spans] == [("FetchManager.newContext", "RQ.fetch.2")] * 3
    assert [s.attributes["kafka.fetch.context"] for s in spans] == [
        "FullFetchContext", "IncrementalFetchContext", "SessionErrorContext"]
    assert [s.attributes["kafka.fetch.session.epoch"] for s in spans] == [0, 1, 1]
    assert spans[1].attributes["kafka.fetch.session.id"] == response.session_id()
    assert spans[2].attributes["kafka.error"] == "INVALID_FETCH_SESSION_EPOCH"


def test_a_delayed_produce_is_tried_in_the_trace_that_made_it_and_links_the_one_that_completes_it(
        tracing: Tracing, world: World) -> None:
    tp = TopicPartition(TOPIC, 0)
    become_leader(world, tp, TOPIC_ID, leader_epoch=0, replicas=[0, 1])
    tracing.memory.clear()

    response = append_records(world.replica_manager, tp, singleton_records(b"message"), required_acks=-1)
    assert not response.has_fired  # waits for the follower
    # the follower fetches past the record: the HW moves, and the action queue completes the produce
    fetch_partition_as_follower(world.replica_manager, TopicIdPartition(TOPIC_ID, tp),
                                PartitionData(ZERO_UUID, 1, 0, 100000, None), replica_id=1).assert_fired()
    world.replica_manager.try_complete_actions()
    assert response.assert_fired().error.name == "NONE"

    spans = _rq_spans(tracing)
    append_span = next(s for s in spans if _step(s) == "RQ.produce.3")
    fetch_span = next(s for s in spans if _step(s) == "RQ.fetch.3")
    tries = [s for s in spans if _step(s) == "RQ.produce.8"]
    assert len(tries) >= 2
    # tried inside the append (tryCompleteElseWatch), then once the HW moved: always in the append's trace
    assert all(s.parent.span_id == append_span.context.span_id for s in tries)
    assert all(s.context.trace_id == append_span.context.trace_id for s in tries)
    assert [s.attributes["kafka.delayed.completed"] for s in tries] == [False] * (len(tries) - 1) + [True]
    assert all(not s.links for s in tries[:-1])
    # the last try ran where the follower's fetch moved the HW: that trace is linked
    assert fetch_span.context.trace_id != append_span.context.trace_id
    assert [link.context.trace_id for link in tries[-1].links] == [fetch_span.context.trace_id]


@pytest.mark.parametrize("expires_in", ["no trace", "another trace"])
def test_an_expired_delayed_fetch_reads_again_in_the_trace_of_the_fetch_that_made_it(
        tracing: Tracing, world: World, expires_in: str) -> None:
    """FIDELITY RQ: a delayed fetch's `onComplete` stays in the trace of the request that created it. On expiry the
    purgatory's timer thread (`executor-Fetch`) runs it, outside any trace (or inside whatever ran the timer), and its
    read again (RQ.fetch.4) is a child of the RQ.fetch.3 that created the operation, as the tries (RQ.fetch.5) are."""
    from kafka_edu.v3_9.storage.storage.internals.log.fetch_isolation import FetchIsolation
    from tests.kafka_tests.v3_9.core.server.replica_manager_test import fetch_partition

    tp = TopicPartition(TOPIC, 0)
    become_leader(world, tp, TOPIC_ID, leader_epoch=0, replicas=[0])
    tracing.memory.clear()

    # a consumer's long poll of an empty partition: nothing to answer with, so it waits in the Fetch purgatory
    response = fetch_partition(world.replica_manager, -1, TopicIdPartition(TOPIC_ID, tp),
                               PartitionData(ZERO_UUID, 0, 0, 100000, None), FetchIsolation.HIGH_WATERMARK,
                               max_wait_ms=500, min_bytes=1)
    assert not response.has_fired
    if expires_in == "no trace":  # the timer's own thread
        world.timer.advance_clock(501)
    else:  # a timer driven from inside some other trace's span: not the fetch's parent either
        with tracing.tracer.start_as_current_span("KafkaApis.handle"):
            world.timer.advance_clock(501)
    assert response.assert_fired().records.size_in_bytes() == 0

    spans = _rq_spans(tracing)
    (fetch_messages,) = [s for s in spans if _step(s) == "RQ.fetch.3"]
    first_read, read_again = [s for s in spans if _step(s) == "RQ.fetch.4"]
    tries = [s for s in spans if _step(s) == "RQ.fetch.5"]
    assert tries and all(not s.attributes["kafka.delayed.completed"] for s in tries)  # it expired: no try completed
    assert first_read.parent.span_id == fetch_messages.context.span_id
    assert read_again.context.trace_id == fetch_messages.context.trace_id
    assert read_again.parent.span_id == fetch_messages.context.span_id
    assert read_again.start_time > fetch_messages.end_time


def test_each_log_loads_inside_load_logs_on_its_recovery_thread(tracing: Tracing, tmp_path: Path) -> None:
    from tests.kafka_tests.v3_9.core.log.log_test_utils import create_log_manager

    log_dir = tmp_path / "logs"
    log_dir.mkdir()
    first = create_log_manager([log_dir])
    for partition in range(3):
        first.get_or_create_log(TopicPartition("foo", partition), topic_id=None)
    first.shutdown()
    tracing.memory.clear()

    second = create_log_manager([log_dir], recovery_threads_per_data_dir=2)
    try:
        second.startup(set())
    finally:
        second.shutdown()

    spans = _rq_spans(tracing)
    (load_logs,) = [s for s in spans if _step(s) == "RQ.load.1"]
    loads = [s for s in spans if _step(s) == "RQ.load.2"]
    assert load_logs.name == "LogManager.loadLogs" and load_logs.attributes["kafka.log.count"] == 3
    assert len(loads) == 3 and _children(spans, load_logs) == loads
    assert all(s.name == "LogLoader.load" and isinstance(s.attributes["kafka.log.clean_shutdown"], bool)
               for s in loads)
    assert {s.attributes["thread.name"] for s in loads} != {load_logs.attributes["thread.name"]}


def test_a_request_through_the_socket_server_and_a_handler_is_one_trace(tracing: Tracing) -> None:
    from kafka_edu.v3_9.clients.common.utils.time import SYSTEM
    from kafka_edu.v3_9.core.server.kafka_request_handler import ApiRequestHandler, KafkaRequestHandlerPool
    from tests.kafka_tests.test_utils import wait_until_true
    from tests.kafka_tests.v3_9.core.network.socket_server_test import (
        _World,
        process_request,
        producer_request_bytes,
        receive_response,
        send_request,
    )

    class EchoApis(ApiRequestHandler):
        def handle(self, request: Any, request_local: Any) -> None:
            process_request(request_channel, request)

    w = _World()
    request_channel = w.server.data_plane_request_channel
    pool = KafkaRequestHandlerPool(0, request_channel, EchoApis(), SYSTEM, 1, "", "data-plane")
    try:
        sock = w.connect()
        send_request(sock, producer_request_bytes())
        assert receive_response(sock) == producer_request_bytes()
        wait_until_true(lambda: any(s.name == "RequestChannel.Request" for s in tracing.memory.get_finished_spans()),
                        "the request's trace never ended")
    finally:
        pool.shutdown()
        w.server.shutdown()
        for s in w.sockets:
            s.close()

    spans = tracing.memory.get_finished_spans()
    (root,) = [s for s in spans if s.name == "RequestChannel.Request"]
    assert root.parent is None and root.attributes["kafka.api.name"] == "Produce"
    assert root.attributes["kafka.origin.version"] == "3.9"  # 3.9's RequestChannel.Request
    assert root.attributes["kafka.request.total_time_ms"] >= 0
    in_trace = sorted((s for s in spans if s.context.trace_id == root.context.trace_id and s is not root),
                      key=lambda s: s.start_time)
    assert [(s.name, _step(s)) for s in in_trace] == [("Processor.processCompletedReceives", "RQ.net.5"),
                                                      ("KafkaRequestHandler.run", "RQ.net.7"),
                                                      ("RequestChannel.sendResponse", "NW.channel.resp")]
    assert in_trace[-1].attributes["kafka.origin.version"] == "3.9"  # the NW row on 3.9's RequestChannel
    assert in_trace[-1].attributes["kafka.response.action"] == "Send"
    assert all(s.parent.span_id == root.context.span_id for s in in_trace)
    steps = {_step(s) for s in spans if "kafka.step" in s.attributes}
    assert {"RQ.net.1", "RQ.net.2", "RQ.net.3", "RQ.net.4"} <= steps
    (accept,) = [s for s in spans if s.attributes.get("kafka.step") == "RQ.net.3"]
    assert accept.name == "Acceptor.accept" and accept.attributes["kafka.origin.version"] == "3.9"


def test_an_isr_expansion_is_a_trace_of_its_own_linked_to_the_fetch_that_caused_it(tracing: Tracing,
                                                                                   world: World) -> None:
    from kafka_edu.v3_9.clients.common.uuid import Uuid
    from kafka_edu.v3_9.core.cluster.partition import LeaderAndIsrPartitionState
    from kafka_edu.v3_9.core.server.checkpoints.offset_checkpoint_file import LazyOffsetCheckpoints

    tp = TopicPartition(TOPIC, 0)
    rm = world.replica_manager
    partition = rm.create_partition(tp)
    partition.make_leader(
        LeaderAndIsrPartitionState(topic_name=TOPIC, partition_index=0, controller_epoch=0, leader=0, leader_epoch=0,
                                   isr=[0], partition_epoch=0, replicas=[0, 1], is_new=True),
        LazyOffsetCheckpoints(rm.high_watermark_checkpoints), Uuid.from_bytes(TOPIC_ID.bytes))
    append_records(rm, tp, singleton_records(b"message"), required_acks=1)
    tracing.memory.clear()

    # the follower has caught up: the leader proposes it for the ISR
    fetch_partition_as_follower(rm, TopicIdPartition(TOPIC_ID, tp), PartitionData(ZERO_UUID, 1, 0, 100000, None),
                                replica_id=1).assert_fired()

    spans = _rq_spans(tracing)
    (fetch_records,) = [s for s in spans if _step(s) == "RQ.fetch.4"]
    (isr,) = [s for s in spans if _step(s) == "RQ.isr"]
    assert isr.name == "Partition.submitAlterPartition" and isr.parent is None
    assert isr.context.trace_id != fetch_records.context.trace_id
    assert [link.context.span_id for link in isr.links] == [fetch_records.context.span_id]
    assert isr.attributes["kafka.isr.from"] == (0,) and isr.attributes["kafka.isr.to"] == (0, 1)
    assert isr.attributes["kafka.isr.change"] == "expand"


def test_a_follower_s_fetch_round_is_a_trace_with_its_truncation_on_a_diverging_epoch_inside(tracing: Tracing) -> None:
    from kafka_edu.v3_9.clients.common.protocol.api_keys import ApiKeys
    from kafka_edu.v3_9.clients.common.record.simple_record import SimpleRecord
    from tests.kafka_tests.v3_9.core.server.abstract_fetcher_thread_test import Config, _fetcher, _leader
    from tests.kafka_tests.v3_9.core.server.fetcher_thread_test_utils import initial_fetch_state, mk_batch
    from tests.kafka_tests.v3_9.core.server.mock_leader_end_point import PartitionState

    config = Config(truncate_on_fetch=True, version=ApiKeys.FETCH.latest_version, topic_ids={})
    partition = TopicPartition("topic", 0)
    fetcher = _fetcher(_leader(config))
    fetcher.set_replica_state(partition, PartitionState.of(
        [mk_batch(0, 0, SimpleRecord(b"a")), mk_batch(1, 0, SimpleRecord(b"b")), mk_batch(2, 2, SimpleRecord(b"c")),
         mk_batch(3, 4, SimpleRecord(b"d"))], leader_epoch=5, high_watermark=1))
    fetcher.add_partitions({partition: initial_fetch_state(None, 4, leader_epoch=5)})
    fetcher.mock_leader.set_leader_state(partition, PartitionState.of(
        [mk_batch(0, 0, SimpleRecord(b"a")), mk_batch(1, 0, SimpleRecord(b"b")), mk_batch(2, 2, SimpleRecord(b"c")),
         mk_batch(3, 5, SimpleRecord(b"g"))], leader_epoch=5, high_watermark=3))
    fetcher.mock_leader.set_replica_partition_state_callback(fetcher.replica_partition_state)

    fetcher.do_work()  # the leader answers with a diverging epoch: the follower truncates

    spans = _rq_spans(tracing)
    assert [_step(s) for s in spans] == ["RQ.follower.1", "RQ.follower.2"]
    fetch_round, truncation = spans
    assert fetch_round.name == "AbstractFetcherThread.processFetchRequest" and fetch_round.parent is None
    assert fetch_round.attributes["kafka.origin.version"] == "3.9"
    assert truncation.name == "AbstractFetcherThread.truncateOnFetchResponse"
    assert truncation.parent.span_id == fetch_round.context.span_id
    assert truncation.attributes["kafka.partitions"] == ("topic-0",)
    # the leader's epoch 2 ends at 3, and so does the follower's: cut to 3, where the logs agree
    assert truncation.attributes["kafka.diverging"] == ("topic-0:2@3",)
    assert truncation.attributes["kafka.truncation.offsets"] == (3,)


def test_a_verification_callback_resumes_under_the_produce_append_that_waited_for_it(tracing: Tracing) -> None:
    """KIP-890: handleProduceAppend wraps its callback (KafkaRequestHandler.wrapAsyncCallback); the coordinator's
    answer arrives on another thread and the callback runs as a CallbackRequest on a handler thread (RQ.net.7),
    a child of the RQ.produce.2 that waited."""
    import threading

    from kafka_edu.tracing import step
    from kafka_edu.v3_9.clients.common.utils.time import SYSTEM
    from kafka_edu.v3_9.core.server.kafka_request_handler import (
        ApiRequestHandler,
        KafkaRequestHandlerPool,
        wrap_async_callback,
    )
    from tests.kafka_tests.test_utils import wait_until_true
    from tests.kafka_tests.v3_9.core.network.socket_server_test import (
        _World,
        process_request,
        producer_request_bytes,
        receive_response,
        send_request,
    )

    class VerifyingReplicaManager:
        """handleProduceAppend's shape: the append waits for a verification answered on another thread."""

        @step("RQ.produce.2")
        def handle_produce_append(self, timeout: int, required_acks: int, internal_topics_allowed: bool,
                                  transactional_id: str | None, entries_per_partition: dict[Any, Any],
                                  response_callback: Any, request_local: Any = None) -> None:
            callback = wrap_async_callback(lambda _request_local, _result: response_callback({}), request_local)
            threading.Thread(target=callback, args=(None,), name="AddPartitionsToTxnSenderThread-0").start()

    class Apis(ApiRequestHandler):
        def handle(self, request: Any, request_local: Any) -> None:
            VerifyingReplicaManager().handle_produce_append(
                1000, -1, False, "txn", {}, lambda _responses: process_request(request_channel, request), request_local)

    w = _World()
    request_channel = w.server.data_plane_request_channel
    pool = KafkaRequestHandlerPool(0, request_channel, Apis(), SYSTEM, 1, "", "data-plane")
    try:
        sock = w.connect()
        send_request(sock, producer_request_bytes())
        assert receive_response(sock) == producer_request_bytes()
        wait_until_true(lambda: any(s.name == "RequestChannel.Request" for s in tracing.memory.get_finished_spans()),
                        "the request's trace never ended")
    finally:
        pool.shutdown()
        w.server.shutdown()
        for s in w.sockets:
            s.close()

    spans = _rq_spans(tracing)
    (root,) = [s for s in tracing.memory.get_finished_spans() if s.name == "RequestChannel.Request"]
    handlers = [s for s in spans if _step(s) == "RQ.net.7"]
    (append,) = [s for s in spans if _step(s) == "RQ.produce.2"]
    assert [s.attributes["kafka.handler.callback"] for s in handlers] == [False, True]
    request_handler, callback_handler = handlers
    assert request_handler.parent.span_id == root.context.span_id
    assert append.parent.span_id == request_handler.context.span_id
    assert callback_handler.parent.span_id == append.context.span_id
    assert {s.context.trace_id for s in (root, request_handler, append, callback_handler)} == {root.context.trace_id}


def test_a_follower_s_fetch_links_the_follower_s_round_and_each_request_is_its_own_trace(tracing: Tracing) -> None:
    """RQ.produce.1 and RQ.fetch.1 on real 3.9 requests (stand-ins carry the markers KafkaApis carries): the fetch of
    a replica that sent a traceparent stays in its request's trace and links the follower's span."""
    import datetime

    from kio.schema.fetch.v12.request import FetchRequest
    from kio.schema.types import BrokerId

    from kafka_edu.tracing import step
    from kafka_edu.v1_0_2.core.server.kafka_config import KafkaConfig
    from kafka_edu.v3_9.clients.common.protocol.api_keys import ApiKeys
    from kafka_edu.v3_9.clients.common.protocol.codec import encode_request
    from kafka_edu.v3_9.clients.common.utils.time import SYSTEM
    from kafka_edu.v3_9.core.network.socket_server import SocketServer
    from kafka_edu.v3_9.core.server.kafka_request_handler import ApiRequestHandler, KafkaRequestHandlerPool
    from tests.kafka_tests.test_utils import wait_until_true
    from tests.kafka_tests.v3_9.core.network.socket_server_test import (
        API_VERSION_MANAGER,
        _World,
        process_request,
        producer_request_bytes,
        receive_response,
        send_request,
    )

    follower_trace, follower_span = "ab" * 16, "cd" * 8

    class Apis(ApiRequestHandler):
        def handle(self, request: Any, request_local: Any) -> None:
            if request.header.api_key is ApiKeys.FETCH:
                self.handle_fetch_request(request)
            else:
                self.handle_produce_request(request, request_local)

        @step("RQ.produce.1")
        def handle_produce_request(self, request: Any, request_local: Any = None) -> None:
            process_request(request_channel, request)

        @step("RQ.fetch.1")
        def handle_fetch_request(self, request: Any) -> None:
            process_request(request_channel, request)

    # v12 (a flexible header, for the traceparent's tagged field): what this listener enables in the test class
    fetch = encode_request(ApiKeys.FETCH, 12, 7, "replica-1", FetchRequest(
        replica_id=BrokerId(1), max_wait=datetime.timedelta(milliseconds=500), min_bytes=1, topics=(),
        forgotten_topics_data=()), traceparent=f"00-{follower_trace}-{follower_span}-01")
    w = _World()
    # a traceparent makes the fetch bigger than the test class's 100-byte request limit
    server = SocketServer(KafkaConfig.from_props({**w.props, "socket.request.max.bytes": "1000"}), None, SYSTEM,
                          None, API_VERSION_MANAGER)
    server.enable_request_processing({}).result(60)
    w.servers.append(server)
    request_channel = server.data_plane_request_channel
    pool = KafkaRequestHandlerPool(0, request_channel, Apis(), SYSTEM, 1, "", "data-plane")
    try:
        sock = w.connect(server)
        for request in (producer_request_bytes(), fetch):
            send_request(sock, request)
            receive_response(sock)
        wait_until_true(lambda: sum(s.name == "RequestChannel.Request" for s in tracing.memory.get_finished_spans())
                        == 2, "the requests' traces never ended")
    finally:
        pool.shutdown()
        for s in w.servers:
            s.shutdown()
        for s in w.sockets:
            s.close()

    spans = tracing.memory.get_finished_spans()
    produce_root, fetch_root = sorted((s for s in spans if s.name == "RequestChannel.Request"),
                                      key=lambda s: s.start_time)
    (produce,) = [s for s in spans if s.attributes.get("kafka.step") == "RQ.produce.1"]
    (fetch_span,) = [s for s in spans if s.attributes.get("kafka.step") == "RQ.fetch.1"]
    assert produce.name == "KafkaApis.handleProduceRequest" and produce.attributes["kafka.origin.version"] == "3.9"
    assert produce.context.trace_id == produce_root.context.trace_id
    assert produce.attributes["kafka.produce.timeout_ms"] == 10000
    assert fetch_span.name == "KafkaApis.handleFetchRequest"
    assert fetch_span.context.trace_id == fetch_root.context.trace_id
    assert [(link.context.trace_id, link.context.span_id) for link in fetch_span.links] == [
        (int(follower_trace, 16), int(follower_span, 16))]
    assert fetch_span.attributes["kafka.fetch.replica_id"] == 1
    assert fetch_span.attributes["kafka.fetch.max_wait_ms"] == 500
    assert fetch_root.attributes["kafka.traceparent"] == f"00-{follower_trace}-{follower_span}-01"
