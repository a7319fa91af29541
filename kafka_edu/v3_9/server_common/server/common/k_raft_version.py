"""Port of server-common/src/main/java/org/apache/kafka/server/common/KRaftVersion.java (Kafka 3.9).

An IntEnum, so the port's code that passes the kraft.version as a plain int (0 for static voters) keeps working.
"""

from __future__ import annotations

import enum

from kafka_edu.v1_0_2.clients.common.errors import IllegalStateException
from kafka_edu.v3_9.server_common.server.common import metadata_version
from kafka_edu.v3_9.server_common.server.common.metadata_version import MetadataVersion

FEATURE_NAME = "kraft.version"


class KRaftVersion(enum.IntEnum):
    KRAFT_VERSION_0 = 0  # static voters (controller.quorum.voters)
    KRAFT_VERSION_1 = 1  # KIP-853: the voters live in the log

    def feature_level(self) -> int:
        return int(self)

    @staticmethod
    def from_feature_level(version: int) -> KRaftVersion:
        if version == 0:
            return KRaftVersion.KRAFT_VERSION_0
        if version == 1:
            return KRaftVersion.KRAFT_VERSION_1
        raise RuntimeError(f"Unknown KRaft feature level: {int(version)}")

    def is_reconfig_supported(self) -> bool:
        return self is not KRaftVersion.KRAFT_VERSION_0

    def feature_name(self) -> str:
        return FEATURE_NAME

    def bootstrap_metadata_version(self) -> MetadataVersion:
        if self is KRaftVersion.KRAFT_VERSION_0:
            return metadata_version.MINIMUM_KRAFT_VERSION
        return MetadataVersion.IBP_3_9_IV0

    def dependencies(self) -> dict[str, int]:
        if self.feature_level() == 0:
            return {}
        return {metadata_version.FEATURE_NAME: MetadataVersion.IBP_3_9_IV0.feature_level()}

    def quorum_state_version(self) -> int:
        if self is KRaftVersion.KRAFT_VERSION_0:
            return 0
        if self is KRaftVersion.KRAFT_VERSION_1:
            return 1
        raise IllegalStateException(f"Unsupported KRaft feature level: {self}")

    def kraft_version_record_version(self) -> int:
        if self is KRaftVersion.KRAFT_VERSION_1:
            return 0
        raise IllegalStateException(f"Unsupported KRaft feature level: {self}")

    def voters_record_version(self) -> int:
        if self is KRaftVersion.KRAFT_VERSION_1:
            return 0
        raise IllegalStateException(f"Unsupported KRaft feature level: {self}")


KRaftVersion.FEATURE_NAME = FEATURE_NAME  # type: ignore[attr-defined]  # in the enum body it would be a member
