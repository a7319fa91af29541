"""SimpleAclAuthorizer (Kafka 1.0.2) over an in-memory ZooKeeper: how a decision is made, how ACLs are kept under
/kafka-acl, how a change on one broker reaches another, and the ACL APIs' work (acl_apis.py) with bad input."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

import pytest

from kafka_edu.v1_0_2.clients.common.acl.acl_operation import AclOperation, AclPermissionType
from kafka_edu.v1_0_2.clients.common.acl.acl_operation import ResourceType as JResourceType
from kafka_edu.v1_0_2.clients.common.errors import ZkNodeExistsException, ZkNoNodeException
from kafka_edu.v1_0_2.clients.common.security.auth.kafka_principal import KafkaPrincipal
from kafka_edu.v1_0_2.core.security.auth import simple_acl_authorizer
from kafka_edu.v1_0_2.core.security.auth.acl import Acl
from kafka_edu.v1_0_2.core.security.auth.operation import Operation
from kafka_edu.v1_0_2.core.security.auth.permission_type import PermissionType
from kafka_edu.v1_0_2.core.security.auth.resource import CLUSTER_RESOURCE, Resource
from kafka_edu.v1_0_2.core.security.auth.resource_type import ResourceType
from kafka_edu.v1_0_2.core.security.auth.simple_acl_authorizer import SimpleAclAuthorizer
from kafka_edu.v1_0_2.core.server import acl_apis
from kafka_edu.v3_9.clients.common.protocol.errors import Errors

ALICE = KafkaPrincipal("User", "alice")
BOB = KafkaPrincipal("User", "bob")
ORDERS = Resource(ResourceType.TOPIC, "orders")


@dataclass
class Stat:
    version: int
    ctime: float


class FakeZooKeeper:
    """The znodes the authorizer uses, with versions and children watches, shared by every FakeZkUtils."""

    def __init__(self) -> None:
        self.nodes: dict[str, tuple[str, Stat]] = {}
        self.watches: dict[str, list[Any]] = {}
        self.sequence = 0
        self.fail_next_writes = 0  # another broker's write got there first this many times

    def children(self, path: str) -> list[str]:
        prefix = path.rstrip("/") + "/"
        return sorted({p[len(prefix):].split("/")[0] for p in self.nodes if p.startswith(prefix)})

    def changed(self, path: str) -> None:
        parent = path.rsplit("/", 1)[0]
        for watch in list(self.watches.get(parent, [])):
            watch(self.children(parent))


class FakeZkUtils:
    def __init__(self, zk: FakeZooKeeper) -> None:
        self.zk = zk
        self.zk_client = SimpleNamespace(ChildrenWatch=self._children_watch)
        self.closed = False

    def _children_watch(self, path: str, func: Any) -> None:
        self.zk.watches.setdefault(path, []).append(func)
        func(self.zk.children(path))

    def make_sure_persistent_path_exists(self, path: str) -> None:
        self.zk.nodes.setdefault(path, ("", Stat(0, 0)))

    def subscribe_state_changes(self, listener: Any) -> None:
        pass

    def get_children(self, path: str) -> list[str]:
        return self.zk.children(path)

    def read_data_maybe_null(self, path: str) -> tuple[str | None, Any]:
        node = self.zk.nodes.get(path)
        return (None, None) if node is None else node

    def conditional_update_persistent_path_if_exists(self, path: str, data: str, version: int) -> tuple[bool, int]:
        if path not in self.zk.nodes:
            raise ZkNoNodeException(path)
        current = self.zk.nodes[path][1]
        if self.zk.fail_next_writes:
            self.zk.fail_next_writes -= 1
            return False, -1
        if current.version != version:
            return False, -1
        self.zk.nodes[path] = (data, Stat(version + 1, current.ctime))
        return True, version + 1

    def create_persistent_path(self, path: str, data: str = "") -> None:
        if path in self.zk.nodes:
            raise ZkNodeExistsException(path)
        self.zk.nodes[path] = (data, Stat(0, 0))
        self.zk.changed(path)

    def conditional_delete_path(self, path: str, version: int) -> bool:
        node = self.zk.nodes.get(path)
        if node is not None and node[1].version != version:
            return False
        self.zk.nodes.pop(path, None)
        return True

    def delete_path(self, path: str) -> bool:
        return self.zk.nodes.pop(path, None) is not None

    def create_sequential_persistent_path(self, path: str, data: str = "") -> str:
        name = f"{path}{self.zk.sequence:010d}"
        self.zk.sequence += 1
        self.zk.nodes[name] = (data, Stat(0, time.time() * 1000))
        self.zk.changed(name)
        return name

    def close(self) -> None:
        self.closed = True


@pytest.fixture
def zookeeper(monkeypatch) -> FakeZooKeeper:
    zk = FakeZooKeeper()
    monkeypatch.setattr(simple_acl_authorizer, "ZkUtils", lambda *args, **kwargs: FakeZkUtils(zk))
    return zk


def authorizer(**configs: str) -> SimpleAclAuthorizer:
    auth = SimpleAclAuthorizer()
    auth.configure({"zookeeper.connect": "127.0.0.1:2181", **configs})
    auth.retry_backoff_ms, auth.retry_backoff_jitter_ms = 0, 1
    return auth


def session(principal: KafkaPrincipal = ALICE, host: str = "127.0.0.1") -> Any:
    return SimpleNamespace(principal=principal, client_address=host)


def allow(principal: KafkaPrincipal, operation: Operation, host: str = "*") -> Acl:
    return Acl(principal, PermissionType.ALLOW, host, operation)


def test_no_acl_denies_everyone_unless_allow_everyone_is_set(zookeeper) -> None:
    assert not authorizer().authorize(session(), Operation.WRITE, ORDERS)
    assert authorizer(**{"allow.everyone.if.no.acl.found": "true"}).authorize(session(), Operation.WRITE, ORDERS)


def test_super_users_are_allowed_everything(zookeeper) -> None:
    auth = authorizer(**{"super.users": "User:admin; User:ANONYMOUS"})
    assert auth.authorize(session(KafkaPrincipal("User", "admin")), Operation.ALTER, CLUSTER_RESOURCE)
    assert auth.authorize(session(KafkaPrincipal("User", "ANONYMOUS")), Operation.CLUSTER_ACTION, CLUSTER_RESOURCE)
    assert not auth.authorize(session(), Operation.CLUSTER_ACTION, CLUSTER_RESOURCE)


def test_an_allow_acl_allows_its_principal_its_operation_from_its_host(zookeeper) -> None:
    auth = authorizer()
    auth.add_acls({allow(ALICE, Operation.WRITE, host="10.0.0.1")}, ORDERS)
    assert auth.authorize(session(host="10.0.0.1"), Operation.WRITE, ORDERS)
    assert not auth.authorize(session(host="10.0.0.2"), Operation.WRITE, ORDERS)
    assert not auth.authorize(session(BOB, "10.0.0.1"), Operation.WRITE, ORDERS)
    assert not auth.authorize(session(host="10.0.0.1"), Operation.READ, ORDERS)
    # write implies describe, not the other way round
    assert auth.authorize(session(host="10.0.0.1"), Operation.DESCRIBE, ORDERS)


def test_deny_wins_and_wildcards_match(zookeeper) -> None:
    auth = authorizer()
    everyone = KafkaPrincipal("User", "*")
    auth.add_acls({allow(everyone, Operation.ALL)}, Resource(ResourceType.TOPIC, "*"))
    auth.add_acls({Acl(BOB, PermissionType.DENY, "*", Operation.READ)}, ORDERS)
    assert auth.authorize(session(), Operation.READ, ORDERS)
    assert auth.authorize(session(BOB), Operation.WRITE, ORDERS)
    assert not auth.authorize(session(BOB), Operation.READ, ORDERS)
    # Describe is allowed by an allowed Read, Write, Delete or Alter; DescribeConfigs by AlterConfigs
    auth.add_acls({allow(ALICE, Operation.ALTER_CONFIGS)}, CLUSTER_RESOURCE)
    assert auth.authorize(session(), Operation.DESCRIBE_CONFIGS, CLUSTER_RESOURCE)
    assert not auth.authorize(session(), Operation.DESCRIBE, CLUSTER_RESOURCE)


def test_acls_are_kept_in_zookeeper_as_1_0_2_writes_them(zookeeper) -> None:
    auth = authorizer()
    auth.add_acls({allow(ALICE, Operation.READ), allow(BOB, Operation.WRITE)}, ORDERS)
    data, stat = zookeeper.nodes["/kafka-acl/Topic/orders"]
    assert json.loads(data) == {"version": 1, "acls": [
        {"principal": "User:alice", "permissionType": "Allow", "operation": "Read", "host": "*"},
        {"principal": "User:bob", "permissionType": "Allow", "operation": "Write", "host": "*"}]}
    assert [v[0] for k, v in sorted(zookeeper.nodes.items()) if k.startswith("/kafka-acl-changes/acl_changes_")] == [
        "Topic:orders"]
    assert auth.remove_acls({allow(BOB, Operation.WRITE)}, ORDERS)
    assert not auth.remove_acls({allow(BOB, Operation.WRITE)}, ORDERS)  # nothing left to remove: no change
    assert auth.remove_acls({allow(ALICE, Operation.READ)}, ORDERS)
    assert "/kafka-acl/Topic/orders" not in zookeeper.nodes  # the last ACL takes its znode with it


def test_a_write_that_loses_a_race_reads_again_and_retries(zookeeper) -> None:
    auth = authorizer()
    auth.add_acls({allow(ALICE, Operation.READ)}, ORDERS)
    zookeeper.fail_next_writes = 3
    auth.add_acls({allow(BOB, Operation.READ)}, ORDERS)
    assert auth.get_acls(ORDERS) == {allow(ALICE, Operation.READ), allow(BOB, Operation.READ)}
    zookeeper.fail_next_writes = 100
    with pytest.raises(Exception, match="after trying a maximum of 10 times"):
        auth.add_acls({allow(BOB, Operation.WRITE)}, ORDERS)


def test_a_change_on_one_broker_reaches_the_other_through_the_notification(zookeeper) -> None:
    broker_0, broker_1 = authorizer(), authorizer()
    broker_0.add_acls({allow(ALICE, Operation.WRITE)}, ORDERS)
    assert broker_1.authorize(session(), Operation.WRITE, ORDERS)
    broker_0.remove_all_acls(ORDERS)
    assert not broker_1.authorize(session(), Operation.WRITE, ORDERS)
    # a broker started later loads what is there
    broker_0.add_acls({allow(BOB, Operation.READ)}, Resource(ResourceType.GROUP, "billing"))
    assert authorizer().get_all_acls() == {Resource(ResourceType.GROUP, "billing"): {allow(BOB, Operation.READ)}}


# -- the ACL APIs' work ------------------------------------------------------------------------------------------

def creation(resource_type: int = JResourceType.TOPIC, name: str = "orders", principal: str = "User:alice",
             host: str = "*", operation: int = AclOperation.READ, permission: int = AclPermissionType.ALLOW) -> Any:
    return SimpleNamespace(resource_type=resource_type, resource_name=name, principal=principal, host=host,
                           operation=operation, permission_type=permission)


def acl_filter(resource_type: int = JResourceType.ANY, name: str | None = None, principal: str | None = None,
               host: str | None = None, operation: int = AclOperation.ANY,
               permission: int = AclPermissionType.ANY) -> Any:
    return SimpleNamespace(resource_type_filter=resource_type, resource_name_filter=name, principal_filter=principal,
                           host_filter=host, operation=operation, permission_type=permission)


def test_create_describe_delete(zookeeper) -> None:
    auth = authorizer()
    results = acl_apis.create_acls(auth, [creation(), creation(operation=AclOperation.WRITE),
                                          creation(JResourceType.GROUP, "billing")])
    assert [r["error_code"] for r in results] == [Errors.NONE] * 3
    described = acl_apis.describe_acls(auth, acl_filter(JResourceType.TOPIC))
    assert described["error_code"] == Errors.NONE
    assert [(r["resource_name"], [a["operation"] for a in r["acls"]]) for r in described["resources"]] == [
        ("orders", [AclOperation.READ, AclOperation.WRITE])]
    deleted = acl_apis.delete_acls(auth, [acl_filter(operation=AclOperation.WRITE), acl_filter(name="billing")])
    assert [[m["resource_name"] for m in r["matching_acls"]] for r in deleted] == [["orders"], ["billing"]]
    assert auth.get_all_acls() == {ORDERS: {allow(ALICE, Operation.READ)}}
    # a filter naming one ACL exactly is deleted as named; one that is not there deletes nothing
    exact = acl_filter(JResourceType.TOPIC, "orders", "User:alice", "*", AclOperation.READ, AclPermissionType.ALLOW)
    missing = acl_filter(JResourceType.TOPIC, "orders", "User:bob", "*", AclOperation.READ, AclPermissionType.ALLOW)
    deleted = acl_apis.delete_acls(auth, [exact, missing])
    assert [len(r["matching_acls"]) for r in deleted] == [1, 0] and auth.get_all_acls() == {}


@pytest.mark.parametrize("bad", [
    creation(principal="alice"),  # not Type:name
    creation(principal=""),
    creation(resource_type=JResourceType.ANY),  # a filter's wildcard, not a resource
    creation(resource_type=JResourceType.UNKNOWN),
    creation(resource_type=42),  # a code 1.0.2 does not know
    creation(operation=AclOperation.ANY),
    creation(operation=99),
    creation(permission=AclPermissionType.ANY),
    creation(JResourceType.CLUSTER, "my-cluster", operation=AclOperation.ALTER),  # only kafka-cluster
    creation(name=""),
])
def test_an_acl_with_an_invalid_pattern_is_refused_and_nothing_is_written(zookeeper, bad: Any) -> None:
    auth = authorizer()
    good = creation(name="kept")
    results = acl_apis.create_acls(auth, [bad, good])
    assert results[0]["error_code"] == Errors.INVALID_REQUEST and results[0]["error_message"]
    assert results[1]["error_code"] == Errors.NONE
    assert list(auth.get_all_acls()) == [Resource(ResourceType.TOPIC, "kept")]


def test_without_an_authorizer_describe_acls_answers_security_disabled() -> None:
    # CreateAcls and DeleteAcls get their request's error response from KafkaApis
    # (tests/unit/test_kafka_apis_handle_error.py)
    assert acl_apis.describe_acls(None, acl_filter())["error_code"] == Errors.SECURITY_DISABLED
