"""`kafka-edu storage format` for a KIP-853 dynamic quorum (Kafka 3.9): --standalone, --initial-controllers and
--no-initial-controllers, their refusals, and the bootstrap snapshot the first two write into __cluster_metadata-0,
read back with the port's snapshot reader."""

from __future__ import annotations

import io
import uuid
from pathlib import Path

import pytest

from kafka_edu.v3_9.clients.common.record.control_record_utils import ControlRecordType
from kafka_edu.v3_9.clients.common.uuid import Uuid
from kafka_edu.v3_9.core.tools import storage_tool
from kafka_edu.v3_9.metadata.metadata.bootstrap.bootstrap_directory import BootstrapDirectory
from kafka_edu.v3_9.metadata.metadata.metadata_record_serde import MetadataRecordSerde
from kafka_edu.v3_9.metadata.metadata.properties.meta_properties import read_properties_file
from kafka_edu.v3_9.raft.raft.batch import Batch
from kafka_edu.v3_9.raft.raft.replica_key import ReplicaKey
from kafka_edu.v3_9.raft.raft.voter_set import VoterSet
from kafka_edu.v3_9.raft.snapshot.file_raw_snapshot_reader import FileRawSnapshotReader
from kafka_edu.v3_9.raft.snapshot.records_snapshot_reader import RecordsSnapshotReader
from kafka_edu.v3_9.raft.snapshot.snapshots import Snapshots

CLUSTER_ID = "XcZZOzUqS4yHOjhMQB6JLQ"
THREE_VOTERS = ("0@localhost:8020:K90IZ-0DRNazJ49kCZ1EMQ,"
                "1@localhost:8030:aUARLskQTCW4qCZDtS_cwA,"
                "2@localhost:8040:2ggvsS4kQb-fSJ_-zC_Ang")
BOOTSTRAP_CHECKPOINT = "__cluster_metadata-0/00000000000000000000-0000000000.checkpoint"


def write_config(tmp_path: Path, log_dirs: list[Path], **props: str) -> Path:
    """A controller of a dynamic quorum (StorageToolTest's defaultDynamicQuorumProperties), changed by `props`."""
    values = {"process.roles": "controller", "node.id": "0", "controller.listener.names": "CONTROLLER",
              "controller.quorum.bootstrap.servers": "localhost:9093", "listeners": "CONTROLLER://:9093",
              "advertised.listeners": "CONTROLLER://127.0.0.1:9093",
              "log.dirs": ",".join(str(d) for d in log_dirs)}
    values.update({k.replace("_", "."): v for k, v in props.items()})
    path = tmp_path / "format.properties"
    path.write_text("".join(f"{k}={v}\n" for k, v in values.items() if v is not None))
    return path


def run(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = storage_tool.main(list(args), out, err)
    return code, out.getvalue(), err.getvalue()


def format_(config: Path, *extra: str) -> tuple[int, str, str]:
    return run("format", "--cluster-id", CLUSTER_ID, "--config", str(config), *extra)


def directory_id(log_dir: Path) -> Uuid:
    return Uuid.from_string(read_properties_file(str(log_dir / "meta.properties"))["directory.id"])


def read_bootstrap_snapshot(metadata_dir: Path) -> list[Batch]:
    """Every batch of the bootstrap snapshot, the control ones included."""
    with FileRawSnapshotReader.open(metadata_dir / "__cluster_metadata-0", Snapshots.BOOTSTRAP_SNAPSHOT_ID) as raw:
        reader = RecordsSnapshotReader.of(raw, MetadataRecordSerde.INSTANCE, include_control_batches=True)
        batches = []
        while reader.has_next():
            batches.append(reader.next())
        assert reader.last_contained_log_timestamp() > 0
        return batches


def voters_of(metadata_dir: Path) -> VoterSet:
    """The snapshot: one control batch (header, kraft.version 1, the voters) and the footer, no metadata records."""
    batches = read_bootstrap_snapshot(metadata_dir)
    assert [b.records for b in batches] == [[], []]
    header, footer = batches
    assert [r.type for r in header.control_records] == [
        ControlRecordType.SNAPSHOT_HEADER, ControlRecordType.KRAFT_VERSION, ControlRecordType.KRAFT_VOTERS]
    assert [r.type for r in footer.control_records] == [ControlRecordType.SNAPSHOT_FOOTER]
    assert header.control_records[1].message.k_raft_version == 1
    return VoterSet.from_voters_record(header.control_records[2].message)


def test_standalone_makes_this_controller_the_only_voter(tmp_path: Path) -> None:
    log_dir = tmp_path / "meta"
    code, out, err = format_(write_config(tmp_path, [log_dir]), "--release-version", "3.9-IV0", "--standalone")
    assert (code, err) == (0, "")
    assert out == f"Formatting dynamic metadata voter directory {log_dir} with metadata.version 3.9-IV0.\n"
    assert sorted(p.name for p in log_dir.iterdir()) == ["__cluster_metadata-0", "bootstrap.checkpoint",
                                                         "meta.properties"]
    assert [p.name for p in (log_dir / "__cluster_metadata-0").iterdir()] == [Path(BOOTSTRAP_CHECKPOINT).name]
    voters = voters_of(log_dir)
    # the voter's directory id is the new id of this node's metadata log directory
    assert voters.voter_keys() == {ReplicaKey.of(0, directory_id(log_dir))}
    (node,) = voters.voter_nodes_all()
    assert node.listeners.endpoints == {"CONTROLLER": ("127.0.0.1", 9093)}  # the advertised controller listener
    assert (node.supported_kraft_version.min(), node.supported_kraft_version.max()) == (0, 1)
    # kraft.version lives in the raft log, not in the bootstrap metadata records
    assert [(r.message.name, r.message.feature_level) for r in BootstrapDirectory(str(log_dir), None).read().records()
            ] == [("metadata.version", 21)]


def test_standalone_takes_localhost_when_the_controller_listener_has_no_host(tmp_path: Path) -> None:
    log_dir = tmp_path / "meta"
    config = write_config(tmp_path, [log_dir], advertised_listeners=None, node_id="7", listeners="CONTROLLER://:9094")
    assert format_(config, "-s")[0] == 0
    (node,) = voters_of(log_dir).voter_nodes_all()
    assert (node.voter_key.id, node.listeners.endpoints) == (7, {"CONTROLLER": ("localhost", 9094)})


def test_standalone_on_a_combined_node_uses_its_controller_listener_and_formats_the_data_directories(
        tmp_path: Path) -> None:
    meta_dir, data_dir = tmp_path / "a", tmp_path / "b"
    config = write_config(tmp_path, [meta_dir, data_dir], process_roles="broker,controller",
                          listeners="PLAINTEXT://:9092,CONTROLLER://:9093",
                          advertised_listeners="PLAINTEXT://127.0.0.1:9092,CONTROLLER://127.0.0.1:9093")
    code, out, _ = format_(config, "--standalone")
    assert code == 0
    assert out.splitlines() == [
        f"Formatting dynamic metadata voter directory {meta_dir} with metadata.version 3.9-IV0.",
        f"Formatting data directory {data_dir} with metadata.version 3.9-IV0."]
    (node,) = voters_of(meta_dir).voter_nodes_all()
    assert node.listeners.endpoints == {"CONTROLLER": ("127.0.0.1", 9093)}
    assert not (data_dir / "__cluster_metadata-0").exists()
    assert directory_id(data_dir) != directory_id(meta_dir)


def test_standalone_is_refused_on_a_broker(tmp_path: Path) -> None:
    log_dir = tmp_path / "logs"
    config = write_config(tmp_path, [log_dir], process_roles="broker", listeners="PLAINTEXT://:9092",
                          advertised_listeners="PLAINTEXT://127.0.0.1:9092")
    assert format_(config, "--release-version", "3.9-IV0", "--standalone") == (
        1, "", "You can only use --standalone on a controller.\n")
    assert not log_dir.exists()


@pytest.mark.parametrize(("node_id", "voter", "description"), [
    ("1", True, "dynamic metadata voter directory"),
    ("3", False, "dynamic metadata directory"),  # a controller to be added later, given the initial voters
])
def test_initial_controllers_write_the_voter_set_and_this_voters_directory_id(
        tmp_path: Path, node_id: str, voter: bool, description: str) -> None:
    log_dir = tmp_path / "meta"
    config = write_config(tmp_path, [log_dir], node_id=node_id)
    code, out, err = format_(config, "--release-version", "3.9-IV0", "--initial-controllers", THREE_VOTERS)
    assert (code, err) == (0, "")
    assert out == f"Formatting {description} {log_dir} with metadata.version 3.9-IV0.\n"
    voters = voters_of(log_dir)
    assert voters.voter_keys() == {ReplicaKey.of(0, Uuid.from_string("K90IZ-0DRNazJ49kCZ1EMQ")),
                                   ReplicaKey.of(1, Uuid.from_string("aUARLskQTCW4qCZDtS_cwA")),
                                   ReplicaKey.of(2, Uuid.from_string("2ggvsS4kQb-fSJ_-zC_Ang"))}
    assert {v.voter_key.id: v.listeners.endpoints for v in voters.voter_nodes_all()} == {
        0: {"CONTROLLER": ("localhost", 8020)}, 1: {"CONTROLLER": ("localhost", 8030)},
        2: {"CONTROLLER": ("localhost", 8040)}}
    if voter:
        assert directory_id(log_dir) == Uuid.from_string("aUARLskQTCW4qCZDtS_cwA")
    else:
        assert directory_id(log_dir) not in {k.directory_id for k in voters.voter_keys()}


def test_the_voters_record_on_disk_is_the_one_kafka_writes(tmp_path: Path) -> None:
    log_dir = tmp_path / "meta"
    assert format_(write_config(tmp_path, [log_dir], node_id="1"), "-I", THREE_VOTERS)[0] == 0
    record = read_bootstrap_snapshot(log_dir)[0].control_records[2].message
    assert record.version == 0
    assert [(v.voter_id, v.voter_directory_id, [(e.name, e.host, e.port) for e in v.endpoints],
             (v.k_raft_version_feature.min_supported_version, v.k_raft_version_feature.max_supported_version))
            for v in record.voters] == [
        (0, uuid.UUID(bytes=Uuid.from_string("K90IZ-0DRNazJ49kCZ1EMQ").to_bytes()), [("CONTROLLER", "localhost", 8020)],
         (0, 1)),
        (1, uuid.UUID(bytes=Uuid.from_string("aUARLskQTCW4qCZDtS_cwA").to_bytes()), [("CONTROLLER", "localhost", 8030)],
         (0, 1)),
        (2, uuid.UUID(bytes=Uuid.from_string("2ggvsS4kQb-fSJ_-zC_Ang").to_bytes()), [("CONTROLLER", "localhost", 8040)],
         (0, 1))]


def test_no_initial_controllers_formats_a_controller_without_voters(tmp_path: Path) -> None:
    log_dir = tmp_path / "meta"
    code, out, err = format_(write_config(tmp_path, [log_dir]), "--no-initial-controllers", "--release-version",
                             "3.9-IV0")
    assert (code, err) == (0, "")
    # 3.9: no initial voters means no dynamic quorum here; the node reads the voters from the quorum's leader
    assert out == f"Formatting metadata directory {log_dir} with metadata.version 3.9-IV0.\n"
    assert sorted(p.name for p in log_dir.iterdir()) == ["bootstrap.checkpoint", "meta.properties"]


@pytest.mark.parametrize("process_roles", ["controller", "broker,controller"])
def test_a_controller_without_static_voters_must_be_told_how_its_quorum_starts(tmp_path: Path,
                                                                              process_roles: str) -> None:
    log_dir = tmp_path / "meta"
    broker_listeners = {"listeners": "PLAINTEXT://:9092,CONTROLLER://:9093",
                        "advertised_listeners": "PLAINTEXT://127.0.0.1:9092,CONTROLLER://127.0.0.1:9093"}
    config = write_config(tmp_path, [log_dir], process_roles=process_roles,
                          **(broker_listeners if "broker" in process_roles else {}))
    assert format_(config, "--release-version", "3.9-IV0") == (
        1, "", "Because controller.quorum.voters is not set on this controller, you must specify one of the "
               "following: --standalone, --initial-controllers, or --no-initial-controllers.\n")
    assert not log_dir.exists()


def test_a_broker_without_static_voters_formats_without_any_of_the_three(tmp_path: Path) -> None:
    log_dir = tmp_path / "logs"
    config = write_config(tmp_path, [log_dir], process_roles="broker", listeners="PLAINTEXT://:9092",
                          advertised_listeners="PLAINTEXT://127.0.0.1:9092")
    assert format_(config, "--release-version", "3.9-IV0") == (
        0, f"Formatting metadata directory {log_dir} with metadata.version 3.9-IV0.\n", "")


@pytest.mark.parametrize("options", [
    ("--standalone", "--initial-controllers", THREE_VOTERS),
    ("--standalone", "--no-initial-controllers"),
    ("-N", "-I", THREE_VOTERS),
])
def test_the_three_options_are_mutually_exclusive(tmp_path: Path, options: tuple[str, ...]) -> None:
    log_dir = tmp_path / "meta"
    code, out, err = format_(write_config(tmp_path, [log_dir]), *options)
    assert (code, err) == (1, "")
    assert out.startswith("kafka-storage format: error: argument ") and "not allowed with argument" in out
    assert not log_dir.exists()


@pytest.mark.parametrize(("voters", "message"), [
    ("", "No voters given."),
    ("0@localhost:8020", "No colon following port could be found."),
    ("0@localhost:8020:K90IZ-0DRNazJ49kCZ1EMQ,0@localhost:8030:aUARLskQTCW4qCZDtS_cwA",
     "Node id 0 was specified more than once."),
])
def test_a_bad_initial_controllers_list_is_refused_and_nothing_is_written(tmp_path: Path, voters: str,
                                                                          message: str) -> None:
    log_dir = tmp_path / "meta"
    assert format_(write_config(tmp_path, [log_dir]), "--initial-controllers", voters) == (
        1, "", f"IllegalArgumentException: {message}\n")
    assert not log_dir.exists()


def test_kraft_version_follows_the_quorum_kind_and_needs_3_9(tmp_path: Path) -> None:
    """A dynamic quorum needs kraft.version 1, which depends on metadata.version 3.9-IV0."""
    log_dir = tmp_path / "meta"
    code, out, err = format_(write_config(tmp_path, [log_dir]), "--release-version", "3.8", "--standalone")
    assert (code, out) == (1, "")
    assert err == ("IllegalArgumentException: kraft.version could not be set to 1 because it depends on "
                   "metadata.version level 21\n")
    assert not log_dir.exists()


def test_static_voters_with_initial_controllers_format_as_3_9_does(tmp_path: Path) -> None:
    """3.9's storage tool does not check controller.quorum.voters against the KIP-853 options: it formats."""
    log_dir = tmp_path / "meta"
    config = write_config(tmp_path, [log_dir], controller_quorum_bootstrap_servers=None,
                          controller_quorum_voters="0@localhost:9093")
    assert format_(config, "--standalone")[0] == 0
    assert voters_of(log_dir).voter_ids() == {0}


def test_add_scram_puts_the_credentials_into_the_bootstrap_metadata(tmp_path: Path) -> None:
    """--add-scram (3.9's StorageToolTest.testBootstrapScramRecords, on a static quorum)."""
    log_dir = tmp_path / "logs"
    config = write_config(tmp_path, [log_dir], controller_quorum_bootstrap_servers=None,
                          controller_quorum_voters="0@localhost:9093")
    code, _, err = format_(config, "--release-version", "3.9-IV0",
                           "--add-scram", "SCRAM-SHA-512=[name=alice,password=changeit]",
                           "-S", "SCRAM-SHA-512=[name=bob,password=changeit]")
    assert (code, err) == (0, "")
    records = [r.message for r in BootstrapDirectory(str(log_dir), None).read().records()]
    assert [(type(r).__name__, getattr(r, "name", None)) for r in records] == [
        ("FeatureLevelRecord", "metadata.version"), ("UserScramCredentialRecord", "alice"),
        ("UserScramCredentialRecord", "bob")]
    assert format_(write_config(tmp_path, [tmp_path / "old"], controller_quorum_bootstrap_servers=None,
                                controller_quorum_voters="0@localhost:9093"),
                   "-r", "3.4", "-S", "SCRAM-SHA-512=[name=alice,password=changeit]") == (
        1, "", "SCRAM is only supported in metadata.version 3.5-IV2 or later.\n")
