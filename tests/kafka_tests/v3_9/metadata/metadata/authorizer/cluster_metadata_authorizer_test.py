"""Port of metadata/src/test/java/org/apache/kafka/metadata/authorizer/ClusterMetadataAuthorizerTest.java (Kafka 3.9):
the default createAcls/deleteAcls of a ClusterMetadataAuthorizer, over a mock AclMutator."""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from concurrent.futures import Future
from typing import Any

from kafka_edu.v1_0_2.clients.common.errors import (
    AuthorizationException,
    InvalidRequestException,
    NotControllerException,
)
from kafka_edu.v3_9.clients.common.acl.acl_binding import AccessControlEntry, AclBinding, AclBindingFilter
from kafka_edu.v3_9.clients.common.acl.acl_operation import AclOperation, AclPermissionType
from kafka_edu.v3_9.clients.common.resource.pattern_type import PatternType
from kafka_edu.v3_9.clients.common.resource.resource_pattern import WILDCARD_RESOURCE, ResourcePattern
from kafka_edu.v3_9.clients.common.resource.resource_type import ResourceType
from kafka_edu.v3_9.clients.server.authorizer.acl_create_result import (
    AclBindingDeleteResult,
    AclCreateResult,
    AclDeleteResult,
)
from kafka_edu.v3_9.metadata.metadata.authorizer.acl_mutator import AclMutator
from kafka_edu.v3_9.metadata.metadata.authorizer.cluster_metadata_authorizer import ClusterMetadataAuthorizer
from kafka_edu.v3_9.metadata.metadata.authorizer.standard_acl import StandardAcl
from kafka_edu.v3_9.metadata.metadata.authorizer.standard_authorizer_data import WILDCARD, WILDCARD_PRINCIPAL
from tests.kafka_tests.referee import kafka_test_class
from tests.kafka_tests.v3_9.metadata.metadata.authorizer.mock_authorizable_request_context import (
    MockAuthorizableRequestContext,
)

KAFKA = kafka_test_class(
    "3.9", "metadata/src/test/java/org/apache/kafka/metadata/authorizer/ClusterMetadataAuthorizerTest.java",
    cases=["testCreateAcls", "testCreateAclsError", "testDeleteAcls", "testDeleteAclsError"],
)


class MockAclMutator(AclMutator):
    def __init__(self) -> None:
        self.create_acls_response: Future[list[AclCreateResult]] = Future()
        self.delete_acls_response: Future[list[AclDeleteResult]] = Future()

    def create_acls(self, context: Any, acl_bindings: Sequence[AclBinding]) -> Future[list[Any]]:
        return self.create_acls_response

    def delete_acls(self, context: Any, acl_binding_filters: Sequence[AclBindingFilter]) -> Future[list[Any]]:
        return self.delete_acls_response


class MockClusterMetadataAuthorizer(ClusterMetadataAuthorizer):
    def __init__(self) -> None:
        self.acl_mutator: AclMutator | None = None

    def set_acl_mutator(self, acl_mutator: AclMutator | None) -> None:
        self.acl_mutator = acl_mutator

    def acl_mutator_or_exception(self) -> AclMutator:
        if self.acl_mutator is None:
            raise NotControllerException("The current node is not the active controller.")
        return self.acl_mutator

    def complete_initial_load(self, e: BaseException | None = None) -> None:
        pass

    def load_snapshot(self, acls: Mapping[uuid.UUID, StandardAcl]) -> None:
        pass

    def add_acl(self, id: uuid.UUID, acl: StandardAcl) -> None:
        pass

    def remove_acl(self, id: uuid.UUID) -> None:
        pass

    def authorize(self, request_context: Any, actions: Sequence[Any]) -> Any:
        return None

    def acls(self, filter: AclBindingFilter) -> Any:
        return None


TEST_BINDINGS = [
    AclBinding(ResourcePattern(ResourceType.TOPIC, WILDCARD_RESOURCE, PatternType.LITERAL),
               AccessControlEntry(WILDCARD_PRINCIPAL, WILDCARD, AclOperation.READ, AclPermissionType.ALLOW)),
    AclBinding(ResourcePattern(ResourceType.TOPIC, WILDCARD_RESOURCE, PatternType.LITERAL),
               AccessControlEntry(WILDCARD_PRINCIPAL, WILDCARD, AclOperation.WRITE, AclPermissionType.ALLOW)),
]
TEST_FILTERS = [binding.to_filter() for binding in TEST_BINDINGS]


def _authorizer() -> tuple[MockAclMutator, MockClusterMetadataAuthorizer]:
    mutator = MockAclMutator()
    authorizer = MockClusterMetadataAuthorizer()
    authorizer.set_acl_mutator(mutator)
    return mutator, authorizer


def test_create_acls() -> None:
    mutator, authorizer = _authorizer()
    mutator.create_acls_response.set_result([AclCreateResult.SUCCESS,
                                             AclCreateResult(InvalidRequestException("invalid"))])
    results = authorizer.create_acls(MockAuthorizableRequestContext(), TEST_BINDINGS)
    assert len(results) == 2
    assert results[0].result().exception is None
    assert type(results[1].result().exception) is InvalidRequestException


def test_create_acls_error() -> None:
    mutator, authorizer = _authorizer()
    mutator.create_acls_response.set_exception(AuthorizationException("not authorized"))
    results = authorizer.create_acls(MockAuthorizableRequestContext(), TEST_BINDINGS)
    assert len(results) == 2
    assert type(results[0].result().exception) is AuthorizationException
    assert type(results[1].result().exception) is AuthorizationException


def test_delete_acls() -> None:
    mutator, authorizer = _authorizer()
    mutator.delete_acls_response.set_result([AclDeleteResult([AclBindingDeleteResult(TEST_BINDINGS[0])]),
                                             AclDeleteResult.of_exception(InvalidRequestException("invalid"))])
    results = authorizer.delete_acls(MockAuthorizableRequestContext(), TEST_FILTERS)
    assert len(results) == 2
    [delete_result0] = results[0].result().acl_binding_delete_results
    assert delete_result0.acl_binding == TEST_BINDINGS[0]
    assert delete_result0.exception is None
    delete_result1 = results[1].result()
    assert len(delete_result1.acl_binding_delete_results) == 0
    assert type(delete_result1.exception) is InvalidRequestException


def test_delete_acls_error() -> None:
    mutator, authorizer = _authorizer()
    mutator.delete_acls_response.set_exception(AuthorizationException("not authorized"))
    results = authorizer.delete_acls(MockAuthorizableRequestContext(), TEST_FILTERS)
    assert len(results) == 2
    for result in results:
        delete_result = result.result()
        assert len(delete_result.acl_binding_delete_results) == 0
        assert type(delete_result.exception) is AuthorizationException
