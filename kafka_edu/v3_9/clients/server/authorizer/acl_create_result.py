"""Port of clients/src/main/java/org/apache/kafka/server/authorizer/{AclCreateResult,AclDeleteResult}.java (Kafka 3.9):
what an authorizer reports for each ACL created and for each filter of a delete."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import ClassVar

from kafka_edu.v3_9.clients.common.acl.acl_binding import AclBinding


@dataclass(frozen=True)
class AclCreateResult:
    """`exception` is None when the ACL was created (or already existed)."""

    SUCCESS: ClassVar[AclCreateResult]

    exception: BaseException | None = None


AclCreateResult.SUCCESS = AclCreateResult()


@dataclass(frozen=True)
class AclBindingDeleteResult:
    """One ACL a filter matched, and why it could not be deleted (None when it was)."""

    acl_binding: AclBinding
    exception: BaseException | None = None


@dataclass(frozen=True)
class AclDeleteResult:
    """The ACLs one filter deleted, or the exception that failed the whole filter."""

    acl_binding_delete_results: Sequence[AclBindingDeleteResult] = field(default_factory=tuple)
    exception: BaseException | None = None

    @staticmethod
    def of_exception(exception: BaseException) -> AclDeleteResult:
        return AclDeleteResult((), exception)
