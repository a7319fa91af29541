"""Port of metadata/src/test/java/org/apache/kafka/image/ScramImageTest.java (Kafka 3.9).

The credentials are random bytes from a seeded random.Random (Kafka's MockRandom only seeds them too). `_test_to_image`
is RecordTestUtils.TestThroughAllIntermediateImagesLeadingToFinalImageHelper for ScramImage, as in acls_image_test.py.
"""

from __future__ import annotations

import random

import pytest

from kafka_edu.v3_9.clients.clients.admin.scram_mechanism import ScramMechanism
from kafka_edu.v3_9.metadata.common.metadata import (
    ApiMessageAndVersion,
    RemoveUserScramCredentialRecord,
    UserScramCredentialRecord,
)
from kafka_edu.v3_9.metadata.image.scram_delta import ScramDelta
from kafka_edu.v3_9.metadata.image.scram_image import ScramImage
from kafka_edu.v3_9.metadata.image.writer.image_writer_options import ImageWriterOptions
from kafka_edu.v3_9.metadata.image.writer.record_list_writer import RecordListWriter
from kafka_edu.v3_9.metadata.metadata.scram_credential_data import ScramCredentialData
from kafka_edu.v3_9.server_common.server.common.metadata_version import MetadataVersion
from tests.kafka_tests.referee import kafka_test_class
from tests.kafka_tests.v3_9.metadata.record_test_utils import (
    ThroughAllIntermediateImagesLeadingToFinalImage,
    image_records,
)

KAFKA = kafka_test_class(
    "3.9", "metadata/src/test/java/org/apache/kafka/image/ScramImageTest.java",
    cases=["testEmptyImageRoundTrip", "testImage1RoundTrip", "testApplyDelta1", "testImage2RoundTrip",
           "testEmptyWithInvalidIBP", "testImage1withInvalidIBP"],
)

SCRAM_SHA_256, SCRAM_SHA_512 = ScramMechanism.SCRAM_SHA_256, ScramMechanism.SCRAM_SHA_512


def random_scram_credential_data(rng: random.Random) -> ScramCredentialData:
    return ScramCredentialData(rng.randbytes(1024), rng.randbytes(1024), rng.randbytes(1024),
                               1024 + rng.randrange(1024))


def replay_all(delta: ScramDelta, records: list[ApiMessageAndVersion]) -> None:
    for record in records:
        if isinstance(record.message, UserScramCredentialRecord):
            delta.replay(record.message)
        elif isinstance(record.message, RemoveUserScramCredentialRecord):
            delta.replay_remove(record.message)


_rng = random.Random(17)
_image1_sha256 = {"alpha": random_scram_credential_data(_rng), "beta": random_scram_credential_data(_rng)}
_image1_sha512 = {"alpha": random_scram_credential_data(_rng), "gamma": random_scram_credential_data(_rng)}
IMAGE1 = ScramImage({SCRAM_SHA_256: _image1_sha256, SCRAM_SHA_512: _image1_sha512})
_second_alpha256 = random_scram_credential_data(_rng)
_second_alpha512 = random_scram_credential_data(_rng)
DELTA1_RECORDS = [
    # every sha512 credential removed
    ApiMessageAndVersion(RemoveUserScramCredentialRecord(name="alpha", mechanism=SCRAM_SHA_512.type()), 0),
    ApiMessageAndVersion(RemoveUserScramCredentialRecord(name="gamma", mechanism=SCRAM_SHA_512.type()), 0),
    # a sha256 credential added, and a sha512 one under a name used before
    ApiMessageAndVersion(_second_alpha256.to_record("alpha", SCRAM_SHA_256), 0),
    ApiMessageAndVersion(_second_alpha512.to_record("alpha", SCRAM_SHA_512), 0),
]
DELTA1 = ScramDelta(IMAGE1)
replay_all(DELTA1, DELTA1_RECORDS)
IMAGE2 = ScramImage({SCRAM_SHA_256: {"alpha": _second_alpha256, "beta": _image1_sha256["beta"]},
                     SCRAM_SHA_512: {"alpha": _second_alpha512}})


def get_image_records(image: ScramImage) -> list[ApiMessageAndVersion]:
    return image_records(image)


def _test_to_image(image: ScramImage, from_records: list[ApiMessageAndVersion] | None = None) -> None:
    ThroughAllIntermediateImagesLeadingToFinalImage(lambda: ScramImage.EMPTY, ScramDelta, replay_all).test(
        image, get_image_records(image) if from_records is None else from_records)


def test_empty_image_round_trip() -> None:
    _test_to_image(ScramImage.EMPTY)


def test_image1_round_trip() -> None:
    _test_to_image(IMAGE1)


def test_apply_delta1() -> None:
    assert DELTA1.apply() == IMAGE2
    # image1 + delta1 = image2: their records may differ from image2's own
    _test_to_image(IMAGE2, get_image_records(IMAGE1) + DELTA1_RECORDS)


def test_image2_round_trip() -> None:
    _test_to_image(IMAGE2)


def test_empty_with_invalid_ibp() -> None:
    options = ImageWriterOptions.Builder().set_metadata_version(MetadataVersion.IBP_3_4_IV0).build()
    ScramImage.EMPTY.write(RecordListWriter(), options)


def test_image1with_invalid_ibp() -> None:
    options = ImageWriterOptions.Builder().set_metadata_version(MetadataVersion.IBP_3_4_IV0).build()
    with pytest.raises(Exception):  # noqa: B017 - Kafka expects any exception
        IMAGE1.write(RecordListWriter(), options)
