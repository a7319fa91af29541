"""Port of metadata/src/main/java/org/apache/kafka/image/AclsDelta.java (Kafka 3.9): the ACLs added and removed since
an AclsImage, in the order they happened."""

from __future__ import annotations

import uuid
from typing import Any

from kafka_edu.v1_0_2.clients.common.errors import IllegalStateException
from kafka_edu.v3_9.metadata.image.acls_image import AclsImage
from kafka_edu.v3_9.metadata.metadata.authorizer.standard_acl import StandardAcl
from kafka_edu.v3_9.metadata.metadata.authorizer.standard_acl_with_id import StandardAclWithId


class AclsDelta:
    def __init__(self, image: AclsImage) -> None:
        self.image = image
        # insertion-ordered: the AclPublisher applies the changes in the order they were made; None: removed
        self._changes: dict[uuid.UUID, StandardAcl | None] = {}

    def changes(self) -> dict[uuid.UUID, StandardAcl | None]:
        return self._changes

    def finish_snapshot(self) -> None:
        for acl_id in self.image.acls():
            if acl_id not in self._changes:
                self._changes[acl_id] = None

    def handle_metadata_version_change(self, new_version: Any) -> None:
        pass  # the ACL records are the same at every metadata.version

    def replay(self, record: Any) -> None:
        """An AccessControlEntryRecord."""
        acl_with_id = StandardAclWithId.from_record(record)
        self._changes[acl_with_id.id] = acl_with_id.acl

    def replay_remove(self, record: Any) -> None:
        """A RemoveAccessControlEntryRecord: an ACL added and removed within this delta is forgotten."""
        if record.id in self.image.acls():
            self._changes[record.id] = None
        elif record.id in self._changes:
            del self._changes[record.id]
        else:
            raise IllegalStateException(f"Failed to find existing ACL with ID {record.id} in either image or changes")

    def apply(self) -> AclsImage:
        new_acls: dict[uuid.UUID, StandardAcl] = {}
        for acl_id, acl in self.image.acls().items():
            if acl_id not in self._changes:
                new_acls[acl_id] = acl
            elif self._changes[acl_id] is not None:
                new_acls[acl_id] = self._changes[acl_id]  # type: ignore[assignment]
        for acl_id, change in self._changes.items():
            if acl_id not in new_acls and change is not None:
                new_acls[acl_id] = change
        return AclsImage(new_acls)

    def __str__(self) -> str:
        return "AclsDelta(, changes=" + ", ".join(f"{k}={v}" for k, v in self._changes.items()) + ")"
