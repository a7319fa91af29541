"""Port of core/src/main/java/kafka/server/logger/RuntimeLoggerManager.java (Kafka 3.9): log levels changed at
runtime by an IncrementalAlterConfigs on a BROKER_LOGGER resource (KIP-412). Nothing is persisted."""

from __future__ import annotations

import logging
from typing import Any

from kafka_edu.v1_0_2.clients.common.errors import (
    ClusterAuthorizationException,
    InvalidConfigurationException,
    InvalidRequestException,
)
from kafka_edu.v3_9.core.utils import log4j_controller as Log4jController

# LogLevelConfig.VALID_LOG_LEVELS
VALID_LOG_LEVELS = frozenset({"FATAL", "ERROR", "WARN", "INFO", "DEBUG", "TRACE"})
VALID_LOG_LEVELS_STRING = ", ".join(sorted(VALID_LOG_LEVELS))

# AlterConfigOp.OpType ids
SET, DELETE, APPEND, SUBTRACT = 0, 1, 2, 3
BROKER_LOGGER = "BROKER_LOGGER"


class RuntimeLoggerManager:
    def __init__(self, node_id: int, log: logging.Logger) -> None:
        self.node_id = node_id
        self.log = log

    def apply_changes_for_resource(self, authorized_for_cluster_resource: bool, validate_only: bool,
                                   resource: Any) -> None:
        """`resource`: an IncrementalAlterConfigsRequest's AlterConfigsResource."""
        if not authorized_for_cluster_resource:
            raise ClusterAuthorizationException("Cluster authorization failed.")
        self.validate_resource_name_is_node_id(resource.resource_name)
        self.validate_log_level_configs(resource.configs)
        if not validate_only:
            self.alter_log_level_configs(resource.configs)

    def alter_log_level_configs(self, ops: Any) -> None:
        for op in ops:
            logger_name, log_level = op.name, op.value
            if op.config_operation == SET:
                if Log4jController.log_level(logger_name, log_level):
                    self.log.warning("Updated the log level of %s to %s", logger_name, log_level)
                else:
                    self.log.error("Failed to update the log level of %s to %s", logger_name, log_level)
            elif op.config_operation == DELETE:
                if Log4jController.unset_log_level(logger_name):
                    self.log.warning("Unset the log level of %s", logger_name)
                else:
                    self.log.error("Failed to unset the log level of %s", logger_name)
            else:
                raise ValueError(f"Invalid log4j configOperation: {op.config_operation}")

    def validate_resource_name_is_node_id(self, resource_name: str) -> None:
        try:
            request_id = int(resource_name)
        except ValueError:
            raise InvalidRequestException(f"Node id must be an integer, but it is: {resource_name}") from None
        if request_id != self.node_id:
            # 3.9's message names its own id twice
            raise InvalidRequestException(f"Unexpected node id. Expected {self.node_id}, but received {self.node_id}")

    def validate_logger_name_exists(self, logger_name: str) -> None:
        if not Log4jController.logger_exists(logger_name):
            raise InvalidConfigurationException(f"Logger {logger_name} does not exist!")

    def validate_log_level_configs(self, ops: Any) -> None:
        for op in ops:
            logger_name = op.name
            if op.config_operation == SET:
                self.validate_logger_name_exists(logger_name)
                if op.value not in VALID_LOG_LEVELS:
                    raise InvalidConfigurationException(
                        f"Cannot set the log level of {logger_name} to {op.value} as it is not a supported log "
                        f"level. Valid log levels are {VALID_LOG_LEVELS_STRING}")
            elif op.config_operation == DELETE:
                self.validate_logger_name_exists(logger_name)
                if logger_name == Log4jController.ROOT_LOGGER:
                    raise InvalidRequestException(
                        f"Removing the log level of the {Log4jController.ROOT_LOGGER} logger is not allowed")
            elif op.config_operation == APPEND:
                raise InvalidRequestException(f"APPEND operation is not allowed for the {BROKER_LOGGER} resource")
            elif op.config_operation == SUBTRACT:
                raise InvalidRequestException(f"SUBTRACT operation is not allowed for the {BROKER_LOGGER} resource")
            else:
                raise InvalidRequestException(f"Unknown operation type {op.config_operation} is not allowed for the "
                                              f"{BROKER_LOGGER} resource")
