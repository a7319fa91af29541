"""Test helpers of ReplicationControlManagerTest (Kafka 3.9), ported: MockRandom (server-common's),
FakeKafkaConfigSchema, RecordTestUtils.replayAll and ControllerRequestContextUtil."""

from __future__ import annotations

import random
from collections.abc import Iterable, MutableSequence
from typing import Any

from kio.schema.request_header.v2.header import RequestHeader
from kio.static.primitive import i16, i32

from kafka_edu.v1_0_2.clients.common.config.config_def import ConfigDef, Type
from kafka_edu.v3_9.clients.common.protocol.api_keys import ApiKeys
from kafka_edu.v3_9.metadata.controller.configuration_control_manager import ConfigResourceType
from kafka_edu.v3_9.metadata.controller.controller_request_context import ControllerRequestContext
from kafka_edu.v3_9.metadata.metadata.kafka_config_schema import KafkaConfigSchema
from kafka_edu.v3_9.server_common.server.config.server_topic_config_synonyms import ConfigSynonym

_MASK_64 = (1 << 64) - 1


def _int32(value: int) -> int:
    """Java's (int) cast."""
    value &= 0xFFFFFFFF
    return value - (1 << 32) if value >= 1 << 31 else value


class MockRandom(random.Random):
    """MockRandom: java.util.Random with a fixed seed and generator (state * 2862933555777941757 + 3037000493), so
    the replica placer's choices are the ones Kafka's test sees. The placer asks `randrange(n)` (nextInt(n)) and
    `shuffle` (Collections.shuffle); both are Java's algorithms here."""

    def __init__(self, state: int = 17) -> None:
        super().__init__(0)
        self._state = state & _MASK_64

    def _next(self, bits: int) -> int:
        self._state = (self._state * 2862933555777941757 + 3037000493) & _MASK_64
        return _int32(self._state >> (64 - bits))

    def next_int(self, bound: int) -> int:
        """Random.nextInt(bound)."""
        if bound <= 0:
            raise ValueError("bound must be positive")
        r = self._next(31)
        m = bound - 1
        if bound & m == 0:  # a power of two
            return _int32((bound * r) >> 31)
        u = r
        while True:
            r = u % bound
            if _int32(u - r + m) >= 0:
                return r
            u = self._next(31)

    def randrange(self, start: int, stop: int | None = None, step: int = 1) -> int:  # type: ignore[override]
        if stop is not None or step != 1:
            raise NotImplementedError("only randrange(n), as nextInt(n)")
        return self.next_int(start)

    def shuffle(self, x: MutableSequence[Any]) -> None:  # type: ignore[override]
        """Collections.shuffle(list, rnd)."""
        for i in range(len(x), 1, -1):
            j = self.next_int(i)
            x[i - 1], x[j] = x[j], x[i - 1]


def _fake_config_def() -> ConfigDef:
    return (ConfigDef()
            .define("unclean.leader.election.enable", Type.BOOLEAN, "false")
            .define("min.insync.replicas", Type.INT, "1"))


# FakeKafkaConfigSchema.INSTANCE
FAKE_KAFKA_CONFIG_SCHEMA = KafkaConfigSchema(
    {ConfigResourceType.BROKER: _fake_config_def(), ConfigResourceType.TOPIC: _fake_config_def()},
    {"unclean.leader.election.enable": [ConfigSynonym("unclean.leader.election.enable")],
     "min.insync.replicas": [ConfigSynonym("min.insync.replicas")]})


def anonymous_context_for(api_key: ApiKeys, version: int | None = None) -> ControllerRequestContext:
    """ControllerRequestContextUtil.anonymousContextFor: a request header of the API (at its latest version unless
    given one), the anonymous principal, no deadline."""
    latest = {ApiKeys.CREATE_TOPICS: 7, ApiKeys.DELETE_TOPICS: 6, ApiKeys.CREATE_PARTITIONS: 3,
              ApiKeys.ALTER_PARTITION: 3}
    header = RequestHeader(request_api_key=i16(int(api_key)),
                           request_api_version=i16(latest[api_key] if version is None else version),
                           correlation_id=i32(0), client_id=None)
    return ControllerRequestContext(header)


def replay_all(target: Any, records: Iterable[Any]) -> None:
    """RecordTestUtils.replayAll: each record the target has a replay method for (RegisterBrokerRecord at offset
    0); the port names each manager's replay methods by record."""
    methods = {
        "ClusterControlManager": {
            "RegisterBrokerRecord": lambda r: target.replay_register_broker(r, 0),
            "UnregisterBrokerRecord": lambda r: target.replay_unregister_broker(r),
            "FenceBrokerRecord": lambda r: target.replay_fence_broker(r),
            "UnfenceBrokerRecord": lambda r: target.replay_unfence_broker(r),
            "BrokerRegistrationChangeRecord": lambda r: target.replay_broker_registration_change(r),
        },
        "ConfigurationControlManager": {"ConfigRecord": lambda r: target.replay(r)},
        "ReplicationControlManager": {
            "TopicRecord": lambda r: target.replay_topic(r),
            "PartitionRecord": lambda r: target.replay_partition(r),
            "PartitionChangeRecord": lambda r: target.replay_partition_change(r),
            "RemoveTopicRecord": lambda r: target.replay_remove_topic(r),
        },
    }[type(target).__name__]
    for record in records:
        replay = methods.get(type(record.message).__name__)
        if replay is not None:
            replay(record.message)
