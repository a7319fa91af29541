"""Port of clients/src/main/java/org/apache/kafka/common/utils/ExponentialBackoff.java (Kafka 3.9)."""

from __future__ import annotations

import math
import random
import sys


class ExponentialBackoff:
    """initial_interval * multiplier ** attempts, capped at max_interval, each value scaled by a random factor in
    [1 - jitter, 1 + jitter) so that many clients that failed together do not retry together."""

    def __init__(self, initial_interval: int, multiplier: int, max_interval: int, jitter: float) -> None:
        self.initial_interval = min(max_interval, initial_interval)
        self.multiplier = multiplier
        self.max_interval = max_interval
        self.jitter = jitter
        # the attempt count past which the cap always applies
        self.exp_max = (math.log(max_interval / max(initial_interval, 1)) / math.log(multiplier)
                        if max_interval > initial_interval else 0.0)

    def backoff(self, attempts: int) -> int:
        if self.exp_max == 0:
            return self.initial_interval
        exp = min(attempts, self.exp_max)
        term = self.initial_interval * self.multiplier ** exp
        random_factor = 1.0 if self.jitter < sys.float_info.min else random.uniform(1 - self.jitter, 1 + self.jitter)
        backoff_value = int(random_factor * term)
        return self.max_interval if backoff_value > self.max_interval else backoff_value
