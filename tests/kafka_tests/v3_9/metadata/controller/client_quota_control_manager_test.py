"""Port of metadata/src/test/java/org/apache/kafka/controller/ClientQuotaControlManagerTest.java (Kafka 3.9).

Differences of form only: no Builder (the constructor's defaults are the Builder's), and RecordTestUtils.deepSortRecords
is `_deep_sorted` below (records sorted, each record's entity list sorted).
"""

from __future__ import annotations

import pytest

from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from kafka_edu.v3_9.clients.common.quota.client_quota_alteration import ClientQuotaAlteration, Op
from kafka_edu.v3_9.clients.common.quota.client_quota_entity import CLIENT_ID, IP, USER, ClientQuotaEntity
from kafka_edu.v3_9.clients.common.requests.api_error import ApiError
from kafka_edu.v3_9.metadata.common.metadata import ApiMessageAndVersion, ClientQuotaRecord
from kafka_edu.v3_9.metadata.common.metadata.client_quota_record import EntityData
from kafka_edu.v3_9.metadata.controller.client_quota_control_manager import (
    ClientQuotaControlManager,
    config_keys_for_entity_type,
    is_valid_ip_entity,
    validate_quota_key_value,
)
from kafka_edu.v3_9.server_common.server.config import quota_configs as QuotaConfigs
from tests.kafka_tests.referee import kafka_test_class

KAFKA = kafka_test_class(
    "3.9", "metadata/src/test/java/org/apache/kafka/controller/ClientQuotaControlManagerTest.java",
    cases=["testInvalidEntityTypes", "testInvalidQuotaKeys", "testAlterAndRemove", "testEntityTypes",
           "testIsValidIpEntityWithNull", "testIsValidIpEntityWithUnresolvableHostname",
           "testIsValidIpEntityWithLocalhost", "testConfigKeysForEntityTypeWithUser",
           "testConfigKeysForEntityTypeWithClientId", "testConfigKeysForEntityTypeWithUserAndClientId",
           "testConfigKeysForEntityTypeWithIp", "testConfigKeysForEmptyEntity",
           "testConfigKeysForEntityTypeWithIpAndUser", "testConfigKeysForEntityTypeWithIpAndClientId",
           "testConfigKeysForUnresolvableIpEntity", "testValidateQuotaKeyValueForUnknownQuota",
           "testValidateQuotaKeyValueForZeroQuota", "testValidateQuotaKeyValueForNegativeQuota",
           "testValidateQuotaKeyValueForValidConsumerByteRate",
           "testValidateQuotaKeyValueForConsumerByteRateTooLarge",
           "testValidateQuotaKeyValueForFractionalConsumerByteRate",
           "testValidateQuotaKeyValueForValidConsumerByteRate2",
           "testValidateQuotaKeyValueForValidRequestPercentage"],
)

PRODUCER_BYTE_RATE = QuotaConfigs.PRODUCER_BYTE_RATE_OVERRIDE_CONFIG
CONSUMER_BYTE_RATE = QuotaConfigs.CONSUMER_BYTE_RATE_OVERRIDE_CONFIG
REQUEST_PERCENTAGE = QuotaConfigs.REQUEST_PERCENTAGE_OVERRIDE_CONFIG
CONTROLLER_MUTATION_RATE = QuotaConfigs.CONTROLLER_MUTATION_RATE_OVERRIDE_CONFIG


def entity(*types_and_names: str | None) -> ClientQuotaEntity:
    pairs = list(zip(types_and_names[::2], types_and_names[1::2], strict=True))
    return ClientQuotaEntity(dict(pairs))


def user_entity(user: str | None) -> ClientQuotaEntity:
    return ClientQuotaEntity({USER: user})


def client_entity(client_id: str | None) -> ClientQuotaEntity:
    return ClientQuotaEntity({CLIENT_ID: client_id})


def user_client_entity(user: str | None, client_id: str | None) -> ClientQuotaEntity:
    return ClientQuotaEntity({USER: user, CLIENT_ID: client_id})


def alteration(e: ClientQuotaEntity, quota: dict[str | None, float | None]) -> ClientQuotaAlteration:
    """entityQuotaToAlterations."""
    return ClientQuotaAlteration(e, tuple(Op(key, value) for key, value in quota.items()))


def alter_quotas(alterations: list[ClientQuotaAlteration], manager: ClientQuotaControlManager
                 ) -> list[ApiMessageAndVersion]:
    result = manager.alter_client_quotas(alterations)
    assert all(e.is_success() for e in result.response.values())
    for record in result.records:
        manager.replay(record.message)
    return result.records


def assert_invalid_quota(manager: ClientQuotaControlManager, e: ClientQuotaEntity,
                         quota: dict[str | None, float | None]) -> None:
    result = manager.alter_client_quotas([alteration(e, quota)])
    assert result.response[e].error is Errors.INVALID_REQUEST
    assert len(result.records) == 0


def assert_invalid_entity(manager: ClientQuotaControlManager, e: ClientQuotaEntity) -> None:
    assert_invalid_quota(manager, e, {PRODUCER_BYTE_RATE: 10000.0})


def test_invalid_entity_types() -> None:
    manager = ClientQuotaControlManager()
    assert_invalid_entity(manager, entity("foo", "bar"))  # unknown type
    assert_invalid_entity(manager, entity(None, "null"))  # null type
    assert_invalid_entity(manager, entity(USER, "user-1", "foo", "bar"))  # valid + unknown
    assert_invalid_entity(manager, entity("foo", "bar", IP, "1.2.3.4"))
    assert_invalid_entity(manager, entity(USER, "user-1", IP, "1.2.3.4"))  # invalid combinations
    assert_invalid_entity(manager, entity(CLIENT_ID, "user-1", IP, "1.2.3.4"))
    assert_invalid_entity(manager, ClientQuotaEntity({}))  # empty


def test_invalid_quota_keys() -> None:
    manager = ClientQuotaControlManager()
    e = entity(USER, "user-1")
    assert_invalid_quota(manager, e, {"not.a.quota.key": 0.0, REQUEST_PERCENTAGE: 99.9})
    assert_invalid_quota(manager, e, {REQUEST_PERCENTAGE: 99.9, "not.a.quota.key": 0.0})
    assert_invalid_quota(manager, e, {None: 99.9})


def test_alter_and_remove() -> None:
    manager = ClientQuotaControlManager()
    user = user_entity("user-1")

    def quotas() -> dict[str, float]:
        return dict(manager.client_quota_data.get(user).entry_set())

    alter_quotas([alteration(user, {PRODUCER_BYTE_RATE: 10000.0})], manager)
    assert quotas() == pytest.approx({PRODUCER_BYTE_RATE: 10000.0})
    # replace it and add another
    alter_quotas([alteration(user, {PRODUCER_BYTE_RATE: 10001.0, CONSUMER_BYTE_RATE: 20000.0})], manager)
    assert quotas() == pytest.approx({PRODUCER_BYTE_RATE: 10001.0, CONSUMER_BYTE_RATE: 20000.0})
    # remove one, the other stays
    alter_quotas([alteration(user, {PRODUCER_BYTE_RATE: None})], manager)
    assert quotas() == pytest.approx({CONSUMER_BYTE_RATE: 20000.0})
    # removing one that is not there changes nothing
    alter_quotas([alteration(user, {REQUEST_PERCENTAGE: None})], manager)
    assert quotas() == pytest.approx({CONSUMER_BYTE_RATE: 20000.0})
    # the last one removed: the entity goes
    alter_quotas([alteration(user, {CONSUMER_BYTE_RATE: None})], manager)
    assert not manager.client_quota_data.contains_key(user)
    alter_quotas([alteration(user, {CONSUMER_BYTE_RATE: None})], manager)
    assert not manager.client_quota_data.contains_key(user)
    # mixed
    alter_quotas([alteration(user, {REQUEST_PERCENTAGE: 99.0, CONTROLLER_MUTATION_RATE: None,
                                    PRODUCER_BYTE_RATE: 10002.0, CONSUMER_BYTE_RATE: 20001.0})], manager)
    assert quotas() == pytest.approx({CONSUMER_BYTE_RATE: 20001.0, PRODUCER_BYTE_RATE: 10002.0,
                                      REQUEST_PERCENTAGE: 99.0})


def _record(entity_data: list[tuple[str, str | None]], value: float) -> ApiMessageAndVersion:
    return ApiMessageAndVersion(ClientQuotaRecord(
        entity=tuple(EntityData(entity_type=t, entity_name=n) for t, n in entity_data),
        key="request_percentage", value=value, remove=False), 0)


def _deep_sorted(records: list[ApiMessageAndVersion]) -> list[tuple[object, ...]]:
    """RecordTestUtils.deepSortRecords, as comparable tuples."""
    return sorted((tuple(sorted((e.entity_type, e.entity_name or "") for e in r.message.entity)), r.message.key,
                   r.message.value, r.message.remove) for r in records)


def test_entity_types() -> None:
    manager = ClientQuotaControlManager()
    quotas_to_test = {
        user_client_entity("user-1", "client-id-1"): 50.50, user_client_entity("user-2", "client-id-1"): 51.51,
        user_client_entity("user-3", "client-id-2"): 52.52, user_client_entity(None, "client-id-1"): 53.53,
        user_client_entity("user-1", None): 54.54, user_client_entity("user-3", None): 55.55,
        user_entity("user-1"): 56.56, user_entity("user-2"): 57.57, user_entity("user-3"): 58.58,
        user_entity(None): 59.59, client_entity("client-id-2"): 60.60}
    records = alter_quotas([alteration(e, {REQUEST_PERCENTAGE: v}) for e, v in quotas_to_test.items()], manager)
    expected_records = [
        _record([("user", "user-1"), ("client-id", "client-id-1")], 50.5),
        _record([("user", "user-2"), ("client-id", "client-id-1")], 51.51),
        _record([("user", "user-3"), ("client-id", "client-id-2")], 52.52),
        _record([("user", None), ("client-id", "client-id-1")], 53.53),
        _record([("user", "user-1"), ("client-id", None)], 54.54),
        _record([("user", "user-3"), ("client-id", None)], 55.55),
        _record([("user", "user-1")], 56.56), _record([("user", "user-2")], 57.57),
        _record([("user", "user-3")], 58.58), _record([("user", None)], 59.59),
        _record([("client-id", "client-id-2")], 60.60)]
    assert _deep_sorted(records) == _deep_sorted(expected_records)


def test_is_valid_ip_entity_with_null() -> None:
    assert is_valid_ip_entity(None)


def test_is_valid_ip_entity_with_unresolvable_hostname() -> None:
    assert not is_valid_ip_entity("example.invalid")  # RFC 2606: never valid


def test_is_valid_ip_entity_with_localhost() -> None:
    assert is_valid_ip_entity("127.0.0.1")


def _keys_to_entity(entity_keys: list[str]) -> dict[str, str | None]:
    return {key: "127.0.0.1" if key == IP else "foo" for key in entity_keys}


def _test_config_keys_for_entity_type(entity_keys: list[str], expected_configs: list[str]) -> None:
    output: dict[str, object] = {}
    assert config_keys_for_entity_type(_keys_to_entity(entity_keys), output) == ApiError.NONE
    assert set(output) == set(expected_configs)


USER_AND_CLIENT_KEYS = ["producer_byte_rate", "consumer_byte_rate", "controller_mutation_rate", "request_percentage"]


def test_config_keys_for_entity_type_with_user() -> None:
    _test_config_keys_for_entity_type([USER], USER_AND_CLIENT_KEYS)


def test_config_keys_for_entity_type_with_client_id() -> None:
    _test_config_keys_for_entity_type([CLIENT_ID], USER_AND_CLIENT_KEYS)


def test_config_keys_for_entity_type_with_user_and_client_id() -> None:
    _test_config_keys_for_entity_type([CLIENT_ID, USER], USER_AND_CLIENT_KEYS)


def test_config_keys_for_entity_type_with_ip() -> None:
    _test_config_keys_for_entity_type([IP], ["connection_creation_rate"])


def _test_config_keys_error(entity_map: dict[str, str | None], expected_error: ApiError) -> None:
    assert config_keys_for_entity_type(entity_map, {}) == expected_error


IP_COMBINATION = ApiError(Errors.INVALID_REQUEST,
                          "Invalid quota entity combination, IP entity shouldnot be combined with User or ClientId")


def test_config_keys_for_empty_entity() -> None:
    _test_config_keys_error({}, ApiError(Errors.INVALID_REQUEST, "Invalid empty client quota entity"))


def test_config_keys_for_entity_type_with_ip_and_user() -> None:
    _test_config_keys_error(_keys_to_entity([IP, USER]), IP_COMBINATION)


def test_config_keys_for_entity_type_with_ip_and_client_id() -> None:
    _test_config_keys_error(_keys_to_entity([IP, CLIENT_ID]), IP_COMBINATION)


def test_config_keys_for_unresolvable_ip_entity() -> None:
    _test_config_keys_error({IP: "example.invalid"}, ApiError(
        Errors.INVALID_REQUEST, "example.invalid is not a valid IP or resolvable host."))


VALID_CLIENT_ID_QUOTA_KEYS: dict[str, object] = {}
assert config_keys_for_entity_type(_keys_to_entity([CLIENT_ID]), VALID_CLIENT_ID_QUOTA_KEYS) == ApiError.NONE


def test_validate_quota_key_value_for_unknown_quota() -> None:
    assert validate_quota_key_value(VALID_CLIENT_ID_QUOTA_KEYS, "foobar", 1.0) == ApiError(
        Errors.INVALID_REQUEST, "Invalid configuration key foobar")


def test_validate_quota_key_value_for_zero_quota() -> None:
    assert validate_quota_key_value(VALID_CLIENT_ID_QUOTA_KEYS, "producer_byte_rate", 0.0) == ApiError(
        Errors.INVALID_REQUEST, "Quota producer_byte_rate must be greater than 0")


def test_validate_quota_key_value_for_negative_quota() -> None:
    assert validate_quota_key_value(VALID_CLIENT_ID_QUOTA_KEYS, "consumer_byte_rate", -2.0) == ApiError(
        Errors.INVALID_REQUEST, "Quota consumer_byte_rate must be greater than 0")


def test_validate_quota_key_value_for_valid_consumer_byte_rate() -> None:
    assert validate_quota_key_value(VALID_CLIENT_ID_QUOTA_KEYS, "consumer_byte_rate", 1234.0) == ApiError.NONE


def test_validate_quota_key_value_for_consumer_byte_rate_too_large() -> None:
    assert validate_quota_key_value(VALID_CLIENT_ID_QUOTA_KEYS, "consumer_byte_rate",
                                    36893488147419103232.4) == ApiError(
        Errors.INVALID_REQUEST, "Proposed value for consumer_byte_rate is too large for a LONG.")


def test_validate_quota_key_value_for_fractional_consumer_byte_rate() -> None:
    assert validate_quota_key_value(VALID_CLIENT_ID_QUOTA_KEYS, "consumer_byte_rate", 2.245) == ApiError(
        Errors.INVALID_REQUEST, "consumer_byte_rate cannot be a fractional value.")


def test_validate_quota_key_value_for_valid_consumer_byte_rate2() -> None:
    assert validate_quota_key_value(VALID_CLIENT_ID_QUOTA_KEYS, "consumer_byte_rate",
                                    1235.0000001) == ApiError.NONE


def test_validate_quota_key_value_for_valid_request_percentage() -> None:
    assert validate_quota_key_value(VALID_CLIENT_ID_QUOTA_KEYS, "request_percentage",
                                    56.62367) == ApiError.NONE
