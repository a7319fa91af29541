"""Port of core/src/main/java/kafka/server/handlers/DescribeTopicPartitionsRequestHandler.java (Kafka 3.9)."""

from __future__ import annotations

from typing import Any

from kafka_edu.v1_0_2.clients.common.errors import InvalidRequestException

# max.request.partition.size.limit's default: the most partitions one response describes, whatever the client asks
MAX_REQUEST_PARTITION_SIZE_LIMIT = 2000


class DescribeTopicPartitionsRequestHandler:
    """KIP-966's paged topic description: the topics asked for (all, if none) in name order, from a cursor, at most
    a limit of partitions per response, with the cursor to ask for the next page."""

    def __init__(self, metadata_cache: Any, config: Any) -> None:
        self.metadata_cache = metadata_cache
        self.config = config

    def handle_describe_topic_partitions_request(self, request: Any) -> dict[str, Any]:
        if not hasattr(self.metadata_cache, "describe_topic_response"):
            raise InvalidRequestException("ZK cluster does not handle DescribeTopicPartitions request")
        data = request.body
        fetch_all_topics = not data.topics
        cursor = data.cursor
        cursor_topic_name = cursor.topic_name if cursor is not None else ""
        if fetch_all_topics:
            topics = {t for t in self.metadata_cache.get_all_topics() if t >= cursor_topic_name}
        else:
            topics = {t.name for t in data.topics if t.name >= cursor_topic_name}
            if cursor is not None and cursor.topic_name not in topics:
                raise InvalidRequestException("DescribeTopicPartitionsRequest topic list should contain the cursor "
                                              f"topic: {cursor.topic_name}")
        # No authorizer in this port: every topic is described (3.9 leaves out the ones Describe is denied on).
        first_partition_id = cursor.partition_index if cursor_topic_name else 0
        return self.metadata_cache.describe_topic_response(
            sorted(topics), request.listener_name,
            lambda topic_name: first_partition_id if topic_name == cursor_topic_name else 0,
            min(MAX_REQUEST_PARTITION_SIZE_LIMIT, data.response_partition_limit), fetch_all_topics)
