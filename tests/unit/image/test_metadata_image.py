"""MetadataImage and MetadataDelta (Kafka 3.9): records replayed into a delta make the image the controller's state
implies; an image written out and replayed is the same image; a snapshot holds 3.9's records in 3.9's order."""

from __future__ import annotations

from pathlib import Path

import pytest

from kafka_edu.v1_0_2.clients.common.errors import IllegalStateException
from kafka_edu.v3_9.metadata.common.metadata import BrokerRegistrationChangeRecord, FenceBrokerRecord
from kafka_edu.v3_9.metadata.controller.configuration_control_manager import ConfigResourceType
from kafka_edu.v3_9.metadata.image.metadata_delta import MetadataDelta
from kafka_edu.v3_9.metadata.image.metadata_image import MetadataImage
from kafka_edu.v3_9.metadata.image.metadata_provenance import MetadataProvenance
from kafka_edu.v3_9.metadata.image.writer.image_writer_options import ImageWriterOptions, UnwritableMetadataException
from kafka_edu.v3_9.metadata.image.writer.raft_snapshot_writer import RaftSnapshotWriter
from kafka_edu.v3_9.metadata.image.writer.record_list_writer import RecordListWriter
from kafka_edu.v3_9.metadata.metadata.metadata_record_serde import MetadataRecordSerde
from kafka_edu.v3_9.raft.raft.offset_and_epoch import OffsetAndEpoch
from kafka_edu.v3_9.raft.snapshot.file_raw_snapshot_reader import FileRawSnapshotReader
from kafka_edu.v3_9.raft.snapshot.file_raw_snapshot_writer import FileRawSnapshotWriter
from kafka_edu.v3_9.raft.snapshot.records_snapshot_reader import RecordsSnapshotReader
from kafka_edu.v3_9.raft.snapshot.records_snapshot_writer import RecordsSnapshotWriter
from kafka_edu.v3_9.server_common.server.common.metadata_version import MetadataVersion
from tests.unit.image.records import (
    ORDERS,
    PAYMENTS,
    cluster_records,
    config,
    feature_level,
    register_broker,
    remove_topic,
)

PROVENANCE = MetadataProvenance(41, 3, 1_730_000_000_000)


def image_of(records, base: MetadataImage = MetadataImage.EMPTY, provenance: MetadataProvenance = PROVENANCE
             ) -> MetadataImage:
    delta = MetadataDelta.Builder().set_image(base).build()
    for record in records:
        delta.replay(record.message)
    return delta.apply(provenance)


def written(image: MetadataImage, metadata_version: MetadataVersion = MetadataVersion.IBP_3_9_IV0) -> list:
    writer = RecordListWriter()
    image.write(writer, ImageWriterOptions.Builder().set_metadata_version(metadata_version).build())
    return writer.records()


def replayed_as_snapshot(records, provenance: MetadataProvenance = PROVENANCE,
                         base: MetadataImage = MetadataImage.EMPTY) -> MetadataImage:
    delta = MetadataDelta.Builder().set_image(base).build()
    for record in records:
        delta.replay(record.message)
    delta.finish_snapshot()
    return delta.apply(provenance)


def test_a_delta_of_the_logs_records_gives_the_cluster_the_controller_wrote() -> None:
    image = image_of(cluster_records())

    assert image.provenance == PROVENANCE and image.offset() == 41
    assert image.highest_offset_and_epoch() == OffsetAndEpoch(41, 3)
    assert image.features.metadata_version is MetadataVersion.IBP_3_9_IV0
    # both brokers registered with the epoch of their record, and unfenced by BrokerRegistrationChangeRecord
    assert sorted(image.cluster.brokers) == [1, 2]
    assert image.cluster.broker_epoch(1) == 11 and not image.cluster.broker(1).fenced
    assert image.cluster.broker(2).listeners["PLAINTEXT"].port == 9094
    # the topic and its partitions; the leader change moved leader and bumped both epochs
    orders = image.topics.get_topic("orders")
    assert orders is image.topics.get_topic(ORDERS) and sorted(orders.partitions) == [0, 1, 2]
    p0 = image.topics.get_partition(ORDERS, 0)
    assert (p0.leader, p0.isr, p0.leader_epoch, p0.partition_epoch) == (2, (2,), 1, 1)
    assert image.topics.get_partition(ORDERS, 1).leader == 1
    assert image.configs.config_properties((ConfigResourceType.TOPIC, "orders")) == {"retention.ms": "3600000"}
    assert image.topics.get_topic("payments").id == PAYMENTS


def test_a_later_delta_builds_on_the_image_before_it_and_leaves_the_old_image_alone() -> None:
    before = image_of(cluster_records())
    after = image_of([remove_topic(ORDERS), config("payments", "cleanup.policy", "compact")], before,
                     MetadataProvenance(45, 3, 1_730_000_000_500))

    # the topic and its configs are gone; the other topic and the brokers stay
    assert after.topics.get_topic("orders") is None and after.topics.get_topic(ORDERS) is None
    assert after.configs.config_properties((ConfigResourceType.TOPIC, "orders")) == {}
    assert after.configs.config_properties((ConfigResourceType.TOPIC, "payments")) == {"cleanup.policy": "compact"}
    assert after.topics.get_topic("payments") == before.topics.get_topic("payments")
    assert after.cluster == before.cluster
    # images are immutable: the one before still has the topic
    assert before.topics.get_topic("orders") is not None


def test_a_config_set_to_null_is_deleted_and_an_empty_resource_leaves_the_image() -> None:
    image = image_of([*cluster_records(), config("orders", "retention.ms", None)])
    assert (ConfigResourceType.TOPIC, "orders") not in image.configs.resource_data()


def test_a_registration_change_with_the_wrong_broker_epoch_is_refused() -> None:
    delta = MetadataDelta.Builder().set_image(image_of(cluster_records())).build()
    with pytest.raises(IllegalStateException, match="did not match the current broker epoch, 11"):
        delta.replay(BrokerRegistrationChangeRecord(broker_id=1, broker_epoch=99, fenced=1))
    with pytest.raises(IllegalStateException, match="broker 7, but that broker was not registered"):
        delta.replay(FenceBrokerRecord(id=7, epoch=1))


def test_image_write_then_replay_gives_the_same_image() -> None:
    image = image_of(cluster_records())
    assert replayed_as_snapshot(written(image)) == image


def test_a_snapshot_holds_3_9s_records_in_3_9s_order() -> None:
    image = image_of([feature_level(1, "kraft.version"), *cluster_records()])
    records = written(image)
    kinds = [(type(r.message).__name__, r.version) for r in records]

    # metadata.version first (version 0, so any reader reads it), other features after it; then the brokers by
    # id, RegisterBrokerRecord v3 at 3.9-IV0; each TopicRecord followed by its partitions in order, PartitionRecord
    # v1; the configs last. No NoOp, no transaction marker, no change record: an image has only state.
    assert kinds == [("FeatureLevelRecord", 0), ("FeatureLevelRecord", 0),
                     ("RegisterBrokerRecord", 3), ("RegisterBrokerRecord", 3),
                     ("TopicRecord", 0), ("PartitionRecord", 1), ("PartitionRecord", 1), ("PartitionRecord", 1),
                     ("TopicRecord", 0), ("PartitionRecord", 1),
                     ("ConfigRecord", 0)]
    assert records[0].message.name == "metadata.version" and records[0].message.feature_level == 21
    assert records[1].message.name == "kraft.version"
    assert [r.message.broker_id for r in records[2:4]] == [1, 2]
    assert not records[2].message.fenced  # the registration as it is now, not as it was first written
    assert [r.message.name for r in records if type(r.message).__name__ == "TopicRecord"] == ["orders", "payments"]
    assert [r.message.partition_id for r in records[5:8]] == [0, 1, 2]
    assert (records[5].message.leader, records[5].message.leader_epoch) == (2, 1)


def test_an_older_metadata_version_writes_older_record_versions_and_reports_what_it_cannot_hold() -> None:
    image = image_of(cluster_records())
    with pytest.raises(UnwritableMetadataException, match="online log directories"):
        written(image, MetadataVersion.IBP_3_6_IV2)  # before directory assignment (3.7-IV2)
    losses: list[str] = []
    writer = RecordListWriter()
    image.write(writer, ImageWriterOptions.Builder().set_metadata_version(MetadataVersion.IBP_3_6_IV2)
                .set_loss_handler(lambda e: losses.append(e.loss)).build())
    versions = {type(r.message).__name__: r.version for r in writer.records()}
    assert versions["RegisterBrokerRecord"] == 2 and versions["PartitionRecord"] == 0
    assert "the online log directories of one or more brokers" in losses


def test_a_snapshot_replaces_what_the_image_had_finish_snapshot_removes_the_rest() -> None:
    old = image_of([*cluster_records(), register_broker(3, 12)])
    # a snapshot that knows only metadata.version, broker 1 and topic payments
    snapshot = [feature_level(), register_broker(1, 11), *[r for r in written(image_of(cluster_records()))
                                                           if type(r.message).__name__ in ("TopicRecord",
                                                                                           "PartitionRecord")
                                                           and r.message.topic_id == PAYMENTS]]
    loaded = replayed_as_snapshot(snapshot, MetadataProvenance(80, 4, 1), base=old)
    assert sorted(loaded.cluster.brokers) == [1] and loaded.cluster.broker(1).fenced
    assert sorted(loaded.topics.topics_by_name) == ["payments"]
    assert loaded.configs.is_empty()
    assert loaded == replayed_as_snapshot(snapshot, MetadataProvenance(80, 4, 1))  # as if loaded from nothing


def test_an_image_through_a_real_snapshot_file_and_back(tmp_path: Path) -> None:
    image = image_of(cluster_records())
    snapshot_id = image.provenance.snapshot_id()
    assert snapshot_id == OffsetAndEpoch(42, 3)
    assert image.provenance.snapshot_name() == "snapshot 00000000000000000042-0000000003"
    raw = (RecordsSnapshotWriter.Builder().set_raw_snapshot_writer(FileRawSnapshotWriter.create(tmp_path, snapshot_id))
           .set_last_contained_log_timestamp(image.provenance.last_contained_log_time_ms)
           .set_max_batch_size(400).build(MetadataRecordSerde.INSTANCE))
    writer = RaftSnapshotWriter(raw, batch_size=4)  # appends of four records; 400-byte batches hold a few each
    image.write(writer, ImageWriterOptions.Builder().set_metadata_version(image.features.metadata_version).build())
    assert writer.frozen_size() and (tmp_path / "00000000000000000042-0000000003.checkpoint").exists()

    reader = RecordsSnapshotReader.of(FileRawSnapshotReader.open(tmp_path, snapshot_id), MetadataRecordSerde.INSTANCE)
    with reader:
        batches = list(reader)
        provenance = MetadataProvenance(reader.last_contained_log_offset(), reader.last_contained_log_epoch(),
                                        reader.last_contained_log_timestamp())
    assert len(batches) > 1 and sum(len(b.records) for b in batches) == 10
    assert provenance == image.provenance
    assert replayed_as_snapshot([r for b in batches for r in b.records], provenance) == image
