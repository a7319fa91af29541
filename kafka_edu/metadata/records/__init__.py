"""The metadata records of Kafka 3.9 (metadata/src/main/resources/common/metadata/*.json) as kio-style classes."""

from kafka_edu.metadata.records.abort_transaction_record import AbortTransactionRecord
from kafka_edu.metadata.records.begin_transaction_record import BeginTransactionRecord
from kafka_edu.metadata.records.broker_registration_change_record import BrokerRegistrationChangeRecord
from kafka_edu.metadata.records.config_record import ConfigRecord
from kafka_edu.metadata.records.end_transaction_record import EndTransactionRecord
from kafka_edu.metadata.records.feature_level_record import FeatureLevelRecord
from kafka_edu.metadata.records.fence_broker_record import FenceBrokerRecord
from kafka_edu.metadata.records.metadata_record_type import MetadataRecordType
from kafka_edu.metadata.records.no_op_record import NoOpRecord
from kafka_edu.metadata.records.partition_change_record import PartitionChangeRecord
from kafka_edu.metadata.records.partition_record import PartitionRecord
from kafka_edu.metadata.records.producer_ids_record import ProducerIdsRecord
from kafka_edu.metadata.records.register_broker_record import BrokerEndpoint, BrokerFeature, RegisterBrokerRecord
from kafka_edu.metadata.records.remove_topic_record import RemoveTopicRecord
from kafka_edu.metadata.records.topic_record import TopicRecord
from kafka_edu.metadata.records.unfence_broker_record import UnfenceBrokerRecord
from kafka_edu.metadata.records.unregister_broker_record import UnregisterBrokerRecord
from kafka_edu.server.common.api_message_and_version import ApiMessageAndVersion

__all__ = [
    "AbortTransactionRecord",
    "ApiMessageAndVersion",
    "BeginTransactionRecord",
    "BrokerEndpoint",
    "BrokerFeature",
    "BrokerRegistrationChangeRecord",
    "ConfigRecord",
    "EndTransactionRecord",
    "FeatureLevelRecord",
    "FenceBrokerRecord",
    "MetadataRecordType",
    "NoOpRecord",
    "PartitionChangeRecord",
    "PartitionRecord",
    "ProducerIdsRecord",
    "RegisterBrokerRecord",
    "RemoveTopicRecord",
    "TopicRecord",
    "UnfenceBrokerRecord",
    "UnregisterBrokerRecord",
]
