"""Port of metadata/src/main/java/org/apache/kafka/metadata/authorizer/AclMutator.java (Kafka 3.9): what creates and
deletes ACLs for a ClusterMetadataAuthorizer (the active controller)."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from concurrent.futures import Future
from typing import Any

from kafka_edu.v3_9.clients.common.acl.acl_binding import AclBinding, AclBindingFilter


class AclMutator(ABC):
    @abstractmethod
    def create_acls(self, context: Any, acl_bindings: Sequence[AclBinding]) -> Future[list[Any]]:
        """One AclCreateResult per binding, once the records are committed."""

    @abstractmethod
    def delete_acls(self, context: Any, acl_binding_filters: Sequence[AclBindingFilter]) -> Future[list[Any]]:
        """One AclDeleteResult per filter, once the records are committed."""
