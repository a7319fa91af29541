"""Our own test code, not a Kafka port: the stand-ins the group coordinator's unit tests share, a ReplicaManager
over real __consumer_offsets Logs in a tmp dir and a response callback that records its calls."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace

import pytest

from kafka_edu.v1_0_2.clients.common.record.file_records import MAGIC_VALUE_V2, MemoryRecords
from kafka_edu.v1_0_2.core.coordinator.group.group_metadata_manager import GROUP_METADATA_TOPIC_NAME
from kafka_edu.v1_0_2.core.log.log import Log, TopicPartition
from kafka_edu.v1_0_2.core.log.log_config import LogConfig
from kafka_edu.v1_0_2.core.server.replica_manager import PartitionResponse
from kafka_edu.v3_9.clients.common.protocol.errors import Errors


class StubPartition:
    """The slice of cluster.Partition the coordinator uses: a local leader replica with a real Log."""

    def __init__(self, log: Log) -> None:
        self.log = log
        self.high_watermark = log.log_end_offset
        self.is_leader = True
        self.on_local_log: Callable[[], None] | None = None  # lets a test hold a load in progress

    def local_log(self) -> Log:
        if self.on_local_log is not None:
            self.on_local_log()
        return self.log

    def leader_replica_if_local(self) -> SimpleNamespace | None:
        return SimpleNamespace(log=self.log) if self.is_leader else None

    def append_records_to_leader(self, records: bytes, is_from_client: bool, required_acks: int):
        info = self.log.append_as_leader(records, leader_epoch=0, is_from_client=is_from_client)
        self.high_watermark = self.log.log_end_offset
        return info


class StubReplicaManager:
    """append_records / get_partition over real __consumer_offsets logs; `append_error` fails every append."""

    def __init__(self, log_dir: Path) -> None:
        self.log_dir = log_dir
        self.partitions: dict[TopicPartition, StubPartition] = {}
        self.append_error: Errors | None = None
        self.appends: list[dict[TopicPartition, bytes]] = []

    def lead(self, partition: int) -> StubPartition:
        tp = TopicPartition(GROUP_METADATA_TOPIC_NAME, partition)
        log = Log(self.log_dir / str(tp), LogConfig(cleanup_policy="compact"))
        self.partitions[tp] = StubPartition(log)
        return self.partitions[tp]

    def get_partition(self, topic_partition: TopicPartition) -> StubPartition | None:
        return self.partitions.get(topic_partition)

    def get_log(self, topic_partition: TopicPartition) -> Log | None:
        partition = self.get_partition(topic_partition)
        return partition.local_log() if partition is not None else None

    def get_log_end_offset(self, topic_partition: TopicPartition) -> int | None:
        partition = self.get_partition(topic_partition)
        leader = partition.leader_replica_if_local() if partition is not None else None
        return leader.log.log_end_offset if leader is not None else None

    def get_magic(self, topic_partition: TopicPartition) -> int | None:
        """v2 (the only format the log writes) if the partition's log is here, else None."""
        return MAGIC_VALUE_V2 if self.get_partition(topic_partition) is not None else None

    def append_records(self, timeout: int, required_acks: int, internal_topics_allowed: bool, is_from_client: bool,
                       entries_per_partition: dict[TopicPartition, bytes],
                       response_callback: Callable[[dict[TopicPartition, PartitionResponse]], None]) -> None:
        assert internal_topics_allowed and not is_from_client
        self.appends.append(entries_per_partition)
        response_callback(self.append_to_local_logs(entries_per_partition, is_from_client, required_acks))

    def append_to_local_logs(self, entries_per_partition: dict[TopicPartition, bytes], is_from_client: bool,
                             required_acks: int) -> dict[TopicPartition, PartitionResponse]:
        """Each partition's answer: `append_error` if set, unknown if not led here, else its leader's append."""
        responses = {}
        for tp, records in entries_per_partition.items():
            partition = self.partitions.get(tp)
            if self.append_error is not None:
                responses[tp] = PartitionResponse(self.append_error)
            elif partition is None:
                responses[tp] = PartitionResponse(Errors.UNKNOWN_TOPIC_OR_PARTITION)
            else:
                info = partition.append_records_to_leader(records, is_from_client, required_acks)
                responses[tp] = PartitionResponse(Errors.NONE, info.first_offset, info.log_append_time,
                                                  info.log_start_offset)
        return responses

    def close(self) -> None:
        for partition in self.partitions.values():
            partition.log.close()


def records_in(partition: StubPartition) -> list[tuple[int, bytes, bytes | None]]:
    """(offset, key, value) of every record in the partition's log."""
    log = partition.log
    data = log.read(log.log_start_offset, 1 << 30) if log.log_end_offset > log.log_start_offset else b""
    return [(r.offset, r.key, r.value) for batch in MemoryRecords(data).batches() for r in batch.records()]


class Reply:
    """A response callback that records its arguments and counts its calls."""

    def __init__(self) -> None:
        self.calls: list[object] = []
        self.event = threading.Event()

    def __call__(self, *args: object) -> None:
        self.calls.append(args[0] if len(args) == 1 else args)
        self.event.set()

    def get(self, timeout_s: float = 5.0) -> object:
        assert self.event.wait(timeout_s), "callback never called"
        assert len(self.calls) == 1, f"callback called {len(self.calls)} times"
        return self.calls[0]


@pytest.fixture
def lenient_describers(monkeypatch: pytest.MonkeyPatch) -> None:
    """For tests that open real span names outside the code that owns them: the describers find no locals to read
    there, which under KAFKA_EDU_TRACING_STRICT would fail the test rather than show a drifted describer."""
    from kafka_edu.tracing import attributes
    monkeypatch.setattr(attributes, "STRICT", False)
