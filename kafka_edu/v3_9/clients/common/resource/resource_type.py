"""Port of clients/src/main/java/org/apache/kafka/common/resource/ResourceType.java (Kafka 3.9): what an ACL is on."""

from __future__ import annotations

from kafka_edu.v3_9.clients.common.utils.wire_code_enum import WireCodeEnum


class ResourceType(WireCodeEnum):
    """The value is the wire code (and the ordinal: ACLs sort by it). ANY only matches in a filter; UNKNOWN is a code
    this version does not know."""

    UNKNOWN = 0
    ANY = 1
    TOPIC = 2
    GROUP = 3
    CLUSTER = 4
    TRANSACTIONAL_ID = 5
    DELEGATION_TOKEN = 6
    USER = 7
