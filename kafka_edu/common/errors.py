"""Kafka's exception classes that the port raises, named as in Kafka so traces and messages match.

Ports classes from core/src/main/scala/kafka/common/ and clients' org.apache.kafka.common.errors (Kafka 1.0.2).
"""

from __future__ import annotations


class KafkaException(RuntimeError):
    """kafka.common.KafkaException / org.apache.kafka.common.KafkaException."""


class IllegalStateException(RuntimeError):
    """java.lang.IllegalStateException."""


class IllegalArgumentException(ValueError):
    """java.lang.IllegalArgumentException."""


class InconsistentBrokerIdException(KafkaException):
    pass


class GenerateBrokerIdException(KafkaException):
    pass


class ZkException(KafkaException):
    """org.I0Itec.zkclient.exception.ZkException: ZooKeeper could not be used."""


class ZkTimeoutException(ZkException):
    """org.I0Itec.zkclient.exception.ZkTimeoutException: no session within the connection timeout."""


class ZkNodeExistsException(ZkException):
    pass
