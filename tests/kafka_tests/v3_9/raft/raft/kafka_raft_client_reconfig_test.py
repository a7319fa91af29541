"""Port of raft/src/test/java/org/apache/kafka/raft/KafkaRaftClientReconfigTest.java (Kafka 3.9).

KIP-853 on one KafkaRaftClient driven through RaftClientTestContext: the bootstrap checkpoint's voter set, the
records a kraft.version 1 leader writes when its epoch starts, and AddRaftVoter, RemoveRaftVoter and UpdateRaftVoter
as the leader serves them and as a follower sends UpdateRaftVoter. Requests and responses are the kio objects the
port builds with RaftUtil (KIP-853's versions), with no wire round trip.
"""

from __future__ import annotations

import random
from typing import Any

from kio.schema.api_versions.v3.response import ApiVersionsResponse, SupportedFeatureKey
from kio.schema.k_raft_version_record.v0.data import KRaftVersionRecord
from kio.schema.leader_change_message.v0.data import LeaderChangeMessage
from kio.schema.snapshot_footer_record.v0.data import SnapshotFooterRecord
from kio.schema.snapshot_header_record.v0.data import SnapshotHeaderRecord

from kafka_edu.v1_0_2.clients.common.record.compression_type import CompressionType
from kafka_edu.v1_0_2.clients.common.record.default_record import NO_SEQUENCE
from kafka_edu.v1_0_2.clients.common.record.file_records import (
    NO_PRODUCER_EPOCH,
    NO_PRODUCER_ID,
    MemoryRecords,
    TimestampType,
)
from kafka_edu.v1_0_2.clients.common.record.memory_records_builder import MemoryRecordsBuilder
from kafka_edu.v3_9.clients.common.feature.supported_version_range import SupportedVersionRange
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from kafka_edu.v3_9.clients.common.record.control_record_utils import ControlRecordType, ControlRecordUtils
from kafka_edu.v3_9.raft.raft.control_record import ControlRecord
from kafka_edu.v3_9.raft.raft.endpoints import Endpoints
from kafka_edu.v3_9.raft.raft.isolation import Isolation
from kafka_edu.v3_9.raft.raft.kafka_raft_client import MAX_BATCH_SIZE_BYTES
from kafka_edu.v3_9.raft.raft.leader_and_epoch import LeaderAndEpoch
from kafka_edu.v3_9.raft.raft.replica_key import ReplicaKey
from kafka_edu.v3_9.raft.raft.voter_set import Node, VoterNode, VoterSet
from kafka_edu.v3_9.raft.snapshot.records_snapshot_reader import RecordsSnapshotReader
from kafka_edu.v3_9.raft.snapshot.snapshots import Snapshots
from kafka_edu.v3_9.server_common.server.common.k_raft_version import FEATURE_NAME
from tests.kafka_tests.referee import kafka_test_class
from tests.kafka_tests.v3_9.raft.raft.raft_client_test_context import Builder, RaftClientTestContext, replica_key
from tests.kafka_tests.v3_9.raft.raft.voter_set_test import (
    DEFAULT_LISTENER_NAME,
    KRAFT_VERSION_SUPPORTED_RANGE,
    voter_set_of_keys,
)

KAFKA = kafka_test_class(
    "3.9", "raft/src/test/java/org/apache/kafka/raft/KafkaRaftClientReconfigTest.java",
    cases=[
        "testLeaderWritesBootstrapRecords",
        "testBootstrapCheckpointIsNotReturnedOnFetch",
        "testLeaderDoesNotBootstrapRecordsWithKraftVersion0",
        "testFollowerDoesNotRequestLeaderBootstrapSnapshot",
        "testFollowerReadsKRaftBootstrapRecords",
        "testAddVoter",
        "testAddVoterInvalidClusterId",
        "testAddVoterToNotLeader",
        "testAddVoterWithMissingDefaultListener",
        "testAddVoterWithPendingAddVoter",
        "testAddVoterWithoutFencedPreviousLeaders",
        "testAddVoterWithKraftVersion0",
        "testAddVoterWithExistingVoter",
        "testAddVoterTimeout",
        "testAddVoterWithApiVersionsFromIncorrectNode",
        "testAddVoterInvalidFeatureVersion",
        "testAddVoterWithLaggingNewVoter",
        "testAddVoterFailsWhenLosingLeadership",
        "testAddVoterWithMissingDirectoryId",
        "testRemoveVoter",
        "testRemoveVoterIsLeader",
        "testRemoveVoterInvalidClusterId",
        "testRemoveVoterToNotLeader",
        "testRemoveVoterWithPendingRemoveVoter",
        "testRemoveVoterWithoutFencedPreviousLeaders",
        "testRemoveVoterWithKraftVersion0",
        "testRemoveVoterWithNoneVoter",
        "testRemoveVoterWithNoneVoterId",
        "testRemoveVoterToEmptyVoterSet",
        "testRemoveVoterTimedOut",
        "testRemoveVoterFailsWhenLosingLeadership",
        "testAddVoterWithPendingRemoveVoter",
        "testRemoveVoterWithPendingAddVoter",
        "testUpdateVoter",
        "testLeaderUpdatesVoter",
        "testUpdateVoterInvalidClusterId",
        "testUpdateVoterOldEpoch",
        "testUpdateVoterNewEpoch",
        "testUpdateVoterToNotLeader",
        "testUpdateVoterWithoutFencedPreviousLeaders",
        "testUpdateVoterWithKraftVersion0",
        "testUpdateVoterWithNoneVoter",
        "testUpdateVoterWithNoneVoterId",
        "testUpdateVoterWithPendingAddVoter",
        "testFollowerSendsUpdateVoter",
        "testFollowerSendsUpdateVoterWhenDifferent",
        "testUpdateVoterResponseCausesEpochChange",
        "testObserverDiscoversLeaderWithUnknownVoters",
        "testHandleBeginQuorumRequestMoreEndpoints",
    ],
)

BOOTSTRAP_SNAPSHOT_ID = Snapshots.BOOTSTRAP_SNAPSHOT_ID
INT_MAX = 2**31 - 1


def random_replica_id() -> int:
    return random.randrange(1025)


def api_versions_response(error: Errors, supported_versions: SupportedVersionRange = KRAFT_VERSION_SUPPORTED_RANGE
                          ) -> ApiVersionsResponse:
    """An ApiVersions answer naming the kraft.version range (none when it is only 0, as Java's v0-v3 omit it)."""
    supported_features = ()
    if supported_versions.max() > 0:
        supported_features = (SupportedFeatureKey(name=FEATURE_NAME, min_version=supported_versions.min(),
                                                  max_version=supported_versions.max()),)
    return ApiVersionsResponse(error_code=error, api_keys=(), throttle_time=0, supported_features=supported_features)


def verify_voters_record(expected_voter_set: VoterSet, record_key: bytes, record_value: bytes) -> None:
    assert ControlRecordType.parse(record_key) is ControlRecordType.KRAFT_VOTERS
    voters_record = ControlRecordUtils.deserialize_voters_record(record_value)
    assert VoterSet.from_voters_record(voters_record) == expected_voter_set


def verify_kraft_version_record(expected_kraft_version: int, record_key: bytes, record_value: bytes) -> None:
    assert ControlRecordType.parse(record_key) is ControlRecordType.KRAFT_VERSION
    kraft_version_record = ControlRecordUtils.deserialize_kraft_version_record(record_value)
    assert kraft_version_record.k_raft_version == expected_kraft_version


def assert_control_snapshot(expected: list[list[ControlRecord]], reader: Any) -> None:
    """SnapshotWriterReaderTest.assertControlSnapshot: the snapshot's batches are these control records."""
    actual = []
    while reader.has_next():
        batch = reader.next()
        actual.append(list(batch.control_records))
    assert actual == expected


def first_batch_records(context: RaftClientTestContext) -> tuple[Any, list[Any]]:
    records = context.log.read(0, Isolation.UNCOMMITTED).records
    if not isinstance(records, MemoryRecords):
        records = MemoryRecords(bytes(records))
    batch = next(iter(records.batches()))
    return batch, list(batch.records())


def listeners_of(listener_name: str, voter: ReplicaKey, base_port: int = 9990) -> Endpoints:
    return Endpoints.from_inet_socket_addresses({listener_name: ("localhost", base_port + voter.id)})


def kip853_leader(local: ReplicaKey, voters: VoterSet, epoch: int = 3) -> RaftClientTestContext:
    """Builder(local) with KIP-853 RPCs, the bootstrap checkpoint of `voters` and an unknown leader in `epoch`."""
    return (Builder(local.id, local_directory_id=local.directory_id)
            .with_kip853_rpc(True)
            .with_bootstrap_snapshot(voters)
            .with_unknown_leader(epoch)
            .build())


def fetch_to_end(context: RaftClientTestContext, epoch: int, replica: ReplicaKey, local: ReplicaKey) -> None:
    """A Fetch at the leader's log end offset from `replica`, and the leader's answer."""
    context.deliver_request(context.fetch_request(epoch, replica, context.log.end_offset().offset, epoch, 0))
    context.poll_until_response()
    context.assert_sent_fetch_partition_response(Errors.NONE, epoch, local.id)


def test_leader_writes_bootstrap_records() -> None:
    local = replica_key(random_replica_id(), True)
    follower = replica_key(local.id + 1, True)
    voters = voter_set_of_keys([local, follower])
    context = (Builder(local.id, local_directory_id=local.directory_id)
               .with_kip853_rpc(True)
               .with_bootstrap_snapshot(voters)
               .with_unknown_leader(0)
               .build())

    expected_bootstrap_records = [
        [
            ControlRecord(ControlRecordType.SNAPSHOT_HEADER,
                          SnapshotHeaderRecord(version=0, last_contained_log_timestamp=0)),
            ControlRecord(ControlRecordType.KRAFT_VERSION,
                          KRaftVersionRecord(version=ControlRecordUtils.KRAFT_VERSION_CURRENT_VERSION,
                                             k_raft_version=1)),
            ControlRecord(ControlRecordType.KRAFT_VOTERS,
                          voters.to_voters_record(ControlRecordUtils.KRAFT_VOTERS_CURRENT_VERSION)),
        ],
        [ControlRecord(ControlRecordType.SNAPSHOT_FOOTER, SnapshotFooterRecord(version=0))],
    ]

    # the bootstrap checkpoint is there, with the kraft.version and the voters
    assert context.log.latest_snapshot_id() == BOOTSTRAP_SNAPSHOT_ID
    with RecordsSnapshotReader.of(context.log.latest_snapshot(), context.serde, MAX_BATCH_SIZE_BYTES, False,
                                  include_control_batches=True) as reader:
        assert_control_snapshot(expected_bootstrap_records, reader)

    context.become_leader()

    # the leader's first batch: LeaderChangeMessage, then the KRaftVersionRecord and VotersRecord
    batch, records = first_batch_records(context)
    assert batch.is_control_batch
    RaftClientTestContext.verify_leader_change_message(local.id, [local.id, follower.id], [local.id, follower.id],
                                                       records[0].key, records[0].value)
    verify_kraft_version_record(1, records[1].key, records[1].value)
    verify_voters_record(voters, records[2].key, records[2].value)


def test_bootstrap_checkpoint_is_not_returned_on_fetch() -> None:
    local = replica_key(random_replica_id(), True)
    follower = replica_key(local.id + 1, True)
    voters = voter_set_of_keys([local, follower])
    context = (Builder(local.id, local_directory_id=local.directory_id)
               .with_kip853_rpc(True)
               .with_bootstrap_snapshot(voters)
               .with_unknown_leader(0)
               .build())

    context.become_leader()
    epoch = context.current_epoch()

    # a follower fetching from offset 0 is not sent to the bootstrap snapshot
    context.deliver_request(context.fetch_request(epoch, follower, 0, 0, 0))
    context.poll_until_response()
    context.assert_sent_fetch_partition_response(Errors.NONE, epoch, local.id)


def test_leader_does_not_bootstrap_records_with_kraft_version0() -> None:
    local = replica_key(random_replica_id(), True)
    follower = replica_key(local.id + 1, True)
    voters = voter_set_of_keys([local, follower])
    context = (Builder(local.id, local_directory_id=local.directory_id)
               .with_static_voters(voters)
               .with_unknown_leader(0)
               .build())

    # static voters: the leader's first batch has the LeaderChangeMessage alone
    context.become_leader()

    batch, records = first_batch_records(context)
    assert batch.is_control_batch
    RaftClientTestContext.verify_leader_change_message(local.id, [local.id, follower.id], [local.id, follower.id],
                                                       records[0].key, records[0].value)
    assert len(records) == 1


def test_follower_does_not_request_leader_bootstrap_snapshot() -> None:
    local = replica_key(random_replica_id(), True)
    leader = replica_key(local.id + 1, True)
    epoch = 1
    voters = voter_set_of_keys([local, leader])
    context = (Builder(local.id, local_directory_id=local.directory_id)
               .with_kip853_rpc(True)
               .with_bootstrap_snapshot(voters)
               .with_elected_leader(epoch, leader.id)
               .build())

    context.poll_until_request()
    fetch_request = context.assert_sent_fetch_request()
    context.assert_fetch_request_data(fetch_request, epoch, 0, 0)

    # a leader naming the bootstrap snapshot does not make the follower fetch it
    context.deliver_response(fetch_request.correlation_id, fetch_request.destination,
                             context.snapshot_fetch_response(epoch, leader.id, BOOTSTRAP_SNAPSHOT_ID, 0))
    context.poll_until_request()
    fetch_request = context.assert_sent_fetch_request()
    context.assert_fetch_request_data(fetch_request, epoch, 0, 0)


def test_follower_reads_k_raft_bootstrap_records() -> None:
    local = replica_key(random_replica_id(), True)
    leader = replica_key(local.id + 1, True)
    follower = replica_key(local.id + 2, True)
    voter_set = voter_set_of_keys([local, leader])
    epoch = 5
    context = (Builder(local.id, local_directory_id=local.directory_id)
               .with_kip853_rpc(True)
               .with_bootstrap_snapshot(voter_set)
               .with_elected_leader(epoch, leader.id)
               .build())

    context.poll_until_request()
    fetch_request = context.assert_sent_fetch_request()
    context.assert_fetch_request_data(fetch_request, epoch, 0, 0)

    # not a voter before the leader's records say so
    assert not context.client.quorum.is_voter(follower)

    # the leader's first batch, with a voter set that has `follower` too
    leaders_voter_set = voter_set_of_keys([*voter_set.voter_keys(), follower])
    builder = MemoryRecordsBuilder(CompressionType.NONE, TimestampType.CREATE_TIME, 0, 0, NO_PRODUCER_ID,
                                   NO_PRODUCER_EPOCH, NO_SEQUENCE, False, epoch, is_control_batch=True)
    builder.append_leader_change_message(0, LeaderChangeMessage(version=0, leader_id=0, voters=(),
                                                                granting_voters=()))
    builder.append_kraft_version_message(0, KRaftVersionRecord(
        version=ControlRecordUtils.KRAFT_VERSION_CURRENT_VERSION, k_raft_version=1))
    builder.append_voters_message(0, leaders_voter_set.to_voters_record(
        ControlRecordUtils.KRAFT_VOTERS_CURRENT_VERSION))
    leader_records = builder.build()
    context.deliver_response(fetch_request.correlation_id, fetch_request.destination,
                             context.fetch_response(epoch, leader.id, leader_records, 0, Errors.NONE))

    # appended: `follower` is a voter now
    context.client.poll()
    assert context.client.quorum.is_voter(follower)


def test_add_voter() -> None:
    local = replica_key(random_replica_id(), True)
    follower = replica_key(local.id + 1, True)
    voters = voter_set_of_keys([local, follower])
    context = kip853_leader(local, voters)

    context.become_leader()
    epoch = context.current_epoch()

    new_voter = replica_key(local.id + 2, True)
    new_address = ("localhost", 9990 + new_voter.id)
    new_listeners = Endpoints.from_inet_socket_addresses({context.channel.listener_name(): new_address})

    assert not context.client.quorum.is_voter(new_voter)

    # a high watermark, and with it the previous leaders fenced
    fetch_to_end(context, epoch, follower, local)
    # the new voter catches up with the leader's log end
    fetch_to_end(context, epoch, new_voter, local)

    context.deliver_request(context.add_voter_request(INT_MAX, new_voter, new_listeners))

    # the leader asks the new voter's endpoint for its ApiVersions
    context.poll_until_request()
    api_version_request = context.assert_sent_api_versions_request()
    assert api_version_request.destination == Node(new_voter.id, new_address[0], new_address[1])

    context.deliver_response(api_version_request.correlation_id, api_version_request.destination,
                             api_versions_response(Errors.NONE))
    # the ApiVersions answer, then the append of the VotersRecord
    context.client.poll()
    context.client.poll()
    # a voter as soon as the VotersRecord is in the log
    assert context.client.quorum.is_voter(new_voter)

    # a Fetch moves the high watermark past the new voter set
    fetch_to_end(context, epoch, follower, local)

    context.poll_until_response()
    context.assert_sent_add_voter_response(Errors.NONE)


def test_add_voter_invalid_cluster_id() -> None:
    local = replica_key(random_replica_id(), True)
    follower = replica_key(local.id + 1, True)
    voters = voter_set_of_keys([local, follower])
    context = kip853_leader(local, voters)

    context.become_leader()

    new_voter = replica_key(local.id + 2, True)
    new_listeners = listeners_of(context.channel.listener_name(), new_voter)

    # an empty cluster id is refused
    context.deliver_request(context.add_voter_request("", INT_MAX, new_voter, new_listeners))
    context.poll_until_response()
    context.assert_sent_add_voter_response(Errors.INCONSISTENT_CLUSTER_ID)

    # and another cluster's
    context.deliver_request(context.add_voter_request("invalid-uuid", INT_MAX, new_voter, new_listeners))
    context.poll_until_response()
    context.assert_sent_add_voter_response(Errors.INCONSISTENT_CLUSTER_ID)

    assert not context.client.quorum.is_voter(new_voter)


def test_add_voter_to_not_leader() -> None:
    local = replica_key(random_replica_id(), True)
    follower = replica_key(local.id + 1, True)
    voters = voter_set_of_keys([local, follower])
    context = kip853_leader(local, voters)

    new_voter = replica_key(local.id + 2, True)
    new_listeners = listeners_of(context.channel.listener_name(), new_voter)

    context.deliver_request(context.add_voter_request(INT_MAX, new_voter, new_listeners))
    context.poll_until_response()
    context.assert_sent_add_voter_response(Errors.NOT_LEADER_OR_FOLLOWER)


def test_add_voter_with_missing_default_listener() -> None:
    local = replica_key(random_replica_id(), True)
    follower = replica_key(local.id + 1, True)
    voters = voter_set_of_keys([local, follower])
    context = kip853_leader(local, voters)

    context.become_leader()

    new_voter = replica_key(local.id + 2, True)
    new_listeners = listeners_of("NOT_THE_DEFAULT_LISTENER", new_voter)

    context.deliver_request(context.add_voter_request(INT_MAX, new_voter, new_listeners))
    context.poll_until_response()
    context.assert_sent_add_voter_response(Errors.INVALID_REQUEST)


def test_add_voter_with_pending_add_voter() -> None:
    local = replica_key(random_replica_id(), True)
    follower = replica_key(local.id + 1, True)
    voters = voter_set_of_keys([local, follower])
    context = kip853_leader(local, voters)

    context.become_leader()
    epoch = context.current_epoch()

    new_voter = replica_key(local.id + 2, True)
    new_listeners = listeners_of(context.channel.listener_name(), new_voter)

    fetch_to_end(context, epoch, follower, local)
    fetch_to_end(context, epoch, new_voter, local)

    context.deliver_request(context.add_voter_request(INT_MAX, new_voter, new_listeners))

    # a second add while the first is pending is refused
    another_new_voter = replica_key(local.id + 3, True)
    another_new_listeners = listeners_of(context.channel.listener_name(), another_new_voter)
    context.deliver_request(context.add_voter_request(INT_MAX, another_new_voter, another_new_listeners))
    context.poll_until_response()
    context.assert_sent_add_voter_response(Errors.REQUEST_TIMED_OUT)


def test_add_voter_without_fenced_previous_leaders() -> None:
    local = replica_key(random_replica_id(), True)
    follower = replica_key(local.id + 1, True)
    voters = voter_set_of_keys([local, follower])
    context = kip853_leader(local, voters)

    context.become_leader()
    epoch = context.current_epoch()

    new_voter = replica_key(local.id + 2, True)
    new_listeners = listeners_of(context.channel.listener_name(), new_voter)

    # only the new voter fetched: no high watermark yet
    fetch_to_end(context, epoch, new_voter, local)

    context.deliver_request(context.add_voter_request(INT_MAX, new_voter, new_listeners))
    context.poll_until_response()
    context.assert_sent_add_voter_response(Errors.REQUEST_TIMED_OUT)


def test_add_voter_with_kraft_version0() -> None:
    local = replica_key(random_replica_id(), True)
    follower = replica_key(local.id + 1, True)
    voters = voter_set_of_keys([local, follower])
    context = (Builder(local.id, local_directory_id=local.directory_id)
               .with_kip853_rpc(True)
               .with_static_voters(voters)
               .with_unknown_leader(3)
               .build())

    context.become_leader()
    epoch = context.current_epoch()

    new_voter = replica_key(local.id + 2, True)
    new_listeners = listeners_of(context.channel.listener_name(), new_voter)

    fetch_to_end(context, epoch, follower, local)
    fetch_to_end(context, epoch, new_voter, local)

    context.deliver_request(context.add_voter_request(INT_MAX, new_voter, new_listeners))
    context.poll_until_response()
    context.assert_sent_add_voter_response(Errors.UNSUPPORTED_VERSION)


def expect_api_versions_request(context: RaftClientTestContext, new_voter: ReplicaKey) -> Any:
    """The leader's ApiVersions to the new voter's endpoint (localhost:9990 + id)."""
    context.poll_until_request()
    api_version_request = context.assert_sent_api_versions_request()
    assert api_version_request.destination == Node(new_voter.id, "localhost", 9990 + new_voter.id)
    return api_version_request


def test_add_voter_with_existing_voter() -> None:
    local = replica_key(random_replica_id(), True)
    follower = replica_key(local.id + 1, True)
    voters = voter_set_of_keys([local, follower])
    context = kip853_leader(local, voters)

    context.become_leader()
    epoch = context.current_epoch()

    # the follower's id, another directory
    new_voter = replica_key(follower.id, True)
    new_listeners = listeners_of(context.channel.listener_name(), new_voter)

    fetch_to_end(context, epoch, follower, local)
    fetch_to_end(context, epoch, new_voter, local)

    context.deliver_request(context.add_voter_request(INT_MAX, new_voter, new_listeners))
    context.poll_until_response()
    context.assert_sent_add_voter_response(Errors.DUPLICATE_VOTER)


def test_add_voter_timeout() -> None:
    local = replica_key(random_replica_id(), True)
    follower = replica_key(local.id + 1, True)
    voters = voter_set_of_keys([local, follower])
    context = kip853_leader(local, voters)

    context.become_leader()
    epoch = context.current_epoch()

    new_voter = replica_key(local.id + 2, True)
    new_listeners = listeners_of(context.channel.listener_name(), new_voter)

    fetch_to_end(context, epoch, follower, local)
    fetch_to_end(context, epoch, new_voter, local)

    context.deliver_request(context.add_voter_request(INT_MAX, new_voter, new_listeners))
    api_version_request = expect_api_versions_request(context, new_voter)
    context.deliver_response(api_version_request.correlation_id, api_version_request.destination,
                             api_versions_response(Errors.NONE))
    context.client.poll()

    # no Fetch commits the VotersRecord before the request timeout
    context.time.sleep(context.request_timeout_ms())

    context.poll_until_response()
    context.assert_sent_add_voter_response(Errors.REQUEST_TIMED_OUT)

    # the uncommitted VotersRecord still counts: the new voter is one
    assert context.client.quorum.is_voter(new_voter)


def test_add_voter_with_api_versions_from_incorrect_node() -> None:
    local = replica_key(random_replica_id(), True)
    follower = replica_key(local.id + 1, True)
    voters = voter_set_of_keys([local, follower])
    context = kip853_leader(local, voters)

    context.become_leader()
    epoch = context.current_epoch()

    new_voter = replica_key(local.id + 2, True)
    new_listeners = listeners_of(context.channel.listener_name(), new_voter)

    fetch_to_end(context, epoch, follower, local)
    fetch_to_end(context, epoch, new_voter, local)

    context.deliver_request(context.add_voter_request(INT_MAX, new_voter, new_listeners))
    api_version_request = expect_api_versions_request(context, new_voter)
    context.deliver_response(api_version_request.correlation_id, api_version_request.destination,
                             api_versions_response(Errors.INVALID_REQUEST))
    context.poll_until_response()
    context.assert_sent_add_voter_response(Errors.REQUEST_TIMED_OUT)


def test_add_voter_invalid_feature_version() -> None:
    local = replica_key(random_replica_id(), True)
    follower = replica_key(local.id + 1, True)
    voters = voter_set_of_keys([local, follower])
    context = kip853_leader(local, voters)

    context.become_leader()
    epoch = context.current_epoch()

    new_voter = replica_key(local.id + 2, True)
    new_listeners = listeners_of(context.channel.listener_name(), new_voter)

    fetch_to_end(context, epoch, follower, local)
    fetch_to_end(context, epoch, new_voter, local)

    context.deliver_request(context.add_voter_request(INT_MAX, new_voter, new_listeners))
    api_version_request = expect_api_versions_request(context, new_voter)
    # a new voter that cannot run kraft.version 1
    context.deliver_response(api_version_request.correlation_id, api_version_request.destination,
                             api_versions_response(Errors.NONE, SupportedVersionRange(0)))
    context.poll_until_response()
    context.assert_sent_add_voter_response(Errors.INVALID_REQUEST)


def test_add_voter_with_lagging_new_voter() -> None:
    local = replica_key(random_replica_id(), True)
    follower = replica_key(local.id + 1, True)
    voters = voter_set_of_keys([local, follower])
    context = kip853_leader(local, voters)

    context.become_leader()
    epoch = context.current_epoch()

    new_voter = replica_key(local.id + 2, True)
    new_listeners = listeners_of(context.channel.listener_name(), new_voter)

    # the new voter never fetched
    fetch_to_end(context, epoch, follower, local)

    context.deliver_request(context.add_voter_request(INT_MAX, new_voter, new_listeners))
    api_version_request = expect_api_versions_request(context, new_voter)
    context.deliver_response(api_version_request.correlation_id, api_version_request.destination,
                             api_versions_response(Errors.NONE))
    context.poll_until_response()
    context.assert_sent_add_voter_response(Errors.REQUEST_TIMED_OUT)


def test_add_voter_fails_when_losing_leadership() -> None:
    local = replica_key(random_replica_id(), True)
    follower = replica_key(local.id + 1, True)
    voters = voter_set_of_keys([local, follower])
    context = kip853_leader(local, voters)

    context.become_leader()
    epoch = context.current_epoch()

    new_voter = replica_key(local.id + 2, True)
    new_listeners = listeners_of(context.channel.listener_name(), new_voter)

    fetch_to_end(context, epoch, follower, local)

    context.deliver_request(context.add_voter_request(INT_MAX, new_voter, new_listeners))
    expect_api_versions_request(context, new_voter)

    # resigning answers the pending AddRaftVoter
    context.client.resign(epoch)
    context.poll_until_response()
    context.assert_sent_add_voter_response(Errors.NOT_LEADER_OR_FOLLOWER)


def test_add_voter_with_missing_directory_id() -> None:
    local = replica_key(random_replica_id(), True)
    follower = replica_key(local.id + 1, True)
    voters = voter_set_of_keys([local, follower])
    context = kip853_leader(local, voters)

    context.become_leader()
    epoch = context.current_epoch()

    new_voter = replica_key(local.id + 2, False)
    new_listeners = listeners_of(context.channel.listener_name(), new_voter)

    fetch_to_end(context, epoch, follower, local)

    context.deliver_request(context.add_voter_request(INT_MAX, new_voter, new_listeners))
    context.poll_until_response()
    context.assert_sent_add_voter_response(Errors.INVALID_REQUEST)


def test_remove_voter() -> None:
    local = replica_key(random_replica_id(), True)
    follower1 = replica_key(local.id + 1, True)
    follower2 = replica_key(local.id + 2, True)
    voters = voter_set_of_keys([local, follower1, follower2])
    context = kip853_leader(local, voters)

    context.become_leader()
    epoch = context.current_epoch()

    assert context.client.quorum.is_voter(follower2)

    fetch_to_end(context, epoch, follower1, local)

    context.deliver_request(context.remove_voter_request(follower2))
    # the RemoveRaftVoter, then the append of the VotersRecord
    context.client.poll()
    context.client.poll()

    # out of the latest voter set at once
    assert not context.client.quorum.is_voter(follower2)

    # a Fetch commits the new voter set
    fetch_to_end(context, epoch, follower1, local)

    context.poll_until_response()
    context.assert_sent_remove_voter_response(Errors.NONE)


def test_remove_voter_is_leader() -> None:
    local = replica_key(random_replica_id(), True)
    follower1 = replica_key(local.id + 1, True)
    follower2 = replica_key(local.id + 2, True)
    voters = voter_set_of_keys([local, follower1, follower2])
    context = kip853_leader(local, voters)

    context.become_leader()
    epoch = context.current_epoch()

    fetch_to_end(context, epoch, follower1, local)

    # the leader removes itself
    context.deliver_request(context.remove_voter_request(local))
    context.client.poll()
    context.client.poll()

    assert not context.client.quorum.is_voter(local)

    # without the leader, the two followers are the majority that commits it
    fetch_to_end(context, epoch, follower1, local)
    fetch_to_end(context, epoch, follower2, local)

    context.poll_until_response()
    context.assert_sent_remove_voter_response(Errors.NONE)

    # committed: the leader resigns and asks the voters to elect another
    context.poll_until_request()
    context.collect_end_quorum_requests(epoch, {follower1.id, follower2.id}, None)

    # resigning again is fine
    context.client.resign(epoch)

    # the election timeout is in [electionTimeoutMs, 2 * electionTimeoutMs)
    context.time.sleep(2 * context.election_timeout_ms())
    context.client.poll()

    assert context.client.quorum.is_observer()
    assert context.client.quorum.is_unattached()


def test_remove_voter_invalid_cluster_id() -> None:
    local = replica_key(random_replica_id(), True)
    follower1 = replica_key(local.id + 1, True)
    follower2 = replica_key(local.id + 2, True)
    voters = voter_set_of_keys([local, follower1, follower2])
    context = kip853_leader(local, voters)

    context.become_leader()

    context.deliver_request(context.remove_voter_request("", follower1))
    context.poll_until_response()
    context.assert_sent_remove_voter_response(Errors.INCONSISTENT_CLUSTER_ID)

    context.deliver_request(context.remove_voter_request("invalid-uuid", follower1))
    context.poll_until_response()
    context.assert_sent_remove_voter_response(Errors.INCONSISTENT_CLUSTER_ID)

    assert context.client.quorum.is_voter(follower1)


def test_remove_voter_to_not_leader() -> None:
    local = replica_key(random_replica_id(), True)
    follower1 = replica_key(local.id + 1, True)
    follower2 = replica_key(local.id + 2, True)
    voters = voter_set_of_keys([local, follower1, follower2])
    context = kip853_leader(local, voters)

    context.deliver_request(context.remove_voter_request(follower1))
    context.poll_until_response()
    context.assert_sent_remove_voter_response(Errors.NOT_LEADER_OR_FOLLOWER)


def test_remove_voter_with_pending_remove_voter() -> None:
    local = replica_key(random_replica_id(), True)
    follower1 = replica_key(local.id + 1, True)
    follower2 = replica_key(local.id + 2, True)
    voters = voter_set_of_keys([local, follower1, follower2])
    context = kip853_leader(local, voters)

    context.become_leader()
    epoch = context.current_epoch()

    fetch_to_end(context, epoch, follower1, local)

    context.deliver_request(context.remove_voter_request(follower2))
    context.client.poll()
    context.client.poll()

    # a second removal while the first is pending
    context.deliver_request(context.remove_voter_request(follower1))
    context.poll_until_response()
    context.assert_sent_remove_voter_response(Errors.REQUEST_TIMED_OUT)


def test_remove_voter_without_fenced_previous_leaders() -> None:
    local = replica_key(random_replica_id(), True)
    follower1 = replica_key(local.id + 1, True)
    follower2 = replica_key(local.id + 2, True)
    voters = voter_set_of_keys([local, follower1, follower2])
    context = kip853_leader(local, voters)

    context.become_leader()

    # no Fetch yet: no high watermark
    context.deliver_request(context.remove_voter_request(follower2))
    context.poll_until_response()
    context.assert_sent_remove_voter_response(Errors.REQUEST_TIMED_OUT)


def test_remove_voter_with_kraft_version0() -> None:
    local = replica_key(random_replica_id(), True)
    follower1 = replica_key(local.id + 1, True)
    follower2 = replica_key(local.id + 2, True)
    voters = voter_set_of_keys([local, follower1, follower2])
    context = (Builder(local.id, local_directory_id=local.directory_id)
               .with_kip853_rpc(True)
               .with_static_voters(voters)
               .with_unknown_leader(3)
               .build())

    context.become_leader()
    epoch = context.current_epoch()

    fetch_to_end(context, epoch, follower1, local)

    context.deliver_request(context.remove_voter_request(follower2))
    context.poll_until_response()
    context.assert_sent_remove_voter_response(Errors.UNSUPPORTED_VERSION)


def test_remove_voter_with_none_voter() -> None:
    local = replica_key(random_replica_id(), True)
    follower1 = replica_key(local.id + 1, True)
    follower2 = replica_key(local.id + 2, True)
    voters = voter_set_of_keys([local, follower1, follower2])
    context = kip853_leader(local, voters)

    context.become_leader()
    epoch = context.current_epoch()

    fetch_to_end(context, epoch, follower1, local)

    # follower2's id with another directory: not a voter
    context.deliver_request(context.remove_voter_request(replica_key(follower2.id, True)))
    context.poll_until_response()
    context.assert_sent_remove_voter_response(Errors.VOTER_NOT_FOUND)


def test_remove_voter_with_none_voter_id() -> None:
    local = replica_key(random_replica_id(), True)
    follower1 = replica_key(local.id + 1, True)
    follower2 = replica_key(local.id + 2, True)
    voters = voter_set_of_keys([local, follower1, follower2])
    context = kip853_leader(local, voters)

    context.become_leader()
    epoch = context.current_epoch()

    fetch_to_end(context, epoch, follower1, local)

    # follower2's directory with another id
    context.deliver_request(context.remove_voter_request(ReplicaKey.of(follower2.id + 1, follower2.directory_id)))
    context.poll_until_response()
    context.assert_sent_remove_voter_response(Errors.VOTER_NOT_FOUND)


def test_remove_voter_to_empty_voter_set() -> None:
    local = replica_key(random_replica_id(), True)
    voters = voter_set_of_keys([local])
    context = (Builder(local.id, local_directory_id=local.directory_id)
               .with_kip853_rpc(True)
               .with_bootstrap_snapshot(voters)
               .build())
    # the only voter leads at once
    assert context.current_leader() == local.id

    context.deliver_request(context.remove_voter_request(local))
    context.poll_until_response()
    context.assert_sent_remove_voter_response(Errors.VOTER_NOT_FOUND)


def test_remove_voter_timed_out() -> None:
    local = replica_key(random_replica_id(), True)
    follower1 = replica_key(local.id + 1, True)
    follower2 = replica_key(local.id + 2, True)
    voters = voter_set_of_keys([local, follower1, follower2])
    context = kip853_leader(local, voters)

    context.become_leader()
    epoch = context.current_epoch()

    fetch_to_end(context, epoch, follower1, local)

    context.deliver_request(context.remove_voter_request(follower2))
    context.client.poll()
    context.client.poll()

    # no Fetch commits it before the request timeout
    context.time.sleep(context.request_timeout_ms())

    context.poll_until_response()
    context.assert_sent_remove_voter_response(Errors.REQUEST_TIMED_OUT)

    # the uncommitted VotersRecord still counts
    assert not context.client.quorum.is_voter(follower2)


def test_remove_voter_fails_when_losing_leadership() -> None:
    local = replica_key(random_replica_id(), True)
    follower1 = replica_key(local.id + 1, True)
    follower2 = replica_key(local.id + 2, True)
    voters = voter_set_of_keys([local, follower1, follower2])
    context = kip853_leader(local, voters)

    context.become_leader()
    epoch = context.current_epoch()

    fetch_to_end(context, epoch, follower1, local)

    context.deliver_request(context.remove_voter_request(follower2))
    context.client.poll()
    context.client.poll()

    # resigning answers the pending RemoveRaftVoter
    context.client.resign(epoch)
    context.poll_until_response()
    context.assert_sent_remove_voter_response(Errors.NOT_LEADER_OR_FOLLOWER)

    assert not context.client.quorum.is_voter(follower2)


def test_add_voter_with_pending_remove_voter() -> None:
    local = replica_key(random_replica_id(), True)
    follower1 = replica_key(local.id + 1, True)
    follower2 = replica_key(local.id + 2, True)
    voters = voter_set_of_keys([local, follower1, follower2])
    context = kip853_leader(local, voters)

    context.become_leader()
    epoch = context.current_epoch()

    fetch_to_end(context, epoch, follower1, local)

    context.deliver_request(context.remove_voter_request(follower2))
    context.client.poll()
    context.client.poll()

    # an add while the removal is pending
    new_voter = replica_key(local.id + 2, True)
    new_listeners = listeners_of(context.channel.listener_name(), new_voter)
    context.deliver_request(context.add_voter_request(INT_MAX, new_voter, new_listeners))
    context.poll_until_response()
    context.assert_sent_add_voter_response(Errors.REQUEST_TIMED_OUT)


def test_remove_voter_with_pending_add_voter() -> None:
    local = replica_key(random_replica_id(), True)
    follower = replica_key(local.id + 1, True)
    voters = voter_set_of_keys([local, follower])
    context = kip853_leader(local, voters)

    context.become_leader()
    epoch = context.current_epoch()

    new_voter = replica_key(local.id + 2, True)
    new_listeners = listeners_of(context.channel.listener_name(), new_voter)

    fetch_to_end(context, epoch, follower, local)
    fetch_to_end(context, epoch, new_voter, local)

    context.deliver_request(context.add_voter_request(INT_MAX, new_voter, new_listeners))

    # a removal while the add is pending
    context.deliver_request(context.remove_voter_request(follower))
    context.poll_until_response()
    context.assert_sent_remove_voter_response(Errors.REQUEST_TIMED_OUT)


def two_listeners(listener_name: str, replica_id: int) -> Endpoints:
    """The replica's default listener at 9990 + id and ANOTHER_LISTENER at 8990 + id."""
    return Endpoints.from_inet_socket_addresses({listener_name: ("localhost", 9990 + replica_id),
                                                 "ANOTHER_LISTENER": ("localhost", 8990 + replica_id)})


def test_update_voter() -> None:
    local = replica_key(random_replica_id(), True)
    follower = replica_key(local.id + 1, True)
    voters = voter_set_of_keys([local, follower])
    context = kip853_leader(local, voters)

    context.become_leader()
    epoch = context.current_epoch()

    assert context.client.quorum.is_voter(follower)

    fetch_to_end(context, epoch, follower, local)

    new_listeners = two_listeners(context.channel.listener_name(), follower.id)
    context.deliver_request(context.update_voter_request(follower, KRAFT_VERSION_SUPPORTED_RANGE, new_listeners))

    # answered without waiting for the record to commit
    context.poll_until_response()
    context.assert_sent_update_voter_response(Errors.NONE, local.id, epoch)

    assert context.client.quorum.is_voter(follower)


def test_leader_updates_voter() -> None:
    local = replica_key(random_replica_id(), True)
    follower = replica_key(local.id + 1, True)
    voters = voter_set_of_keys([local, follower])
    local_listeners = two_listeners(DEFAULT_LISTENER_NAME, local.id)
    context = (Builder(local.id, local_directory_id=local.directory_id)
               .with_kip853_rpc(True)
               .with_bootstrap_snapshot(voters)
               .with_unknown_leader(3)
               .with_local_listeners(local_listeners)
               .build())

    context.become_leader()
    epoch = context.current_epoch()

    assert context.client.quorum.is_voter(follower)

    # a high watermark commits the voter set the leader wrote with its own new listeners
    fetch_to_end(context, epoch, follower, local)

    updated_voter_set = voters.update_voter(VoterNode.of(local, local_listeners, KRAFT_VERSION_SUPPORTED_RANGE))
    assert context.listener.last_committed_voter_set() == updated_voter_set


def test_update_voter_invalid_cluster_id() -> None:
    local = replica_key(random_replica_id(), True)
    follower = replica_key(local.id + 1, True)
    voters = voter_set_of_keys([local, follower])
    context = kip853_leader(local, voters)

    context.become_leader()
    epoch = context.current_epoch()

    context.deliver_request(context.update_voter_request("", follower, epoch, KRAFT_VERSION_SUPPORTED_RANGE,
                                                         Endpoints.empty()))
    context.poll_until_response()
    context.assert_sent_update_voter_response(Errors.INCONSISTENT_CLUSTER_ID, local.id, epoch)

    context.deliver_request(context.update_voter_request("invalid-uuid", follower, epoch,
                                                         KRAFT_VERSION_SUPPORTED_RANGE, Endpoints.empty()))
    context.poll_until_response()
    context.assert_sent_update_voter_response(Errors.INCONSISTENT_CLUSTER_ID, local.id, epoch)


def test_update_voter_old_epoch() -> None:
    local = replica_key(random_replica_id(), True)
    follower = replica_key(local.id + 1, True)
    voters = voter_set_of_keys([local, follower])
    context = kip853_leader(local, voters)

    context.become_leader()
    epoch = context.current_epoch()

    context.deliver_request(context.update_voter_request(context.cluster_id, follower, epoch - 1,
                                                         KRAFT_VERSION_SUPPORTED_RANGE, Endpoints.empty()))
    context.poll_until_response()
    context.assert_sent_update_voter_response(Errors.FENCED_LEADER_EPOCH, local.id, epoch)


def test_update_voter_new_epoch() -> None:
    local = replica_key(random_replica_id(), True)
    follower = replica_key(local.id + 1, True)
    voters = voter_set_of_keys([local, follower])
    context = kip853_leader(local, voters)

    context.become_leader()
    epoch = context.current_epoch()

    context.deliver_request(context.update_voter_request(context.cluster_id, follower, epoch + 1,
                                                         KRAFT_VERSION_SUPPORTED_RANGE, Endpoints.empty()))
    context.poll_until_response()
    context.assert_sent_update_voter_response(Errors.UNKNOWN_LEADER_EPOCH, local.id, epoch)


def test_update_voter_to_not_leader() -> None:
    local = replica_key(random_replica_id(), True)
    follower = replica_key(local.id + 1, True)
    voters = voter_set_of_keys([local, follower])
    context = kip853_leader(local, voters)

    context.deliver_request(context.update_voter_request(follower, KRAFT_VERSION_SUPPORTED_RANGE, Endpoints.empty()))
    context.poll_until_response()
    context.assert_sent_update_voter_response(Errors.NOT_LEADER_OR_FOLLOWER, None, context.current_epoch())


def test_update_voter_without_fenced_previous_leaders() -> None:
    local = replica_key(random_replica_id(), True)
    follower = replica_key(local.id + 1, True)
    voters = voter_set_of_keys([local, follower])
    context = kip853_leader(local, voters)

    context.become_leader()
    epoch = context.current_epoch()

    # no Fetch: no high watermark
    new_listeners = two_listeners(context.channel.listener_name(), follower.id)
    context.deliver_request(context.update_voter_request(follower, KRAFT_VERSION_SUPPORTED_RANGE, new_listeners))
    context.poll_until_response()
    context.assert_sent_update_voter_response(Errors.REQUEST_TIMED_OUT, local.id, epoch)


def test_update_voter_with_kraft_version0() -> None:
    local = replica_key(random_replica_id(), True)
    follower = replica_key(local.id + 1, True)
    voters = voter_set_of_keys([local, follower])
    context = (Builder(local.id, local_directory_id=local.directory_id)
               .with_kip853_rpc(True)
               .with_static_voters(voters)
               .with_unknown_leader(3)
               .build())

    context.become_leader()
    epoch = context.current_epoch()

    fetch_to_end(context, epoch, follower, local)

    new_listeners = two_listeners(context.channel.listener_name(), follower.id)
    context.deliver_request(context.update_voter_request(follower, KRAFT_VERSION_SUPPORTED_RANGE, new_listeners))
    context.poll_until_response()
    context.assert_sent_update_voter_response(Errors.UNSUPPORTED_VERSION, local.id, epoch)


def test_update_voter_with_none_voter() -> None:
    local = replica_key(random_replica_id(), True)
    follower = replica_key(local.id + 1, True)
    voters = voter_set_of_keys([local, follower])
    context = kip853_leader(local, voters)

    context.become_leader()
    epoch = context.current_epoch()

    fetch_to_end(context, epoch, follower, local)

    # the follower's id with another directory
    new_listeners = two_listeners(context.channel.listener_name(), follower.id)
    context.deliver_request(context.update_voter_request(replica_key(follower.id, True),
                                                         KRAFT_VERSION_SUPPORTED_RANGE, new_listeners))
    context.poll_until_response()
    context.assert_sent_update_voter_response(Errors.VOTER_NOT_FOUND, local.id, epoch)


def test_update_voter_with_none_voter_id() -> None:
    local = replica_key(random_replica_id(), True)
    follower = replica_key(local.id + 1, True)
    voters = voter_set_of_keys([local, follower])
    context = kip853_leader(local, voters)

    context.become_leader()
    epoch = context.current_epoch()

    fetch_to_end(context, epoch, follower, local)

    # the follower's directory with another id
    new_listeners = two_listeners(context.channel.listener_name(), follower.id + 1)
    context.deliver_request(context.update_voter_request(ReplicaKey.of(follower.id + 1, follower.directory_id),
                                                         KRAFT_VERSION_SUPPORTED_RANGE, new_listeners))
    context.poll_until_response()
    context.assert_sent_update_voter_response(Errors.VOTER_NOT_FOUND, local.id, epoch)


def test_update_voter_with_pending_add_voter() -> None:
    local = replica_key(random_replica_id(), True)
    follower = replica_key(local.id + 1, True)
    voters = voter_set_of_keys([local, follower])
    context = kip853_leader(local, voters)

    context.become_leader()
    epoch = context.current_epoch()

    new_voter = replica_key(local.id + 2, True)
    new_voter_listeners = listeners_of(context.channel.listener_name(), new_voter)

    fetch_to_end(context, epoch, follower, local)
    fetch_to_end(context, epoch, new_voter, local)

    context.deliver_request(context.add_voter_request(INT_MAX, new_voter, new_voter_listeners))

    # an update while the add is pending
    new_listeners = two_listeners(context.channel.listener_name(), follower.id)
    context.deliver_request(context.update_voter_request(follower, KRAFT_VERSION_SUPPORTED_RANGE, new_listeners))
    context.poll_until_response()
    context.assert_sent_update_voter_response(Errors.REQUEST_TIMED_OUT, local.id, epoch)


def fetch_for_three_fetch_timeouts(context: RaftClientTestContext, epoch: int, leader: ReplicaKey) -> None:
    """Three rounds of Fetch, each just under the fetch timeout apart, each answered by the leader."""
    for _ in range(3):
        context.time.sleep(context.fetch_timeout_ms - 1)
        context.poll_until_request()
        fetch_request = context.assert_sent_fetch_request()
        context.assert_fetch_request_data(fetch_request, epoch, 0, 0)
        context.deliver_response(fetch_request.correlation_id, fetch_request.destination,
                                 context.fetch_response(epoch, leader.id, b"", 0, Errors.NONE))
        # the Fetch response
        context.client.poll()


def test_follower_sends_update_voter() -> None:
    local = replica_key(random_replica_id(), True)
    voter1 = replica_key(local.id + 1, True)
    voter2 = replica_key(local.id + 2, True)
    voters = voter_set_of_keys([local, voter1, voter2])
    epoch = 4
    local_listeners = two_listeners(DEFAULT_LISTENER_NAME, local.id)
    context = (Builder(local.id, local_directory_id=local.directory_id)
               .with_kip853_rpc(True)
               .with_bootstrap_snapshot(voters)
               .with_elected_leader(epoch, voter1.id)
               .with_local_listeners(local_listeners)
               .build())

    # three fetch timeouts on, the follower sends UpdateRaftVoter (its listeners differ from the voter set's)
    fetch_for_three_fetch_timeouts(context, epoch, voter1)

    context.time.sleep(context.fetch_timeout_ms - 1)
    context.poll_until_request()
    update_request = context.assert_sent_update_voter_request(local, epoch, KRAFT_VERSION_SUPPORTED_RANGE,
                                                              local_listeners)
    context.deliver_response(update_request.correlation_id, update_request.destination,
                             context.update_voter_response(Errors.NONE, LeaderAndEpoch(voter1.id, epoch)))

    # then back to Fetch
    context.poll_until_request()
    fetch_request = context.assert_sent_fetch_request()
    context.assert_fetch_request_data(fetch_request, epoch, 0, 0)


def test_follower_sends_update_voter_when_different() -> None:
    local = replica_key(random_replica_id(), True)
    voter1 = replica_key(local.id + 1, True)
    voter2 = replica_key(local.id + 2, True)
    voters = voter_set_of_keys([local, voter1, voter2])
    epoch = 4
    context = (Builder(local.id, local_directory_id=local.directory_id)
               .with_kip853_rpc(True)
               .with_bootstrap_snapshot(voters)
               .with_elected_leader(epoch, voter1.id)
               .build())

    fetch_for_three_fetch_timeouts(context, epoch, voter1)

    # the voter set has this follower's listeners already: no UpdateRaftVoter, a Fetch
    context.time.sleep(context.fetch_timeout_ms - 1)
    context.poll_until_request()
    fetch_request = context.assert_sent_fetch_request()
    context.assert_fetch_request_data(fetch_request, epoch, 0, 0)

    # the expired update-voter period was reset: the raft thread does not spin on a zero poll timeout
    assert context.message_queue.last_poll_timeout_ms() != 0


def test_update_voter_response_causes_epoch_change() -> None:
    local = replica_key(random_replica_id(), True)
    voter1 = replica_key(local.id + 1, True)
    voter2 = replica_key(local.id + 2, True)
    voters = voter_set_of_keys([local, voter1, voter2])
    epoch = 4
    local_listeners = two_listeners(DEFAULT_LISTENER_NAME, local.id)
    context = (Builder(local.id, local_directory_id=local.directory_id)
               .with_kip853_rpc(True)
               .with_bootstrap_snapshot(voters)
               .with_elected_leader(epoch, voter1.id)
               .with_local_listeners(local_listeners)
               .build())

    fetch_for_three_fetch_timeouts(context, epoch, voter1)

    context.time.sleep(context.fetch_timeout_ms - 1)
    context.poll_until_request()
    update_request = context.assert_sent_update_voter_request(local, epoch, KRAFT_VERSION_SUPPORTED_RANGE,
                                                              local_listeners)
    # the answer names a newer leader
    context.deliver_response(update_request.correlation_id, update_request.destination,
                             context.update_voter_response(Errors.NONE, LeaderAndEpoch(voter2.id, epoch + 1)))

    # the follower fetches from it
    context.poll_until_request()
    fetch_request = context.assert_sent_fetch_request()
    context.assert_fetch_request_data(fetch_request, epoch + 1, 0, 0)
    assert fetch_request.destination.id == voter2.id


def test_observer_discovers_leader_with_unknown_voters() -> None:
    local = replica_key(random_replica_id(), True)
    bootstrap_address = ("localhost", 1234)
    epoch = 3
    context = (Builder(local.id, local_directory_id=local.directory_id)
               .with_kip853_rpc(True)
               .with_bootstrap_snapshot(None)
               .with_unknown_leader(epoch)
               .with_bootstrap_servers([bootstrap_address])
               .build())

    # no voters known: the observer asks the bootstrap server
    context.poll_until_request()
    fetch_request = context.assert_sent_fetch_request()
    context.assert_fetch_request_data(fetch_request, epoch, 0, 0)
    assert fetch_request.destination.id == -2


def test_handle_begin_quorum_request_more_endpoints() -> None:
    local = replica_key(random_replica_id(), True)
    leader = replica_key(local.id + 1, True)
    leader_epoch = 3
    voters = voter_set_of_keys([local, leader])
    context = (Builder(local.id, local_directory_id=local.directory_id)
               .with_bootstrap_snapshot(voters)
               .with_elected_leader(leader_epoch, leader.id)
               .with_kip853_rpc(True)
               .build())

    context.client.poll()

    # the leader says it has more listeners than the voter set knows
    leader_endpoints = two_listeners(DEFAULT_LISTENER_NAME, leader.id)
    context.deliver_request(context.begin_epoch_request(leader_epoch, leader.id, leader_endpoints))
    context.poll_until_response()

    context.assert_elected_leader(leader_epoch, leader.id)
    context.assert_sent_begin_quorum_epoch_response(Errors.NONE, leader_epoch, leader.id)
