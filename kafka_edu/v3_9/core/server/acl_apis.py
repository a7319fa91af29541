"""Port of core/src/main/scala/kafka/server/AclApis.scala (Kafka 3.9): DescribeAcls, CreateAcls and DeleteAcls over the
node's authorizer, shared by KafkaApis (DescribeAcls; the others are forwarded) and ControllerApis."""

from __future__ import annotations

import logging
from concurrent.futures import Future
from typing import Any

from kafka_edu.v1_0_2.clients.common.errors import InvalidRequestException, SecurityDisabledException
from kafka_edu.v3_9.clients.common.protocol.api_keys import ApiKeys
from kafka_edu.v3_9.clients.common.protocol.builder import build
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from kafka_edu.v3_9.clients.common.requests import acl_requests
from kafka_edu.v3_9.clients.common.resource.resource_type import ResourceType
from kafka_edu.v3_9.clients.server.authorizer.acl_create_result import AclCreateResult, AclDeleteResult
from kafka_edu.v3_9.core.network.request_channel import Request
from kafka_edu.v3_9.core.server.delayed_future import DelayedFuturePurgatory
from kafka_edu.v3_9.core.server.request_handler_helper import RequestHandlerHelper, get_error_response

CLUSTER_NAME = "kafka-cluster"  # Resource.CLUSTER_NAME
DEFAULT_CONNECTIONS_MAX_IDLE_MS = 600000


def _completed() -> Future[None]:
    future: Future[None] = Future()
    future.set_result(None)
    return future


class AclApis:
    """`authorizer` is None without `authorizer.class.name`: every ACL API then answers SECURITY_DISABLED."""

    def __init__(self, auth_helper: Any, authorizer: Any | None, request_helper: RequestHandlerHelper, name: str,
                 config: Any) -> None:
        self.auth_helper = auth_helper
        self.authorizer = authorizer
        self.request_helper = request_helper
        self.config = config
        node_id = getattr(config, "node_id", -1)
        self.log = logging.LoggerAdapter(logging.getLogger("kafka.server.AclApis"),
                                         {"log_context": f"[AclApis-{name}-{node_id}] "})
        self._alter_acls_purgatory: DelayedFuturePurgatory | None = None
        self._closed = False
        self._purgatory_args = ("AlterAcls", node_id)

    @property
    def alter_acls_purgatory(self) -> DelayedFuturePurgatory:
        # made at the first ACL change: its timer thread is not worth having on a node nobody sends one to
        if self._alter_acls_purgatory is None:
            self._alter_acls_purgatory = DelayedFuturePurgatory(*self._purgatory_args)
        return self._alter_acls_purgatory

    def is_closed(self) -> bool:
        return self._closed

    def close(self) -> None:
        self._closed = True
        if self._alter_acls_purgatory is not None:
            self._alter_acls_purgatory.shutdown()

    def _connections_max_idle_ms(self) -> int:
        value = getattr(self.config, "connections_max_idle_ms", None)
        return int(value) if value is not None else DEFAULT_CONNECTIONS_MAX_IDLE_MS

    def handle_describe_acls(self, request: Request) -> Future[None]:
        self.auth_helper.authorize_cluster_operation(request, "DESCRIBE")
        version = request.context.api_version()
        schema = ApiKeys.DESCRIBE_ACLS.response_schema(version)
        if self.authorizer is None:
            self.request_helper.send_response_maybe_throttle(request, lambda throttle_ms: build(
                schema, throttle_time=throttle_ms, error_code=Errors.SECURITY_DISABLED,
                error_message="No Authorizer is configured on the broker", resources=[]))
        else:
            acl_filter = acl_requests.describe_acls_filter(request.body(), version)
            self.request_helper.send_response_maybe_throttle(request, lambda throttle_ms: build(
                schema, throttle_time=throttle_ms, error_code=Errors.NONE, error_message=None,
                resources=acl_requests.acls_resources(self.authorizer.acls(acl_filter))))
        return _completed()

    def handle_create_acls(self, request: Request) -> Future[None]:
        self.auth_helper.authorize_cluster_operation(request, "ALTER")
        create_acls_request = request.body()
        version = request.context.api_version()
        if self.authorizer is None:
            self.request_helper.send_response_maybe_throttle(request, lambda throttle_ms: get_error_response(
                request, throttle_ms, SecurityDisabledException("No Authorizer is configured.")))
            return _completed()
        acl_requests.validate_create_acls(create_acls_request, version)
        all_bindings = [acl_requests.acl_binding(creation) for creation in create_acls_request.creations]
        error_results: dict[Any, AclCreateResult] = {}
        valid_bindings = []
        for acl in all_bindings:
            resource = acl.pattern
            throwable: BaseException | None = None
            if resource.resource_type is ResourceType.CLUSTER and resource.name != CLUSTER_NAME:
                throwable = InvalidRequestException(f"The only valid name for the CLUSTER resource is {CLUSTER_NAME}")
            elif not resource.name:
                throwable = InvalidRequestException("Invalid empty resource name")
            if throwable is not None:
                self.log.debug("Failed to add acl %s to %s", acl, resource, exc_info=throwable)
                error_results[acl] = AclCreateResult(throwable)
            else:
                valid_bindings.append(acl)
        future: Future[list[dict[str, Any]]] = Future()
        create_results = self.authorizer.create_acls(request.context, valid_bindings)

        def send_response_callback() -> None:
            acl_creation_results = []
            for acl in all_bindings:
                result = error_results.get(acl)
                if result is None:
                    create_result = create_results[valid_bindings.index(acl)]
                    result = (create_result.result() if create_result.exception() is None
                              else AclCreateResult(create_result.exception()))
                acl_creation_results.append(acl_requests.acl_creation_result(result.exception))
            future.set_result(acl_creation_results)

        self.alter_acls_purgatory.try_complete_else_watch(self._connections_max_idle_ms(), create_results,
                                                          send_response_callback)
        schema = ApiKeys.CREATE_ACLS.response_schema(version)
        return _then_send(future, lambda results: self.request_helper.send_response_maybe_throttle(
            request, lambda throttle_ms: build(schema, throttle_time=throttle_ms, results=results)))

    def handle_delete_acls(self, request: Request) -> Future[None]:
        self.auth_helper.authorize_cluster_operation(request, "ALTER")
        delete_acls_request = request.body()
        version = request.context.api_version()
        if self.authorizer is None:
            self.request_helper.send_response_maybe_throttle(request, lambda throttle_ms: get_error_response(
                request, throttle_ms, SecurityDisabledException("No Authorizer is configured.")))
            return _completed()
        filters = acl_requests.normalize_and_validate_delete_acls(delete_acls_request, version)
        future: Future[list[dict[str, Any]]] = Future()
        delete_results = self.authorizer.delete_acls(request.context, filters)

        def send_response_callback() -> None:
            future.set_result([acl_requests.filter_result(result.result()) if result.exception() is None
                               else acl_requests.filter_result(_failed_delete(result.exception()))
                               for result in delete_results])

        self.alter_acls_purgatory.try_complete_else_watch(self._connections_max_idle_ms(), delete_results,
                                                          send_response_callback)
        schema = ApiKeys.DELETE_ACLS.response_schema(version)
        return _then_send(future, lambda filter_results: self.request_helper.send_response_maybe_throttle(
            request, lambda throttle_ms: build(schema, throttle_time=throttle_ms, filter_results=filter_results)))


def _failed_delete(exception: BaseException) -> AclDeleteResult:
    return AclDeleteResult.of_exception(exception)


def _then_send(future: Future[Any], send: Any) -> Future[None]:
    """`future.thenApply(send)`: the future returned fails if sending did (the handler's caller answers the error)."""
    sent: Future[None] = Future()

    def done(f: Future[Any]) -> None:
        try:
            if f.exception() is not None:
                raise f.exception()  # type: ignore[misc]
            send(f.result())
        except BaseException as e:  # noqa: BLE001 - carried by the future, as CompletableFuture does
            sent.set_exception(e)
        else:
            sent.set_result(None)

    future.add_done_callback(done)
    return sent
