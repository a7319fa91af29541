"""Port of metadata/src/test/java/org/apache/kafka/controller/ConfigurationControlManagerTest.java (Kafka 3.9).

Differences of form only: the port has no ConfigurationControlManager.Builder (the constructor takes the same
settings), ConfigResources are (ConfigResourceType, name) tuples, and the validator is ConfigurationValidator.NO_OP,
the Builder's default. The policy's message in testIncrementalAlterConfigsWithPolicy is built from the port's
RequestMetadata, whose resource prints as a tuple.
"""

from __future__ import annotations

from typing import Any

from kafka_edu.v1_0_2.clients.common.config.config_def import ConfigDef, Type
from kafka_edu.v1_0_2.clients.common.errors import PolicyViolationException, UnknownTopicOrPartitionException
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from kafka_edu.v3_9.clients.common.requests.api_error import ApiError
from kafka_edu.v3_9.clients.server.policy.alter_config_policy import AlterConfigPolicy, RequestMetadata
from kafka_edu.v3_9.metadata.common.metadata import ApiMessageAndVersion, ConfigRecord
from kafka_edu.v3_9.metadata.controller.configuration_control_manager import (
    ConfigResourceType,
    ConfigurationControlManager,
    OpType,
)
from kafka_edu.v3_9.metadata.controller.configuration_validator import NO_OP
from kafka_edu.v3_9.metadata.controller.controller_result import ControllerResult
from kafka_edu.v3_9.metadata.metadata.kafka_config_schema import KafkaConfigSchema
from kafka_edu.v3_9.server_common.server.config.server_topic_config_synonyms import (
    ConfigSynonym,
    hours_to_milliseconds,
)
from kafka_edu.v3_9.server_common.timeline.snapshot_registry import SnapshotRegistry
from tests.kafka_tests.referee import kafka_test_class

KAFKA = kafka_test_class(
    "3.9", "metadata/src/test/java/org/apache/kafka/controller/ConfigurationControlManagerTest.java",
    cases=["testReplay", "testIncrementalAlterConfigs", "testIncrementalAlterConfig",
           "testIncrementalAlterMultipleConfigValues", "testIncrementalAlterConfigsWithoutExistence",
           "testIncrementalAlterConfigsWithPolicy", "testLegacyAlterConfigs"],
)

BROKER, TOPIC = ConfigResourceType.BROKER, ConfigResourceType.TOPIC
SET, DELETE, APPEND, SUBTRACT = OpType.SET, OpType.DELETE, OpType.APPEND, OpType.SUBTRACT

CONFIGS = {
    BROKER: ConfigDef().define("foo.bar", Type.LIST, "1").define("baz", Type.STRING).define("quux", Type.INT),
    TOPIC: (ConfigDef().define("abc", Type.LIST).define("def", Type.STRING).define("ghi", Type.BOOLEAN, True)
            .define("quuux", Type.LONG)),
}
SYNONYMS = {"abc": [ConfigSynonym("foo.bar")], "def": [ConfigSynonym("baz")],
            "quuux": [ConfigSynonym("quux", hours_to_milliseconds)]}
SCHEMA = KafkaConfigSchema(CONFIGS, SYNONYMS)

BROKER0 = (BROKER, "0")
MYTOPIC = (TOPIC, "mytopic")


def existence_checker(resource: Any) -> None:
    """TestExistenceChecker.INSTANCE."""
    if not resource[1].startswith("Existing"):
        raise UnknownTopicOrPartitionException("Unknown resource.")



def manager(**kwargs: Any) -> ConfigurationControlManager:
    return ConfigurationControlManager(SnapshotRegistry(), config_schema=SCHEMA, validator=NO_OP, **kwargs)


def config_record(resource_type: ConfigResourceType, name: str, key: str, value: str | None) -> ApiMessageAndVersion:
    return ApiMessageAndVersion(ConfigRecord(resource_type=int(resource_type), resource_name=name, name=key,
                                             value=value), 0)


def replay_all(target: ConfigurationControlManager, records: list[ApiMessageAndVersion]) -> None:
    for record in records:
        target.replay(record.message)


def test_replay() -> None:
    m = manager()
    assert m.get_configs(BROKER0) == {}
    m.replay(config_record(BROKER, "0", "foo.bar", "1,2").message)
    assert m.get_configs(BROKER0) == {"foo.bar": "1,2"}
    m.replay(config_record(BROKER, "0", "foo.bar", None).message)
    assert m.get_configs(BROKER0) == {}
    m.replay(config_record(TOPIC, "mytopic", "abc", "x,y,z").message)
    m.replay(config_record(TOPIC, "mytopic", "def", "blah").message)
    assert m.get_configs(MYTOPIC) == {"abc": "x,y,z", "def": "blah"}
    assert m.get_topic_config(MYTOPIC[1], "abc").value == "x,y,z"


def test_incremental_alter_configs() -> None:
    m = manager()
    result = m.incremental_alter_configs({BROKER0: {"baz": (SUBTRACT, "abc"), "quux": (SET, "abc")},
                                          MYTOPIC: {"abc": (APPEND, "123")}}, True)
    assert result == ControllerResult.atomic_of(
        [config_record(TOPIC, "mytopic", "abc", "123")],
        {BROKER0: ApiError(Errors.INVALID_CONFIG, "Can't SUBTRACT to key baz because its type is not LIST."),
         MYTOPIC: ApiError.NONE})
    replay_all(m, result.records)
    assert m.incremental_alter_configs({MYTOPIC: {"abc": (DELETE, "xyz")}}, True) == ControllerResult.atomic_of(
        [config_record(TOPIC, "mytopic", "abc", None)], {MYTOPIC: ApiError.NONE})


def test_incremental_alter_config() -> None:
    m = manager()
    result = m.incremental_alter_config(MYTOPIC, {"abc": (APPEND, "123")}, True)
    assert result == ControllerResult.atomic_of([config_record(TOPIC, "mytopic", "abc", "123")], ApiError.NONE)
    replay_all(m, result.records)
    assert m.incremental_alter_config(MYTOPIC, {"abc": (DELETE, "xyz")}, True) == ControllerResult.atomic_of(
        [config_record(TOPIC, "mytopic", "abc", None)], ApiError.NONE)


def test_incremental_alter_multiple_config_values() -> None:
    m = manager()
    result = m.incremental_alter_configs({MYTOPIC: {"abc": (APPEND, "123,456,789")}}, True)
    assert result == ControllerResult.atomic_of([config_record(TOPIC, "mytopic", "abc", "123,456,789")],
                                                {MYTOPIC: ApiError.NONE})
    replay_all(m, result.records)
    # appending values already there is fine
    result = m.incremental_alter_configs({MYTOPIC: {"abc": (APPEND, "123,456")}}, True)
    assert result == ControllerResult.atomic_of([], {MYTOPIC: ApiError.NONE})
    replay_all(m, result.records)
    result = m.incremental_alter_configs({MYTOPIC: {"abc": (SUBTRACT, "123,456")}}, True)
    assert result == ControllerResult.atomic_of([config_record(TOPIC, "mytopic", "abc", "789")],
                                                {MYTOPIC: ApiError.NONE})
    replay_all(m, result.records)
    # and so is subtracting a value that is not there
    result = m.incremental_alter_configs({MYTOPIC: {"abc": (SUBTRACT, "123456")}}, True)
    assert result == ControllerResult.atomic_of([], {MYTOPIC: ApiError.NONE})
    replay_all(m, result.records)
    assert m.get_configs(MYTOPIC)["abc"] == "789"


def test_incremental_alter_configs_without_existence() -> None:
    m = manager(existence_checker=existence_checker)
    existing_topic = (TOPIC, "ExistingTopic")
    result = m.incremental_alter_configs({BROKER0: {"quux": (SET, "1")},
                                          existing_topic: {"def": (SET, "newVal")}}, False)
    assert result == ControllerResult.atomic_of(
        [config_record(TOPIC, "ExistingTopic", "def", "newVal")],
        {BROKER0: ApiError(Errors.UNKNOWN_TOPIC_OR_PARTITION, "Unknown resource."), existing_topic: ApiError.NONE})


class MockAlterConfigsPolicy(AlterConfigPolicy):
    def __init__(self, expecteds: list[RequestMetadata]) -> None:
        self.expecteds = expecteds
        self.index = 0

    def validate(self, actual: RequestMetadata) -> None:
        cur_index = self.index
        self.index += 1
        if cur_index >= len(self.expecteds):
            raise PolicyViolationException(f"Unexpected config alteration: index out of range at {cur_index}")
        expected = self.expecteds[cur_index]
        if expected != actual:
            raise PolicyViolationException(f"Expected: {expected}. Got: {actual}")


def test_incremental_alter_configs_with_policy() -> None:
    policy = MockAlterConfigsPolicy([
        RequestMetadata(MYTOPIC, {}),
        RequestMetadata(BROKER0, {"foo.bar": "123", "quux": "456", "broker.config.to.remove": None})])
    m = manager(alter_config_policy=policy)
    # configs already there are not passed to the policy
    m.replay(config_record(BROKER, "0", "broker.config", "123").message)
    m.replay(config_record(TOPIC, MYTOPIC[1], "topic.config", "123").message)
    m.replay(config_record(BROKER, "0", "broker.config.to.remove", "123").message)
    expected_message = (f"Expected: {RequestMetadata(MYTOPIC, {})}. "
                        f"Got: {RequestMetadata(MYTOPIC, {'foo.bar': '123'})}")
    assert m.incremental_alter_configs({
        MYTOPIC: {"foo.bar": (SET, "123")},
        BROKER0: {"foo.bar": (SET, "123"), "quux": (SET, "456"), "broker.config.to.remove": (DELETE, None)},
    }, True) == ControllerResult.atomic_of(
        [config_record(BROKER, "0", "foo.bar", "123"), config_record(BROKER, "0", "quux", "456"),
         config_record(BROKER, "0", "broker.config.to.remove", None)],
        {MYTOPIC: ApiError(Errors.POLICY_VIOLATION, expected_message), BROKER0: ApiError.NONE})


class CheckForNullValuesPolicy(AlterConfigPolicy):
    def validate(self, actual: RequestMetadata) -> None:
        for value in actual.configs.values():
            if value is None:
                raise PolicyViolationException("Legacy Alter Configs should not see null values")


def test_legacy_alter_configs() -> None:
    m = manager(alter_config_policy=CheckForNullValuesPolicy())
    expected_records1 = [config_record(TOPIC, "mytopic", "abc", "456"), config_record(TOPIC, "mytopic", "def", "901")]
    assert m.legacy_alter_configs({MYTOPIC: {"abc": "456", "def": "901"}}, True) == ControllerResult.atomic_of(
        expected_records1, {MYTOPIC: ApiError.NONE})
    for message in expected_records1:
        m.replay(message.message)
    assert m.legacy_alter_configs({MYTOPIC: {"def": "901"}}, True) == ControllerResult.atomic_of(
        [config_record(TOPIC, "mytopic", "abc", None)], {MYTOPIC: ApiError.NONE})
