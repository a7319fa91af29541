"""Port of core/src/test/scala/unit/kafka/coordinator/group/CoordinatorLoaderImplTest.scala (Kafka 3.9).

Mockito's ReplicaManager, UnifiedLog, playback and deserializer mocks are unittest.mock.Mock objects. Each log read
answers with what Kafka's logReadResult builds: a FileRecords stand-in whose readInto copies a MemoryRecords' bytes
into the loader's buffer."""

from __future__ import annotations

import threading
from types import SimpleNamespace
from typing import Any
from unittest import mock

from kafka_edu.v1_0_2.clients.common.requests.transaction_result import TransactionResult
from kafka_edu.v3_9.clients.common.compress.compression import Compression
from kafka_edu.v3_9.clients.common.errors.not_leader_or_follower_exception import NotLeaderOrFollowerException
from kafka_edu.v3_9.clients.common.record.control_record_utils import ControlRecordType
from kafka_edu.v3_9.clients.common.record.end_transaction_marker import EndTransactionMarker
from kafka_edu.v3_9.clients.common.record.memory_records import MemoryRecords
from kafka_edu.v3_9.clients.common.record.record_batch import NO_PRODUCER_EPOCH, NO_PRODUCER_ID
from kafka_edu.v3_9.clients.common.record.simple_record import SimpleRecord
from kafka_edu.v3_9.clients.common.topic_partition import TopicPartition
from kafka_edu.v3_9.clients.common.utils.mock_time import MockTime
from kafka_edu.v3_9.clients.common.utils.time import SYSTEM
from kafka_edu.v3_9.core.coordinator.group.coordinator_loader_impl import CoordinatorLoaderImpl
from kafka_edu.v3_9.group_coordinator.coordinator.group.runtime.coordinator_loader import UnknownRecordTypeException
from kafka_edu.v3_9.group_coordinator.coordinator.group.runtime.deserializer import Deserializer
from kafka_edu.v3_9.storage.storage.internals.log.fetch_isolation import FetchIsolation
from tests.kafka_tests.referee import kafka_test_class

KAFKA = kafka_test_class(
    "3.9", "core/src/test/scala/unit/kafka/coordinator/group/CoordinatorLoaderImplTest.scala",
    cases=[
        "testNonexistentPartition",
        "testLoadingIsRejectedWhenClosed",
        "testLoading",
        "testLoadingStoppedWhenClosed",
        "testUnknownRecordTypeAreIgnored",
        "testDeserializationErrorFailsTheLoading",
        "testLoadGroupAndOffsetsWithCorruptedLog",
        "testLoadSummary",
        "testUpdateLastWrittenOffsetOnBatchLoaded",
        "testUpdateLastWrittenOffsetAndUpdateLastCommittedOffsetNoRecordsRead",
        "testUpdateLastWrittenOffsetOnBatchLoadedWhileHighWatermarkAhead",
        "testPartitionGoesOfflineDuringLoad",
    ],
)

WAIT_S = 10


class StringKeyValueDeserializer(Deserializer[tuple[str, str]]):
    def deserialize(self, key: Any, value: Any) -> tuple[str, str]:
        return bytes(key).decode(), bytes(value).decode()


class _FileRecords:
    """FileRecords as the mocked reads give it: its size, and readInto copying `records`' bytes."""

    def __init__(self, records: MemoryRecords) -> None:
        self.records = records

    def size_in_bytes(self) -> int:
        return self.records.size_in_bytes()

    def read_into(self, buffer: bytearray, position: int) -> None:
        buffer[:] = bytes(self.records.buffer())


def log_read_result(start_offset: int, records: list[SimpleRecord] | None = None, producer_id: int = NO_PRODUCER_ID,
                    producer_epoch: int = NO_PRODUCER_EPOCH,
                    control_record_type: ControlRecordType | None = None) -> Any:
    if control_record_type is not None:
        memory_records = MemoryRecords.with_end_transaction_marker(
            producer_id, producer_epoch, EndTransactionMarker(control_record_type, 0), initial_offset=start_offset,
            timestamp=0)
    elif producer_id == NO_PRODUCER_ID:
        memory_records = MemoryRecords.with_records(Compression.NONE, *(records or []), initial_offset=start_offset)
    else:
        memory_records = MemoryRecords.with_transactional_records(Compression.NONE, producer_id, producer_epoch, 0,
                                                                  *(records or []), initial_offset=start_offset)
    return SimpleNamespace(records=_FileRecords(memory_records))


def _reads(log: mock.Mock, results: dict[int, Any]) -> None:
    """log.read(start offset, 1000, LOG_END, min one message) answers results[start offset]."""
    def read(start_offset: int, max_length: int, isolation: FetchIsolation, min_one_message: bool) -> Any:
        assert (max_length, isolation, min_one_message) == (1000, FetchIsolation.LOG_END, True)
        return results[start_offset]
    log.read.side_effect = read


def _then_return(*values: Any) -> Any:
    """Mockito's thenReturn(a).thenReturn(b)...: each call the next value, the last one from then on."""
    remaining = list(values)

    def answer(*args: Any) -> Any:
        return remaining.pop(0) if len(remaining) > 1 else remaining[0]
    return answer


def _replica_manager(tp: TopicPartition, log: Any, *log_end_offsets: int | None) -> mock.Mock:
    replica_manager = mock.Mock()
    replica_manager.get_log.side_effect = lambda p: log if p == tp else None
    replica_manager.get_log_end_offset.side_effect = _then_return(*log_end_offsets)
    return replica_manager


def _log(*high_watermarks: int) -> mock.Mock:
    log = mock.Mock()
    log.log_start_offset = 0
    log.high_watermark.side_effect = _then_return(*(high_watermarks or (0,)))
    return log


def _records(*pairs: str) -> list[SimpleRecord]:
    return [SimpleRecord(key=f"k{i}".encode(), value=f"v{i}".encode()) for i in pairs]


def test_nonexistent_partition() -> None:
    tp = TopicPartition("foo", 0)
    replica_manager = _replica_manager(tp, None, None)
    with CoordinatorLoaderImpl(SYSTEM, replica_manager, mock.Mock(), 1000) as loader:
        result = loader.load(tp, mock.Mock())
        assert isinstance(result.exception(WAIT_S), NotLeaderOrFollowerException)


def test_loading_is_rejected_when_closed() -> None:
    tp = TopicPartition("foo", 0)
    with CoordinatorLoaderImpl(SYSTEM, mock.Mock(), mock.Mock(), 1000) as loader:
        loader.close()
        result = loader.load(tp, mock.Mock())
        assert isinstance(result.exception(WAIT_S), RuntimeError)


def test_loading() -> None:
    tp = TopicPartition("foo", 0)
    log = _log(0)
    coordinator = mock.Mock()
    with CoordinatorLoaderImpl(SYSTEM, _replica_manager(tp, log, 9), StringKeyValueDeserializer(), 1000) as loader:
        _reads(log, {
            0: log_read_result(0, _records("1", "2")),
            2: log_read_result(2, _records("3", "4", "5")),
            5: log_read_result(5, _records("6", "7"), producer_id=100, producer_epoch=5),
            7: log_read_result(7, producer_id=100, producer_epoch=5, control_record_type=ControlRecordType.COMMIT),
            8: log_read_result(8, producer_id=500, producer_epoch=10, control_record_type=ControlRecordType.ABORT),
        })

        assert loader.load(tp, coordinator).result(WAIT_S) is not None

        for offset, i in [(0, "1"), (1, "2"), (2, "3"), (3, "4"), (4, "5")]:
            coordinator.replay.assert_any_call(offset, NO_PRODUCER_ID, NO_PRODUCER_EPOCH, (f"k{i}", f"v{i}"))
        coordinator.replay.assert_any_call(5, 100, 5, ("k6", "v6"))
        coordinator.replay.assert_any_call(6, 100, 5, ("k7", "v7"))
        coordinator.replay_end_transaction_marker.assert_any_call(100, 5, TransactionResult.COMMIT)
        coordinator.replay_end_transaction_marker.assert_any_call(500, 10, TransactionResult.ABORT)
        for offset in (2, 5, 7, 8):
            coordinator.update_last_written_offset.assert_any_call(offset)
        coordinator.update_last_committed_offset.assert_any_call(0)


def test_loading_stopped_when_closed() -> None:
    tp = TopicPartition("foo", 0)
    log = _log()
    latch = threading.Event()
    read_result = log_read_result(0, _records("1", "2"))

    def read(*args: Any) -> Any:
        latch.set()
        return read_result
    log.read.side_effect = read

    with CoordinatorLoaderImpl(SYSTEM, _replica_manager(tp, log, 100), StringKeyValueDeserializer(),
                               1000) as loader:
        result = loader.load(tp, mock.Mock())
        latch.wait(WAIT_S)
        loader.close()

        exception = result.exception(WAIT_S)
        assert isinstance(exception, RuntimeError) and str(exception) == "Coordinator loader is closed."


def test_unknown_record_type_are_ignored() -> None:
    tp = TopicPartition("foo", 0)
    log = _log()
    serde = mock.Mock()
    coordinator = mock.Mock()
    with CoordinatorLoaderImpl(SYSTEM, _replica_manager(tp, log, 2), serde, 1000) as loader:
        _reads(log, {0: log_read_result(0, _records("1", "2"))})
        serde.deserialize.side_effect = [UnknownRecordTypeException(1), ("k2", "v2")]

        loader.load(tp, coordinator).result(WAIT_S)

        coordinator.replay.assert_called_once_with(1, NO_PRODUCER_ID, NO_PRODUCER_EPOCH, ("k2", "v2"))


def test_deserialization_error_fails_the_loading() -> None:
    tp = TopicPartition("foo", 0)
    log = _log()
    serde = mock.Mock()
    with CoordinatorLoaderImpl(SYSTEM, _replica_manager(tp, log, 2), serde, 1000) as loader:
        _reads(log, {0: log_read_result(0, _records("1", "2"))})
        serde.deserialize.side_effect = RuntimeError("Error!")

        exception = loader.load(tp, mock.Mock()).exception(WAIT_S)
        assert isinstance(exception, RuntimeError) and str(exception) == "Error!"


def test_load_group_and_offsets_with_corrupted_log() -> None:
    # the log end is ahead of the start but nothing is read: the load ends instead of looping
    tp = TopicPartition("foo", 0)
    log = _log()
    with CoordinatorLoaderImpl(SYSTEM, _replica_manager(tp, log, 10), mock.Mock(), 1000) as loader:
        _reads(log, {0: log_read_result(0, [])})
        assert loader.load(tp, mock.Mock()).result(WAIT_S) is not None



def test_load_summary() -> None:
    tp = TopicPartition("foo", 0)
    log = _log()
    time = MockTime()
    with CoordinatorLoaderImpl(time, _replica_manager(tp, log, 5), StringKeyValueDeserializer(), 1000) as loader:
        start_time_ms = time.milliseconds()
        read_result1 = log_read_result(0, _records("1", "2"))
        read_result2 = log_read_result(2, _records("3", "4", "5"))

        def read(start_offset: int, *args: Any) -> Any:
            if start_offset == 0:
                time.sleep(1000)
                return read_result1
            return read_result2
        log.read.side_effect = read

        summary = loader.load(tp, mock.Mock()).result(WAIT_S)
        assert summary.start_time_ms() == start_time_ms
        assert summary.end_time_ms() == start_time_ms + 1000
        assert summary.num_records() == 5
        assert summary.num_bytes() == (read_result1.records.size_in_bytes() + read_result2.records.size_in_bytes())


def _three_reads(log: mock.Mock) -> None:
    _reads(log, {0: log_read_result(0, _records("1", "2")), 2: log_read_result(2, _records("3", "4", "5")),
                 5: log_read_result(5, _records("6", "7"))})


def _assert_seven_replayed(coordinator: mock.Mock) -> None:
    for offset in range(7):
        coordinator.replay.assert_any_call(offset, NO_PRODUCER_ID, NO_PRODUCER_EPOCH,
                                           (f"k{offset + 1}", f"v{offset + 1}"))


def _times(method: mock.Mock, value: int) -> int:
    return method.call_args_list.count(mock.call(value))


def test_update_last_written_offset_on_batch_loaded() -> None:
    tp = TopicPartition("foo", 0)
    log = _log(0, 0, 2)
    coordinator = mock.Mock()
    with CoordinatorLoaderImpl(SYSTEM, _replica_manager(tp, log, 7), StringKeyValueDeserializer(), 1000) as loader:
        _three_reads(log)

        assert loader.load(tp, coordinator).result(WAIT_S) is not None

        _assert_seven_replayed(coordinator)
        written, committed = coordinator.update_last_written_offset, coordinator.update_last_committed_offset
        assert [_times(written, o) for o in (0, 2, 5, 7)] == [0, 1, 1, 1]
        assert [_times(committed, o) for o in (0, 2, 5)] == [1, 1, 0]


def test_update_last_written_offset_and_update_last_committed_offset_no_records_read() -> None:
    tp = TopicPartition("foo", 0)
    log = _log(0)
    coordinator = mock.Mock()
    with CoordinatorLoaderImpl(SYSTEM, _replica_manager(tp, log, 0), StringKeyValueDeserializer(), 1000) as loader:
        assert loader.load(tp, coordinator).result(WAIT_S) is not None

        coordinator.update_last_written_offset.assert_not_called()
        coordinator.update_last_committed_offset.assert_not_called()


def test_update_last_written_offset_on_batch_loaded_while_high_watermark_ahead() -> None:
    tp = TopicPartition("foo", 0)
    log = _log(5, 7, 7)
    coordinator = mock.Mock()
    with CoordinatorLoaderImpl(SYSTEM, _replica_manager(tp, log, 7), StringKeyValueDeserializer(), 1000) as loader:
        _three_reads(log)

        assert loader.load(tp, coordinator).result(WAIT_S) is not None

        _assert_seven_replayed(coordinator)
        written, committed = coordinator.update_last_written_offset, coordinator.update_last_committed_offset
        assert [_times(written, o) for o in (0, 2, 5, 7)] == [0, 0, 0, 1]
        assert [_times(committed, o) for o in (0, 2, 5, 7)] == [0, 0, 0, 1]


def test_partition_goes_offline_during_load() -> None:
    tp = TopicPartition("foo", 0)
    log = _log(0)
    with CoordinatorLoaderImpl(SYSTEM, _replica_manager(tp, log, 5, -1), StringKeyValueDeserializer(),
                               1000) as loader:
        _reads(log, {0: log_read_result(0, _records("1", "2")), 2: log_read_result(2, _records("3", "4", "5"))})

        assert isinstance(loader.load(tp, mock.Mock()).exception(WAIT_S), NotLeaderOrFollowerException)
