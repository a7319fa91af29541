"""Port of metadata/src/main/java/org/apache/kafka/metadata/authorizer/StandardAclWithId.java (Kafka 3.9): an ACL and
the id its AccessControlEntryRecord gave it."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

from kafka_edu.v3_9.clients.common.acl.acl_binding import AclBinding
from kafka_edu.v3_9.metadata.common.metadata.access_control_entry_record import AccessControlEntryRecord
from kafka_edu.v3_9.metadata.metadata.authorizer.standard_acl import StandardAcl


@dataclass(frozen=True)
class StandardAclWithId:
    id: uuid.UUID
    acl: StandardAcl

    @staticmethod
    def from_record(record: Any) -> StandardAclWithId:
        return StandardAclWithId(record.id, StandardAcl.from_record(record))

    def to_record(self) -> AccessControlEntryRecord:
        acl = self.acl
        return AccessControlEntryRecord(id=self.id, resource_type=acl.resource_type.code(),
                                        resource_name=acl.resource_name, pattern_type=acl.pattern_type.code(),
                                        principal=acl.principal, host=acl.host, operation=acl.operation.code(),
                                        permission_type=acl.permission_type.code())

    def to_binding(self) -> AclBinding:
        return self.acl.to_binding()

    def __str__(self) -> str:
        return f"StandardAclWithId(id={self.id}, acl={self.acl})"
