"""Port of core/src/main/scala/kafka/server/AutoTopicCreationManager.scala (Kafka 3.9): DefaultAutoTopicCreationManager.

A KRaft broker that is asked for metadata of a topic that does not exist (or needs `__consumer_offsets`) asks the
active controller to create it with a CreateTopics request of its own, on the forwarding channel, and tells the
client LEADER_NOT_AVAILABLE meanwhile: the client retries, and the topic appears once the controller has committed
it and this broker has published it. One request per topic at a time (the in-flight set).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

from kio.schema.create_topics.v7 import request as create_topics_request

from kafka_edu.v3_9.clients.common.internals.topic import GROUP_METADATA_TOPIC_NAME, TRANSACTION_STATE_TOPIC_NAME
from kafka_edu.v3_9.clients.common.protocol.api_keys import ApiKeys
from kafka_edu.v3_9.clients.common.protocol.builder import build
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from kafka_edu.v3_9.core.server.node_to_controller_channel_manager import (
    ClientResponse,
    ControllerRequest,
    NodeToControllerChannelManagerImpl,
)

log = logging.getLogger("kafka.server.DefaultAutoTopicCreationManager")

CREATE_TOPICS_VERSION = 7
DEFAULT_TIMEOUT_MS = 30_000  # 3.9 uses the broker's request timeout for the controller


class DefaultAutoTopicCreationManager:
    def __init__(self, config: Any, channel_manager: NodeToControllerChannelManagerImpl,
                 group_topic_configs: Callable[[], dict[str, str]],
                 txn_topic_configs: Callable[[], dict[str, str]] | None = None) -> None:
        self.config = config
        self.channel_manager = channel_manager
        self.group_topic_configs = group_topic_configs
        self.txn_topic_configs = txn_topic_configs or dict
        self.inflight_topics: set[str] = set()
        self._lock = threading.Lock()

    def create_topics(self, topics: set[str]) -> dict[str, Errors]:
        """Ask the controller to create these topics; the error to tell the client for each meanwhile."""
        creatable, uncreatable = self.filter_creatable_topics(topics)
        if creatable:
            self.send_create_topic_request(creatable)
        return {**{topic: Errors.LEADER_NOT_AVAILABLE for topic in creatable}, **uncreatable}

    def send_create_topic_request(self, creatable_topics: dict[str, dict[str, Any]]) -> None:
        request = build(create_topics_request.CreateTopicsRequest, timeout=DEFAULT_TIMEOUT_MS, validate_only=False,
                        topics=list(creatable_topics.values()))
        names = set(creatable_topics)

        manager = self

        class _Handler:
            def on_complete(self, response: ClientResponse) -> None:
                manager.clear_inflight_requests(names)
                if response.authentication_exception is not None or response.version_mismatch is not None:
                    log.warning("Auto topic creation failed for %s: %s", names,
                                response.authentication_exception or response.version_mismatch)
                elif response.response_body is not None:
                    log.debug("Auto topic creation completed for %s with response %s", names, response.response_body)

            def on_timeout(self) -> None:
                manager.clear_inflight_requests(names)
                log.debug("Auto topic creation timed out for %s.", names)

        log.info("Sending auto topic creation request for %s", sorted(names))
        self.channel_manager.send_request(ControllerRequest(ApiKeys.CREATE_TOPICS, CREATE_TOPICS_VERSION, request),
                                          _Handler())

    def clear_inflight_requests(self, topics: set[str]) -> None:
        with self._lock:
            self.inflight_topics -= topics
        log.debug("Cleared inflight topic creation state for %s", topics)

    def creatable_topic(self, topic: str) -> dict[str, Any]:
        if topic == GROUP_METADATA_TOPIC_NAME:
            return dict(name=topic, num_partitions=self.config.offsets_topic_partitions,
                        replication_factor=self.config.offsets_topic_replication_factor, assignments=[],
                        configs=[dict(name=k, value=str(v)) for k, v in self.group_topic_configs().items()])
        if topic == TRANSACTION_STATE_TOPIC_NAME:
            return dict(name=topic, num_partitions=self.config.transaction_topic_partitions,
                        replication_factor=self.config.transaction_topic_replication_factor, assignments=[],
                        configs=[dict(name=k, value=str(v)) for k, v in self.txn_topic_configs().items()])
        return dict(name=topic, num_partitions=self.config.num_partitions,
                    replication_factor=self.config.default_replication_factor, assignments=[], configs=[])

    def filter_creatable_topics(self, topics: set[str]) -> tuple[dict[str, dict[str, Any]], dict[str, Errors]]:
        """Topics not already being created; a topic already in flight gets LEADER_NOT_AVAILABLE without a
        second request."""
        creatable: dict[str, dict[str, Any]] = {}
        uncreatable: dict[str, Errors] = {}
        with self._lock:
            for topic in sorted(topics):
                if topic in self.inflight_topics:
                    uncreatable[topic] = Errors.LEADER_NOT_AVAILABLE
                else:
                    self.inflight_topics.add(topic)
                    creatable[topic] = self.creatable_topic(topic)
        return creatable, uncreatable
