"""Port of core/src/test/scala/unit/kafka/security/auth/SimpleAclAuthorizerTest.scala (Kafka 1.0.2).

ZooKeeperTestHarness is the project's real ZooKeeper (the `zookeeper` fixture of tests/conftest.py) and a ZkUtils
opened on it as the harness opens one. Two authorizers share that ZooKeeper as two brokers would; each case builds
them as Kafka's setUp does (super users `User:superuser1` and `User:superuser2`, unlimited compare-and-set retries)
and closes them afterwards.

Names: Scala's overloaded `removeAcls(resource)`, `getAcls(principal)` and `getAcls()` are the port's
`remove_all_acls`, `get_acls_for_principal` and `get_all_acls`; a client's InetAddress is the address string the
port's Session holds.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field

import pytest

from kafka_edu.v1_0_2.clients.common.security.auth.kafka_principal import USER_TYPE, KafkaPrincipal
from kafka_edu.v1_0_2.core.network.request_channel import Session
from kafka_edu.v1_0_2.core.security.auth.acl import ALLOW_ALL_ACL, WILD_CARD_HOST, WILD_CARD_PRINCIPAL, Acl
from kafka_edu.v1_0_2.core.security.auth.operation import Operation
from kafka_edu.v1_0_2.core.security.auth.permission_type import PermissionType
from kafka_edu.v1_0_2.core.security.auth.resource import CLUSTER_RESOURCE, WILD_CARD_RESOURCE, Resource
from kafka_edu.v1_0_2.core.security.auth.resource_type import ResourceType
from kafka_edu.v1_0_2.core.security.auth.simple_acl_authorizer import (
    ALLOW_EVERYONE_IF_NO_ACL_IS_FOUND_PROP,
    SUPER_USERS_PROP,
    SimpleAclAuthorizer,
)
from kafka_edu.v1_0_2.core.server.kafka_config import KafkaConfig
from kafka_edu.v1_0_2.core.utils.zk_utils import KAFKA_ACL_CHANGES_PATH, ZkUtils
from tests.kafka_tests.referee import kafka_test_class
from tests.kafka_tests.test_utils import (
    assert_concurrent,
    create_broker_config,
    wait_and_verify_acls,
    wait_until_true,
)

KAFKA = kafka_test_class(
    "1.0.2", "core/src/test/scala/unit/kafka/security/auth/SimpleAclAuthorizerTest.scala",
    cases=[
        "testTopicAcl",
        "testDenyTakesPrecedence",
        "testAllowAllAccess",
        "testSuperUserHasAccess",
        "testWildCardAcls",
        "testNoAclFound",
        "testNoAclFoundOverride",
        "testAclManagementAPIs",
        "testLoadCache",
        "testLocalConcurrentModificationOfResourceAcls",
        "testDistributedConcurrentModificationOfResourceAcls",
        "testHighConcurrencyModificationOfResourceAcls",
        "testAclInheritance",
        "testHighConcurrencyDeletionOfResourceAcls",
    ],
)

ALLOW, DENY = PermissionType.ALLOW, PermissionType.DENY
READ, WRITE, CREATE, DELETE = Operation.READ, Operation.WRITE, Operation.CREATE, Operation.DELETE
ALTER, DESCRIBE, ALL = Operation.ALTER, Operation.DESCRIBE, Operation.ALL
CLUSTER_ACTION, DESCRIBE_CONFIGS = Operation.CLUSTER_ACTION, Operation.DESCRIBE_CONFIGS
ALTER_CONFIGS, IDEMPOTENT_WRITE = Operation.ALTER_CONFIGS, Operation.IDEMPOTENT_WRITE

ZK_CONNECTION_TIMEOUT = 10000  # ZooKeeperTestHarness
ZK_SESSION_TIMEOUT = 6000
TEST_PRINCIPAL = WILD_CARD_PRINCIPAL
TEST_HOST_NAME = "192.168.0.1"
SUPER_USERS = "User:superuser1; User:superuser2"
USERNAME = "alice"
INT_MAX_VALUE = 2**31 - 1


@dataclass
class Harness:
    """The test class's fields, as its setUp leaves them."""

    zk_connect: str
    zk_utils: ZkUtils
    config: KafkaConfig
    simple_acl_authorizer: SimpleAclAuthorizer
    simple_acl_authorizer2: SimpleAclAuthorizer
    resource: Resource
    session: Session = field(default_factory=lambda: Session(TEST_PRINCIPAL, TEST_HOST_NAME))

    def change_acl_and_verify(self, original_acls: set[Acl], added_acls: set[Acl], removed_acls: set[Acl],
                              resource: Resource | None = None) -> set[Acl]:
        resource = self.resource if resource is None else resource
        acls = set(original_acls)
        if added_acls:
            self.simple_acl_authorizer.add_acls(added_acls, resource)
            acls |= added_acls
        if removed_acls:
            self.simple_acl_authorizer.remove_acls(removed_acls, resource)
            acls -= removed_acls
        wait_and_verify_acls(acls, self.simple_acl_authorizer, resource)
        return acls


@pytest.fixture
def h(zookeeper) -> Iterator[Harness]:
    zk_utils = ZkUtils(zookeeper.connect, ZK_SESSION_TIMEOUT, ZK_CONNECTION_TIMEOUT)
    simple_acl_authorizer = SimpleAclAuthorizer()
    simple_acl_authorizer2 = SimpleAclAuthorizer()
    try:
        # as many compare-and-set retries as it takes
        simple_acl_authorizer.max_update_retries = INT_MAX_VALUE
        simple_acl_authorizer2.max_update_retries = INT_MAX_VALUE
        props = create_broker_config(0, zookeeper.connect)
        props[SUPER_USERS_PROP] = SUPER_USERS
        config = KafkaConfig.from_props(props)
        simple_acl_authorizer.configure(config.originals())
        simple_acl_authorizer2.configure(config.originals())
        resource = Resource(ResourceType.TOPIC, str(uuid.uuid4()))
        yield Harness(zookeeper.connect, zk_utils, config, simple_acl_authorizer, simple_acl_authorizer2, resource)
    finally:
        simple_acl_authorizer.close()
        simple_acl_authorizer2.close()
        zk_utils.close()


def _user(name: str) -> KafkaPrincipal:
    return KafkaPrincipal(USER_TYPE, name)


def test_topic_acl(h: Harness) -> None:
    user1, user2, user3 = _user(USERNAME), _user("rob"), _user("batman")
    host1, host2 = "192.168.1.1", "192.168.1.2"

    acl1 = Acl(user1, ALLOW, host1, READ)
    acl2 = Acl(user1, ALLOW, host2, READ)
    acl3 = Acl(user1, DENY, host1, READ)
    acl4 = Acl(user1, ALLOW, host1, WRITE)
    acl5 = Acl(user1, ALLOW, WILD_CARD_HOST, DESCRIBE)
    acl6 = Acl(user2, ALLOW, WILD_CARD_HOST, READ)
    acl7 = Acl(user3, ALLOW, WILD_CARD_HOST, WRITE)
    acls = {acl1, acl2, acl3, acl4, acl5, acl6, acl7}

    h.change_acl_and_verify(set(), acls, set())

    host1_session = Session(user1, host1)
    host2_session = Session(user1, host2)
    authorize = h.simple_acl_authorizer.authorize

    assert authorize(host2_session, READ, h.resource), "User1 should have READ access from host2"
    assert not authorize(host1_session, READ, h.resource), "User1 should not have READ access from host1 due to denyAcl"
    assert authorize(host1_session, WRITE, h.resource), "User1 should have WRITE access from host1"
    assert not authorize(host2_session, WRITE, h.resource), \
        "User1 should not have WRITE access from host2 as no allow acl is defined"
    assert authorize(host1_session, DESCRIBE, h.resource), "User1 should not have DESCRIBE access from host1"
    assert authorize(host2_session, DESCRIBE, h.resource), "User1 should have DESCRIBE access from host2"
    assert not authorize(host1_session, ALTER, h.resource), "User1 should not have edit access from host1"
    assert not authorize(host2_session, ALTER, h.resource), "User1 should not have edit access from host2"

    # READ or WRITE implies DESCRIBE
    user2_session = Session(user2, host1)
    user3_session = Session(user3, host1)
    assert authorize(user2_session, DESCRIBE, h.resource), "User2 should have DESCRIBE access from host1"
    assert authorize(user3_session, DESCRIBE, h.resource), "User3 should have DESCRIBE access from host2"
    assert authorize(user2_session, READ, h.resource), "User2 should have READ access from host1"
    assert authorize(user3_session, WRITE, h.resource), "User3 should have WRITE access from host2"


def test_deny_takes_precedence(h: Harness) -> None:
    user = _user(USERNAME)
    host = "192.168.2.1"
    session = Session(user, host)

    deny_acl = Acl(user, DENY, host, ALL)
    h.change_acl_and_verify(set(), {ALLOW_ALL_ACL, deny_acl}, set())

    assert not h.simple_acl_authorizer.authorize(session, READ, h.resource), "deny should take precedence over allow."


def test_allow_all_access(h: Harness) -> None:
    h.change_acl_and_verify(set(), {ALLOW_ALL_ACL}, set())

    session = Session(_user("random"), "192.0.4.4")
    assert h.simple_acl_authorizer.authorize(session, READ, h.resource), "allow all acl should allow access to all."


def test_super_user_has_access(h: Harness) -> None:
    deny_all_acl = Acl(WILD_CARD_PRINCIPAL, DENY, WILD_CARD_HOST, ALL)
    h.change_acl_and_verify(set(), {deny_all_acl}, set())

    session1 = Session(_user("superuser1"), "192.0.4.4")
    session2 = Session(_user("superuser2"), "192.0.4.4")
    assert h.simple_acl_authorizer.authorize(session1, READ, h.resource), \
        "superuser always has access, no matter what acls."
    assert h.simple_acl_authorizer.authorize(session2, READ, h.resource), \
        "superuser always has access, no matter what acls."


def test_wild_card_acls(h: Harness) -> None:
    assert not h.simple_acl_authorizer.authorize(h.session, READ, h.resource), \
        "when acls = [],  authorizer should fail close."

    user1 = _user(USERNAME)
    host1 = "192.168.3.1"
    read_acl = Acl(user1, ALLOW, host1, READ)
    wild_card_resource = Resource(h.resource.resource_type, WILD_CARD_RESOURCE)

    acls = h.change_acl_and_verify(set(), {read_acl}, set(), wild_card_resource)

    host1_session = Session(user1, host1)
    assert h.simple_acl_authorizer.authorize(host1_session, READ, h.resource), \
        "User1 should have Read access from host1"

    # an Allow on the topic itself ...
    write_acl = Acl(user1, ALLOW, host1, WRITE)
    h.change_acl_and_verify(set(), {write_acl}, set())

    # ... loses to a Deny on every topic
    deny_write_on_wild_card_resource_acl = Acl(user1, DENY, host1, WRITE)
    h.change_acl_and_verify(acls, {deny_write_on_wild_card_resource_acl}, set(), wild_card_resource)

    assert not h.simple_acl_authorizer.authorize(host1_session, WRITE, h.resource), \
        "User1 should not have Write access from host1"


def test_no_acl_found(h: Harness) -> None:
    assert not h.simple_acl_authorizer.authorize(h.session, READ, h.resource), \
        "when acls = [],  authorizer should fail close."


def test_no_acl_found_override(h: Harness) -> None:
    props = create_broker_config(1, h.zk_connect)
    props[ALLOW_EVERYONE_IF_NO_ACL_IS_FOUND_PROP] = "true"

    cfg = KafkaConfig.from_props(props)
    test_authorizer = SimpleAclAuthorizer()
    try:
        test_authorizer.configure(cfg.originals())
        assert test_authorizer.authorize(h.session, READ, h.resource), \
            "when acls = null or [],  authorizer should fail open with allow.everyone = true."
    finally:
        test_authorizer.close()


def test_acl_management_apis(h: Harness) -> None:
    user1, user2 = _user(USERNAME), _user("bob")
    host1, host2 = "host1", "host2"

    acl1 = Acl(user1, ALLOW, host1, READ)
    acl2 = Acl(user1, ALLOW, host1, WRITE)
    acl3 = Acl(user2, ALLOW, host2, READ)
    acl4 = Acl(user2, ALLOW, host2, WRITE)

    acls = h.change_acl_and_verify(set(), {acl1, acl2, acl3, acl4}, set())

    # adding is additive
    acl5 = Acl(user2, ALLOW, WILD_CARD_HOST, READ)
    acls = h.change_acl_and_verify(acls, {acl5}, set())

    # by principal
    authorizer = h.simple_acl_authorizer
    wait_until_true(lambda: {h.resource: {acl1, acl2}} == authorizer.get_acls_for_principal(user1),
                    "changes not propagated in timeout period")
    wait_until_true(lambda: {h.resource: {acl3, acl4, acl5}} == authorizer.get_acls_for_principal(user2),
                    "changes not propagated in timeout period")

    resource_to_acls = {
        Resource(ResourceType.TOPIC, WILD_CARD_RESOURCE): {Acl(user2, ALLOW, WILD_CARD_HOST, READ)},
        Resource(ResourceType.CLUSTER, WILD_CARD_RESOURCE): {Acl(user2, ALLOW, host1, READ)},
        Resource(ResourceType.GROUP, WILD_CARD_RESOURCE): acls,
        Resource(ResourceType.GROUP, "test-ConsumerGroup"): acls,
    }
    for key, value in resource_to_acls.items():
        h.change_acl_and_verify(set(), value, set(), key)
    wait_until_true(lambda: {**resource_to_acls, h.resource: acls} == authorizer.get_all_acls(),
                    "changes not propagated in timeout period.")

    # removing some of a resource's ACLs
    acls = h.change_acl_and_verify(acls, set(), {acl1, acl5})

    # removing all of them
    authorizer.remove_all_acls(h.resource)
    wait_and_verify_acls(set(), authorizer, h.resource)
    assert not h.zk_utils.path_exists(authorizer.to_resource_path(h.resource))

    # removing the last ACL deletes the znode as well
    acls = h.change_acl_and_verify(set(), {acl1}, set())
    h.change_acl_and_verify(acls, set(), acls)
    assert not h.zk_utils.path_exists(authorizer.to_resource_path(h.resource))


def test_load_cache(h: Harness) -> None:
    user1 = _user(USERNAME)
    acl1 = Acl(user1, ALLOW, "host-1", READ)
    acls = {acl1}
    h.simple_acl_authorizer.add_acls(acls, h.resource)

    user2 = _user("bob")
    resource1 = Resource(ResourceType.TOPIC, "test-2")
    acl2 = Acl(user2, DENY, "host3", READ)
    acls1 = {acl2}
    h.simple_acl_authorizer.add_acls(acls1, resource1)

    h.zk_utils.delete_path_recursive(KAFKA_ACL_CHANGES_PATH)
    authorizer = SimpleAclAuthorizer()
    try:
        authorizer.configure(h.config.originals())
        assert authorizer.get_acls(h.resource) == acls
        assert authorizer.get_acls(resource1) == acls1
    finally:
        authorizer.close()


def test_local_concurrent_modification_of_resource_acls(h: Harness) -> None:
    common_resource = Resource(ResourceType.TOPIC, "test")
    acl1 = Acl(_user(USERNAME), ALLOW, WILD_CARD_HOST, READ)
    acl2 = Acl(_user("bob"), DENY, WILD_CARD_HOST, READ)

    h.simple_acl_authorizer.add_acls({acl1}, common_resource)
    h.simple_acl_authorizer.add_acls({acl2}, common_resource)

    wait_and_verify_acls({acl1, acl2}, h.simple_acl_authorizer, common_resource)


def test_distributed_concurrent_modification_of_resource_acls(h: Harness) -> None:
    common_resource = Resource(ResourceType.TOPIC, "test")
    acl1 = Acl(_user(USERNAME), ALLOW, WILD_CARD_HOST, READ)
    acl2 = Acl(_user("bob"), DENY, WILD_CARD_HOST, READ)

    # one ACL through each authorizer
    h.simple_acl_authorizer.add_acls({acl1}, common_resource)
    h.simple_acl_authorizer2.add_acls({acl2}, common_resource)

    wait_and_verify_acls({acl1, acl2}, h.simple_acl_authorizer, common_resource)
    wait_and_verify_acls({acl1, acl2}, h.simple_acl_authorizer2, common_resource)

    acl3 = Acl(_user("joe"), DENY, WILD_CARD_HOST, READ)

    # added through one, removed through the other
    h.simple_acl_authorizer.add_acls({acl3}, common_resource)
    deleted = h.simple_acl_authorizer2.remove_acls({acl3}, common_resource)

    assert deleted, "The authorizer should see a value that needs to be deleted"

    wait_and_verify_acls({acl1, acl2}, h.simple_acl_authorizer, common_resource)
    wait_and_verify_acls({acl1, acl2}, h.simple_acl_authorizer2, common_resource)


def test_high_concurrency_modification_of_resource_acls(h: Harness) -> None:
    common_resource = Resource(ResourceType.TOPIC, "test")
    acls = [Acl(_user(str(i)), ALLOW, WILD_CARD_HOST, READ) for i in range(51)]

    def change(acl: Acl) -> None:
        # even ids through one authorizer, odd through the other; every tenth removed again
        acl_id = int(acl.principal.name)
        if acl_id % 2 == 0:
            h.simple_acl_authorizer.add_acls({acl}, common_resource)
        else:
            h.simple_acl_authorizer2.add_acls({acl}, common_resource)
        if acl_id % 10 == 0:
            h.simple_acl_authorizer2.remove_acls({acl}, common_resource)

    concurrent_functions = [lambda acl=acl: change(acl) for acl in acls]
    expected_acls = {acl for acl in acls if int(acl.principal.name) % 10 != 0}

    assert_concurrent("Should support many concurrent calls", concurrent_functions, 30 * 1000)

    wait_and_verify_acls(expected_acls, h.simple_acl_authorizer, common_resource)
    wait_and_verify_acls(expected_acls, h.simple_acl_authorizer2, common_resource)


def _test_implications_of_allow(h: Harness, parent_op: Operation, allowed_ops: set[Operation]) -> None:
    user = _user(USERNAME)
    host_session = Session(user, "192.168.3.1")
    acl = Acl(user, ALLOW, WILD_CARD_HOST, parent_op)
    h.simple_acl_authorizer.add_acls({acl}, CLUSTER_RESOURCE)
    for op in Operation:
        authorized = h.simple_acl_authorizer.authorize(host_session, op, CLUSTER_RESOURCE)
        if op in allowed_ops or op == parent_op:
            assert authorized, f"ALLOW {parent_op} should imply ALLOW {op}"
        else:
            assert not authorized, f"ALLOW {parent_op} should not imply ALLOW {op}"
    h.simple_acl_authorizer.remove_acls({acl}, CLUSTER_RESOURCE)


def _test_implications_of_deny(h: Harness, parent_op: Operation, denied_ops: set[Operation]) -> None:
    user1 = _user(USERNAME)
    host1_session = Session(user1, "192.168.3.1")
    acls = {Acl(user1, DENY, WILD_CARD_HOST, parent_op), Acl(user1, ALLOW, WILD_CARD_HOST, ALL)}
    h.simple_acl_authorizer.add_acls(acls, CLUSTER_RESOURCE)
    for op in Operation:
        authorized = h.simple_acl_authorizer.authorize(host1_session, op, CLUSTER_RESOURCE)
        if op in denied_ops or op == parent_op:
            assert not authorized, f"DENY {parent_op} should imply DENY {op}"
        else:
            assert authorized, f"DENY {parent_op} should not imply DENY {op}"
    h.simple_acl_authorizer.remove_acls(acls, CLUSTER_RESOURCE)


def test_acl_inheritance(h: Harness) -> None:
    every_op = {READ, WRITE, CREATE, DELETE, ALTER, DESCRIBE, CLUSTER_ACTION, DESCRIBE_CONFIGS, ALTER_CONFIGS,
                IDEMPOTENT_WRITE}
    _test_implications_of_allow(h, ALL, every_op)
    _test_implications_of_deny(h, ALL, every_op)
    _test_implications_of_allow(h, READ, {DESCRIBE})
    _test_implications_of_allow(h, WRITE, {DESCRIBE})
    _test_implications_of_allow(h, DELETE, {DESCRIBE})
    _test_implications_of_allow(h, ALTER, {DESCRIBE})
    _test_implications_of_deny(h, DESCRIBE, set())
    _test_implications_of_allow(h, ALTER_CONFIGS, {DESCRIBE_CONFIGS})
    _test_implications_of_deny(h, DESCRIBE_CONFIGS, set())


def test_high_concurrency_deletion_of_resource_acls(h: Harness) -> None:
    acl = Acl(_user(USERNAME), ALLOW, WILD_CARD_HOST, ALL)

    # one authorizer keeps creating the znode, the other keeps deleting it
    def add_then_remove() -> None:
        h.simple_acl_authorizer.add_acls({acl}, h.resource)
        h.simple_acl_authorizer2.remove_acls({acl}, h.resource)

    concurrent_functions = [add_then_remove for _ in range(51)]

    assert_concurrent("Should support many concurrent calls", concurrent_functions, 30 * 1000)

    wait_and_verify_acls(set(), h.simple_acl_authorizer, h.resource)
    wait_and_verify_acls(set(), h.simple_acl_authorizer2, h.resource)
