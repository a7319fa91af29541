"""Port of metadata/src/main/java/org/apache/kafka/controller/ControllerRequestContext.java (Kafka 3.9)."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class ControllerRequestContext:
    """Who asked (the request header and principal, when a request carried them) and by when the controller must
    have started the operation (a monotonic deadline in ns; None: no deadline)."""

    request_header: Any = None
    principal: str = "User:ANONYMOUS"
    deadline_ns: int | None = None

    def request_api_version(self) -> int | None:
        """The version of the request being served (AlterPartition answers by it), None without a header."""
        return None if self.request_header is None else self.request_header.request_api_version

    @staticmethod
    def request_timeout_ms_to_deadline_ns(now_ns: int, timeout_ms: int) -> int:
        return now_ns + timeout_ms * 1_000_000

    @staticmethod
    def with_timeout(timeout_ms: int, request_header: Any = None) -> ControllerRequestContext:
        """A context whose deadline is `timeout_ms` from now (ControllerApis takes it from the request)."""
        deadline = ControllerRequestContext.request_timeout_ms_to_deadline_ns(time.monotonic_ns(), timeout_ms)
        return ControllerRequestContext(request_header, deadline_ns=deadline)


ANONYMOUS_CONTEXT = ControllerRequestContext()
