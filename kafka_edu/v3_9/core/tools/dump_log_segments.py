"""Port of core/src/main/scala/kafka/tools/DumpLogSegments.scala (Kafka 3.9): `kafka-dump-log.sh` for log segments
and KRaft snapshots, with the `--cluster-metadata-decoder` that prints metadata records as JSON."""

from __future__ import annotations

import argparse
import base64
import dataclasses
import json
import os
import struct
import sys
import uuid as py_uuid
from pathlib import Path
from typing import Any, Protocol, TextIO

from kafka_edu.v1_0_2.clients.common.record.default_record import DefaultRecord
from kafka_edu.v1_0_2.clients.common.record.file_records import FileChannelRecordBatch, FileRecords
from kafka_edu.v3_9.clients.common.record.control_record_utils import ControlRecordType, ControlRecordUtils
from kafka_edu.v3_9.clients.common.uuid import ZERO_UUID, Uuid
from kafka_edu.v3_9.metadata.common.metadata.metadata_record_type import MetadataRecordType
from kafka_edu.v3_9.metadata.metadata.bootstrap.bootstrap_directory import BINARY_BOOTSTRAP_FILENAME
from kafka_edu.v3_9.metadata.metadata.metadata_record_serde import MetadataRecordSerde
from kafka_edu.v3_9.raft.snapshot.snapshots import Snapshots

RECORD_INDENT = "|"
LOG_FILE_SUFFIX = ".log"
SNAPSHOT_SUFFIX = Snapshots.SUFFIX
_INT_MAX = 2**31 - 1
_MAGIC_VALUE_V2 = 2
_DELETE_HORIZON_FLAG_MASK = 0x40


class MessageParser(Protocol):
    def parse(self, record: DefaultRecord) -> tuple[str | None, str | None]: ...


def main(args: list[str], out: TextIO = sys.stdout, err: TextIO = sys.stderr) -> int:
    opts = DumpLogSegmentsOptions(args)
    if not opts.files:
        print('Missing required argument "[files]"', file=err)
        print(opts.parser.format_usage(), end="", file=err)
        return 1
    non_consecutive_pairs_for_log_files_map: dict[str, list[tuple[int, int]]] = {}
    for arg in opts.files:
        file = Path(arg)
        print(f"Dumping {file}", file=out)
        filename = file.name
        suffix = filename[filename.rfind("."):] if "." in filename else ""
        if suffix in (LOG_FILE_SUFFIX, SNAPSHOT_SUFFIX):
            try:
                dump_log(file, opts.should_print_data_log, non_consecutive_pairs_for_log_files_map,
                         opts.is_deep_iteration, opts.message_parser(), opts.skip_record_metadata, opts.max_bytes, out)
            except Exception as e:  # Java dies with the exception's stack trace; one line names it here
                print(f"{type(e).__name__}: {e}".splitlines()[0], file=err)
                return 1
        else:  # kafka-edu: the index, time-index, producer-snapshot and transaction-index dumps are not ported
            print(f"Ignoring unknown file {file}", file=err)
    for file_name, pairs in non_consecutive_pairs_for_log_files_map.items():
        print(f"Non-consecutive offsets in {file_name}", file=err)
        for first, second in pairs:
            print(f"  {first} is followed by {second}", file=err)
    return 0


class DecoderMessageParser:
    """The default parser: keys and values as UTF-8 strings (Kafka's StringDecoder for both)."""

    def parse(self, record: DefaultRecord) -> tuple[str | None, str | None]:
        key = record.key.decode("utf-8", errors="replace") if record.key is not None else None
        if record.value is None:
            return key, None
        return key, record.value.decode("utf-8", errors="replace")


class ClusterMetadataLogMessageParser:
    """A metadata record's value as {"type":..., "version":..., "data":{...}}; metadata records have no key."""

    def __init__(self) -> None:
        self.metadata_record_serde = MetadataRecordSerde()

    def parse(self, record: DefaultRecord) -> tuple[str | None, str | None]:
        try:
            if record.value is None:
                raise ValueError("null")
            message_and_version = self.metadata_record_serde.read(record.value, len(record.value))
            record_type = MetadataRecordType.for_message(message_and_version.message)
            output = _json({"type": record_type.name, "version": message_and_version.version,
                            "data": write_json(message_and_version.message, message_and_version.version)})
        except Exception as e:
            output = f"Error at {record.offset}, skipping. {e}"
        return None, output


def dump_log(file: Path, print_contents: bool,
             non_consecutive_pairs_for_log_files_map: dict[str, list[tuple[int, int]]], is_deep_iteration: bool,
             parser: MessageParser, skip_record_metadata: bool, max_bytes: int, out: TextIO) -> None:
    """Print each batch of a segment or snapshot, and with deep iteration each record in it."""
    if file.name.endswith(LOG_FILE_SUFFIX):
        print(f"Log starting offset: {int(file.name.split('.')[0])}", file=out)
    elif file.name.endswith(SNAPSHOT_SUFFIX):
        if file.name == BINARY_BOOTSTRAP_FILENAME:
            print("KRaft bootstrap snapshot", file=out)
        else:
            path = Snapshots.parse(file)
            if path is None:
                raise RuntimeError("No value present")  # Optional.get() on a name Snapshots.parse does not know
            print(f"Snapshot end offset: {path.snapshot_id.offset}, epoch: {path.snapshot_id.epoch}", file=out)
    fd = os.open(file, os.O_RDONLY)  # never created: a mistyped name is an error, not an empty file
    try:
        file_records = FileRecords(file, fd, 0, _INT_MAX, is_slice=False).read(0, max_bytes)
        valid_bytes = 0
        last_offset = -1
        for batch in file_records.batches():
            print_batch_level(batch, valid_bytes, out)
            if is_deep_iteration:
                full_batch = batch.load_full_batch()
                for record in full_batch.records():
                    if last_offset == -1:
                        last_offset = record.offset
                    elif record.offset != last_offset + 1:
                        pairs = non_consecutive_pairs_for_log_files_map.setdefault(str(file.absolute()), [])
                        pairs.insert(0, (last_offset, record.offset))
                    last_offset = record.offset
                    line = ""
                    prefix = f"{RECORD_INDENT} "
                    if not skip_record_metadata:
                        key_size = len(record.key) if record.key is not None else -1
                        value_size = len(record.value) if record.value is not None else -1
                        line += (f"{prefix}offset: {record.offset} {full_batch.timestamp_type.name_}: "
                                 f"{record.timestamp} keySize: {key_size} valueSize: {value_size}")
                        prefix = " "
                        if batch.magic >= _MAGIC_VALUE_V2:
                            line += (f" sequence: {record.sequence} headerKeys: "
                                     f"[{','.join(k for k, _ in record.headers)}]")
                        if full_batch.is_control_batch:
                            line += _control_record_text(record)
                    if print_contents and not full_batch.is_control_batch:
                        key, payload = parser.parse(record)
                        if key is not None:
                            line += f"{prefix}key: {key}"
                            prefix = " "
                        if payload is not None:
                            line += f" payload: {payload}"
                    print(line, file=out)
            valid_bytes += batch.size_in_bytes
        trailing_bytes = file_records.size_in_bytes() - valid_bytes
        if trailing_bytes > 0 and max_bytes == _INT_MAX:
            print(f"Found {trailing_bytes} invalid bytes at the end of {file.name}", file=out)
    finally:
        os.close(fd)


def _control_record_text(record: DefaultRecord) -> str:
    """What a control record holds: a transaction marker, a snapshot header or footer, the raft version or voters;
    anything else (a LeaderChange in 3.9) by its type alone."""
    assert record.key is not None
    control_type_id = ControlRecordType.parse_type_id(record.key)
    control_type = ControlRecordType.from_type_id(control_type_id)
    if control_type in (ControlRecordType.ABORT, ControlRecordType.COMMIT):
        assert record.value is not None
        _version, coordinator_epoch = struct.unpack_from(">hi", record.value)  # EndTransactionMarker's value
        return f" endTxnMarker: {control_type.name} coordinatorEpoch: {coordinator_epoch}"
    if control_type is ControlRecordType.SNAPSHOT_HEADER:
        header = ControlRecordUtils.deserialize_snapshot_header_record(record)
        return f" SnapshotHeader {_json(write_json(header, header.version))}"
    if control_type is ControlRecordType.SNAPSHOT_FOOTER:
        footer = ControlRecordUtils.deserialize_snapshot_footer_record(record)
        return f" SnapshotFooter {_json(write_json(footer, footer.version))}"
    if control_type is ControlRecordType.KRAFT_VERSION:
        kraft_version = ControlRecordUtils.deserialize_kraft_version_record(record)
        return f" KRaftVersion {_json(write_json(kraft_version, kraft_version.version))}"
    if control_type is ControlRecordType.KRAFT_VOTERS:
        voters = ControlRecordUtils.deserialize_voters_record(record)
        return f" KRaftVoters {_json(write_json(voters, voters.version))}"
    return f" controlType: {control_type.name}({control_type_id})"


def print_batch_level(batch: FileChannelRecordBatch, accumulative_bytes: int, out: TextIO) -> None:
    if batch.magic < _MAGIC_VALUE_V2:  # kafka-edu writes v2 only; an older batch gets its offset and position
        print(f"offset: {batch.base_offset} position: {accumulative_bytes}", file=out)
        return
    b = batch.load_full_batch()
    delete_horizon = (f"OptionalLong[{b.first_timestamp}]" if b.attributes & _DELETE_HORIZON_FLAG_MASK
                      else "OptionalLong.empty")
    print(f"baseOffset: {b.base_offset} lastOffset: {b.last_offset} count: {b.record_count} "
          f"baseSequence: {b.base_sequence} lastSequence: {b.last_sequence} producerId: {b.producer_id} "
          f"producerEpoch: {b.producer_epoch} partitionLeaderEpoch: {b.partition_leader_epoch} "
          f"isTransactional: {_java_bool(b.is_transactional)} isControl: {_java_bool(b.is_control_batch)} "
          f"deleteHorizonMs: {delete_horizon} position: {accumulative_bytes} {b.timestamp_type.name_}: "
          f"{b.max_timestamp} size: {b.size_in_bytes} magic: {b.magic} compresscodec: {b.compression_type.name_} "
          f"crc: {b.checksum} isvalid: {_java_bool(b.is_valid())}", file=out)


# -- the generated JsonConverters' write(message, version) -----------------------------------------------------------

def write_json(message: Any, version: int) -> dict[str, Any]:
    """A message as Kafka's generated JSON converter writes it at `version`: camelCase field names, uuids in base64,
    fields the version lacks left out, tagged fields only when they differ from their default."""
    result: dict[str, Any] = {}
    for field in dataclasses.fields(message):
        since = int(field.metadata.get("versions", "0+").rstrip("+"))
        if version < since:
            continue
        value = getattr(message, field.name)
        if "tag" in field.metadata and value == _default_of(field):
            continue
        result[_camel_case(field.name)] = _json_value(value, field.metadata.get("kafka_type"), version)
    return result


def _default_of(field: dataclasses.Field[Any]) -> Any:
    if field.default is not dataclasses.MISSING:
        return field.default
    if field.default_factory is not dataclasses.MISSING:
        return field.default_factory()
    return dataclasses.MISSING


def _json_value(value: Any, kafka_type: str | None, version: int) -> Any:
    if isinstance(value, tuple | list):
        return [_json_value(v, kafka_type, version) for v in value]
    if dataclasses.is_dataclass(value):
        return write_json(value, version)
    if kafka_type == "uuid":  # kio reads Uuid.ZERO as None
        return str(Uuid.from_bytes(value.bytes)) if isinstance(value, py_uuid.UUID) else str(ZERO_UUID)
    if isinstance(value, bytes | bytearray):
        return base64.b64encode(value).decode("ascii")
    return value


def _camel_case(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(word[:1].upper() + word[1:] for word in rest)


def _json(node: Any) -> str:
    """Jackson's JsonNode.toString: compact, no spaces."""
    return json.dumps(node, separators=(",", ":"), ensure_ascii=False)


def _java_bool(value: bool) -> str:
    return "true" if value else "false"


class DumpLogSegmentsOptions:
    """The tool's options (the index, offsets-topic and transaction-log ones are not ported)."""

    def __init__(self, args: list[str]) -> None:
        parser = argparse.ArgumentParser(
            prog="kafka-edu dump-log",
            description="This tool helps to parse a log file and dump its contents to the console, useful for "
                        "debugging a seemingly corrupt log segment.")
        parser.add_argument("paths", nargs="*", metavar="FILE", help="files to dump, as with --files")
        parser.add_argument("--files", help="REQUIRED: The comma separated list of data and index log files to be "
                                            "dumped.")
        parser.add_argument("--print-data-log", action="store_true",
                            help="if set, printing the messages content when dumping data logs. Automatically set if "
                                 "any decoder option is specified.")
        parser.add_argument("--deep-iteration", action="store_true",
                            help="if set, uses deep instead of shallow iteration. Automatically set if print-data-log "
                                 "is enabled.")
        parser.add_argument("--cluster-metadata-decoder", action="store_true",
                            help="if set, log data will be parsed as cluster metadata records.")
        parser.add_argument("--skip-record-metadata", action="store_true",
                            help="whether to skip printing metadata for each record.")
        parser.add_argument("--max-bytes", type=int, default=_INT_MAX,
                            help="Limit the amount of total batches read in bytes avoiding reading the whole .log "
                                 "file(s).")
        self.parser = parser
        self.options = parser.parse_args(args)
        self.files: list[str] = [*(self.options.files.split(",") if self.options.files else []), *self.options.paths]
        self.should_print_data_log: bool = self.options.print_data_log or self.options.cluster_metadata_decoder
        self.skip_record_metadata: bool = self.options.skip_record_metadata
        self.is_deep_iteration: bool = self.options.deep_iteration or self.should_print_data_log
        self.max_bytes: int = self.options.max_bytes

    def message_parser(self) -> MessageParser:
        if self.options.cluster_metadata_decoder:
            return ClusterMetadataLogMessageParser()
        return DecoderMessageParser()
