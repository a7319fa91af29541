"""Port of metadata/src/main/java/org/apache/kafka/metadata/bootstrap/BootstrapDirectory.java and
BootstrapMetadata.java (Kafka 3.9): the metadata a new cluster's first active controller writes to its empty log."""

from __future__ import annotations

import os
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from kio.static.primitive import i16

from kafka_edu.v1_0_2.clients.common.record.file_records import FileRecords, MemoryRecords
from kafka_edu.v3_9.clients.common.utils.utils import atomic_move_with_fallback
from kafka_edu.v3_9.metadata.common.metadata.feature_level_record import FeatureLevelRecord
from kafka_edu.v3_9.metadata.metadata.metadata_record_serde import MetadataRecordSerde
from kafka_edu.v3_9.raft.raft.offset_and_epoch import OffsetAndEpoch
from kafka_edu.v3_9.raft.snapshot.file_raw_snapshot_reader import FileRawSnapshotReader
from kafka_edu.v3_9.raft.snapshot.raw_snapshot_writer import RawSnapshotWriter
from kafka_edu.v3_9.raft.snapshot.records_snapshot_reader import RecordsSnapshotReader
from kafka_edu.v3_9.raft.snapshot.records_snapshot_writer import RecordsSnapshotWriter
from kafka_edu.v3_9.raft.snapshot.snapshots import Snapshots
from kafka_edu.v3_9.server_common.server.common.api_message_and_version import ApiMessageAndVersion
from kafka_edu.v3_9.server_common.server.common.metadata_version import (
    FEATURE_NAME,
    MINIMUM_BOOTSTRAP_VERSION,
    MetadataVersion,
)

KRAFT_VERSION_FEATURE_NAME = "kraft.version"
BINARY_BOOTSTRAP_FILENAME = "bootstrap.checkpoint"
_INT_MAX = 2**31 - 1


class BootstrapMetadata:
    """The bootstrap records (a FeatureLevelRecord for metadata.version, and for any other feature above level 0),
    the metadata.version they set, and where they came from."""

    def __init__(self, records: list[ApiMessageAndVersion], metadata_version: MetadataVersion, source: str) -> None:
        self._records = records
        if metadata_version.is_less_than(MINIMUM_BOOTSTRAP_VERSION):
            raise RuntimeError(f"Bootstrap metadata.version before {MINIMUM_BOOTSTRAP_VERSION} are not supported. "
                               f"Can't load metadata from {source}")
        self._metadata_version = metadata_version
        self._source = source

    @staticmethod
    def from_versions(metadata_version: MetadataVersion, feature_versions: Mapping[str, int],
                      source: str) -> BootstrapMetadata:
        records = [_feature_level(FEATURE_NAME, metadata_version.feature_level())]
        # metadata.version comes first; kraft.version is carried by the raft log itself, not by a record here
        for feature_name in sorted(n for n in feature_versions if n not in (FEATURE_NAME, KRAFT_VERSION_FEATURE_NAME)):
            level = feature_versions[feature_name]
            if level > 0:
                records.append(_feature_level(feature_name, level))
        return BootstrapMetadata(records, metadata_version, source)

    @staticmethod
    def from_version(metadata_version: MetadataVersion, source: str) -> BootstrapMetadata:
        return BootstrapMetadata([_feature_level(FEATURE_NAME, metadata_version.feature_level())], metadata_version,
                                 source)

    @staticmethod
    def from_records(records: list[ApiMessageAndVersion], source: str) -> BootstrapMetadata:
        """The metadata.version is the last FeatureLevelRecord for it among the records; there must be one."""
        metadata_version = None
        for record in records:
            version = BootstrapMetadata.record_to_metadata_version(record.message)
            if version is not None:
                metadata_version = version
        if metadata_version is None:
            raise RuntimeError(f"No FeatureLevelRecord for {FEATURE_NAME} was found in the bootstrap metadata from "
                               f"{source}")
        return BootstrapMetadata(records, metadata_version, source)

    @staticmethod
    def record_to_metadata_version(record: Any) -> MetadataVersion | None:
        if isinstance(record, FeatureLevelRecord) and record.name == FEATURE_NAME:
            return MetadataVersion.from_feature_level(record.feature_level)
        return None

    def records(self) -> list[ApiMessageAndVersion]:
        return self._records

    def metadata_version(self) -> MetadataVersion:
        return self._metadata_version

    def source(self) -> str:
        return self._source

    def feature_level(self, feature_name: str) -> int:
        result = 0
        for record in self._records:
            if isinstance(record.message, FeatureLevelRecord) and record.message.name == feature_name:
                result = record.message.feature_level
        return result

    def copy_with_feature_record(self, feature_name: str, level: int) -> BootstrapMetadata:
        """These records with `feature_name` set to `level`: the record replaced in place, or added at the end."""
        new_records: list[ApiMessageAndVersion] = []
        replaced = False
        for record in self._records:
            if not replaced and isinstance(record.message, FeatureLevelRecord) and record.message.name == feature_name:
                new_records.append(_feature_level(feature_name, level))
                replaced = True
            else:
                new_records.append(record)
        if not replaced:
            new_records.append(_feature_level(feature_name, level))
        return BootstrapMetadata.from_records(new_records, self._source)

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, BootstrapMetadata) and self._records == other._records
                and self._metadata_version == other._metadata_version and self._source == other._source)

    __hash__ = None  # type: ignore[assignment]

    def __str__(self) -> str:
        return (f"BootstrapMetadata(records=[{', '.join(str(r) for r in self._records)}], "
                f"metadataVersion={self._metadata_version}, source={self._source})")


def _feature_level(name: str, level: int) -> ApiMessageAndVersion:
    return ApiMessageAndVersion(FeatureLevelRecord(name=name, feature_level=i16(level)), 0)


class BootstrapDirectory:
    """The `bootstrap.checkpoint` file of a metadata directory: written by the storage tool, read by a node at
    startup. Its format is a KRaft snapshot's: a header batch, the records, a footer batch."""

    def __init__(self, directory_path: str, ibp: str | None) -> None:
        self.directory_path = directory_path
        self.ibp = ibp  # inter.broker.protocol.version as configured, used only when there is no file

    def read(self) -> BootstrapMetadata:
        if not os.path.isdir(self.directory_path):
            if os.path.exists(self.directory_path):
                raise RuntimeError(f"Path {self.directory_path} exists, but is not a directory.")
            raise RuntimeError(f"No such directory as {self.directory_path}")
        binary_bootstrap_path = os.path.join(self.directory_path, BINARY_BOOTSTRAP_FILENAME)
        if not os.path.exists(binary_bootstrap_path):
            return self.read_from_configuration()
        return self.read_from_binary_file(binary_bootstrap_path)

    def read_from_configuration(self) -> BootstrapMetadata:
        """No file: the latest production metadata.version, or the configured inter.broker.protocol.version's."""
        if self.ibp is None:
            return BootstrapMetadata.from_version(MetadataVersion.latest_production(), "the default bootstrap")
        version = MetadataVersion.from_version_string(self.ibp)
        if version.is_less_than(MINIMUM_BOOTSTRAP_VERSION):
            return BootstrapMetadata.from_version(
                MINIMUM_BOOTSTRAP_VERSION, f"the minimum version bootstrap with metadata.version "
                                           f"{MINIMUM_BOOTSTRAP_VERSION}")
        return BootstrapMetadata.from_version(version, f"the configured bootstrap with metadata.version {version}")

    def read_from_binary_file(self, binary_path: str) -> BootstrapMetadata:
        """Every record of every data batch (control batches, the header and footer, are skipped). Kafka reads the
        file with its BatchFileReader; the snapshot reader reads the same batches."""
        records: list[ApiMessageAndVersion] = []
        fd = os.open(binary_path, os.O_RDONLY)
        raw = FileRawSnapshotReader(FileRecords(Path(binary_path), fd, 0, _INT_MAX, is_slice=False),
                                    Snapshots.BOOTSTRAP_SNAPSHOT_ID)
        reader = RecordsSnapshotReader.of(raw, MetadataRecordSerde.INSTANCE)
        try:
            while reader.has_next():
                records.extend(reader.next().records)
        finally:
            reader.close()
            raw.close()
        return BootstrapMetadata.from_records(records, f"the binary bootstrap metadata file: {binary_path}")

    def write_binary_file(self, bootstrap_metadata: BootstrapMetadata) -> None:
        """Write the batches to bootstrap.checkpoint.tmp, fsync, and move it into place."""
        if not os.path.isdir(self.directory_path):
            raise RuntimeError(f"No such directory as {self.directory_path}")
        temp_path = Path(self.directory_path, BINARY_BOOTSTRAP_FILENAME + ".tmp")
        temp_path.unlink(missing_ok=True)
        try:
            # Kafka's BatchFileWriter: a header batch (stamped now), the records at epoch 0, a footer batch, force
            channel = _BatchFileChannel(temp_path)
            writer = (RecordsSnapshotWriter.Builder()
                      .set_last_contained_log_timestamp(time.time_ns() // 1_000_000)
                      .set_max_batch_size(_INT_MAX)
                      .set_raw_snapshot_writer(channel)
                      .build(MetadataRecordSerde.INSTANCE))
            try:
                writer.append(list(bootstrap_metadata.records()))
                writer.freeze()
            finally:
                writer.close()
            atomic_move_with_fallback(temp_path, Path(self.directory_path, BINARY_BOOTSTRAP_FILENAME))
        finally:
            temp_path.unlink(missing_ok=True)


class _BatchFileChannel(RawSnapshotWriter):
    """The file BatchFileWriter writes to: bytes appended in order, forced to disk when frozen, renamed by the
    caller (a snapshot's own writer would rename it to an <offset>-<epoch>.checkpoint name)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._fd: int | None = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        self._frozen = False

    def snapshot_id(self) -> OffsetAndEpoch:
        return Snapshots.BOOTSTRAP_SNAPSHOT_ID  # offsets from 0, epoch 0

    def size_in_bytes(self) -> int:
        return os.path.getsize(self.path)

    def append(self, records: MemoryRecords | bytes | bytearray | memoryview) -> None:
        assert self._fd is not None
        view = memoryview(records.buffer if isinstance(records, MemoryRecords) else records)
        while view:
            view = view[os.write(self._fd, view):]

    def is_frozen(self) -> bool:
        return self._frozen

    def freeze(self) -> None:
        assert self._fd is not None
        os.fsync(self._fd)
        self._frozen = True

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
