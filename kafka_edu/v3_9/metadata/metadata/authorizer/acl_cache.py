"""Port of metadata/src/main/java/org/apache/kafka/metadata/authorizer/AclCache.java (Kafka 3.9): the ACLs, sorted and
by id, as an immutable value: every change makes a new cache, so a reader keeps a consistent one."""

from __future__ import annotations

import bisect
import uuid
from collections.abc import Iterable, Mapping, Sequence
from types import MappingProxyType

from kafka_edu.v3_9.clients.common.acl.acl_binding import AclBinding, AclBindingFilter
from kafka_edu.v3_9.metadata.metadata.authorizer.standard_acl import StandardAcl


class AclCache:
    """`acls_by_resource` is a sorted tuple (3.9's ImmutableNavigableSet), searched with bisect."""

    def __init__(self, acls_by_resource: Sequence[StandardAcl] = (),
                 acls_by_id: Mapping[uuid.UUID, StandardAcl] | None = None) -> None:
        self._acls_by_resource: tuple[StandardAcl, ...] = tuple(acls_by_resource)
        self._acls_by_id: Mapping[uuid.UUID, StandardAcl] = MappingProxyType(dict(acls_by_id or {}))

    def acls_by_resource(self) -> tuple[StandardAcl, ...]:
        return self._acls_by_resource

    def tail_index(self, exemplar: StandardAcl) -> int:
        """Where NavigableSet.tailSet(exemplar, inclusive=true) starts."""
        return bisect.bisect_left(self._acls_by_resource, exemplar)

    def acls(self, filter: AclBindingFilter) -> Iterable[AclBinding]:
        acl_binding_list = []
        for acl in self._acls_by_resource:
            acl_binding = acl.to_binding()
            if filter.matches(acl_binding):
                acl_binding_list.append(acl_binding)
        return acl_binding_list

    def count(self) -> int:
        return len(self._acls_by_id)

    def get_acl(self, id: uuid.UUID) -> StandardAcl | None:
        return self._acls_by_id.get(id)

    def add_acl(self, id: uuid.UUID, acl: StandardAcl) -> AclCache:
        if id in self._acls_by_id:
            raise RuntimeError(f"An ACL with ID {id} already exists.")
        acls_by_id = {**self._acls_by_id, id: acl}
        index = self.tail_index(acl)
        if index < len(self._acls_by_resource) and self._acls_by_resource[index] == acl:
            raise RuntimeError(f"Unable to add the ACL with ID {id} to aclsByResource")
        acls_by_resource = self._acls_by_resource[:index] + (acl,) + self._acls_by_resource[index:]
        return AclCache(acls_by_resource, acls_by_id)

    def remove_acl(self, id: uuid.UUID) -> AclCache:
        acl = self._acls_by_id.get(id)
        if acl is None:
            raise RuntimeError(f"ID {id} not found in aclsById.")
        acls_by_id = {k: v for k, v in self._acls_by_id.items() if k != id}
        index = self.tail_index(acl)
        if index >= len(self._acls_by_resource) or self._acls_by_resource[index] != acl:
            raise RuntimeError(f"Unable to remove the ACL with ID {id} from aclsByResource")
        acls_by_resource = self._acls_by_resource[:index] + self._acls_by_resource[index + 1:]
        return AclCache(acls_by_resource, acls_by_id)
