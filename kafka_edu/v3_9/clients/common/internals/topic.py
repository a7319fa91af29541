"""Port of clients/src/main/java/org/apache/kafka/common/internals/Topic.java (Kafka 3.9)."""

from __future__ import annotations

from collections.abc import Callable

from kafka_edu.v1_0_2.clients.common.errors import InvalidTopicException

GROUP_METADATA_TOPIC_NAME = "__consumer_offsets"
TRANSACTION_STATE_TOPIC_NAME = "__transaction_state"
SHARE_GROUP_STATE_TOPIC_NAME = "__share_group_state"
CLUSTER_METADATA_TOPIC_NAME = "__cluster_metadata"
LEGAL_CHARS = "[a-zA-Z0-9._-]"

INTERNAL_TOPICS = frozenset({GROUP_METADATA_TOPIC_NAME, TRANSACTION_STATE_TOPIC_NAME, SHARE_GROUP_STATE_TOPIC_NAME})

MAX_NAME_LENGTH = 249


def validate(name: str, log_prefix: str = "Topic name",
             throwable_consumer: Callable[[str], None] | None = None) -> None:
    """InvalidTopicException (or `throwable_consumer`'s call) when `name` cannot be a topic's name."""
    reason_invalid = _detect_invalid_topic(name)
    if reason_invalid is not None:
        message = f"{log_prefix} is invalid: {reason_invalid}"
        if throwable_consumer is None:
            raise InvalidTopicException(message)
        throwable_consumer(message)


def _detect_invalid_topic(name: str) -> str | None:
    if not name:
        return "the empty string is not allowed"
    if name == ".":
        return "'.' is not allowed"
    if name == "..":
        return "'..' is not allowed"
    if len(name) > MAX_NAME_LENGTH:
        return f"the length of '{name}' is longer than the max allowed length {MAX_NAME_LENGTH}"
    if not contains_valid_pattern(name):
        return f"'{name}' contains one or more characters other than ASCII alphanumerics, '.', '_' and '-'"
    return None


def is_valid(name: str) -> bool:
    return _detect_invalid_topic(name) is None


def is_internal(topic: str) -> bool:
    return topic in INTERNAL_TOPICS


def has_collision_chars(topic: str) -> bool:
    """A '.' or '_' in the name: two such names may collide in metric names."""
    return "_" in topic or "." in topic


def unify_collision_chars(topic: str) -> str:
    """The name collisions are checked by ('.' as '_'); never a topic's real name."""
    return topic.replace(".", "_")


def has_collision(topic_a: str, topic_b: str) -> bool:
    return unify_collision_chars(topic_a) == unify_collision_chars(topic_b)


def contains_valid_pattern(topic: str) -> bool:
    """Only the ASCII alphanumerics, '.', '_' and '-'."""
    return all(("a" <= c <= "z") or ("0" <= c <= "9") or ("A" <= c <= "Z") or c in "._-" for c in topic)
