"""Port of server-common/src/main/java/org/apache/kafka/server/common/Features.java, FeatureVersion.java,
TestFeatureVersion.java and TransactionVersion.java (Kafka 3.9): the features beside metadata.version that a cluster
finalizes (KIP-1022), the levels each has, and the levels they need of other features.

KRaftVersion (kraft.version) has its own module, k_raft_version.py; it is a FeatureVersion too.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import Enum
from typing import Protocol

from kafka_edu.v1_0_2.clients.common.errors import IllegalArgumentException
from kafka_edu.v3_9.clients.common.feature.supported_version_range import SupportedVersionRange
from kafka_edu.v3_9.server_common.server.common import metadata_version
from kafka_edu.v3_9.server_common.server.common.k_raft_version import KRaftVersion
from kafka_edu.v3_9.server_common.server.common.metadata_version import MetadataVersion


class FeatureVersion(Protocol):
    """One level of one feature: the metadata.version it became the default at, and what it needs of others."""

    def feature_level(self) -> int: ...

    def feature_name(self) -> str: ...

    def bootstrap_metadata_version(self) -> MetadataVersion: ...

    def dependencies(self) -> dict[str, int]: ...


TEST_FEATURE_VERSION_FEATURE_NAME = "test.feature.version"
TRANSACTION_VERSION_FEATURE_NAME = "transaction.version"


class TestFeatureVersion(Enum):
    """A feature that exists only for tests (it is not in PRODUCTION_FEATURES)."""

    __test__ = False  # a pytest collecting this module must not take the enum for a test class

    TEST_0 = (0, MetadataVersion.IBP_3_0_IV1, ())  # MINIMUM_KRAFT_VERSION
    TEST_1 = (1, MetadataVersion.IBP_3_7_IV0, ())  # no dependencies
    TEST_2 = (2, MetadataVersion.IBP_4_0_IV0, ((metadata_version.FEATURE_NAME, 22),))  # needs 4.0-IV0

    def feature_level(self) -> int:
        return self.value[0]

    def feature_name(self) -> str:
        return TEST_FEATURE_VERSION_FEATURE_NAME

    def bootstrap_metadata_version(self) -> MetadataVersion:
        return self.value[1]

    def dependencies(self) -> dict[str, int]:
        return dict(self.value[2])


class TransactionVersion(Enum):
    """KIP-890's transaction coordinator versions: 1 writes flexible transaction log records, 2 also bumps the
    producer epoch on every transaction. Both arrive with 4.0-IV0, unstable in 3.9."""

    TV_0 = (0, MetadataVersion.IBP_3_0_IV1)  # MINIMUM_KRAFT_VERSION
    TV_1 = (1, MetadataVersion.IBP_4_0_IV0)
    TV_2 = (2, MetadataVersion.IBP_4_0_IV0)

    def feature_level(self) -> int:
        return self.value[0]

    def feature_name(self) -> str:
        return TRANSACTION_VERSION_FEATURE_NAME

    def bootstrap_metadata_version(self) -> MetadataVersion:
        return self.value[1]

    def dependencies(self) -> dict[str, int]:
        return {}


class Features(Enum):
    """Each feature with all its levels, lowest first. metadata.version is handled apart and is not one of them."""

    TEST_VERSION = (TEST_FEATURE_VERSION_FEATURE_NAME, tuple(TestFeatureVersion))
    KRAFT_VERSION = (KRaftVersion.FEATURE_NAME, tuple(KRaftVersion))  # type: ignore[attr-defined]
    TRANSACTION_VERSION = (TRANSACTION_VERSION_FEATURE_NAME, tuple(TransactionVersion))

    def feature_name(self) -> str:
        return self.value[0]

    def feature_versions(self) -> tuple[FeatureVersion, ...]:
        return self.value[1]

    def latest_production(self) -> int:
        return self.default_value(metadata_version.LATEST_PRODUCTION)

    def minimum_production(self) -> int:
        return self.feature_versions()[0].feature_level()

    def latest_testing(self) -> int:
        return self.feature_versions()[-1].feature_level()

    def supported_version_range(self) -> SupportedVersionRange:
        return SupportedVersionRange(self.minimum_production(), self.latest_testing())

    def from_feature_level(self, level: int, allow_unstable_feature_versions: bool) -> FeatureVersion:
        """The level as a FeatureVersion; IllegalArgumentException if there is no such level, or it is above the
        latest production one and unstable versions are not allowed."""
        for feature_version in self.feature_versions():
            if feature_version.feature_level() == level and (allow_unstable_feature_versions
                                                             or level <= self.latest_production()):
                return feature_version
        raise IllegalArgumentException(f"No feature:{self.feature_name()} with feature level {level}")

    @staticmethod
    def validate_version(feature: FeatureVersion, features: Mapping[str, int]) -> None:
        """IllegalArgumentException if `features` (the levels there are or are asked for) do not give `feature` the
        levels it needs: any level above 0 needs metadata.version 3.3-IV0, where feature records began."""
        metadata_version_level = features.get(metadata_version.FEATURE_NAME)
        if feature.feature_level() >= 1 and (metadata_version_level is None or metadata_version_level
                                             < MetadataVersion.IBP_3_3_IV0.feature_level()):
            raise IllegalArgumentException(
                f"{feature.feature_name()} could not be set to {feature.feature_level()} because it depends on "
                f"metadata.version=4 ({MetadataVersion.IBP_3_3_IV0})")
        for name, needed_level in feature.dependencies().items():
            feature_level = features.get(name)
            if feature_level is None or feature_level < needed_level:
                raise IllegalArgumentException(
                    f"{feature.feature_name()} could not be set to {feature.feature_level()} because it depends on "
                    f"{name} level {needed_level}")

    def default_value(self, metadata_version: MetadataVersion) -> int:
        """The highest level whose bootstrap metadata.version is at most `metadata_version` (levels are in order)."""
        level = 0
        for feature in self.feature_versions():
            if feature.bootstrap_metadata_version().is_at_most(metadata_version):
                level = feature.feature_level()
            else:
                return level
        return level

    @staticmethod
    def feature_impls_to_map(features: list[FeatureVersion]) -> dict[str, int]:
        return {feature.feature_name(): feature.feature_level() for feature in features}


FEATURES: tuple[Features, ...] = tuple(Features)
PRODUCTION_FEATURES: list[Features] = [f for f in FEATURES if f.feature_name() != TEST_FEATURE_VERSION_FEATURE_NAME]
PRODUCTION_FEATURE_NAMES: list[str] = [f.feature_name() for f in PRODUCTION_FEATURES]
