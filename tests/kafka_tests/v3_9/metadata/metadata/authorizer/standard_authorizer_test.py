"""Port of metadata/src/test/java/org/apache/kafka/metadata/authorizer/StandardAuthorizerTest.java (Kafka 3.9).

Differences of form: Kafka's Endpoint is a SimpleNamespace with a listener name; a request context is
MockAuthorizableRequestContext (its principal, client address and request header); ACL ids are random rather than
made from the ACL's hash (only their uniqueness matters). The audit-log cases read the "kafka.authorizer.logger"
records with pytest's caplog where Kafka verifies a mocked slf4j logger; log4j's TRACE is level 5 here.
"""

from __future__ import annotations

import logging
import uuid
from dataclasses import dataclass

import pytest

from kafka_edu.v1_0_2.clients.common.errors import IllegalArgumentException, TimeoutException
from kafka_edu.v1_0_2.clients.common.security.auth.kafka_principal import USER_TYPE, KafkaPrincipal
from kafka_edu.v3_9.clients.common.acl.acl_binding import AccessControlEntryFilter, AclBindingFilter
from kafka_edu.v3_9.clients.common.acl.acl_operation import AclOperation, AclPermissionType
from kafka_edu.v3_9.clients.common.errors.authorizer_not_ready_exception import AuthorizerNotReadyException
from kafka_edu.v3_9.clients.common.resource.pattern_type import PatternType
from kafka_edu.v3_9.clients.common.resource.resource_pattern import ResourcePatternFilter
from kafka_edu.v3_9.clients.common.resource.resource_type import ResourceType
from kafka_edu.v3_9.clients.server.authorizer.action import Action, AuthorizationResult
from kafka_edu.v3_9.clients.server.authorizer.authorizer_server_info import AuthorizerServerInfo
from kafka_edu.v3_9.metadata.metadata.authorizer.standard_acl import StandardAcl
from kafka_edu.v3_9.metadata.metadata.authorizer.standard_acl_with_id import StandardAclWithId
from kafka_edu.v3_9.metadata.metadata.authorizer.standard_authorizer import (
    ALLOW_EVERYONE_IF_NO_ACL_IS_FOUND_CONFIG,
    SUPER_USERS_CONFIG,
    StandardAuthorizer,
    get_configured_super_users,
    get_default_result,
)
from kafka_edu.v3_9.metadata.metadata.authorizer.standard_authorizer_data import (
    TRACE,
    WILDCARD,
    WILDCARD_PRINCIPAL,
    find_result_for_context,
)
from tests.kafka_tests.referee import kafka_test_class
from tests.kafka_tests.v3_9.metadata.metadata.authorizer.mock_authorizable_request_context import (
    MockAuthorizableRequestContext,
    _local_host_address,
)

KAFKA = kafka_test_class(
    "3.9", "metadata/src/test/java/org/apache/kafka/metadata/authorizer/StandardAuthorizerTest.java",
    cases=["testGetConfiguredSuperUsers", "testGetDefaultResult", "testAllowEveryoneIfNoAclFoundConfigEnabled",
           "testAllowEveryoneIfNoAclFoundConfigDisabled", "testConfigure", "testFindResultImplication",
           "testFindResultPrincipalMatching", "testListAcls", "testSimpleAuthorizations",
           "testDenyPrecedenceWithOperationAll", "testTopicAclWithOperationAll", "testHostAddressAclValidation",
           "testAuthorizationWithManyAcls", "testDenyAuditLogging", "testAllowAuditLogging",
           "testStartWithEarlyStartListeners", "testAuthorizationPriorToCompleteInitialLoad",
           "testCompleteInitialLoad", "testCompleteInitialLoadWithException", "testPrefixAcls"],
)

ALLOWED, DENIED = AuthorizationResult.ALLOWED, AuthorizationResult.DENIED
TOPIC, GROUP = ResourceType.TOPIC, ResourceType.GROUP
LITERAL, PREFIXED = PatternType.LITERAL, PatternType.PREFIXED
ALLOW, DENY = AclPermissionType.ALLOW, AclPermissionType.DENY
Op = AclOperation



@dataclass(frozen=True)
class Endpoint:
    """org.apache.kafka.common.Endpoint."""

    listener_name: str
    host: str
    port: int


PLAINTEXT = Endpoint("PLAINTEXT", "127.0.0.1", 9020)
CONTROLLER = Endpoint("CONTROLLER", "127.0.0.1", 9020)


def authorizer_test_server_info(endpoints: list[Endpoint]) -> AuthorizerServerInfo:
    assert endpoints
    return AuthorizerServerInfo("r7mqHQrxTNmzbKvCvWZzLQ", 0, endpoints, endpoints[0],
                                [e.listener_name for e in endpoints if e.listener_name == "CONTROLLER"])


def context(principal: str = "ANONYMOUS", client_address: str | None = None) -> MockAuthorizableRequestContext:
    if client_address is None:
        return MockAuthorizableRequestContext(KafkaPrincipal(USER_TYPE, principal))
    return MockAuthorizableRequestContext(KafkaPrincipal(USER_TYPE, principal), client_address)


def new_action(operation: AclOperation, resource_type: ResourceType, resource_name: str) -> Action:
    return Action(operation.name, resource_type.name, resource_name, 1, False, False)


def create_and_initialize_standard_authorizer() -> StandardAuthorizer:
    authorizer = StandardAuthorizer()
    authorizer.configure({SUPER_USERS_CONFIG: "User:superman"})
    authorizer.start(authorizer_test_server_info([PLAINTEXT]))
    authorizer.complete_initial_load()
    return authorizer


def new_foo_acl(op: AclOperation, permission: AclPermissionType) -> StandardAcl:
    return StandardAcl(TOPIC, "foo_", PREFIXED, "User:bob", WILDCARD, op, permission)


def new_bar_acl(op: AclOperation, permission: AclPermissionType) -> StandardAcl:
    return StandardAcl(GROUP, "bar", LITERAL, WILDCARD_PRINCIPAL, WILDCARD, op, permission)


def with_id(acl: StandardAcl) -> StandardAclWithId:
    return StandardAclWithId(uuid.uuid4(), acl)


def add_all(authorizer: StandardAuthorizer, acls: list[StandardAcl]) -> None:
    for acl in acls:
        acl_with_id = with_id(acl)
        authorizer.add_acl(acl_with_id.id, acl_with_id.acl)


def test_get_configured_super_users() -> None:
    assert get_configured_super_users({}) == set()
    assert get_configured_super_users({SUPER_USERS_CONFIG: " "}) == set()
    assert get_configured_super_users({SUPER_USERS_CONFIG: "User:bob;User:alice "}) == {"User:bob", "User:alice"}
    assert get_configured_super_users({SUPER_USERS_CONFIG: ";  User:bob  ;  User:alice "}) == {"User:bob",
                                                                                               "User:alice"}
    with pytest.raises(IllegalArgumentException) as e:
        get_configured_super_users({SUPER_USERS_CONFIG: "bob;:alice"})
    assert str(e.value) == "expected a string in format principalType:principalName but got bob"


def test_get_default_result() -> None:
    assert get_default_result({}) is DENIED
    assert get_default_result({ALLOW_EVERYONE_IF_NO_ACL_IS_FOUND_CONFIG: "true"}) is ALLOWED
    assert get_default_result({ALLOW_EVERYONE_IF_NO_ACL_IS_FOUND_CONFIG: "false"}) is DENIED


def _authorizer_with_topic1_acl(allow_everyone: str) -> StandardAuthorizer:
    authorizer = StandardAuthorizer()
    authorizer.configure({SUPER_USERS_CONFIG: "User:alice;User:chris",
                          ALLOW_EVERYONE_IF_NO_ACL_IS_FOUND_CONFIG: allow_everyone})
    authorizer.start(authorizer_test_server_info([PLAINTEXT]))
    authorizer.complete_initial_load()
    add_all(authorizer, [StandardAcl(TOPIC, "topic1", LITERAL, "User:Alice", WILDCARD, Op.READ, ALLOW)])
    return authorizer


def test_allow_everyone_if_no_acl_found_config_enabled() -> None:
    authorizer = _authorizer_with_topic1_acl("true")
    assert authorizer.authorize(context("Bob"), [new_action(Op.READ, TOPIC, "topic1")]) == [DENIED]
    assert authorizer.authorize(context("Bob"), [new_action(Op.READ, TOPIC, "topic2")]) == [ALLOWED]


def test_allow_everyone_if_no_acl_found_config_disabled() -> None:
    authorizer = _authorizer_with_topic1_acl("false")
    assert authorizer.authorize(context("Bob"), [new_action(Op.READ, TOPIC, "topic1")]) == [DENIED]
    assert authorizer.authorize(context("Bob"), [new_action(Op.READ, TOPIC, "topic2")]) == [DENIED]


def test_configure() -> None:
    authorizer = StandardAuthorizer()
    authorizer.configure({SUPER_USERS_CONFIG: "User:alice;User:chris",
                          ALLOW_EVERYONE_IF_NO_ACL_IS_FOUND_CONFIG: "true"})
    assert authorizer.super_users() == {"User:alice", "User:chris"}
    assert authorizer.default_result() is ALLOWED


def test_find_result_implication() -> None:
    bob = context("bob")
    describe = new_action(Op.DESCRIBE, TOPIC, "foo_bar")
    for op in (Op.DESCRIBE, Op.READ, Op.WRITE, Op.DELETE, Op.ALTER):  # these imply DESCRIBE
        assert find_result_for_context(describe, bob, new_foo_acl(op, ALLOW)) is ALLOWED
    # CREATE does not imply DESCRIBE
    assert find_result_for_context(describe, bob, new_foo_acl(Op.CREATE, ALLOW)) is None
    for op in (Op.READ, Op.WRITE, Op.DELETE, Op.ALTER):  # DENY ACLs imply nothing
        assert find_result_for_context(describe, bob, new_foo_acl(op, DENY)) is None
    assert find_result_for_context(describe, bob,
                                   new_foo_acl(Op.DESCRIBE, DENY)) is DENIED
    for op in (Op.DESCRIBE_CONFIGS, Op.ALTER_CONFIGS):  # these imply DESCRIBE_CONFIGS
        assert find_result_for_context(new_action(Op.DESCRIBE_CONFIGS, TOPIC, "foo_bar"), bob,
                                       new_foo_acl(op, ALLOW)) is ALLOWED
    assert find_result_for_context(new_action(Op.DESCRIBE_CONFIGS, TOPIC, "foo_bar"), bob,
                                   new_foo_acl(Op.ALTER_CONFIGS, DENY)) is None
    assert find_result_for_context(new_action(Op.ALTER_CONFIGS, TOPIC, "foo_bar"), bob,
                                   new_foo_acl(Op.ALTER_CONFIGS, DENY)) is DENIED


def test_find_result_principal_matching() -> None:
    assert find_result_for_context(new_action(Op.READ, TOPIC, "foo_bar"), context("bob"),
                                   new_foo_acl(Op.READ, ALLOW)) is ALLOWED
    # the principal does not match
    assert find_result_for_context(new_action(Op.READ, TOPIC, "foo_bar"), context("alice"),
                                   new_foo_acl(Op.READ, ALLOW)) is None
    # the wildcard principal matches anyone
    assert find_result_for_context(new_action(Op.READ, GROUP, "bar"), context("alice"),
                                   new_bar_acl(Op.READ, DENY)) is DENIED


def assert_contains(bindings: object, *acls: StandardAcl) -> None:
    assert list(bindings) == [acl.to_binding() for acl in acls]  # type: ignore[call-overload]


def test_list_acls() -> None:
    authorizer = create_and_initialize_standard_authorizer()
    foo_acls = [with_id(new_foo_acl(Op.READ, ALLOW)), with_id(new_foo_acl(Op.WRITE, ALLOW))]
    bar_acls = [with_id(new_bar_acl(Op.DESCRIBE_CONFIGS, DENY)), with_id(new_bar_acl(Op.ALTER_CONFIGS, DENY))]
    for a in foo_acls + bar_acls:
        authorizer.add_acl(a.id, a.acl)
    assert_contains(authorizer.acls(AclBindingFilter.ANY), foo_acls[0].acl, foo_acls[1].acl, bar_acls[0].acl,
                    bar_acls[1].acl)
    authorizer.remove_acl(foo_acls[1].id)
    assert_contains(authorizer.acls(AclBindingFilter.ANY), foo_acls[0].acl, bar_acls[0].acl, bar_acls[1].acl)
    assert_contains(authorizer.acls(AclBindingFilter(ResourcePatternFilter(TOPIC, None, PatternType.ANY),
                                                     AccessControlEntryFilter.ANY)), foo_acls[0].acl)


def test_simple_authorizations() -> None:
    authorizer = create_and_initialize_standard_authorizer()
    add_all(authorizer, [new_foo_acl(Op.READ, ALLOW), new_foo_acl(Op.WRITE, ALLOW),
                         new_bar_acl(Op.DESCRIBE_CONFIGS, ALLOW), new_bar_acl(Op.ALTER_CONFIGS, ALLOW)])
    assert authorizer.authorize(context("bob"), [new_action(Op.READ, TOPIC, "foo_")]) == [ALLOWED]
    assert authorizer.authorize(context("fred"), [new_action(Op.ALTER_CONFIGS, GROUP, "bar")]) == [ALLOWED]


def test_deny_precedence_with_operation_all() -> None:
    authorizer = create_and_initialize_standard_authorizer()
    add_all(authorizer, [StandardAcl(TOPIC, "foo", LITERAL, "User:alice", "*", Op.ALL, DENY),
                         StandardAcl(TOPIC, "foo", PREFIXED, "User:alice", "*", Op.READ, ALLOW),
                         StandardAcl(TOPIC, "foo", LITERAL, "User:*", "*", Op.ALL, DENY),
                         StandardAcl(TOPIC, "foo", PREFIXED, "User:*", "*", Op.DESCRIBE, ALLOW)])
    assert authorizer.authorize(context("alice"), [
        new_action(Op.WRITE, TOPIC, "foo"), new_action(Op.READ, TOPIC, "foo"), new_action(Op.DESCRIBE, TOPIC, "foo"),
        new_action(Op.READ, TOPIC, "foobar")]) == [DENIED, DENIED, DENIED, ALLOWED]
    assert authorizer.authorize(context("bob"), [
        new_action(Op.DESCRIBE, TOPIC, "foo"), new_action(Op.READ, TOPIC, "foo"), new_action(Op.WRITE, TOPIC, "foo"),
        new_action(Op.DESCRIBE, TOPIC, "foobaz"), new_action(Op.READ, TOPIC, "foobaz")]) == [
        DENIED, DENIED, DENIED, ALLOWED, DENIED]


def test_topic_acl_with_operation_all() -> None:
    authorizer = create_and_initialize_standard_authorizer()
    add_all(authorizer, [StandardAcl(TOPIC, "foo", LITERAL, "User:*", "*", Op.ALL, ALLOW),
                         StandardAcl(TOPIC, "bar", PREFIXED, "User:alice", "*", Op.ALL, ALLOW),
                         StandardAcl(TOPIC, "baz", LITERAL, "User:bob", "*", Op.ALL, ALLOW)])
    assert authorizer.authorize(context("alice"), [
        new_action(Op.WRITE, TOPIC, "foo"), new_action(Op.DESCRIBE_CONFIGS, TOPIC, "bar"),
        new_action(Op.DESCRIBE, TOPIC, "baz")]) == [ALLOWED, ALLOWED, DENIED]
    assert authorizer.authorize(context("bob"), [
        new_action(Op.WRITE, TOPIC, "foo"), new_action(Op.READ, TOPIC, "bar"),
        new_action(Op.DESCRIBE, TOPIC, "baz")]) == [ALLOWED, DENIED, ALLOWED]
    assert authorizer.authorize(context("malory"), [
        new_action(Op.DESCRIBE, TOPIC, "foo"), new_action(Op.WRITE, TOPIC, "bar"),
        new_action(Op.READ, TOPIC, "baz")]) == [ALLOWED, DENIED, DENIED]


def test_host_address_acl_validation() -> None:
    host1, host2, local_host = "192.168.1.1", "192.168.1.2", _local_host_address()
    authorizer = create_and_initialize_standard_authorizer()
    add_all(authorizer, [StandardAcl(TOPIC, "foo", LITERAL, "User:alice", host1, Op.READ, DENY),
                         StandardAcl(TOPIC, "foo", LITERAL, "User:alice", "*", Op.READ, ALLOW),
                         StandardAcl(TOPIC, "bar", LITERAL, "User:bob", host2, Op.READ, ALLOW),
                         StandardAcl(TOPIC, "bar", LITERAL, "User:*", local_host, Op.DESCRIBE, ALLOW)])
    actions = [new_action(Op.READ, TOPIC, "foo"), new_action(Op.READ, TOPIC, "bar"),
               new_action(Op.DESCRIBE, TOPIC, "bar")]
    assert authorizer.authorize(context("alice", local_host), actions) == [ALLOWED, DENIED, ALLOWED]
    assert authorizer.authorize(context("alice", host1), actions) == [DENIED, DENIED, DENIED]
    assert authorizer.authorize(context("alice", host2), actions) == [ALLOWED, DENIED, DENIED]
    assert authorizer.authorize(context("bob", local_host), actions) == [DENIED, DENIED, ALLOWED]
    assert authorizer.authorize(context("bob", host1), actions) == [DENIED, DENIED, DENIED]
    assert authorizer.authorize(context("bob", host2), actions) == [DENIED, ALLOWED, ALLOWED]


def add_many_acls(authorizer: StandardAuthorizer) -> None:
    add_all(authorizer, [StandardAcl(TOPIC, "green2", LITERAL, "User:*", "*", Op.READ, ALLOW),
                         StandardAcl(TOPIC, "green", PREFIXED, "User:bob", "*", Op.READ, ALLOW),
                         StandardAcl(TOPIC, "betamax4", LITERAL, "User:bob", "*", Op.READ, ALLOW),
                         StandardAcl(TOPIC, "betamax", LITERAL, "User:bob", "*", Op.READ, ALLOW),
                         StandardAcl(TOPIC, "beta", PREFIXED, "User:*", "*", Op.READ, ALLOW),
                         StandardAcl(TOPIC, "alpha", PREFIXED, "User:*", "*", Op.READ, ALLOW),
                         StandardAcl(TOPIC, "alp", PREFIXED, "User:bob", "*", Op.READ, DENY),
                         StandardAcl(GROUP, "*", LITERAL, "User:bob", "*", Op.WRITE, ALLOW),
                         StandardAcl(GROUP, "wheel", LITERAL, "User:*", "*", Op.WRITE, DENY)])


def test_authorization_with_many_acls() -> None:
    authorizer = create_and_initialize_standard_authorizer()
    add_many_acls(authorizer)
    assert authorizer.authorize(context("bob"), [new_action(Op.READ, TOPIC, "green1"),
                                                 new_action(Op.WRITE, GROUP, "wheel")]) == [ALLOWED, DENIED]
    assert authorizer.authorize(context("bob"), [new_action(Op.READ, TOPIC, "alpha"),
                                                 new_action(Op.WRITE, GROUP, "arbitrary"),
                                                 new_action(Op.READ, TOPIC, "ala")]) == [DENIED, ALLOWED, DENIED]


def _audit_records(caplog: pytest.LogCaptureFixture) -> list[tuple[int, str]]:
    return [(r.levelno, r.getMessage()) for r in caplog.records if r.name == "kafka.authorizer.logger"]


@pytest.mark.parametrize("log_if_denied", [True, False])
def test_deny_audit_logging(log_if_denied: bool, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(TRACE, logger="kafka.authorizer.logger")
    authorizer = create_and_initialize_standard_authorizer()
    add_many_acls(authorizer)
    action = Action("READ", "TOPIC", "alpha", 1, False, log_if_denied)
    request_context = MockAuthorizableRequestContext(KafkaPrincipal(USER_TYPE, "bob"), "127.0.0.1")
    assert authorizer.authorize(request_context, [action]) == [DENIED]
    expected_audit_log = ("Principal = User:bob is Denied operation = READ from host = 127.0.0.1 on resource = "
                          "Topic:LITERAL:alpha for request = Fetch with resourceRefCount = 1 based on rule "
                          "MatchingAcl(acl=StandardAcl(resourceType=TOPIC, resourceName=alp, patternType=PREFIXED, "
                          "principal=User:bob, host=*, operation=READ, permissionType=DENY))")
    assert _audit_records(caplog) == [(logging.INFO if log_if_denied else TRACE, expected_audit_log)]


@pytest.mark.parametrize("log_if_allowed", [True, False])
def test_allow_audit_logging(log_if_allowed: bool, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(TRACE, logger="kafka.authorizer.logger")
    authorizer = create_and_initialize_standard_authorizer()
    add_many_acls(authorizer)
    action = Action("READ", "TOPIC", "green1", 1, log_if_allowed, False)
    request_context = MockAuthorizableRequestContext(KafkaPrincipal(USER_TYPE, "bob"), "127.0.0.1")
    assert authorizer.authorize(request_context, [action]) == [ALLOWED]
    expected_audit_log = ("Principal = User:bob is Allowed operation = READ from host = 127.0.0.1 on resource = "
                          "Topic:LITERAL:green1 for request = Fetch with resourceRefCount = 1 based on rule "
                          "MatchingAcl(acl=StandardAcl(resourceType=TOPIC, resourceName=green, patternType=PREFIXED, "
                          "principal=User:bob, host=*, operation=READ, permissionType=ALLOW))")
    assert _audit_records(caplog) == [(logging.DEBUG if log_if_allowed else TRACE, expected_audit_log)]


def test_start_with_early_start_listeners() -> None:
    authorizer = StandardAuthorizer()
    authorizer.configure({SUPER_USERS_CONFIG: "User:superman"})
    futures2 = authorizer.start(authorizer_test_server_info([PLAINTEXT, CONTROLLER]))
    assert set(futures2) == {PLAINTEXT, CONTROLLER}
    assert not futures2[PLAINTEXT].done()
    assert futures2[CONTROLLER].done()


def test_authorization_prior_to_complete_initial_load() -> None:
    authorizer = StandardAuthorizer()
    authorizer.configure({SUPER_USERS_CONFIG: "User:superman"})
    with pytest.raises(AuthorizerNotReadyException):
        authorizer.authorize(context("bob"), [new_action(Op.READ, TOPIC, "green1"),
                                              new_action(Op.READ, TOPIC, "green2")])
    assert authorizer.authorize(context("superman"), [new_action(Op.READ, TOPIC, "green1"),
                                                      new_action(Op.WRITE, GROUP, "wheel")]) == [ALLOWED, ALLOWED]


def test_complete_initial_load() -> None:
    authorizer = StandardAuthorizer()
    authorizer.configure({SUPER_USERS_CONFIG: "User:superman"})
    futures = authorizer.start(authorizer_test_server_info([PLAINTEXT]))
    assert list(futures) == [PLAINTEXT]
    assert not futures[PLAINTEXT].done()
    authorizer.complete_initial_load()
    assert futures[PLAINTEXT].done()
    assert futures[PLAINTEXT].exception() is None


def test_complete_initial_load_with_exception() -> None:
    authorizer = StandardAuthorizer()
    authorizer.configure({SUPER_USERS_CONFIG: "User:superman"})
    futures = authorizer.start(authorizer_test_server_info([PLAINTEXT, CONTROLLER]))
    assert set(futures) == {PLAINTEXT, CONTROLLER}
    assert not futures[PLAINTEXT].done()
    assert futures[CONTROLLER].done()
    authorizer.complete_initial_load(TimeoutException("timed out"))
    assert futures[PLAINTEXT].done()
    assert futures[PLAINTEXT].exception() is not None
    assert futures[CONTROLLER].done()
    assert futures[CONTROLLER].exception() is None


def test_prefix_acls() -> None:
    authorizer = create_and_initialize_standard_authorizer()
    add_all(authorizer, [StandardAcl(TOPIC, "fooa", PREFIXED, "User:alice", "*", Op.ALL, ALLOW),
                         StandardAcl(TOPIC, "foobar", LITERAL, "User:bob", "*", Op.ALL, ALLOW),
                         StandardAcl(TOPIC, "f", PREFIXED, "User:bob", "*", Op.ALL, ALLOW)])
    assert authorizer.authorize(context("bob"), [new_action(Op.WRITE, TOPIC, "foobarr"),
                                                 new_action(Op.READ, TOPIC, "goobar"),
                                                 new_action(Op.READ, TOPIC, "fooa")]) == [ALLOWED, DENIED, ALLOWED]
    assert authorizer.authorize(context("alice"), [new_action(Op.DESCRIBE, TOPIC, "fooa"),
                                                   new_action(Op.WRITE, TOPIC, "bar"),
                                                   new_action(Op.READ, TOPIC, "baz")]) == [ALLOWED, DENIED, DENIED]
