"""Port of metadata/src/main/java/org/apache/kafka/metadata/authorizer/StandardAuthorizer.java (Kafka 3.9): the
authorizer that keeps its ACLs in the metadata log (`authorizer.class.name=
org.apache.kafka.metadata.authorizer.StandardAuthorizer`)."""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from kafka_edu.v1_0_2.clients.common.errors import NotControllerException, TimeoutException
from kafka_edu.v1_0_2.clients.common.security.auth.kafka_principal import KafkaPrincipal
from kafka_edu.v3_9.clients.common.acl.acl_binding import AclBinding, AclBindingFilter
from kafka_edu.v3_9.clients.server.authorizer.action import Action, AuthorizationResult
from kafka_edu.v3_9.clients.server.authorizer.authorizer_server_info import AuthorizerServerInfo
from kafka_edu.v3_9.metadata.metadata.authorizer.acl_mutator import AclMutator
from kafka_edu.v3_9.metadata.metadata.authorizer.cluster_metadata_authorizer import ClusterMetadataAuthorizer
from kafka_edu.v3_9.metadata.metadata.authorizer.standard_acl import StandardAcl
from kafka_edu.v3_9.metadata.metadata.authorizer.standard_authorizer_data import StandardAuthorizerData
from kafka_edu.v3_9.raft.raft.internals.completable_future import CompletableFuture

CLASS_NAME = "org.apache.kafka.metadata.authorizer.StandardAuthorizer"
SUPER_USERS_CONFIG = "super.users"
ALLOW_EVERYONE_IF_NO_ACL_IS_FOUND_CONFIG = "allow.everyone.if.no.acl.found"


class StandardAuthorizer(ClusterMetadataAuthorizer):
    """Answers from an immutable StandardAuthorizerData that each change replaces; the listeners other than the
    early-start ones are held until the first load of the ACLs completes (`start`'s futures)."""

    def __init__(self) -> None:
        self._initial_load_future: CompletableFuture[None] = CompletableFuture()
        self.data = StandardAuthorizerData.create_empty()

    def set_acl_mutator(self, acl_mutator: AclMutator | None) -> None:
        self.data = self.data.copy_with_new_acl_mutator(acl_mutator)

    def acl_mutator_or_exception(self) -> AclMutator:
        acl_mutator = self.data.acl_mutator
        if acl_mutator is None:
            raise NotControllerException("The current node is not the active controller.")
        return acl_mutator

    def complete_initial_load(self, e: BaseException | None = None) -> None:
        if e is None:
            self.data = self.data.copy_with_new_loading_complete(True)
            self.data.log.info("Completed initial ACL load process.")
            self._initial_load_future.complete(None)
        elif not self._initial_load_future.done():
            self.data.log.error("Failed to complete initial ACL load process.", exc_info=e)
            self._initial_load_future.complete_exceptionally(e)

    def initial_load_future(self) -> CompletableFuture[None]:
        return self._initial_load_future

    def add_acl(self, id: uuid.UUID, acl: StandardAcl) -> None:
        self.data.add_acl(id, acl)

    def remove_acl(self, id: uuid.UUID) -> None:
        self.data.remove_acl(id)

    def load_snapshot(self, acls: Mapping[uuid.UUID, StandardAcl]) -> None:
        new_data = StandardAuthorizerData.create_empty()
        for id, acl in acls.items():
            new_data.add_acl(id, acl)
        self.data = self.data.copy_with_new_acls(new_data.get_acl_cache())

    def start(self, server_info: AuthorizerServerInfo) -> dict[Any, CompletableFuture[None]]:
        """Per endpoint: an early-start listener may serve at once; the others wait for the initial load."""
        result: dict[Any, CompletableFuture[None]] = {}
        early = {_listener_name(name) for name in server_info.early_start_listeners}
        for endpoint in server_info.endpoints:
            if _listener_name(endpoint.listener_name) in early:
                done: CompletableFuture[None] = CompletableFuture()
                done.complete(None)
                result[endpoint] = done
            else:
                result[endpoint] = self._initial_load_future
        return result

    def authorize(self, request_context: Any, actions: Sequence[Action]) -> list[AuthorizationResult]:
        cur_data = self.data  # one consistent data for all the actions
        return [cur_data.authorize(request_context, action) for action in actions]

    def acls(self, filter: AclBindingFilter) -> Iterable[AclBinding]:
        return self.data.acls(filter)

    def acl_count(self) -> int:
        return self.data.acl_count()

    def close(self) -> None:
        if not self._initial_load_future.done():
            self._initial_load_future.complete_exceptionally(TimeoutException(
                "The authorizer was closed before the initial load could complete."))

    def configure(self, configs: Mapping[str, Any]) -> None:
        super_users = get_configured_super_users(configs)
        default_result = get_default_result(configs)
        try:
            node_id = int(str(configs.get("node.id")).strip())
        except (TypeError, ValueError):
            node_id = -1
        self.data = self.data.copy_with_new_config(node_id, super_users, default_result)
        self.data.log.info("set super.users=%s, default result=%s", ",".join(sorted(super_users)),
                           default_result.name)

    def super_users(self) -> set[str]:
        return set(self.data.super_users())

    def default_result(self) -> AuthorizationResult:
        return self.data.default_result()


def get_configured_super_users(configs: Mapping[str, Any]) -> set[str]:
    config_value = configs.get(SUPER_USERS_CONFIG)
    if config_value is None:
        return set()
    result = set()
    for value in str(config_value).split(";"):
        v = value.strip()
        if v:
            KafkaPrincipal.from_string(v)  # SecurityUtils.parseKafkaPrincipal: refuses a name without a type
            result.add(v)
    return result


def get_default_result(configs: Mapping[str, Any]) -> AuthorizationResult:
    config_value = configs.get(ALLOW_EVERYONE_IF_NO_ACL_IS_FOUND_CONFIG)
    if config_value is None:
        return AuthorizationResult.DENIED
    return AuthorizationResult.ALLOWED if str(config_value).strip().lower() == "true" else AuthorizationResult.DENIED


def _listener_name(name: Any) -> str:
    value = getattr(name, "value", None)
    return value() if callable(value) else str(name)


