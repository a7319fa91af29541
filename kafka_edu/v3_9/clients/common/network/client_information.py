"""Port of clients/src/main/java/org/apache/kafka/common/network/ClientInformation.java (Kafka 3.9): the client
software name and version a connection announced in its ApiVersionsRequest."""

from __future__ import annotations

UNKNOWN_NAME_OR_VERSION = "unknown"


class ClientInformation:
    UNKNOWN_NAME_OR_VERSION = UNKNOWN_NAME_OR_VERSION
    EMPTY: ClientInformation

    def __init__(self, software_name: str, software_version: str) -> None:
        self._software_name = software_name or UNKNOWN_NAME_OR_VERSION
        self._software_version = software_version or UNKNOWN_NAME_OR_VERSION

    def software_name(self) -> str:
        return self._software_name

    def software_version(self) -> str:
        return self._software_version

    def __str__(self) -> str:
        return f"ClientInformation(softwareName={self._software_name}, softwareVersion={self._software_version})"

    __repr__ = __str__

    def __hash__(self) -> int:
        return hash((self._software_name, self._software_version))

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, ClientInformation) and other._software_name == self._software_name
                and other._software_version == self._software_version)


ClientInformation.EMPTY = ClientInformation(UNKNOWN_NAME_OR_VERSION, UNKNOWN_NAME_OR_VERSION)
