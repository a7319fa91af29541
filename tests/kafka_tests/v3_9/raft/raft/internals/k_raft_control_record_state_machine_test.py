"""Port of raft/src/test/java/org/apache/kafka/raft/internals/KRaftControlRecordStateMachineTest.java (Kafka 3.9).

Java's Optional results are `X | None` here. Kafka's raft test StringSerde is the one raft_client_test_context.py
ports; VoterSetTest's builders come from the ported voter_set_test module. The control batches are built with the
memory_records_builder functions the raft port's MockLog reads (MemoryRecords.withKRaftVersionRecord and
withVotersRecord), which allocate their own buffer where Java passes one from the BufferSupplier.
"""

from __future__ import annotations

from kio.schema.k_raft_version_record.v0.data import KRaftVersionRecord
from kio.static.primitive import i16

from kafka_edu.v1_0_2.clients.common.record.memory_records_builder import with_kraft_version_record, with_voters_record
from kafka_edu.v1_0_2.core.log.log import TopicPartition
from kafka_edu.v3_9.clients.common.utils.buffer_supplier import BufferSupplier
from kafka_edu.v3_9.clients.common.uuid import Uuid
from kafka_edu.v3_9.raft.raft.internals.k_raft_control_record_state_machine import KRaftControlRecordStateMachine
from kafka_edu.v3_9.raft.raft.mock_log import MockLog
from kafka_edu.v3_9.raft.raft.offset_and_epoch import OffsetAndEpoch
from kafka_edu.v3_9.raft.raft.voter_set import VoterSet
from kafka_edu.v3_9.raft.snapshot.records_snapshot_writer import RecordsSnapshotWriter
from kafka_edu.v3_9.server_common.server.common.k_raft_version import KRaftVersion
from tests.kafka_tests.referee import kafka_test_class
from tests.kafka_tests.v3_9.raft.raft.raft_client_test_context import StringSerde
from tests.kafka_tests.v3_9.raft.raft.voter_set_test import voter_map, voter_node, voter_set

KAFKA = kafka_test_class(
    "3.9", "raft/src/test/java/org/apache/kafka/raft/internals/KRaftControlRecordStateMachineTest.java",
    cases=[
        "testEmptyPartition",
        "testEmptyPartitionWithNoStaticVoters",
        "testUpdateWithoutSnapshot",
        "testUpdateWithEmptySnapshot",
        "testUpdateWithSnapshot",
        "testUpdateWithSnapshotAndLogOverride",
        "testTruncateTo",
        "testTrimPrefixTo",
    ],
)

STRING_SERDE = StringSerde()


def _build_log() -> MockLog:
    return MockLog(TopicPartition("partition", 0), Uuid.random_uuid())


def _build_partition_listener(log: MockLog, static_voter_set: VoterSet) -> KRaftControlRecordStateMachine:
    return KRaftControlRecordStateMachine(static_voter_set, log, STRING_SERDE, BufferSupplier.NO_CACHING, 1024)


def _present(voters: VoterSet | None) -> VoterSet:
    """Optional.get(): fail if the change did not apply."""
    assert voters is not None
    return voters


def _append_kraft_version(log: MockLog, offset: int, epoch: int, kraft_version: KRaftVersion) -> None:
    log.append_as_leader(
        with_kraft_version_record(
            offset, 0, epoch, KRaftVersionRecord(version=i16(0), k_raft_version=i16(kraft_version.feature_level()))),
        epoch)


def _append_voters(log: MockLog, offset: int, epoch: int, voters: VoterSet) -> None:
    log.append_as_leader(
        with_voters_record(offset, 0, epoch, voters.to_voters_record(0)),
        epoch)


def _write_snapshot(log: MockLog, snapshot_id: OffsetAndEpoch, kraft_version: KRaftVersion | None = None,
                    voters: VoterSet | None = None) -> None:
    """RecordsSnapshotWriter.Builder ... build(STRING_SERDE), then freeze and close (try-with-resources)."""
    raw_writer = log.create_new_snapshot_unchecked(snapshot_id)
    assert raw_writer is not None
    builder = RecordsSnapshotWriter.Builder().set_raw_snapshot_writer(raw_writer)
    if kraft_version is not None:
        builder.set_kraft_version(kraft_version).set_voter_set(voters)
    else:
        # Kafka's Builder defaults to kraft.version 1, the port's to 0: an empty snapshot is the same either way
        # apart from the KRaftVersionRecord, so say kraft.version 1 as Java does
        builder.set_kraft_version(KRaftVersion.KRAFT_VERSION_1)
    writer = builder.build(STRING_SERDE)
    try:
        writer.freeze()
    finally:
        writer.close()


def test_empty_partition() -> None:
    log = _build_log()
    voters = voter_set(voter_map([1, 2, 3], True))

    partition_state = _build_partition_listener(log, voters)

    # nothing to read
    partition_state.update_state()

    assert partition_state.last_voter_set() == voters


def test_empty_partition_with_no_static_voters() -> None:
    log = _build_log()

    partition_state = _build_partition_listener(log, VoterSet.empty())

    # nothing to read
    partition_state.update_state()

    assert partition_state.last_voter_set() == VoterSet.empty()


def test_update_without_snapshot() -> None:
    log = _build_log()
    static_voter_set = voter_set(voter_map([1, 2, 3], True))
    epoch = 1

    partition_state = _build_partition_listener(log, static_voter_set)

    kraft_version = KRaftVersion.KRAFT_VERSION_1
    _append_kraft_version(log, log.end_offset().offset, epoch, kraft_version)

    voters = voter_set(voter_map([4, 5, 6], True))
    _append_voters(log, log.end_offset().offset, epoch, voters)

    partition_state.update_state()

    assert partition_state.last_voter_set() == voters
    assert partition_state.voter_set_at_offset(log.end_offset().offset - 1) == voters
    assert partition_state.kraft_version_at_offset(log.end_offset().offset - 1) == kraft_version


def test_update_with_empty_snapshot() -> None:
    log = _build_log()
    static_voter_set = voter_set(voter_map([1, 2, 3], True))
    epoch = 1

    partition_state = _build_partition_listener(log, static_voter_set)

    # a snapshot with no kraft.version or voters records
    _write_snapshot(log, OffsetAndEpoch(10, epoch))
    log.truncate_to_latest_snapshot()

    kraft_version = KRaftVersion.KRAFT_VERSION_1
    _append_kraft_version(log, log.end_offset().offset, epoch, kraft_version)

    voters = voter_set(voter_map([4, 5, 6], True))
    _append_voters(log, log.end_offset().offset, epoch, voters)

    partition_state.update_state()

    assert partition_state.last_voter_set() == voters
    assert partition_state.voter_set_at_offset(log.end_offset().offset - 1) == voters
    assert partition_state.kraft_version_at_offset(log.end_offset().offset - 1) == kraft_version


def test_update_with_snapshot() -> None:
    log = _build_log()
    static_voter_set = voter_set(voter_map([1, 2, 3], True))
    epoch = 1

    partition_state = _build_partition_listener(log, static_voter_set)

    # a snapshot holding the kraft.version and the voters
    kraft_version = KRaftVersion.KRAFT_VERSION_1
    voters = voter_set(voter_map([4, 5, 6], True))
    _write_snapshot(log, OffsetAndEpoch(10, epoch), kraft_version, voters)
    log.truncate_to_latest_snapshot()

    partition_state.update_state()

    assert partition_state.last_voter_set() == voters
    assert partition_state.voter_set_at_offset(log.end_offset().offset - 1) == voters
    assert partition_state.kraft_version_at_offset(log.end_offset().offset - 1) == kraft_version


def test_update_with_snapshot_and_log_override() -> None:
    log = _build_log()
    static_voter_set = voter_set(voter_map([1, 2, 3], True))
    epoch = 1

    partition_state = _build_partition_listener(log, static_voter_set)

    # a snapshot holding the kraft.version and the voters
    kraft_version = KRaftVersion.KRAFT_VERSION_1
    snapshot_voter_set = voter_set(voter_map([4, 5, 6], True))
    snapshot_id = OffsetAndEpoch(10, epoch)
    _write_snapshot(log, snapshot_id, kraft_version, snapshot_voter_set)
    log.truncate_to_latest_snapshot()

    # then a voters record in the log
    voters = _present(snapshot_voter_set.add_voter(voter_node(7, True)))
    _append_voters(log, log.end_offset().offset, epoch, voters)

    partition_state.update_state()

    assert partition_state.last_voter_set() == voters
    assert partition_state.voter_set_at_offset(log.end_offset().offset - 1) == voters
    assert partition_state.kraft_version_at_offset(log.end_offset().offset - 1) == kraft_version

    # the voters at the snapshot
    assert partition_state.voter_set_at_offset(snapshot_id.offset - 1) == snapshot_voter_set


def test_truncate_to() -> None:
    log = _build_log()
    static_voter_set = voter_set(voter_map([1, 2, 3], True))
    epoch = 1

    partition_state = _build_partition_listener(log, static_voter_set)

    kraft_version = KRaftVersion.KRAFT_VERSION_1
    _append_kraft_version(log, log.end_offset().offset, epoch, kraft_version)

    first_voter_set_offset = log.end_offset().offset
    first_voter_set = voter_set(voter_map([4, 5, 6], True))
    _append_voters(log, first_voter_set_offset, epoch, first_voter_set)

    voter_set_offset = log.end_offset().offset
    voters = _present(first_voter_set.add_voter(voter_node(7, True)))
    _append_voters(log, voter_set_offset, epoch, voters)

    partition_state.update_state()

    assert partition_state.last_voter_set() == voters

    # truncate the log and the state machine
    log.truncate_to(voter_set_offset)
    partition_state.truncate_new_entries(voter_set_offset)

    assert partition_state.last_voter_set() == first_voter_set

    # truncate everything
    log.truncate_to(0)
    partition_state.truncate_new_entries(0)

    assert partition_state.last_voter_set() == static_voter_set


def test_trim_prefix_to() -> None:
    log = _build_log()
    static_voter_set = voter_set(voter_map([1, 2, 3], True))
    epoch = 1

    partition_state = _build_partition_listener(log, static_voter_set)

    kraft_version_offset = log.end_offset().offset
    kraft_version = KRaftVersion.KRAFT_VERSION_1
    _append_kraft_version(log, kraft_version_offset, epoch, kraft_version)

    first_voter_set_offset = log.end_offset().offset
    first_voter_set = voter_set(voter_map([4, 5, 6], True))
    _append_voters(log, first_voter_set_offset, epoch, first_voter_set)

    voter_set_offset = log.end_offset().offset
    voters = _present(first_voter_set.add_voter(voter_node(7, True)))
    _append_voters(log, voter_set_offset, epoch, voters)

    partition_state.update_state()

    assert partition_state.last_voter_set() == voters
    assert partition_state.kraft_version_at_offset(kraft_version_offset) == kraft_version

    # trim up to the kraft.version record
    partition_state.truncate_old_entries(kraft_version_offset)
    assert partition_state.kraft_version_at_offset(kraft_version_offset) == kraft_version

    # trim up to the first voters record
    partition_state.truncate_old_entries(first_voter_set_offset)
    assert partition_state.kraft_version_at_offset(kraft_version_offset) == kraft_version
    assert partition_state.voter_set_at_offset(first_voter_set_offset) == first_voter_set

    # trim up to the second voters record
    partition_state.truncate_old_entries(voter_set_offset)
    assert partition_state.kraft_version_at_offset(kraft_version_offset) == kraft_version
    assert partition_state.voter_set_at_offset(first_voter_set_offset) is None
    assert partition_state.voter_set_at_offset(voter_set_offset) == voters
