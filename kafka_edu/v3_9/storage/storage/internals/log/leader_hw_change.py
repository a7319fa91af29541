"""Port of storage/src/main/java/org/apache/kafka/storage/internals/log/LeaderHwChange.java (Kafka 3.9): what an
append as leader did to the high watermark."""

from __future__ import annotations

import enum


class LeaderHwChange(enum.Enum):
    NONE = "NONE"
    INCREASED = "INCREASED"
    SAME = "SAME"
