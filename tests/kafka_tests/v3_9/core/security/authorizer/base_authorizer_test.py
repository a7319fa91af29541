"""Port of core/src/test/scala/unit/kafka/security/authorizer/BaseAuthorizerTest.scala (Kafka 3.9): Authorizer
.authorizeByResourceType.

Kafka mixes these cases into AuthorizerTest, where (plain @Test, no quorum) they run on ZooKeeper mode's
AclAuthorizer. The port's 3.9 tree has the StandardAuthorizer only, whose authorizeByResourceType is the Authorizer
interface's default (clients/server/authorizer/authorizer.py): the cases run on it, with AuthorizerTest's
MockAclMutator, and assert what Kafka asserts.
"""

from __future__ import annotations

import uuid

from kafka_edu.v1_0_2.clients.common.security.auth.kafka_principal import USER_TYPE, KafkaPrincipal
from kafka_edu.v3_9.clients.common.acl.acl_binding import AccessControlEntry
from kafka_edu.v3_9.clients.common.acl.acl_operation import AclOperation, AclPermissionType
from kafka_edu.v3_9.clients.common.resource.pattern_type import PatternType
from kafka_edu.v3_9.clients.common.resource.resource_pattern import WILDCARD_RESOURCE, ResourcePattern
from kafka_edu.v3_9.clients.common.resource.resource_type import ResourceType
from kafka_edu.v3_9.clients.server.authorizer.action import AuthorizationResult
from kafka_edu.v3_9.metadata.metadata.authorizer.standard_authorizer import StandardAuthorizer
from tests.kafka_tests.referee import kafka_test_class
from tests.kafka_tests.v3_9.core.security.authorizer.authorizer_test import (
    add_acls,
    authorizer1,  # noqa: F401 - the fixture
    new_request_context,
    remove_acls,
)

KAFKA = kafka_test_class(
    "3.9", "core/src/test/scala/unit/kafka/security/authorizer/BaseAuthorizerTest.scala",
    cases=["testAuthorizeByResourceTypeMultipleAddAndRemove",
           "testAuthorizeByResourceTypeIsolationUnrelatedDenyWontDominateAllow",
           "testAuthorizeByResourceTypeDenyTakesPrecedence", "testAuthorizeByResourceTypePrefixedResourceDenyDominate",
           "testAuthorizeByResourceTypeWildcardResourceDenyDominate", "testAuthorizeByResourceTypeWithAllOperationAce",
           "testAuthorizeByResourceTypeWithAllHostAce", "testAuthorizeByResourceTypeWithAllPrincipalAce",
           "testAuthorizeByResourceTypeSuperUserHasAccess"],
)

READ, WRITE, ALL = AclOperation.READ, AclOperation.WRITE, AclOperation.ALL
ALLOW, DENY = AclPermissionType.ALLOW, AclPermissionType.DENY
TOPIC, GROUP = ResourceType.TOPIC, ResourceType.GROUP
LITERAL, PREFIXED = PatternType.LITERAL, PatternType.PREFIXED
USER1, USER2 = KafkaPrincipal(USER_TYPE, "user1"), KafkaPrincipal(USER_TYPE, "user2")
HOST1, HOST2 = "192.168.1.1", "192.168.1.2"


def by_type(authorizer: StandardAuthorizer, context: object, operation: AclOperation,
            resource_type: ResourceType) -> bool:
    return authorizer.authorize_by_resource_type(context, operation, resource_type) is AuthorizationResult.ALLOWED


def ace(principal: object, host: str, operation: AclOperation, permission: AclPermissionType) -> AccessControlEntry:
    return AccessControlEntry(str(principal), host, operation, permission)


def topic(prefix: str) -> ResourcePattern:
    return ResourcePattern(TOPIC, f"{prefix}{uuid.uuid4()}", LITERAL)


def test_authorize_by_resource_type_multiple_add_and_remove(authorizer1: StandardAuthorizer) -> None:  # noqa: F811
    resource1 = topic("sb1")
    deny_read, allow_read = ace(USER1, HOST1, READ, DENY), ace(USER1, HOST1, READ, ALLOW)
    u1h1_context = new_request_context(USER1, HOST1)
    for _ in range(10):
        assert not by_type(authorizer1, u1h1_context, READ, TOPIC)
        add_acls(authorizer1, {allow_read}, resource1)
        assert by_type(authorizer1, u1h1_context, READ, TOPIC)
        for _ in range(10):
            add_acls(authorizer1, {deny_read}, resource1)
            assert not by_type(authorizer1, u1h1_context, READ, TOPIC)
            remove_acls(authorizer1, {deny_read}, resource1)
            add_acls(authorizer1, {allow_read}, resource1)
            assert by_type(authorizer1, u1h1_context, READ, TOPIC)
        remove_acls(authorizer1, {allow_read}, resource1)
        assert not by_type(authorizer1, u1h1_context, READ, TOPIC)


def test_authorize_by_resource_type_isolation_unrelated_deny_wont_dominate_allow(
        authorizer1: StandardAuthorizer) -> None:  # noqa: F811
    resource1, resource2 = topic("sb1"), topic("sb2")
    resource3 = ResourcePattern(GROUP, "s", PREFIXED)
    add_acls(authorizer1, {ace(USER1, HOST1, READ, DENY), ace(USER2, HOST1, READ, DENY),
                           ace(USER1, HOST2, WRITE, DENY), ace(USER2, HOST2, READ, DENY),
                           ace(USER1, HOST2, READ, ALLOW)}, resource1)
    add_acls(authorizer1, {ace(USER1, HOST2, READ, DENY)}, resource2)
    add_acls(authorizer1, {ace(USER1, HOST2, READ, DENY)}, resource3)
    u1h1_context, u1h2_context = new_request_context(USER1, HOST1), new_request_context(USER1, HOST2)
    assert not by_type(authorizer1, u1h1_context, READ, TOPIC)
    assert not by_type(authorizer1, u1h1_context, READ, GROUP)
    assert not by_type(authorizer1, u1h1_context, READ, ResourceType.TRANSACTIONAL_ID)
    assert not by_type(authorizer1, u1h1_context, READ, ResourceType.CLUSTER)
    assert by_type(authorizer1, u1h2_context, READ, TOPIC)


def test_authorize_by_resource_type_deny_takes_precedence(authorizer1: StandardAuthorizer) -> None:  # noqa: F811
    resource1 = topic("sb1")
    u1h1_context = new_request_context(USER1, HOST1)
    add_acls(authorizer1, {ace(USER1, HOST1, WRITE, ALLOW)}, resource1)
    assert by_type(authorizer1, u1h1_context, WRITE, TOPIC)
    add_acls(authorizer1, {ace(USER1, HOST1, WRITE, DENY)}, resource1)
    assert not by_type(authorizer1, u1h1_context, WRITE, TOPIC)


def test_authorize_by_resource_type_prefixed_resource_deny_dominate(
        authorizer1: StandardAuthorizer) -> None:  # noqa: F811
    def group(name: str) -> ResourcePattern:
        return ResourcePattern(GROUP, name, PREFIXED)
    u1h1_context = new_request_context(USER1, HOST1)
    allow_ace, deny_ace = ace(USER1, HOST1, READ, ALLOW), ace(USER1, HOST1, READ, DENY)
    add_acls(authorizer1, {allow_ace}, group("abcde"))
    assert by_type(authorizer1, u1h1_context, READ, GROUP)
    add_acls(authorizer1, {deny_ace}, group("abcd"))
    assert not by_type(authorizer1, u1h1_context, READ, GROUP)
    add_acls(authorizer1, {allow_ace}, group("abc"))
    assert by_type(authorizer1, u1h1_context, READ, GROUP)
    add_acls(authorizer1, {deny_ace}, group("a"))
    assert not by_type(authorizer1, u1h1_context, READ, GROUP)
    add_acls(authorizer1, {allow_ace}, group("ab"))
    assert not by_type(authorizer1, u1h1_context, READ, GROUP)


def test_authorize_by_resource_type_wildcard_resource_deny_dominate(
        authorizer1: StandardAuthorizer) -> None:  # noqa: F811
    wildcard = ResourcePattern(GROUP, WILDCARD_RESOURCE, LITERAL)
    u1h1_context = new_request_context(USER1, HOST1)
    allow_ace, deny_ace = ace(USER1, HOST1, WRITE, ALLOW), ace(USER1, HOST1, WRITE, DENY)
    add_acls(authorizer1, {allow_ace}, ResourcePattern(GROUP, "hello", PREFIXED))
    assert by_type(authorizer1, u1h1_context, WRITE, GROUP)
    add_acls(authorizer1, {deny_ace}, wildcard)
    assert not by_type(authorizer1, u1h1_context, WRITE, GROUP)
    add_acls(authorizer1, {allow_ace}, wildcard)
    assert not by_type(authorizer1, u1h1_context, WRITE, GROUP)
    add_acls(authorizer1, {allow_ace}, ResourcePattern(GROUP, "aloha", LITERAL))
    assert not by_type(authorizer1, u1h1_context, WRITE, GROUP)


def test_authorize_by_resource_type_with_all_operation_ace(authorizer1: StandardAuthorizer) -> None:  # noqa: F811
    resource1 = topic("sb1")
    u1h1_context = new_request_context(USER1, HOST1)
    assert not by_type(authorizer1, u1h1_context, READ, TOPIC)
    add_acls(authorizer1, {ace(USER1, HOST1, WRITE, DENY), ace(USER1, HOST1, ALL, ALLOW)}, resource1)
    assert by_type(authorizer1, u1h1_context, READ, TOPIC)
    add_acls(authorizer1, {ace(USER1, HOST1, ALL, DENY)}, resource1)
    assert not by_type(authorizer1, u1h1_context, READ, TOPIC)


def test_authorize_by_resource_type_with_all_host_ace(authorizer1: StandardAuthorizer) -> None:  # noqa: F811
    resource1, resource2 = topic("sb1"), topic("sb2")
    u1h1_context, u1h2_context = new_request_context(USER1, HOST1), new_request_context(USER1, HOST2)
    assert not by_type(authorizer1, u1h1_context, READ, TOPIC)
    add_acls(authorizer1, {ace(USER1, HOST1, READ, ALLOW)}, resource1)
    assert by_type(authorizer1, u1h1_context, READ, TOPIC)
    add_acls(authorizer1, {ace(USER1, "*", READ, DENY)}, resource1)
    assert not by_type(authorizer1, u1h1_context, READ, TOPIC)
    add_acls(authorizer1, {ace(USER1, HOST1, READ, DENY)}, resource2)
    assert not by_type(authorizer1, u1h1_context, READ, TOPIC)
    assert not by_type(authorizer1, u1h2_context, READ, TOPIC)
    add_acls(authorizer1, {ace(USER1, "*", READ, ALLOW)}, resource2)
    assert by_type(authorizer1, u1h2_context, READ, TOPIC)
    add_acls(authorizer1, {ace(USER1, "*", READ, DENY)}, resource2)
    assert not by_type(authorizer1, u1h2_context, READ, TOPIC)


def test_authorize_by_resource_type_with_all_principal_ace(authorizer1: StandardAuthorizer) -> None:  # noqa: F811
    resource1, resource2 = topic("sb1"), topic("sb2")
    u1h1_context, u2h1_context = new_request_context(USER1, HOST1), new_request_context(USER2, HOST1)
    assert not by_type(authorizer1, u1h1_context, READ, TOPIC)
    add_acls(authorizer1, {ace(USER1, HOST1, READ, ALLOW)}, resource1)
    assert by_type(authorizer1, u1h1_context, READ, TOPIC)
    add_acls(authorizer1, {ace("User:*", HOST1, READ, DENY)}, resource1)
    assert not by_type(authorizer1, u1h1_context, READ, TOPIC)
    add_acls(authorizer1, {ace(USER1, HOST1, READ, DENY)}, resource2)
    assert not by_type(authorizer1, u1h1_context, READ, TOPIC)
    assert not by_type(authorizer1, u2h1_context, READ, TOPIC)
    add_acls(authorizer1, {ace("User:*", HOST1, READ, ALLOW)}, resource2)
    assert by_type(authorizer1, u2h1_context, READ, TOPIC)
    add_acls(authorizer1, {ace("User:*", HOST1, READ, DENY)}, resource2)
    assert not by_type(authorizer1, u2h1_context, READ, TOPIC)


def test_authorize_by_resource_type_super_user_has_access(authorizer1: StandardAuthorizer) -> None:  # noqa: F811
    deny_all_ace = ace("User:*", "*", ALL, DENY)
    for resource_type in (TOPIC, ResourceType.CLUSTER, GROUP, ResourceType.TRANSACTIONAL_ID):
        add_acls(authorizer1, {deny_all_ace}, ResourcePattern(resource_type, WILDCARD_RESOURCE, LITERAL))
    super_user_context = new_request_context(KafkaPrincipal(USER_TYPE, "superuser1"), "192.0.4.4")
    for resource_type in (TOPIC, ResourceType.CLUSTER, GROUP, ResourceType.TRANSACTIONAL_ID):
        assert by_type(authorizer1, super_user_context, READ, resource_type)
