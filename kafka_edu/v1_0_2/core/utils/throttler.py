"""Port of core/src/main/scala/kafka/utils/Throttler.scala (Kafka 1.0.2): sleeps the caller so that what it reports
through `maybe_throttle` stays under a rate (the log cleaner's `log.cleaner.io.max.bytes.per.second`)."""

from __future__ import annotations

import logging
import threading
from typing import Any

from kafka_edu.v1_0_2.clients.common.utils.time import SYSTEM

log = logging.getLogger("kafka.utils.Throttler")

_MS_PER_SEC = 1000
_NS_PER_SEC = 1_000_000_000
_NS_PER_MS = 1_000_000


class Throttler:
    """`desired_rate_per_sec` of whatever is observed, checked every `check_interval_ms`; with `throttle_down`
    False it would hold a rate up instead (Kafka's option; the cleaner throttles down). `time` has milliseconds(),
    nanoseconds() and sleep(ms), as Kafka's Time."""

    def __init__(self, desired_rate_per_sec: float, check_interval_ms: int = 100, throttle_down: bool = True,
                 metric_name: str = "throttler", units: str = "entries", time: Any = None) -> None:
        self.desired_rate_per_sec = desired_rate_per_sec
        self.throttle_down = throttle_down
        self.metric_name = metric_name  # a meter in Kafka (JMX); only named here
        self.units = units
        self.time = time if time is not None else SYSTEM
        self._lock = threading.Lock()
        self._check_interval_ns = check_interval_ms * _NS_PER_MS
        self._period_start_ns = self.time.nanoseconds()
        self._observed_so_far = 0.0

    def maybe_throttle(self, observed: float) -> None:
        with self._lock:
            self._observed_so_far += observed
            now = self.time.nanoseconds()
            elapsed_ns = now - self._period_start_ns
            if elapsed_ns > self._check_interval_ns and self._observed_so_far > 0:
                rate_in_secs = (self._observed_so_far * _NS_PER_SEC) / elapsed_ns
                need_adjustment = not (self.throttle_down ^ (rate_in_secs > self.desired_rate_per_sec))
                if need_adjustment:
                    desired_rate_ms = self.desired_rate_per_sec / _MS_PER_SEC
                    elapsed_ms = elapsed_ns // _NS_PER_MS
                    sleep_time = round(self._observed_so_far / desired_rate_ms - elapsed_ms)
                    if sleep_time > 0:
                        log.debug("Natural rate is %f per second but desired rate is %f, sleeping for %d ms to "
                                  "compensate.", rate_in_secs, self.desired_rate_per_sec, sleep_time)
                        self.time.sleep(sleep_time)
                self._period_start_ns = now
                self._observed_so_far = 0.0
