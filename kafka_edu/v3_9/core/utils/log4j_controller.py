"""Port of core/src/main/scala/kafka/utils/Log4jController.scala (Kafka 3.9): the broker's loggers and their levels,
read and changed at runtime (DescribeConfigs and IncrementalAlterConfigs on a BROKER_LOGGER resource).

Python's logging stands for log4j: the root logger is "root", log4j's WARN and FATAL are WARNING and CRITICAL, and
TRACE (which Python lacks) is level 5.
"""

from __future__ import annotations

import logging

ROOT_LOGGER = "root"

_LEVELS = {"TRACE": 5, "DEBUG": logging.DEBUG, "INFO": logging.INFO, "WARN": logging.WARNING,
           "ERROR": logging.ERROR, "FATAL": logging.CRITICAL}


def _logger(logger_name: str) -> logging.Logger:
    return logging.getLogger() if logger_name == ROOT_LOGGER else logging.getLogger(logger_name)


def logger_exists(logger_name: str) -> bool:
    return logger_name == ROOT_LOGGER or isinstance(logging.Logger.manager.loggerDict.get(logger_name),
                                                    logging.Logger)


def log_level(logger_name: str, level: str) -> bool:
    """Sets a logger's level; False for an empty name or an unknown level."""
    if not logger_name or level.upper() not in _LEVELS:
        return False
    _logger(logger_name).setLevel(_LEVELS[level.upper()])
    return True


def unset_log_level(logger_name: str) -> bool:
    """The logger's level goes back to its parent's (the root's own level cannot be unset)."""
    if logger_name == ROOT_LOGGER or not logger_exists(logger_name):
        return False
    _logger(logger_name).setLevel(logging.NOTSET)
    return True
