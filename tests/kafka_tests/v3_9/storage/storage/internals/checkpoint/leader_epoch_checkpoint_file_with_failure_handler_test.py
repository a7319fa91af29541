"""Port of core/src/test/scala/unit/kafka/server/checkpoints/LeaderEpochCheckpointFileWithFailureHandlerTest.scala
(Kafka 3.9). TestUtils.tempFile becomes a file under pytest's tmp_path."""

from __future__ import annotations

from pathlib import Path

from kafka_edu.v3_9.storage.storage.internals.checkpoint.leader_epoch_checkpoint_file import (
    LeaderEpochCheckpointFile,
)
from kafka_edu.v3_9.storage.storage.internals.log.epoch_entry import EpochEntry
from kafka_edu.v3_9.storage.storage.internals.log.log_dir_failure_channel import LogDirFailureChannel
from tests.kafka_tests.referee import kafka_test_class

KAFKA = kafka_test_class(
    "3.9", "core/src/test/scala/unit/kafka/server/checkpoints/LeaderEpochCheckpointFileWithFailureHandlerTest.scala",
    cases=[
        "shouldPersistAndOverwriteAndReloadFile",
        "shouldRetainValuesEvenIfCheckpointIsRecreated",
    ],
)


def _temp_file(tmp_path: Path) -> Path:
    file = tmp_path / "temp-checkpoint-file"
    file.touch()
    return file


def test_should_persist_and_overwrite_and_reload_file(tmp_path: Path) -> None:
    file = _temp_file(tmp_path)

    checkpoint = LeaderEpochCheckpointFile(file, LogDirFailureChannel(1))

    epochs = [EpochEntry(0, 1), EpochEntry(1, 2), EpochEntry(2, 3)]

    checkpoint.write(epochs)

    assert checkpoint.read() == epochs

    # overwritten
    epochs2 = [EpochEntry(3, 4), EpochEntry(4, 5)]

    checkpoint.write(epochs2)

    assert checkpoint.read() == epochs2


def test_should_retain_values_even_if_checkpoint_is_recreated(tmp_path: Path) -> None:
    file = _temp_file(tmp_path)

    checkpoint = LeaderEpochCheckpointFile(file, LogDirFailureChannel(1))
    epochs = [EpochEntry(0, 1), EpochEntry(1, 2), EpochEntry(2, 3)]
    checkpoint.write(epochs)

    # a new checkpoint over the same file reads what the first one wrote
    checkpoint2 = LeaderEpochCheckpointFile(file, LogDirFailureChannel(1))

    assert checkpoint2.read() == epochs
