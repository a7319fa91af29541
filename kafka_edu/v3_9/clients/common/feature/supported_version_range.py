"""Port of clients/src/main/java/org/apache/kafka/common/feature/SupportedVersionRange.java and BaseVersionRange.java
(Kafka 3.9): the [min, max] levels of a feature a node supports."""

from __future__ import annotations

from collections.abc import Mapping

from kafka_edu.v1_0_2.clients.common.errors import IllegalArgumentException

_MIN_VERSION_KEY_LABEL = "min_version"
_MAX_VERSION_KEY_LABEL = "max_version"


class BaseVersionRange:
    """An immutable min/max pair; the labels only name the two values in a map."""

    def __init__(self, min_key_label: str, min_value: int, max_key_label: str, max_value: int) -> None:
        if min_value < 0 or max_value < 0 or max_value < min_value:
            raise IllegalArgumentException(
                "Expected minValue >= 0, maxValue >= 0 and maxValue >= minValue, but received"
                f" minValue: {min_value}, maxValue: {max_value}")
        if not min_key_label:
            raise IllegalArgumentException("Expected minKeyLabel to be non-empty.")
        if not max_key_label:
            raise IllegalArgumentException("Expected maxKeyLabel to be non-empty.")
        self._min_key_label = min_key_label
        self._min_value = min_value
        self._max_key_label = max_key_label
        self._max_value = max_value

    def min(self) -> int:
        return self._min_value

    def max(self) -> int:
        return self._max_value

    def __str__(self) -> str:
        return f"{type(self).__name__}[{_map_to_string(self.to_map())}]"

    __repr__ = __str__

    def to_map(self) -> dict[str, int]:
        return {self._min_key_label: self.min(), self._max_key_label: self.max()}

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if other is None or type(self) is not type(other):
            return False
        assert isinstance(other, BaseVersionRange)
        return (self._min_key_label == other._min_key_label and self._min_value == other._min_value
                and self._max_key_label == other._max_key_label and self._max_value == other._max_value)

    def __hash__(self) -> int:
        return hash((self._min_key_label, self._min_value, self._max_key_label, self._max_value))

    @staticmethod
    def value_or_throw(key: str, version_range_map: Mapping[str, int]) -> int:
        value = version_range_map.get(key)
        if value is None:
            raise IllegalArgumentException(f"{key} absent in [{_map_to_string(version_range_map)}]")
        return value


class SupportedVersionRange(BaseVersionRange):
    def __init__(self, min_version: int, max_version: int | None = None) -> None:
        # Java's one-argument constructor takes the max and starts the range at 0
        if max_version is None:
            min_version, max_version = 0, min_version
        super().__init__(_MIN_VERSION_KEY_LABEL, min_version, _MAX_VERSION_KEY_LABEL, max_version)

    @staticmethod
    def from_map(version_range_map: Mapping[str, int]) -> SupportedVersionRange:
        return SupportedVersionRange(
            BaseVersionRange.value_or_throw(_MIN_VERSION_KEY_LABEL, version_range_map),
            BaseVersionRange.value_or_throw(_MAX_VERSION_KEY_LABEL, version_range_map))

    def is_incompatible_with(self, version: int) -> bool:
        return self.min() > version or self.max() < version


def _map_to_string(version_range_map: Mapping[str, int]) -> str:
    return ", ".join(f"{key}:{value}" for key, value in version_range_map.items())
