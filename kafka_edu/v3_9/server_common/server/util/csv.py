"""Port of server-common/src/main/java/org/apache/kafka/server/util/Csv.java (Kafka 3.9): comma-separated lists and
`key:value` maps as configs write them."""

from __future__ import annotations

import re

_COMMA = re.compile(r"\s*,\s*")


def parse_csv_map(value: str | None) -> dict[str, str]:
    """`k1:v1, k2:v2` -> {k1: v1, k2: v2}; the last ':' splits, so an IPv6 address may be a key."""
    result: dict[str, str] = {}
    if not value:
        return result
    for entry in _split(value):
        last_colon = entry.rindex(":")  # Java's substring(0, -1) fails too: a ValueError here
        result[entry[:last_colon].strip()] = entry[last_colon + 1:].strip()
    return result


def parse_csv_list(value: str | None) -> list[str]:
    if not value:
        return []
    return [v for v in _split(value) if v]


def _split(value: str) -> list[str]:
    """String.split(regex): trailing empty strings dropped."""
    parts = _COMMA.split(value)
    while parts and parts[-1] == "":
        parts.pop()
    return parts
