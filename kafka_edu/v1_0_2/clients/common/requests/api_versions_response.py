"""Port of clients/src/main/java/org/apache/kafka/common/requests/ApiVersionsResponse.java (Kafka 1.0.2): the APIs a
broker serves, each with its range of versions, as its ApiVersions response lists them.

1.0.2 builds the list from its own ApiKeys (createApiVersionsResponse: each key from its oldest to its latest
version), and its network threads parse only those versions (ApiKeys.isVersionSupported). This port speaks through
3.9's ApiKeys, whose schemas (kio's) reach far newer versions, so the broker hands in the ranges it serves and this
one list answers both questions; ApiKeys itself is left as it is for everyone else in the process.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from kafka_edu.v3_9.clients.common.protocol.api_keys import ApiKeys, api_version_entries


@dataclass(frozen=True)
class ApiVersion:
    """ApiVersionsResponse.ApiVersion: one API and the versions of it the broker accepts."""

    api_key: ApiKeys
    min_version: int
    max_version: int


class ApiVersionsResponse:
    """The `api_versions` of a broker's ApiVersions answer (its error code and throttle time are the request's)."""

    def __init__(self, api_versions: Iterable[ApiVersion]) -> None:
        self.api_key_to_api_version: dict[ApiKeys, ApiVersion] = {v.api_key: v for v in api_versions}

    def api_versions(self) -> list[ApiVersion]:
        return list(self.api_key_to_api_version.values())

    def api_version(self, api_key: ApiKeys) -> ApiVersion | None:
        return self.api_key_to_api_version.get(api_key)

    def is_api_enabled(self, api_key: ApiKeys, api_version: int) -> bool:
        """ApiKeys.isVersionSupported over this list: the versions the network threads parse; any other closes the
        connection (ApiVersions excepted: it is answered UNSUPPORTED_VERSION)."""
        version = self.api_key_to_api_version.get(api_key)
        return version is not None and version.min_version <= api_version <= version.max_version

    def api_version_entries(self, response_version: int) -> tuple[Any, ...]:
        """toStruct's `api_versions` array, in the ApiVersionsResponse version the client asked for."""
        return api_version_entries(response_version, {v.api_key: (v.min_version, v.max_version)
                                                      for v in self.api_key_to_api_version.values()})


def create_api_versions_response(supported: Mapping[ApiKeys, tuple[int, int]]) -> ApiVersionsResponse:
    """createApiVersionsResponse over the broker's ranges (1.0.2 reads them off its ApiKeys)."""
    return ApiVersionsResponse(ApiVersion(api_key, low, high) for api_key, (low, high) in supported.items())
