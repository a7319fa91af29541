"""Port of server-common/src/test/java/org/apache/kafka/server/util/MockTime.java (Kafka 3.9): the clients' MockTime
without auto-tick, with a MockScheduler that every `sleep` ticks."""

from __future__ import annotations

import time as _time

from kafka_edu.v3_9.clients.common.utils.mock_time import MockTime as _ClientsMockTime
from kafka_edu.v3_9.server_common.server.util.mock_scheduler import MockScheduler


class MockTime(_ClientsMockTime):
    def __init__(self, current_time_ms: int | None = None, current_hi_res_time_ns: int | None = None) -> None:
        super().__init__(0, int(_time.time() * 1000) if current_time_ms is None else current_time_ms,
                         _time.monotonic_ns() if current_hi_res_time_ns is None else current_hi_res_time_ns)
        self.scheduler = MockScheduler(self)

    def sleep(self, ms: int) -> None:
        super().sleep(ms)
        self.scheduler.tick()
