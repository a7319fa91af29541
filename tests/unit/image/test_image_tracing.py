"""The metadata image's spans (FIDELITY KR.publish): a commit with more than NoOps is a KR.publish span; an idle
NoOp commit is none, unless it is the one that makes the snapshot generator write a snapshot, which is then one
trace from the publish to the emitter; a snapshot load is KR.publish too, with the image it made."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from kafka_edu.tracing import provider, setup_tracing
from kafka_edu.v3_9.metadata.image.loader.metadata_loader import MetadataLoader
from kafka_edu.v3_9.metadata.image.publisher.snapshot_emitter import SnapshotEmitter
from kafka_edu.v3_9.metadata.image.publisher.snapshot_generator import SnapshotGenerator
from kafka_edu.v3_9.raft.raft.offset_and_epoch import OffsetAndEpoch
from tests.integration.helpers import wait_until
from tests.unit.image.records import ORDERS, PAYMENTS, feature_level, no_op, partition, register_broker, topic
from tests.unit.image.test_metadata_loader import ListSnapshotReader, Log
from tests.unit.image.test_snapshot_generator import RaftClientStub


@pytest.fixture
def tracing(monkeypatch: pytest.MonkeyPatch) -> Iterator[provider.Tracing]:
    monkeypatch.setattr(provider, "_current", None)
    yield setup_tracing("controller-1", "run-image")


def spans(tracing: provider.Tracing, name: str) -> list:
    return [s for s in tracing.memory.get_finished_spans() if s.name == name]


def test_publish_spans_for_changes_and_snapshots_but_not_for_idle_no_ops(tracing, tmp_path: Path) -> None:
    holder: dict[str, Log] = {}
    loader = (MetadataLoader.Builder().set_node_id(1).set_thread_name_prefix("traced-")
              .set_high_water_mark_accessor(lambda: holder["log"].high_watermark).build())
    log = holder["log"] = Log(loader)
    log.high_watermark = 0
    client = RaftClientStub(tmp_path)
    generator = (SnapshotGenerator.Builder(SnapshotEmitter.Builder().set_raft_client(client).build())
                 .set_max_bytes_since_last_snapshot(200).set_thread_name_prefix("traced-").build())
    try:
        loader.install_publishers([generator]).result(5)
        log.commit([feature_level(), register_broker(1, 1), topic("orders", ORDERS)])  # 0-2, 150 bytes
        wait_until(lambda: "SnapshotGenerator" in loader.publishers, 5, "the generator installed")
        for _ in range(4):  # NoOps of 50 bytes: nothing, nothing, nothing, then the 200 bytes are reached
            log.commit([no_op()])
            loader.wait_for_all_events_to_be_handled()
        wait_until(lambda: client.created, 5, "a snapshot")
        wait_until(generator.event_queue.is_empty, 5, "the snapshot written")

        publishes = spans(tracing, "MetadataLoader.handleCommit")
        assert [(s.attributes["kafka.raft.offset.first"], s.attributes["kafka.metadata.record.types"])
                for s in publishes] == [(0, ("FeatureLevelRecord", "RegisterBrokerRecord", "TopicRecord")),
                                        (6, ("NoOpRecord",))]
        assert all(s.attributes["kafka.step"] == "KR.publish" for s in publishes)
        assert publishes[1].attributes["kafka.metadata.image.offset"] == 6
        assert publishes[1].attributes["kafka.metadata.image.topic_names"] == ("orders",)
        (decision,) = spans(tracing, "SnapshotGenerator.publishLogDelta")
        assert decision.attributes["kafka.snapshot.trigger"] == "bytes"
        assert decision.attributes["kafka.snapshot.bytes_since_last"] == 200
        assert decision.attributes["kafka.snapshot.scheduled"] == "snapshot 00000000000000000007-0000000003"
        (emit,) = spans(tracing, "SnapshotEmitter.maybeEmit")
        assert emit.attributes["kafka.raft.snapshot.end_offset"] == 7 and emit.attributes["kafka.raft.snapshot.bytes"]
        # the publish and its decision are one trace; the write is the generator's queue event, a trace of its own
        # linked to the decision that asked for it
        assert decision.context.trace_id == publishes[1].context.trace_id != emit.context.trace_id
        (asked,) = [s for s in spans(tracing, "KafkaEventQueue.enqueue") if s.context.trace_id == emit.context.trace_id]
        assert asked.parent is None and [link.context.span_id for link in asked.links] == [decision.context.span_id]
        assert client.created[0][0] == OffsetAndEpoch(7, 3)

        loader.handle_load_snapshot(ListSnapshotReader(OffsetAndEpoch(100, 5), [
            feature_level(), topic("payments", PAYMENTS), partition(PAYMENTS, 0, (2,))], timestamp=9))
        loaded = wait_until(lambda: spans(tracing, "MetadataLoader.handleLoadSnapshot"), 5, "the snapshot load span")
        attributes = loaded[0].attributes
        assert attributes["kafka.step"] == "KR.publish" and attributes["kafka.raft.snapshot.end_offset"] == 100
        assert attributes["kafka.metadata.image.offset.before"] == 6 and attributes["kafka.metadata.image.offset"] == 99
        assert attributes["kafka.metadata.image.topic_names"] == ("payments",)
        assert attributes["kafka.metadata.image.brokers"] == ()
    finally:
        loader.close()
        generator.close()
    assert not [s for s in tracing.memory.get_finished_spans() if "kafka.describe.error" in s.attributes]
