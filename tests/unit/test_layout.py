"""Our own test code, not a Kafka port: the layout says which Kafka a module ports, and tracing stays out of the port.

- every ported module lives in the tree of the Kafka version its opening line names (kafka_edu/v1_0_2 or v3_9);
- no ported module imports the project's own code (runner, lessons, mining, CLI, ZooKeeper launcher), only the
  tracing markers;
- kafka_edu/tracing/ imports no ported module, and nothing in kafka_edu reads a frame's local variables.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "kafka_edu"
TREES = {"1.0.2": "v1_0_2", "3.9": "v3_9"}
PORTED = tuple(f"kafka_edu.{tree}" for tree in TREES.values())
PROJECT = ("kafka_edu.cluster_runner", "kafka_edu.lessons", "kafka_edu.mining", "kafka_edu.cli",
           "kafka_edu.zookeeper", "kafka_edu.nemesis", "tui", "lessons")


def _modules(under: Path) -> list[Path]:
    return sorted(p for p in under.rglob("*.py") if "__pycache__" not in p.parts)


def _imports(path: Path) -> set[str]:
    """Every module a file imports, at top level or inside a function, TYPE_CHECKING included."""
    tree = ast.parse(path.read_text())
    package = ".".join(path.relative_to(ROOT).with_suffix("").parts[:-1])
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[: len(parts) - node.level + 1] + ([base] if base else []))
            names.add(base)
    return names


def _version_named(path: Path) -> str | None:
    head = "".join(path.read_text().splitlines(keepends=True)[:3])
    match = re.match(r'\s*"""\s*Port of .*?\(Kafka (1\.0\.2|3\.9)', head, re.S)
    return match.group(1) if match else None


def test_every_ported_module_lives_in_the_tree_of_the_kafka_it_names():
    misplaced = []
    for path in _modules(PACKAGE):
        version = _version_named(path)
        if version is not None and TREES[version] not in path.relative_to(PACKAGE).parts[:1]:
            misplaced.append(f"{path.relative_to(ROOT)} ports Kafka {version}")
    assert not misplaced, misplaced


def test_outside_the_two_trees_nothing_is_a_port():
    top = {p.name for p in PACKAGE.iterdir() if p.is_dir() and p.name != "__pycache__"}
    assert top == {"v1_0_2", "v3_9", "tracing", "cluster_runner", "lessons", "mining", "zookeeper", "nemesis",
                   "gallery"}


@pytest.mark.parametrize("tree", sorted(TREES.values()))
def test_ported_modules_import_only_the_tracing_markers_of_the_projects_own_code(tree):
    offending = [f"{path.relative_to(ROOT)} imports {name}"
                 for path in _modules(PACKAGE / tree) for name in sorted(_imports(path))
                 if name.startswith(PROJECT)]
    assert not offending, offending


def test_tracing_imports_no_ported_module():
    offending = [f"{path.relative_to(ROOT)} imports {name}"
                 for path in _modules(PACKAGE / "tracing") for name in sorted(_imports(path))
                 if name.startswith(PORTED)]
    assert not offending, offending


def test_nothing_reads_a_frames_local_variables():
    readers = [str(path.relative_to(ROOT)) for path in _modules(PACKAGE) if "f_locals" in path.read_text()]
    assert not readers, readers


# What the 1.0.2 tree takes from 3.9's beyond the wire layer, the chimera the 3.9 broker issues take apart: the KRaft
# branches in 1.0.2's KafkaConfig, MetadataCache and transaction marker channel (a KRaft broker still runs
# them), and 3.9's raft control batches (MemoryRecords.withLeaderChangeMessage and the like) in 1.0.2's
# MemoryRecordsBuilder, which the raft still writes with. The list may only shrink.
CHIMERA = {
    ("clients/common/record/memory_records_builder.py", "clients.common.record.control_record_utils"),
    ("core/coordinator/transaction/transaction_marker_channel_manager.py",
     "core.server.node_to_controller_channel_manager"),
    ("core/coordinator/transaction/transaction_marker_channel_manager.py", "raft.raft.voter_set"),
    ("core/coordinator/transaction/transaction_marker_request_completion_handler.py",
     "core.server.node_to_controller_channel_manager"),
    ("core/kafka.py", "core.server.kafka_raft_server"),
    ("core/security/security_utils.py", "metadata.controller.replication_control_manager"),
    ("core/server/acl_apis.py", "metadata.controller.replication_control_manager"),
    ("core/server/kafka_config.py", "raft.raft"),
    ("core/server/kafka_config.py", "raft.raft.quorum_config"),
    ("core/server/kafka_config.py", "server_common.server.common.metadata_version"),
    ("core/server/metadata_cache.py", "raft.raft.voter_set"),
}


def test_the_1_0_2_tree_takes_from_3_9_only_the_wire_layer_and_the_known_kraft_branches():
    """1.0.2 speaks through the 3.9 wire layer (kio's schemas, ApiKeys, Errors, the header codec) at 1.0.2's versions;
    anything else of 3.9 in a 1.0.2 module is listed in CHIMERA."""
    wire = "kafka_edu.v3_9.clients.common.protocol"
    found = {(str(path.relative_to(PACKAGE / "v1_0_2")), name.removeprefix("kafka_edu.v3_9."))
             for path in _modules(PACKAGE / "v1_0_2") for name in _imports(path)
             if name.startswith("kafka_edu.v3_9") and not name.startswith(wire)}
    assert found - CHIMERA == set(), "new 3.9 imports in the 1.0.2 tree"
    assert CHIMERA - found == set(), "gone: take them off CHIMERA"
