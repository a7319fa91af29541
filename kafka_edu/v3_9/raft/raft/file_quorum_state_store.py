"""Port of raft/src/main/java/org/apache/kafka/raft/FileQuorumStateStore.java (Kafka 3.9).

`quorum-state` is one line of JSON: QuorumStateData plus its `data_version`. Static voters write version 0 (the voters
are listed, no directory ids); kraft.version 1 (KIP-853) would write version 1. A write goes to `quorum-state.tmp`,
is fsynced, then renamed over the file, so a crash leaves the old state or the new one, never half of one.
"""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path

from kafka_edu.v3_9.clients.common.utils.utils import flush_dir
from kafka_edu.v3_9.raft.raft.election_state import ElectionState
from kafka_edu.v3_9.raft.raft.quorum_state_store import QuorumStateStore

log = logging.getLogger("org.apache.kafka.raft.FileQuorumStateStore")

DEFAULT_FILE_NAME = "quorum-state"
DATA_VERSION = "data_version"
LOWEST_SUPPORTED_VERSION = 0
HIGHEST_SUPPORTED_VERSION = 1


class FileQuorumStateStore(QuorumStateStore):
    def __init__(self, state_file: Path) -> None:
        self.state_file = Path(state_file)

    def _read_state_from_file(self, file: Path) -> dict:
        try:
            with open(file, encoding="utf-8") as reader:
                line = reader.readline()
                if not line:
                    raise EOFError("File ended prematurely.")
                try:
                    read_node = json.loads(line)
                except ValueError as e:
                    raise OSError(f"Could not parse {line.strip()!r} as JSON: {e}") from e
                if not isinstance(read_node, dict):
                    raise OSError(f"Deserialized node {read_node} is not an object node")
                data_version_node = read_node.get(DATA_VERSION)
                if data_version_node is None:
                    raise OSError(f"Deserialized node {read_node} does not have {DATA_VERSION} field")
                data_version = int(data_version_node)
                if not LOWEST_SUPPORTED_VERSION <= data_version <= HIGHEST_SUPPORTED_VERSION:
                    raise RuntimeError(f"data_version ({data_version}) is not within the min "
                                       f"({LOWEST_SUPPORTED_VERSION}) and max ({HIGHEST_SUPPORTED_VERSION}) "
                                       "supported version")
                return read_node
        except (OSError, EOFError) as e:
            # Java wraps every IOException here in an UncheckedIOException with this message
            raise QuorumStateReadError(f"Error while reading the Quorum status from the file {file}: {e}") from e

    def read_election_state(self) -> ElectionState | None:
        if not self.state_file.exists():
            return None
        data = self._read_state_from_file(self.state_file)
        try:
            return ElectionState.from_quorum_state_data(data)
        except (KeyError, TypeError, ValueError) as e:
            raise QuorumStateReadError(f"Error while reading the Quorum status from the file {self.state_file}: "
                                       f"{data} is not a valid QuorumStateData ({e})") from e

    def write_election_state(self, latest: ElectionState, kraft_version: int) -> None:
        quorum_state_version = 0 if kraft_version == 0 else 1  # KRaftVersion.quorumStateVersion()
        self._write_election_state_to_file(self.state_file, latest.to_quorum_state_data(quorum_state_version),
                                           quorum_state_version)

    def path(self) -> Path:
        return self.state_file

    def _write_election_state_to_file(self, state_file: Path, state: dict, version: int) -> None:
        temp = state_file.with_name(state_file.name + ".tmp")
        _delete_file_if_exists(temp)
        log.debug("Writing tmp quorum state %s", temp)
        try:
            with open(temp, "w", encoding="utf-8") as writer:
                json_state = {**state, DATA_VERSION: version}
                writer.write(json.dumps(json_state, separators=(",", ":")))
                writer.flush()
                os.fsync(writer.fileno())
            os.replace(temp, state_file)
            flush_dir(state_file.parent)  # the rename itself must survive a crash
        except OSError as e:
            raise OSError(f"Error while writing the Quorum status from the file {state_file.absolute()}: {e}") from e
        finally:
            _delete_file_if_exists(temp)

    def clear(self) -> None:
        _delete_file_if_exists(self.state_file)
        _delete_file_if_exists(self.state_file.with_name(self.state_file.name + ".tmp"))

    def __str__(self) -> str:
        return f"Quorum state filepath: {self.state_file.absolute()}"


class QuorumStateReadError(RuntimeError):
    """java.io.UncheckedIOException from readElectionState: the file is there but unreadable; startup stops."""


def _delete_file_if_exists(file: Path) -> None:
    try:
        file.unlink()
    except FileNotFoundError:
        pass
