"""Port of raft/src/main/java/org/apache/kafka/raft/KafkaRaftClient.java (Kafka 3.9).

Leader election is Raft's; replication is Kafka's: followers pull with Fetch, and a follower whose log diverged
from the leader's is told where to truncate in the Fetch response. The RPCs:

- Vote: a candidate asks each voter for its vote in a new epoch, with the end of its log (last epoch, offset);
- BeginQuorumEpoch: the new leader tells the voters it leads the epoch (they would otherwise only learn it from a
  Fetch to the right node), again every fetch.timeout / 2;
- EndQuorumEpoch: a leader that resigns asks the voters to elect a successor now, naming the most caught up first;
- Fetch: followers (and observers) read the leader's log; the leader counts their offsets for the high watermark;
- FetchSnapshot: a follower behind the leader's log start fetches its latest snapshot.

KIP-853 (kraft.version 1): the voters are not configured but read from the log. KRaftControlRecordStateMachine
(`partition_state`) follows the KRaftVersionRecords and VotersRecords of the latest snapshot and of the log, and
every decision that needs the voters reads its latest voter set; a voter set takes effect when it is appended, not
when it commits. The leader changes it with

- AddRaftVoter: after asking the new voter its kraft.version range with ApiVersions (AddVoterHandler);
- RemoveRaftVoter (RemoveVoterHandler);
- UpdateRaftVoter: a voter whose listeners or kraft.version range changed sends it to the leader (UpdateVoterHandler).

With static voters (controller.quorum.voters, kraft.version 0) the voter set is the configured one and never changes.

Everything runs on one thread, the KafkaRaftClientDriver's, in `poll`; other threads only queue requests, appends and
listener registrations and wake it up. Left out of 3.9: the metrics and the memory pool.
"""

from __future__ import annotations

import logging
import random as _random
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any, Generic, TypeVar

from kafka_edu.tracing.step import span, step
from kafka_edu.v1_0_2.clients.common.errors import (
    ClusterAuthorizationException,
    KafkaException,
    NotLeaderForPartitionException,
    TimeoutException,
)
from kafka_edu.v1_0_2.clients.common.record.compression_type import CompressionType
from kafka_edu.v3_9.clients.common.feature.supported_version_range import SupportedVersionRange
from kafka_edu.v3_9.clients.common.protocol.api_keys import ApiKeys
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from kafka_edu.v3_9.clients.common.utils.time import SYSTEM as SYSTEM_TIME
from kafka_edu.v3_9.clients.common.utils.time import Time
from kafka_edu.v3_9.clients.common.utils.timer import LONG_MAX, Timer
from kafka_edu.v3_9.clients.common.uuid import ZERO_UUID
from kafka_edu.v3_9.raft.raft import raft_util
from kafka_edu.v3_9.raft.raft.batch import Batch
from kafka_edu.v3_9.raft.raft.batch_reader import BatchReader, CloseListener
from kafka_edu.v3_9.raft.raft.candidate_state import CandidateState
from kafka_edu.v3_9.raft.raft.endpoints import Endpoints
from kafka_edu.v3_9.raft.raft.errors import NotLeaderException
from kafka_edu.v3_9.raft.raft.expiration_service import ExpirationService
from kafka_edu.v3_9.raft.raft.follower_state import FollowerState
from kafka_edu.v3_9.raft.raft.internals.add_voter_handler import AddVoterHandler
from kafka_edu.v3_9.raft.raft.internals.batch_accumulator import BatchAccumulator, CompletedBatch
from kafka_edu.v3_9.raft.raft.internals.blocking_message_queue import BlockingMessageQueue
from kafka_edu.v3_9.raft.raft.internals.completable_future import CompletableFuture
from kafka_edu.v3_9.raft.raft.internals.default_request_sender import DefaultRequestSender
from kafka_edu.v3_9.raft.raft.internals.k_raft_control_record_state_machine import KRaftControlRecordStateMachine
from kafka_edu.v3_9.raft.raft.internals.memory_batch_reader import MemoryBatchReader
from kafka_edu.v3_9.raft.raft.internals.records_batch_reader import RecordsBatchReader
from kafka_edu.v3_9.raft.raft.internals.remove_voter_handler import RemoveVoterHandler
from kafka_edu.v3_9.raft.raft.internals.threshold_purgatory import ThresholdPurgatory
from kafka_edu.v3_9.raft.raft.internals.update_voter_handler import UpdateVoterHandler
from kafka_edu.v3_9.raft.raft.isolation import Isolation
from kafka_edu.v3_9.raft.raft.leader_and_epoch import LeaderAndEpoch
from kafka_edu.v3_9.raft.raft.leader_state import LeaderState
from kafka_edu.v3_9.raft.raft.log_fetch_info import LogAppendInfo
from kafka_edu.v3_9.raft.raft.log_offset_metadata import LogOffsetMetadata
from kafka_edu.v3_9.raft.raft.network_channel import NetworkChannel
from kafka_edu.v3_9.raft.raft.offset_and_epoch import OffsetAndEpoch
from kafka_edu.v3_9.raft.raft.quorum_state import QuorumState
from kafka_edu.v3_9.raft.raft.quorum_state_store import QuorumStateStore
from kafka_edu.v3_9.raft.raft.raft_client import RaftClient
from kafka_edu.v3_9.raft.raft.raft_message import (
    InboundRequest,
    InboundResponse,
    OutboundRequest,
    OutboundResponse,
    RaftMessage,
)
from kafka_edu.v3_9.raft.raft.raft_message_queue import RaftMessageQueue
from kafka_edu.v3_9.raft.raft.replica_key import ReplicaKey
from kafka_edu.v3_9.raft.raft.replicated_log import ReplicatedLog
from kafka_edu.v3_9.raft.raft.request_manager import RequestManager
from kafka_edu.v3_9.raft.raft.resigned_state import ResignedState
from kafka_edu.v3_9.raft.raft.unattached_state import UnattachedState
from kafka_edu.v3_9.raft.raft.valid_offset_and_epoch import Kind, ValidOffsetAndEpoch
from kafka_edu.v3_9.raft.raft.voter_set import Node, VoterSet
from kafka_edu.v3_9.raft.snapshot.notifying_raw_snapshot_writer import NotifyingRawSnapshotWriter
from kafka_edu.v3_9.raft.snapshot.records_snapshot_reader import RecordsSnapshotReader
from kafka_edu.v3_9.raft.snapshot.records_snapshot_writer import RecordsSnapshotWriter
from kafka_edu.v3_9.server_common.server.common.k_raft_version import FEATURE_NAME, KRaftVersion

log = logging.getLogger("org.apache.kafka.raft.KafkaRaftClient")

T = TypeVar("T")

RETRY_BACKOFF_BASE_MS = 100
MAX_NUMBER_OF_BATCHES = 10
MAX_FETCH_WAIT_MS = 500
MAX_BATCH_SIZE_BYTES = 8 * 1024 * 1024
MAX_FETCH_SIZE_BYTES = MAX_BATCH_SIZE_BYTES


def _system_time_ms() -> int:
    return time.time_ns() // 1_000_000


class KafkaRaftClient(RaftClient[T], Generic[T]):
    def __init__(self, node_id: int | None, serde: Any, channel: NetworkChannel, log_: ReplicatedLog,
                 expiration_service: ExpirationService, cluster_id: str, local_listeners: Endpoints,
                 quorum_config: Any, message_queue: RaftMessageQueue | None = None,
                 time_ms: Callable[[], int] = _system_time_ms, fetch_max_wait_ms: int = MAX_FETCH_WAIT_MS,
                 followers_always_flush: bool = False, random: _random.Random | None = None,
                 node_directory_id: Any = None, time: Time | None = None,
                 bootstrap_servers: list[tuple[str, int]] | None = None,
                 local_supported_kraft_version: SupportedVersionRange | None = None) -> None:
        """`quorum_config` is a QuorumConfig (its election/fetch/request timeouts, backoffs and linger).

        `time` is Kafka's Time (a MockTime in tests): when given, every clock reading of the client and of what it
        hands the clock to (QuorumState and its states, the accumulator, the snapshot writer) is its `milliseconds`;
        without it, `time_ms` (the system clock by default).

        `bootstrap_servers` (controller.quorum.bootstrap.servers, (host, port) each): where an observer looks for the
        leader, as nodes -2, -3, ...; without them, the static voters are.

        Static voters carry no directory id: `node_directory_id` stays None and the requests send none.

        `local_supported_kraft_version`: the kraft.versions this replica can run (Kafka's
        Features.KRAFT_VERSION.supportedVersionRange(), 0 to 1).
        """
        if node_directory_id is not None and node_directory_id == ZERO_UUID:
            raise ValueError("The node directory id must be set and not be the zero uuid")
        self._node_id = node_id
        self._node_directory_id = node_directory_id
        self.serde = serde
        self.channel = channel
        self.message_queue = message_queue if message_queue is not None else BlockingMessageQueue()
        self.log = log_
        self.fetch_purgatory = ThresholdPurgatory(expiration_service)
        self.append_purgatory = ThresholdPurgatory(expiration_service)
        self.time: Time = time if time is not None else SYSTEM_TIME
        if time is not None:
            time_ms = time.milliseconds
        self.time_ms = time_ms
        self.cluster_id = cluster_id
        self.local_listeners = local_listeners
        self.fetch_max_wait_ms = fetch_max_wait_ms
        self.followers_always_flush = followers_always_flush
        self.random = random if random is not None else _random.Random()
        self.quorum_config = quorum_config
        self.local_supported_kraft_version = (local_supported_kraft_version if local_supported_kraft_version
                                              is not None else SupportedVersionRange(0, 1))
        self.snapshot_cleaner = _RaftMetadataLogCleanerManager(time_ms, 60_000, log_.maybe_clean)
        self._shutdown: _GracefulShutdown | None = None
        self.listener_contexts: dict[int, ListenerContext] = {}  # by id(listener): Java's IdentityHashMap
        self._pending_registrations: list[_Registration] = []
        self._registrations_lock = threading.Lock()
        # set by initialize(): they depend on the voter set
        # the kraft.version and voter sets of the log and latest snapshot; updated on every change to the log
        self.partition_state: KRaftControlRecordStateMachine | None = None
        self.quorum: QuorumState | None = None
        self.request_manager: RequestManager | None = None
        self._bootstrap_nodes: list[Node] | None = None
        if bootstrap_servers:
            # Node objects for the addresses, with decreasing negative ids
            self._bootstrap_nodes = [Node(-2 - i, host, port) for i, (host, port) in enumerate(bootstrap_servers)]
        # the handlers of the voter changes (KIP-853), built by initialize()
        self.add_voter_handler: AddVoterHandler | None = None
        self.remove_voter_handler: RemoveVoterHandler | None = None
        self.update_voter_handler: UpdateVoterHandler | None = None

    @property
    def voters(self) -> VoterSet | None:
        """The latest voter set (partitionState.lastVoterSet()); None before initialize()."""
        partition_state = self.partition_state
        return partition_state.last_voter_set() if partition_state is not None else None

    def _update_follower_high_watermark(self, state: FollowerState, high_watermark: int | None) -> None:
        if high_watermark is None:
            return
        # the leader's high watermark, but never past what we have
        new_high_watermark = min(self._end_offset().offset, high_watermark)
        if state.update_high_watermark(new_high_watermark):
            log.debug("Follower high watermark updated to %d", new_high_watermark)
            self.log.update_high_watermark(LogOffsetMetadata(new_high_watermark))
            self._update_listeners_progress(new_high_watermark)

    def _update_leader_end_offset_and_timestamp(self, state: LeaderState, current_time_ms: int) -> None:
        end_offset_metadata = self.log.end_offset()
        if state.update_local_state(end_offset_metadata, self.voters):
            self._on_update_leader_high_watermark(state, current_time_ms)
        self.fetch_purgatory.maybe_complete(end_offset_metadata.offset, current_time_ms)

    def _on_update_leader_high_watermark(self, state: LeaderState, current_time_ms: int) -> None:
        high_watermark = state.high_watermark()
        if high_watermark is None:
            return
        log.debug("Leader high watermark updated to %s", high_watermark)
        self.log.update_high_watermark(high_watermark)
        # a committed VotersRecord completes the AddRaftVoter or RemoveRaftVoter waiting for it
        self.add_voter_handler.high_watermark_updated(state)
        self.remove_voter_handler.high_watermark_updated(state)
        # complete the appends first: their records, still in memory, go to the listeners without a read
        self.append_purgatory.maybe_complete(high_watermark.offset, current_time_ms)
        # and listeners behind (a new leader's, right after the election) catch up from the log
        self._update_listeners_progress(high_watermark.offset)

    def _update_listeners_progress(self, high_watermark: int) -> None:
        for listener_context in list(self.listener_contexts.values()):
            next_expected_offset = listener_context.next_expected_offset()
            if next_expected_offset is not None:
                latest_snapshot = self._latest_snapshot()
                if (next_expected_offset < high_watermark
                        and (next_expected_offset == ListenerContext.STARTING_NEXT_OFFSET
                             or next_expected_offset < self.log.start_offset())
                        and latest_snapshot is not None):
                    listener_context.fire_handle_snapshot(latest_snapshot)
                elif next_expected_offset == ListenerContext.STARTING_NEXT_OFFSET:
                    log.info("Setting the next offset of %s to %d since there are no snapshots",
                             listener_context.listener_name(), ListenerContext.SMALLEST_LOG_OFFSET)
                    listener_context.reset_offset_to_smallest_log_offset()
                elif next_expected_offset < self.log.start_offset():
                    raise RuntimeError(f"Snapshot expected since next offset of {listener_context.listener_name()} "
                                       f"is {next_expected_offset}, log start offset is {self.log.start_offset()} "
                                       f"and high-watermark is {high_watermark}")
            # read again: a snapshot load moves it
            next_expected_offset = listener_context.next_expected_offset()
            if next_expected_offset is not None and next_expected_offset < high_watermark:
                read_info = self.log.read(next_expected_offset, Isolation.COMMITTED)
                listener_context.fire_handle_commit_from_log(next_expected_offset, read_info.records)

    def _latest_snapshot(self) -> Any:
        """The latest snapshot as a SnapshotReader of records (CRCs checked), if there is one."""
        reader = self.log.latest_snapshot()
        if reader is None:
            return None
        return RecordsSnapshotReader.of(reader, self.serde, MAX_BATCH_SIZE_BYTES, True)

    def _maybe_fire_handle_commit(self, base_offset: int, epoch: int, append_timestamp: int, size_in_bytes: int,
                                  records: list[T]) -> None:
        for listener_context in list(self.listener_contexts.values()):
            if listener_context.next_expected_offset() == base_offset:
                listener_context.fire_handle_commit(base_offset, epoch, append_timestamp, size_in_bytes, records)

    def _maybe_fire_leader_change(self, state: LeaderState | None = None) -> None:
        for listener_context in list(self.listener_contexts.values()):
            if state is not None:
                listener_context.maybe_fire_leader_change_as_leader(self.quorum.leader_and_epoch(),
                                                                    state.epoch_start_offset())
            else:
                listener_context.maybe_fire_leader_change(self.quorum.leader_and_epoch())

    @step("KV.init")
    def initialize(self, voter_addresses: dict[int, tuple[str, int]], quorum_state_store: QuorumStateStore,
                   metrics: Any = None) -> None:
        """Read the snapshot, the log and `quorum-state`, and start in the role they say; a single voter elects
        itself."""
        static_voters = (VoterSet.from_inet_socket_addresses(self.channel.listener_name(), voter_addresses)
                         if voter_addresses else VoterSet.empty())
        self.partition_state = KRaftControlRecordStateMachine(static_voters, self.log, self.serde, None,
                                                              MAX_BATCH_SIZE_BYTES)
        log.info("Reading KRaft snapshot and log as part of the initialization")
        self.partition_state.update_state()
        log.info("Starting voters are %s", self.voters)
        if self._bootstrap_nodes is not None:
            bootstrap_nodes = self._bootstrap_nodes
            log.info("Starting request manager with bootstrap servers: %s", [str(n) for n in bootstrap_nodes])
        else:
            if not voter_addresses:
                raise KafkaException("Missing kraft bootstrap servers. Must specify a value for "
                                     "controller.quorum.voters.")
            bootstrap_nodes = [Node(voter_id, host, port) for voter_id, (host, port) in voter_addresses.items()]
            log.info("Starting request manager with static voters: %s", [str(n) for n in bootstrap_nodes])
        self.request_manager = RequestManager(bootstrap_nodes, self.quorum_config.retry_backoff_ms(),
                                              self.quorum_config.request_timeout_ms(), self.random)
        self.quorum = QuorumState(self._node_id, self._node_directory_id, self.partition_state, self.local_listeners,
                                  self.quorum_config.election_timeout_ms(), self.quorum_config.fetch_timeout_ms(),
                                  quorum_state_store, self.time_ms, self.random,
                                  local_supported_kraft_version=self.local_supported_kraft_version)
        self.quorum.initialize(OffsetAndEpoch(self.log.end_offset().offset, self.log.last_fetched_epoch()))
        current_time_ms = self.time_ms()
        if self.quorum.is_leader():
            raise RuntimeError("Voter cannot initialize as a Leader")
        if self.quorum.is_candidate():
            self._on_become_candidate(current_time_ms)
        elif self.quorum.is_follower():
            self._on_become_follower(current_time_ms)
        # a quorum of one has no one to ask: it elects itself at once
        if self.quorum.is_only_voter() and not self.quorum.is_candidate():
            self._transition_to_candidate(current_time_ms)
        self.add_voter_handler = AddVoterHandler(
            self.partition_state, DefaultRequestSender(self.request_manager, self.channel, self.message_queue),
            self.time_ms)
        self.remove_voter_handler = RemoveVoterHandler(self._node_id, self._node_directory_id, self.partition_state,
                                                       self.time_ms, self.quorum_config.request_timeout_ms())
        self.update_voter_handler = UpdateVoterHandler(self._node_id, self.partition_state,
                                                       self.channel.listener_name(), self.time_ms,
                                                       self.quorum_config.request_timeout_ms())

    def register(self, listener: RaftClient.Listener[T]) -> None:
        with self._registrations_lock:
            self._pending_registrations.append(_Registration(_Ops.REGISTER, listener))
        self._wakeup()

    def unregister(self, listener: RaftClient.Listener[T]) -> None:
        # no wakeup: a removal can wait for the next poll
        with self._registrations_lock:
            self._pending_registrations.append(_Registration(_Ops.UNREGISTER, listener))

    def leader_and_epoch(self) -> LeaderAndEpoch:
        if self._is_initialized():
            return self.quorum.leader_and_epoch()
        return LeaderAndEpoch.UNKNOWN

    def node_id(self) -> int | None:
        return self._node_id

    def _end_offset(self) -> OffsetAndEpoch:
        return OffsetAndEpoch(self.log.end_offset().offset, self.log.last_fetched_epoch())

    def _reset_connections(self) -> None:
        self.request_manager.reset_all()

    def _on_become_leader(self, current_time_ms: int) -> None:
        end_offset = self.log.end_offset().offset
        accumulator: BatchAccumulator[T] = BatchAccumulator(
            self.quorum.epoch(), end_offset, self.quorum_config.append_linger_ms(), MAX_BATCH_SIZE_BYTES,
            MAX_NUMBER_OF_BATCHES, self.time_ms, CompressionType.NONE, self.serde)
        state = self.quorum.transition_to_leader(end_offset, accumulator)
        self.log.initialize_leader_epoch(self.quorum.epoch())
        # the high watermark can only pass this epoch's start once a record of the epoch is committed: write one now
        state.append_start_of_epoch_control_records(self.quorum.local_voter_node_or_throw(), current_time_ms)
        self._reset_connections()

    def _flush_leader_log(self, state: LeaderState, current_time_ms: int) -> None:
        # the end offset moves before the flush so that parked fetches can return sooner
        self._update_leader_end_offset_and_timestamp(state, current_time_ms)
        self.log.flush(False)

    def _maybe_transition_to_leader(self, state: CandidateState, current_time_ms: int) -> bool:
        if state.is_vote_granted():
            self._on_become_leader(current_time_ms)
            return True
        return False

    def _on_become_candidate(self, current_time_ms: int) -> None:
        state = self.quorum.candidate_state_or_throw()
        if not self._maybe_transition_to_leader(state, current_time_ms):
            self._reset_connections()

    def _transition_to_candidate(self, current_time_ms: int) -> None:
        self.quorum.transition_to_candidate()
        self._maybe_fire_leader_change()
        self._on_become_candidate(current_time_ms)

    def _transition_to_unattached(self, epoch: int) -> None:
        self.quorum.transition_to_unattached(epoch)
        self._maybe_fire_leader_change()
        self._reset_connections()

    def _transition_to_resigned(self, preferred_successors: list[ReplicaKey]) -> None:
        self.fetch_purgatory.complete_all_exceptionally(
            _error_exception(Errors.NOT_LEADER_OR_FOLLOWER, "Not handling request since this node is resigning"))
        self.quorum.transition_to_resigned(preferred_successors)
        self._reset_connections()

    def _transition_to_unattached_voted(self, candidate_key: ReplicaKey, epoch: int) -> None:
        self.quorum.transition_to_unattached_voted_state(epoch, candidate_key)

    def _on_become_follower(self, current_time_ms: int) -> None:
        self._reset_connections()
        # parked fetches answer now, so their senders retry against the new leader
        self.fetch_purgatory.complete_all_exceptionally(_error_exception(
            Errors.NOT_LEADER_OR_FOLLOWER, "Cannot process the fetch request because the node is no longer the "
                                           "leader."))
        # appends waiting for a commit will not get one from this node
        self.append_purgatory.complete_all_exceptionally(_error_exception(
            Errors.NOT_LEADER_OR_FOLLOWER, "Failed to receive sufficient acknowledgments for this append before "
                                           "leader change."))

    def _transition_to_follower(self, epoch: int, leader_id: int, endpoints: Endpoints, current_time_ms: int) -> None:
        if endpoints.is_empty():
            raise ValueError(f"Unknown leader endpoints ({endpoints}) after request or response with leader "
                             f"({leader_id}) and the voters {self.voters}")
        self.quorum.transition_to_follower(epoch, leader_id, endpoints)
        self._maybe_fire_leader_change()
        self._on_become_follower(current_time_ms)

    def _build_vote_response(self, listener_name: str, api_version: int, partition_level_error: Errors,
                             vote_granted: bool) -> Any:
        return raft_util.singleton_vote_response(listener_name, api_version, Errors.NONE, self.log.topic_partition(),
                                                 partition_level_error, self.quorum.epoch(),
                                                 self.quorum.leader_id_or_sentinel(), vote_granted,
                                                 self.quorum.leader_endpoints())

    @step("KR.vote")
    def handle_vote_request(self, request_metadata: InboundRequest) -> Any:
        """Vote: INCONSISTENT_CLUSTER_ID, INVALID_REQUEST (a bad partition, epoch or offset), FENCED_LEADER_EPOCH
        (a stale epoch), INVALID_VOTER_KEY (meant for another replica); else granted or not."""
        request = request_metadata.data
        if not self._has_valid_cluster_id(request.cluster_id):
            return raft_util.error_response(ApiKeys.VOTE, Errors.INCONSISTENT_CLUSTER_ID, request_metadata.api_version)
        if not raft_util.has_valid_topic_partition(request, self.log.topic_partition()):
            # one topic partition only (no multi-raft yet): anything else is an invalid request
            return raft_util.error_response(ApiKeys.VOTE, Errors.INVALID_REQUEST, request_metadata.api_version)
        partition_request = request.topics[0].partitions[0]
        candidate_id = int(partition_request.candidate_id)
        candidate_epoch = int(partition_request.candidate_epoch)
        last_epoch = int(partition_request.last_offset_epoch)
        last_epoch_end_offset = int(partition_request.last_offset)
        if last_epoch_end_offset < 0 or last_epoch < 0 or last_epoch >= candidate_epoch:
            return self._build_vote_response(request_metadata.listener_name, request_metadata.api_version,
                                             Errors.INVALID_REQUEST, False)
        error = self._validate_voter_only_request(candidate_id, candidate_epoch)
        if error is not None:
            return self._build_vote_response(request_metadata.listener_name, request_metadata.api_version, error,
                                             False)
        if candidate_epoch > self.quorum.epoch():
            # a higher epoch: whatever we were in ours (even a healthy leader), it is over
            self._transition_to_unattached(candidate_epoch)
        voter_key = _vote_request_voter_key(request, partition_request)
        if not self._is_valid_voter_key(voter_key):
            log.info("A replica sent a voter key (%s) in the VOTE request that doesn't match the local key (%s, %s); "
                     "rejecting the vote", voter_key, self._node_id, self._node_directory_id)
            return self._build_vote_response(request_metadata.listener_name, request_metadata.api_version,
                                             Errors.INVALID_VOTER_KEY, False)
        last_epoch_end_offset_and_epoch = OffsetAndEpoch(last_epoch_end_offset, last_epoch)
        candidate_key = ReplicaKey.of(candidate_id, getattr(partition_request, "candidate_directory_id", None))
        vote_granted = self.quorum.can_grant_vote(
            candidate_key, last_epoch_end_offset_and_epoch.compare_to(self._end_offset()) >= 0)
        if vote_granted and self.quorum.is_unattached_not_voted():
            self._transition_to_unattached_voted(candidate_key, candidate_epoch)
        log.info("Vote request %s with epoch %d is %s", request, candidate_epoch,
                 "granted" if vote_granted else "rejected")
        return self._build_vote_response(request_metadata.listener_name, request_metadata.api_version, Errors.NONE,
                                         vote_granted)

    @span("KafkaRaftClient.handleVoteResponse")
    def handle_vote_response(self, response_metadata: InboundResponse, current_time_ms: int) -> bool:
        remote_node_id = response_metadata.source.id
        response = response_metadata.data
        top_level_error = Errors.for_code(response.error_code)
        if top_level_error is not Errors.NONE:
            return self._handle_top_level_error(top_level_error, response_metadata)
        if not raft_util.has_valid_topic_partition(response, self.log.topic_partition()):
            return False
        partition_response = response.topics[0].partitions[0]
        error = Errors.for_code(partition_response.error_code)
        response_leader_id = _optional_leader_id(partition_response.leader_id)
        response_epoch = int(partition_response.leader_epoch)
        leader_endpoints = self._response_leader_endpoints(response_leader_id, response)
        handled = self._maybe_handle_common_response(error, response_leader_id, response_epoch, leader_endpoints,
                                                     response_metadata.source, current_time_ms)
        if handled is not None:
            return handled
        if error is Errors.NONE:
            if self.quorum.is_leader():
                log.debug("Ignoring vote response %s since we already became leader for epoch %d",
                          partition_response, self.quorum.epoch())
            elif self.quorum.is_candidate():
                state = self.quorum.candidate_state_or_throw()
                if partition_response.vote_granted:
                    state.record_granted_vote(remote_node_id)
                    self._maybe_transition_to_leader(state, current_time_ms)
                else:
                    state.record_rejected_vote(remote_node_id)
                    # a majority is out of reach: back off now rather than wait for the election timeout
                    if state.is_vote_rejected() and not state.is_backing_off():
                        log.info("Insufficient remaining votes to become leader (rejected by %s). We will backoff "
                                 "before retrying election again", sorted(state.rejecting_voters()))
                        state.start_backing_off(current_time_ms,
                                                self._binary_exponential_election_backoff_ms(state.retries()))
            else:
                log.debug("Ignoring vote response %s since we are no longer a candidate in epoch %d",
                          partition_response, self.quorum.epoch())
            return True
        return self._handle_unexpected_error(error, response_metadata)

    def _binary_exponential_election_backoff_ms(self, retries: int) -> int:
        if retries <= 0:
            raise ValueError(f"Retries {retries} should be larger than zero")
        # 100 ms x random(2^retries), capped at the configured maximum
        return min(RETRY_BACKOFF_BASE_MS * self.random.randrange(2 << min(20, retries - 1)),
                   self.quorum_config.election_backoff_max_ms())

    def _strict_exponential_election_backoff_ms(self, position_in_successors: int, total_num_successors: int) -> int:
        if position_in_successors == 0:
            return 0
        if position_in_successors < 0 or position_in_successors >= total_num_successors:
            return self.quorum_config.election_backoff_max_ms()
        retry_backoff_base_ms = self.quorum_config.election_backoff_max_ms() >> (total_num_successors - 1)
        return min(self.quorum_config.election_backoff_max_ms(), retry_backoff_base_ms << (position_in_successors - 1))

    def _build_begin_quorum_epoch_response(self, listener_name: str, api_version: int,
                                           partition_level_error: Errors) -> Any:
        return raft_util.singleton_begin_quorum_epoch_response(
            listener_name, api_version, Errors.NONE, self.log.topic_partition(), partition_level_error,
            self.quorum.epoch(), self.quorum.leader_id_or_sentinel(), self.quorum.leader_endpoints())

    @step("KR.begin")
    def handle_begin_quorum_epoch_request(self, request_metadata: InboundRequest, current_time_ms: int) -> Any:
        """BeginQuorumEpoch: INCONSISTENT_CLUSTER_ID, INVALID_REQUEST, FENCED_LEADER_EPOCH, INVALID_VOTER_KEY."""
        request = request_metadata.data
        if not self._has_valid_cluster_id(request.cluster_id):
            return raft_util.error_response(ApiKeys.BEGIN_QUORUM_EPOCH, Errors.INCONSISTENT_CLUSTER_ID,
                                            request_metadata.api_version)
        if not raft_util.has_valid_topic_partition(request, self.log.topic_partition()):
            return raft_util.error_response(ApiKeys.BEGIN_QUORUM_EPOCH, Errors.INVALID_REQUEST,
                                            request_metadata.api_version)
        partition_request = request.topics[0].partitions[0]
        request_leader_id = int(partition_request.leader_id)
        request_epoch = int(partition_request.leader_epoch)
        error = self._validate_voter_only_request(request_leader_id, request_epoch)
        if error is not None:
            return self._build_begin_quorum_epoch_response(request_metadata.listener_name,
                                                           request_metadata.api_version, error)
        leader_endpoints_data = getattr(request, "leader_endpoints", ())
        leader_endpoints = (self.voters.listeners(request_leader_id) if not leader_endpoints_data
                            else Endpoints.from_leader_endpoints(leader_endpoints_data))
        self._maybe_transition(request_leader_id, request_epoch, leader_endpoints, current_time_ms)
        voter_key = _begin_quorum_epoch_request_voter_key(request, partition_request)
        if not self._is_valid_voter_key(voter_key):
            log.info("Leader sent a voter key (%s) in the BEGIN_QUORUM_EPOCH request that doesn't match the local key "
                     "(%s, %s); returning INVALID_VOTER_KEY", voter_key, self._node_id, self._node_directory_id)
            return self._build_begin_quorum_epoch_response(request_metadata.listener_name,
                                                           request_metadata.api_version, Errors.INVALID_VOTER_KEY)
        return self._build_begin_quorum_epoch_response(request_metadata.listener_name, request_metadata.api_version,
                                                       Errors.NONE)

    def _handle_begin_quorum_epoch_response(self, response_metadata: InboundResponse, current_time_ms: int) -> bool:
        remote_node_id = response_metadata.source.id
        response = response_metadata.data
        top_level_error = Errors.for_code(response.error_code)
        if top_level_error is not Errors.NONE:
            return self._handle_top_level_error(top_level_error, response_metadata)
        if not raft_util.has_valid_topic_partition(response, self.log.topic_partition()):
            return False
        partition_response = response.topics[0].partitions[0]
        partition_error = Errors.for_code(partition_response.error_code)
        response_leader_id = _optional_leader_id(partition_response.leader_id)
        response_epoch = int(partition_response.leader_epoch)
        leader_endpoints = self._response_leader_endpoints(response_leader_id, response)
        handled = self._maybe_handle_common_response(partition_error, response_leader_id, response_epoch,
                                                     leader_endpoints, response_metadata.source, current_time_ms)
        if handled is not None:
            return handled
        if partition_error is Errors.NONE:
            if self.quorum.is_leader():
                self.quorum.leader_state_or_throw().add_acknowledgement_from(remote_node_id)
            else:
                log.debug("Ignoring BeginQuorumEpoch response %s since this node is not the leader anymore",
                          response)
            return True
        return self._handle_unexpected_error(partition_error, response_metadata)

    def _build_end_quorum_epoch_response(self, listener_name: str, api_version: int,
                                         partition_level_error: Errors) -> Any:
        return raft_util.singleton_end_quorum_epoch_response(
            listener_name, api_version, Errors.NONE, self.log.topic_partition(), partition_level_error,
            self.quorum.epoch(), self.quorum.leader_id_or_sentinel(), self.quorum.leader_endpoints())

    @step("KR.end")
    def handle_end_quorum_epoch_request(self, request_metadata: InboundRequest, current_time_ms: int) -> Any:
        """EndQuorumEpoch: INCONSISTENT_CLUSTER_ID, INVALID_REQUEST, FENCED_LEADER_EPOCH. A follower of the
        resigning leader shortens its fetch timeout by its place among the preferred successors."""
        request = request_metadata.data
        if not self._has_valid_cluster_id(request.cluster_id):
            return raft_util.error_response(ApiKeys.END_QUORUM_EPOCH, Errors.INCONSISTENT_CLUSTER_ID,
                                            request_metadata.api_version)
        if not raft_util.has_valid_topic_partition(request, self.log.topic_partition()):
            return raft_util.error_response(ApiKeys.END_QUORUM_EPOCH, Errors.INVALID_REQUEST,
                                            request_metadata.api_version)
        partition_request = request.topics[0].partitions[0]
        request_epoch = int(partition_request.leader_epoch)
        request_leader_id = int(partition_request.leader_id)
        error = self._validate_voter_only_request(request_leader_id, request_epoch)
        if error is not None:
            return self._build_end_quorum_epoch_response(request_metadata.listener_name,
                                                         request_metadata.api_version, error)
        leader_endpoints_data = getattr(request, "leader_endpoints", ())
        leader_endpoints = (self.voters.listeners(request_leader_id) if not leader_endpoints_data
                            else Endpoints.from_leader_endpoints(leader_endpoints_data))
        self._maybe_transition(request_leader_id, request_epoch, leader_endpoints, current_time_ms)
        if self.quorum.is_follower():
            state = self.quorum.follower_state_or_throw()
            if state.leader_id() == request_leader_id:
                preferred_candidates = raft_util.preferred_candidates(partition_request)
                election_backoff_ms = self._end_epoch_election_backoff(preferred_candidates)
                log.debug("Overriding follower fetch timeout to %d after receiving EndQuorumEpoch request from "
                          "leader %d in epoch %d", election_backoff_ms, request_leader_id, request_epoch)
                state.override_fetch_timeout(current_time_ms, election_backoff_ms)
        return self._build_end_quorum_epoch_response(request_metadata.listener_name, request_metadata.api_version,
                                                     Errors.NONE)

    def _end_epoch_election_backoff(self, preferred_candidates: list[ReplicaKey]) -> int:
        # the most caught up successor goes first (0 ms); the others wait exponentially longer by their place
        position = 0
        for candidate in preferred_candidates:
            if candidate.id == self.quorum.local_id_or_throw() and (
                    candidate.directory_id is None or candidate.directory_id == self.quorum.local_directory_id()):
                break
            position += 1
        return self._strict_exponential_election_backoff_ms(position, len(preferred_candidates))

    def _handle_end_quorum_epoch_response(self, response_metadata: InboundResponse, current_time_ms: int) -> bool:
        response = response_metadata.data
        top_level_error = Errors.for_code(response.error_code)
        if top_level_error is not Errors.NONE:
            return self._handle_top_level_error(top_level_error, response_metadata)
        if not raft_util.has_valid_topic_partition(response, self.log.topic_partition()):
            return False
        partition_response = response.topics[0].partitions[0]
        partition_error = Errors.for_code(partition_response.error_code)
        response_leader_id = _optional_leader_id(partition_response.leader_id)
        response_epoch = int(partition_response.leader_epoch)
        leader_endpoints = self._response_leader_endpoints(response_leader_id, response)
        handled = self._maybe_handle_common_response(partition_error, response_leader_id, response_epoch,
                                                     leader_endpoints, response_metadata.source, current_time_ms)
        if handled is not None:
            return handled
        if partition_error is Errors.NONE:
            self.quorum.resigned_state_or_throw().acknowledge_resignation(response_metadata.source.id)
            return True
        return self._handle_unexpected_error(partition_error, response_metadata)

    def _build_fetch_response(self, listener_name: str, api_version: int, error: Errors, records: bytes,
                              valid_offset_and_epoch: ValidOffsetAndEpoch,
                              high_watermark: LogOffsetMetadata | None) -> Any:
        diverging = valid_offset_and_epoch.offset_and_epoch if valid_offset_and_epoch.kind is Kind.DIVERGING else None
        snapshot = valid_offset_and_epoch.offset_and_epoch if valid_offset_and_epoch.kind is Kind.SNAPSHOT else None
        return raft_util.singleton_fetch_response(
            listener_name, api_version, self.log.topic_partition(), self.log.topic_id(), Errors.NONE,
            self.quorum.leader_id_or_sentinel(), self.quorum.leader_endpoints(), error,
            high_watermark.offset if high_watermark is not None else -1, self.log.start_offset(),
            self.quorum.epoch(), records, diverging, snapshot)

    def _build_empty_fetch_response(self, listener_name: str, api_version: int, error: Errors,
                                    high_watermark: LogOffsetMetadata | None) -> Any:
        return self._build_fetch_response(listener_name, api_version, error, b"", ValidOffsetAndEpoch.valid(),
                                          high_watermark)

    def _has_valid_cluster_id(self, request_cluster_id: str | None) -> bool:
        # a request without a cluster id is not checked
        return request_cluster_id is None or self.cluster_id == request_cluster_id

    @step("KR.fetch")
    def handle_fetch_request(self, request_metadata: InboundRequest, current_time_ms: int) -> CompletableFuture:
        """Fetch: INCONSISTENT_CLUSTER_ID, INVALID_REQUEST, FENCED_LEADER_EPOCH, UNKNOWN_LEADER_EPOCH,
        NOT_LEADER_OR_FOLLOWER, BROKER_NOT_AVAILABLE. An empty answer waits (up to maxWait) for records."""
        request = request_metadata.data
        api_version = request_metadata.api_version
        if not self._has_valid_cluster_id(getattr(request, "cluster_id", None)):
            return CompletableFuture.completed_future(
                raft_util.fetch_error_response(api_version, Errors.INCONSISTENT_CLUSTER_ID))
        if not raft_util.has_valid_topic_partition(request, self.log.topic_partition(), self.log.topic_id()):
            return CompletableFuture.completed_future(
                raft_util.fetch_error_response(api_version, Errors.INVALID_REQUEST))
        fetch_partition = request.topics[0].partitions[0]
        max_wait_ms = raft_util.fetch_max_wait_ms(request)
        if (max_wait_ms < 0 or fetch_partition.fetch_offset < 0 or fetch_partition.last_fetched_epoch < 0
                or fetch_partition.last_fetched_epoch > fetch_partition.current_leader_epoch):
            return CompletableFuture.completed_future(self._build_empty_fetch_response(
                request_metadata.listener_name, api_version, Errors.INVALID_REQUEST, None))
        replica_key = ReplicaKey.of(raft_util.fetch_replica_id(request),
                                    getattr(fetch_partition, "replica_directory_id", None))
        response = self._try_complete_fetch_request(request_metadata.listener_name, api_version, replica_key,
                                                    fetch_partition, current_time_ms)
        partition_response = response.responses[0].partitions[0]
        if (partition_response.error_code != Errors.NONE or len(partition_response.records or b"") > 0
                or max_wait_ms == 0 or _is_partition_diverged(partition_response)
                or _is_partition_snapshotted(partition_response)):
            # answer now: an error, records, no wait wanted, a truncation or a snapshot to fetch
            return CompletableFuture.completed_future(response)
        future = self.fetch_purgatory.await_(fetch_partition.fetch_offset, max_wait_ms)

        def complete(completion_time_ms: int | None, exception: BaseException | None) -> Any:
            if exception is not None:
                error = Errors.for_exception(exception)
                if error is Errors.REQUEST_TIMED_OUT:
                    # nothing new arrived in time (on the expiration thread): the empty answer as it was
                    return response
                log.info("Failed to handle fetch from %s at %d due to %s", replica_key, fetch_partition.fetch_offset,
                         error.name)
                return self._build_empty_fetch_response(request_metadata.listener_name, api_version, error, None)
            # only the raft thread completes the purgatory normally, after appending: safe to read again
            return self._try_complete_fetch_request(request_metadata.listener_name, api_version, replica_key,
                                                    fetch_partition, self.time_ms())
        return future.handle(complete)

    def _try_complete_fetch_request(self, listener_name: str, api_version: int, replica_key: ReplicaKey,
                                    request: Any, current_time_ms: int) -> Any:
        try:
            error = self._validate_leader_only_request(int(request.current_leader_epoch))
            if error is not None:
                return self._build_empty_fetch_response(listener_name, api_version, error, None)
            fetch_offset = int(request.fetch_offset)
            last_fetched_epoch = int(request.last_fetched_epoch)
            state = self.quorum.leader_state_or_throw()
            latest_snapshot_id = self.log.latest_snapshot_id()
            if fetch_offset == 0 and latest_snapshot_id is not None and latest_snapshot_id != OffsetAndEpoch(0, 0):
                # an empty follower and a real snapshot: the snapshot is the faster way in
                valid_offset_and_epoch = ValidOffsetAndEpoch.snapshot(latest_snapshot_id)
            else:
                valid_offset_and_epoch = self.log.validate_offset_and_epoch(fetch_offset, last_fetched_epoch)
            if valid_offset_and_epoch.kind is Kind.VALID:
                info = self.log.read(fetch_offset, Isolation.UNCOMMITTED)
                if state.update_replica_state(replica_key, current_time_ms, info.start_offset_metadata):
                    self._on_update_leader_high_watermark(state, current_time_ms)
                records = info.records
            else:
                records = b""
            return self._build_fetch_response(listener_name, api_version, Errors.NONE, records,
                                              valid_offset_and_epoch, state.high_watermark())
        except Exception:
            log.exception("Caught unexpected error in fetch completion of request %s", request)
            return self._build_empty_fetch_response(listener_name, api_version, Errors.UNKNOWN_SERVER_ERROR, None)

    @span("KafkaRaftClient.handleFetchResponse")
    def handle_fetch_response(self, response_metadata: InboundResponse, current_time_ms: int) -> bool:
        response = response_metadata.data
        top_level_error = Errors.for_code(response.error_code)
        if top_level_error is not Errors.NONE:
            return self._handle_top_level_error(top_level_error, response_metadata)
        if not raft_util.has_valid_topic_partition(response, self.log.topic_partition(), self.log.topic_id()):
            return False
        partition_response = response.responses[0].partitions[0]
        current_leader = partition_response.current_leader
        response_leader_id = _optional_leader_id(current_leader.leader_id)
        response_epoch = int(current_leader.leader_epoch)
        error = Errors.for_code(partition_response.error_code)
        leader_endpoints = self._response_leader_endpoints(response_leader_id, response)
        handled = self._maybe_handle_common_response(error, response_leader_id, response_epoch, leader_endpoints,
                                                     response_metadata.source, current_time_ms)
        if handled is not None:
            return handled
        state = self.quorum.follower_state_or_throw()
        if error is not Errors.NONE:
            return self._handle_unexpected_error(error, response_metadata)
        diverging_epoch = partition_response.diverging_epoch
        if diverging_epoch.epoch >= 0:
            # the leader's log ends this epoch earlier: truncate to where the two logs agree, then fetch again
            diverging_offset_and_epoch = OffsetAndEpoch(int(diverging_epoch.end_offset), int(diverging_epoch.epoch))
            high_watermark = state.high_watermark()
            if high_watermark is not None and diverging_offset_and_epoch.offset < high_watermark.offset:
                raise KafkaException(f"The leader requested truncation to offset {diverging_offset_and_epoch.offset}"
                                     f", which is below the current high watermark {high_watermark}")
            truncation_offset = self.log.truncate_to_end_offset(diverging_offset_and_epoch)
            log.info("Truncated to offset %d from Fetch response from leader %d", truncation_offset,
                     self.quorum.leader_id_or_sentinel())
            # voter sets read past the new end are gone with the records
            self.partition_state.truncate_new_entries(truncation_offset)
        elif partition_response.snapshot_id.epoch >= 0 or partition_response.snapshot_id.end_offset >= 0:
            # the leader's log no longer has what we need: fetch its snapshot
            snapshot = partition_response.snapshot_id
            if snapshot.epoch < 0:
                log.error("The leader sent a snapshot id with a valid end offset %d but with an invalid epoch %d",
                          snapshot.end_offset, snapshot.epoch)
                return False
            if snapshot.end_offset < 0:
                log.error("The leader sent a snapshot id with a valid epoch %d but with an invalid end offset %d",
                          snapshot.epoch, snapshot.end_offset)
                return False
            snapshot_id = OffsetAndEpoch(int(snapshot.end_offset), int(snapshot.epoch))
            # not checked against our log: the snapshot is past our end offset and high watermark
            state.set_fetching_snapshot(self.log.create_new_snapshot_unchecked(snapshot_id))
            if state.fetching_snapshot() is not None:
                log.info("Fetching snapshot %s from Fetch response from leader %d", snapshot_id,
                         self.quorum.leader_id_or_sentinel())
            else:
                log.info("Leader %d returned a snapshot %s in the FETCH response which is already stored",
                         self.quorum.leader_id_or_sentinel(), snapshot_id)
        else:
            records = partition_response.records or b""
            if len(records) > 0:
                self._append_as_follower(records)
            high_watermark_offset = (None if partition_response.high_watermark < 0
                                     else int(partition_response.high_watermark))
            self._update_follower_high_watermark(state, high_watermark_offset)
        state.reset_fetch_timeout_for_successful_fetch(current_time_ms)
        return True

    def _append_as_follower(self, records: bytes) -> LogAppendInfo:
        info = self.log.append_as_follower(records)
        if self.quorum.is_voter() or self.followers_always_flush:
            # the leader counts a voter's fetch offset as durable: flush before the next Fetch says so (and an
            # observer being added as a voter may already be counted: followers_always_flush)
            self.log.flush(False)
        self.partition_state.update_state()
        log.debug("Follower end offset updated to %s after append", self._end_offset())
        return info

    def _append_as_leader(self, records: bytes) -> LogAppendInfo:
        info = self.log.append_as_leader(records, self.quorum.epoch())
        self.partition_state.update_state()
        log.debug("Leader appended records at base offset %d, new end offset is %s", info.first_offset,
                  self._end_offset())
        return info

    def _handle_describe_quorum_request(self, request_metadata: InboundRequest, current_time_ms: int) -> Any:
        request = request_metadata.data
        api_version = request_metadata.api_version
        if not raft_util.has_valid_topic_partition(request, self.log.topic_partition()):
            return raft_util.describe_quorum_partition_error_response(api_version, self.log.topic_partition(),
                                                                     Errors.UNKNOWN_TOPIC_OR_PARTITION)
        if not self.quorum.is_leader():
            return raft_util.describe_quorum_partition_error_response(api_version, self.log.topic_partition(),
                                                                     Errors.NOT_LEADER_OR_FOLLOWER)
        leader_state = self.quorum.leader_state_or_throw()
        high_watermark = leader_state.high_watermark()
        return raft_util.singleton_describe_quorum_response(
            api_version, self.log.topic_partition(), self.quorum.local_id_or_throw(), leader_state.epoch(),
            high_watermark.offset if high_watermark is not None else -1, list(leader_state.voter_states.values()),
            list(leader_state.observer_states(current_time_ms).values()), current_time_ms)

    @span("KafkaRaftClient.handleFetchSnapshotRequest")
    def handle_fetch_snapshot_request(self, request_metadata: InboundRequest, current_time_ms: int) -> Any:
        """FetchSnapshot: INCONSISTENT_CLUSTER_ID, INVALID_REQUEST, UNKNOWN_TOPIC_OR_PARTITION, the leader-only
        errors, SNAPSHOT_NOT_FOUND, POSITION_OUT_OF_RANGE; else the next slice of the snapshot's bytes."""
        data = request_metadata.data
        api_version = request_metadata.api_version
        listener_name = request_metadata.listener_name
        if not self._has_valid_cluster_id(data.cluster_id):
            return raft_util.error_response(ApiKeys.FETCH_SNAPSHOT, Errors.INCONSISTENT_CLUSTER_ID, api_version)
        # Kafka writes `&&` here and would fail on a request without topics; one topic, one partition is meant
        if len(data.topics) != 1 or len(data.topics[0].partitions) != 1:
            return raft_util.error_response(ApiKeys.FETCH_SNAPSHOT, Errors.INVALID_REQUEST, api_version)
        topic = data.topics[0]
        partition_snapshot = next((p for p in topic.partitions
                                   if topic.name == self.log.topic_partition().topic
                                   and p.partition == self.log.topic_partition().partition), None)
        if partition_snapshot is None:
            # one partition only: answer for the one asked about
            unknown = type(self.log.topic_partition())(topic.name, topic.partitions[0].partition)
            return raft_util.singleton_fetch_snapshot_response(
                listener_name, api_version, unknown, self.quorum.leader_id_or_sentinel(), self.quorum.epoch(),
                self.quorum.leader_endpoints(), Errors.UNKNOWN_TOPIC_OR_PARTITION)
        leader_validation = self._validate_leader_only_request(int(partition_snapshot.current_leader_epoch))
        if leader_validation is not None:
            return raft_util.singleton_fetch_snapshot_response(
                listener_name, api_version, self.log.topic_partition(), self.quorum.leader_id_or_sentinel(),
                self.quorum.epoch(), self.quorum.leader_endpoints(), leader_validation)
        snapshot_id = OffsetAndEpoch(int(partition_snapshot.snapshot_id.end_offset),
                                     int(partition_snapshot.snapshot_id.epoch))
        snapshot = self.log.read_snapshot(snapshot_id)
        if snapshot is None or snapshot_id == OffsetAndEpoch(0, 0):
            # the bootstrap checkpoint is never replicated: the first leader puts its content in the log
            return raft_util.singleton_fetch_snapshot_response(
                listener_name, api_version, self.log.topic_partition(), self.quorum.leader_id_or_sentinel(),
                self.quorum.epoch(), self.quorum.leader_endpoints(), Errors.SNAPSHOT_NOT_FOUND)
        snapshot_size = snapshot.size_in_bytes()
        position = int(partition_snapshot.position)
        if position < 0 or position >= snapshot_size:
            return raft_util.singleton_fetch_snapshot_response(
                listener_name, api_version, self.log.topic_partition(), self.quorum.leader_id_or_sentinel(),
                self.quorum.epoch(), self.quorum.leader_endpoints(), Errors.POSITION_OUT_OF_RANGE)
        records = snapshot.slice(position, min(int(data.max_bytes), snapshot_size))
        state = self.quorum.leader_state_or_throw()
        state.update_check_quorum_for_following_voter(
            ReplicaKey.of(int(data.replica_id), getattr(partition_snapshot, "replica_directory_id", None)),
            current_time_ms)
        return raft_util.singleton_fetch_snapshot_response(
            listener_name, api_version, self.log.topic_partition(), self.quorum.leader_id_or_sentinel(),
            self.quorum.epoch(), self.quorum.leader_endpoints(), Errors.NONE, snapshot_id, snapshot_size, position,
            records)

    @span("KafkaRaftClient.handleFetchSnapshotResponse")
    def handle_fetch_snapshot_response(self, response_metadata: InboundResponse, current_time_ms: int) -> bool:
        data = response_metadata.data
        top_level_error = Errors.for_code(data.error_code)
        if top_level_error is not Errors.NONE:
            return self._handle_top_level_error(top_level_error, response_metadata)
        if len(data.topics) != 1 or len(data.topics[0].partitions) != 1:
            return False
        topic = data.topics[0]
        partition_snapshot = next((p for p in topic.partitions
                                   if topic.name == self.log.topic_partition().topic
                                   and p.index == self.log.topic_partition().partition), None)
        if partition_snapshot is None:
            return False
        response_leader_id = _optional_leader_id(partition_snapshot.current_leader.leader_id)
        response_epoch = int(partition_snapshot.current_leader.leader_epoch)
        error = Errors.for_code(partition_snapshot.error_code)
        leader_endpoints = self._response_leader_endpoints(response_leader_id, data)
        handled = self._maybe_handle_common_response(error, response_leader_id, response_epoch, leader_endpoints,
                                                     response_metadata.source, current_time_ms)
        if handled is not None:
            return handled
        state = self.quorum.follower_state_or_throw()
        if (error is Errors.SNAPSHOT_NOT_FOUND or partition_snapshot.snapshot_id.end_offset < 0
                or partition_snapshot.snapshot_id.epoch < 0):
            # the leader deleted it before we got it all: start over with a Fetch
            log.info("Leader doesn't know about snapshot id %s, returned error %s and snapshot id %s",
                     state.fetching_snapshot(), error.name, partition_snapshot.snapshot_id)
            state.set_fetching_snapshot(None)
            state.reset_fetch_timeout_for_successful_fetch(current_time_ms)
            return True
        snapshot_id = OffsetAndEpoch(int(partition_snapshot.snapshot_id.end_offset),
                                     int(partition_snapshot.snapshot_id.epoch))
        snapshot = state.fetching_snapshot()
        if snapshot is None:
            raise RuntimeError(f"Received unexpected fetch snapshot response: {partition_snapshot}")
        if snapshot.snapshot_id() != snapshot_id:
            raise RuntimeError(f"Received fetch snapshot response with an invalid id. Expected "
                               f"{snapshot.snapshot_id()}; Received {snapshot_id}")
        if snapshot.size_in_bytes() != partition_snapshot.position:
            raise RuntimeError(f"Received fetch snapshot response with an invalid position. Expected "
                               f"{snapshot.size_in_bytes()}; Received {partition_snapshot.position}")
        snapshot.append(bytes(partition_snapshot.unaligned_records))
        if snapshot.size_in_bytes() == partition_snapshot.size:
            # all of it: freeze it, and restart the log after it
            snapshot.freeze()
            state.set_fetching_snapshot(None)
            if self.log.truncate_to_latest_snapshot():
                log.info("Fully truncated the log at (%s, %d) after downloading snapshot %s from leader %d",
                         self.log.end_offset(), self.log.last_fetched_epoch(), snapshot.snapshot_id(),
                         self.quorum.leader_id_or_sentinel())
                # the state machine's next offset is below the new snapshot: it reloads from it
                self.partition_state.update_state()
                self._update_follower_high_watermark(state, self.log.high_watermark().offset)
            else:
                raise RuntimeError(f"Full log truncation expected but didn't happen. Snapshot of "
                                   f"{snapshot.snapshot_id()}, log end offset {self.log.end_offset()}, last fetched "
                                   f"{self.log.last_fetched_epoch()}")
        state.reset_fetch_timeout_for_successful_fetch(current_time_ms)
        return True

    @step("KV.add")
    def handle_add_voter_request(self, request_metadata: InboundRequest, current_time_ms: int) -> CompletableFuture:
        """AddRaftVoter: INCONSISTENT_CLUSTER_ID, the leader-only errors, INVALID_REQUEST (no voter, no directory
        id, no endpoint on the default listener); then AddVoterHandler's checks, and the answer once committed."""
        data = request_metadata.data
        if not self._has_valid_cluster_id(data.cluster_id):
            return CompletableFuture.completed_future(raft_util.add_voter_response(
                Errors.INCONSISTENT_CLUSTER_ID,
                f'The given id "{data.cluster_id}" doesn\'t match the cluster id "{self.cluster_id}"'))
        leader_validation_error = self._validate_leader_only_request(self.quorum.epoch())
        if leader_validation_error is not None:
            return CompletableFuture.completed_future(raft_util.add_voter_response(leader_validation_error, None))
        new_voter = raft_util.add_voter_request_voter_key(data)
        if new_voter is None or new_voter.directory_id is None:
            return CompletableFuture.completed_future(raft_util.add_voter_response(
                Errors.INVALID_REQUEST, "Add voter request didn't include a valid voter"))
        new_voter_endpoints = Endpoints.from_add_voter_request(data.listeners)
        if new_voter_endpoints.address(self.channel.listener_name()) is None:
            return CompletableFuture.completed_future(raft_util.add_voter_response(
                Errors.INVALID_REQUEST,
                f"Add voter request didn't include the endpoint ({new_voter_endpoints}) for the default listener "
                f"{self.channel.listener_name()}"))
        return self.add_voter_handler.handle_add_voter_request(self.quorum.leader_state_or_throw(), new_voter,
                                                               new_voter_endpoints, current_time_ms)

    def _handle_api_versions_response(self, response_metadata: InboundResponse, current_time_ms: int) -> bool:
        if not self.quorum.is_leader():
            return True  # no longer the leader: the add it was for is gone
        response = response_metadata.data
        error = Errors.for_code(response.error_code)
        supported_kraft_versions = next((feature for feature in getattr(response, "supported_features", ())
                                         if feature.name == FEATURE_NAME), None)
        return self.add_voter_handler.handle_api_versions_response(
            self.quorum.leader_state_or_throw(), response_metadata.source, error, supported_kraft_versions,
            current_time_ms)

    @step("KV.remove")
    def handle_remove_voter_request(self, request_metadata: InboundRequest,
                                    current_time_ms: int) -> CompletableFuture:
        """RemoveRaftVoter: INCONSISTENT_CLUSTER_ID, the leader-only errors, INVALID_REQUEST (no voter or no
        directory id); then RemoveVoterHandler's checks, and the answer once committed."""
        data = request_metadata.data
        if not self._has_valid_cluster_id(data.cluster_id):
            return CompletableFuture.completed_future(raft_util.remove_voter_response(
                Errors.INCONSISTENT_CLUSTER_ID,
                f'The given id "{data.cluster_id}" doesn\'t match the cluster id "{self.cluster_id}"'))
        leader_validation_error = self._validate_leader_only_request(self.quorum.epoch())
        if leader_validation_error is not None:
            return CompletableFuture.completed_future(raft_util.remove_voter_response(leader_validation_error, None))
        old_voter = raft_util.remove_voter_request_voter_key(data)
        if old_voter is None or old_voter.directory_id is None:
            return CompletableFuture.completed_future(raft_util.remove_voter_response(
                Errors.INVALID_REQUEST, "Remove voter request didn't include a valid voter"))
        return self.remove_voter_handler.handle_remove_voter_request(self.quorum.leader_state_or_throw(), old_voter,
                                                                     current_time_ms)

    def handle_update_voter_request(self, request_metadata: InboundRequest,
                                    current_time_ms: int) -> CompletableFuture:
        """UpdateRaftVoter: INCONSISTENT_CLUSTER_ID, the leader-only errors (on the request's epoch),
        INVALID_REQUEST (no voter, no directory id, no default listener, a bad kraft.version range); then
        UpdateVoterHandler's checks. Every answer names the leader as this replica knows it."""
        data = request_metadata.data
        listener_name = request_metadata.listener_name

        def response(error: Errors) -> CompletableFuture:
            return CompletableFuture.completed_future(raft_util.update_voter_response(
                error, listener_name, self.quorum.leader_and_epoch(), self.quorum.leader_endpoints()))
        if not self._has_valid_cluster_id(data.cluster_id):
            return response(Errors.INCONSISTENT_CLUSTER_ID)
        leader_validation_error = self._validate_leader_only_request(int(data.current_leader_epoch))
        if leader_validation_error is not None:
            return response(leader_validation_error)
        voter = raft_util.update_voter_request_voter_key(data)
        if voter is None or voter.directory_id is None:
            return response(Errors.INVALID_REQUEST)
        voter_endpoints = Endpoints.from_update_voter_request(data.listeners)
        if voter_endpoints.address(self.channel.listener_name()) is None:
            return response(Errors.INVALID_REQUEST)
        supported_kraft_versions = data.k_raft_version_feature
        if (supported_kraft_versions.min_supported_version < 0 or supported_kraft_versions.max_supported_version < 0
                or supported_kraft_versions.max_supported_version < supported_kraft_versions.min_supported_version):
            return response(Errors.INVALID_REQUEST)
        return self.update_voter_handler.handle_update_voter_request(
            self.quorum.leader_state_or_throw(), listener_name, voter, voter_endpoints, supported_kraft_versions,
            current_time_ms)

    def _handle_update_voter_response(self, response_metadata: InboundResponse, current_time_ms: int) -> bool:
        data = response_metadata.data
        error = Errors.for_code(data.error_code)
        response_leader_id = _optional_leader_id(data.current_leader.leader_id)
        response_epoch = int(data.current_leader.leader_epoch)
        # Kafka 3.9 reads the leader's address only when the host is empty (a slip later fixed); kept as it is, so a
        # known leader's endpoints come from the voter set
        if response_leader_id is not None and not data.current_leader.host:
            leader_endpoints = Endpoints.from_inet_socket_addresses(
                {self.channel.listener_name(): (data.current_leader.host, int(data.current_leader.port))})
        else:
            leader_endpoints = Endpoints.empty()
        handled = self._maybe_handle_common_response(error, response_leader_id, response_epoch, leader_endpoints,
                                                     response_metadata.source, current_time_ms)
        return handled if handled is not None else True

    def _has_consistent_leader(self, epoch: int, leader_id: int | None) -> bool:
        # only elected leaders travel in requests and responses: a known leader must agree with ours
        if leader_id is not None and leader_id == self.quorum.local_id_or_sentinel():
            return self.quorum.is_leader()  # they say we lead: we had better
        return (epoch != self.quorum.epoch() or leader_id is None or self.quorum.leader_id() is None
                or leader_id == self.quorum.leader_id())

    def _maybe_handle_common_response(self, error: Errors, leader_id: int | None, epoch: int,
                                      leader_endpoints: Endpoints, source: Node, current_time_ms: int) -> bool | None:
        """None: not handled here, the API's own handler goes on; True: handled; False: handled, back off."""
        if leader_endpoints.is_empty() and leader_id is not None:
            # an older replica sends no endpoints: take them from the voter set
            leader_endpoints = self.voters.listeners(leader_id)
        if epoch < self.quorum.epoch() or error is Errors.UNKNOWN_LEADER_EPOCH:
            return True  # ours is newer: the response no longer matters
        if epoch > self.quorum.epoch() or error in (Errors.FENCED_LEADER_EPOCH, Errors.NOT_LEADER_OR_FOLLOWER):
            # our request was stale: the response's epoch and leader tell us where things stand
            self._maybe_transition(leader_id, epoch, leader_endpoints, current_time_ms)
            return True
        if epoch == self.quorum.epoch() and leader_id is not None and not self.quorum.has_leader():
            # the leader of our epoch, learned from a response: follow it, and let the handler use the response
            self._transition_to_follower(epoch, leader_id, leader_endpoints, current_time_ms)
            return None if error is Errors.NONE else True
        if error is Errors.BROKER_NOT_AVAILABLE:
            return False
        if error is Errors.INVALID_VOTER_KEY:
            log.info("Voter key for VOTE or BEGIN_QUORUM_EPOCH request didn't match the receiver's replica key: %s",
                     source)
            return True
        if error is Errors.INVALID_REQUEST:
            raise RuntimeError("Received unexpected invalid request error")
        return None

    def _maybe_transition(self, leader_id: int | None, epoch: int, leader_endpoints: Endpoints,
                          current_time_ms: int) -> None:
        if not self._has_consistent_leader(epoch, leader_id):
            raise RuntimeError(f"Received request or response with leader {leader_id} and epoch {epoch} which is "
                               f"inconsistent with current leader {self.quorum.leader_id()} and epoch "
                               f"{self.quorum.epoch()}")
        if epoch > self.quorum.epoch():
            if leader_id is not None:
                self._transition_to_follower(epoch, leader_id, leader_endpoints, current_time_ms)
            else:
                self._transition_to_unattached(epoch)
        elif leader_id is not None and (not self.quorum.has_leader()
                                        or leader_endpoints.size() > self.quorum.leader_endpoints().size()):
            # the leader of our epoch, newly learned (or with more endpoints)
            self._transition_to_follower(epoch, leader_id, leader_endpoints, current_time_ms)

    def _handle_top_level_error(self, error: Errors, response: InboundResponse) -> bool:
        if error is Errors.BROKER_NOT_AVAILABLE:
            return False
        if error is Errors.CLUSTER_AUTHORIZATION_FAILED:
            raise ClusterAuthorizationException(f"Received cluster authorization error in response {response}")
        return self._handle_unexpected_error(error, response)

    def _handle_unexpected_error(self, error: Errors, response: InboundResponse) -> bool:
        log.error("Unexpected error %s in %s response: %s", error.name, ApiKeys(response.api_key()).api_name, response)
        return False

    def _response_leader_endpoints(self, leader_id: int | None, response: Any) -> Endpoints:
        if leader_id is None:
            return Endpoints.empty()
        node_endpoints = getattr(response, "node_endpoints", ())
        if not node_endpoints:
            return self.voters.listeners(leader_id)
        endpoints = Endpoints.from_node_endpoints(self.channel.listener_name(), leader_id, node_endpoints)
        return endpoints if not endpoints.is_empty() else self.voters.listeners(leader_id)

    def _handle_response(self, response: InboundResponse, current_time_ms: int) -> None:
        api_key = ApiKeys(response.api_key())
        if api_key is ApiKeys.FETCH:
            handled_successfully = self.handle_fetch_response(response, current_time_ms)
        elif api_key is ApiKeys.VOTE:
            handled_successfully = self.handle_vote_response(response, current_time_ms)
        elif api_key is ApiKeys.BEGIN_QUORUM_EPOCH:
            handled_successfully = self._handle_begin_quorum_epoch_response(response, current_time_ms)
        elif api_key is ApiKeys.END_QUORUM_EPOCH:
            handled_successfully = self._handle_end_quorum_epoch_response(response, current_time_ms)
        elif api_key is ApiKeys.FETCH_SNAPSHOT:
            handled_successfully = self.handle_fetch_snapshot_response(response, current_time_ms)
        elif api_key is ApiKeys.API_VERSIONS:
            handled_successfully = self._handle_api_versions_response(response, current_time_ms)
        elif api_key is ApiKeys.UPDATE_RAFT_VOTER:
            handled_successfully = self._handle_update_voter_response(response, current_time_ms)
        else:
            raise ValueError(f"Received unexpected response type: {api_key.api_name}")
        self.request_manager.on_response_result(response.source, response.correlation_id, handled_successfully,
                                                current_time_ms)

    def _validate_voter_only_request(self, remote_node_id: int, request_epoch: int) -> Errors | None:
        """Vote, BeginQuorumEpoch and EndQuorumEpoch: a stale epoch is fenced, a negative id invalid."""
        if request_epoch < self.quorum.epoch():
            return Errors.FENCED_LEADER_EPOCH
        if remote_node_id < 0:
            return Errors.INVALID_REQUEST
        return None

    def _is_valid_voter_key(self, voter_key: ReplicaKey | None) -> bool:
        """The request names this replica (or names no one, as v0 requests do)."""
        if voter_key is None:
            return True
        if voter_key.id != self._node_id:
            return False
        return voter_key.directory_id is None or voter_key.directory_id == self._node_directory_id

    def _validate_leader_only_request(self, request_epoch: int) -> Errors | None:
        """Fetch and FetchSnapshot: only the leader of the same epoch answers, and not while shutting down."""
        if request_epoch < self.quorum.epoch():
            return Errors.FENCED_LEADER_EPOCH
        if request_epoch > self.quorum.epoch():
            return Errors.UNKNOWN_LEADER_EPOCH
        if not self.quorum.is_leader():
            # possible when observers use Fetch to learn an election's result
            return Errors.NOT_LEADER_OR_FOLLOWER
        if self._shutdown is not None:
            return Errors.BROKER_NOT_AVAILABLE
        return None

    def _handle_request(self, request: InboundRequest, current_time_ms: int) -> None:
        api_key = ApiKeys(request.api_key())
        if api_key is ApiKeys.FETCH:
            response_future = self.handle_fetch_request(request, current_time_ms)
        elif api_key is ApiKeys.VOTE:
            response_future = CompletableFuture.completed_future(self.handle_vote_request(request))
        elif api_key is ApiKeys.BEGIN_QUORUM_EPOCH:
            response_future = CompletableFuture.completed_future(
                self.handle_begin_quorum_epoch_request(request, current_time_ms))
        elif api_key is ApiKeys.END_QUORUM_EPOCH:
            response_future = CompletableFuture.completed_future(
                self.handle_end_quorum_epoch_request(request, current_time_ms))
        elif api_key is ApiKeys.DESCRIBE_QUORUM:
            response_future = CompletableFuture.completed_future(
                self._handle_describe_quorum_request(request, current_time_ms))
        elif api_key is ApiKeys.FETCH_SNAPSHOT:
            response_future = CompletableFuture.completed_future(
                self.handle_fetch_snapshot_request(request, current_time_ms))
        elif api_key is ApiKeys.ADD_RAFT_VOTER:
            response_future = self.handle_add_voter_request(request, current_time_ms)
        elif api_key is ApiKeys.REMOVE_RAFT_VOTER:
            response_future = self.handle_remove_voter_request(request, current_time_ms)
        elif api_key is ApiKeys.UPDATE_RAFT_VOTER:
            response_future = self.handle_update_voter_request(request, current_time_ms)
        else:
            raise ValueError(f"Unexpected request type {api_key.api_name}")

        def respond(response: Any, exception: BaseException | None) -> None:
            message = response
            if message is None:
                message = raft_util.error_response(api_key, Errors.for_exception(exception), request.api_version)
            request.completion.complete(OutboundResponse(request.correlation_id, message))
        response_future.when_complete(respond)

    def _handle_inbound_message(self, message: RaftMessage, current_time_ms: int) -> None:
        if isinstance(message, InboundRequest):
            self._handle_request(message, current_time_ms)
        elif isinstance(message, InboundResponse):
            if self.request_manager.is_response_expected(message.source, message.correlation_id):
                self._handle_response(message, current_time_ms)
            else:
                log.debug("Ignoring response %s since it is no longer needed", message)
        else:
            raise ValueError(f"Unexpected message {message}")

    def _maybe_send_request(self, current_time_ms: int, destination: Node,
                            request_supplier: Callable[[], Any]) -> int:
        """Send unless the connection is backing off or busy; the time until it may be tried again."""
        if self.request_manager.is_backing_off(destination, current_time_ms):
            remaining_backoff_ms = self.request_manager.remaining_backoff_ms(destination, current_time_ms)
            log.debug("Connection for %s is backing off for %d ms", destination, remaining_backoff_ms)
            return remaining_backoff_ms
        if self.request_manager.is_ready(destination, current_time_ms):
            correlation_id = self.channel.new_correlation_id()
            request = request_supplier()
            api = ApiKeys(int(request.__api_key__))
            request_message = OutboundRequest(correlation_id, request, destination, current_time_ms,
                                              raft_util.REQUEST_VERSIONS[api])

            def on_response(response: InboundResponse | None, exception: BaseException | None) -> None:
                if exception is not None:
                    response = InboundResponse(correlation_id, raft_util.error_response(
                        api, Errors.for_exception(exception)), destination)
                self.message_queue.add(response)
            request_message.completion.when_complete(on_response)
            self.request_manager.on_request_sent(destination, correlation_id, current_time_ms)
            self.channel.send(request_message)
            log.debug("Sent outbound request: %s", request_message)
        return self.request_manager.remaining_request_time_ms(destination, current_time_ms)

    def _build_end_quorum_epoch_request(self, state: ResignedState) -> Any:
        return raft_util.singleton_end_quorum_epoch_request(self.log.topic_partition(), self.cluster_id,
                                                            self.quorum.epoch(), self.quorum.local_id_or_throw(),
                                                            state.preferred_successors())

    def _maybe_send_requests(self, current_time_ms: int, destinations: set[Node],
                             request_supplier: Callable[[], Any]) -> int:
        min_backoff_ms = LONG_MAX
        for destination in sorted(destinations, key=lambda n: n.id):
            min_backoff_ms = min(min_backoff_ms,
                                 self._maybe_send_request(current_time_ms, destination, request_supplier))
        return min_backoff_ms

    def _maybe_send_request_to_voters(self, current_time_ms: int, remote_voters: set[ReplicaKey],
                                      destination_supplier: Callable[[int], Node],
                                      request_supplier: Callable[[ReplicaKey], Any]) -> int:
        min_backoff_ms = LONG_MAX
        for voter in sorted(remote_voters):
            backoff_ms = self._maybe_send_request(current_time_ms, destination_supplier(voter.id),
                                                  lambda voter=voter: request_supplier(voter))
            min_backoff_ms = min(min_backoff_ms, backoff_ms)
        return min_backoff_ms

    def _build_begin_quorum_epoch_request(self, remote_voter: ReplicaKey) -> Any:
        return raft_util.singleton_begin_quorum_epoch_request(self.log.topic_partition(), self.cluster_id,
                                                              self.quorum.epoch(), self.quorum.local_id_or_throw(),
                                                              self.quorum.leader_endpoints(), remote_voter)

    def _build_vote_request(self, remote_voter: ReplicaKey) -> Any:
        end_offset = self._end_offset()
        return raft_util.singleton_vote_request(self.log.topic_partition(), self.cluster_id, self.quorum.epoch(),
                                                self.quorum.local_replica_key_or_throw(), remote_voter,
                                                end_offset.epoch, end_offset.offset)

    def _build_fetch_request(self) -> Any:
        return raft_util.singleton_fetch_request(self.log.topic_partition(), self.log.topic_id(), self.cluster_id,
                                                 self.quorum.epoch(), self.log.last_fetched_epoch(),
                                                 self.log.end_offset().offset, self.quorum.local_id_or_sentinel(),
                                                 self.quorum.local_directory_id(), MAX_FETCH_SIZE_BYTES,
                                                 self.fetch_max_wait_ms)

    def _build_fetch_snapshot_request(self, snapshot_id: OffsetAndEpoch, snapshot_size: int) -> Any:
        return raft_util.singleton_fetch_snapshot_request(
            self.cluster_id, ReplicaKey.of(self.quorum.local_id_or_sentinel(), self.quorum.local_directory_id()),
            self.log.topic_partition(), self.quorum.epoch(), snapshot_id, MAX_FETCH_SIZE_BYTES, snapshot_size)

    def _maybe_send_fetch_to_any_bootstrap(self, current_time_ms: int) -> int:
        ready_node = self.request_manager.find_ready_bootstrap_server(current_time_ms)
        if ready_node is not None:
            return self._maybe_send_request(current_time_ms, ready_node, self._build_fetch_request)
        return self.request_manager.backoff_before_available_bootstrap_server(current_time_ms)

    def is_running(self) -> bool:
        shutdown = self._shutdown
        return shutdown is None or not shutdown.is_finished()

    def is_shutting_down(self) -> bool:
        shutdown = self._shutdown
        return shutdown is not None and not shutdown.is_finished()

    def _append_batch(self, state: LeaderState, batch: CompletedBatch[T], append_time_ms: int) -> None:
        try:
            epoch = state.epoch()
            info = self._append_as_leader(bytes(batch.data.buffer))
            offset_and_epoch = OffsetAndEpoch(info.last_offset, epoch)
            future = self.append_purgatory.await_(offset_and_epoch.offset + 1, 2**31 - 1)

            def committed(commit_time_ms: int | None, exception: BaseException | None) -> None:
                if exception is not None:
                    log.debug("Failed to commit %d records up to last offset %s", batch.num_records,
                              offset_and_epoch, exc_info=exception)
                    return
                log.debug("Completed commit of %d records up to last offset %s", batch.num_records, offset_and_epoch)
                if batch.records is not None:
                    self._maybe_fire_handle_commit(batch.base_offset, epoch, batch.append_timestamp(),
                                                   batch.size_in_bytes(), batch.records)
            future.when_complete(committed)
        finally:
            batch.release()

    def _maybe_append_batches(self, state: LeaderState, current_time_ms: int) -> int:
        if state.accumulator().time_until_drain(current_time_ms) <= 0:
            batches = state.accumulator().drain()
            try:
                for i, batch in enumerate(batches):
                    self._append_batch(state, batch, current_time_ms)
                    batches[i] = None
                self._flush_leader_log(state, current_time_ms)
            finally:
                for batch in batches:  # the ones that failed to go in are discarded
                    if batch is not None:
                        batch.release()
        return state.accumulator().time_until_drain(current_time_ms)

    @span("KafkaRaftClient.maybeSendBeginQuorumEpochRequests")
    def maybe_send_begin_quorum_epoch_requests(self, state: LeaderState, current_time_ms: int) -> int:
        time_until_next_begin_quorum_send = state.time_until_begin_quorum_epoch_timer_expires(current_time_ms)
        if time_until_next_begin_quorum_send == 0:
            voters = self.voters
            local_id = self.quorum.local_id_or_throw()
            time_until_next_begin_quorum_send = self._maybe_send_request_to_voters(
                current_time_ms, {key for key in voters.voter_keys() if key.id != local_id},
                lambda voter_id: self._voter_node_or_throw(voter_id), self._build_begin_quorum_epoch_request)
            state.reset_begin_quorum_epoch_timer(current_time_ms)
        return time_until_next_begin_quorum_send

    def _voter_node_or_throw(self, voter_id: int) -> Node:
        node = self.voters.voter_node(voter_id, self.channel.listener_name())
        if node is None:
            raise RuntimeError(f"Unknown endpoint for voter id {voter_id} for listener name "
                               f"{self.channel.listener_name()}")
        return node

    @span("KafkaRaftClient.pollResigned", root=True)
    def poll_resigned(self, current_time_ms: int) -> int:
        state = self.quorum.resigned_state_or_throw()
        end_quorum_backoff_ms = self._maybe_send_requests(
            current_time_ms, self.voters.voter_nodes(state.unacked_voters(), self.channel.listener_name()),
            lambda: self._build_end_quorum_epoch_request(state))
        shutdown = self._shutdown
        if shutdown is not None:
            # shutting down: stay Resigned until the shutdown ends or an election moves the epoch on
            state_timeout_ms = shutdown.remaining_time_ms()
        elif state.has_election_timeout_expired(current_time_ms):
            if self.quorum.is_voter():
                self._transition_to_candidate(current_time_ms)
            else:
                # a former leader that is no longer a voter: a higher epoch, so no Fetch names it leader again
                self._transition_to_unattached(self.quorum.epoch() + 1)
            state_timeout_ms = 0
        else:
            state_timeout_ms = state.remaining_election_time_ms(current_time_ms)
        return min(state_timeout_ms, end_quorum_backoff_ms)

    @span("KafkaRaftClient.pollLeader", root=True)
    def poll_leader(self, current_time_ms: int) -> int:
        state = self.quorum.leader_state_or_throw()
        self._maybe_fire_leader_change(state)
        time_until_check_quorum_expires = state.time_until_check_quorum_expires(current_time_ms)
        if self._shutdown is not None or state.is_resign_requested() or time_until_check_quorum_expires == 0:
            self._transition_to_resigned(state.non_leader_voters_by_descending_fetch_offset())
            return 0
        time_until_voter_change_expires = state.maybe_expire_pending_operation(current_time_ms)
        time_until_flush = self._maybe_append_batches(state, current_time_ms)
        time_until_next_begin_quorum_send = self.maybe_send_begin_quorum_epoch_requests(state, current_time_ms)
        return min(time_until_flush, time_until_next_begin_quorum_send, time_until_check_quorum_expires,
                   time_until_voter_change_expires)

    @span("KafkaRaftClient.maybeSendVoteRequests")
    def maybe_send_vote_requests(self, state: CandidateState, current_time_ms: int) -> int:
        # keep asking while a majority is still possible
        if not state.is_vote_rejected():
            return self._maybe_send_request_to_voters(current_time_ms, state.unrecorded_voters(),
                                                      self._voter_node_or_throw, self._build_vote_request)
        return LONG_MAX

    @span("KafkaRaftClient.pollCandidate", root=True)
    def poll_candidate(self, current_time_ms: int) -> int:
        state = self.quorum.candidate_state_or_throw()
        shutdown = self._shutdown
        if shutdown is not None:
            # shutting down as a candidate: go on until elected (then resign), another leader wins, or time is up
            min_request_backoff_ms = self.maybe_send_vote_requests(state, current_time_ms)
            return min(shutdown.remaining_time_ms(), min_request_backoff_ms)
        if state.is_backing_off():
            if state.is_backoff_complete(current_time_ms):
                log.info("Re-elect as candidate after election backoff has completed")
                self._transition_to_candidate(current_time_ms)
                return 0
            return state.remaining_backoff_ms(current_time_ms)
        if state.has_election_timeout_expired(current_time_ms):
            backoff_duration_ms = self._binary_exponential_election_backoff_ms(state.retries())
            log.info("Election has timed out, backing off for %dms before becoming a candidate again",
                     backoff_duration_ms)
            state.start_backing_off(current_time_ms, backoff_duration_ms)
            return backoff_duration_ms
        min_request_backoff_ms = self.maybe_send_vote_requests(state, current_time_ms)
        return min(min_request_backoff_ms, state.remaining_election_time_ms(current_time_ms))

    @span("KafkaRaftClient.pollFollower", root=True)
    def poll_follower(self, current_time_ms: int) -> int:
        state = self.quorum.follower_state_or_throw()
        if self.quorum.is_voter():
            return self._poll_follower_as_voter(state, current_time_ms)
        return self._poll_follower_as_observer(state, current_time_ms)

    def _poll_follower_as_voter(self, state: FollowerState, current_time_ms: int) -> int:
        shutdown = self._shutdown
        if shutdown is not None:
            backoff_ms = 0  # a follower can stop at once, and must not become a candidate now
        elif state.has_fetch_timeout_expired(current_time_ms):
            log.info("Become candidate due to fetch timeout")
            self._transition_to_candidate(current_time_ms)
            backoff_ms = 0
        elif state.has_update_voter_period_expired(current_time_ms):
            # now and then, make sure the leader's voter set has this voter's listeners and kraft.version range
            if (self.partition_state.last_kraft_version().is_reconfig_supported()
                    and self.partition_state.last_voter_set().voter_node_needs_update(
                        self.quorum.local_voter_node_or_throw())):
                backoff_ms = self._maybe_send_update_voter_request(state, current_time_ms)
            else:
                backoff_ms = self.maybe_send_fetch_or_fetch_snapshot(state, current_time_ms)
            state.reset_update_voter_period(current_time_ms)
        else:
            # 3.9's voters fetch from their leader only: a new leader announces itself with BeginQuorumEpoch
            # (fetching from the other voters when the leader fails came after 3.9, with KAFKA-17030)
            backoff_ms = self.maybe_send_fetch_or_fetch_snapshot(state, current_time_ms)
        return min(backoff_ms, state.remaining_fetch_time_ms(current_time_ms),
                   state.remaining_update_voter_period_ms(current_time_ms))

    @step("KV.observe")
    def _poll_follower_as_observer(self, state: FollowerState, current_time_ms: int) -> int:
        if state.has_fetch_timeout_expired(current_time_ms):
            return self._maybe_send_fetch_to_any_bootstrap(current_time_ms)
        # an observer gets no BeginQuorumEpoch: when its leader fails or times out, a Fetch to a voter finds out
        # about a new one
        leader_node = state.leader_node(self.channel.listener_name())
        if self.request_manager.has_request_timed_out(leader_node, current_time_ms):
            self.request_manager.reset(leader_node)
            backoff_ms = self._maybe_send_fetch_to_any_bootstrap(current_time_ms)
        elif self.request_manager.is_backing_off(leader_node, current_time_ms):
            backoff_ms = self._maybe_send_fetch_to_any_bootstrap(current_time_ms)
        elif not self.request_manager.has_any_inflight_request(current_time_ms):
            backoff_ms = self.maybe_send_fetch_or_fetch_snapshot(state, current_time_ms)
        else:
            backoff_ms = self.request_manager.backoff_before_available_bootstrap_server(current_time_ms)
        return min(backoff_ms, state.remaining_fetch_time_ms(current_time_ms))

    @span("KafkaRaftClient.maybeSendFetchOrFetchSnapshot", root=True)
    def maybe_send_fetch_or_fetch_snapshot(self, state: FollowerState, current_time_ms: int) -> int:
        snapshot = state.fetching_snapshot()
        if snapshot is not None:
            # the next slice of the snapshot we are downloading, from where our copy ends
            snapshot_size = snapshot.size_in_bytes()
            request_supplier = lambda: self._build_fetch_snapshot_request(snapshot.snapshot_id(),  # noqa: E731
                                                                          snapshot_size)
        else:
            request_supplier = self._build_fetch_request
        return self._maybe_send_request(current_time_ms, state.leader_node(self.channel.listener_name()),
                                        request_supplier)

    def _build_update_voter_request(self) -> Any:
        return raft_util.update_voter_request(self.cluster_id, self.quorum.local_replica_key_or_throw(),
                                              self.quorum.epoch(), self.local_supported_kraft_version,
                                              self.local_listeners)

    def _maybe_send_update_voter_request(self, state: FollowerState, current_time_ms: int) -> int:
        return self._maybe_send_request(current_time_ms, state.leader_node(self.channel.listener_name()),
                                        self._build_update_voter_request)

    @span("KafkaRaftClient.pollUnattached", root=True)
    def poll_unattached(self, current_time_ms: int) -> int:
        state = self.quorum.unattached_state_or_throw()
        if self.quorum.is_voter():
            return self._poll_unattached_as_voter(state, current_time_ms)
        return self._poll_unattached_as_observer(state, current_time_ms)

    def _poll_unattached_as_voter(self, state: UnattachedState, current_time_ms: int) -> int:
        shutdown = self._shutdown
        if shutdown is not None:
            # shutting down: stay until the shutdown ends or a higher epoch moves us
            return shutdown.remaining_time_ms()
        if state.has_election_timeout_expired(current_time_ms):
            self._transition_to_candidate(current_time_ms)
            return 0
        # 3.9's Unattached voter waits: the leader's BeginQuorumEpoch, or its own candidacy at the timeout
        return state.remaining_election_time_ms(current_time_ms)

    def _poll_unattached_as_observer(self, state: UnattachedState, current_time_ms: int) -> int:
        # any voter may know the leader: a Fetch finds out
        fetch_backoff_ms = self._maybe_send_fetch_to_any_bootstrap(current_time_ms)
        return min(fetch_backoff_ms, state.remaining_election_time_ms(current_time_ms))

    def _poll_current_state(self, current_time_ms: int) -> int:
        if self.quorum.is_leader():
            return self.poll_leader(current_time_ms)
        if self.quorum.is_candidate():
            return self.poll_candidate(current_time_ms)
        if self.quorum.is_follower():
            return self.poll_follower(current_time_ms)
        if self.quorum.is_unattached():
            return self.poll_unattached(current_time_ms)
        if self.quorum.is_resigned():
            return self.poll_resigned(current_time_ms)
        raise RuntimeError(f"Unexpected quorum state {self.quorum}")

    @step("KR.listener")
    def poll_listeners(self) -> None:
        # registrations queued by other threads take effect here, on the raft thread
        with self._registrations_lock:
            registrations, self._pending_registrations = self._pending_registrations, []
        for registration in registrations:
            self._process_registration(registration)
        # listeners behind the high watermark read on
        high_watermark = self.quorum.high_watermark()
        if high_watermark is not None:
            self._update_listeners_progress(high_watermark.offset)
        # new listeners learn the leader and epoch
        leader_state = self.quorum.maybe_leader_state()
        if leader_state is not None:
            self._maybe_fire_leader_change(leader_state)
        elif not self.quorum.is_resigned():
            # not while Resigned: the leader is still this replica, yet it can neither track the epoch's start for
            # its listeners nor take their writes
            self._maybe_fire_leader_change()

    def _process_registration(self, registration: _Registration) -> None:
        listener = registration.listener
        if registration.ops is _Ops.REGISTER:
            if id(listener) in self.listener_contexts:
                log.error("Attempting to add a listener that already exists: %s", _listener_name(listener))
            else:
                self.listener_contexts[id(listener)] = ListenerContext(self, listener)
                log.info("Registered the listener %s", _listener_name(listener))
        elif self.listener_contexts.pop(id(listener), None) is None:
            log.error("Attempting to remove a listener that doesn't exists: %s", _listener_name(listener))
        else:
            log.info("Unregistered the listener %s", _listener_name(listener))

    def _maybe_complete_shutdown(self, current_time_ms: int) -> bool:
        shutdown = self._shutdown
        if shutdown is None:
            return False
        shutdown.update(current_time_ms)
        if shutdown.has_timed_out():
            shutdown.fail_with_timeout()
            return True
        # done once nothing depends on us: an observer, a lone voter, or a voter that knows another leader
        if self.quorum.is_observer() or self.quorum.is_only_voter() or self.quorum.has_remote_leader():
            shutdown.complete()
            return True
        return False

    def _wakeup(self) -> None:
        self.message_queue.wakeup()

    def handle(self, request: InboundRequest) -> None:
        """Queue an inbound request for the raft thread; its response comes back through `request.completion`."""
        if request is None:
            raise ValueError("request")
        self.message_queue.add(request)

    @step("KR.poll")
    def poll(self) -> None:
        """One turn of the raft thread: the role's own work, then at most one inbound message, then listeners."""
        if not self._is_initialized():
            raise RuntimeError("Replica needs to be initialized before polling")
        start_poll_time_ms = self.time_ms()
        if self._maybe_complete_shutdown(start_poll_time_ms):
            return
        poll_state_timeout_ms = self._poll_current_state(start_poll_time_ms)
        cleaning_timeout_ms = self.snapshot_cleaner.maybe_clean(start_poll_time_ms)
        poll_timeout_ms = min(poll_state_timeout_ms, cleaning_timeout_ms)
        message = self.message_queue.poll(poll_timeout_ms)
        end_wait_time_ms = self.time_ms()
        if message is not None:
            self._handle_inbound_message(message, end_wait_time_ms)
        self.poll_listeners()

    def prepare_append(self, epoch: int, records: list[T]) -> int:
        return self._append(epoch, records)

    def _append(self, epoch: int, records: list[T]) -> int:
        if not self._is_initialized():
            raise NotLeaderException("Append failed because the replica is not the current leader")
        leader_state = self.quorum.maybe_leader_state()
        if leader_state is None:
            raise NotLeaderException("Append failed because the replica is not the current leader")
        accumulator = leader_state.accumulator()
        is_first_append = accumulator.is_empty()
        offset = accumulator.append(epoch, records, True)
        # wake the raft thread for the first append (so it starts the linger clock) or a full batch
        if is_first_append or accumulator.needs_drain(self.time_ms()):
            self._wakeup()
        return offset

    def schedule_prepared_append(self) -> None:
        if not self._is_initialized():
            raise NotLeaderException("Flush failed because the replica is not the current leader")
        leader_state = self.quorum.maybe_leader_state()
        if leader_state is None:
            raise NotLeaderException("Flush failed because the replica is not the current leader")
        leader_state.accumulator().allow_drain()
        # The raft thread may be asleep for a fetch's long poll, having seen the held-back batch as not drainable;
        # it must look again now, to drain once the linger time is up (3.9's timeUntilDrain keeps counting the
        # linger while an append is held, so its thread wakes by itself).
        self._wakeup()

    def shutdown(self, timeout_ms: int) -> Future:
        log.info("Beginning graceful shutdown")
        shutdown_complete: CompletableFuture[None] = CompletableFuture()
        self._shutdown = _GracefulShutdown(self.time_ms(), timeout_ms, shutdown_complete)
        self._wakeup()
        return shutdown_complete

    def resign(self, epoch: int) -> None:
        if epoch < 0:
            raise ValueError(f"Attempt to resign from an invalid negative epoch {epoch}")
        if not self._is_initialized():
            raise RuntimeError("Replica needs to be initialized before resigning")
        leader_and_epoch = self.leader_and_epoch()
        current_epoch = leader_and_epoch.epoch
        if epoch > current_epoch:
            raise ValueError(f"Attempt to resign from epoch {epoch} which is larger than the current epoch "
                             f"{current_epoch}")
        if epoch < current_epoch:
            # the caller has not seen a leader change that already happened: nothing left to do
            log.debug("Ignoring call to resign from epoch %d since it is smaller than the current epoch %d", epoch,
                      current_epoch)
            return
        if not leader_and_epoch.is_leader(self.quorum.local_id_or_throw()):
            raise ValueError(f"Cannot resign from epoch {epoch} since we are not the leader")
        leader_state = self.quorum.maybe_leader_state()
        if leader_state is None:
            log.debug("Ignoring call to resign from epoch %d since this node is no longer the leader", epoch)
            return
        if leader_state.epoch() != epoch:
            log.debug("Ignoring call to resign from epoch %d since it is smaller than the current epoch %d", epoch,
                      leader_state.epoch())
            return
        log.info("Received user request to resign from the current epoch %d", current_epoch)
        leader_state.request_resign()
        self._wakeup()

    @step("KR.snapshot")
    def create_snapshot(self, snapshot_id: OffsetAndEpoch, last_contained_log_timestamp: int) -> Any:
        """A writer for a snapshot of the records below `snapshot_id.offset` (committed ones only); None if the log
        already starts past it or the snapshot exists. The state machine appends, then freezes it."""
        if not self._is_initialized():
            raise RuntimeError("Cannot create snapshot before the replica has been initialized")
        writer = self.log.create_new_snapshot(snapshot_id)
        if writer is None:
            return None
        last_contained_log_offset = snapshot_id.offset - 1
        # once frozen, the voter sets and kraft.versions before the snapshot are not needed any more
        wrapped_writer = NotifyingRawSnapshotWriter(
            writer, lambda offset_and_epoch: self.partition_state.truncate_old_entries(offset_and_epoch.offset))
        return (RecordsSnapshotWriter.Builder()
                .set_last_contained_log_timestamp(last_contained_log_timestamp)
                .set_time(self.time_ms)
                .set_max_batch_size(MAX_BATCH_SIZE_BYTES)
                .set_raw_snapshot_writer(wrapped_writer)
                .set_kraft_version(self.partition_state.kraft_version_at_offset(last_contained_log_offset))
                .set_voter_set(self.partition_state.voter_set_at_offset(last_contained_log_offset))
                .build(self.serde))

    def latest_snapshot_id(self) -> OffsetAndEpoch | None:
        return self.log.latest_snapshot_id()

    def log_end_offset(self) -> int:
        return self.log.end_offset().offset

    def kraft_version(self) -> KRaftVersion:
        return self.partition_state.last_kraft_version()

    def close(self) -> None:
        self.log.flush(True)

    def high_watermark(self) -> int | None:
        if self._is_initialized() and self.quorum.high_watermark() is not None:
            return self.quorum.high_watermark().offset
        return None

    def voter_node(self, voter_id: int, listener_name: str) -> Node | None:
        return self.voters.voter_node(voter_id, listener_name)

    def _is_initialized(self) -> bool:
        return self.partition_state is not None and self.quorum is not None and self.request_manager is not None


class _RaftMetadataLogCleanerManager:
    """A timer-driven cleaner: `maybe_clean` runs the log's cleaning when its delay has passed."""

    def __init__(self, time_ms: Callable[[], int], delay_ms: int, cleaner: Callable[[], Any]) -> None:
        self._timer = Timer(time_ms(), delay_ms)
        self._delay_ms = delay_ms
        self._cleaner = cleaner

    def maybe_clean(self, current_time_ms: int) -> int:
        self._timer.update(current_time_ms)
        if self._timer.is_expired():
            try:
                self._cleaner()
            except Exception:
                log.exception("Had an error during log cleaning")
            self._timer.reset(self._delay_ms)
        return self._timer.remaining_ms()


class _GracefulShutdown:
    def __init__(self, current_time_ms: int, shutdown_timeout_ms: int, complete_future: CompletableFuture) -> None:
        self.finish_timer = Timer(current_time_ms, shutdown_timeout_ms)
        self.complete_future = complete_future

    def update(self, current_time_ms: int) -> None:
        self.finish_timer.update(current_time_ms)

    def has_timed_out(self) -> bool:
        return self.finish_timer.is_expired()

    def is_finished(self) -> bool:
        return self.complete_future.done()

    def remaining_time_ms(self) -> int:
        return self.finish_timer.remaining_ms()

    def fail_with_timeout(self) -> None:
        log.warning("Graceful shutdown timed out after %dms", self.finish_timer.timeout_ms())
        self.complete_future.complete_exceptionally(
            TimeoutException("Timeout expired before graceful shutdown completed"))

    def complete(self) -> None:
        log.info("Graceful shutdown completed")
        self.complete_future.complete(None)


class _Ops:
    REGISTER = "REGISTER"
    UNREGISTER = "UNREGISTER"


class _Registration:
    def __init__(self, ops: str, listener: Any) -> None:
        self.ops = ops
        self.listener = listener


class ListenerContext(CloseListener):
    """One registered listener: how far it has read (`next_offset`), the reader it is still holding, and the last
    leader change it was told."""

    STARTING_NEXT_OFFSET = -1
    SMALLEST_LOG_OFFSET = 0

    def __init__(self, client: KafkaRaftClient, listener: Any) -> None:
        self.client = client
        self.listener = listener
        self.last_fired_leader_change = LeaderAndEpoch.UNKNOWN  # raft thread only
        # shared with the listener's thread (it closes readers): guarded by the lock
        self._lock = threading.Lock()
        self.last_sent: BatchReader | None = None
        self.next_offset = ListenerContext.STARTING_NEXT_OFFSET

    def get_next_offset(self) -> int:
        with self._lock:
            return self.next_offset

    def reset_offset_to_smallest_log_offset(self) -> None:
        """A new listener on an empty partition (no log, no snapshot) starts at 0."""
        with self._lock:
            self.next_offset = ListenerContext.SMALLEST_LOG_OFFSET

    def next_expected_offset(self) -> int | None:
        """Past the reader in flight, once its end is known; None while a reader from disk is still being read."""
        with self._lock:
            if self.last_sent is not None:
                last_sent_offset = self.last_sent.last_offset()
                return last_sent_offset + 1 if last_sent_offset is not None else None
            return self.next_offset

    def fire_handle_snapshot(self, reader: Any) -> None:
        with self._lock:
            self.next_offset = reader.snapshot_id().offset
            self.last_sent = None
        log.debug("Notifying listener %s of snapshot %s", self.listener_name(), reader.snapshot_id())
        self.listener.handle_load_snapshot(reader)

    def fire_handle_commit_from_log(self, base_offset: int, records: bytes) -> None:
        """Committed records a follower (or a new leader) reads back from disk."""
        self._fire_handle_commit(RecordsBatchReader.of(base_offset, records, self.client.serde, self))

    def fire_handle_commit(self, base_offset: int, epoch: int, append_timestamp: int, size_in_bytes: int,
                           records: list[T]) -> None:
        """Committed records the leader still holds from `prepare_append`: no read back from disk."""
        batch = Batch.data(base_offset, epoch, append_timestamp, size_in_bytes, records)
        self._fire_handle_commit(MemoryBatchReader.of([batch], self))

    def listener_name(self) -> str:
        return _listener_name(self.listener)

    def _fire_handle_commit(self, reader: BatchReader) -> None:
        with self._lock:
            self.last_sent = reader
        log.debug("Notifying listener %s of batch for baseOffset %d and lastOffset %s", self.listener_name(),
                  reader.base_offset(), reader.last_offset())
        self.listener.handle_commit(reader)

    def maybe_fire_leader_change(self, leader_and_epoch: LeaderAndEpoch) -> None:
        if self._should_fire_leader_change(leader_and_epoch):
            self.last_fired_leader_change = leader_and_epoch
            log.debug("Notifying listener %s of leader change %s", self.listener_name(), leader_and_epoch)
            self.listener.handle_leader_change(leader_and_epoch)

    def _should_fire_leader_change(self, leader_and_epoch: LeaderAndEpoch) -> bool:
        if leader_and_epoch == self.last_fired_leader_change:
            return False
        if leader_and_epoch.epoch > self.last_fired_leader_change.epoch:
            return True
        return leader_and_epoch.leader_id is not None and self.last_fired_leader_change.leader_id is None

    def maybe_fire_leader_change_as_leader(self, leader_and_epoch: LeaderAndEpoch, epoch_start_offset: int) -> None:
        # The new leader's listener hears of its leadership only once it has read past the epoch's start: it has
        # then seen everything committed before, and may write. (Reading past the start means the new high
        # watermark, at least epoch start + 1, was reached and consumed.)
        if self._should_fire_leader_change(leader_and_epoch) and self.get_next_offset() > epoch_start_offset:
            self.last_fired_leader_change = leader_and_epoch
            log.debug("Notifying listener %s of new leadership %s", self.listener_name(), leader_and_epoch)
            self.listener.handle_leader_change(leader_and_epoch)

    def on_close(self, reader: BatchReader) -> None:
        with self._lock:
            last_offset = reader.last_offset()
            if last_offset is not None:
                self.next_offset = last_offset + 1
            was_last_sent = self.last_sent is reader
            if was_last_sent:
                self.last_sent = None
        if was_last_sent:
            self.client._wakeup()  # the next batches may go now


def _listener_name(listener: Any) -> str:
    return f"{type(listener).__qualname__}@{id(listener):x}"


def _error_exception(error: Errors, message: str) -> Exception:
    """Errors.X.exception(message): an exception that travels back as `error`'s code."""
    if error is Errors.NOT_LEADER_OR_FOLLOWER:
        return NotLeaderForPartitionException(message)  # 1.0.2's name for NotLeaderOrFollowerException
    raise ValueError(f"No exception for {error.name}")


def _optional_leader_id(leader_id_or_nil: int) -> int | None:
    return None if leader_id_or_nil < 0 else int(leader_id_or_nil)


def _is_partition_diverged(partition_response: Any) -> bool:
    diverging_epoch = partition_response.diverging_epoch
    return diverging_epoch.epoch != -1 or diverging_epoch.end_offset != -1


def _is_partition_snapshotted(partition_response: Any) -> bool:
    snapshot_id = partition_response.snapshot_id
    return snapshot_id.epoch != -1 or snapshot_id.end_offset != -1


def _vote_request_voter_key(request: Any, partition_request: Any) -> ReplicaKey | None:
    """RaftUtil.voteRequestVoterKey: v1 names the voter it is meant for; v0 names none."""
    voter_id = getattr(request, "voter_id", -1)
    if voter_id is None or voter_id < 0:
        return None
    return ReplicaKey.of(int(voter_id), getattr(partition_request, "voter_directory_id", None))


def _begin_quorum_epoch_request_voter_key(request: Any, partition_request: Any) -> ReplicaKey | None:
    voter_id = getattr(request, "voter_id", -1)
    if voter_id is None or voter_id < 0:
        return None
    return ReplicaKey.of(int(voter_id), getattr(partition_request, "voter_directory_id", None))
