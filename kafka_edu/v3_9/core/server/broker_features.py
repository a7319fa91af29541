"""Port of core/src/main/scala/kafka/server/BrokerFeatures.scala (Kafka 3.9): only `defaultSupportedFeatures`, the
feature ranges a node advertises as supported in its ApiVersions answer."""

from __future__ import annotations

from kafka_edu.v3_9.clients.common.feature.supported_version_range import SupportedVersionRange
from kafka_edu.v3_9.server_common.server.common import metadata_version
from kafka_edu.v3_9.server_common.server.common.features import PRODUCTION_FEATURES


def default_supported_features(unstable_feature_versions_enabled: bool) -> dict[str, SupportedVersionRange]:
    """metadata.version from the first KRaft level up, and each production feature from its lowest level to its
    newest (stable, unless unstable versions are on); a feature whose newest level is 0 is left out."""
    features: dict[str, SupportedVersionRange] = {
        metadata_version.FEATURE_NAME: SupportedVersionRange(
            metadata_version.MINIMUM_KRAFT_VERSION.feature_level(),
            (metadata_version.MetadataVersion.latest_testing() if unstable_feature_versions_enabled
             else metadata_version.MetadataVersion.latest_production()).feature_level())}
    for feature in PRODUCTION_FEATURES:
        max_version = feature.latest_testing() if unstable_feature_versions_enabled else feature.latest_production()
        if max_version > 0:
            features[feature.feature_name()] = SupportedVersionRange(feature.minimum_production(), max_version)
    return features
