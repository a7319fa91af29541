"""`kafka-edu storage` (Kafka 3.9's kafka-storage.sh): random-uuid, format (meta.properties v1 with a directory.id
per directory, bootstrap.checkpoint), refusals, --ignore-formatted, and the MetaPropertiesEnsemble a server loads."""

from __future__ import annotations

import base64
import io
import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from kio.records.readers import read_batch

from kafka_edu.tracing import provider
from kafka_edu.v1_0_2.clients.common.record.file_records import FileRecords
from kafka_edu.v3_9.clients.common.uuid import RESERVED, Uuid
from kafka_edu.v3_9.core.tools import storage_tool
from kafka_edu.v3_9.metadata.common.metadata import FeatureLevelRecord
from kafka_edu.v3_9.metadata.metadata.bootstrap.bootstrap_directory import BootstrapDirectory
from kafka_edu.v3_9.metadata.metadata.metadata_record_serde import MetadataRecordSerde
from kafka_edu.v3_9.metadata.metadata.properties.meta_properties import (
    MetaProperties,
    MetaPropertiesEnsemble,
    VerificationFlag,
    read_properties_file,
    write_properties_file,
)
from kafka_edu.v3_9.raft.snapshot.file_raw_snapshot_reader import FileRawSnapshotReader
from kafka_edu.v3_9.raft.snapshot.records_snapshot_reader import RecordsSnapshotReader
from kafka_edu.v3_9.raft.snapshot.snapshots import Snapshots

REPO = Path(__file__).resolve().parents[2]
CLUSTER_ID = "b3dGE68sQQKzfk80C_aLZw"


def write_config(path: Path, **props: str) -> Path:
    path.write_text("".join(f"{k.replace('_', '.')}={v}\n" for k, v in props.items()))
    return path


def combined_config(tmp_path: Path, log_dirs: list[Path], **extra: str) -> Path:
    """A combined node whose first log dir holds the metadata log."""
    props = {"process_roles": "broker,controller", "node_id": "1", "controller_quorum_voters": "1@127.0.0.1:9093",
             "controller_listener_names": "CONTROLLER",
             "listeners": "PLAINTEXT://127.0.0.1:9092,CONTROLLER://127.0.0.1:9093",
             "log_dirs": ",".join(str(d) for d in log_dirs), **extra}
    return write_config(tmp_path / "server.properties", **props)


def run(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = storage_tool.main(list(args), out, err)
    return code, out.getvalue(), err.getvalue()


def cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "kafka_edu.cli", "storage", *args], capture_output=True, text=True,
                          timeout=60, cwd=cwd, env={**os.environ, "PYTHONPATH": str(REPO)})


def snapshot_of(directory: Path) -> dict[str, tuple[bytes, int]]:
    """Every file under `directory` with its bytes and mtime, to show a refused format changed nothing."""
    return {str(p): (p.read_bytes(), p.stat().st_mtime_ns) for p in sorted(directory.rglob("*")) if p.is_file()}


def test_random_uuid_prints_a_kafka_uuid() -> None:
    seen = set()
    for _ in range(50):
        code, out, _ = run("random-uuid")
        assert code == 0
        text = out.strip()
        assert re.fullmatch(r"[A-Za-z0-9_-]{22}", text) and not text.startswith("-")
        raw = base64.urlsafe_b64decode(text + "==")
        assert len(raw) == 16 and Uuid.from_bytes(raw) not in RESERVED and str(Uuid.from_bytes(raw)) == text
        seen.add(text)
    assert len(seen) == 50


def test_format_writes_meta_properties_v1_and_the_bootstrap_checkpoint(tmp_path: Path) -> None:
    meta_dir, data_dir = tmp_path / "a-logs", tmp_path / "b-logs"  # both created by the tool
    config = combined_config(tmp_path, [meta_dir, data_dir])
    code, out, err = run("format", "--config", str(config), "--cluster-id", CLUSTER_ID)
    assert (code, err) == (0, "")
    assert out.splitlines() == [f"Formatting metadata directory {meta_dir} with metadata.version 3.9-IV0.",
                                f"Formatting data directory {data_dir} with metadata.version 3.9-IV0."]
    directory_ids = set()
    for directory in (meta_dir, data_dir):
        lines = (directory / "meta.properties").read_text().splitlines()
        assert lines[0] == "#" and lines[1].startswith("#")  # java.util.Properties.store: comment, then the date
        props = read_properties_file(str(directory / "meta.properties"))
        assert set(props) == {"version", "cluster.id", "node.id", "directory.id"}
        assert (props["version"], props["cluster.id"], props["node.id"]) == ("1", CLUSTER_ID, "1")
        directory_id = Uuid.from_string(props["directory.id"])
        assert directory_id.most_significant_bits != 0  # not one of DirectoryId's reserved ids
        directory_ids.add(directory_id)
        assert not (directory / "meta.properties.tmp").exists()
    assert len(directory_ids) == 2  # one id per directory

    # The snapshot reader reads bootstrap.checkpoint back: a header batch, FeatureLevelRecord(metadata.version, 21)
    # (opened by hand: FileRawSnapshotReader.open wants an <offset>-<epoch>.checkpoint name)
    path = meta_dir / "bootstrap.checkpoint"
    fd = os.open(path, os.O_RDONLY)
    reader = RecordsSnapshotReader.of(
        FileRawSnapshotReader(FileRecords(path, fd, 0, 2**31 - 1, is_slice=False), Snapshots.BOOTSTRAP_SNAPSHOT_ID),
        MetadataRecordSerde.INSTANCE)
    batches = []
    while reader.has_next():
        batches.append(reader.next())
    reader.close()
    os.close(fd)
    assert [(r.message, r.version) for b in batches for r in b.records] == [
        (FeatureLevelRecord(name="metadata.version", feature_level=21), 0)]
    assert reader.last_contained_log_timestamp() > 0
    assert BootstrapDirectory(str(meta_dir), None).read().metadata_version().feature_level() == 21

    # kio's independent batch parser agrees, byte for byte on the record: header control batch, the
    # FeatureLevelRecord framed (frame 1, api key 12, version 0, compact "metadata.version", int16 21, no tags), footer
    data, position, batches = path.read_bytes(), 0, []
    while position < len(data):
        batch, size = read_batch(data, position)
        batches.append(batch)
        position += size
    assert [(b.base_offset, b.attributes & 0x20 != 0, b.partition_leader_epoch) for b in batches] == [
        (0, True, 0), (1, False, 0), (2, True, 0)]
    assert [r.key for r in batches[0].records + batches[2].records] == [b"\x00\x00\x00\x03", b"\x00\x00\x00\x04"]
    (record,) = batches[1].records
    assert (record.key, record.value) == (None, b"\x01\x0c\x00\x11metadata.version\x00\x15\x00")


def test_a_second_format_is_refused_with_exit_code_1_and_changes_nothing(tmp_path: Path) -> None:
    log_dir = tmp_path / "logs"
    config = combined_config(tmp_path, [log_dir])
    first = cli("format", "--config", str(config), "--cluster-id", CLUSTER_ID, cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    assert first.stdout == f"Formatting metadata directory {log_dir} with metadata.version 3.9-IV0.\n"
    before = snapshot_of(log_dir)
    second = cli("format", "--config", str(config), "--cluster-id", "AAAAAAAAAAAAAAAAAAAAAg", cwd=tmp_path)
    assert second.returncode == 1
    assert second.stderr == (f"RuntimeError: Invalid cluster.id in: {log_dir}/meta.properties. Expected "
                             f"AAAAAAAAAAAAAAAAAAAAAg, but read {CLUSTER_ID}\n")
    third = cli("format", "--config", str(config), "--cluster-id", CLUSTER_ID, cwd=tmp_path)
    assert third.returncode == 1
    assert third.stderr == (f"Log directory {log_dir} is already formatted. Use --ignore-formatted to ignore this "
                            "directory and format the others.\n")
    assert snapshot_of(log_dir) == before


def test_ignore_formatted_skips_formatted_directories_and_formats_the_others(tmp_path: Path) -> None:
    first_dir, second_dir = tmp_path / "a", tmp_path / "b"
    assert run("format", "-c", str(combined_config(tmp_path, [first_dir])), "-t", CLUSTER_ID)[0] == 0
    before = snapshot_of(first_dir)
    code, out, err = run("format", "-c", str(combined_config(tmp_path, [first_dir])), "-t", CLUSTER_ID,
                         "--ignore-formatted")
    assert (code, out, err) == (0, "All of the log directories are already formatted.\n", "")
    config = combined_config(tmp_path, [first_dir, second_dir])
    code, out, _ = run("format", "--config", str(config), "--cluster-id", CLUSTER_ID, "--ignore-formatted")
    assert code == 0
    assert out == f"Formatting data directory {second_dir} with metadata.version 3.9-IV0.\n"
    assert snapshot_of(first_dir) == before
    ensemble = MetaPropertiesEnsemble.Loader().add_log_dirs([str(first_dir), str(second_dir)]).load()
    assert ensemble.cluster_id() == CLUSTER_ID and ensemble.node_id() == 1
    assert len({p.directory_id for p in ensemble.log_dir_props().values()}) == 2


@pytest.mark.parametrize(("args", "message"), [
    (("--cluster-id", "not-a-uuid"),
     "Cluster ID string not-a-uuid does not appear to be a valid UUID: Input string `not-a-uuid` decoded as 7 "
     "bytes, which is not equal to the expected 16 bytes of a base64-encoded UUID"),
    (("--cluster-id", CLUSTER_ID, "--release-version", "2.8"), "metadata.version 2.8-IV1 is too old to be supported."),
    (("--cluster-id", CLUSTER_ID, "--release-version", "4.0-IV0"), "metadata.version 4.0-IV0 is not yet stable."),
    (("--cluster-id", CLUSTER_ID, "--release-version", "9.9"),
     "IllegalArgumentException: Version 9.9 is not a valid version"),
])
def test_bad_arguments_are_refused_with_one_line_and_nothing_written(tmp_path: Path, args: tuple[str, ...],
                                                                     message: str) -> None:
    log_dir = tmp_path / "logs"
    code, out, err = run("format", "--config", str(combined_config(tmp_path, [log_dir])), *args)
    assert (code, out, err) == (1, "", message + "\n")
    assert not log_dir.exists()


def test_an_older_release_version_formats_its_feature_level(tmp_path: Path) -> None:
    log_dir = tmp_path / "logs"
    code, out, _ = run("format", "-c", str(combined_config(tmp_path, [log_dir])), "-t", CLUSTER_ID, "-r", "3.8")
    assert code == 0 and out.endswith("with metadata.version 3.8-IV0.\n")
    assert BootstrapDirectory(str(log_dir), None).read().metadata_version().feature_level() == 20


def test_the_release_version_defaults_to_a_configured_inter_broker_protocol_version(tmp_path: Path) -> None:
    log_dir = tmp_path / "logs"
    config = combined_config(tmp_path, [log_dir], inter_broker_protocol_version="3.7")
    code, out, _ = run("format", "-c", str(config), "-t", CLUSTER_ID)
    assert (code, out) == (0, f"Formatting metadata directory {log_dir} with metadata.version 3.7-IV4.\n")


def test_a_zookeeper_config_and_a_bad_config_are_refused(tmp_path: Path) -> None:
    zk = write_config(tmp_path / "zk.properties", zookeeper_connect="127.0.0.1:2181", log_dirs=str(tmp_path / "l"))
    assert run("format", "--config", str(zk), "--cluster-id", CLUSTER_ID) == (
        1, "", "The kafka configuration file appears to be for a legacy cluster. Formatting is only supported for "
               "clusters in KRaft mode.\n")
    bad = combined_config(tmp_path, [tmp_path / "l"], node_id="2")
    result = cli("format", "--config", str(bad), "--cluster-id", CLUSTER_ID, cwd=tmp_path)
    assert result.returncode == 1
    assert result.stderr == ("IllegalArgumentException: requirement failed: If process.roles contains the "
                             "'controller' role, the node id 2 must be included in the set of voters "
                             "controller.quorum.voters=Set(1)\n")
    assert not (tmp_path / "l").exists()
    missing = cli("format", "--config", str(tmp_path / "nope.properties"), "--cluster-id", CLUSTER_ID, cwd=tmp_path)
    assert (missing.returncode, missing.stderr) == (1, f"Cannot read {tmp_path}/nope.properties: No such file or "
                                                       "directory\n")
    usage = cli("format", "--config", str(bad), cwd=tmp_path)
    assert usage.returncode == 1 and "the following arguments are required: --cluster-id" in usage.stdout


def test_the_cli_prints_a_random_uuid(tmp_path: Path) -> None:
    result = cli("random-uuid", cwd=tmp_path)
    assert result.returncode == 0 and re.fullmatch(r"[A-Za-z0-9_-]{22}\n", result.stdout)


def test_info_reports_the_formatted_directories(tmp_path: Path) -> None:
    config = combined_config(tmp_path, [tmp_path / "a", tmp_path / "b"])
    code, out, _ = run("info", "--config", str(config))
    assert code == 1 and f"{tmp_path}/a does not exist" in out
    run("format", "--config", str(config), "--cluster-id", CLUSTER_ID)
    code, out, _ = run("info", "--config", str(config))
    assert code == 0
    lines = out.splitlines()
    assert lines[:4] == ["Found log directories:", f"  {tmp_path}/a", f"  {tmp_path}/b", ""]
    assert re.fullmatch(rf"Found metadata: \{{cluster.id={CLUSTER_ID}, directory.id=[A-Za-z0-9_-]{{22}}, node.id=1, "
                        r"version=1\}", lines[4])


# -- MetaPropertiesEnsemble, as KafkaRaftServer.initializeLogDirs uses it --------------------------------------------

def load_for_server(metadata_log_dir: Path, log_dirs: list[Path]) -> MetaPropertiesEnsemble:
    loader = MetaPropertiesEnsemble.Loader().add_metadata_log_dir(str(metadata_log_dir))
    for d in log_dirs:
        loader.add_log_dir(str(d))
    return loader.load()


def test_the_server_side_loading_verifies_one_cluster_and_this_node(tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    run("format", "--config", str(combined_config(tmp_path, [a, b])), "--cluster-id", CLUSTER_ID)
    flags = [VerificationFlag.REQUIRE_AT_LEAST_ONE_VALID, VerificationFlag.REQUIRE_METADATA_LOG_DIR]
    ensemble = load_for_server(a, [a, b])
    ensemble.verify(None, 1, flags)
    assert ensemble.metadata_log_dir() == str(a) and ensemble.cluster_id() == CLUSTER_ID
    with pytest.raises(RuntimeError) as e:
        ensemble.verify(None, 3, flags)
    assert str(e.value) == (f"Stored node id 1 doesn't match previous node id 3 in {a}/meta.properties. If you moved "
                            "your data, make sure your configured node id matches. If you intend to create a new "
                            "node, you should remove all data in your data directories.")
    other = MetaProperties.Builder(read_properties_file(str(b / "meta.properties"))).set_cluster_id(
        "AAAAAAAAAAAAAAAAAAAAAg").build()
    write_properties_file(other.to_properties(), str(b / "meta.properties"), True)
    with pytest.raises(RuntimeError, match=f"^Invalid cluster.id in: {b}/meta.properties. Expected {CLUSTER_ID}, "
                                           "but read AAAAAAAAAAAAAAAAAAAAAg$"):
        load_for_server(a, [a, b]).verify(None, 1, flags)


def test_an_unformatted_directory_is_reported_and_a_missing_directory_id_is_written_back(tmp_path: Path) -> None:
    a, b, empty = tmp_path / "a", tmp_path / "b", tmp_path / "empty"
    run("format", "--config", str(combined_config(tmp_path, [a, b])), "--cluster-id", CLUSTER_ID)
    empty.mkdir()
    assert list(load_for_server(a, [a, b, empty]).non_failed_directory_props())[0] == (str(empty), None)
    with pytest.raises(RuntimeError, match="^No readable meta.properties files found.$"):
        load_for_server(empty, []).verify(None, 1, [VerificationFlag.REQUIRE_AT_LEAST_ONE_VALID])

    # A file written before directory ids (3.7) loses its id here; the server's loading writes a new one back.
    props = read_properties_file(str(b / "meta.properties"))
    del props["directory.id"]
    write_properties_file(props, str(b / "meta.properties"), True)
    a_before = (a / "meta.properties").read_bytes()
    ensemble = load_for_server(a, [a, b])
    copier = MetaPropertiesEnsemble.Copier(ensemble)
    for log_dir, meta_props in ensemble.non_failed_directory_props():
        assert meta_props is not None
        builder = MetaProperties.Builder(meta_props)
        if builder.directory_id() is None:
            builder.set_directory_id(copier.generate_valid_directory_id())
        copier.set_log_dir_props(log_dir, builder.build())
    copier.write_log_dir_changes()
    rewritten = read_properties_file(str(b / "meta.properties"))
    assert Uuid.from_string(rewritten["directory.id"]) == copier.copy().log_dir_props()[str(b)].directory_id
    assert (a / "meta.properties").read_bytes() == a_before  # unchanged files are not rewritten


# -- tracing ---------------------------------------------------------------------------------------------------------

@pytest.fixture
def traced() -> Iterator[provider.Tracing]:
    previous = provider._current
    from kafka_edu.tracing import setup_tracing
    tracing = setup_tracing("storage-tool", "run-1")
    yield tracing
    tracing.shutdown()
    provider._current = previous


def test_format_is_traced_as_kr_storage_with_its_ids_and_refusals(tmp_path: Path, traced: provider.Tracing) -> None:
    log_dir = tmp_path / "logs"
    config = combined_config(tmp_path, [log_dir])
    assert run("format", "--config", str(config), "--cluster-id", CLUSTER_ID)[0] == 0
    spans = {s.name: s for s in traced.memory.get_finished_spans()}
    command, do_format = spans["StorageTool.runFormatCommand"], spans["Formatter.doFormat"]
    assert command.attributes["kafka.step"] == do_format.attributes["kafka.step"] == "KR.storage"
    assert do_format.parent.span_id == command.context.span_id
    assert (command.attributes["kafka.cluster.id"], command.attributes["kafka.node.id"]) == (CLUSTER_ID, 1)
    directory_id = read_properties_file(str(log_dir / "meta.properties"))["directory.id"]
    assert do_format.attributes["kafka.storage.directory_ids"] == (f"{log_dir}={directory_id}",)
    assert do_format.attributes["kafka.metadata.version"] == "3.9-IV0"
    assert "kafka.storage.refused" not in do_format.attributes

    traced.memory.clear()
    assert run("format", "--config", str(config), "--cluster-id", CLUSTER_ID)[0] == 1
    spans = {s.name: s for s in traced.memory.get_finished_spans()}
    refused = spans["Formatter.doFormat"]
    assert refused.attributes["kafka.storage.formatted_before"] == (str(log_dir),)
    assert refused.attributes["kafka.storage.refused"].startswith(f"Log directory {log_dir} is already formatted.")
    assert refused.attributes["kafka.storage.formatted"] == ()
    assert spans["StorageTool.runFormatCommand"].status.status_code.name == "ERROR"


def test_a_format_inside_a_cluster_run_writes_its_spans_into_the_run(tmp_path: Path) -> None:
    config = combined_config(tmp_path, [tmp_path / "logs"])
    run_dir = tmp_path / "run"
    result = subprocess.run([sys.executable, "-m", "kafka_edu.cli", "storage", "format", "--config", str(config),
                             "--cluster-id", CLUSTER_ID], capture_output=True, text=True, timeout=60, cwd=tmp_path,
                            env={**os.environ, "PYTHONPATH": str(REPO), "KAFKA_EDU_RUN_DIR": str(run_dir)})
    assert result.returncode == 0, result.stderr
    spans = [s for line in (run_dir / "storage-1.jsonl").read_text().splitlines()
             for rs in json.loads(line)["resourceSpans"] for ss in rs["scopeSpans"] for s in ss["spans"]]
    assert sorted(s["name"] for s in spans) == ["Formatter.doFormat", "StorageTool.runFormatCommand"]
