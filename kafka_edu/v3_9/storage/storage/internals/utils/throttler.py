"""Port of storage/src/main/java/org/apache/kafka/storage/internals/utils/Throttler.java (Kafka 3.9): keeps a rate of
work (the cleaner's bytes read and written) below a desired rate by sleeping."""

from __future__ import annotations

import logging
import threading

from kafka_edu.v3_9.clients.common.utils.time import Time

LOG = logging.getLogger("org.apache.kafka.storage.internals.utils.Throttler")
MS_PER_SEC = 1000
NS_PER_SEC = 1_000_000_000


class Throttler:
    """`maybe_throttle(observed)` after each chunk of work; every `check_interval_ms` it compares the observed rate
    with the desired one and sleeps off the excess. The `metric_name` meter is not ported (no metrics registry)."""

    def __init__(self, desired_rate_per_sec: float, check_interval_ms: int, metric_name: str, units: str,
                 time: Time) -> None:
        self._desired_rate_per_sec = desired_rate_per_sec
        self._check_interval_ns = check_interval_ms * 1_000_000
        self._time = time
        self._lock = threading.Lock()
        self._period_start_ns = time.nanoseconds()
        self._observed_so_far = 0.0

    def update_desired_rate_per_sec(self, updated_desired_rate_per_sec: float) -> None:
        self._desired_rate_per_sec = updated_desired_rate_per_sec

    def desired_rate_per_sec(self) -> float:
        return self._desired_rate_per_sec

    def maybe_throttle(self, observed: float) -> None:
        current_desired_rate_per_sec = self._desired_rate_per_sec
        with self._lock:
            self._observed_so_far += observed
            now = self._time.nanoseconds()
            elapsed_ns = now - self._period_start_ns
            # a whole interval has passed and something was observed: maybe sleep
            if elapsed_ns > self._check_interval_ns and self._observed_so_far > 0:
                rate_in_secs = (self._observed_so_far * NS_PER_SEC) / elapsed_ns
                if rate_in_secs > current_desired_rate_per_sec:
                    desired_rate_ms = current_desired_rate_per_sec / MS_PER_SEC
                    elapsed_ms = elapsed_ns // 1_000_000
                    sleep_time = round(self._observed_so_far / desired_rate_ms - elapsed_ms)
                    if sleep_time > 0:
                        LOG.debug("Natural rate is %s per second but desired rate is %s, sleeping for %d ms to "
                                  "compensate.", rate_in_secs, current_desired_rate_per_sec, sleep_time)
                        self._time.sleep(sleep_time)
                self._period_start_ns = self._time.nanoseconds()
                self._observed_so_far = 0.0
