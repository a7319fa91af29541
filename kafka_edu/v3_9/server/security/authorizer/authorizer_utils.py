"""Port of server/src/main/java/org/apache/kafka/security/authorizer/AuthorizerUtils.java (Kafka 3.9) and
KafkaConfig.createNewAuthorizer: the authorizer `authorizer.class.name` names."""

from __future__ import annotations

from typing import Any

from kafka_edu.v1_0_2.clients.common.config.config_def import ConfigException
from kafka_edu.v3_9.metadata.metadata.authorizer import standard_authorizer
from kafka_edu.v3_9.metadata.metadata.authorizer.standard_authorizer import StandardAuthorizer

# Java's reflection, by class name: the one authorizer a KRaft node can run here (AclAuthorizer stores its ACLs in
# ZooKeeper, which a KRaft cluster does not have; the 1.0.2 tree has SimpleAclAuthorizer for ZooKeeper mode).
_AUTHORIZERS = {standard_authorizer.CLASS_NAME: StandardAuthorizer}


def create_authorizer(class_name: str) -> Any:
    authorizer_class = _AUTHORIZERS.get(class_name.strip())
    if authorizer_class is None:
        raise ConfigException(f"Class {class_name} cannot be found")
    return authorizer_class()


def create_new_authorizer(config: Any) -> Any | None:
    """KafkaConfig.createNewAuthorizer: None when `authorizer.class.name` is empty (every action is allowed)."""
    class_name = config.authorizer_class_name
    class_name = class_name() if callable(class_name) else class_name
    if not class_name:
        return None
    return create_authorizer(class_name)


def is_cluster_resource(name: str) -> bool:
    return name == "kafka-cluster"
