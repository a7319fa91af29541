"""Port of metadata/src/main/java/org/apache/kafka/metadata/authorizer/ClusterMetadataAuthorizer.java (Kafka 3.9): an
authorizer whose ACLs live in the metadata log: creating or deleting one is a controller write."""

from __future__ import annotations

import uuid
from abc import abstractmethod
from collections.abc import Mapping, Sequence
from concurrent.futures import Future
from typing import Any

from kio.schema.request_header.v2.header import RequestHeader

from kafka_edu.v1_0_2.clients.common.errors import ApiException, UnknownServerException
from kafka_edu.v3_9.clients.common.acl.acl_binding import AclBinding, AclBindingFilter
from kafka_edu.v3_9.clients.common.requests.api_error import ApiError
from kafka_edu.v3_9.clients.server.authorizer.acl_create_result import AclCreateResult, AclDeleteResult
from kafka_edu.v3_9.clients.server.authorizer.authorizer import Authorizer
from kafka_edu.v3_9.metadata.controller.controller_request_context import ControllerRequestContext
from kafka_edu.v3_9.metadata.metadata.authorizer.acl_mutator import AclMutator
from kafka_edu.v3_9.metadata.metadata.authorizer.standard_acl import StandardAcl
from kafka_edu.v3_9.raft.raft.internals.completable_future import CompletableFuture


class ClusterMetadataAuthorizer(Authorizer):
    @abstractmethod
    def set_acl_mutator(self, acl_mutator: AclMutator | None) -> None:
        """The active controller's QuorumController, on a controller."""

    @abstractmethod
    def acl_mutator_or_exception(self) -> AclMutator: ...

    @abstractmethod
    def complete_initial_load(self, e: BaseException | None = None) -> None:
        """The ACLs are loaded up to the high watermark (or, with `e`, they never will be)."""

    @abstractmethod
    def load_snapshot(self, acls: Mapping[uuid.UUID, StandardAcl]) -> None: ...

    @abstractmethod
    def add_acl(self, id: uuid.UUID, acl: StandardAcl) -> None: ...

    @abstractmethod
    def remove_acl(self, id: uuid.UUID) -> None: ...

    def create_acls(self, request_context: Any,
                    acl_bindings: Sequence[AclBinding]) -> list[CompletableFuture[AclCreateResult]]:
        """One future per binding; each completes (never exceptionally) with the controller's result for it."""
        futures: list[CompletableFuture[AclCreateResult]] = [CompletableFuture() for _ in acl_bindings]
        acl_mutator = self.acl_mutator_or_exception()
        context = _controller_request_context(request_context)

        def when_complete(f: Future[list[AclCreateResult]]) -> None:
            throwable = f.exception()
            results = f.result() if throwable is None else None
            if throwable is None and len(results) != len(futures):
                throwable = UnknownServerException(f"Invalid size of result set from controller. Expected "
                                                   f"{len(futures)}; got {len(results)}")
            if throwable is None:
                for future, result in zip(futures, results, strict=True):
                    future.complete(result)
            else:
                for future in futures:
                    future.complete(AclCreateResult(_as_api_exception(throwable)))
        acl_mutator.create_acls(context, acl_bindings).add_done_callback(when_complete)
        return futures

    def delete_acls(self, request_context: Any,
                    filters: Sequence[AclBindingFilter]) -> list[CompletableFuture[AclDeleteResult]]:
        futures: list[CompletableFuture[AclDeleteResult]] = [CompletableFuture() for _ in filters]
        acl_mutator = self.acl_mutator_or_exception()
        context = _controller_request_context(request_context)

        def when_complete(f: Future[list[AclDeleteResult]]) -> None:
            throwable = f.exception()
            results = f.result() if throwable is None else None
            if throwable is None and len(results) != len(futures):
                throwable = UnknownServerException(f"Invalid size of result set from controller. Expected "
                                                   f"{len(futures)}; got {len(results)}")
            if throwable is None:
                for future, result in zip(futures, results, strict=True):
                    future.complete(result)
            else:
                for future in futures:
                    future.complete(AclDeleteResult.of_exception(_as_api_exception(throwable)))
        acl_mutator.delete_acls(context, filters).add_done_callback(when_complete)
        return futures


def _as_api_exception(throwable: BaseException) -> BaseException:
    if isinstance(throwable, ApiException):
        return throwable
    api_error = ApiError.from_throwable(throwable)
    return UnknownServerException(api_error.message) if api_error.message else UnknownServerException()


def _controller_request_context(request_context: Any) -> ControllerRequestContext:
    """new ControllerRequestContext(requestContext, OptionalLong.empty()): the header and principal, no deadline."""
    header = getattr(request_context, "header", None)
    header_data = None
    if header is not None:
        header_data = RequestHeader(request_api_key=int(header.api_key), request_api_version=header.api_version,
                                    correlation_id=header.correlation_id, client_id=header.client_id)
    return ControllerRequestContext(header_data, str(getattr(request_context, "principal", "User:ANONYMOUS")), None)
