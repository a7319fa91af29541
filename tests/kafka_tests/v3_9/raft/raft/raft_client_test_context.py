"""Port of raft/src/test/java/org/apache/kafka/raft/RaftClientTestContext.java (Kafka 3.9): one KafkaRaftClient on
mocks (MockLog, MockNetworkChannel, MockMessageQueue, MockQuorumStateStore, MockExpirationService, MockTime), driven
by hand: a test delivers requests and responses, polls, moves the clock, and asserts what the client sent.

Static voters (kraft.version 0) by default; `with_bootstrap_snapshot` starts from a bootstrap checkpoint with a
voter set (kraft.version 1, KIP-853) and `with_kip853_rpc` puts directory ids in the requests the test sends, with
the AddRaftVoter/RemoveRaftVoter/UpdateRaftVoter builders and assertions. Requests and responses are the kio objects
the port builds with RaftUtil, at the versions the port speaks (the KIP-853 ones), with no wire round trip.
"""

from __future__ import annotations

import time as _time
from collections.abc import Callable, Iterable
from typing import Any

from kafka_edu.v1_0_2.clients.common.record.file_records import MemoryRecords
from kafka_edu.v1_0_2.clients.common.record.memory_records_builder import with_records
from kafka_edu.v1_0_2.core.log.log import TopicPartition
from kafka_edu.v3_9.clients.common.protocol.api_keys import ApiKeys
from kafka_edu.v3_9.clients.common.protocol.builder import build
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from kafka_edu.v3_9.clients.common.record.control_record_utils import ControlRecordType
from kafka_edu.v3_9.clients.common.utils.mock_time import MockTime
from kafka_edu.v3_9.clients.common.uuid import METADATA_TOPIC_ID, Uuid
from kafka_edu.v3_9.raft.raft import raft_util
from kafka_edu.v3_9.raft.raft.election_state import ElectionState
from kafka_edu.v3_9.raft.raft.endpoints import Endpoints
from kafka_edu.v3_9.raft.raft.kafka_raft_client import MAX_FETCH_SIZE_BYTES, KafkaRaftClient
from kafka_edu.v3_9.raft.raft.leader_and_epoch import LeaderAndEpoch
from kafka_edu.v3_9.raft.raft.log_offset_metadata import LogOffsetMetadata
from kafka_edu.v3_9.raft.raft.mock_expiration_service import MockExpirationService
from kafka_edu.v3_9.raft.raft.mock_log import MockLog
from kafka_edu.v3_9.raft.raft.mock_message_queue import MockMessageQueue
from kafka_edu.v3_9.raft.raft.mock_network_channel import MockNetworkChannel
from kafka_edu.v3_9.raft.raft.mock_quorum_state_store import MockQuorumStateStore
from kafka_edu.v3_9.raft.raft.offset_and_epoch import OffsetAndEpoch
from kafka_edu.v3_9.raft.raft.quorum_config import QuorumConfig
from kafka_edu.v3_9.raft.raft.raft_client import RaftClient
from kafka_edu.v3_9.raft.raft.raft_message import InboundRequest, InboundResponse, OutboundRequest, OutboundResponse
from kafka_edu.v3_9.raft.raft.replica_key import ReplicaKey
from kafka_edu.v3_9.raft.raft.voter_set import Node, VoterSet
from kafka_edu.v3_9.raft.snapshot.records_snapshot_writer import RecordsSnapshotWriter
from kafka_edu.v3_9.raft.snapshot.snapshots import Snapshots
from tests.kafka_tests.v3_9.raft.raft.quorum_state_test_helpers import MockableRandom

DEFAULT_ELECTION_TIMEOUT_MS = 10000
METADATA_PARTITION = TopicPartition("metadata", 0)
ELECTION_BACKOFF_MAX_MS = 100
FETCH_MAX_WAIT_MS = 0
FETCH_TIMEOUT_MS = 50000
DEFAULT_REQUEST_TIMEOUT_MS = 5000
RETRY_BACKOFF_MS = 50
DEFAULT_APPEND_LINGER_MS = 0
CHECK_QUORUM_TIMEOUT_FACTOR = 1.5
OWN_CLUSTER_ID: Any = object()  # the context's cluster id (a `cluster_id` of None sends none, as Java's null)


class StringSerde:
    """raft's StringSerde: UTF-8 values."""

    def record_size(self, data: str, serialization_cache: Any) -> int:
        return len(data.encode())

    def write(self, data: str, serialization_cache: Any, out: Any) -> None:
        out.write(data.encode())

    def read(self, input: bytes | memoryview, size: int) -> str:
        return bytes(input[:size]).decode()


SERDE = StringSerde()


def mock_address(node_id: int) -> tuple[str, int]:
    return ("localhost", 9990 + node_id)


def build_batch(timestamp: int, base_offset: int, epoch: int, records: list[str]) -> MemoryRecords:
    """RaftClientTestContext.buildBatch(timestamp, baseOffset, epoch, records): one data batch, as BatchBuilder."""
    return with_records(base_offset, timestamp, epoch, [r.encode() for r in records])


def replica_key(node_id: int, with_directory_id: bool) -> ReplicaKey:
    return ReplicaKey.of(node_id, Uuid.random_uuid() if with_directory_id else ReplicaKey.NO_DIRECTORY_ID)


def wait_for_condition(condition: Callable[[], bool], max_wait_ms: int, message: str) -> None:
    """TestUtils.waitForCondition: retry until true or the (real) deadline passes."""
    deadline = _time.monotonic() + max_wait_ms / 1000
    while True:
        if condition():
            return
        if _time.monotonic() > deadline:
            raise AssertionError(message)


class Builder:
    def __init__(self, local_id: int | None, static_voters: Iterable[int] | None = None,
                 local_directory_id: Uuid | None = None) -> None:
        """Builder(localId, staticVoters) (localId None: Java's OptionalInt.empty()), or Builder(localId,
        localDirectoryId) with `local_directory_id` and no voters."""
        self.message_queue = MockMessageQueue()
        self.time = MockTime()
        self.quorum_state_store = MockQuorumStateStore()
        self.random = MockableRandom(1)
        self.log = MockLog(METADATA_PARTITION, METADATA_TOPIC_ID)
        self.cluster_id = str(Uuid.random_uuid())
        self.local_id = local_id
        self.local_directory_id = local_directory_id if local_directory_id is not None else Uuid.random_uuid()
        # Builder(localId, localDirectoryId) hands the client its directory id; with static voters it keeps none
        self.explicit_directory_id = local_directory_id is not None
        self.kraft_version = 0
        self.request_timeout_ms = DEFAULT_REQUEST_TIMEOUT_MS
        self.election_timeout_ms = DEFAULT_ELECTION_TIMEOUT_MS
        self.append_linger_ms = DEFAULT_APPEND_LINGER_MS
        self.kip853_rpc = False
        self.always_flush = False
        self.starting_voters = VoterSet.empty()
        self.local_listeners = Endpoints.empty()
        self.is_starting_voters_static = False
        self.bootstrap_servers: list[tuple[str, int]] | None = None
        if static_voters is not None:
            self.with_static_voters(static_voters)

    def with_elected_leader(self, epoch: int, leader_id: int) -> Builder:
        self.quorum_state_store.write_election_state(
            ElectionState.with_elected_leader(epoch, leader_id, self.starting_voters.voter_ids()), self.kraft_version)
        return self

    def with_unknown_leader(self, epoch: int) -> Builder:
        self.quorum_state_store.write_election_state(
            ElectionState.with_unknown_leader(epoch, self.starting_voters.voter_ids()), self.kraft_version)
        return self

    def with_voted_candidate(self, epoch: int, voted_key: ReplicaKey) -> Builder:
        self.quorum_state_store.write_election_state(
            ElectionState.with_voted_candidate(epoch, voted_key, self.starting_voters.voter_ids()),
            self.kraft_version)
        return self

    def update_random(self, consumer: Callable[[MockableRandom], None]) -> Builder:
        consumer(self.random)
        return self

    def with_append_linger_ms(self, append_linger_ms: int) -> Builder:
        self.append_linger_ms = append_linger_ms
        return self

    def append_to_log(self, epoch: int, records: list[str]) -> Builder:
        batch = build_batch(self.time.milliseconds(), self.log.end_offset().offset, epoch, records)
        self.log.append_as_leader(batch, epoch)
        # a flush before the replica starts: it must not count as one by the client
        self.log.flush(False)
        self.log.flushed_since_last_checked()
        return self

    def with_empty_snapshot(self, snapshot_id: OffsetAndEpoch) -> Builder:
        writer = (RecordsSnapshotWriter.Builder()
                  .set_time(self.time.milliseconds)
                  .set_kraft_version(0)
                  .set_raw_snapshot_writer(self.log.create_new_snapshot_unchecked(snapshot_id))
                  .build(SERDE))
        writer.freeze()
        writer.close()
        return self

    def delete_before_snapshot(self, snapshot_id: OffsetAndEpoch) -> Builder:
        if snapshot_id.offset > self.log.high_watermark().offset:
            self.log.update_high_watermark(LogOffsetMetadata(snapshot_id.offset))
        self.log.delete_before_snapshot(snapshot_id)
        return self

    def with_election_timeout_ms(self, election_timeout_ms: int) -> Builder:
        self.election_timeout_ms = election_timeout_ms
        return self

    def with_request_timeout_ms(self, request_timeout_ms: int) -> Builder:
        self.request_timeout_ms = request_timeout_ms
        return self

    def with_bootstrap_servers(self, bootstrap_servers: list[tuple[str, int]] | None) -> Builder:
        self.bootstrap_servers = bootstrap_servers
        return self

    def with_kip853_rpc(self, kip853_rpc: bool) -> Builder:
        self.kip853_rpc = kip853_rpc
        return self

    def with_always_flush(self, always_flush: bool) -> Builder:
        self.always_flush = always_flush
        return self

    def with_static_voters(self, static_voters: Iterable[int] | VoterSet) -> Builder:
        """withStaticVoters(Set<Integer>) or withStaticVoters(VoterSet)."""
        if not isinstance(static_voters, VoterSet):
            static_voters = VoterSet.from_inet_socket_addresses(
                MockNetworkChannel.LISTENER_NAME, {voter_id: mock_address(voter_id) for voter_id in static_voters})
        self.starting_voters = static_voters
        self.is_starting_voters_static = True
        self.kraft_version = 0
        return self

    def with_bootstrap_snapshot(self, voters: VoterSet | None) -> Builder:
        """The bootstrap checkpoint (0-0) `storage format` writes: with a voter set, kraft.version 1 and its
        KRaftVersionRecord and VotersRecord; without, an empty kraft.version 0 one."""
        self.starting_voters = voters if voters is not None else VoterSet.empty()
        self.is_starting_voters_static = False
        if voters is not None:
            self.kraft_version = 1
            writer = (RecordsSnapshotWriter.Builder()
                      .set_raw_snapshot_writer(self.log.create_new_snapshot_unchecked(Snapshots.BOOTSTRAP_SNAPSHOT_ID))
                      .set_kraft_version(self.kraft_version)
                      .set_voter_set(voters)
                      .build(SERDE))
            writer.freeze()
            writer.close()
        else:
            self.kraft_version = 0
            self.with_empty_snapshot(Snapshots.BOOTSTRAP_SNAPSHOT_ID)
        return self

    def with_local_listeners(self, local_listeners: Endpoints) -> Builder:
        self.local_listeners = local_listeners
        return self

    def build(self) -> RaftClientTestContext:
        channel = MockNetworkChannel()
        listener = MockListener(self.local_id)
        static_voter_address_map: dict[int, tuple[str, int]] = {}
        if self.is_starting_voters_static:
            for node in self.starting_voters.voter_nodes(self.starting_voters.voter_ids(), channel.listener_name()):
                static_voter_address_map[node.id] = (node.host, node.port)
        if not self.local_listeners.is_empty():
            local_listeners = self.local_listeners
        elif self.local_id is not None:
            local_listeners = self.starting_voters.listeners(self.local_id)
        else:
            local_listeners = Endpoints.empty()
        quorum_config = QuorumConfig.of(self.request_timeout_ms, RETRY_BACKOFF_MS, self.election_timeout_ms,
                                        ELECTION_BACKOFF_MAX_MS, FETCH_TIMEOUT_MS, self.append_linger_ms)
        bootstrap_servers = self.bootstrap_servers
        if bootstrap_servers is None and not self.is_starting_voters_static:
            # voters from a checkpoint: the client finds the leader through their addresses
            bootstrap_servers = [(node.host, node.port) for node in self.starting_voters.voter_nodes(
                self.starting_voters.voter_ids(), channel.listener_name())]
        client: KafkaRaftClient[str] = KafkaRaftClient(
            self.local_id, SERDE, channel, self.log, MockExpirationService(self.time), self.cluster_id,
            local_listeners, quorum_config, message_queue=self.message_queue, fetch_max_wait_ms=FETCH_MAX_WAIT_MS,
            followers_always_flush=self.always_flush, random=self.random, time=self.time,
            node_directory_id=self.local_directory_id if self.explicit_directory_id else None,
            bootstrap_servers=bootstrap_servers)
        client.register(listener)
        client.initialize(static_voter_address_map, self.quorum_state_store)
        context = RaftClientTestContext(self, client, channel, listener)
        return context


class RaftClientTestContext:
    def __init__(self, builder: Builder, client: KafkaRaftClient[str], channel: MockNetworkChannel,
                 listener: MockListener) -> None:
        self.serde = SERDE
        self.metadata_partition = METADATA_PARTITION
        self.metadata_topic_id = METADATA_TOPIC_ID
        self.election_backoff_max_ms = ELECTION_BACKOFF_MAX_MS
        self.fetch_max_wait_ms = FETCH_MAX_WAIT_MS
        self.fetch_timeout_ms = FETCH_TIMEOUT_MS
        self.check_quorum_timeout_ms = int(FETCH_TIMEOUT_MS * CHECK_QUORUM_TIMEOUT_FACTOR)
        self.begin_quorum_epoch_timeout_ms = FETCH_TIMEOUT_MS // 2
        self.retry_backoff_ms = RETRY_BACKOFF_MS
        self._election_timeout_ms = builder.election_timeout_ms
        self._request_timeout_ms = builder.request_timeout_ms
        self._append_linger_ms = builder.append_linger_ms
        self.quorum_state_store = builder.quorum_state_store
        self.cluster_id = builder.cluster_id
        self.local_id = builder.local_id
        self.local_directory_id = builder.local_directory_id
        self.kraft_version = builder.kraft_version
        self.client = client
        self.log = builder.log
        self.channel = channel
        self.message_queue = builder.message_queue
        self.time = builder.time
        self.listener = listener
        self.starting_voters = builder.starting_voters
        self.bootstrap_ids: set[int] = set(range(-2, -2 - len(builder.bootstrap_servers or []), -1))
        self.kip853_rpc = builder.kip853_rpc
        self.always_flush = builder.always_flush
        self.sent_responses: list[OutboundResponse] = []

    # -- configuration ----------------------------------------------------------------------------------------------

    def election_timeout_ms(self) -> int:
        return self._election_timeout_ms

    def request_timeout_ms(self) -> int:
        return self._request_timeout_ms

    def append_linger_ms(self) -> int:
        return self._append_linger_ms

    def build_batch(self, base_offset: int, epoch: int, records: list[str]) -> MemoryRecords:
        return build_batch(self.time.milliseconds(), base_offset, epoch, records)

    @staticmethod
    def initialize_as_leader(local_id: int, voters: set[int], epoch: int) -> RaftClientTestContext:
        if epoch <= 0:
            raise ValueError(f"Cannot become leader in epoch {epoch}")
        context = Builder(local_id, voters).with_unknown_leader(epoch - 1).build()
        context.assert_unknown_leader(epoch - 1)
        context.become_leader()
        return context

    def become_leader(self) -> None:
        current_epoch = self.current_epoch()
        self.time.sleep(self._election_timeout_ms * 2)
        self.expect_and_grant_votes(current_epoch + 1)
        self.expect_begin_epoch(current_epoch + 1)

    def current_leader(self) -> int | None:
        return self.current_leader_and_epoch().leader_id

    def current_epoch(self) -> int:
        return self.current_leader_and_epoch().epoch

    def current_leader_and_epoch(self) -> LeaderAndEpoch:
        election = self.quorum_state_store.read_election_state()
        return LeaderAndEpoch(election.optional_leader_id(), election.epoch)

    def expect_and_grant_votes(self, epoch: int) -> None:
        self.poll_until_request()
        vote_requests = self.collect_vote_requests(epoch, self.log.last_fetched_epoch(), self.log.end_offset().offset)
        for request in vote_requests:
            self.deliver_response(request.correlation_id, request.destination, self.vote_response(True, None, epoch))
        self.client.poll()
        self.assert_elected_leader(epoch, self.local_id_or_throw())

    def local_id_or_throw(self) -> int:
        if self.local_id is None:
            raise AssertionError("Required local id is not defined")
        return self.local_id

    def local_replica_key(self) -> ReplicaKey:
        return ReplicaKey.of(self.local_id_or_throw(),
                             self.local_directory_id if self.kip853_rpc else ReplicaKey.NO_DIRECTORY_ID)

    def expect_begin_epoch(self, epoch: int) -> None:
        self.poll_until_request()
        for request in self.collect_begin_epoch_requests(epoch):
            self.deliver_response(request.correlation_id, request.destination,
                                  self.begin_epoch_response(epoch, self.local_id_or_throw()))
            self.client.poll()

    def poll_until(self, condition: Callable[[], bool]) -> None:
        def poll_and_check() -> bool:
            self.client.poll()
            return condition()
        wait_for_condition(poll_and_check, 5000, "Condition failed to be satisfied before timeout")

    def poll_until_response(self) -> None:
        self.poll_until(lambda: bool(self.sent_responses))

    def poll_until_request(self) -> None:
        self.poll_until(self.channel.has_sent_requests)

    # -- election state ---------------------------------------------------------------------------------------------

    def assert_voted_candidate(self, epoch: int, candidate_id: int) -> None:
        assert self.quorum_state_store.read_election_state() == ElectionState.with_voted_candidate(
            epoch, ReplicaKey.of(candidate_id, ReplicaKey.NO_DIRECTORY_ID), self.starting_voters.voter_ids())

    def assert_elected_leader(self, epoch: int, leader_id: int) -> None:
        # quorum-state v1 (kraft.version 1) keeps no voters
        voters = set() if self.kraft_version == 1 else self.starting_voters.voter_ids()
        assert self.quorum_state_store.read_election_state() == ElectionState.with_elected_leader(
            epoch, leader_id, voters)

    def assert_unknown_leader(self, epoch: int) -> None:
        assert self.quorum_state_store.read_election_state() == ElectionState.with_unknown_leader(
            epoch, self.starting_voters.voter_ids())

    def assert_resigned_leader(self, epoch: int, leader_id: int) -> None:
        assert self.client.quorum.is_resigned()
        assert self.quorum_state_store.read_election_state() == ElectionState.with_elected_leader(
            epoch, leader_id, self.starting_voters.voter_ids())

    # -- DescribeQuorum ---------------------------------------------------------------------------------------------

    def collect_describe_quorum_response(self) -> Any:
        sent = self._drain_sent_responses(ApiKeys.DESCRIBE_QUORUM)
        assert len(sent) == 1
        return sent[0].data

    def assert_sent_describe_quorum_response(self, leader_id: int, leader_epoch: int, high_watermark: int,
                                             voter_states: list[dict[str, Any]],
                                             observer_states: list[dict[str, Any]],
                                             error: Errors = Errors.NONE) -> None:
        """`voter_states`/`observer_states`: dicts of replica_id, log_end_offset, last_fetch_timestamp,
        last_caught_up_timestamp (Java's ReplicaState)."""
        response = self.collect_describe_quorum_response()
        assert response.error_code == Errors.NONE
        partition = response.topics[0].partitions[0]
        assert response.topics[0].topic_name == self.metadata_partition.topic
        assert Errors.for_code(partition.error_code) is error
        assert partition.leader_id == leader_id
        assert partition.leader_epoch == leader_epoch
        assert partition.high_watermark == high_watermark

        def states(replicas: Any) -> list[dict[str, Any]]:
            return sorted(({"replica_id": r.replica_id, "log_end_offset": r.log_end_offset,
                            "last_fetch_timestamp": r.last_fetch_timestamp,
                            "last_caught_up_timestamp": r.last_caught_up_timestamp} for r in replicas),
                          key=lambda s: s["replica_id"])
        assert states(partition.current_voters) == sorted(voter_states, key=lambda s: s["replica_id"])
        assert states(partition.observers) == sorted(observer_states, key=lambda s: s["replica_id"])

    # -- Vote -------------------------------------------------------------------------------------------------------

    def assert_sent_vote_request(self, epoch: int, last_epoch: int, last_epoch_offset: int,
                                 num_vote_receivers: int) -> OutboundRequest:
        vote_requests = self.collect_vote_requests(epoch, last_epoch, last_epoch_offset)
        assert len(vote_requests) == num_vote_receivers
        return vote_requests[0]

    def assert_sent_vote_response(self, error: Errors, epoch: int | None = None, leader_id: int | None = None,
                                  vote_granted: bool | None = None) -> None:
        """assertSentVoteResponse(error) checks the top-level error; with an epoch, the partition's response."""
        sent = self._drain_sent_responses(ApiKeys.VOTE)
        assert len(sent) == 1
        response = sent[0].data
        if epoch is None:
            assert Errors.for_code(response.error_code) is error
            return
        assert raft_util.has_valid_topic_partition(response, self.metadata_partition)
        partition_response = response.topics[0].partitions[0]
        assert partition_response.vote_granted == vote_granted, f"Leader Id: {leader_id} Partition response " \
                                                                f"leader Id: {partition_response.leader_id}"
        assert Errors.for_code(partition_response.error_code) is error
        assert partition_response.leader_id == (leader_id if leader_id is not None else -1)
        assert partition_response.leader_epoch == epoch

    def collect_vote_requests(self, epoch: int, last_epoch: int, last_epoch_offset: int) -> list[OutboundRequest]:
        vote_requests = []
        for raft_message in self.channel.drain_send_queue():
            if raft_message.api_key() == ApiKeys.VOTE:
                partition_request = self._unwrap(raft_message.data)
                assert partition_request.candidate_epoch == epoch
                assert partition_request.candidate_id == self.local_id_or_throw()
                assert partition_request.last_offset_epoch == last_epoch
                assert partition_request.last_offset == last_epoch_offset
                vote_requests.append(raft_message)
        return vote_requests

    def _unwrap(self, vote_request: Any) -> Any:
        assert raft_util.has_valid_topic_partition(vote_request, self.metadata_partition)
        return vote_request.topics[0].partitions[0]

    # -- delivery ---------------------------------------------------------------------------------------------------

    def deliver_request(self, request: Any, version: int | None = None) -> None:
        api = ApiKeys(int(request.__api_key__))
        if version is None:
            version = raft_util.REQUEST_VERSIONS.get(api, 1)
        inbound_request = InboundRequest(self.channel.new_correlation_id(), version, request,
                                         self.time.milliseconds(), self.channel.listener_name())

        def on_complete(response: Any, exception: BaseException | None) -> None:
            if exception is not None:
                raise RuntimeError(exception)
            self.sent_responses.append(response)
        inbound_request.completion.when_complete(on_complete)
        self.client.handle(inbound_request)

    def deliver_response(self, correlation_id: int, source: Node, response: Any) -> None:
        self.channel.mock_receive(InboundResponse(correlation_id, response, source))

    def _drain_sent_responses(self, api_key: ApiKeys) -> list[OutboundResponse]:
        res = [r for r in self.sent_responses if r.api_key() == api_key]
        self.sent_responses = [r for r in self.sent_responses if r.api_key() != api_key]
        return res

    # -- BeginQuorumEpoch -------------------------------------------------------------------------------------------

    def assert_sent_begin_quorum_epoch_request(self, epoch: int, destination_ids: set[int]) -> list[OutboundRequest]:
        requests = self.collect_begin_epoch_requests(epoch)
        assert len(requests) == len(destination_ids)
        assert {r.destination.id for r in requests} == destination_ids
        return requests

    def assert_sent_begin_quorum_epoch_response(self, error: Errors, epoch: int | None = None,
                                                leader_id: int | None = None) -> None:
        """(responseError) checks the top-level error; (partitionError, epoch, leaderId) the partition's."""
        sent = self._drain_sent_responses(ApiKeys.BEGIN_QUORUM_EPOCH)
        assert len(sent) == 1
        response = sent[0].data
        if epoch is None:
            assert Errors.for_code(response.error_code) is error
            return
        assert Errors.for_code(response.error_code) is Errors.NONE
        partition_response = response.topics[0].partitions[0]
        assert partition_response.leader_epoch == epoch
        assert partition_response.leader_id == (leader_id if leader_id is not None else -1)
        assert Errors.for_code(partition_response.error_code) is error

    # -- EndQuorumEpoch ---------------------------------------------------------------------------------------------

    def assert_sent_end_quorum_epoch_request(self, epoch: int, destination_id: int) -> OutboundRequest:
        requests = self.collect_end_quorum_requests(epoch, {destination_id}, None)
        assert len(requests) == 1
        return requests[0]

    def assert_sent_end_quorum_epoch_response(self, error: Errors, epoch: int | None = None,
                                              leader_id: int | None = None) -> None:
        sent = self._drain_sent_responses(ApiKeys.END_QUORUM_EPOCH)
        assert len(sent) == 1
        response = sent[0].data
        if epoch is None:
            assert Errors.for_code(response.error_code) is error
            return
        assert Errors.for_code(response.error_code) is Errors.NONE
        partition_response = response.topics[0].partitions[0]
        assert partition_response.leader_epoch == epoch
        assert partition_response.leader_id == (leader_id if leader_id is not None else -1)
        assert Errors.for_code(partition_response.error_code) is error

    def collect_end_quorum_requests(self, epoch: int, destination_id_set: set[int],
                                    preferred_candidates: list[ReplicaKey] | None) -> list[OutboundRequest]:
        end_quorum_requests = []
        collected_destination_id_set = set()
        for raft_message in self.channel.drain_send_queue():
            if raft_message.api_key() == ApiKeys.END_QUORUM_EPOCH:
                partition_request = raft_message.data.topics[0].partitions[0]
                assert partition_request.leader_epoch == epoch
                assert partition_request.leader_id == self.local_id_or_throw()
                if preferred_candidates is not None:
                    assert [k.id for k in preferred_candidates] == \
                        [k.id for k in raft_util.preferred_candidates(partition_request)]
                collected_destination_id_set.add(raft_message.destination.id)
                end_quorum_requests.append(raft_message)
        assert collected_destination_id_set == destination_id_set
        return end_quorum_requests

    # -- Fetch ------------------------------------------------------------------------------------------------------

    def assert_sent_fetch_request(self, epoch: int | None = None, fetch_offset: int | None = None,
                                  last_fetched_epoch: int | None = None) -> OutboundRequest:
        """assertSentFetchRequest(): the one Fetch sent; with (epoch, fetchOffset, lastFetchedEpoch): the only
        request sent, and it is that Fetch."""
        if epoch is None:
            sent = self.channel.drain_sent_requests(ApiKeys.FETCH)
            assert len(sent) == 1
            return sent[0]
        sent = self.channel.drain_send_queue()
        assert len(sent) == 1, sent
        self.assert_fetch_request_data(sent[0], epoch, fetch_offset, last_fetched_epoch)
        return sent[0]

    def assert_sent_fetch_partition_response(self, *args: Any) -> Any:
        """The forms of assertSentFetchPartitionResponse:
        () -> the partition response; (topLevelError) -> checks it; (error, epoch, leaderId) -> the records (bytes);
        (highWatermark, leaderEpoch) (two ints) -> the records (bytes)."""
        sent = self._drain_sent_responses(ApiKeys.FETCH)
        assert len(sent) == 1, f"Found unexpected sent messages {sent}"
        response = sent[0].data
        if len(args) == 1:
            assert Errors.for_code(response.error_code) is args[0]
            return None
        assert Errors.for_code(response.error_code) is Errors.NONE
        assert len(response.responses) == 1
        assert getattr(response.responses[0], "topic", None) == self.metadata_partition.topic or \
            raft_util.from_kio_uuid(response.responses[0].topic_id) == self.metadata_topic_id
        assert len(response.responses[0].partitions) == 1
        partition_response = response.responses[0].partitions[0]
        if not args:
            return partition_response
        if isinstance(args[0], Errors):
            error, epoch, leader_id = args
            assert Errors.for_code(partition_response.error_code) is error
            assert partition_response.current_leader.leader_epoch == epoch
            assert partition_response.current_leader.leader_id == (leader_id if leader_id is not None else -1)
        else:
            high_watermark, leader_epoch = args
            assert Errors.for_code(partition_response.error_code) is Errors.NONE
            assert partition_response.current_leader.leader_epoch == leader_epoch
            assert partition_response.high_watermark == high_watermark
        assert partition_response.diverging_epoch.end_offset == -1
        assert partition_response.diverging_epoch.epoch == -1
        assert partition_response.snapshot_id.end_offset == -1
        assert partition_response.snapshot_id.epoch == -1
        return bytes(partition_response.records or b"")

    def assert_sent_fetch_snapshot_request(self) -> OutboundRequest:
        sent = self.channel.drain_sent_requests(ApiKeys.FETCH_SNAPSHOT)
        assert len(sent) == 1
        return sent[0]

    def discover_leader_as_observer(self, leader_id: int, epoch: int) -> None:
        self.poll_until_request()
        fetch_request = self.assert_sent_fetch_request()
        destination_id = fetch_request.destination.id
        assert destination_id in self.starting_voters.voter_ids() or destination_id in self.bootstrap_ids
        self.assert_fetch_request_data(fetch_request, 0, 0, 0)
        self.deliver_response(fetch_request.correlation_id, fetch_request.destination,
                              self.fetch_response(epoch, leader_id, b"", 0, Errors.NONE))
        self.client.poll()
        self.assert_elected_leader(epoch, leader_id)

    def collect_begin_epoch_requests(self, epoch: int) -> list[OutboundRequest]:
        requests = []
        for raft_request in self.channel.drain_sent_requests(ApiKeys.BEGIN_QUORUM_EPOCH):
            assert raft_request.destination.id != self.local_id_or_throw()
            partition_request = raft_request.data.topics[0].partitions[0]
            assert partition_request.leader_epoch == epoch
            assert partition_request.leader_id == self.local_id_or_throw()
            requests.append(raft_request)
        return requests

    # -- request/response builders ----------------------------------------------------------------------------------

    def _cluster_id(self, cluster_id: Any) -> Any:
        return self.cluster_id if cluster_id is OWN_CLUSTER_ID else cluster_id

    def end_epoch_response(self, epoch: int, leader_id: int | None) -> Any:
        return raft_util.singleton_end_quorum_epoch_response(
            self.channel.listener_name(), raft_util.END_QUORUM_EPOCH_VERSION, Errors.NONE, self.metadata_partition,
            Errors.NONE, epoch, leader_id if leader_id is not None else -1,
            self.starting_voters.listeners(leader_id) if leader_id is not None else Endpoints.empty())

    def end_epoch_request(self, epoch: int, leader_id: int, preferred_candidates: list[ReplicaKey],
                          cluster_id: Any = OWN_CLUSTER_ID) -> Any:
        return raft_util.singleton_end_quorum_epoch_request(
            self.metadata_partition, self._cluster_id(cluster_id), epoch, leader_id,
            preferred_candidates)

    def begin_epoch_request(self, epoch: int, leader_id: int, endpoints: Endpoints | None = None,
                            cluster_id: Any = OWN_CLUSTER_ID, voter_key: ReplicaKey | None = None) -> Any:
        if voter_key is None:
            # KIP-853 requests name the voter they are meant for
            voter_key = (ReplicaKey.of(self.local_id_or_throw(), self.local_directory_id) if self.kip853_rpc
                         else ReplicaKey.of(-1, ReplicaKey.NO_DIRECTORY_ID))
        return raft_util.singleton_begin_quorum_epoch_request(
            self.metadata_partition, self._cluster_id(cluster_id), epoch, leader_id,
            self.starting_voters.listeners(leader_id) if endpoints is None else endpoints, voter_key)

    def begin_epoch_response(self, epoch: int, leader_id: int) -> Any:
        return raft_util.singleton_begin_quorum_epoch_response(
            self.channel.listener_name(), raft_util.BEGIN_QUORUM_EPOCH_VERSION, Errors.NONE,
            self.metadata_partition, Errors.NONE, epoch, leader_id, self.starting_voters.listeners(leader_id))

    def vote_request(self, epoch: int, candidate_key: ReplicaKey, last_epoch: int, last_epoch_offset: int,
                     cluster_id: Any = OWN_CLUSTER_ID, voter_key: ReplicaKey | None = None) -> Any:
        return raft_util.singleton_vote_request(
            self.metadata_partition, self._cluster_id(cluster_id), epoch, candidate_key,
            ReplicaKey.of(-1, ReplicaKey.NO_DIRECTORY_ID) if voter_key is None else voter_key, last_epoch,
            last_epoch_offset)

    def vote_response(self, vote_granted: bool, leader_id: int | None, epoch: int) -> Any:
        return raft_util.singleton_vote_response(
            self.channel.listener_name(), raft_util.VOTE_VERSION, Errors.NONE, self.metadata_partition, Errors.NONE,
            epoch, leader_id if leader_id is not None else -1, vote_granted,
            self.starting_voters.listeners(leader_id) if leader_id is not None else Endpoints.empty())

    @staticmethod
    def assert_matching_records(expected: list[str], actual: bytes) -> None:
        record_list = [record for batch in MemoryRecords(actual).batches() for record in batch.records()]
        assert len(record_list) == len(expected)
        for value, record in zip(expected, record_list, strict=True):
            assert record.value.decode() == value, f"Record at offset {record.offset} does not match expected"

    @staticmethod
    def verify_leader_change_message(leader_id: int, voters: list[int], granting_voters: list[int],
                                     record_key: bytes, record_value: bytes) -> None:
        from kafka_edu.v3_9.clients.common.record.control_record_utils import ControlRecordUtils
        assert ControlRecordType.parse(record_key) is ControlRecordType.LEADER_CHANGE
        message = ControlRecordUtils.deserialize_leader_change_message(record_value)
        assert message.leader_id == leader_id
        assert {v.voter_id for v in message.voters} == set(voters)
        assert {v.voter_id for v in message.granting_voters} == set(granting_voters)

    def assert_fetch_request_data(self, message: OutboundRequest, epoch: int, fetch_offset: int,
                                  last_fetched_epoch: int) -> None:
        assert message.api_key() == ApiKeys.FETCH, f"unexpected request type {message.data}"
        request = message.data
        assert request.max_bytes == MAX_FETCH_SIZE_BYTES
        assert raft_util.fetch_max_wait_ms(request) == self.fetch_max_wait_ms
        assert len(request.topics) == 1
        assert raft_util.from_kio_uuid(request.topics[0].topic_id) == self.metadata_topic_id
        assert len(request.topics[0].partitions) == 1
        fetch_partition = request.topics[0].partitions[0]
        assert fetch_partition.current_leader_epoch == epoch
        assert fetch_partition.fetch_offset == fetch_offset
        assert fetch_partition.last_fetched_epoch == last_fetched_epoch
        assert raft_util.fetch_replica_id(request) == (self.local_id if self.local_id is not None else -1)
        # voters (and always-flushing observers) flush up to the offset they fetch from
        if (self.local_id is not None and self.local_id in self.starting_voters.voter_ids()) or self.always_flush:
            assert self.log.first_unflushed_offset() == fetch_offset, \
                f"expected voters have the fetch offset ({self.log.first_unflushed_offset()}) be the same as the " \
                f"unflushed offset ({fetch_offset})"
        else:
            assert not self.log.flushed_since_last_checked(), \
                "KRaft client should not explicitly flush when it is an observer"

    def fetch_request(self, epoch: int, replica_key: ReplicaKey, fetch_offset: int, last_fetched_epoch: int,
                      max_wait_time_ms: int, cluster_id: Any = OWN_CLUSTER_ID) -> Any:
        return raft_util.singleton_fetch_request(
            self.metadata_partition, self.metadata_topic_id, self._cluster_id(cluster_id),
            epoch, last_fetched_epoch, fetch_offset, replica_key.id,
            replica_key.directory_id if self.kip853_rpc else None, MAX_FETCH_SIZE_BYTES, max_wait_time_ms)

    def fetch_response(self, epoch: int, leader_id: int, records: Any, high_watermark: int, error: Errors) -> Any:
        return raft_util.singleton_fetch_response(
            self.channel.listener_name(), raft_util.FETCH_VERSION, self.metadata_partition, self.metadata_topic_id,
            Errors.NONE, leader_id, self.starting_voters.listeners(leader_id), error, high_watermark, 0, epoch,
            _records_bytes(records))

    def diverging_fetch_response(self, epoch: int, leader_id: int, diverging_epoch_end_offset: int,
                                 diverging_epoch: int, high_watermark: int) -> Any:
        return raft_util.singleton_fetch_response(
            self.channel.listener_name(), raft_util.FETCH_VERSION, self.metadata_partition, self.metadata_topic_id,
            Errors.NONE, leader_id, self.starting_voters.listeners(leader_id), Errors.NONE, high_watermark, 0, epoch,
            b"", diverging_epoch=OffsetAndEpoch(diverging_epoch_end_offset, diverging_epoch))

    def snapshot_fetch_response(self, epoch: int, leader_id: int, snapshot_id: OffsetAndEpoch,
                                high_watermark: int) -> Any:
        return raft_util.singleton_fetch_response(
            self.channel.listener_name(), raft_util.FETCH_VERSION, self.metadata_partition, self.metadata_topic_id,
            Errors.NONE, leader_id, self.starting_voters.listeners(leader_id), Errors.NONE, high_watermark, 0, epoch,
            b"", snapshot_id=snapshot_id)

    def describe_quorum_request(self) -> Any:
        return build(ApiKeys.DESCRIBE_QUORUM.request_schema(1), topics=[{
            "topic_name": self.metadata_partition.topic,
            "partitions": [{"partition_index": self.metadata_partition.partition}]}])

    # -- ApiVersions, AddRaftVoter, RemoveRaftVoter, UpdateRaftVoter (KIP-853) ---------------------------------------

    def assert_sent_api_versions_request(self) -> OutboundRequest:
        sent = self.channel.drain_sent_requests(ApiKeys.API_VERSIONS)
        assert len(sent) == 1
        return sent[0]

    def assert_sent_add_voter_response(self, error: Errors) -> Any:
        sent = self._drain_sent_responses(ApiKeys.ADD_RAFT_VOTER)
        assert len(sent) == 1
        response = sent[0].data
        assert type(response).__name__ == "AddRaftVoterResponse"
        assert Errors.for_code(response.error_code) is error
        return response

    def assert_sent_remove_voter_response(self, error: Errors) -> Any:
        sent = self._drain_sent_responses(ApiKeys.REMOVE_RAFT_VOTER)
        assert len(sent) == 1
        response = sent[0].data
        assert type(response).__name__ == "RemoveRaftVoterResponse"
        assert Errors.for_code(response.error_code) is error
        return response

    def assert_sent_update_voter_request(self, replica_key: ReplicaKey, epoch: int, supported_versions: Any,
                                         endpoints: Endpoints) -> OutboundRequest:
        sent = self.channel.drain_sent_requests(ApiKeys.UPDATE_RAFT_VOTER)
        assert len(sent) == 1
        request = sent[0]
        data = request.data
        assert type(data).__name__ == "UpdateRaftVoterRequest"
        assert data.cluster_id == self.cluster_id
        assert data.current_leader_epoch == epoch
        assert data.voter_id == replica_key.id
        assert raft_util.from_kio_uuid(data.voter_directory_id) == replica_key.directory_id
        assert Endpoints.from_update_voter_request(data.listeners) == endpoints
        assert data.k_raft_version_feature.min_supported_version == supported_versions.min()
        assert data.k_raft_version_feature.max_supported_version == supported_versions.max()
        return request

    def assert_sent_update_voter_response(self, error: Errors, leader_id: int | None, epoch: int) -> Any:
        sent = self._drain_sent_responses(ApiKeys.UPDATE_RAFT_VOTER)
        assert len(sent) == 1
        response = sent[0].data
        assert type(response).__name__ == "UpdateRaftVoterResponse"
        assert Errors.for_code(response.error_code) is error
        assert response.current_leader.leader_id == (leader_id if leader_id is not None else -1)
        assert response.current_leader.leader_epoch == epoch
        if response.current_leader.leader_id >= 0:
            expected_leader_endpoints = self.starting_voters.listeners(response.current_leader.leader_id)
            response_endpoints = Endpoints.from_inet_socket_addresses(
                {self.channel.listener_name(): (response.current_leader.host, int(response.current_leader.port))})
            assert response_endpoints == expected_leader_endpoints
        return response

    def add_voter_request(self, *args: Any) -> Any:
        """addVoterRequest(timeoutMs, voter, endpoints) or addVoterRequest(clusterId, timeoutMs, voter, endpoints)."""
        if len(args) == 3:
            args = (self.cluster_id, *args)
        cluster_id, timeout_ms, voter, endpoints = args
        return raft_util.add_voter_request(cluster_id, timeout_ms, voter, endpoints)

    def remove_voter_request(self, *args: Any) -> Any:
        """removeVoterRequest(voter) or removeVoterRequest(clusterId, voter)."""
        if len(args) == 1:
            args = (self.cluster_id, *args)
        cluster_id, voter = args
        return raft_util.remove_voter_request(cluster_id, voter)

    def update_voter_request(self, *args: Any) -> Any:
        """updateVoterRequest(voter, supportedVersions, endpoints) or
        updateVoterRequest(clusterId, voter, epoch, supportedVersions, endpoints)."""
        if len(args) == 3:
            voter, supported_versions, endpoints = args
            args = (self.cluster_id, voter, self.current_epoch(), supported_versions, endpoints)
        cluster_id, voter, epoch, supported_versions, endpoints = args
        return raft_util.update_voter_request(cluster_id, voter, epoch, supported_versions, endpoints)

    def update_voter_response(self, error: Errors, leader_and_epoch: LeaderAndEpoch) -> Any:
        return raft_util.update_voter_response(
            error, self.channel.listener_name(), leader_and_epoch,
            self.starting_voters.listeners(leader_and_epoch.leader_id) if leader_and_epoch.leader_id is not None
            else Endpoints.empty())

    def advance_local_leader_high_watermark_to_log_end_offset(self) -> None:
        assert self.local_id == self.current_leader()
        local_log_end_offset = self.log.end_offset().offset
        followers = [key for key in self.starting_voters.voter_keys() if key.id != self.local_id]
        for follower in sorted(followers):
            self.deliver_request(self.fetch_request(self.current_epoch(), follower, local_log_end_offset,
                                                    self.current_epoch(), 0))
            self.poll_until_response()
            self.assert_sent_fetch_partition_response(Errors.NONE, self.current_epoch(), self.local_id)
        self.poll_until(lambda: self.client.high_watermark() == local_log_end_offset)


def _records_bytes(records: Any) -> bytes:
    if isinstance(records, MemoryRecords):
        return bytes(records.buffer)
    return bytes(records)


class MockListener(RaftClient.Listener[str]):
    def __init__(self, local_id: int | None) -> None:
        self.commits: list[Any] = []
        self.saved_batches: list[Any] = []
        self.claimed_epoch_start_offsets: dict[int, int] = {}
        self._current_leader_and_epoch = LeaderAndEpoch.UNKNOWN
        self.local_id = local_id
        self.snapshot: Any = None
        self.read_commit = True

    def num_committed_batches(self) -> int:
        return len(self.commits)

    def claimed_epoch_start_offset(self, epoch: int) -> int | None:
        return self.claimed_epoch_start_offsets.get(epoch)

    def current_leader_and_epoch(self) -> LeaderAndEpoch:
        return self._current_leader_and_epoch

    def committed_batches(self) -> list[Any]:
        return self.commits

    def last_commit(self) -> Any:
        return self.commits[-1] if self.commits else None

    def last_commit_offset(self) -> int | None:
        return self.commits[-1].last_offset if self.commits else None

    def last_committed_voter_set(self) -> VoterSet | None:
        """The voter set of the last VotersRecord committed to this listener."""
        voters_records = [control_record.message for batch in self.commits
                          for control_record in getattr(batch, "control_records", ())
                          if control_record.type is ControlRecordType.KRAFT_VOTERS]
        return VoterSet.from_voters_record(voters_records[-1]) if voters_records else None

    def current_claimed_epoch(self) -> int | None:
        if self.local_id is not None and self._current_leader_and_epoch.is_leader(self.local_id):
            return self._current_leader_and_epoch.epoch
        return None

    def commit_with_last_offset(self, last_offset: int) -> list[str] | None:
        for batch in self.commits:
            if batch.last_offset == last_offset:
                return list(batch.records)
        return None

    def drain_handled_snapshot(self) -> Any:
        snapshot, self.snapshot = self.snapshot, None
        return snapshot

    def update_read_commit(self, read_commit: bool) -> None:
        self.read_commit = read_commit
        if read_commit:
            for batch in self.saved_batches:
                self.read_batch(batch)
            self.saved_batches.clear()

    def read_batch(self, reader: Any) -> None:
        try:
            for batch in reader:
                last = self.last_commit_offset()
                next_offset = last + 1 if last is not None else 0
                # monotonic offsets, not necessarily sequential: control records are filtered
                assert batch.base_offset >= next_offset, \
                    f"Received non-monotonic commit {batch}. We expected an offset at least as large as {next_offset}"
                self.commits.append(batch)
        finally:
            reader.close()

    def handle_leader_change(self, leader: LeaderAndEpoch) -> None:
        assert leader.epoch >= self._current_leader_and_epoch.epoch, \
            f"new epoch ({leader.epoch}) not >= than old epoch ({self._current_leader_and_epoch.epoch})"
        assert leader != self._current_leader_and_epoch
        self._current_leader_and_epoch = leader
        if self.current_claimed_epoch() is not None:
            last = self.last_commit_offset()
            self.claimed_epoch_start_offsets[leader.epoch] = last if last is not None else 0

    def handle_commit(self, reader: Any) -> None:
        if self.read_commit:
            self.read_batch(reader)
        else:
            self.saved_batches.append(reader)

    def handle_load_snapshot(self, reader: Any) -> None:
        if self.snapshot is not None:
            self.snapshot.close()
        self.commits.clear()
        self.saved_batches.clear()
        self.snapshot = reader
