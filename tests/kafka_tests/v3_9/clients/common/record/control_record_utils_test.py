"""Port of clients/src/test/java/org/apache/kafka/common/record/ControlRecordUtilsTest.java (Kafka 3.9).

Differences of form: a message class's HIGHEST_SUPPORTED_VERSION is the highest version package kio generated for
it; Java's default Voter (zero directory id, which kio reads as None; no endpoints; kraft.version range 0..0)
is written out.
"""

from __future__ import annotations

import importlib
import io
import pkgutil

import pytest
from kio.schema.voters_record.v0.data import KRaftVersionFeature, Voter, VotersRecord
from kio.serial import entity_writer
from kio.static.primitive import i16, i32

from kafka_edu.v1_0_2.clients.common.errors import IllegalArgumentException
from kafka_edu.v3_9.clients.common.record.control_record_utils import ControlRecordType, ControlRecordUtils
from kafka_edu.v3_9.clients.common.record.default_record import DefaultRecord
from tests.kafka_tests.referee import kafka_test_class

KAFKA = kafka_test_class(
    "3.9", "clients/src/test/java/org/apache/kafka/common/record/ControlRecordUtilsTest.java",
    cases=["testCurrentVersions", "testInvalidControlRecordType", "testDeserializeByteData"],
)


def _highest_supported_version(schema: str) -> int:
    package = importlib.import_module(f"kio.schema.{schema}")
    return max(int(module.name[1:]) for module in pkgutil.iter_modules(package.__path__)
               if module.name.startswith("v"))


def _voter(voter_id: int) -> Voter:
    return Voter(voter_id=i32(voter_id), voter_directory_id=None, endpoints=(),
                 k_raft_version_feature=KRaftVersionFeature(min_supported_version=i16(0),
                                                            max_supported_version=i16(0)))


def test_current_versions() -> None:
    # A failure here means a newer record version exists: Kafka must read and write it.
    assert ControlRecordUtils.LEADER_CHANGE_CURRENT_VERSION == 0
    assert ControlRecordUtils.SNAPSHOT_HEADER_CURRENT_VERSION == _highest_supported_version("snapshot_header_record")
    assert ControlRecordUtils.SNAPSHOT_FOOTER_CURRENT_VERSION == _highest_supported_version("snapshot_footer_record")
    assert ControlRecordUtils.KRAFT_VERSION_CURRENT_VERSION == _highest_supported_version("k_raft_version_record")
    assert ControlRecordUtils.KRAFT_VOTERS_CURRENT_VERSION == _highest_supported_version("voters_record")


def _test_deserialize_record(control_record_type: ControlRecordType) -> None:
    voter_id = 0
    voters = (_voter(voter_id),)
    data = VotersRecord(version=i16(0), voters=voters)
    out = io.BytesIO()
    entity_writer(VotersRecord)(out, data)
    key_data = bytes([0, 0, 0, control_record_type.type])
    record = DefaultRecord(256, 0, 0, 0, 0, key_data, out.getvalue(), None)
    deserialized_data = ControlRecordUtils.deserialize_voters_record(record)
    assert deserialized_data.voters == voters
    assert deserialized_data.voters == (_voter(voter_id),)


def test_invalid_control_record_type() -> None:
    with pytest.raises(IllegalArgumentException) as thrown:
        _test_deserialize_record(ControlRecordType.COMMIT)
    assert str(thrown.value) == "Expected KRAFT_VOTERS control record type(6), but found COMMIT"


def test_deserialize_byte_data() -> None:
    _test_deserialize_record(ControlRecordType.KRAFT_VOTERS)
