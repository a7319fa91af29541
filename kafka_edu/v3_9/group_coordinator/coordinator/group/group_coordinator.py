"""Port of group-coordinator/src/main/java/org/apache/kafka/coordinator/group/GroupCoordinator.java (Kafka 3.9).

What KafkaApis asks of a group coordinator (GroupCoordinatorService on a KRaft broker). Requests are kio request
objects (or objects with their field names), and each future yields the
response's fields as a dict keyed by kio's snake_case names, nested entities as dicts: Java's *ResponseData. Java's
Duration is milliseconds, OptionalInt is `int | None`, Properties a dict of strings, IntSupplier a callable.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable
from typing import Any

from kafka_edu.v1_0_2.clients.common.requests.transaction_result import TransactionResult
from kafka_edu.v3_9.clients.common.requests.request_context import RequestContext
from kafka_edu.v3_9.clients.common.topic_partition import TopicPartition
from kafka_edu.v3_9.metadata.image.metadata_delta import MetadataDelta
from kafka_edu.v3_9.metadata.image.metadata_image import MetadataImage
from kafka_edu.v3_9.raft.raft.internals.completable_future import CompletableFuture


class GroupCoordinator(ABC):
    """Every API answers with a future; errors are mostly carried in the response's error codes."""

    @abstractmethod
    def consumer_group_heartbeat(self, context: RequestContext, request: Any) -> CompletableFuture[dict[str, Any]]:
        ...

    @abstractmethod
    def share_group_heartbeat(self, context: RequestContext, request: Any) -> CompletableFuture[dict[str, Any]]:
        ...

    @abstractmethod
    def join_group(self, context: RequestContext, request: Any,
                   buffer_supplier: Any = None) -> CompletableFuture[dict[str, Any]]:
        ...

    @abstractmethod
    def sync_group(self, context: RequestContext, request: Any,
                   buffer_supplier: Any = None) -> CompletableFuture[dict[str, Any]]:
        ...

    @abstractmethod
    def heartbeat(self, context: RequestContext, request: Any) -> CompletableFuture[dict[str, Any]]:
        ...

    @abstractmethod
    def leave_group(self, context: RequestContext, request: Any) -> CompletableFuture[dict[str, Any]]:
        ...

    @abstractmethod
    def list_groups(self, context: RequestContext, request: Any) -> CompletableFuture[dict[str, Any]]:
        ...

    @abstractmethod
    def describe_groups(self, context: RequestContext,
                        group_ids: list[str | None]) -> CompletableFuture[list[dict[str, Any]]]:
        ...

    @abstractmethod
    def consumer_group_describe(self, context: RequestContext,
                                group_ids: list[str | None]) -> CompletableFuture[list[dict[str, Any]]]:
        ...

    @abstractmethod
    def share_group_describe(self, context: RequestContext,
                             group_ids: list[str | None]) -> CompletableFuture[list[dict[str, Any]]]:
        ...

    @abstractmethod
    def delete_groups(self, context: RequestContext, group_ids: list[str | None],
                      buffer_supplier: Any = None) -> CompletableFuture[list[dict[str, Any]]]:
        ...

    @abstractmethod
    def fetch_offsets(self, context: RequestContext, request: Any,
                      require_stable: bool) -> CompletableFuture[dict[str, Any]]:
        ...

    @abstractmethod
    def fetch_all_offsets(self, context: RequestContext, request: Any,
                          require_stable: bool) -> CompletableFuture[dict[str, Any]]:
        ...

    @abstractmethod
    def commit_offsets(self, context: RequestContext, request: Any,
                       buffer_supplier: Any = None) -> CompletableFuture[dict[str, Any]]:
        ...

    @abstractmethod
    def commit_transactional_offsets(self, context: RequestContext, request: Any,
                                     buffer_supplier: Any = None) -> CompletableFuture[dict[str, Any]]:
        ...

    @abstractmethod
    def delete_offsets(self, context: RequestContext, request: Any,
                       buffer_supplier: Any = None) -> CompletableFuture[dict[str, Any]]:
        ...

    @abstractmethod
    def complete_transaction(self, tp: TopicPartition, producer_id: int, producer_epoch: int, coordinator_epoch: int,
                             result: TransactionResult, timeout_ms: int) -> CompletableFuture[None]:
        """The markers of a transaction, written to __consumer_offsets on the transaction coordinator's request."""

    @abstractmethod
    def partition_for(self, group_id: str) -> int: ...

    @abstractmethod
    def on_transaction_completed(self, producer_id: int, partitions: Iterable[TopicPartition],
                                 transaction_result: TransactionResult) -> None: ...

    @abstractmethod
    def on_partitions_deleted(self, topic_partitions: list[TopicPartition], buffer_supplier: Any = None) -> None:
        """Blocks until the offsets of the deleted partitions are removed."""

    @abstractmethod
    def on_election(self, group_metadata_partition_index: int, group_metadata_partition_leader_epoch: int) -> None:
        """This broker leads that __consumer_offsets partition now: load it."""

    @abstractmethod
    def on_resignation(self, group_metadata_partition_index: int,
                       group_metadata_partition_leader_epoch: int | None) -> None:
        """No longer the leader (an epoch of None: the topic was deleted): unload it."""

    @abstractmethod
    def on_new_metadata_image(self, new_image: MetadataImage, delta: MetadataDelta) -> None: ...

    @abstractmethod
    def group_metadata_topic_configs(self) -> dict[str, str]: ...

    @abstractmethod
    def startup(self, group_metadata_topic_partition_count: Callable[[], int]) -> None: ...

    @abstractmethod
    def shutdown(self) -> None: ...
