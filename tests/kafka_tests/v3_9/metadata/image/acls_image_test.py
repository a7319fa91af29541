"""Port of metadata/src/test/java/org/apache/kafka/image/AclsImageTest.java (Kafka 3.9).

`_test_to_image` is RecordTestUtils.TestThroughAllIntermediateImagesLeadingToFinalImageHelper for AclsImage: the
image built from the records in one delta, and through every split of them into successive deltas, is the same.
"""

from __future__ import annotations

from kafka_edu.v3_9.clients.common.uuid import Uuid
from kafka_edu.v3_9.metadata.common.metadata import ApiMessageAndVersion
from kafka_edu.v3_9.metadata.common.metadata.access_control_entry_record import AccessControlEntryRecord
from kafka_edu.v3_9.metadata.common.metadata.remove_access_control_entry_record import RemoveAccessControlEntryRecord
from kafka_edu.v3_9.metadata.image.acls_delta import AclsDelta
from kafka_edu.v3_9.metadata.image.acls_image import AclsImage
from tests.kafka_tests.referee import kafka_test_class
from tests.kafka_tests.v3_9.metadata.metadata.authorizer.standard_acl_with_id_test import TEST_ACLS
from tests.kafka_tests.v3_9.metadata.record_test_utils import (
    ThroughAllIntermediateImagesLeadingToFinalImage,
    image_records,
)

KAFKA = kafka_test_class(
    "3.9", "metadata/src/test/java/org/apache/kafka/image/AclsImageTest.java",
    cases=["testEmptyImageRoundTrip", "testImage1RoundTrip", "testApplyDelta1", "testImage2RoundTrip"],
)


def replay_all(delta: AclsDelta, records: list[ApiMessageAndVersion]) -> None:
    for record in records:
        if isinstance(record.message, AccessControlEntryRecord):
            delta.replay(record.message)
        elif isinstance(record.message, RemoveAccessControlEntryRecord):
            delta.replay_remove(record.message)


IMAGE1 = AclsImage({acl.id: acl.acl for acl in TEST_ACLS[:4]})
DELTA1_RECORDS = [
    ApiMessageAndVersion(RemoveAccessControlEntryRecord(id=TEST_ACLS[0].id), 0),
    ApiMessageAndVersion(TEST_ACLS[4].to_record(), 0),
]
assert str(Uuid.from_bytes(TEST_ACLS[0].id.bytes)) == "QZDDv-R7SyaPgetDPGd0Mw"
DELTA1 = AclsDelta(IMAGE1)
replay_all(DELTA1, DELTA1_RECORDS)
IMAGE2 = AclsImage({acl.id: acl.acl for acl in TEST_ACLS[1:5]})


def get_image_records(image: AclsImage) -> list[ApiMessageAndVersion]:
    return image_records(image)


def _test_to_image(image: AclsImage, from_records: list[ApiMessageAndVersion] | None = None) -> None:
    ThroughAllIntermediateImagesLeadingToFinalImage(lambda: AclsImage.EMPTY, AclsDelta, replay_all).test(
        image, get_image_records(image) if from_records is None else from_records)


def test_empty_image_round_trip() -> None:
    _test_to_image(AclsImage.EMPTY)


def test_image1_round_trip() -> None:
    _test_to_image(IMAGE1)


def test_apply_delta1() -> None:
    assert DELTA1.apply() == IMAGE2
    # image1 + delta1 = image2, though the records of image1 and delta1 differ from image2's
    _test_to_image(IMAGE2, get_image_records(IMAGE1) + DELTA1_RECORDS)


def test_image2_round_trip() -> None:
    _test_to_image(IMAGE2)
