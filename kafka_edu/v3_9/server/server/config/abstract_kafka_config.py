"""Port of server/src/main/java/org/apache/kafka/server/config/AbstractKafkaConfig.java (Kafka 3.9): the broker's
ConfigDef, merged from the config classes of each module, and the base of KafkaConfig."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kafka_edu.v3_9.clients.common.config.config_def import AbstractConfig, ConfigDef, merge_configs
from kafka_edu.v3_9.clients.common.config.internals import broker_security_configs
from kafka_edu.v3_9.group_coordinator.coordinator.group import group_coordinator_config
from kafka_edu.v3_9.raft.raft import quorum_config
from kafka_edu.v3_9.server.network import socket_server_configs
from kafka_edu.v3_9.server.server.config import (
    delegation_token_manager_configs,
    kraft_configs,
    replication_configs,
    server_configs,
    share_group_config,
    zk_configs,
)
from kafka_edu.v3_9.server.server.metrics import metric_configs
from kafka_edu.v3_9.server_common.security import password_encoder_configs
from kafka_edu.v3_9.server_common.server.config import quota_configs
from kafka_edu.v3_9.storage.server.log.remote.storage import remote_log_manager_config
from kafka_edu.v3_9.storage.storage.internals.log import cleaner_config, log_config
from kafka_edu.v3_9.transaction_coordinator.coordinator.transaction import (
    transaction_log_configs,
    transaction_state_manager_configs,
)

CONFIG_DEF: ConfigDef = merge_configs([
    remote_log_manager_config.config_def(),
    zk_configs.CONFIG_DEF,
    server_configs.CONFIG_DEF,
    kraft_configs.CONFIG_DEF,
    socket_server_configs.CONFIG_DEF,
    replication_configs.CONFIG_DEF,
    group_coordinator_config.GROUP_COORDINATOR_CONFIG_DEF,
    group_coordinator_config.NEW_GROUP_CONFIG_DEF,
    group_coordinator_config.OFFSET_MANAGEMENT_CONFIG_DEF,
    group_coordinator_config.CONSUMER_GROUP_CONFIG_DEF,
    group_coordinator_config.SHARE_GROUP_CONFIG_DEF,
    cleaner_config.CONFIG_DEF,
    log_config.SERVER_CONFIG_DEF,
    share_group_config.CONFIG_DEF,
    transaction_log_configs.CONFIG_DEF,
    transaction_state_manager_configs.CONFIG_DEF,
    quorum_config.CONFIG_DEF,
    metric_configs.CONFIG_DEF,
    quota_configs.CONFIG_DEF,
    broker_security_configs.CONFIG_DEF,
    delegation_token_manager_configs.CONFIG_DEF,
    password_encoder_configs.CONFIG_DEF,
])


class AbstractKafkaConfig(AbstractConfig):
    def __init__(self, definition: ConfigDef, originals: Mapping[str, Any], do_log: bool = True) -> None:
        super().__init__(definition, originals, do_log)
