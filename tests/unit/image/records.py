"""Metadata records as the 3.9 controller writes them at metadata.version 3.9-IV0, for the image tests."""

from __future__ import annotations

import uuid

from kafka_edu.v3_9.metadata.common.metadata import (
    ApiMessageAndVersion,
    BrokerEndpoint,
    BrokerFeature,
    BrokerRegistrationChangeRecord,
    ConfigRecord,
    FeatureLevelRecord,
    NoOpRecord,
    PartitionChangeRecord,
    PartitionRecord,
    RegisterBrokerRecord,
    RemoveTopicRecord,
    TopicRecord,
)
from kafka_edu.v3_9.metadata.controller.configuration_control_manager import ConfigResourceType

ORDERS = uuid.UUID(int=0xA1)
PAYMENTS = uuid.UUID(int=0xB2)
DIRECTORY = uuid.UUID(int=0xD1)


def feature_level(level: int = 21, name: str = "metadata.version") -> ApiMessageAndVersion:
    return ApiMessageAndVersion(FeatureLevelRecord(name=name, feature_level=level), 0)


def register_broker(broker_id: int, epoch: int) -> ApiMessageAndVersion:
    return ApiMessageAndVersion(RegisterBrokerRecord(
        broker_id=broker_id, incarnation_id=uuid.UUID(int=1000 + broker_id), broker_epoch=epoch,
        end_points=(BrokerEndpoint(name="PLAINTEXT", host="127.0.0.1", port=9092 + broker_id, security_protocol=0),),
        features=(BrokerFeature(name="metadata.version", min_supported_version=1, max_supported_version=21),),
        rack=None, fenced=True, log_dirs=(DIRECTORY,)), 3)


def unfence(broker_id: int, epoch: int) -> ApiMessageAndVersion:
    return ApiMessageAndVersion(BrokerRegistrationChangeRecord(broker_id=broker_id, broker_epoch=epoch, fenced=-1), 0)


def topic(name: str, topic_id: uuid.UUID) -> ApiMessageAndVersion:
    return ApiMessageAndVersion(TopicRecord(name=name, topic_id=topic_id), 0)


def partition(topic_id: uuid.UUID, partition_id: int, replicas: tuple[int, ...]) -> ApiMessageAndVersion:
    return ApiMessageAndVersion(PartitionRecord(
        partition_id=partition_id, topic_id=topic_id, replicas=replicas, isr=replicas, leader=replicas[0],
        leader_epoch=0, partition_epoch=0, directories=tuple(DIRECTORY for _ in replicas)), 1)


def change_leader(topic_id: uuid.UUID, partition_id: int, leader: int, isr: tuple[int, ...]) -> ApiMessageAndVersion:
    return ApiMessageAndVersion(PartitionChangeRecord(partition_id=partition_id, topic_id=topic_id, leader=leader,
                                                      isr=isr), 1)


def config(topic_name: str, name: str, value: str | None) -> ApiMessageAndVersion:
    return ApiMessageAndVersion(ConfigRecord(resource_type=int(ConfigResourceType.TOPIC), resource_name=topic_name,
                                             name=name, value=value), 0)


def remove_topic(topic_id: uuid.UUID) -> ApiMessageAndVersion:
    return ApiMessageAndVersion(RemoveTopicRecord(topic_id=topic_id), 0)


def no_op() -> ApiMessageAndVersion:
    return ApiMessageAndVersion(NoOpRecord(), 0)


def cluster_records() -> list[ApiMessageAndVersion]:
    """What a small cluster's log holds: metadata.version, two brokers registered and unfenced, a topic of three
    partitions with a config, a leader change, another topic."""
    return [feature_level(), register_broker(2, 10), register_broker(1, 11), unfence(1, 11), unfence(2, 10),
            topic("orders", ORDERS), partition(ORDERS, 0, (1, 2)), partition(ORDERS, 2, (2, 1)),
            partition(ORDERS, 1, (1, 2)), config("orders", "retention.ms", "3600000"),
            change_leader(ORDERS, 0, 2, (2,)), topic("payments", PAYMENTS), partition(PAYMENTS, 0, (2,)), no_op()]
