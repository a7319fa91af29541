"""Port of server-common/src/main/java/org/apache/kafka/server/common/MetadataVersion.java (Kafka 3.9)."""

from __future__ import annotations

from enum import Enum

from kafka_edu.v1_0_2.clients.common.errors import IllegalArgumentException
from kafka_edu.v3_9.clients.common.record.record_version import RecordVersion


class MetadataVersion(Enum):
    """The inter-broker protocol versions; from 3.0-IV1 on, each is also a `metadata.version` feature level.

    A value is (feature level, release, sub-version); feature level -1 means the version predates KRaft.
    """

    IBP_0_8_0 = (-1, "0.8.0", "")
    IBP_0_8_1 = (-1, "0.8.1", "")
    IBP_0_8_2 = (-1, "0.8.2", "")
    IBP_0_9_0 = (-1, "0.9.0", "")
    IBP_0_10_0_IV0 = (-1, "0.10.0", "IV0")
    IBP_0_10_0_IV1 = (-1, "0.10.0", "IV1")
    IBP_0_10_1_IV0 = (-1, "0.10.1", "IV0")
    IBP_0_10_1_IV1 = (-1, "0.10.1", "IV1")
    IBP_0_10_1_IV2 = (-1, "0.10.1", "IV2")
    IBP_0_10_2_IV0 = (-1, "0.10.2", "IV0")
    IBP_0_11_0_IV0 = (-1, "0.11.0", "IV0")
    IBP_0_11_0_IV1 = (-1, "0.11.0", "IV1")
    IBP_0_11_0_IV2 = (-1, "0.11.0", "IV2")
    IBP_1_0_IV0 = (-1, "1.0", "IV0")
    IBP_1_1_IV0 = (-1, "1.1", "IV0")
    IBP_2_0_IV0 = (-1, "2.0", "IV0")
    IBP_2_0_IV1 = (-1, "2.0", "IV1")
    IBP_2_1_IV0 = (-1, "2.1", "IV0")
    IBP_2_1_IV1 = (-1, "2.1", "IV1")
    IBP_2_1_IV2 = (-1, "2.1", "IV2")
    IBP_2_2_IV0 = (-1, "2.2", "IV0")
    IBP_2_2_IV1 = (-1, "2.2", "IV1")
    IBP_2_3_IV0 = (-1, "2.3", "IV0")
    IBP_2_3_IV1 = (-1, "2.3", "IV1")
    IBP_2_4_IV0 = (-1, "2.4", "IV0")
    IBP_2_4_IV1 = (-1, "2.4", "IV1")
    IBP_2_5_IV0 = (-1, "2.5", "IV0")
    IBP_2_6_IV0 = (-1, "2.6", "IV0")
    IBP_2_7_IV0 = (-1, "2.7", "IV0")
    IBP_2_7_IV1 = (-1, "2.7", "IV1")
    IBP_2_7_IV2 = (-1, "2.7", "IV2")
    IBP_2_8_IV0 = (-1, "2.8", "IV0")
    IBP_2_8_IV1 = (-1, "2.8", "IV1")
    IBP_3_0_IV0 = (-1, "3.0", "IV0")
    # KRaft: the feature levels a FeatureLevelRecord for metadata.version carries
    IBP_3_0_IV1 = (1, "3.0", "IV1")
    IBP_3_1_IV0 = (2, "3.1", "IV0")
    IBP_3_2_IV0 = (3, "3.2", "IV0")
    IBP_3_3_IV0 = (4, "3.3", "IV0")
    IBP_3_3_IV1 = (5, "3.3", "IV1")
    IBP_3_3_IV2 = (6, "3.3", "IV2")
    IBP_3_3_IV3 = (7, "3.3", "IV3")
    IBP_3_4_IV0 = (8, "3.4", "IV0")
    IBP_3_5_IV0 = (9, "3.5", "IV0")
    IBP_3_5_IV1 = (10, "3.5", "IV1")
    IBP_3_5_IV2 = (11, "3.5", "IV2")
    IBP_3_6_IV0 = (12, "3.6", "IV0")
    IBP_3_6_IV1 = (13, "3.6", "IV1")
    IBP_3_6_IV2 = (14, "3.6", "IV2")
    IBP_3_7_IV0 = (15, "3.7", "IV0")
    IBP_3_7_IV1 = (16, "3.7", "IV1")
    IBP_3_7_IV2 = (17, "3.7", "IV2")
    IBP_3_7_IV3 = (18, "3.7", "IV3")
    IBP_3_7_IV4 = (19, "3.7", "IV4")
    IBP_3_8_IV0 = (20, "3.8", "IV0")
    IBP_3_9_IV0 = (21, "3.9", "IV0")
    IBP_4_0_IV0 = (22, "4.0", "IV0")  # in 3.9 a version under development: usable only with unstable versions on

    def __init__(self, feature_level: int, release: str, sub_version: str) -> None:
        self._feature_level = feature_level
        self.release = release
        self.sub_version = sub_version

    def feature_level(self) -> int:
        return self._feature_level

    def version(self) -> str:
        """"3.9-IV0", or the bare release for versions without sub-versions ("0.8.2")."""
        return f"{self.release}-{self.sub_version}" if self.sub_version else self.release

    def short_version(self) -> str:
        return self.release

    def __str__(self) -> str:
        return self.version()

    def is_kraft_supported(self) -> bool:
        return self._feature_level > 0

    def is_production(self) -> bool:
        return self.is_at_most(LATEST_PRODUCTION)

    def is_scram_supported(self) -> bool:
        return self.is_at_least(MetadataVersion.IBP_3_5_IV2)

    def is_directory_assignment_supported(self) -> bool:
        return self.is_at_least(MetadataVersion.IBP_3_7_IV2)

    # added for the 3.9 KafkaConfig port: what KafkaConfig.validateValues asks of the inter-broker protocol
    def is_sasl_inter_broker_handshake_request_enabled(self) -> bool:
        return self.is_at_least(MetadataVersion.IBP_0_10_0_IV1)

    def is_feature_versioning_supported(self) -> bool:
        return self.is_at_least(MetadataVersion.IBP_2_7_IV0)

    def is_topic_ids_supported(self) -> bool:
        return self.is_at_least(MetadataVersion.IBP_2_8_IV0)

    def is_migration_supported(self) -> bool:
        return self.is_at_least(MetadataVersion.IBP_3_4_IV0)

    def is_leader_recovery_supported(self) -> bool:
        return self.is_at_least(MetadataVersion.IBP_3_2_IV0)

    # added for the 3.9 replica fetcher port: what the follower asks of the leader at this version
    def is_offset_for_leader_epoch_supported(self) -> bool:
        return self.is_at_least(MetadataVersion.IBP_0_11_0_IV2)

    def is_truncation_on_fetch_supported(self) -> bool:
        return self.is_at_least(MetadataVersion.IBP_2_7_IV1)

    def fetch_request_version(self) -> int:
        for version, fetch_version in _FETCH_REQUEST_VERSIONS:
            if self.is_at_least(version):
                return fetch_version
        return 0

    def offset_for_leader_epoch_request_version(self) -> int:
        for version, request_version in _OFFSET_FOR_LEADER_EPOCH_REQUEST_VERSIONS:
            if self.is_at_least(version):
                return request_version
        return 0

    def list_offset_request_version(self) -> int:
        for version, request_version in _LIST_OFFSET_REQUEST_VERSIONS:
            if self.is_at_least(version):
                return request_version
        return 0

    # added for the 3.9 group coordinator records: the value versions __consumer_offsets is written at
    def group_metadata_value_version(self) -> int:
        if self.is_less_than(MetadataVersion.IBP_0_10_1_IV0):
            return 0
        elif self.is_less_than(MetadataVersion.IBP_2_1_IV0):
            return 1
        elif self.is_less_than(MetadataVersion.IBP_2_3_IV0):
            return 2
        else:
            return 3  # the newest non-flexible version, until a tagged field needs 4

    def offset_commit_value_version(self, expire_timestamp_ms: bool) -> int:
        if self.is_less_than(MetadataVersion.IBP_2_1_IV0) or expire_timestamp_ms:
            return 1  # the only version with an expire timestamp
        elif self.is_less_than(MetadataVersion.IBP_2_1_IV1):
            return 2
        else:
            return 3  # the newest non-flexible version, until a tagged field needs 4

    @staticmethod
    def min_supported_for(record_version: RecordVersion) -> MetadataVersion:
        return {RecordVersion.V0: MetadataVersion.IBP_0_8_0, RecordVersion.V1: MetadataVersion.IBP_0_10_0_IV0,
                RecordVersion.V2: MetadataVersion.IBP_0_11_0_IV0}[record_version]

    def highest_supported_record_version(self) -> RecordVersion:
        """The newest record format (magic) brokers at this version write (added for the 3.9 LocalLog port)."""
        if self.is_less_than(MetadataVersion.IBP_0_10_0_IV0):
            return RecordVersion.V0
        elif self.is_less_than(MetadataVersion.IBP_0_11_0_IV0):
            return RecordVersion.V1
        else:
            return RecordVersion.V2

    def is_at_least(self, other: MetadataVersion) -> bool:
        return _ORDER[self] >= _ORDER[other]

    def is_at_most(self, other: MetadataVersion) -> bool:
        return _ORDER[self] <= _ORDER[other]

    def is_less_than(self, other: MetadataVersion) -> bool:
        return _ORDER[self] < _ORDER[other]

    @staticmethod
    def from_version_string(version_string: str) -> MetadataVersion:
        """"3.9" -> 3.9-IV0 (a release names its newest sub-version), "3.9.0" -> 3.9-IV0, "3.7-IV2" as given."""
        segments = version_string.split(".")
        num_segments = 3 if version_string.startswith("0.") else 2
        key = version_string if num_segments >= len(segments) else ".".join(segments[:num_segments])
        version = _IBP_VERSIONS.get(key)
        if version is None:
            raise IllegalArgumentException(f"Version {version_string} is not a valid version")
        return version

    @staticmethod
    def from_feature_level(level: int) -> MetadataVersion:
        for version in MetadataVersion:
            if version.feature_level() == level:
                return version
        raise IllegalArgumentException(f"No MetadataVersion with feature level {level}")

    @staticmethod
    def latest_testing() -> MetadataVersion:
        return _VERSIONS[-1]

    @staticmethod
    def latest_production() -> MetadataVersion:
        return LATEST_PRODUCTION


_VERSIONS = list(MetadataVersion)
_ORDER = {version: i for i, version in enumerate(_VERSIONS)}
_IBP_VERSIONS: dict[str, MetadataVersion] = {}
for _version in _VERSIONS:  # later sub-versions of a release overwrite earlier ones under the release's name
    _IBP_VERSIONS[_version.version()] = _version
    _IBP_VERSIONS[_version.release] = _version

FEATURE_NAME = "metadata.version"
MetadataVersion.FEATURE_NAME = FEATURE_NAME  # type: ignore[attr-defined]  # an enum body would make it a member
LATEST_PRODUCTION = MetadataVersion.IBP_3_9_IV0
MINIMUM_KRAFT_VERSION = MetadataVersion.IBP_3_0_IV1
MINIMUM_BOOTSTRAP_VERSION = MetadataVersion.IBP_3_3_IV0  # the oldest a new cluster may be formatted with

# (first metadata version, request version), newest first: MetadataVersion's fetchRequestVersion & co.
_FETCH_REQUEST_VERSIONS = (
    (MetadataVersion.IBP_3_9_IV0, 17), (MetadataVersion.IBP_3_7_IV4, 16), (MetadataVersion.IBP_3_5_IV1, 15),
    (MetadataVersion.IBP_3_5_IV0, 14), (MetadataVersion.IBP_3_1_IV0, 13), (MetadataVersion.IBP_2_7_IV1, 12),
    (MetadataVersion.IBP_2_3_IV1, 11), (MetadataVersion.IBP_2_1_IV2, 10), (MetadataVersion.IBP_2_0_IV1, 8),
    (MetadataVersion.IBP_1_1_IV0, 7), (MetadataVersion.IBP_0_11_0_IV1, 5), (MetadataVersion.IBP_0_11_0_IV0, 4),
    (MetadataVersion.IBP_0_10_1_IV1, 3), (MetadataVersion.IBP_0_10_0_IV0, 2), (MetadataVersion.IBP_0_9_0, 1))
_OFFSET_FOR_LEADER_EPOCH_REQUEST_VERSIONS = (
    (MetadataVersion.IBP_2_8_IV0, 4), (MetadataVersion.IBP_2_3_IV1, 3), (MetadataVersion.IBP_2_1_IV1, 2),
    (MetadataVersion.IBP_2_0_IV0, 1))
_LIST_OFFSET_REQUEST_VERSIONS = (
    (MetadataVersion.IBP_3_9_IV0, 9), (MetadataVersion.IBP_3_5_IV0, 8), (MetadataVersion.IBP_3_0_IV1, 7),
    (MetadataVersion.IBP_2_8_IV0, 6), (MetadataVersion.IBP_2_2_IV1, 5), (MetadataVersion.IBP_2_1_IV1, 4),
    (MetadataVersion.IBP_2_0_IV1, 3), (MetadataVersion.IBP_0_11_0_IV0, 2), (MetadataVersion.IBP_0_10_1_IV2, 1))


# MetadataVersion.didMetadataChange: false for the versions whose metadata reads as their predecessor's (a downgrade
# across only these loses nothing)
_METADATA_UNCHANGED = frozenset({
    MetadataVersion.IBP_3_1_IV0, MetadataVersion.IBP_3_3_IV0, MetadataVersion.IBP_3_5_IV0, MetadataVersion.IBP_3_5_IV1,
    MetadataVersion.IBP_3_6_IV0, MetadataVersion.IBP_3_7_IV1, MetadataVersion.IBP_3_7_IV3, MetadataVersion.IBP_3_7_IV4,
    MetadataVersion.IBP_3_8_IV0, MetadataVersion.IBP_3_9_IV0})


def did_metadata_change(version: MetadataVersion) -> bool:
    return version not in _METADATA_UNCHANGED


def check_if_metadata_changed(source_version: MetadataVersion, target_version: MetadataVersion) -> bool:
    """MetadataVersion.checkIfMetadataChanged: does any version in (low, high] change the metadata?"""
    if source_version is target_version:
        return False
    high, low = ((target_version, source_version) if _ORDER[source_version] < _ORDER[target_version]
                 else (source_version, target_version))
    version = high
    while not did_metadata_change(version) and version is not low:
        index = _ORDER[version]
        if index == 0:
            break
        version = _VERSIONS[index - 1]
    return version is not low
