"""`kafka-edu dump-log` (Kafka 3.9's kafka-dump-log.sh) on a __cluster_metadata-0 segment, a snapshot and a
bootstrap.checkpoint: 3.9's batch and record lines, metadata records as {"type","version","data"} JSON."""

from __future__ import annotations

import io
import os
import struct
import subprocess
import sys
import uuid
from pathlib import Path

from kio.schema.leader_change_message.v0.data import LeaderChangeMessage, Voter
from kio.static.primitive import i16, i32

from kafka_edu.v1_0_2.clients.common.record.compression_type import CompressionType
from kafka_edu.v1_0_2.clients.common.record.file_records import DefaultRecordBatch, TimestampType
from kafka_edu.v1_0_2.clients.common.record.memory_records_builder import (
    MemoryRecordsBuilder,
    with_leader_change_message,
    with_records,
)
from kafka_edu.v3_9.clients.common.record.control_record_utils import ControlRecordType
from kafka_edu.v3_9.clients.common.uuid import Uuid
from kafka_edu.v3_9.core.tools import dump_log_segments, storage_tool
from kafka_edu.v3_9.metadata.common.metadata import ApiMessageAndVersion, NoOpRecord, PartitionRecord, TopicRecord
from kafka_edu.v3_9.metadata.metadata.metadata_record_serde import MetadataRecordSerde
from kafka_edu.v3_9.raft.raft.offset_and_epoch import OffsetAndEpoch
from kafka_edu.v3_9.raft.snapshot.file_raw_snapshot_writer import FileRawSnapshotWriter
from kafka_edu.v3_9.raft.snapshot.records_snapshot_writer import RecordsSnapshotWriter

REPO = Path(__file__).resolve().parents[2]
T = 1_732_000_000_000
TOPIC_ID = Uuid.from_string("wHc2mYq0Qx2pYHsiQ4sbvg")
DIRECTORY_ID = Uuid.from_string("h_mVuDnS4Jqi9ZjtqLKM9g")
SERDE = MetadataRecordSerde.INSTANCE


def py_uuid(u: Uuid) -> uuid.UUID:
    return uuid.UUID(bytes=u.to_bytes())


TOPIC = ApiMessageAndVersion(TopicRecord(name="foo", topic_id=py_uuid(TOPIC_ID)), 0)
PARTITION = ApiMessageAndVersion(PartitionRecord(
    partition_id=i32(0), topic_id=py_uuid(TOPIC_ID), replicas=(i32(1),), isr=(i32(1),), leader=i32(1),
    leader_epoch=i32(0), partition_epoch=i32(0), directories=(py_uuid(DIRECTORY_ID),)), 1)
NO_OP = ApiMessageAndVersion(NoOpRecord(), 0)


def dump(*args: str) -> tuple[int, list[str], str]:
    out, err = io.StringIO(), io.StringIO()
    code = dump_log_segments.main(list(args), out, err)
    return code, out.getvalue().splitlines(), err.getvalue()


def batch_line(buffer: bytes, position: int, is_control: bool, epoch: int) -> str:
    b = DefaultRecordBatch(buffer)
    return (f"baseOffset: {b.base_offset} lastOffset: {b.last_offset} count: {b.record_count} baseSequence: -1 "
            f"lastSequence: -1 producerId: -1 producerEpoch: -1 partitionLeaderEpoch: {epoch} isTransactional: false "
            f"isControl: {'true' if is_control else 'false'} deleteHorizonMs: OptionalLong.empty position: "
            f"{position} CreateTime: {T} size: {len(buffer)} magic: 2 compresscodec: none crc: {b.checksum} "
            f"isvalid: true")


def metadata_segment(directory: Path) -> tuple[Path, list[bytes]]:
    """The first segment of a one-voter log: LeaderChange (epoch 1), a topic and its partition, a NoOp, a commit
    marker (not something raft writes; it shows the endTxnMarker line)."""
    partition_dir = directory / "__cluster_metadata-0"
    partition_dir.mkdir(parents=True)
    leader_change = with_leader_change_message(0, T, 1, LeaderChangeMessage(
        version=i16(0), leader_id=i32(1), voters=(Voter(voter_id=i32(1)),), granting_voters=(Voter(voter_id=i32(1)),)))
    data = with_records(1, T, 1, [SERDE.write(TOPIC), SERDE.write(PARTITION)])
    no_op = with_records(3, T, 1, [SERDE.write(NO_OP)])
    marker = MemoryRecordsBuilder(CompressionType.NONE, TimestampType.CREATE_TIME, 4, T, -1, -1, -1, False, 1,
                                  is_control_batch=True)
    marker.append_control_record(T, ControlRecordType.COMMIT, struct.pack(">hi", 0, 5))
    buffers = [bytes(r.buffer) for r in (leader_change, data, no_op, marker.build())]
    segment = partition_dir / "00000000000000000000.log"
    segment.write_bytes(b"".join(buffers))
    return segment, buffers


def test_a_metadata_segment_prints_batches_records_and_decoded_metadata(tmp_path: Path) -> None:
    segment, buffers = metadata_segment(tmp_path)
    code, lines, err = dump("--cluster-metadata-decoder", str(segment))
    assert (code, err) == (0, "")
    positions = [sum(len(b) for b in buffers[:i]) for i in range(len(buffers))]
    topic = f'{{"name":"foo","topicId":"{TOPIC_ID}"}}'
    partition = (f'{{"partitionId":0,"topicId":"{TOPIC_ID}","replicas":[1],"isr":[1],"removingReplicas":[],'
                 f'"addingReplicas":[],"leader":1,"leaderEpoch":0,"partitionEpoch":0,"directories":["{DIRECTORY_ID}"]}}')
    topic_size, partition_size = len(SERDE.write(TOPIC)), len(SERDE.write(PARTITION))
    assert lines == [
        f"Dumping {segment}",
        "Log starting offset: 0",
        batch_line(buffers[0], positions[0], True, 1),
        f"| offset: 0 CreateTime: {T} keySize: 4 valueSize: 19 sequence: -1 headerKeys: [] "
        "controlType: LEADER_CHANGE(2)",
        batch_line(buffers[1], positions[1], False, 1),
        f"| offset: 1 CreateTime: {T} keySize: -1 valueSize: {topic_size} sequence: -1 headerKeys: [] "
        f'payload: {{"type":"TOPIC_RECORD","version":0,"data":{topic}}}',
        f"| offset: 2 CreateTime: {T} keySize: -1 valueSize: {partition_size} sequence: -1 headerKeys: [] "
        f'payload: {{"type":"PARTITION_RECORD","version":1,"data":{partition}}}',
        batch_line(buffers[2], positions[2], False, 1),
        f"| offset: 3 CreateTime: {T} keySize: -1 valueSize: 4 sequence: -1 headerKeys: [] "
        'payload: {"type":"NO_OP_RECORD","version":0,"data":{}}',
        batch_line(buffers[3], positions[3], True, 1),
        f"| offset: 4 CreateTime: {T} keySize: 4 valueSize: 6 sequence: -1 headerKeys: [] "
        "endTxnMarker: COMMIT coordinatorEpoch: 5",
    ]


def test_without_the_decoder_values_print_as_strings_and_record_metadata_can_be_skipped(tmp_path: Path) -> None:
    segment, _ = metadata_segment(tmp_path)
    out = io.StringIO()
    assert dump_log_segments.main(["--files", str(segment), "--print-data-log", "--skip-record-metadata"], out) == 0
    lines = out.getvalue().split("\n")
    assert lines[3] == ""  # the control record: nothing but its metadata, skipped
    # Kafka prints " payload: " straight after the (skipped) metadata, no "|"; the value as StringDecoder reads it
    assert (f"\n payload: {SERDE.write(TOPIC).decode('utf-8', errors='replace')}\n"
            f" payload: {SERDE.write(PARTITION).decode('utf-8', errors='replace')}\n") in out.getvalue()
    code, lines, _ = dump("--files", str(segment))  # shallow: batches only
    assert [line.split(" ")[0] for line in lines[2:]] == ["baseOffset:"] * 4


def test_a_snapshot_and_the_bootstrap_checkpoint(tmp_path: Path) -> None:
    partition_dir = tmp_path / "__cluster_metadata-0"
    partition_dir.mkdir()
    writer = (RecordsSnapshotWriter.Builder().set_last_contained_log_timestamp(T).set_time(lambda: T)
              .set_raw_snapshot_writer(FileRawSnapshotWriter.create(partition_dir, OffsetAndEpoch(4, 1)))
              .build(SERDE))
    writer.append([TOPIC, PARTITION])
    writer.freeze()
    writer.close()
    snapshot = partition_dir / "00000000000000000004-0000000001.checkpoint"
    code, lines, _ = dump("--cluster-metadata-decoder", str(snapshot))
    assert code == 0
    assert lines[:2] == [f"Dumping {snapshot}", "Snapshot end offset: 4, epoch: 1"]
    assert lines[3] == (f"| offset: 0 CreateTime: {T} keySize: 4 valueSize: 11 sequence: -1 headerKeys: [] "
                        f'SnapshotHeader {{"version":0,"lastContainedLogTimestamp":{T}}}')
    assert '"type":"TOPIC_RECORD"' in lines[5] and '"type":"PARTITION_RECORD"' in lines[6]
    assert lines[-1].endswith('SnapshotFooter {"version":0}')

    config = tmp_path / "server.properties"
    config.write_text("process.roles=broker,controller\nnode.id=1\ncontroller.quorum.voters=1@127.0.0.1:9093\n"
                      "controller.listener.names=CONTROLLER\n"
                      "listeners=PLAINTEXT://127.0.0.1:9092,CONTROLLER://127.0.0.1:9093\n"
                      f"log.dirs={tmp_path / 'logs'}\n")
    assert storage_tool.main(["format", "-c", str(config), "-t", "b3dGE68sQQKzfk80C_aLZw"], io.StringIO()) == 0
    bootstrap = tmp_path / "logs" / "bootstrap.checkpoint"
    result = subprocess.run([sys.executable, "-m", "kafka_edu.cli", "dump-log", "--cluster-metadata-decoder",
                             str(bootstrap)], capture_output=True, text=True, timeout=60, cwd=tmp_path,
                            env={**os.environ, "PYTHONPATH": str(REPO)})
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[:2] == [f"Dumping {bootstrap}", "KRaft bootstrap snapshot"]
    assert lines[5].endswith('payload: {"type":"FEATURE_LEVEL_RECORD","version":0,'
                             '"data":{"name":"metadata.version","featureLevel":21}}')
    assert len(lines) == 8 and lines[7].endswith('SnapshotFooter {"version":0}')


def test_a_torn_tail_an_unknown_record_and_a_missing_files_argument(tmp_path: Path) -> None:
    segment, buffers = metadata_segment(tmp_path)
    unknown = bytes([1, 99, 0, 0])  # frame 1, api key 99 (no such record), version 0, empty body
    with open(segment, "ab") as f:
        f.write(bytes(with_records(5, T, 1, [unknown]).buffer))
        f.write(b"\x00" * 7)
    code, lines, _ = dump("--cluster-metadata-decoder", str(segment))
    assert code == 0
    assert lines[-2].endswith("payload: Error at 5, skipping. Unknown metadata id 99")
    assert lines[-1] == f"Found 7 invalid bytes at the end of {segment.name}"
    code, _, err = dump("--cluster-metadata-decoder")
    assert code == 1 and err.startswith('Missing required argument "[files]"')
    code, lines, err = dump(str(tmp_path / "00000000000000000000.index"))
    assert (code, err) == (0, f"Ignoring unknown file {tmp_path / '00000000000000000000.index'}\n")
    missing = tmp_path / "00000000000000000042.log"
    code, lines, err = dump("--cluster-metadata-decoder", str(missing))
    assert code == 1 and err == f"FileNotFoundError: [Errno 2] No such file or directory: '{missing}'\n"
    assert not missing.exists()  # read-only: dumping never creates the file it was asked for
