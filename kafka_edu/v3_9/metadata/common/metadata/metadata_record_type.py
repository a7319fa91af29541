"""Port of MetadataRecordType, which Kafka 3.9 generates from metadata/src/main/resources/common/metadata/*.json."""

from __future__ import annotations

import enum
from typing import Any

from kafka_edu.v1_0_2.clients.common.errors import UnsupportedVersionException
from kafka_edu.v3_9.metadata.common.metadata.abort_transaction_record import AbortTransactionRecord
from kafka_edu.v3_9.metadata.common.metadata.access_control_entry_record import AccessControlEntryRecord
from kafka_edu.v3_9.metadata.common.metadata.begin_transaction_record import BeginTransactionRecord
from kafka_edu.v3_9.metadata.common.metadata.broker_registration_change_record import BrokerRegistrationChangeRecord
from kafka_edu.v3_9.metadata.common.metadata.client_quota_record import ClientQuotaRecord
from kafka_edu.v3_9.metadata.common.metadata.config_record import ConfigRecord
from kafka_edu.v3_9.metadata.common.metadata.end_transaction_record import EndTransactionRecord
from kafka_edu.v3_9.metadata.common.metadata.feature_level_record import FeatureLevelRecord
from kafka_edu.v3_9.metadata.common.metadata.fence_broker_record import FenceBrokerRecord
from kafka_edu.v3_9.metadata.common.metadata.no_op_record import NoOpRecord
from kafka_edu.v3_9.metadata.common.metadata.partition_change_record import PartitionChangeRecord
from kafka_edu.v3_9.metadata.common.metadata.partition_record import PartitionRecord
from kafka_edu.v3_9.metadata.common.metadata.producer_ids_record import ProducerIdsRecord
from kafka_edu.v3_9.metadata.common.metadata.register_broker_record import RegisterBrokerRecord
from kafka_edu.v3_9.metadata.common.metadata.remove_access_control_entry_record import (
    RemoveAccessControlEntryRecord,
)
from kafka_edu.v3_9.metadata.common.metadata.remove_topic_record import RemoveTopicRecord
from kafka_edu.v3_9.metadata.common.metadata.remove_user_scram_credential_record import (
    RemoveUserScramCredentialRecord,
)
from kafka_edu.v3_9.metadata.common.metadata.topic_record import TopicRecord
from kafka_edu.v3_9.metadata.common.metadata.unfence_broker_record import UnfenceBrokerRecord
from kafka_edu.v3_9.metadata.common.metadata.unregister_broker_record import UnregisterBrokerRecord
from kafka_edu.v3_9.metadata.common.metadata.user_scram_credential_record import UserScramCredentialRecord


class MetadataRecordType(enum.Enum):
    """The metadata record types this port knows: id (the frame's api key), class, and the versions it frames.

    Kafka's enum spans each JSON's validVersions. One kio class here holds one untagged layout, so its range stops
    where an untagged field comes or goes (see each class's docstring); the record types not listed (delegation
    tokens, ZK migration, controller registration...) are not ported.
    """

    REGISTER_BROKER_RECORD = 0, RegisterBrokerRecord, 2, 3
    UNREGISTER_BROKER_RECORD = 1, UnregisterBrokerRecord, 0, 0
    TOPIC_RECORD = 2, TopicRecord, 0, 0
    PARTITION_RECORD = 3, PartitionRecord, 1, 2
    CONFIG_RECORD = 4, ConfigRecord, 0, 0
    PARTITION_CHANGE_RECORD = 5, PartitionChangeRecord, 0, 2
    FENCE_BROKER_RECORD = 7, FenceBrokerRecord, 0, 0
    UNFENCE_BROKER_RECORD = 8, UnfenceBrokerRecord, 0, 0
    REMOVE_TOPIC_RECORD = 9, RemoveTopicRecord, 0, 0
    USER_SCRAM_CREDENTIAL_RECORD = 11, UserScramCredentialRecord, 0, 0
    FEATURE_LEVEL_RECORD = 12, FeatureLevelRecord, 0, 0
    CLIENT_QUOTA_RECORD = 14, ClientQuotaRecord, 0, 0
    PRODUCER_IDS_RECORD = 15, ProducerIdsRecord, 0, 0
    BROKER_REGISTRATION_CHANGE_RECORD = 17, BrokerRegistrationChangeRecord, 0, 2
    ACCESS_CONTROL_ENTRY_RECORD = 18, AccessControlEntryRecord, 0, 0
    REMOVE_ACCESS_CONTROL_ENTRY_RECORD = 19, RemoveAccessControlEntryRecord, 0, 0
    NO_OP_RECORD = 20, NoOpRecord, 0, 0
    REMOVE_USER_SCRAM_CREDENTIAL_RECORD = 22, RemoveUserScramCredentialRecord, 0, 0
    BEGIN_TRANSACTION_RECORD = 23, BeginTransactionRecord, 0, 0
    END_TRANSACTION_RECORD = 24, EndTransactionRecord, 0, 0
    ABORT_TRANSACTION_RECORD = 25, AbortTransactionRecord, 0, 0

    record_class: type[Any]
    lowest_supported_version: int
    highest_supported_version: int

    def __new__(cls, id: int, record_class: type[Any], lowest: int, highest: int) -> MetadataRecordType:
        member = object.__new__(cls)
        member._value_ = id
        member.record_class = record_class
        member.lowest_supported_version = lowest
        member.highest_supported_version = highest
        return member

    @property
    def id(self) -> int:
        return self.value

    @classmethod
    def from_id(cls, id: int) -> MetadataRecordType:
        try:
            return cls(id)
        except ValueError:
            raise UnsupportedVersionException(f"Unknown metadata id {id}") from None

    @classmethod
    def for_message(cls, message: Any) -> MetadataRecordType:
        """The type of a record (Kafka: fromId(message.apiKey())), as QuorumController.replay dispatches on it."""
        return cls.for_message_class(type(message))

    @classmethod
    def for_message_class(cls, record_class: type[Any]) -> MetadataRecordType:
        api_key = getattr(record_class, "__api_key__", None)
        if api_key is None or cls.from_id(api_key).record_class is not record_class:
            raise UnsupportedVersionException(f"{record_class.__name__} is not a metadata record")
        return cls.from_id(api_key)

    def new_metadata_record(self) -> type[Any]:
        """Kafka returns an empty message to read into; kio builds the instance on read, so this is the class."""
        return self.record_class

    def __str__(self) -> str:
        return self.record_class.__name__
