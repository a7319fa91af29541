"""Port of clients/src/main/java/org/apache/kafka/common/replica/ReplicaView.java (Kafka 3.9): a replica as a replica
selector sees it: its endpoint, log end offset and time since it last caught up."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


class ReplicaView:
    def endpoint(self) -> Any:
        raise NotImplementedError

    def log_end_offset(self) -> int:
        raise NotImplementedError

    def time_since_last_caught_up_ms(self) -> int:
        raise NotImplementedError

    @staticmethod
    def comparator_key(replica_info: ReplicaView) -> tuple[int, int, int]:
        """ReplicaView.comparator(): highest log end offset, then most recently caught up, then highest id."""
        return (replica_info.log_end_offset(), -replica_info.time_since_last_caught_up_ms(),
                replica_info.endpoint().id)


@dataclass(frozen=True)
class DefaultReplicaView(ReplicaView):
    _endpoint: Any  # Node
    _log_end_offset: int
    _time_since_last_caught_up_ms: int

    def endpoint(self) -> Any:
        return self._endpoint

    def log_end_offset(self) -> int:
        return self._log_end_offset

    def time_since_last_caught_up_ms(self) -> int:
        return self._time_since_last_caught_up_ms

    def __str__(self) -> str:
        return (f"DefaultReplicaView{{endpoint={self._endpoint}, logEndOffset={self._log_end_offset}, "
                f"timeSinceLastCaughtUpMs={self._time_since_last_caught_up_ms}}}")
