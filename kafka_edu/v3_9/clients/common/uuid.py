"""Port of clients/src/main/java/org/apache/kafka/common/Uuid.java and DirectoryId.java (Kafka 3.9)."""

from __future__ import annotations

import base64
import re
import struct
import uuid as _py_uuid
from dataclasses import dataclass

from kafka_edu.v1_0_2.clients.common.errors import IllegalArgumentException

_LONG = struct.Struct(">qq")
_URL_SAFE = re.compile(r"[A-Za-z0-9_-]*")


@dataclass(frozen=True, order=False)
class Uuid:
    """A 128-bit id printed as 22 characters of URL-safe base64 (topic ids, cluster ids, directory ids)."""

    most_significant_bits: int
    least_significant_bits: int

    @staticmethod
    def _unsafe_random_uuid() -> Uuid:
        msb, lsb = _LONG.unpack(_py_uuid.uuid4().bytes)
        return Uuid(msb, lsb)

    @staticmethod
    def random_uuid() -> Uuid:
        """A version-4 id that is never a reserved one and never prints with a leading dash (a CLI would take it
        for an option)."""
        uuid = Uuid._unsafe_random_uuid()
        while uuid in RESERVED or str(uuid).startswith("-"):
            uuid = Uuid._unsafe_random_uuid()
        return uuid

    def __str__(self) -> str:
        return base64.urlsafe_b64encode(self.to_bytes()).decode("ascii").rstrip("=")

    def __repr__(self) -> str:
        return str(self)

    def to_bytes(self) -> bytes:
        return _LONG.pack(self.most_significant_bits, self.least_significant_bits)

    @staticmethod
    def from_bytes(data: bytes) -> Uuid:
        msb, lsb = _LONG.unpack(data)
        return Uuid(msb, lsb)

    @staticmethod
    def from_string(text: str) -> Uuid:
        """Parse the base64 form; IllegalArgumentException with Java's wording for anything else."""
        if len(text) > 24:
            raise IllegalArgumentException(
                f"Input string with prefix `{text[:24]}` is too long to be decoded as a base64 UUID")
        decoded = _url_decode(text)
        if len(decoded) != 16:
            raise IllegalArgumentException(
                f"Input string `{text}` decoded as {len(decoded)} bytes, which is not equal to the expected 16 "
                "bytes of a base64-encoded UUID")
        return Uuid.from_bytes(decoded)

    def __lt__(self, other: Uuid) -> bool:  # compareTo: unsigned, most significant half first
        mask = (1 << 64) - 1
        return ((self.most_significant_bits & mask, self.least_significant_bits & mask)
                < (other.most_significant_bits & mask, other.least_significant_bits & mask))


def _url_decode(text: str) -> bytes:
    """java.util.Base64.getUrlDecoder().decode: the URL-safe alphabet, padding optional."""
    body = text.rstrip("=")
    if len(text) - len(body) > 2 or not _URL_SAFE.fullmatch(body):
        bad = next((c for c in text if not (c.isascii() and (c.isalnum() or c in "-_="))), "=")
        raise IllegalArgumentException(f"Illegal base64 character {ord(bad):x}")
    if len(body) % 4 == 1:
        raise IllegalArgumentException("Last unit does not have enough valid bits")
    return base64.urlsafe_b64decode(body + "=" * (-len(body) % 4))


ONE_UUID = Uuid(0, 1)
METADATA_TOPIC_ID = ONE_UUID  # the id of __cluster_metadata
ZERO_UUID = Uuid(0, 0)
RESERVED = frozenset({ZERO_UUID, ONE_UUID})


class DirectoryId:
    """org.apache.kafka.common.DirectoryId: the log-directory ids that mean something other than a directory."""

    UNASSIGNED = Uuid(0, 0)  # a replica not yet placed in a directory
    LOST = Uuid(0, 1)  # a replica whose directory is offline
    MIGRATING = Uuid(0, 2)  # a replica of a broker moving from ZooKeeper

    @staticmethod
    def reserved(uuid: Uuid) -> bool:
        """Ids whose high half is zero and low half below 100 (compared signed, as Java does) are kept for such
        meanings."""
        return uuid.most_significant_bits == 0 and uuid.least_significant_bits < 100
