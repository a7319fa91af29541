"""A KRaft broker's spans (FIDELITY KR.publish, broker side, and the RQ rows below it): a commit is one trace from
the loader's handleCommit through BrokerMetadataPublisher.onMetadataUpdate down to what 3.9's ReplicaManager.applyDelta
does to the logs (RQ.load: LogManager.loadLogs at the first publish, LogLoader.load for each log a leader or follower
creates; a deleted log's cleaning aborted, CL.abort); an idle NoOp commit makes no broker span; the follower's
fetches are traces of their own (RQ.follower.1); 3.9's group coordinator loads an offsets partition in a trace of its
own (GC.load). A leader's ISR shrink is one trace from Partition.submitAlterPartition (RQ.isr) to the
AlterPartition request, and the controller's answer a trace of its own linked to it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kafka_edu.tracing import provider, setup_tracing
from kafka_edu.v3_9.clients.common.topic_partition import TopicPartition
from kafka_edu.v3_9.clients.common.utils.mock_time import MockTime
from kafka_edu.v3_9.metadata.image.loader.metadata_loader import MetadataLoader
from tests.integration.helpers import wait_until
from tests.unit.image.records import ORDERS, feature_level, no_op, partition, register_broker, remove_topic, topic
from tests.unit.image.records import unfence as unfenced
from tests.unit.kraft_broker_data.local_broker import LocalBroker
from tests.unit.kraft_broker_data.test_alter_partition import answer
from tests.unit.kraft_broker_data.test_broker_metadata_publisher import OFFSETS, RaftLog

TIMEOUT = 10.0


@pytest.fixture
def tracing(monkeypatch: pytest.MonkeyPatch) -> Iterator[provider.Tracing]:
    monkeypatch.setattr(provider, "_current", None)
    yield setup_tracing("broker-1", "run-kraft-publish")


def spans(tracing: provider.Tracing, name: str) -> list:
    return [s for s in tracing.memory.get_finished_spans() if s.name == name]


def is_below(tracing: provider.Tracing, descendant: Any, ancestor: Any) -> bool:
    """Whether `ancestor` is on `descendant`'s parent chain (whatever spans come between)."""
    by_id = {s.context.span_id: s for s in tracing.memory.get_finished_spans()}
    parent = descendant.parent
    while parent is not None:
        if parent.span_id == ancestor.context.span_id:
            return True
        parent = by_id[parent.span_id].parent if parent.span_id in by_id else None
    return False


def log_loads(tracing: provider.Tracing, topic_partition: str) -> list:
    return [s for s in spans(tracing, "LogLoader.load") if f"partition={topic_partition}," in s.attributes[
        "kafka.log.dir"]]


def test_a_commit_is_one_trace_down_to_the_logs_the_leadership_changes_create(tracing, tmp_path: Path) -> None:
    broker = LocalBroker(tmp_path)
    holder: dict[str, RaftLog] = {}
    loader = (MetadataLoader.Builder().set_node_id(1).set_thread_name_prefix("traced-broker-")
              .set_high_water_mark_accessor(lambda: holder["log"].high_watermark).build())
    raft_log = holder["log"] = RaftLog(loader)
    raft_log.high_watermark = 0
    try:
        loader.install_publishers([broker.publisher]).result(TIMEOUT)
        raft_log.commit(feature_level(), register_broker(1, 10), register_broker(2, 11), unfenced(1, 10),
                        topic("__consumer_offsets", OFFSETS), partition(OFFSETS, 0, (1, 2)))
        broker.publisher.first_publish_future.result(TIMEOUT)
        wait_until(lambda: spans(tracing, "CoordinatorLoaderImpl.load"), TIMEOUT, "the groups load")
        # the first publish hands the caught-up image whole to the publisher: a trace of its own
        (first,) = spans(tracing, "BrokerMetadataPublisher.onMetadataUpdate")
        assert first.parent is None and first.attributes["kafka.metadata.publish.first"]
        assert first.attributes["kafka.step"] == "KR.publish" and first.attributes["kafka.metadata.image.offset"] == 5
        # in it the LogManager starts (RQ.load.1), then the offsets partition it now leads gets its log (RQ.load.2)
        (load_logs,) = spans(tracing, "LogManager.loadLogs")
        (offsets_log,) = log_loads(tracing, "__consumer_offsets-0")
        assert (load_logs.attributes["kafka.step"], offsets_log.attributes["kafka.step"]) == ("RQ.load.1", "RQ.load.2")
        assert is_below(tracing, load_logs, first) and is_below(tracing, offsets_log, first)
        # the group load runs on the coordinator's scheduler, in its own trace (linked, if at all, to this publish)
        (load,) = spans(tracing, "CoordinatorLoaderImpl.load")
        assert load.attributes["kafka.step"] == "GC.load"
        assert load.parent is None and load.context.trace_id != first.context.trace_id
        assert all(link.context.trace_id == first.context.trace_id for link in load.links)

        # from then on a commit is one trace: handleCommit -> onMetadataUpdate -> the follower's new log
        raft_log.commit(topic("orders", ORDERS), partition(ORDERS, 0, (2, 1)))
        loader.wait_for_all_events_to_be_handled()
        commit = spans(tracing, "MetadataLoader.handleCommit")[-1]
        publish = spans(tracing, "BrokerMetadataPublisher.onMetadataUpdate")[-1]
        assert commit.attributes["kafka.step"] == "KR.publish" and publish.parent.span_id == commit.context.span_id
        assert not publish.attributes["kafka.metadata.publish.first"]
        assert publish.attributes["kafka.metadata.topics.created"] == ("orders",)
        (orders_log,) = log_loads(tracing, "orders-0")
        assert is_below(tracing, orders_log, publish)
        assert [s.attributes["kafka.origin.version"] for s in (commit, publish, orders_log, load)] == [
            "3.9", "3.9", "3.9", "3.9"]  # the data plane and the group coordinator are 3.9's
        # the follower fetches from broker 2 (no one listens there): each fetch is a trace of its own
        wait_until(lambda: spans(tracing, "AbstractFetcherThread.processFetchRequest"), TIMEOUT, "a fetch")
        fetch = spans(tracing, "AbstractFetcherThread.processFetchRequest")[0]
        assert fetch.parent is None and fetch.attributes["kafka.step"] == "RQ.follower.1"
        assert (fetch.attributes["kafka.fetcher.source.broker"], fetch.attributes["kafka.partitions"]) == (
            2, ("orders-0",))

        raft_log.commit(no_op())
        raft_log.commit(no_op())
        loader.wait_for_all_events_to_be_handled()
        assert len(spans(tracing, "BrokerMetadataPublisher.onMetadataUpdate")) == 2  # idle: nothing to apply

        raft_log.commit(remove_topic(ORDERS))
        loader.wait_for_all_events_to_be_handled()
        publish = spans(tracing, "BrokerMetadataPublisher.onMetadataUpdate")[-1]
        assert publish.attributes["kafka.metadata.topics.deleted"] == ("orders",)
        # the replica goes: its log's cleaning is aborted before the log is renamed for deletion (CL.abort)
        (abort,) = [s for s in spans(tracing, "LogCleanerManager.abortAndPauseCleaning")
                    if s.attributes["kafka.topic"] == "orders"]
        assert abort.attributes["kafka.step"] == "CL.abort" and is_below(tracing, abort, publish)
    finally:
        loader.close()
        broker.close()
    assert not [s for s in tracing.memory.get_finished_spans() if "kafka.describe.error" in s.attributes]


def test_an_isr_shrink_is_a_trace_to_the_request_and_its_answer_links_back(tracing, tmp_path: Path) -> None:
    broker = LocalBroker(tmp_path, broker_epoch=77, time=MockTime())
    try:
        broker.publish(feature_level(), register_broker(1, 10), register_broker(2, 11), unfenced(1, 10),
                       unfenced(2, 11), topic("orders", ORDERS), partition(ORDERS, 0, (1, 2)))
        partition_0 = broker.replica_manager.online_partition(TopicPartition("orders", 0))
        broker.time.sleep(broker.config.replica_lag_time_max_ms + 1)
        partition_0.maybe_shrink_isr()  # the isr-expiration task's check
        (submit,) = spans(tracing, "Partition.submitAlterPartition")
        (send,) = spans(tracing, "AlterPartitionManager.sendRequest")
        assert submit.parent is None and send.parent.span_id == submit.context.span_id
        assert submit.attributes["kafka.step"] == "RQ.isr"
        assert (submit.attributes["kafka.isr.from"], submit.attributes["kafka.isr.to"]) == ((1, 2), (1,))
        assert (submit.attributes["kafka.isr.change"], submit.attributes["kafka.partition.epoch"]) == ("shrink", 0)
        assert send.attributes["kafka.broker.epoch"] == 77 and send.attributes["kafka.partitions"] == ("orders-0",)

        request, on_complete = broker.sender.sent[0]
        on_complete(answer(request))  # the controller's answer, later, on the channel's thread
        (response,) = spans(tracing, "AlterPartitionManager.handleAlterPartitionResponse")
        assert response.parent is None and [link.context.span_id for link in response.links] == [
            send.context.span_id]
        assert (response.attributes["kafka.error_code"], response.attributes["kafka.partitions"]) == (
            0, ("orders-0",))
        assert (partition_0.in_sync_replica_ids(), partition_0.get_partition_epoch()) == ({1}, 1)
    finally:
        broker.close()
    assert not [s for s in tracing.memory.get_finished_spans() if "kafka.describe.error" in s.attributes]
