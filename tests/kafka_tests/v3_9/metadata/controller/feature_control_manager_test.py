"""Port of metadata/src/test/java/org/apache/kafka/controller/FeatureControlManagerTest.java (Kafka 3.9).

Differences of form: no Builder (the constructor takes its settings; where a case relies on the Builder's default
metadata.version, latestProduction, it is passed), FinalizedControllerFeatures is the port's plain dict, and the
fake ClusterFeatureSupportDescriber is a small class. ZooKeeper migration is not ported (docs/kraft.md).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from kafka_edu.v3_9.clients.common.requests.api_error import ApiError
from kafka_edu.v3_9.metadata.common.metadata import ApiMessageAndVersion, FeatureLevelRecord
from kafka_edu.v3_9.metadata.controller.controller_result import ControllerResult
from kafka_edu.v3_9.metadata.controller.feature_control_manager import FeatureControlManager, UpgradeType
from kafka_edu.v3_9.metadata.controller.quorum_features import QuorumFeatures, default_feature_map
from kafka_edu.v3_9.metadata.metadata.version_range import VersionRange
from kafka_edu.v3_9.server_common.server.common.metadata_version import FEATURE_NAME, MetadataVersion
from kafka_edu.v3_9.server_common.timeline.snapshot_registry import SnapshotRegistry
from tests.kafka_tests.referee import kafka_test_class

KAFKA = kafka_test_class(
    "3.9", "metadata/src/test/java/org/apache/kafka/controller/FeatureControlManagerTest.java",
    cases=["testUpdateFeatures", "testReplay", "testUpdateFeaturesErrorCases", "testReplayRecords",
           "testApplyMetadataVersionChangeRecord", "testCannotDowngradeToVersionBeforeMinimumSupportedKraftVersion",
           "testCannotDowngradeToHigherVersion", "testCannotUnsafeDowngradeToHigherVersion",
           "testCannotUpgradeToLowerVersion", "testCanUpgradeToHigherVersion",
           "testCannotUseSafeDowngradeIfMetadataChanged", "testUnsafeDowngradeIsTemporarilyDisabled",
           "testCanUseUnsafeDowngradeIfMetadataChanged", "testCanUseSafeDowngradeIfMetadataDidNotChange",
           "testCannotDowngradeBefore3_3_IV0", "testCreateFeatureLevelRecords",
           "testNoMetadataVersionChangeDuringMigration"],
    not_applicable={
        "testCanUseUnsafeDowngradeIfMetadataChanged": "@Disabled in Kafka 3.9 (unsafe downgrades, KAFKA-13896)",
        "testNoMetadataVersionChangeDuringMigration": "ZooKeeper migration (ZkMigrationStateRecord) is not ported",
    },
)

MV = MetadataVersion
SAFE_DOWNGRADE, UNSAFE_DOWNGRADE = UpgradeType.SAFE_DOWNGRADE, UpgradeType.UNSAFE_DOWNGRADE
UPGRADE = UpgradeType.UPGRADE
LONG_MAX = 2**63 - 1


def features(*args: Any) -> QuorumFeatures:
    """features(name, low, high, ...): the unstable default map plus these ranges, node 0, no quorum ids."""
    feature_map = default_feature_map(True)
    for i in range(0, len(args), 3):
        feature_map[args[i]] = VersionRange.of(args[i + 1], args[i + 2])
    return QuorumFeatures(0, feature_map, [])


class FakeClusterFeatureSupportDescriber:
    def __init__(self, broker_ranges: list[tuple[int, Mapping[str, VersionRange]]],
                 controller_ranges: list[tuple[int, Mapping[str, VersionRange]]]) -> None:
        self.broker_ranges, self.controller_ranges = broker_ranges, controller_ranges

    def broker_supported(self) -> list[tuple[int, Mapping[str, VersionRange]]]:
        return self.broker_ranges

    def controller_supported(self) -> list[tuple[int, Mapping[str, VersionRange]]]:
        return self.controller_ranges


def replay_all(manager: FeatureControlManager, records: list[ApiMessageAndVersion]) -> None:
    for record in records:
        manager.replay(record.message)


def record(name: str, level: int) -> ApiMessageAndVersion:
    return ApiMessageAndVersion(FeatureLevelRecord(name=name, feature_level=level), 0)


def test_update_features() -> None:
    snapshot_registry = SnapshotRegistry()
    manager = FeatureControlManager(snapshot_registry, MV.IBP_3_3_IV0, quorum_features=features("foo", 1, 2))
    snapshot_registry.get_or_create_snapshot(-1)
    assert manager.finalized_features(-1) == {"metadata.version": 4}
    assert manager.update_features({"foo": 3}, {"foo": SAFE_DOWNGRADE}, False) == ControllerResult.atomic_of([], {
        "foo": ApiError(Errors.INVALID_UPDATE_VERSION,
                        "Invalid update version 3 for feature foo. Local controller 0 only supports versions 1-2")})
    result = manager.update_features({"foo": 2, "bar": 1}, {}, False)
    assert result.response == {"foo": ApiError.NONE, "bar": ApiError(
        Errors.INVALID_UPDATE_VERSION,
        "Invalid update version 1 for feature bar. Local controller 0 does not support this feature.")}
    assert result.records == [record("foo", 2)]


def test_replay() -> None:
    snapshot_registry = SnapshotRegistry()
    snapshot_registry.get_or_create_snapshot(-1)
    manager = FeatureControlManager(snapshot_registry, MV.IBP_3_3_IV0, quorum_features=features("foo", 1, 2))
    manager.replay(FeatureLevelRecord(name="foo", feature_level=2))
    snapshot_registry.get_or_create_snapshot(123)
    assert manager.finalized_features(123) == {"metadata.version": 4, "foo": 2}


def test_update_features_error_cases() -> None:
    snapshot_registry = SnapshotRegistry()
    manager = FeatureControlManager(
        snapshot_registry, MV.latest_production(), quorum_features=features("foo", 1, 5, "bar", 0, 3),
        cluster_support_describer=FakeClusterFeatureSupportDescriber([(5, {"bar": VersionRange.of(0, 3)})], []))
    assert manager.update_features({"foo": 3}, {"foo": SAFE_DOWNGRADE}, False) == ControllerResult.atomic_of([], {
        "foo": ApiError(Errors.INVALID_UPDATE_VERSION,
                        "Invalid update version 3 for feature foo. Broker 5 does not support this feature.")})
    result = manager.update_features({"bar": 3}, {}, False)
    assert result.response == {"bar": ApiError.NONE}
    manager.replay(result.records[0].message)
    snapshot_registry.get_or_create_snapshot(3)
    assert manager.update_features({"bar": 2}, {}, False) == ControllerResult.atomic_of([], {
        "bar": ApiError(Errors.INVALID_UPDATE_VERSION,
                        "Invalid update version 2 for feature bar. Can't downgrade the version of this feature "
                        "without setting the upgrade type to either safe or unsafe downgrade.")})
    assert manager.update_features({"bar": 2}, {"bar": SAFE_DOWNGRADE}, False) == ControllerResult.atomic_of(
        [record("bar", 2)], {"bar": ApiError.NONE})


def test_replay_records() -> None:
    manager = FeatureControlManager(SnapshotRegistry(), MV.IBP_3_3_IV0,
                                    quorum_features=features("foo", 1, 5, "bar", 1, 2))
    result = manager.update_features({"foo": 5, "bar": 1}, {}, False)
    replay_all(manager, result.records)
    assert manager.metadata_version() is MV.IBP_3_3_IV0
    assert manager.finalized_features(LONG_MAX).get("foo") == 5
    assert manager.finalized_features(LONG_MAX).get("bar") == 1
    assert set(manager.finalized_features(LONG_MAX)) == {FEATURE_NAME, "foo", "bar"}


def manager1() -> FeatureControlManager:
    """TEST_MANAGER_BUILDER1."""
    return FeatureControlManager(SnapshotRegistry(), MV.IBP_3_3_IV2, quorum_features=features(
        FEATURE_NAME, MV.IBP_3_3_IV0.feature_level(), MV.IBP_3_3_IV3.feature_level()))


def mv_error(message: str) -> dict[str, ApiError]:
    return {FEATURE_NAME: ApiError(Errors.INVALID_UPDATE_VERSION, message)}


def test_apply_metadata_version_change_record() -> None:
    manager = manager1()
    manager.replay(FeatureLevelRecord(name=FEATURE_NAME, feature_level=MV.IBP_3_3_IV3.feature_level()))
    assert manager.metadata_version() is MV.IBP_3_3_IV3


def test_cannot_downgrade_to_version_before_minimum_supported_kraft_version() -> None:
    assert manager1().update_features({FEATURE_NAME: MV.IBP_3_2_IV0.feature_level()},
                                      {FEATURE_NAME: UNSAFE_DOWNGRADE}, True) == ControllerResult.of([], mv_error(
        "Invalid update version 3 for feature metadata.version. Local controller 0 only supports versions 4-7"))


def test_cannot_downgrade_to_higher_version() -> None:
    assert manager1().update_features({FEATURE_NAME: MV.IBP_3_3_IV3.feature_level()},
                                      {FEATURE_NAME: SAFE_DOWNGRADE}, True) == ControllerResult.of([], mv_error(
        "Invalid update version 7 for feature metadata.version. Can't downgrade to a newer version."))


def test_cannot_unsafe_downgrade_to_higher_version() -> None:
    assert manager1().update_features({FEATURE_NAME: MV.IBP_3_3_IV3.feature_level()},
                                      {FEATURE_NAME: UNSAFE_DOWNGRADE}, True) == ControllerResult.of([], mv_error(
        "Invalid update version 7 for feature metadata.version. Can't downgrade to a newer version."))


def test_cannot_upgrade_to_lower_version() -> None:
    assert manager1().update_features({FEATURE_NAME: MV.IBP_3_3_IV0.feature_level()},
                                      {FEATURE_NAME: UPGRADE}, True) == ControllerResult.of([], mv_error(
        "Invalid update version 4 for feature metadata.version. Can't downgrade the version of this feature without "
        "setting the upgrade type to either safe or unsafe downgrade."))


def test_can_upgrade_to_higher_version() -> None:
    result = manager1().update_features({FEATURE_NAME: MV.IBP_3_3_IV3.feature_level()}, {FEATURE_NAME: UPGRADE}, True)
    assert result == ControllerResult.of([], {FEATURE_NAME: ApiError.NONE})


def test_cannot_use_safe_downgrade_if_metadata_changed() -> None:
    assert manager1().update_features({FEATURE_NAME: MV.IBP_3_3_IV0.feature_level()},
                                      {FEATURE_NAME: SAFE_DOWNGRADE}, True) == ControllerResult.of([], mv_error(
        "Invalid metadata.version 4. Refusing to perform the requested downgrade because it might delete metadata "
        "information."))


def test_unsafe_downgrade_is_temporarily_disabled() -> None:
    assert manager1().update_features({FEATURE_NAME: MV.IBP_3_3_IV0.feature_level()},
                                      {FEATURE_NAME: UNSAFE_DOWNGRADE}, True) == ControllerResult.of([], mv_error(
        "Invalid metadata.version 4. Unsafe metadata downgrade is not supported in this version."))


def test_can_use_safe_downgrade_if_metadata_did_not_change() -> None:
    manager = FeatureControlManager(
        SnapshotRegistry(), MV.IBP_3_1_IV0, minimum_bootstrap_version=MV.IBP_3_0_IV0, quorum_features=features(
            FEATURE_NAME, MV.IBP_3_0_IV0.feature_level(), MV.IBP_3_3_IV1.feature_level()))
    assert manager.update_features({FEATURE_NAME: MV.IBP_3_0_IV1.feature_level()},
                                   {FEATURE_NAME: SAFE_DOWNGRADE}, True) == ControllerResult.of(
        [], {FEATURE_NAME: ApiError.NONE})


def test_cannot_downgrade_before3_3_iv0() -> None:
    manager = FeatureControlManager(SnapshotRegistry(), MV.IBP_3_3_IV0, quorum_features=features(
        FEATURE_NAME, MV.IBP_3_0_IV0.feature_level(), MV.IBP_3_3_IV3.feature_level()))
    assert manager.update_features({FEATURE_NAME: MV.IBP_3_2_IV0.feature_level()},
                                   {FEATURE_NAME: UNSAFE_DOWNGRADE}, True) == ControllerResult.of([], mv_error(
        "Invalid metadata.version 3. Unable to set a metadata.version less than 3.3-IV0"))


def test_create_feature_level_records() -> None:
    local_supported_features = {FEATURE_NAME: VersionRange.of(MV.IBP_3_0_IV1.feature_level(),
                                                              MV.latest_testing().feature_level()),
                                "foo": VersionRange.of(0, 2)}
    manager = FeatureControlManager(
        SnapshotRegistry(), MV.latest_production(), quorum_features=QuorumFeatures(0, local_supported_features, []),
        cluster_support_describer=FakeClusterFeatureSupportDescriber([(1, {"foo": VersionRange.of(0, 3)})], []))
    result = manager.update_features({"foo": 1}, {"foo": UPGRADE}, False)
    assert result == ControllerResult.atomic_of([record("foo", 1)], {"foo": ApiError.NONE})
    replay_all(manager, result.records)
    assert manager.finalized_features(LONG_MAX).get("foo") == 1
    result2 = manager.update_features({"foo": 0}, {"foo": UNSAFE_DOWNGRADE}, False)
    assert result2 == ControllerResult.atomic_of([record("foo", 0)], {"foo": ApiError.NONE})
    replay_all(manager, result2.records)
    assert manager.finalized_features(LONG_MAX).get("foo") is None
