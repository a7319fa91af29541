"""A KRaft broker's spans (FIDELITY KR.publish, broker side): a commit is one trace from the loader's handleCommit
through BrokerMetadataPublisher.onMetadataUpdate and ReplicaManager.applyDelta to the 1.0.2 makeLeaders /
makeFollowers, each span with its own Kafka version; an idle NoOp commit makes no broker span; a leader's ISR shrink
is one trace to the AlterPartition request, and the controller's answer a trace of its own linked to it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from kafka_edu.tracing import provider, setup_tracing
from kafka_edu.v1_0_2.core.log.log import TopicPartition
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


def test_a_commit_is_one_trace_down_to_the_1_0_2_leadership_changes(tracing, tmp_path: Path) -> None:
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
        wait_until(lambda: spans(tracing, "GroupMetadataManager.loadGroupsForPartition"), TIMEOUT, "the groups load")
        # the first publish hands the caught-up image whole to the publisher: a trace of its own
        (first,) = spans(tracing, "BrokerMetadataPublisher.onMetadataUpdate")
        (first_apply,) = spans(tracing, "ReplicaManager.applyDelta")
        assert first.parent is None and first.attributes["kafka.metadata.publish.first"]
        assert first.attributes["kafka.step"] == "KR.publish" and first.attributes["kafka.metadata.image.offset"] == 5
        assert first_apply.attributes["kafka.partitions.leader"] == ("__consumer_offsets-0",)
        # the group load runs on the coordinator's scheduler, in its own trace, linked to the change that caused it
        (load,) = spans(tracing, "GroupMetadataManager.loadGroupsForPartition")
        assert [link.context.span_id for link in load.links] == [first_apply.context.span_id]

        # from then on a commit is one trace: handleCommit -> onMetadataUpdate -> applyDelta -> makeFollowers
        raft_log.commit(topic("orders", ORDERS), partition(ORDERS, 0, (2, 1)))
        loader.wait_for_all_events_to_be_handled()
        commit = spans(tracing, "MetadataLoader.handleCommit")[-1]
        publish = spans(tracing, "BrokerMetadataPublisher.onMetadataUpdate")[-1]
        apply = spans(tracing, "ReplicaManager.applyDelta")[-1]
        (followers,) = spans(tracing, "ReplicaManager.makeFollowers")
        assert publish.parent.span_id == commit.context.span_id and apply.parent.span_id == publish.context.span_id
        assert followers.parent.span_id == apply.context.span_id
        assert not publish.attributes["kafka.metadata.publish.first"]
        assert publish.attributes["kafka.metadata.topics.created"] == ("orders",)
        assert apply.attributes["kafka.partitions.follower"] == ("orders-0",)
        (leaders,) = spans(tracing, "ReplicaManager.makeLeaders")
        assert [s.attributes["kafka.origin.version"] for s in (publish, apply, followers, leaders)] == [
            "3.9", "3.9", "1.0.2", "1.0.2"]

        raft_log.commit(no_op())
        raft_log.commit(no_op())
        loader.wait_for_all_events_to_be_handled()
        assert len(spans(tracing, "BrokerMetadataPublisher.onMetadataUpdate")) == 2  # idle: nothing to apply

        raft_log.commit(remove_topic(ORDERS))
        loader.wait_for_all_events_to_be_handled()
        (stop,) = spans(tracing, "ReplicaManager.stopPartitions")
        assert stop.attributes["kafka.partitions.deleted"] == ("orders-0",)
        assert spans(tracing, "BrokerMetadataPublisher.onMetadataUpdate")[-1].attributes[
            "kafka.metadata.topics.deleted"] == ("orders",)
    finally:
        loader.close()
        broker.close()
    assert not [s for s in tracing.memory.get_finished_spans() if "kafka.describe.error" in s.attributes]


def test_an_isr_shrink_is_a_trace_to_the_request_and_its_answer_links_back(tracing, tmp_path: Path) -> None:
    broker = LocalBroker(tmp_path, broker_epoch=77)
    try:
        broker.publish(feature_level(), register_broker(1, 10), register_broker(2, 11), unfenced(1, 10),
                       unfenced(2, 11), topic("orders", ORDERS), partition(ORDERS, 0, (1, 2)))
        partition_0 = broker.replica_manager.get_partition(TopicPartition("orders", 0))
        wait_until(lambda: (partition_0.maybe_shrink_isr(0), broker.sender.sent)[1], TIMEOUT, "the shrink sent")
        (shrink,) = spans(tracing, "Partition.maybeShrinkIsr")
        (submit,) = spans(tracing, "Partition.submitAlterPartition")
        (send,) = spans(tracing, "AlterPartitionManager.sendRequest")
        assert submit.parent.span_id == shrink.context.span_id and send.parent.span_id == submit.context.span_id
        assert (submit.attributes["kafka.isr.from"], submit.attributes["kafka.isr.to"]) == ((1, 2), (1,))
        assert submit.attributes["kafka.isr.change"] == "shrink"
        assert send.attributes["kafka.broker.epoch"] == 77 and send.attributes["kafka.partitions"] == ("orders-0",)

        request, on_complete = broker.sender.sent[0]
        on_complete(answer(request))  # the controller's answer, later, on the channel's thread
        (response,) = spans(tracing, "AlterPartitionManager.handleAlterPartitionResponse")
        assert response.parent is None and [link.context.span_id for link in response.links] == [
            send.context.span_id]
        (isr_change,) = [e for e in response.events if e.name == "isr.change"]
        assert (isr_change.attributes["kafka.isr.from"], isr_change.attributes["kafka.isr.to"]) == ((1, 2), (1,))
        assert isr_change.attributes["kafka.zk.version"] == 1  # the partition epoch the controller gave it
    finally:
        broker.close()
    assert not [s for s in tracing.memory.get_finished_spans() if "kafka.describe.error" in s.attributes]
