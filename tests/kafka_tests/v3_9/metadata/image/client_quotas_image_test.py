"""Port of metadata/src/test/java/org/apache/kafka/image/ClientQuotasImageTest.java (Kafka 3.9).

`_test_to_image` is RecordTestUtils.TestThroughAllIntermediateImagesLeadingToFinalImageHelper for ClientQuotasImage,
as in acls_image_test.py.
"""

from __future__ import annotations

from kafka_edu.v3_9.clients.common.quota.client_quota_entity import IP, USER, ClientQuotaEntity
from kafka_edu.v3_9.metadata.common.metadata import ApiMessageAndVersion, ClientQuotaRecord
from kafka_edu.v3_9.metadata.common.metadata.client_quota_record import EntityData
from kafka_edu.v3_9.metadata.image.client_quota_image import ClientQuotaImage
from kafka_edu.v3_9.metadata.image.client_quotas_delta import ClientQuotasDelta
from kafka_edu.v3_9.metadata.image.client_quotas_image import ClientQuotasImage
from kafka_edu.v3_9.server_common.server.config import quota_configs as QuotaConfigs
from tests.kafka_tests.referee import kafka_test_class
from tests.kafka_tests.v3_9.metadata.record_test_utils import (
    ThroughAllIntermediateImagesLeadingToFinalImage,
    image_records,
)

KAFKA = kafka_test_class(
    "3.9", "metadata/src/test/java/org/apache/kafka/image/ClientQuotasImageTest.java",
    cases=["testEmptyImageRoundTrip", "testImage1RoundTrip", "testApplyDelta1", "testImage2RoundTrip"],
)

PRODUCER_BYTE_RATE = QuotaConfigs.PRODUCER_BYTE_RATE_OVERRIDE_CONFIG
CONSUMER_BYTE_RATE = QuotaConfigs.CONSUMER_BYTE_RATE_OVERRIDE_CONFIG

_foo_user = {USER: "foo"}
_bar_user_and_ip = {USER: "bar", IP: "127.0.0.1"}
IMAGE1 = ClientQuotasImage({ClientQuotaEntity(_foo_user): ClientQuotaImage({PRODUCER_BYTE_RATE: 123.0}),
                            ClientQuotaEntity(_bar_user_and_ip): ClientQuotaImage({CONSUMER_BYTE_RATE: 456.0})})
DELTA1_RECORDS = [
    # a quota removed
    ApiMessageAndVersion(ClientQuotaRecord(entity=(EntityData(entity_type=USER, entity_name="bar"),
                                                   EntityData(entity_type=IP, entity_name="127.0.0.1")),
                                           key=CONSUMER_BYTE_RATE, remove=True), 0),
    # one changed
    ApiMessageAndVersion(ClientQuotaRecord(entity=(EntityData(entity_type=USER, entity_name="foo"),),
                                           key=PRODUCER_BYTE_RATE, value=234.0), 0),
    # one added to an entity that has quotas
    ApiMessageAndVersion(ClientQuotaRecord(entity=(EntityData(entity_type=USER, entity_name="foo"),),
                                           key=CONSUMER_BYTE_RATE, value=999.0), 0),
]


def replay_all(delta: ClientQuotasDelta, records: list[ApiMessageAndVersion]) -> None:
    for record in records:
        delta.replay(record.message)


DELTA1 = ClientQuotasDelta(IMAGE1)
replay_all(DELTA1, DELTA1_RECORDS)
IMAGE2 = ClientQuotasImage({ClientQuotaEntity(_foo_user): ClientQuotaImage({PRODUCER_BYTE_RATE: 234.0,
                                                                            CONSUMER_BYTE_RATE: 999.0})})


def get_image_records(image: ClientQuotasImage) -> list[ApiMessageAndVersion]:
    return image_records(image)


def _test_to_image(image: ClientQuotasImage, from_records: list[ApiMessageAndVersion] | None = None) -> None:
    helper = ThroughAllIntermediateImagesLeadingToFinalImage(lambda: ClientQuotasImage.EMPTY, ClientQuotasDelta,
                                                             replay_all)
    helper.test(image, get_image_records(image) if from_records is None else from_records)


def test_empty_image_round_trip() -> None:
    _test_to_image(ClientQuotasImage.EMPTY)


def test_image1_round_trip() -> None:
    _test_to_image(IMAGE1)


def test_apply_delta1() -> None:
    assert DELTA1.apply() == IMAGE2
    # image1 + delta1 = image2: their records may differ from image2's own
    _test_to_image(IMAGE2, get_image_records(IMAGE1) + DELTA1_RECORDS)


def test_image2_round_trip() -> None:
    _test_to_image(IMAGE2)
