"""Port of metadata/src/main/java/org/apache/kafka/metadata/properties/MetaProperties.java, MetaPropertiesEnsemble.java,
MetaPropertiesVersion.java and PropertiesUtils.java (Kafka 3.9): the meta.properties file in each log directory."""

from __future__ import annotations

import logging
import os
import random
import re
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from enum import Enum
from pathlib import Path

from kafka_edu.v1_0_2.core.server.broker_metadata_checkpoint import load_props
from kafka_edu.v3_9.clients.common.utils.utils import atomic_move_with_fallback
from kafka_edu.v3_9.clients.common.uuid import DirectoryId, Uuid

log = logging.getLogger("org.apache.kafka.metadata.properties.MetaPropertiesEnsemble")

META_PROPERTIES_NAME = "meta.properties"

VERSION_PROP = "version"
CLUSTER_ID_PROP = "cluster.id"
BROKER_ID_PROP = "broker.id"  # v0 only
NODE_ID_PROP = "node.id"  # v1: replaces broker.id
DIRECTORY_ID_PROP = "directory.id"

_JAVA_INT = re.compile(r"[+-]?[0-9]+")


def _parse_java_int(text: str) -> int:
    """Integer.parseInt: a 32-bit decimal, ValueError for anything else."""
    if _JAVA_INT.fullmatch(text) is None or not -(2**31) <= int(text) < 2**31:
        raise ValueError(f'For input string: "{text}"')
    return int(text)


# -- PropertiesUtils ------------------------------------------------------------------------------------------------

def write_properties_file(props: dict[str, str], path: str, fsync: bool) -> None:
    """Write to `path.tmp`, fsync it, then move it over `path` atomically (and fsync the directory): a crash leaves
    either the old file or the new one, never half of one."""
    temp_file = path + ".tmp"
    with open(temp_file, "w", encoding="utf-8") as f:
        f.write(_store(props))
        f.flush()
        if fsync:
            os.fsync(f.fileno())
    try:
        atomic_move_with_fallback(Path(temp_file), Path(path), fsync)
    except BaseException:
        Path(temp_file).unlink(missing_ok=True)
        raise


def read_properties_file(path: str) -> dict[str, str]:
    """FileNotFoundError when the file is missing; any other OSError when it cannot be read."""
    return load_props(Path(path))


def load_required_int_prop(props: dict[str, str], key_name: str) -> int:
    value = props.get(key_name)
    if value is None:
        raise RuntimeError(f"Failed to find {key_name}")
    try:
        return _parse_java_int(value)
    except ValueError as e:
        raise RuntimeError(f"Unable to read {key_name} as a base-10 number.") from e


def _store(props: dict[str, str]) -> str:
    """java.util.Properties.store(writer, ""): an empty comment line, the date, then key=value lines."""
    lines = ["#", "#" + time.strftime("%a %b %d %H:%M:%S %Z %Y")]
    lines += [f"{_escape(k, True)}={_escape(v, False)}" for k, v in sorted(props.items())]
    return "\n".join(lines) + "\n"


def _escape(text: str, escape_space: bool) -> str:
    out = []
    for i, c in enumerate(text):
        if c == " ":
            out.append("\\ " if i == 0 or escape_space else " ")
        elif c in "\t\n\r\f":
            out.append({"\t": "\\t", "\n": "\\n", "\r": "\\r", "\f": "\\f"}[c])
        elif c in "=:#!\\":
            out.append("\\" + c)
        else:
            out.append(c)
    return "".join(out)


# -- MetaPropertiesVersion --------------------------------------------------------------------------------------------

class MetaPropertiesVersion(Enum):
    """v0: a ZooKeeper broker's file (broker.id, maybe cluster.id); v1: a KRaft node's (node.id and cluster.id)."""

    V0 = 0
    V1 = 1

    @staticmethod
    def from_number_string(number_string: str) -> MetaPropertiesVersion:
        try:
            number = _parse_java_int(number_string.strip())
        except ValueError:
            raise RuntimeError(f"Invalid meta.properties version string '{number_string}'") from None
        return MetaPropertiesVersion.from_number(number)

    @staticmethod
    def from_number(number: int) -> MetaPropertiesVersion:
        if number == 0:
            return MetaPropertiesVersion.V0
        if number == 1:
            return MetaPropertiesVersion.V1
        raise RuntimeError(f"Unknown meta.properties version number {number}")

    def number(self) -> int:
        return self.value

    def number_string(self) -> str:
        return str(self.value)

    def has_broker_id(self) -> bool:
        return self is MetaPropertiesVersion.V0

    def always_has_node_id(self) -> bool:
        return self is not MetaPropertiesVersion.V0

    def always_has_cluster_id(self) -> bool:
        return self is not MetaPropertiesVersion.V0


# -- MetaProperties ---------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class MetaProperties:
    """What one log directory's meta.properties says: its version, the cluster, the node, the directory's own id."""

    version: MetaPropertiesVersion
    cluster_id: str | None
    node_id: int | None
    directory_id: Uuid | None

    class Builder:
        def __init__(self, source: MetaProperties | dict[str, str] | None = None) -> None:
            self._version = MetaPropertiesVersion.V0
            self._cluster_id: str | None = None
            self._node_id: int | None = None
            self._directory_id: Uuid | None = None
            if isinstance(source, MetaProperties):
                self._version, self._cluster_id = source.version, source.cluster_id
                self._node_id, self._directory_id = source.node_id, source.directory_id
            elif source is not None:
                self._read(source)

        def _read(self, props: dict[str, str]) -> None:
            """Builder(Properties): a file as it was read; a missing version means v0."""
            self._version = MetaPropertiesVersion.from_number_string(
                props.get(VERSION_PROP, MetaPropertiesVersion.V0.number_string()))
            if self._version.has_broker_id():
                if BROKER_ID_PROP in props:
                    self._node_id = load_required_int_prop(props, BROKER_ID_PROP)
            else:
                self._node_id = load_required_int_prop(props, NODE_ID_PROP)
            self._cluster_id = props.get(CLUSTER_ID_PROP)
            if DIRECTORY_ID_PROP in props:
                try:
                    self._directory_id = Uuid.from_string(props[DIRECTORY_ID_PROP])
                except Exception as e:
                    raise RuntimeError(f"Unable to read {DIRECTORY_ID_PROP} as a Uuid: {e}") from e

        def version(self) -> MetaPropertiesVersion:
            return self._version

        def set_version(self, version: MetaPropertiesVersion) -> MetaProperties.Builder:
            self._version = version
            return self

        def cluster_id(self) -> str | None:
            return self._cluster_id

        def set_cluster_id(self, cluster_id: str | None) -> MetaProperties.Builder:
            self._cluster_id = cluster_id
            return self

        def node_id(self) -> int | None:
            return self._node_id

        def set_node_id(self, node_id: int | None) -> MetaProperties.Builder:
            self._node_id = node_id
            return self

        def directory_id(self) -> Uuid | None:
            return self._directory_id

        def set_directory_id(self, directory_id: Uuid | None) -> MetaProperties.Builder:
            self._directory_id = directory_id
            return self

        def build(self) -> MetaProperties:
            if self._version is not MetaPropertiesVersion.V0:
                if self._cluster_id is None:
                    raise RuntimeError("cluster.id was not found.")
                if self._node_id is None:
                    raise RuntimeError("node.id was not found.")
            return MetaProperties(self._version, self._cluster_id, self._node_id, self._directory_id)

    def __str__(self) -> str:
        text = f"MetaProperties(version={self.version.number()}"
        if self.cluster_id is not None:
            text += f", clusterId={self.cluster_id}"
        if self.node_id is not None:
            text += f", nodeId={self.node_id}"
        if self.directory_id is not None:
            text += f", directoryId={self.directory_id}"
        return text + ")"

    def to_properties(self) -> dict[str, str]:
        """The keys the file gets: version, cluster.id, node.id (broker.id in v0), directory.id."""
        props = {VERSION_PROP: self.version.number_string()}
        if self.cluster_id is not None:
            props[CLUSTER_ID_PROP] = self.cluster_id
        if self.version.has_broker_id():
            if self.node_id is not None:
                props[BROKER_ID_PROP] = str(self.node_id)
        else:
            props[NODE_ID_PROP] = str(self.node_id)
        if self.directory_id is not None:
            props[DIRECTORY_ID_PROP] = str(self.directory_id)
        return props


# -- MetaPropertiesEnsemble -------------------------------------------------------------------------------------------

class VerificationFlag(Enum):
    REQUIRE_V0 = "REQUIRE_V0"
    REQUIRE_METADATA_LOG_DIR = "REQUIRE_METADATA_LOG_DIR"
    REQUIRE_AT_LEAST_ONE_VALID = "REQUIRE_AT_LEAST_ONE_VALID"


PreWriteHandler = Callable[[str, bool, MetaProperties], None]
WriteErrorHandler = Callable[[str, OSError], None]


class MetaPropertiesEnsemble:
    """Every log directory's meta.properties, sorted into three kinds: empty (no file), error (unreadable), and
    read. Immutable: a Copier makes a changed copy and writes the changes."""

    def __init__(self, empty_log_dirs: Iterable[str], error_log_dirs: Iterable[str],
                 log_dir_props: dict[str, MetaProperties], metadata_log_dir: str | None) -> None:
        self._empty_log_dirs = tuple(sorted(empty_log_dirs))
        self._error_log_dirs = tuple(sorted(error_log_dirs))
        self._log_dir_props = dict(sorted(log_dir_props.items()))
        self._metadata_log_dir = metadata_log_dir

    class Loader:
        def __init__(self) -> None:
            self._log_dirs: set[str] = set()
            self._metadata_log_dir: str | None = None

        def add_log_dirs(self, log_dirs: Iterable[str]) -> MetaPropertiesEnsemble.Loader:
            self._log_dirs.update(log_dirs)
            return self

        def add_log_dir(self, log_dir: str) -> MetaPropertiesEnsemble.Loader:
            self._log_dirs.add(log_dir)
            return self

        def add_metadata_log_dir(self, metadata_log_dir: str) -> MetaPropertiesEnsemble.Loader:
            if self._metadata_log_dir is not None:
                raise RuntimeError("Cannot specify more than one metadata log directory. Already specified "
                                   f"{self._metadata_log_dir}")
            self._metadata_log_dir = metadata_log_dir
            self._log_dirs.add(metadata_log_dir)
            return self

        def load(self) -> MetaPropertiesEnsemble:
            if not self._log_dirs:
                raise RuntimeError("You must specify at least one log directory.")
            empty_log_dirs: set[str] = set()
            error_log_dirs: set[str] = set()
            log_dir_props: dict[str, MetaProperties] = {}
            for log_dir in sorted(self._log_dirs):
                meta_props_file = os.path.abspath(os.path.join(log_dir, META_PROPERTIES_NAME))
                try:
                    props = read_properties_file(meta_props_file)
                    log_dir_props[log_dir] = MetaProperties.Builder(props).build()
                except FileNotFoundError:
                    empty_log_dirs.add(log_dir)
                except Exception as e:  # unreadable or malformed: the directory is in error, not empty
                    log.error("Error while reading meta.properties file %s", meta_props_file, exc_info=e)
                    error_log_dirs.add(log_dir)
            return MetaPropertiesEnsemble(empty_log_dirs, error_log_dirs, log_dir_props, self._metadata_log_dir)

    class Copier:
        def __init__(self, prev: MetaPropertiesEnsemble) -> None:
            self._prev = prev
            self._empty_log_dirs = set(prev.empty_log_dirs())
            self._error_log_dirs = set(prev.error_log_dirs())
            self._log_dir_props = dict(prev.log_dir_props())
            self._meta_log_dir = prev.metadata_log_dir()
            self._random = random.Random()
            self._pre_write_handler: PreWriteHandler = self._log_pre_write
            self._write_error_handler: WriteErrorHandler = self._log_and_raise

        @staticmethod
        def _log_pre_write(log_dir: str, is_new: bool, meta_properties: MetaProperties) -> None:
            log.info("Writing out %s %s%smeta.properties file containing %s", "new" if is_new else "changed",
                     log_dir, os.sep, meta_properties)

        @staticmethod
        def _log_and_raise(log_dir: str, e: OSError) -> None:
            log.error("Error while writing meta.properties to %s", log_dir, exc_info=e)
            raise e

        def set_random(self, rng: random.Random) -> MetaPropertiesEnsemble.Copier:
            self._random = rng
            return self

        def empty_log_dirs(self) -> set[str]:
            return self._empty_log_dirs

        def error_log_dirs(self) -> set[str]:
            return self._error_log_dirs

        def log_dir_props(self) -> dict[str, MetaProperties]:
            return self._log_dir_props

        def set_log_dir_props(self, log_dir: str, meta_props: MetaProperties) -> MetaPropertiesEnsemble.Copier:
            self._empty_log_dirs.discard(log_dir)
            self._error_log_dirs.discard(log_dir)
            self._log_dir_props[log_dir] = meta_props
            return self

        def meta_log_dir(self) -> str | None:
            return self._meta_log_dir

        def set_meta_log_dir(self, meta_log_dir: str | None) -> MetaPropertiesEnsemble.Copier:
            self._meta_log_dir = meta_log_dir
            return self

        def generate_valid_directory_id(self) -> Uuid:
            """A random id no other directory has, that is not reserved and does not print with a leading dash."""
            while True:
                uuid = Uuid(_signed_long(self._random.getrandbits(64)), _signed_long(self._random.getrandbits(64)))
                if not (str(uuid).startswith("-") or DirectoryId.reserved(uuid)):
                    if all(props.directory_id != uuid for props in self._log_dir_props.values()):
                        return uuid

        def set_pre_write_handler(self, pre_write_handler: PreWriteHandler) -> MetaPropertiesEnsemble.Copier:
            self._pre_write_handler = pre_write_handler
            return self

        def set_write_error_handler(self, write_error_handler: WriteErrorHandler) -> MetaPropertiesEnsemble.Copier:
            self._write_error_handler = write_error_handler
            return self

        def verify(self) -> None:
            """Each directory is in exactly one of the three kinds, and the metadata directory in one of them."""
            for log_dir in self._empty_log_dirs:
                if log_dir in self._error_log_dirs:
                    raise RuntimeError(f"Error: log directory {log_dir} is in both emptyLogDirs and errorLogDirs.")
                if log_dir in self._log_dir_props:
                    raise RuntimeError(f"Error: log directory {log_dir} is in both emptyLogDirs and logDirProps.")
            for log_dir in self._error_log_dirs:
                if log_dir in self._log_dir_props:
                    raise RuntimeError(f"Error: log directory {log_dir} is in both errorLogDirs and logDirProps.")
            m = self._meta_log_dir
            if m is not None and not (m in self._empty_log_dirs or m in self._log_dir_props
                                      or m in self._error_log_dirs):
                raise RuntimeError(f"Error: metaLogDir {m} does not appear in emptyLogDirs, errorLogDirs, or "
                                   "logDirProps.")

        def write_log_dir_changes(self) -> None:
            """Write every new or changed directory's meta.properties (the pre-write handler runs first)."""
            new_or_changed: dict[str, MetaProperties] = {}
            new_set: set[str] = set()
            for log_dir, prev_meta_props in self._prev.log_dir_props().items():
                meta_props = self._log_dir_props.get(log_dir)
                if prev_meta_props != meta_props:
                    new_or_changed[log_dir] = meta_props  # type: ignore[assignment]
            for log_dir, meta_props in self._log_dir_props.items():
                if log_dir not in self._prev.log_dir_props():
                    new_or_changed[log_dir] = meta_props
                    new_set.add(log_dir)
            for log_dir, meta_props in sorted(new_or_changed.items()):
                meta_props_path = os.path.abspath(os.path.join(log_dir, META_PROPERTIES_NAME))
                try:
                    self._pre_write_handler(log_dir, log_dir in new_set, meta_props)
                    write_properties_file(meta_props.to_properties(), meta_props_path, True)
                except OSError as e:
                    self._error_log_dirs.add(log_dir)
                    self._log_dir_props.pop(log_dir, None)
                    self._write_error_handler(log_dir, e)

        def copy(self) -> MetaPropertiesEnsemble:
            return MetaPropertiesEnsemble(self._empty_log_dirs, self._error_log_dirs, self._log_dir_props,
                                          self._meta_log_dir)

    def empty_log_dirs(self) -> tuple[str, ...]:
        """The directories without a meta.properties file."""
        return self._empty_log_dirs

    def error_log_dirs(self) -> tuple[str, ...]:
        """The directories whose meta.properties could not be read."""
        return self._error_log_dirs

    def log_dir_props(self) -> dict[str, MetaProperties]:
        return dict(self._log_dir_props)

    def non_failed_directory_props(self) -> Iterator[tuple[str, MetaProperties | None]]:
        """(directory, its properties or None) for the empty directories, then the read ones."""
        for log_dir in self._empty_log_dirs:
            yield log_dir, None
        yield from self._log_dir_props.items()

    def metadata_log_dir(self) -> str | None:
        return self._metadata_log_dir

    def verify(self, expected_cluster_id: str | None, expected_node_id: int | None,
               verification_flags: Iterable[VerificationFlag]) -> None:
        """One cluster id and one node id across every file, the one expected if given; directory ids unique and
        not reserved. RuntimeError naming the file otherwise."""
        flags = set(verification_flags)
        seen_uuids: dict[Uuid, str] = {}
        if VerificationFlag.REQUIRE_AT_LEAST_ONE_VALID in flags and not self._log_dir_props:
            raise RuntimeError("No readable meta.properties files found.")
        for log_dir, meta_props in self._log_dir_props.items():
            path = os.path.join(log_dir, META_PROPERTIES_NAME)
            if VerificationFlag.REQUIRE_V0 in flags and meta_props.version is not MetaPropertiesVersion.V0:
                raise RuntimeError(f"Found unexpected version in {path}. ZK-based brokers that are not migrating "
                                   "only support version 0 (which is implicit when the `version` field is missing).")
            if meta_props.cluster_id is None:
                if meta_props.version.always_has_cluster_id():
                    raise RuntimeError(f"cluster.id was not specified in the v1 file: {path}")
            elif expected_cluster_id is None:
                expected_cluster_id = meta_props.cluster_id
            elif meta_props.cluster_id != expected_cluster_id:
                raise RuntimeError(f"Invalid cluster.id in: {path}. Expected {expected_cluster_id}, but read "
                                   f"{meta_props.cluster_id}")
            if meta_props.node_id is None:
                if meta_props.version.always_has_node_id():
                    raise RuntimeError(f"node.id was not specified in {path}")
            elif expected_node_id is None:
                expected_node_id = meta_props.node_id
            elif meta_props.node_id != expected_node_id:
                raise RuntimeError(f"Stored node id {meta_props.node_id} doesn't match previous node id "
                                   f"{expected_node_id} in {path}. If you moved your data, make sure your configured "
                                   "node id matches. If you intend to create a new node, you should remove all data "
                                   "in your data directories.")
            if meta_props.directory_id is not None:
                if DirectoryId.reserved(meta_props.directory_id):
                    raise RuntimeError(f"Invalid resrved directory ID {meta_props.directory_id} found in {log_dir}")
                prev_log_dir = seen_uuids.get(meta_props.directory_id)
                seen_uuids[meta_props.directory_id] = log_dir
                if prev_log_dir is not None:
                    raise RuntimeError(f"Duplicate directory ID Optional[{meta_props.directory_id}] found. It was the "
                                       f"ID of {prev_log_dir}, but also of {log_dir}")
        if VerificationFlag.REQUIRE_METADATA_LOG_DIR in flags and self._metadata_log_dir is None:
            raise RuntimeError("No metadata log directory was specified.")
        if self._metadata_log_dir is not None and self._metadata_log_dir in self._error_log_dirs:
            raise RuntimeError(f"Encountered I/O error in metadata log directory {self._metadata_log_dir}. Cannot "
                               "continue.")

    def node_id(self) -> int | None:
        return next((p.node_id for p in self._log_dir_props.values() if p.node_id is not None), None)

    def cluster_id(self) -> str | None:
        return next((p.cluster_id for p in self._log_dir_props.values() if p.cluster_id is not None), None)

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, MetaPropertiesEnsemble) and self._empty_log_dirs == other._empty_log_dirs
                and self._error_log_dirs == other._error_log_dirs and self._log_dir_props == other._log_dir_props
                and self._metadata_log_dir == other._metadata_log_dir)

    __hash__ = None  # type: ignore[assignment]

    def __str__(self) -> str:
        output = {d: "EMPTY" for d in self._empty_log_dirs}
        output.update({d: "ERROR" for d in self._error_log_dirs})
        output.update({d: str(p) for d, p in self._log_dir_props.items()})
        dirs = ", ".join(f"{d}: {v}" for d, v in sorted(output.items()))
        meta = f"Optional[{self._metadata_log_dir}]" if self._metadata_log_dir is not None else "Optional.empty"
        return f"MetaPropertiesEnsemble(metadataLogDir={meta}, dirs={{{dirs}}})"


EMPTY = MetaPropertiesEnsemble((), (), {}, None)


def _signed_long(bits: int) -> int:
    """Random.nextLong's range: 64 random bits read as a signed long."""
    return bits - (1 << 64) if bits >= 1 << 63 else bits
