"""Our own test code, not a Kafka port: the ACL APIs (3.9's AclApis, KafkaApis, ControllerApis) over the
StandardAuthorizer, for the error codes a client gets: SECURITY_DISABLED without an authorizer,
CLUSTER_AUTHORIZATION_FAILED without DESCRIBE or ALTER on the cluster, INVALID_REQUEST for a bad binding, and the
ACLs grouped by resource pattern in DescribeAcls."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from concurrent.futures import Future
from typing import Any

import pytest

from kafka_edu.v1_0_2.clients.common.errors import ClusterAuthorizationException
from kafka_edu.v3_9.clients.common.acl.acl_operation import AclOperation, AclPermissionType
from kafka_edu.v3_9.clients.common.protocol.api_keys import ApiKeys
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from kafka_edu.v3_9.clients.common.resource.pattern_type import PatternType
from kafka_edu.v3_9.clients.common.resource.resource_type import ResourceType
from kafka_edu.v3_9.core.server.acl_apis import AclApis
from kafka_edu.v3_9.core.server.controller_apis import AuthHelper
from kafka_edu.v3_9.core.server.request_handler_helper import RequestHandlerHelper
from kafka_edu.v3_9.metadata.controller.acl_control_manager import AclControlManager
from kafka_edu.v3_9.metadata.metadata.authorizer.acl_mutator import AclMutator
from kafka_edu.v3_9.metadata.metadata.authorizer.standard_acl import StandardAcl
from kafka_edu.v3_9.metadata.metadata.authorizer.standard_authorizer import StandardAuthorizer
from tests.kafka_tests.v3_9.core.server.kafka_apis_test import RecordingRequestChannel, build_request, wire

ALICE = "User:Alice"  # build_request's principal


class ControllerMutator(AclMutator):
    """The QuorumController's part: the AclControlManager's results, its records replayed as if committed."""

    def __init__(self, authorizer: StandardAuthorizer) -> None:
        self.manager = AclControlManager()
        self.authorizer = authorizer

    def _commit(self, result: Any) -> Future[list[Any]]:
        for record in result.records:
            message = record.message
            if type(message).__name__ == "AccessControlEntryRecord":
                self.manager.replay(message)
                self.authorizer.add_acl(message.id, StandardAcl.from_record(message))
            else:
                self.manager.replay_remove(message)
                self.authorizer.remove_acl(message.id)
        future: Future[list[Any]] = Future()
        future.set_result(result.response)
        return future

    def create_acls(self, context: Any, acl_bindings: Any) -> Future[list[Any]]:
        return self._commit(self.manager.create_acls(acl_bindings))

    def delete_acls(self, context: Any, acl_binding_filters: Any) -> Future[list[Any]]:
        return self._commit(self.manager.delete_acls(acl_binding_filters))


def authorizer(super_users: str = "") -> StandardAuthorizer:
    standard_authorizer = StandardAuthorizer()
    standard_authorizer.configure({"super.users": super_users, "allow.everyone.if.no.acl.found": "true"})
    standard_authorizer.complete_initial_load()
    return standard_authorizer


@pytest.fixture
def acl_apis() -> Iterator[Callable[[StandardAuthorizer | None], tuple[AclApis, RecordingRequestChannel]]]:
    """Builds AclApis and closes each at the end: its AlterAcls purgatory runs a (non-daemon, as in Kafka) reaper."""
    made: list[AclApis] = []

    def make(standard_authorizer: StandardAuthorizer | None) -> tuple[AclApis, RecordingRequestChannel]:
        channel = RecordingRequestChannel()
        made.append(AclApis(AuthHelper(standard_authorizer), standard_authorizer, RequestHandlerHelper(channel),
                            "test", None))
        return made[-1], channel

    yield make
    for apis in made:
        apis.close()


def answer(channel: RecordingRequestChannel, request: Any) -> Any:
    [body] = [body for req, body in channel.sent if req is request]
    return wire(request, body)


def describe_all() -> Any:
    return build_request(ApiKeys.DESCRIBE_ACLS, 3, resource_type_filter=1, resource_name_filter=None,
                         pattern_type_filter=1, principal_filter=None, host_filter=None, operation=1,
                         permission_type=1)


def creation(resource_type: int = 2, name: str = "foo", principal: str = "User:bob", operation: int = 3) -> dict:
    return dict(resource_type=resource_type, resource_name=name, resource_pattern_type=3, principal=principal,
                host="*", operation=operation, permission_type=3)


def test_without_an_authorizer_every_acl_api_answers_security_disabled(acl_apis) -> None:
    apis, channel = acl_apis(None)
    describe = describe_all()
    apis.handle_describe_acls(describe)
    response = answer(channel, describe)
    assert (response.error_code, response.error_message) == (Errors.SECURITY_DISABLED,
                                                            "No Authorizer is configured on the broker")
    create = build_request(ApiKeys.CREATE_ACLS, 3, creations=[creation(), creation(name="bar")])
    apis.handle_create_acls(create)
    assert [(r.error_code, r.error_message) for r in answer(channel, create).results] == [
        (Errors.SECURITY_DISABLED, "No Authorizer is configured.")] * 2


def test_acls_created_through_the_mutator_are_described_grouped_by_resource(acl_apis) -> None:
    standard_authorizer = authorizer(super_users=ALICE)
    standard_authorizer.set_acl_mutator(ControllerMutator(standard_authorizer))
    apis, channel = acl_apis(standard_authorizer)
    create = build_request(ApiKeys.CREATE_ACLS, 3, creations=[
        creation(), creation(operation=4), creation(name="bar"),
        creation(resource_type=4, name="not-kafka-cluster", operation=7), creation(name="")])
    apis.handle_create_acls(create).result(10)
    assert [(r.error_code, r.error_message) for r in answer(channel, create).results] == [
        (Errors.NONE, None), (Errors.NONE, None), (Errors.NONE, None),
        (Errors.INVALID_REQUEST, "The only valid name for the CLUSTER resource is kafka-cluster"),
        (Errors.INVALID_REQUEST, "Invalid empty resource name")]
    describe = describe_all()
    apis.handle_describe_acls(describe)
    resources = {(r.resource_type, r.resource_name, r.pattern_type): sorted(a.operation for a in r.acls)
                 for r in answer(channel, describe).resources}
    assert resources == {(ResourceType.TOPIC, "foo", PatternType.LITERAL): [AclOperation.READ, AclOperation.WRITE],
                         (ResourceType.TOPIC, "bar", PatternType.LITERAL): [AclOperation.READ]}
    delete = build_request(ApiKeys.DELETE_ACLS, 3, filters=[dict(
        resource_type_filter=2, resource_name_filter="foo", pattern_type_filter=1, principal_filter=None,
        host_filter=None, operation=1, permission_type=AclPermissionType.ANY)])
    apis.handle_delete_acls(delete).result(10)
    [filter_result] = answer(channel, delete).filter_results
    assert filter_result.error_code == Errors.NONE
    assert sorted(m.operation for m in filter_result.matching_acls) == [AclOperation.READ, AclOperation.WRITE]
    assert standard_authorizer.acl_count() == 1


def test_describe_acls_takes_describe_on_the_cluster(acl_apis) -> None:
    standard_authorizer = authorizer()
    # an ACL on the cluster for someone else: the cluster now has ACLs, and Alice is not in them
    standard_authorizer.add_acl(uuid.uuid4(), StandardAcl(ResourceType.CLUSTER, "kafka-cluster", PatternType.LITERAL,
                                                          "User:bob", "*", AclOperation.DESCRIBE,
                                                          AclPermissionType.ALLOW))
    apis, channel = acl_apis(standard_authorizer)
    with pytest.raises(ClusterAuthorizationException) as e:  # KafkaApis.handle answers it with the error response
        apis.handle_describe_acls(describe_all())
    assert Errors.for_exception(e.value) is Errors.CLUSTER_AUTHORIZATION_FAILED


def test_the_controller_refuses_create_acls_from_a_principal_without_alter_on_the_cluster(acl_apis) -> None:
    standard_authorizer = authorizer()
    standard_authorizer.set_acl_mutator(ControllerMutator(standard_authorizer))
    standard_authorizer.add_acl(uuid.uuid4(), StandardAcl(ResourceType.CLUSTER, "kafka-cluster", PatternType.LITERAL,
                                                          "User:bob", "*", AclOperation.ALTER,
                                                          AclPermissionType.ALLOW))
    apis, channel = acl_apis(standard_authorizer)
    with pytest.raises(ClusterAuthorizationException) as e:  # ControllerApis.handle answers the error response
        apis.handle_create_acls(build_request(ApiKeys.CREATE_ACLS, 3, creations=[creation()]))
    assert Errors.for_exception(e.value) is Errors.CLUSTER_AUTHORIZATION_FAILED
    assert standard_authorizer.acl_count() == 1
