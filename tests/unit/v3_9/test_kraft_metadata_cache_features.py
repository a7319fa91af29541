"""Our own test, not a Kafka port (Kafka's MetadataCacheTest has none for it): KRaftMetadataCache.features(), which
3.9's TransactionStateManager reads transaction.version from, as 3.9's KRaftMetadataCache builds it: the image's
finalized features, kraft.version from the Raft client, metadata.version always, at the image's offset."""

from __future__ import annotations

import dataclasses

from kafka_edu.v3_9.core.server.metadata.kraft_metadata_cache import KRaftMetadataCache
from kafka_edu.v3_9.metadata.image.features_image import FeaturesImage
from kafka_edu.v3_9.metadata.image.metadata_image import MetadataImage
from kafka_edu.v3_9.metadata.image.metadata_provenance import MetadataProvenance
from kafka_edu.v3_9.server_common.server.common.finalized_features import FinalizedFeatures
from kafka_edu.v3_9.server_common.server.common.k_raft_version import KRaftVersion
from kafka_edu.v3_9.server_common.server.common.metadata_version import MetadataVersion


def test_features_of_the_published_image_with_the_raft_clients_kraft_version() -> None:
    cache = KRaftMetadataCache(1, "cluster", lambda: KRaftVersion.KRAFT_VERSION_1)
    cache.set_image(dataclasses.replace(
        MetadataImage.EMPTY, provenance=MetadataProvenance(42, 3, 0),
        features=FeaturesImage({"transaction.version": 0, "group.version": 1}, MetadataVersion.IBP_3_9_IV0)))
    features = cache.features()
    assert features.metadata_version() is MetadataVersion.IBP_3_9_IV0
    assert features.finalized_features() == {"transaction.version": 0, "group.version": 1, "kraft.version": 1,
                                             "metadata.version": MetadataVersion.IBP_3_9_IV0.feature_level()}
    assert features.finalized_features_epoch() == 42


def test_an_empty_image_and_a_static_quorum() -> None:
    features = KRaftMetadataCache(1).features()
    assert features.finalized_features()["kraft.version"] == 0
    assert features.finalized_features().get("transaction.version", 0) == 0  # what the coordinator reads
    assert features == FinalizedFeatures(features.metadata_version(), {"kraft.version": 0},
                                         features.finalized_features_epoch(), True)


def test_zookeeper_mode_never_lists_metadata_version() -> None:
    features = FinalizedFeatures(MetadataVersion.IBP_3_9_IV0, {"metadata.version": 21, "a": 1}, 5, False)
    assert features.finalized_features() == {"a": 1}
