"""Port of metadata/src/test/java/org/apache/kafka/controller/ClusterControlManagerTest.java (Kafka 3.9).

Not applicable: the controller-registration case (KIP-919) and the ZooKeeper-migration broker case; docs/kraft.md
lists both features as not ported. Every other case is Kafka's, with these differences of form only:

- The port has no ClusterControlManager.Builder: `_cluster_control` below gives the constructor the Builder's
  defaults (a random cluster id, a new SnapshotRegistry, a StripedReplicaPlacer, the system clock, the 9 s session
  timeout), and a MockTime is passed as its nanoseconds function.
- The port's FeatureControlManager has no QuorumFeatures (they decide which feature updates the controller accepts,
  which ClusterControlManager never asks); its metadata.version defaults, as the Builder's does, to latestProduction.
- Kafka's overloaded `replay` methods are `replay_register_broker`, `replay_fence_broker` and so on in the port;
  `_replay_all` dispatches as RecordTestUtils.replayAll does. A FinalizedControllerFeatures is a plain dict, and
  BrokerRegistration.toRecord is `broker_to_record` in the port's cluster_image module.
- Records are frozen dataclasses: where Kafka mutates a record and replays it again, the case replays a copy.
- Kafka's DirectoryId constants are written out here (uuid.UUID, as the records carry them), so the port's own
  values are checked against 3.9's rather than against themselves.
"""

from __future__ import annotations

import dataclasses
import random
import time as _system_time
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from kio.schema.broker_registration.v4 import request as br
from kio.static.primitive import i16, i32

from kafka_edu.v1_0_2.clients.common.errors import UnsupportedVersionException
from kafka_edu.v3_9.clients.common.utils.mock_time import MockTime as _MockTime
from kafka_edu.v3_9.clients.common.uuid import Uuid
from kafka_edu.v3_9.metadata.common.metadata import (
    ApiMessageAndVersion,
    BrokerEndpoint,
    BrokerFeature,
    BrokerRegistrationChangeRecord,
    FeatureLevelRecord,
    FenceBrokerRecord,
    RegisterBrokerRecord,
    UnfenceBrokerRecord,
    UnregisterBrokerRecord,
)
from kafka_edu.v3_9.metadata.controller.cluster_control_manager import (
    DEFAULT_SESSION_TIMEOUT_NS,
    ClusterControlManager,
)
from kafka_edu.v3_9.metadata.controller.controller_exceptions import (
    InconsistentClusterIdException,
    InvalidRegistrationException,
    StaleBrokerEpochException,
)
from kafka_edu.v3_9.metadata.controller.feature_control_manager import (
    FeatureControlManager,
    is_in_controlled_shutdown_state_supported,
    register_broker_record_version,
)
from kafka_edu.v3_9.metadata.image.cluster_image import broker_to_record
from kafka_edu.v3_9.metadata.image.writer.image_writer_options import ImageWriterOptions
from kafka_edu.v3_9.metadata.metadata.broker_registration import (
    BrokerRegistration,
    BrokerRegistrationFencingChange,
    BrokerRegistrationInControlledShutdownChange,
    Endpoint,
)
from kafka_edu.v3_9.metadata.metadata.placement.replica_placer import ClusterDescriber, PlacementSpec, UsableBroker
from kafka_edu.v3_9.metadata.metadata.placement.striped_replica_placer import StripedReplicaPlacer
from kafka_edu.v3_9.server_common.server.common.metadata_version import FEATURE_NAME, MetadataVersion
from kafka_edu.v3_9.server_common.timeline.snapshot_registry import SnapshotRegistry
from tests.kafka_tests.referee import kafka_test_class

KAFKA = kafka_test_class(
    "3.9", "metadata/src/test/java/org/apache/kafka/controller/ClusterControlManagerTest.java",
    cases=[
        "testReplay",
        "testReplayRegisterBrokerRecord",
        "testReplayBrokerRegistrationChangeRecord",
        "testRegistrationWithIncorrectClusterId",
        "testRegisterBrokerRecordVersion",
        "testUnregister",
        "testPlaceReplicas",
        "testRegistrationsToRecords",
        "testRegistrationWithUnsupportedFeature",
        "testRegistrationWithUnsupportedKraftVersion",
        "testRegistrationWithUnsupportedMetadataVersion",
        "testRegisterControlWithOlderMetadataVersion",
        "testRegisterWithDuplicateDirectoryId",
        "testHasOnlineDir",
        "testDefaultDir",
        "testReRegistrationAndBrokerEpoch",
        "testRegistrationWithIncorrectInterBrokerListenerName",
    ],
    not_applicable={
        "testRegisterControlWithOlderMetadataVersion":
            "controller registrations (KIP-919) are not built (docs/kraft.md)",
        "testRegistrationWithIncorrectInterBrokerListenerName":
            "ZooKeeper-migration brokers: the ZK-to-KRaft migration is not built (docs/kraft.md)",
    },
)

MV = MetadataVersion
PLAINTEXT = 0  # SecurityProtocol.PLAINTEXT.id
ZERO_UUID = uuid.UUID(int=0)  # a record's IncarnationId when none is set
KRAFT_VERSION = "kraft.version"  # KRaftVersion.FEATURE_NAME, levels 0 and 1
TEST_FEATURE_VERSION = "test.feature.version"  # TestFeatureVersion.FEATURE_NAME

# DirectoryId in Kafka 3.9.
MIGRATING = uuid.UUID(int=0)
UNASSIGNED = uuid.UUID(int=1)
LOST = uuid.UUID(int=2)


def _uuid(text: str) -> uuid.UUID:
    """Uuid.fromString, as the uuid.UUID the port's records hold."""
    return uuid.UUID(bytes=Uuid.from_string(text).to_bytes())


def _feature_control(snapshot_registry: SnapshotRegistry | None = None,
                     metadata_version: MetadataVersion | None = None) -> FeatureControlManager:
    """FeatureControlManager.Builder: its own registry unless given one; metadata.version latestProduction."""
    return FeatureControlManager(snapshot_registry or SnapshotRegistry(),
                                 metadata_version or MV.latest_production())


def _cluster_control(feature_control: FeatureControlManager, *, cluster_id: str | None = None,
                     time: _MockTime | None = None, snapshot_registry: SnapshotRegistry | None = None,
                     session_timeout_ns: int = DEFAULT_SESSION_TIMEOUT_NS) -> ClusterControlManager:
    """ClusterControlManager.Builder, with a no-op BrokerUncleanShutdownHandler as every Kafka case sets."""
    return ClusterControlManager(
        snapshot_registry or SnapshotRegistry(), cluster_id or str(Uuid.random_uuid()), feature_control,
        StripedReplicaPlacer(random.Random()), session_timeout_ns,
        time.nanoseconds if time is not None else _system_time.monotonic_ns,  # Time.SYSTEM
        broker_unclean_shutdown_handler=lambda broker_id, records: None)


def _register_broker_record(broker_id: int, broker_epoch: int, *, port: int = 9092, host: str = "example.com",
                            **fields: Any) -> RegisterBrokerRecord:
    """new RegisterBrokerRecord().setBrokerEpoch(..).setBrokerId(..), with one PLAINTEXT endpoint added."""
    values: dict[str, Any] = {"incarnation_id": ZERO_UUID, "features": (), "rack": None}
    values.update(fields)
    return RegisterBrokerRecord(
        broker_id=broker_id, broker_epoch=broker_epoch,
        end_points=(BrokerEndpoint(name="PLAINTEXT", host=host, port=port, security_protocol=PLAINTEXT),),
        **values)


def _request(*, broker_id: int, cluster_id: str, incarnation_id: uuid.UUID, features: tuple = (),
             log_dirs: tuple | list = (), listeners: tuple = (), rack: str | None = None
             ) -> br.BrokerRegistrationRequest:
    """new BrokerRegistrationRequestData() with the fields a case sets."""
    return br.BrokerRegistrationRequest(
        broker_id=i32(broker_id), cluster_id=cluster_id, incarnation_id=incarnation_id, listeners=tuple(listeners),
        features=tuple(features), rack=rack, log_dirs=tuple(log_dirs))


def _feature(name: str, min_version: int, max_version: int) -> br.Feature:
    return br.Feature(name=name, min_supported_version=i16(min_version), max_supported_version=i16(max_version))


def _replay_all(cluster_control: ClusterControlManager, records: list[ApiMessageAndVersion]) -> None:
    """RecordTestUtils.replayAll: each record to its replay method (offset 0 where one is taken)."""
    for record_and_version in records:
        record = record_and_version.message
        if isinstance(record, RegisterBrokerRecord):
            cluster_control.replay_register_broker(record, 0)
        elif isinstance(record, UnregisterBrokerRecord):
            cluster_control.replay_unregister_broker(record)
        elif isinstance(record, FenceBrokerRecord):
            cluster_control.replay_fence_broker(record)
        elif isinstance(record, UnfenceBrokerRecord):
            cluster_control.replay_unfence_broker(record)
        elif isinstance(record, BrokerRegistrationChangeRecord):
            cluster_control.replay_broker_registration_change(record)


def _message(exception_info: pytest.ExceptionInfo) -> str:
    return str(exception_info.value)


@pytest.mark.parametrize("metadata_version", [MV.IBP_3_0_IV1, MV.IBP_3_3_IV2], ids=str)
def test_replay(metadata_version: MetadataVersion) -> None:
    time = _MockTime(0, 0, 0)
    snapshot_registry = SnapshotRegistry()
    feature_control = _feature_control(snapshot_registry)
    cluster_control = _cluster_control(feature_control, time=time, snapshot_registry=snapshot_registry,
                                       session_timeout_ns=1000)
    cluster_control.activate()
    assert not cluster_control.is_unfenced(0)

    broker_record = _register_broker_record(1, 100)
    cluster_control.replay_register_broker(broker_record, 100)
    cluster_control.check_broker_epoch(1, 100)
    with pytest.raises(StaleBrokerEpochException):
        cluster_control.check_broker_epoch(1, 101)
    with pytest.raises(StaleBrokerEpochException):
        cluster_control.check_broker_epoch(2, 100)
    assert not cluster_control.is_unfenced(0)
    assert not cluster_control.is_unfenced(1)

    if metadata_version.is_less_than(MV.IBP_3_3_IV2):
        cluster_control.replay_unfence_broker(UnfenceBrokerRecord(id=1, epoch=100))
    else:
        cluster_control.replay_broker_registration_change(BrokerRegistrationChangeRecord(
            broker_id=1, broker_epoch=100, fenced=BrokerRegistrationFencingChange.UNFENCE.value))
    assert not cluster_control.is_unfenced(0)
    assert cluster_control.is_unfenced(1)

    if metadata_version.is_less_than(MV.IBP_3_3_IV2):
        cluster_control.replay_fence_broker(FenceBrokerRecord(id=1, epoch=100))
    else:
        cluster_control.replay_broker_registration_change(BrokerRegistrationChangeRecord(
            broker_id=1, broker_epoch=100, fenced=BrokerRegistrationFencingChange.FENCE.value))
    assert not cluster_control.is_unfenced(0)
    assert not cluster_control.is_unfenced(1)


def test_replay_register_broker_record() -> None:
    time = _MockTime(0, 0, 0)
    snapshot_registry = SnapshotRegistry()
    feature_control = _feature_control(snapshot_registry)
    cluster_control = _cluster_control(feature_control, cluster_id="fPZv1VBsRFmnlRvmGcOW9w", time=time,
                                       snapshot_registry=snapshot_registry, session_timeout_ns=1000)

    assert not cluster_control.is_unfenced(0)
    assert not cluster_control.in_controlled_shutdown(0)

    broker_record = _register_broker_record(0, 100, rack=None, fenced=True, in_controlled_shutdown=True)
    cluster_control.replay_register_broker(broker_record, 100)

    assert not cluster_control.is_unfenced(0)
    assert cluster_control.in_controlled_shutdown(0)

    broker_record = dataclasses.replace(broker_record, in_controlled_shutdown=False)
    cluster_control.replay_register_broker(broker_record, 100)

    assert not cluster_control.is_unfenced(0)
    assert not cluster_control.in_controlled_shutdown(0)
    assert cluster_control.register_broker_record_offset(broker_record.broker_id) == 100

    broker_record = dataclasses.replace(broker_record, fenced=False)
    cluster_control.replay_register_broker(broker_record, 100)

    assert cluster_control.is_unfenced(0)
    assert not cluster_control.in_controlled_shutdown(0)


def test_replay_broker_registration_change_record() -> None:
    time = _MockTime(0, 0, 0)
    snapshot_registry = SnapshotRegistry()
    feature_control = _feature_control(snapshot_registry)
    cluster_control = _cluster_control(feature_control, cluster_id="fPZv1VBsRFmnlRvmGcOW9w", time=time,
                                       snapshot_registry=snapshot_registry, session_timeout_ns=1000)

    assert not cluster_control.is_unfenced(0)
    assert not cluster_control.in_controlled_shutdown(0)

    cluster_control.replay_register_broker(_register_broker_record(0, 100, rack=None, fenced=False), 100)

    assert cluster_control.is_unfenced(0)
    assert not cluster_control.in_controlled_shutdown(0)

    cluster_control.replay_broker_registration_change(BrokerRegistrationChangeRecord(
        broker_id=0, broker_epoch=100,
        in_controlled_shutdown=BrokerRegistrationInControlledShutdownChange.IN_CONTROLLED_SHUTDOWN.value))

    assert cluster_control.is_unfenced(0)
    assert cluster_control.in_controlled_shutdown(0)

    cluster_control.replay_broker_registration_change(BrokerRegistrationChangeRecord(
        broker_id=0, broker_epoch=100, fenced=BrokerRegistrationFencingChange.UNFENCE.value))

    assert cluster_control.is_unfenced(0)
    assert cluster_control.in_controlled_shutdown(0)


def test_registration_with_incorrect_cluster_id() -> None:
    snapshot_registry = SnapshotRegistry()
    feature_control = _feature_control(snapshot_registry)
    cluster_control = _cluster_control(feature_control, cluster_id="fPZv1VBsRFmnlRvmGcOW9w",
                                       time=_MockTime(0, 0, 0), snapshot_registry=snapshot_registry,
                                       session_timeout_ns=1000)
    cluster_control.activate()
    with pytest.raises(InconsistentClusterIdException):
        cluster_control.register_broker(
            _request(cluster_id="WIjw3grwRZmR2uOpdpVXbg", broker_id=0, rack=None,
                     incarnation_id=_uuid("0H4fUu1xQEKXFYwB1aBjhg")),
            123, {})


@pytest.mark.parametrize("metadata_version", [
    MV.IBP_3_3_IV2,
    MV.IBP_3_3_IV3,
    MV.IBP_3_7_IV2,  # the first with directory assignment
    MV.latest_testing(),
], ids=str)
def test_register_broker_record_version(metadata_version: MetadataVersion) -> None:
    snapshot_registry = SnapshotRegistry()
    feature_control = _feature_control(snapshot_registry, metadata_version)
    cluster_control = _cluster_control(feature_control, cluster_id="fPZv1VBsRFmnlRvmGcOW9w",
                                       time=_MockTime(0, 0, 0), snapshot_registry=snapshot_registry,
                                       session_timeout_ns=1000)
    cluster_control.activate()

    log_dirs = ((_uuid("63k9SN1nQOS0dFHSCIMA0A"), _uuid("Vm1MjsOCR1OjDDydOsDbzg"))
                if metadata_version.is_directory_assignment_supported() else ())
    result = cluster_control.register_broker(
        _request(cluster_id="fPZv1VBsRFmnlRvmGcOW9w", broker_id=0, log_dirs=log_dirs, rack=None,
                 incarnation_id=_uuid("0H4fUu1xQEKXFYwB1aBjhg")),
        123, {})

    expected_version = register_broker_record_version(metadata_version)
    assert result.records == [ApiMessageAndVersion(RegisterBrokerRecord(
        broker_epoch=123,
        broker_id=0,
        rack=None,
        incarnation_id=_uuid("0H4fUu1xQEKXFYwB1aBjhg"),
        fenced=True,
        log_dirs=log_dirs,
        end_points=(),
        features=(BrokerFeature(name=FEATURE_NAME, min_supported_version=1, max_supported_version=1),),
        in_controlled_shutdown=False), expected_version)]


def test_unregister() -> None:
    broker_record = _register_broker_record(1, 100, incarnation_id=_uuid("fPZv1VBsRFmnlRvmGcOW9w"), rack="arack")
    snapshot_registry = SnapshotRegistry()
    feature_control = _feature_control(snapshot_registry)
    cluster_control = _cluster_control(feature_control, time=_MockTime(0, 0, 0),
                                       snapshot_registry=snapshot_registry, session_timeout_ns=1000)
    cluster_control.activate()
    cluster_control.replay_register_broker(broker_record, 100)
    assert cluster_control.broker_registrations().get(1) == BrokerRegistration(
        id=1,
        epoch=100,
        incarnation_id=_uuid("fPZv1VBsRFmnlRvmGcOW9w"),
        listeners={"PLAINTEXT": Endpoint("PLAINTEXT", PLAINTEXT, "example.com", 9092)},
        rack="arack",
        fenced=True,
        in_controlled_shutdown=False)
    assert cluster_control.register_broker_record_offset(broker_record.broker_id) == 100
    cluster_control.replay_unregister_broker(UnregisterBrokerRecord(broker_id=1, broker_epoch=100))
    assert 1 not in cluster_control.broker_registrations()
    assert cluster_control.register_broker_record_offset(broker_record.broker_id) is None


@pytest.mark.parametrize("num_usable_brokers", [3, 10])
def test_place_replicas(num_usable_brokers: int) -> None:
    time = _MockTime(0, 0, 0)
    snapshot_registry = SnapshotRegistry()
    feature_control = _feature_control(snapshot_registry)
    cluster_control = _cluster_control(feature_control, time=time, snapshot_registry=snapshot_registry,
                                       session_timeout_ns=1000)
    cluster_control.activate()
    for i in range(num_usable_brokers):
        cluster_control.replay_register_broker(_register_broker_record(i, 100), 100)
        cluster_control.replay_unfence_broker(UnfenceBrokerRecord(id=i, epoch=100))
        cluster_control.heartbeat_manager().touch(i, False, 0)
    for i in range(num_usable_brokers):
        assert cluster_control.is_unfenced(i), f"broker {i} was not unfenced."

    class _Cluster(ClusterDescriber):
        def usable_brokers(self) -> Iterator[UsableBroker]:
            return cluster_control.usable_brokers()

        def default_dir(self, broker_id: int) -> uuid.UUID:
            return UNASSIGNED

    for _ in range(100):
        results = cluster_control.replica_placer().place(PlacementSpec(0, 1, 3), _Cluster()).assignments
        seen: set[int] = set()
        for result in results[0].replicas:
            assert result >= 0
            assert result < num_usable_brokers
            assert result not in seen
            seen.add(result)


@pytest.mark.parametrize("metadata_version", [MV.IBP_3_3_IV2, MV.IBP_3_3_IV3], ids=str)
def test_registrations_to_records(metadata_version: MetadataVersion) -> None:
    time = _MockTime(0, 0, 0)
    snapshot_registry = SnapshotRegistry()
    feature_control = _feature_control(snapshot_registry, metadata_version)
    cluster_control = _cluster_control(feature_control, time=time, snapshot_registry=snapshot_registry,
                                       session_timeout_ns=1000)
    cluster_control.activate()
    assert not cluster_control.is_unfenced(0)
    for i in range(3):
        cluster_control.replay_register_broker(_register_broker_record(i, 100, port=9092 + i, rack=None), 100)
    for i in range(2):
        cluster_control.replay_unfence_broker(UnfenceBrokerRecord(id=i, epoch=100))
    cluster_control.replay_broker_registration_change(BrokerRegistrationChangeRecord(
        broker_id=0, broker_epoch=100,
        in_controlled_shutdown=BrokerRegistrationInControlledShutdownChange.IN_CONTROLLED_SHUTDOWN.value))
    expected_version = register_broker_record_version(metadata_version)

    options = (ImageWriterOptions.Builder()
               .set_metadata_version(metadata_version)
               .set_loss_handler(lambda _: None)
               .build())
    assert broker_to_record(cluster_control.broker_registrations().get(0), options) == ApiMessageAndVersion(
        _register_broker_record(0, 100, port=9092, rack=None,
                                in_controlled_shutdown=is_in_controlled_shutdown_state_supported(metadata_version),
                                fenced=False), expected_version)
    assert broker_to_record(cluster_control.broker_registrations().get(1), options) == ApiMessageAndVersion(
        _register_broker_record(1, 100, port=9093, rack=None, fenced=False), expected_version)
    assert broker_to_record(cluster_control.broker_registrations().get(2), options) == ApiMessageAndVersion(
        _register_broker_record(2, 100, port=9094, rack=None, fenced=True), expected_version)


def test_registration_with_unsupported_feature() -> None:
    snapshot_registry = SnapshotRegistry()
    feature_control = _feature_control(snapshot_registry, MV.IBP_3_7_IV0)
    cluster_control = _cluster_control(feature_control, cluster_id="fPZv1VBsRFmnlRvmGcOW9w",
                                       time=_MockTime(0, 0, 0), snapshot_registry=snapshot_registry)
    cluster_control.activate()
    feature_control.replay(FeatureLevelRecord(name=TEST_FEATURE_VERSION, feature_level=i16(1)))

    log_dirs = (_uuid("yJGxmjfbQZSVFAlNM3uXZg"), _uuid("Mj3CW3OSRi29cFeNJlXuAQ"))
    base_request = _request(cluster_id="fPZv1VBsRFmnlRvmGcOW9w", broker_id=0, rack=None,
                            incarnation_id=_uuid("0H4fUu1xQEKXFYwB1aBjhg"), log_dirs=log_dirs)

    with pytest.raises(UnsupportedVersionException) as e:
        cluster_control.register_broker(
            dataclasses.replace(base_request, features=(
                _feature(FEATURE_NAME, MV.IBP_3_1_IV0.feature_level(), MV.IBP_3_7_IV0.feature_level()),)),
            123, feature_control.finalized_features())
    assert _message(e) == ("Unable to register because the broker does not support finalized version 1 of "
                           "test.feature.version. The broker wants a version between 0 and 0, inclusive.")


def test_registration_with_unsupported_kraft_version() -> None:
    snapshot_registry = SnapshotRegistry()
    feature_control = _feature_control(snapshot_registry, MV.IBP_3_9_IV0)
    cluster_control = _cluster_control(feature_control, cluster_id="fPZv1VBsRFmnlRvmGcOW9w",
                                       time=_MockTime(0, 0, 0), snapshot_registry=snapshot_registry)
    cluster_control.activate()

    log_dirs = (_uuid("yJGxmjfbQZSVFAlNM3uXZg"), _uuid("Mj3CW3OSRi29cFeNJlXuAQ"))
    base_request = _request(cluster_id="fPZv1VBsRFmnlRvmGcOW9w", broker_id=0, rack=None,
                            incarnation_id=_uuid("0H4fUu1xQEKXFYwB1aBjhg"), log_dirs=log_dirs)

    # what the quorum controller passes: the finalized features and the latest kraft.version
    updated_finalized_features = dict(feature_control.finalized_features())
    updated_finalized_features[KRAFT_VERSION] = 1
    mv_3_9 = _feature(FEATURE_NAME, MV.IBP_3_9_IV0.feature_level(), MV.IBP_3_9_IV0.feature_level())
    expected = ("Unable to register because the broker does not support finalized version 1 of kraft.version. "
                "The broker wants a version between 0 and 0, inclusive.")

    with pytest.raises(UnsupportedVersionException) as e:
        cluster_control.register_broker(dataclasses.replace(base_request, features=(mv_3_9,)), 123,
                                        updated_finalized_features)
    assert _message(e) == expected

    with pytest.raises(UnsupportedVersionException) as e:
        cluster_control.register_broker(
            dataclasses.replace(base_request, features=(mv_3_9, _feature(KRAFT_VERSION, 0, 0))), 123,
            updated_finalized_features)
    assert _message(e) == expected

    cluster_control.register_broker(
        dataclasses.replace(base_request, features=(mv_3_9, _feature(KRAFT_VERSION, 1, 1))), 123,
        updated_finalized_features)


def test_registration_with_unsupported_metadata_version() -> None:
    snapshot_registry = SnapshotRegistry()
    feature_control = _feature_control(snapshot_registry, MV.IBP_3_3_IV0)
    cluster_control = _cluster_control(feature_control, cluster_id="fPZv1VBsRFmnlRvmGcOW9w",
                                       time=_MockTime(0, 0, 0), snapshot_registry=snapshot_registry)
    cluster_control.activate()

    with pytest.raises(UnsupportedVersionException) as e:
        cluster_control.register_broker(
            _request(cluster_id="fPZv1VBsRFmnlRvmGcOW9w", broker_id=0, rack=None,
                     incarnation_id=_uuid("0H4fUu1xQEKXFYwB1aBjhg")),
            123, feature_control.finalized_features())
    assert _message(e) == ("Unable to register because the broker does not support finalized version 4 of "
                           "metadata.version. The broker wants a version between 1 and 1, inclusive.")

    with pytest.raises(UnsupportedVersionException) as e:
        cluster_control.register_broker(
            _request(cluster_id="fPZv1VBsRFmnlRvmGcOW9w", broker_id=0, rack=None,
                     features=(_feature(FEATURE_NAME, MV.IBP_3_3_IV3.feature_level(),
                                        MV.IBP_3_3_IV3.feature_level()),),
                     incarnation_id=_uuid("0H4fUu1xQEKXFYwB1aBjhg")),
            123, feature_control.finalized_features())
    assert _message(e) == ("Unable to register because the broker does not support finalized version 4 of "
                           "metadata.version. The broker wants a version between 7 and 7, inclusive.")


def _register_new_broker_with_dirs(cluster_control: ClusterControlManager, broker_id: int,
                                   dirs: list[uuid.UUID]) -> None:
    data = _request(broker_id=broker_id, cluster_id=cluster_control.cluster_id(), incarnation_id=uuid.uuid4(),
                    log_dirs=dirs)
    result = cluster_control.register_broker(data, 123, {})
    _replay_all(cluster_control, result.records)


def test_register_with_duplicate_directory_id() -> None:
    cluster_control = _cluster_control(_feature_control(), cluster_id="QzZZEtC7SxucRM29Xdzijw")
    broker_record = _register_broker_record(0, 100, host="127.0.0.1", log_dirs=(
        _uuid("yJGxmjfbQZSVFAlNM3uXZg"),
        _uuid("Mj3CW3OSRi29cFeNJlXuAQ"),
    ))
    cluster_control.replay_register_broker(broker_record, 100)
    cluster_control.activate()

    # it should be possible to re-register the same broker with the same directories
    _register_new_broker_with_dirs(cluster_control, 0, [_uuid("yJGxmjfbQZSVFAlNM3uXZg"),
                                                        _uuid("Mj3CW3OSRi29cFeNJlXuAQ")])
    with pytest.raises(InvalidRegistrationException) as e:
        _register_new_broker_with_dirs(cluster_control, 1, [])
    assert _message(e) == "No directories specified in request"
    with pytest.raises(InvalidRegistrationException) as e:
        _register_new_broker_with_dirs(cluster_control, 1, [_uuid("TyNK6XSSQJaJc2q9uflNHg"),
                                                            _uuid("Mj3CW3OSRi29cFeNJlXuAQ")])
    assert _message(e) == "Broker 0 is already registered with directory Mj3CW3OSRi29cFeNJlXuAQ"
    with pytest.raises(InvalidRegistrationException) as e:
        _register_new_broker_with_dirs(cluster_control, 1, [_uuid("TyNK6XSSQJaJc2q9uflNHg"), UNASSIGNED])
    assert _message(e) == "Reserved directory ID in request"
    with pytest.raises(InvalidRegistrationException) as e:
        _register_new_broker_with_dirs(cluster_control, 1, [_uuid("aR6lssMrSeyXRf65hiUovQ"),
                                                            _uuid("aR6lssMrSeyXRf65hiUovQ")])
    assert _message(e) == "Duplicate directory ID in request"


def test_has_online_dir() -> None:
    cluster_control = _cluster_control(_feature_control(), cluster_id="pjvUwj3ZTEeSVQmUiH3IJw")
    cluster_control.activate()
    _register_new_broker_with_dirs(cluster_control, 1, [_uuid("dir1SEbpRuG1dcpTRGOvJw"),
                                                        _uuid("dir2xaEwR2m3JHTiy7PWwA")])
    assert cluster_control.registration(1).has_online_dir(_uuid("dir1SEbpRuG1dcpTRGOvJw"))
    assert cluster_control.has_online_dir(1, _uuid("dir1SEbpRuG1dcpTRGOvJw"))
    assert cluster_control.has_online_dir(1, _uuid("dir2xaEwR2m3JHTiy7PWwA"))
    assert cluster_control.has_online_dir(1, UNASSIGNED)
    assert cluster_control.has_online_dir(1, MIGRATING)
    assert not cluster_control.has_online_dir(1, _uuid("otherAA1QFK4U1GWzkjZ5A"))
    assert not cluster_control.has_online_dir(77, _uuid("8xVRVs6UQHGVonA9SRYseQ"))
    assert not cluster_control.has_online_dir(1, LOST)


def test_default_dir() -> None:
    cluster_control = _cluster_control(_feature_control(), cluster_id="pjvUwj3ZTEeSVQmUiH3IJw")
    cluster_control.activate()
    cluster_control.replay_register_broker(_register_broker_record(1, 100, host="127.0.0.1", log_dirs=()), 100)
    _register_new_broker_with_dirs(cluster_control, 2, [_uuid("singleOnlineDirectoryA")])
    _register_new_broker_with_dirs(cluster_control, 3, [_uuid("s4fRmyNFSH6J0vI8AVA5ew"),
                                                        _uuid("UbtxBcqYSnKUEMcnTyZFWw")])
    assert cluster_control.default_dir(1) == MIGRATING
    assert cluster_control.default_dir(2) == _uuid("singleOnlineDirectoryA")
    assert cluster_control.default_dir(3) == UNASSIGNED
    assert cluster_control.default_dir(4) == UNASSIGNED


@pytest.mark.parametrize("new_incarnation_id", [False, True])
def test_re_registration_and_broker_epoch(new_incarnation_id: bool) -> None:
    cluster_control = _cluster_control(_feature_control(), cluster_id="pjvUwj3ZTEeSVQmUiH3IJw")
    cluster_control.activate()
    _replay_all(cluster_control, cluster_control.register_broker(
        _request(broker_id=1, cluster_id=cluster_control.cluster_id(),
                 incarnation_id=_uuid("mISEfEFwQIuaD1gKCc5tzQ"), log_dirs=[_uuid("Vv1gzkM2QpuE-PPrIc6XEw")]),
        100, {}).records)
    _replay_all(cluster_control, cluster_control.register_broker(
        _request(broker_id=1, cluster_id=cluster_control.cluster_id(),
                 incarnation_id=(_uuid("07OOcU7MQFeSmGAFPP2Zww") if new_incarnation_id
                                 else _uuid("mISEfEFwQIuaD1gKCc5tzQ")),
                 log_dirs=[_uuid("Vv1gzkM2QpuE-PPrIc6XEw")]),
        111, {}).records)
    if new_incarnation_id:
        assert cluster_control.broker_registrations().get(1).incarnation_id == _uuid("07OOcU7MQFeSmGAFPP2Zww")
        assert cluster_control.broker_registrations().get(1).epoch == 111
    else:
        assert cluster_control.broker_registrations().get(1).incarnation_id == _uuid("mISEfEFwQIuaD1gKCc5tzQ")
        assert cluster_control.broker_registrations().get(1).epoch == 100
