"""Port of metadata/src/main/java/org/apache/kafka/image/AclsImage.java (Kafka 3.9): the cluster's ACLs by id."""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from types import MappingProxyType
from typing import ClassVar

from kafka_edu.v3_9.metadata.image.writer.image_writer import ImageWriter
from kafka_edu.v3_9.metadata.image.writer.image_writer_options import ImageWriterOptions
from kafka_edu.v3_9.metadata.metadata.authorizer.standard_acl import StandardAcl
from kafka_edu.v3_9.metadata.metadata.authorizer.standard_acl_with_id import StandardAclWithId


class AclsImage:
    EMPTY: ClassVar[AclsImage]

    def __init__(self, acls: Mapping[uuid.UUID, StandardAcl]) -> None:
        self._acls: Mapping[uuid.UUID, StandardAcl] = MappingProxyType(dict(acls))

    def is_empty(self) -> bool:
        return not self._acls

    def acls(self) -> Mapping[uuid.UUID, StandardAcl]:
        return self._acls

    def write(self, writer: ImageWriter, options: ImageWriterOptions) -> None:
        # written whatever the metadata.version: KRaft images before 3.2-IV0 cannot be told apart from 3.0-IV1
        for acl_id, acl in self._acls.items():
            writer.write(0, StandardAclWithId(acl_id, acl).to_record())

    def __eq__(self, other: object) -> bool:
        return isinstance(other, AclsImage) and dict(self._acls) == dict(other._acls)

    def __hash__(self) -> int:
        return hash(frozenset(self._acls.items()))

    def __str__(self) -> str:
        return "AclsImage(" + ", ".join(f"{acl_id}={acl}" for acl_id, acl in self._acls.items()) + ")"


AclsImage.EMPTY = AclsImage({})
