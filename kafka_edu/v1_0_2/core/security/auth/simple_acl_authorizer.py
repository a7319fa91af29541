"""Port of core/src/main/scala/kafka/security/auth/SimpleAclAuthorizer.scala (Kafka 1.0.2)."""

from __future__ import annotations

import json
import logging
import random
import threading
import time
from dataclasses import dataclass
from typing import Any

from kafka_edu.v1_0_2.clients.common.errors import (
    IllegalArgumentException,
    IllegalStateException,
    ZkNodeExistsException,
    ZkNoNodeException,
)
from kafka_edu.v1_0_2.clients.common.security.auth.kafka_principal import KafkaPrincipal
from kafka_edu.v1_0_2.core.common.zk_node_change_notification_listener import ZkNodeChangeNotificationListener
from kafka_edu.v1_0_2.core.security.auth.acl import WILD_CARD_HOST, WILD_CARD_PRINCIPAL, Acl
from kafka_edu.v1_0_2.core.security.auth.operation import Operation
from kafka_edu.v1_0_2.core.security.auth.permission_type import PermissionType
from kafka_edu.v1_0_2.core.security.auth.resource import WILD_CARD_RESOURCE, Resource
from kafka_edu.v1_0_2.core.security.auth.resource_type import ResourceType
from kafka_edu.v1_0_2.core.utils.zk_utils import KAFKA_ACL_CHANGES_PATH, KAFKA_ACL_PATH, ZkUtils

log = logging.getLogger("kafka.security.auth.SimpleAclAuthorizer")
authorizer_logger = logging.getLogger("kafka.authorizer.logger")

# Optional: another ZooKeeper for the ACLs than the brokers' own.
ZK_URL_PROP = "authorizer.zookeeper.url"
ZK_CONNECTION_TIMEOUT_PROP = "authorizer.zookeeper.connection.timeout.ms"
ZK_SESSION_TIMEOUT_PROP = "authorizer.zookeeper.session.timeout.ms"
# Principals allowed everything, from every host, whatever the ACLs say: "User:admin;User:broker".
SUPER_USERS_PROP = "super.users"
# With no ACL at all on a resource, allow everyone (the default, false, denies).
ALLOW_EVERYONE_IF_NO_ACL_IS_FOUND_PROP = "allow.everyone.if.no.acl.found"
ACL_CHANGED_PREFIX = "acl_changes_"


@dataclass(frozen=True)
class VersionedAcls:
    """A resource's ACLs and the znode version they were read at, for the next compare-and-set."""

    acls: frozenset[Acl]
    zk_version: int


class SimpleAclAuthorizer:
    """ACLs kept in ZooKeeper under /kafka-acl and cached in memory on every broker; a change anywhere is written
    to /kafka-acl-changes, and each broker's listener reloads the resource it names."""

    def __init__(self) -> None:
        self.super_users: set[KafkaPrincipal] = set()
        self.should_allow_everyone_if_no_acl_is_found = False
        self.zk_utils: ZkUtils | None = None
        self.acl_change_listener: ZkNodeChangeNotificationListener | None = None
        self.acl_cache: dict[Resource, VersionedAcls] = {}
        self.lock = threading.RLock()  # Kafka's ReentrantReadWriteLock; reads are short enough to share it
        # Compare-and-set retries before giving up; a safeguard, two brokers rarely race on one resource.
        self.max_update_retries = 10
        self.retry_backoff_ms = 100
        self.retry_backoff_jitter_ms = 50

    def configure(self, configs: dict[str, Any]) -> None:
        """Guaranteed to be called before any authorize call is made."""
        from kafka_edu.v1_0_2.core.server.kafka_config import (
            KafkaConfig,  # the broker's defaults for the ZooKeeper settings
        )

        props = {key: str(value) for key, value in configs.items()}
        super_users = props.get(SUPER_USERS_PROP, "")
        self.super_users = ({KafkaPrincipal.from_string(s.strip()) for s in super_users.split(";")} if super_users
                            else set())
        self.should_allow_everyone_if_no_acl_is_found = props.get(ALLOW_EVERYONE_IF_NO_ACL_IS_FOUND_PROP,
                                                                  "false").lower() == "true"
        kafka_config = KafkaConfig.from_props({k: v for k, v in props.items() if k in KafkaConfig.config_names()},
                                              do_log=False)
        zk_url = props.get(ZK_URL_PROP, kafka_config.zk_connect)
        zk_connection_timeout_ms = int(props.get(ZK_CONNECTION_TIMEOUT_PROP, kafka_config.zk_connection_timeout_ms))
        zk_session_timeout_ms = int(props.get(ZK_SESSION_TIMEOUT_PROP, kafka_config.zk_session_timeout_ms))
        self.zk_utils = ZkUtils(zk_url, zk_session_timeout_ms, zk_connection_timeout_ms,
                                kafka_config.zk_enable_secure_acls)
        self.zk_utils.make_sure_persistent_path_exists(KAFKA_ACL_PATH)
        self.load_cache()
        self.zk_utils.make_sure_persistent_path_exists(KAFKA_ACL_CHANGES_PATH)
        self.acl_change_listener = ZkNodeChangeNotificationListener(
            self.zk_utils, KAFKA_ACL_CHANGES_PATH, ACL_CHANGED_PREFIX, AclChangedNotificationHandler(self))
        self.acl_change_listener.init()

    def authorize(self, session: Any, operation: Operation, resource: Resource) -> bool:
        principal = session.principal
        host = session.client_address
        acls = self.get_acls(resource) | self.get_acls(Resource(resource.resource_type, WILD_CARD_RESOURCE))

        # One matching Deny wins over any Allow.
        deny_match = self.acl_match(operation, resource, principal, host, PermissionType.DENY, acls)

        # Being allowed to read, write, delete or alter something implies being allowed to describe it.
        if operation == Operation.DESCRIBE:
            allow_ops = {Operation.DESCRIBE, Operation.READ, Operation.WRITE, Operation.DELETE, Operation.ALTER}
        elif operation == Operation.DESCRIBE_CONFIGS:
            allow_ops = {Operation.DESCRIBE_CONFIGS, Operation.ALTER_CONFIGS}
        else:
            allow_ops = {operation}
        allow_match = any(self.acl_match(op, resource, principal, host, PermissionType.ALLOW, acls)
                          for op in allow_ops)

        authorized = (self.is_super_user(operation, resource, principal, host)
                      or self.is_empty_acl_and_authorized(operation, resource, principal, host, acls)
                      or (not deny_match and allow_match))
        self.log_audit_message(principal, authorized, operation, resource, host)
        return authorized

    def is_empty_acl_and_authorized(self, operation: Operation, resource: Resource, principal: KafkaPrincipal,
                                    host: str, acls: set[Acl]) -> bool:
        if acls:
            return False
        authorizer_logger.debug("No acl found for resource %s, authorized = %s", resource,
                                self.should_allow_everyone_if_no_acl_is_found)
        return self.should_allow_everyone_if_no_acl_is_found

    def is_super_user(self, operation: Operation, resource: Resource, principal: KafkaPrincipal, host: str) -> bool:
        if principal in self.super_users:
            authorizer_logger.debug("principal = %s is a super user, allowing operation without checking acls.",
                                    principal)
            return True
        return False

    def acl_match(self, operation: Operation, resource: Resource, principal: KafkaPrincipal, host: str,
                  permission_type: PermissionType, acls: set[Acl]) -> bool:
        for acl in acls:
            if (acl.permission_type == permission_type
                    and (acl.principal == principal or acl.principal == WILD_CARD_PRINCIPAL)
                    and (operation == acl.operation or acl.operation == Operation.ALL)
                    and (acl.host == host or acl.host == WILD_CARD_HOST)):
                authorizer_logger.debug("operation = %s on resource = %s from host = %s is %s based on acl = %s",
                                        operation, resource, host, permission_type, acl)
                return True
        return False

    def add_acls(self, acls: set[Acl], resource: Resource) -> None:
        if acls:
            with self.lock:
                self.update_resource_acls(resource, lambda current_acls: current_acls | acls)

    def remove_acls(self, acls_to_be_removed: set[Acl], resource: Resource) -> bool:
        with self.lock:
            return self.update_resource_acls(resource, lambda current_acls: current_acls - acls_to_be_removed)

    def remove_all_acls(self, resource: Resource) -> bool:
        """Authorizer.removeAcls(resource): every ACL of the resource, its znode with them."""
        with self.lock:
            result = self.zk_utils.delete_path(self.to_resource_path(resource))
            self.update_cache(resource, VersionedAcls(frozenset(), 0))
            self.update_acl_changed_flag(resource)
            return result

    def get_acls(self, resource: Resource) -> set[Acl]:
        with self.lock:
            versioned = self.acl_cache.get(resource)
            return set(versioned.acls) if versioned is not None else set()

    def get_acls_for_principal(self, principal: KafkaPrincipal) -> dict[Resource, set[Acl]]:
        with self.lock:
            found = {resource: {acl for acl in versioned.acls if acl.principal == principal}
                     for resource, versioned in self.acl_cache.items()}
            return {resource: acls for resource, acls in found.items() if acls}

    def get_all_acls(self) -> dict[Resource, set[Acl]]:
        with self.lock:
            return {resource: set(versioned.acls) for resource, versioned in self.acl_cache.items()}

    def close(self) -> None:
        if self.acl_change_listener is not None:
            self.acl_change_listener.close()
        if self.zk_utils is not None:
            self.zk_utils.close()

    def load_cache(self) -> None:
        with self.lock:
            for r_type in self.zk_utils.get_children(KAFKA_ACL_PATH):
                resource_type = ResourceType.from_string(r_type)
                resource_type_path = f"{KAFKA_ACL_PATH}/{resource_type.type_name}"
                for resource_name in self.zk_utils.get_children(resource_type_path):
                    resource = Resource(resource_type, resource_name)
                    self.update_cache(resource, self.get_acls_from_zk(resource))

    @staticmethod
    def to_resource_path(resource: Resource) -> str:
        return f"{KAFKA_ACL_PATH}/{resource.resource_type.type_name}/{resource.name}"

    def log_audit_message(self, principal: KafkaPrincipal, authorized: bool, operation: Operation,
                          resource: Resource, host: str) -> None:
        message = (f"Principal = {principal} is {'Allowed' if authorized else 'Denied'} Operation = {operation} "
                   f"from host = {host} on resource = {resource}")
        if authorized:
            authorizer_logger.debug(message)
        else:
            authorizer_logger.info(message)

    def update_resource_acls(self, resource: Resource, get_new_acls: Any) -> bool:
        """Write the resource's new ACLs with ZooKeeper's compare-and-set, reading again and retrying when another
        broker wrote first; True when the ACLs changed (and a change notification was written)."""
        path = self.to_resource_path(resource)
        current = (self.get_acls_from_cache(resource) if resource in self.acl_cache
                   else self.get_acls_from_zk(resource))
        new_versioned: VersionedAcls | None = None
        write_complete = False
        retries = 0
        while not write_complete and retries <= self.max_update_retries:
            new_acls = frozenset(get_new_acls(set(current.acls)))
            data = json.dumps(Acl.to_json_compatible_map(new_acls), separators=(",", ":"))
            if new_acls:
                update_succeeded, update_version = self.update_path(path, data, current.zk_version)
            else:
                log.debug("Deleting path for %s because it had no ACLs remaining", resource)
                update_succeeded, update_version = self.zk_utils.conditional_delete_path(
                    path, current.zk_version), 0
            if not update_succeeded:
                log.debug("Failed to update ACLs for %s. Used version %d. Reading data and retrying update.",
                          resource, current.zk_version)
                time.sleep(self.backoff_time() / 1000)
                current = self.get_acls_from_zk(resource)
                retries += 1
            else:
                new_versioned = VersionedAcls(new_acls, update_version)
                write_complete = update_succeeded
        if not write_complete or new_versioned is None:
            raise IllegalStateException(f"Failed to update ACLs for {resource} after trying a maximum of "
                                        f"{self.max_update_retries} times")
        if new_versioned.acls != current.acls:
            log.debug("Updated ACLs for %s to %s with version %d", resource, new_versioned.acls,
                      new_versioned.zk_version)
            self.update_cache(resource, new_versioned)
            self.update_acl_changed_flag(resource)
            return True
        log.debug("Updated ACLs for %s, no change was made", resource)
        self.update_cache(resource, new_versioned)  # the version, at least, is new
        return False

    def update_path(self, path: str, data: str, expected_version: int) -> tuple[bool, int]:
        """Set the znode at the expected version, or create it if it is not there: (done, new version)."""
        try:
            return self.zk_utils.conditional_update_persistent_path_if_exists(path, data, expected_version)
        except ZkNoNodeException:
            try:
                log.debug("Node %s does not exist, attempting to create it.", path)
                self.zk_utils.create_persistent_path(path, data)
                return True, 0
            except ZkNodeExistsException:
                log.debug("Failed to create node for %s because it already exists.", path)
                return False, 0

    def get_acls_from_cache(self, resource: Resource) -> VersionedAcls:
        versioned = self.acl_cache.get(resource)
        if versioned is None:
            raise IllegalArgumentException(f"ACLs do not exist in the cache for resource {resource}")
        return versioned

    def get_acls_from_zk(self, resource: Resource) -> VersionedAcls:
        acl_json, stat = self.zk_utils.read_data_maybe_null(self.to_resource_path(resource))
        # a missing znode reads as version 0, as ZkClient's empty Stat does
        return VersionedAcls(frozenset(Acl.from_json(acl_json)), stat.version if stat is not None else 0)

    def update_cache(self, resource: Resource, versioned_acls: VersionedAcls) -> None:
        if versioned_acls.acls:
            self.acl_cache[resource] = versioned_acls
        else:
            self.acl_cache.pop(resource, None)

    def update_acl_changed_flag(self, resource: Resource) -> None:
        self.zk_utils.create_sequential_persistent_path(f"{KAFKA_ACL_CHANGES_PATH}/{ACL_CHANGED_PREFIX}",
                                                        str(resource))

    def backoff_time(self) -> int:
        return self.retry_backoff_ms + random.randrange(self.retry_backoff_jitter_ms)


class AclChangedNotificationHandler:
    """Another broker (or `kafka-edu acls`) changed a resource's ACLs: read that resource again."""

    def __init__(self, authorizer: SimpleAclAuthorizer) -> None:
        self.authorizer = authorizer

    def process_notification(self, notification_message: str) -> None:
        resource = Resource.from_string(notification_message)
        with self.authorizer.lock:
            self.authorizer.update_cache(resource, self.authorizer.get_acls_from_zk(resource))
