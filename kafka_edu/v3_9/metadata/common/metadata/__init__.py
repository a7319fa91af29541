"""The metadata records of Kafka 3.9 (metadata/src/main/resources/common/metadata/*.json) as kio-style classes."""

from kafka_edu.v3_9.metadata.common.metadata.abort_transaction_record import AbortTransactionRecord
from kafka_edu.v3_9.metadata.common.metadata.begin_transaction_record import BeginTransactionRecord
from kafka_edu.v3_9.metadata.common.metadata.broker_registration_change_record import BrokerRegistrationChangeRecord
from kafka_edu.v3_9.metadata.common.metadata.client_quota_record import ClientQuotaRecord
from kafka_edu.v3_9.metadata.common.metadata.config_record import ConfigRecord
from kafka_edu.v3_9.metadata.common.metadata.end_transaction_record import EndTransactionRecord
from kafka_edu.v3_9.metadata.common.metadata.feature_level_record import FeatureLevelRecord
from kafka_edu.v3_9.metadata.common.metadata.fence_broker_record import FenceBrokerRecord
from kafka_edu.v3_9.metadata.common.metadata.metadata_record_type import MetadataRecordType
from kafka_edu.v3_9.metadata.common.metadata.no_op_record import NoOpRecord
from kafka_edu.v3_9.metadata.common.metadata.partition_change_record import PartitionChangeRecord
from kafka_edu.v3_9.metadata.common.metadata.partition_record import PartitionRecord
from kafka_edu.v3_9.metadata.common.metadata.producer_ids_record import ProducerIdsRecord
from kafka_edu.v3_9.metadata.common.metadata.register_broker_record import (
    BrokerEndpoint,
    BrokerFeature,
    RegisterBrokerRecord,
)
from kafka_edu.v3_9.metadata.common.metadata.remove_topic_record import RemoveTopicRecord
from kafka_edu.v3_9.metadata.common.metadata.remove_user_scram_credential_record import (
    RemoveUserScramCredentialRecord,
)
from kafka_edu.v3_9.metadata.common.metadata.topic_record import TopicRecord
from kafka_edu.v3_9.metadata.common.metadata.unfence_broker_record import UnfenceBrokerRecord
from kafka_edu.v3_9.metadata.common.metadata.unregister_broker_record import UnregisterBrokerRecord
from kafka_edu.v3_9.metadata.common.metadata.user_scram_credential_record import UserScramCredentialRecord
from kafka_edu.v3_9.server_common.server.common.api_message_and_version import ApiMessageAndVersion

__all__ = [
    "AbortTransactionRecord",
    "ApiMessageAndVersion",
    "BeginTransactionRecord",
    "BrokerEndpoint",
    "BrokerFeature",
    "BrokerRegistrationChangeRecord",
    "ClientQuotaRecord",
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
    "RemoveUserScramCredentialRecord",
    "TopicRecord",
    "UnfenceBrokerRecord",
    "UnregisterBrokerRecord",
    "UserScramCredentialRecord",
]
