"""Port of core/src/test/scala/unit/kafka/server/checkpoints/OffsetCheckpointFileWithFailureHandlerTest.scala
(Kafka 3.9). TestUtils.tempFile becomes a file under pytest's tmp_path; the Mockito checkpoint file is a small fake
counting its reads."""

from __future__ import annotations

from pathlib import Path

import pytest

from kafka_edu.v1_0_2.clients.common.errors import IllegalArgumentException, KafkaStorageException
from kafka_edu.v3_9.clients.common.topic_partition import TopicPartition
from kafka_edu.v3_9.core.server.checkpoints import offset_checkpoint_file
from kafka_edu.v3_9.core.server.checkpoints.offset_checkpoint_file import (
    LazyOffsetCheckpoints,
    OffsetCheckpointFile,
)
from kafka_edu.v3_9.storage.storage.internals.checkpoint.checkpoint_file_with_failure_handler import (
    CheckpointFileWithFailureHandler,
)
from kafka_edu.v3_9.storage.storage.internals.checkpoint.leader_epoch_checkpoint_file import LeaderEpochCheckpointFile
from kafka_edu.v3_9.storage.storage.internals.log.epoch_entry import EpochEntry
from kafka_edu.v3_9.storage.storage.internals.log.log_dir_failure_channel import LogDirFailureChannel
from tests.kafka_tests.referee import kafka_test_class

KAFKA = kafka_test_class(
    "3.9", "core/src/test/scala/unit/kafka/server/checkpoints/OffsetCheckpointFileWithFailureHandlerTest.scala",
    cases=["shouldPersistAndOverwriteAndReloadFile", "shouldHandleMultipleLines", "shouldReturnEmptyMapForEmptyFile",
           "shouldThrowIfVersionIsNotRecognised", "testLazyOffsetCheckpoint",
           "testLazyOffsetCheckpointFileInvalidLogDir", "testWriteIfDirExistsShouldNotThrowWhenDirNotExists"],
)


def _temp_file(tmp_path: Path) -> Path:
    file = tmp_path / "temp-checkpoint-file"
    file.touch()
    return file


def test_should_persist_and_overwrite_and_reload_file(tmp_path: Path) -> None:
    checkpoint = OffsetCheckpointFile(_temp_file(tmp_path))

    # given
    offsets = {TopicPartition("foo", 1): 5, TopicPartition("bar", 2): 10}
    # when
    checkpoint.write(offsets)
    # then
    assert checkpoint.read() == offsets

    # given an overwrite
    offsets2 = {TopicPartition("foo", 2): 15, TopicPartition("bar", 3): 20}
    # when
    checkpoint.write(offsets2)
    # then
    assert checkpoint.read() == offsets2


def test_should_handle_multiple_lines(tmp_path: Path) -> None:
    checkpoint = OffsetCheckpointFile(_temp_file(tmp_path))

    offsets = {TopicPartition("foo", 1): 5, TopicPartition("bar", 6): 10,
               TopicPartition("foo", 2): 5, TopicPartition("bar", 7): 10,
               TopicPartition("foo", 3): 5, TopicPartition("bar", 8): 10,
               TopicPartition("foo", 4): 5, TopicPartition("bar", 9): 10,
               TopicPartition("foo", 5): 5, TopicPartition("bar", 10): 10}

    checkpoint.write(offsets)

    assert checkpoint.read() == offsets


def test_should_return_empty_map_for_empty_file(tmp_path: Path) -> None:
    checkpoint = OffsetCheckpointFile(_temp_file(tmp_path))

    assert checkpoint.read() == {}

    checkpoint.write({})

    assert checkpoint.read() == {}


def test_should_throw_if_version_is_not_recognised(tmp_path: Path) -> None:
    file = _temp_file(tmp_path)
    log_dir_failure_channel = LogDirFailureChannel(10)
    checkpoint_file = CheckpointFileWithFailureHandler(file, offset_checkpoint_file.CURRENT_VERSION + 1,
                                                       offset_checkpoint_file.FORMATTER, log_dir_failure_channel,
                                                       str(file.parent))
    checkpoint_file.write([(TopicPartition("foo", 5), 10)])
    with pytest.raises(KafkaStorageException):
        OffsetCheckpointFile(checkpoint_file.file, log_dir_failure_channel).read()


class _MockCheckpointFile:
    """Mockito.mock(classOf[OffsetCheckpointFile]) answering read() with a fixed map, counting the calls."""

    def __init__(self) -> None:
        self.offsets: dict[TopicPartition, int] = {}
        self.reads = 0

    def read(self) -> dict[TopicPartition, int]:
        self.reads += 1
        return self.offsets


def test_lazy_offset_checkpoint() -> None:
    log_dir = "/tmp/kafka-logs"
    mock_checkpoint_file = _MockCheckpointFile()

    lazy_checkpoints = LazyOffsetCheckpoints({log_dir: mock_checkpoint_file})  # type: ignore[dict-item]
    assert mock_checkpoint_file.reads == 0

    partition0 = TopicPartition("foo", 0)
    partition1 = TopicPartition("foo", 1)
    partition2 = TopicPartition("foo", 2)

    mock_checkpoint_file.offsets = {partition0: 1000, partition1: 2000}

    assert lazy_checkpoints.fetch(log_dir, partition0) == 1000
    assert lazy_checkpoints.fetch(log_dir, partition1) == 2000
    assert lazy_checkpoints.fetch(log_dir, partition2) is None

    assert mock_checkpoint_file.reads == 1


def test_lazy_offset_checkpoint_file_invalid_log_dir() -> None:
    log_dir = "/tmp/kafka-logs"
    mock_checkpoint_file = _MockCheckpointFile()
    lazy_checkpoints = LazyOffsetCheckpoints({log_dir: mock_checkpoint_file})  # type: ignore[dict-item]
    with pytest.raises(IllegalArgumentException):
        lazy_checkpoints.fetch("/invalid/kafka-logs", TopicPartition("foo", 0))


def test_write_if_dir_exists_should_not_throw_when_dir_not_exists(tmp_path: Path) -> None:
    dir = tmp_path / "dir"
    dir.mkdir()
    file = dir / "test-checkpoint"
    log_dir_failure_channel = LogDirFailureChannel(10)
    checkpoint_file = CheckpointFileWithFailureHandler(file, 0, LeaderEpochCheckpointFile.FORMATTER,
                                                       log_dir_failure_channel, str(file.parent))

    dir.rename(Path(f"{dir.absolute()}-renamed"))
    checkpoint_file.write_if_dir_exists([EpochEntry(1, 42)])
