"""Port of raft/src/test/java/org/apache/kafka/raft/RaftEventSimulationTest.java (Kafka 3.9): the classes of Kafka's
deterministic simulation of a raft quorum in one process, without its @Property cases (those are in
tests/kafka_tests/v3_9/raft/raft/raft_event_simulation_test.py; `kafka-edu raft-sim` runs the simulation too).

Every node is a real KafkaRaftClient over test doubles: a MockLog and a MockQuorumStateStore that outlive the node
(PersistentState, so a node can be killed and started again), a MockNetworkChannel, a MockMessageQueue. One
EventScheduler holds every periodic action (each node's poll, the router's delivery, the leader's next append) in a
queue ordered by deadline on one MockTime, and one seeded Random decides every jitter: a seed replays a run exactly.
The MessageRouter moves requests and responses between the nodes' channels, through per-node NetworkFilters that
drop traffic (a partition, or a dead link). After each event the scheduler checks the invariants (one leader per
epoch, epochs and the high watermark never go back, a majority holds what is committed, a snapshot sits at the log
start, a leader never loads a snapshot); when a run ends it validates that every node holds the same committed data.

Our additions, for `kafka-edu raft-sim` (Kafka's test needs none of them): `RandomDrop`, a filter that loses each
message with a probability; `SimulationHooks`, how a caller runs each node's work in a scope of its own and carries
the sender's trace context in the requests (a real channel puts it in the request header); `Cluster(first_node_id=)`
(a real KRaft run numbers its controllers from 1); `EventScheduler.events_run` and `InvariantViolation`, which say
at which event and by which invariant a run failed. Static voters carry no directory id here (as the port's
KafkaRaftClient documents), and the port has no memory pool or metrics: Kafka's `BatchMemoryPool` and `Metrics` are
left out.
"""

from __future__ import annotations

import bisect
import contextlib
import heapq
import itertools
import logging
import random as _random
import struct
from collections.abc import Callable, Iterable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any, Protocol

from kafka_edu.v1_0_2.core.log.log import TopicPartition
from kafka_edu.v3_9.clients.common.utils.mock_time import MockTime
from kafka_edu.v3_9.clients.common.uuid import METADATA_TOPIC_ID, Uuid
from kafka_edu.v3_9.raft.raft.endpoints import Endpoints
from kafka_edu.v3_9.raft.raft.kafka_raft_client import MAX_BATCH_SIZE_BYTES, KafkaRaftClient
from kafka_edu.v3_9.raft.raft.mock_expiration_service import MockExpirationService
from kafka_edu.v3_9.raft.raft.mock_log import LogBatch, MockLog
from kafka_edu.v3_9.raft.raft.mock_message_queue import MockMessageQueue
from kafka_edu.v3_9.raft.raft.mock_network_channel import MockNetworkChannel
from kafka_edu.v3_9.raft.raft.mock_quorum_state_store import MockQuorumStateStore
from kafka_edu.v3_9.raft.raft.offset_and_epoch import OffsetAndEpoch
from kafka_edu.v3_9.raft.raft.quorum_config import QuorumConfig
from kafka_edu.v3_9.raft.raft.raft_message import (
    InboundRequest,
    InboundResponse,
    OutboundRequest,
    OutboundResponse,
    RaftMessage,
)
from kafka_edu.v3_9.raft.raft.replicated_counter import ReplicatedCounter
from kafka_edu.v3_9.raft.raft.valid_offset_and_epoch import ValidOffsetAndEpoch
from kafka_edu.v3_9.raft.raft.voter_set import Node
from kafka_edu.v3_9.raft.snapshot.records_snapshot_reader import RecordsSnapshotReader

log = logging.getLogger("org.apache.kafka.raft.RaftEventSimulationTest")

METADATA_PARTITION = TopicPartition("__cluster_metadata", 0)
ELECTION_TIMEOUT_MS = 1000
ELECTION_JITTER_MS = 100
FETCH_TIMEOUT_MS = 3000
RETRY_BACKOFF_MS = 50
REQUEST_TIMEOUT_MS = 3000
FETCH_MAX_WAIT_MS = 100
LINGER_MS = 0
PORT = 1234


# -- hooks (our addition): how a caller wraps each node's work -------------------------------------------------------

class SimulationHooks:
    """No-ops by default. `node_scope(node_id)` is entered around everything a node's own code does (its start, its
    polls, the leader's appends, its shutdown); `traceparent()` is read when a node sends a request, and handed to
    the receiver with it."""

    def node_scope(self, node_id: int) -> AbstractContextManager[Any]:
        return contextlib.nullcontext()

    def traceparent(self) -> str | None:
        return None


_NO_HOOKS = SimulationHooks()


class SimulatedNetworkChannel(MockNetworkChannel):
    """MockNetworkChannel that remembers, with each request sent, the sender's trace context (the hooks')."""

    def __init__(self, correlation_id_counter: Any, hooks: SimulationHooks) -> None:
        super().__init__(correlation_id_counter)
        self._hooks = hooks
        self.traceparents: dict[int, str] = {}

    def send(self, request: OutboundRequest) -> None:
        traceparent = self._hooks.traceparent()
        if traceparent is not None:
            self.traceparents[request.correlation_id] = traceparent
        super().send(request)


# -- events and the scheduler ----------------------------------------------------------------------------------------

class Event:
    def __init__(self, action: Callable[[], None], event_id: int, deadline_ms: int) -> None:
        self.action = action
        self.event_id = event_id
        self.deadline_ms = deadline_ms

    def execute(self, scheduler: EventScheduler) -> None:
        self.action()

    def __lt__(self, other: Event) -> bool:
        return (self.deadline_ms, self.event_id) < (other.deadline_ms, other.event_id)


class PeriodicEvent(Event):
    def __init__(self, action: Callable[[], None], event_id: int, random: _random.Random, deadline_ms: int,
                 period_ms: int, jitter_ms: int) -> None:
        super().__init__(action, event_id, deadline_ms)
        self.random = random
        self.period_ms = period_ms
        self.jitter_ms = jitter_ms

    def execute(self, scheduler: EventScheduler) -> None:
        super().execute(scheduler)
        next_exec_delay_ms = self.period_ms + (0 if self.jitter_ms == 0 else self.random.randrange(self.jitter_ms))
        scheduler.schedule(self.action, next_exec_delay_ms, self.period_ms, self.jitter_ms)


class SequentialAppendAction:
    def __init__(self, cluster: Cluster) -> None:
        self.cluster = cluster

    def __call__(self) -> None:
        def append(node: RaftNode) -> None:
            if not node.client.is_shutting_down() and node.counter.is_writable():
                node.counter.increment()
        self.cluster.with_current_leader(append)


class Invariant(Protocol):
    def verify(self) -> None: ...


class Validation(Protocol):
    def validate(self) -> None: ...


class InvariantViolation(AssertionError):
    """An invariant failed after an event (our addition: which one, and after how many events)."""

    def __init__(self, invariant: str, event: int, message: str) -> None:
        super().__init__(f"{invariant} violated after event {event}: {message}")
        self.invariant = invariant
        self.event = event
        self.message = message


class EventScheduler:
    MAX_ITERATIONS = 500_000

    def __init__(self, random: _random.Random, time: MockTime) -> None:
        self._event_ids = itertools.count(1)
        self.queue: list[Event] = []
        self.random = random
        self.time = time
        self.invariants: list[Invariant] = []
        self.validations: list[Validation] = []
        self.events_run = 0

    def add_invariant(self, invariant: Invariant) -> None:
        """Checked after every event."""
        self.invariants.append(invariant)

    def add_validation(self, validation: Validation) -> None:
        """Checked when a run ends."""
        self.validations.append(validation)

    def schedule(self, action: Callable[[], None], delay_ms: int, period_ms: int, jitter_ms: int) -> None:
        initial_deadline_ms = self.time.milliseconds() + delay_ms
        event = PeriodicEvent(action, next(self._event_ids), self.random, initial_deadline_ms, period_ms, jitter_ms)
        heapq.heappush(self.queue, event)

    def run_until(self, exit_condition: Callable[[], bool]) -> None:
        for _ in range(self.MAX_ITERATIONS):
            if exit_condition():
                break
            if not self.queue:
                raise RuntimeError("Event queue exhausted before condition was satisfied")
            event = heapq.heappop(self.queue)
            delay_ms = max(event.deadline_ms - self.time.milliseconds(), 0)
            self.time.sleep(delay_ms)
            event.execute(self)
            self.events_run += 1
            self._verify_invariants()
        assert exit_condition(), f"Simulation condition was not satisfied after {self.MAX_ITERATIONS} iterations"
        for validation in self.validations:
            validation.validate()

    def _verify_invariants(self) -> None:
        for invariant in self.invariants:
            try:
                invariant.verify()
            except InvariantViolation:
                raise
            except AssertionError as e:
                raise InvariantViolation(type(invariant).__name__, self.events_run, str(e)) from e


# -- the nodes -------------------------------------------------------------------------------------------------------

class SimulationLog(MockLog):
    """MockLog, quicker where the simulation leans on it (Java runs MockLog's linear searches fast enough; Python,
    over the thousands of records and dozens of snapshots of a long run, does not):

    - its earliest and latest snapshot ids are remembered until its snapshots change. Kafka's MockLog keeps them in
      a TreeMap and finds either end at once; the port's dict is searched end to end, and the simulation asks on
      every node after every event (SnapshotAtLogStart). MockLog only ever adds a snapshot to its dict or replaces
      the dict, so (the dict, its size) says whether the answer still holds;
    - `read` hands MockLog's read only the batches from the first one that ends at or past the start offset (the
      batches are in offset order; MockLog's read skips the ones before it one by one).
    """

    def __init__(self, topic_partition: TopicPartition, topic_id: Any) -> None:
        super().__init__(topic_partition, topic_id)
        self._ends_of: tuple[Any, int] | None = None
        self._ends: tuple[OffsetAndEpoch | None, OffsetAndEpoch | None] = (None, None)

    def _snapshot_ends(self) -> tuple[OffsetAndEpoch | None, OffsetAndEpoch | None]:
        snapshots = self.snapshots
        if self._ends_of is None or self._ends_of[0] is not snapshots or self._ends_of[1] != len(snapshots):
            self._ends = (super().earliest_snapshot_id(), super().latest_snapshot_id())
            self._ends_of = (snapshots, len(snapshots))
        return self._ends

    def earliest_snapshot_id(self) -> OffsetAndEpoch | None:
        return self._snapshot_ends()[0]

    def latest_snapshot_id(self) -> OffsetAndEpoch | None:
        return self._snapshot_ends()[1]

    def read(self, start_offset: int, isolation: Any) -> Any:
        self._verify_offset_in_range(start_offset)  # against the whole log, before the batches are narrowed
        batches = self.batches
        first = bisect.bisect_left(batches, start_offset, key=LogBatch.last_offset)
        if first == 0:
            return super().read(start_offset, isolation)
        self.batches = batches[first - 1:]  # one batch before: the log's start offset stays below start_offset
        try:
            return super().read(start_offset, isolation)
        finally:
            self.batches = batches


class PersistentState:
    """What survives a node's restart: its quorum-state file and its log (minus what was not flushed)."""

    def __init__(self, node_id: int) -> None:
        self.store = MockQuorumStateStore()
        self.node_directory_id = None  # static voters: see the module docstring
        self.log = SimulationLog(METADATA_PARTITION, METADATA_TOPIC_ID)


class IntSerde:
    """RecordSerde<Integer>: a record value is a 4-byte big-endian int."""

    def record_size(self, data: int, serialization_cache: Any = None) -> int:
        return 4

    def write(self, data: int, serialization_cache: Any, out: Any) -> None:
        out.write(struct.pack(">i", data))

    def read(self, input: bytes | memoryview, size: int) -> int:
        return struct.unpack(">i", bytes(input[:4]))[0]


def _int32(value: bytes) -> int:
    return struct.unpack(">i", bytes(value[:4]))[0]


class RaftNode:
    def __init__(self, node_id: int, client: KafkaRaftClient[int], log_: MockLog, channel: MockNetworkChannel,
                 message_queue: MockMessageQueue, store: MockQuorumStateStore, time: MockTime,
                 random: _random.Random, int_serde: IntSerde) -> None:
        self.node_id = node_id
        self.client = client
        self.log = log_
        self.channel = channel
        self.message_queue = message_queue
        self.store = store
        self.counter = ReplicatedCounter(node_id, client)
        self.int_serde = int_serde

    def initialize(self, voter_addresses: dict[int, tuple[str, int]], metrics: Any = None) -> None:
        self.client.register(self.counter)
        self.client.initialize(voter_addresses, self.store, metrics)

    def poll(self) -> None:
        try:
            while True:
                self.client.poll()
                if not (self.client.is_running() and not self.message_queue.is_empty()):
                    break
        except Exception as e:
            raise RuntimeError(f"Uncaught exception during poll of node {self.node_id}") from e

    def high_watermark(self) -> int:
        high_watermark = self.client.quorum.high_watermark()
        return high_watermark.offset if high_watermark is not None else 0

    def log_end_offset(self) -> int:
        return self.log.end_offset().offset

    def __repr__(self) -> str:
        return f"Node(id={self.node_id}, hw={self.high_watermark()}, logEndOffset={self.log_end_offset()})"


@dataclass
class InflightRequest:
    source_id: int
    destination: Node


class Cluster:
    def __init__(self, num_voters: int, num_observers: int, random: _random.Random, *, first_node_id: int = 0,
                 hooks: SimulationHooks | None = None) -> None:
        self.random = random
        self.correlation_id_counter = itertools.count()
        self.time = MockTime()
        self.cluster_id = str(Uuid.random_uuid())
        self.voters: dict[int, Node] = {}
        self.nodes: dict[int, PersistentState] = {}
        self.running_nodes: dict[int, RaftNode] = {}
        self.hooks = hooks or _NO_HOOKS
        for node_id in range(first_node_id, first_node_id + num_voters):
            self.voters[node_id] = self.node_from_id(node_id)
            self.nodes[node_id] = PersistentState(node_id)
        for node_id in range(first_node_id + num_voters, first_node_id + num_voters + num_observers):
            self.nodes[node_id] = PersistentState(node_id)

    def endpoints_from_ids(self, node_ids: Iterable[int]) -> set[tuple[str, int]]:
        wanted = set(node_ids)
        return {self.node_address(node) for node in self.voters.values() if node.id in wanted}

    def node_ids(self) -> list[int]:
        return list(self.nodes)

    def majority_size(self) -> int:
        return len(self.voters) // 2 + 1

    def max_log_end_offset(self) -> int:
        return max((node.log_end_offset() for node in self.running()), default=0)

    def leader_high_watermark(self) -> int | None:
        leaders = [node for node in self.running() if node.client.quorum.is_leader()]
        if not leaders:
            return None
        # Kafka's comparator is reversed: Stream.max picks the leader of the *lowest* epoch, the first one on a tie
        leader = min(leaders, key=lambda node: node.client.quorum.epoch())
        return leader.client.high_watermark()

    def any_reached_high_watermark(self, offset: int) -> bool:
        return any(node.high_watermark() > offset for node in self.running())

    def max_high_watermark_reached(self, node_ids: Iterable[int] | None = None) -> int:
        wanted = None if node_ids is None else set(node_ids)
        return max((node.high_watermark() for node in self.running() if wanted is None or node.node_id in wanted),
                   default=0)

    def all_reached_high_watermark(self, offset: int, node_ids: Iterable[int] | None = None) -> bool:
        if node_ids is None:
            return all(node.high_watermark() >= offset for node in self.running())
        return all(self.running_nodes[node_id].high_watermark() >= offset for node_id in node_ids)

    def has_leader(self, node_id: int) -> bool:
        return self.latest_leader() == node_id

    def latest_leader(self) -> int | None:
        latest_leader = None
        latest_epoch = 0
        for node in self.running():
            quorum = node.client.quorum
            if quorum.epoch() > latest_epoch:
                latest_leader = quorum.leader_id()
                latest_epoch = quorum.epoch()
            elif quorum.epoch() == latest_epoch and quorum.leader_id() is not None:
                latest_leader = quorum.leader_id()
        return latest_leader

    def has_consistent_leader(self) -> bool:
        nodes = self.running()
        if not nodes:
            return False
        election = nodes[0].store.read_election_state()
        if not election.has_leader():
            return False
        return all(election == node.store.read_election_state() for node in nodes[1:])

    def kill_all(self) -> None:
        self.running_nodes.clear()

    def kill(self, node_id: int) -> None:
        self.running_nodes.pop(node_id, None)

    def shutdown(self, node_id: int) -> None:
        node = self.running_nodes.get(node_id)
        if node is None:
            raise RuntimeError("Attempt to shutdown a node which is not currently running")
        with self.hooks.node_scope(node_id):
            future = node.client.shutdown(500)
        future.when_complete(lambda result, exception: self.kill(node_id))

    def poll_if_running(self, node_id: int) -> None:
        node = self.running_nodes.get(node_id)
        if node is not None:
            with self.hooks.node_scope(node_id):
                node.poll()

    def node_if_running(self, node_id: int) -> RaftNode | None:
        return self.running_nodes.get(node_id)

    def running(self) -> list[RaftNode]:
        """The running nodes by id (Java's HashMap of small Integer keys iterates so)."""
        return [self.running_nodes[node_id] for node_id in sorted(self.running_nodes)]

    def if_running(self, node_id: int, action: Callable[[RaftNode], None]) -> None:
        node = self.running_nodes.get(node_id)
        if node is not None:
            action(node)

    def random_running(self) -> RaftNode | None:
        nodes = self.running()
        return nodes[self.random.randrange(len(nodes))] if nodes else None

    def with_current_leader(self, action: Callable[[RaftNode], None]) -> None:
        for node in self.running():
            if node.client.quorum.is_leader():
                with self.hooks.node_scope(node.node_id):
                    action(node)

    def for_all_running(self, action: Callable[[RaftNode], None]) -> None:
        for node in self.running():
            action(node)

    def start_all(self) -> None:
        if self.running_nodes:
            raise RuntimeError("Some nodes are already started")
        for node_id in self.nodes:
            self.start(node_id)

    def kill_and_delete_persistent_state(self, node_id: int) -> None:
        self.kill(node_id)
        self.nodes[node_id] = PersistentState(node_id)

    @staticmethod
    def node_address(node: Node) -> tuple[str, int]:
        return (node.host, node.port)

    @staticmethod
    def node_from_id(node_id: int) -> Node:
        return Node(node_id, Cluster.host_from_id(node_id), PORT)

    @staticmethod
    def host_from_id(node_id: int) -> str:
        return f"host-node-{node_id}"

    @staticmethod
    def endpoints_from_id(node_id: int, listener_name: str) -> Endpoints:
        return Endpoints.from_inet_socket_addresses({listener_name: (Cluster.host_from_id(node_id), PORT)})

    def start(self, node_id: int) -> None:
        persistent_state = self.nodes[node_id]
        channel = SimulatedNetworkChannel(self.correlation_id_counter, self.hooks)
        message_queue = MockMessageQueue()
        voter_address_map = {node.id: self.node_address(node) for node in self.voters.values()}
        quorum_config = QuorumConfig.of(REQUEST_TIMEOUT_MS, RETRY_BACKOFF_MS, ELECTION_TIMEOUT_MS,
                                        ELECTION_JITTER_MS, FETCH_TIMEOUT_MS, LINGER_MS)
        persistent_state.log.reopen()
        serde = IntSerde()
        client: KafkaRaftClient[int] = KafkaRaftClient(
            node_id, serde, channel, persistent_state.log, MockExpirationService(self.time), self.cluster_id,
            self.endpoints_from_id(node_id, channel.listener_name()), quorum_config, message_queue=message_queue,
            fetch_max_wait_ms=FETCH_MAX_WAIT_MS, followers_always_flush=True, random=self.random,
            node_directory_id=persistent_state.node_directory_id, time=self.time)
        node = RaftNode(node_id, client, persistent_state.log, channel, message_queue, persistent_state.store,
                        self.time, self.random, serde)
        with self.hooks.node_scope(node_id):
            node.initialize(voter_address_map)
        self.running_nodes[node_id] = node


# -- the network ---------------------------------------------------------------------------------------------------

class NetworkFilter(Protocol):
    def accept_inbound(self, message: RaftMessage) -> bool: ...

    def accept_outbound(self, message: RaftMessage) -> bool: ...


class PermitAllTraffic:
    def accept_inbound(self, message: RaftMessage) -> bool:
        return True

    def accept_outbound(self, message: RaftMessage) -> bool:
        return True


class DropAllTraffic:
    def accept_inbound(self, message: RaftMessage) -> bool:
        return False

    def accept_outbound(self, message: RaftMessage) -> bool:
        return False


class DropOutboundRequestsTo:
    """Drops the requests this node sends to the `unreachable` addresses (the node's id is not compared)."""

    def __init__(self, unreachable: set[tuple[str, int]]) -> None:
        self.unreachable = unreachable

    def accept_inbound(self, message: RaftMessage) -> bool:
        return True

    def accept_outbound(self, message: RaftMessage) -> bool:
        if isinstance(message, OutboundRequest):
            return (message.destination.host, message.destination.port) not in self.unreachable
        return True


class RandomDrop:
    """Our addition: loses each message this node sends (requests and responses) with `probability`, decided by the
    simulation's Random, so a seed still replays the same losses."""

    def __init__(self, random: _random.Random, probability: float) -> None:
        self.random = random
        self.probability = probability
        self.dropped = 0

    def accept_inbound(self, message: RaftMessage) -> bool:
        return True

    def accept_outbound(self, message: RaftMessage) -> bool:
        if self.probability > 0 and self.random.random() < self.probability:
            self.dropped += 1
            return False
        return True


class MessageRouter:
    def __init__(self, cluster: Cluster) -> None:
        self.cluster = cluster
        self.inflight: dict[int, InflightRequest] = {}
        self.filters: dict[int, NetworkFilter] = {node_id: PermitAllTraffic() for node_id in cluster.nodes}

    def deliver_request(self, sender_id: int, outbound: OutboundRequest) -> None:
        sender = self.cluster.node_if_running(sender_id)
        traceparent = sender.channel.traceparents.pop(outbound.correlation_id, None) \
            if isinstance(sender.channel, SimulatedNetworkChannel) else None
        if not self.filters[sender_id].accept_outbound(outbound):
            return
        correlation_id = outbound.correlation_id
        destination = outbound.destination
        inbound = InboundRequest(correlation_id, outbound.api_version, outbound.data, self.cluster.time.milliseconds(),
                                 sender.channel.listener_name(), traceparent=traceparent)
        if not self.filters[destination.id].accept_inbound(inbound):
            return
        node = self.cluster.node_if_running(destination.id)
        if node is None:
            return
        self.inflight[correlation_id] = InflightRequest(sender_id, destination)

        def on_response(response: OutboundResponse | None, exception: BaseException | None) -> None:
            if response is not None and self.filters[destination.id].accept_outbound(response):
                self.deliver_response(response)

        inbound.completion.when_complete(on_response)
        with self.cluster.hooks.node_scope(destination.id):
            node.client.handle(inbound)

    def deliver_response(self, outbound: OutboundResponse) -> None:
        correlation_id = outbound.correlation_id
        inflight_request = self.inflight.pop(correlation_id)
        # the source of the response is the destination of the request
        inbound = InboundResponse(correlation_id, outbound.data, inflight_request.destination)
        if not self.filters[inflight_request.source_id].accept_inbound(inbound):
            return
        node = self.cluster.node_if_running(inflight_request.source_id)
        if node is not None:
            node.channel.mock_receive(inbound)

    def filter(self, node_id: int, network_filter: NetworkFilter) -> None:
        self.filters[node_id] = network_filter

    def deliver_to(self, node: RaftNode) -> None:
        for message in node.channel.drain_send_queue():
            self.deliver_request(node.node_id, message)

    def deliver_all(self) -> None:
        for node in self.cluster.running():
            self.deliver_to(node)


# -- invariants and the validation -------------------------------------------------------------------------------------

class MonotonicEpoch:
    def __init__(self, cluster: Cluster) -> None:
        self.cluster = cluster
        self.node_epochs = {node_id: 0 for node_id in cluster.nodes}

    def verify(self) -> None:
        for node_id, state in self.cluster.nodes.items():
            old_epoch = self.node_epochs.get(node_id, 0)
            election_state = state.store.read_election_state()
            if election_state is None:
                continue
            new_epoch = election_state.epoch
            if old_epoch > new_epoch:
                raise AssertionError(f"Non-monotonic update of epoch detected on node {node_id}: {old_epoch} -> "
                                     f"{new_epoch}")
            node = self.cluster.node_if_running(node_id)
            if node is not None:
                assert new_epoch == node.client.quorum.epoch(), (new_epoch, node.client.quorum.epoch())
            self.node_epochs[node_id] = new_epoch


class MajorityReachedHighWatermark:
    def __init__(self, cluster: Cluster) -> None:
        self.cluster = cluster

    def verify(self) -> None:
        high_watermark = self.cluster.leader_high_watermark()
        if high_watermark is None:
            return
        num_reached = sum(1 for node_id, state in self.cluster.nodes.items()
                          if node_id in self.cluster.voters and state.log.end_offset().offset >= high_watermark)
        assert num_reached >= self.cluster.majority_size(), "Insufficient nodes have reached current high watermark"


class SingleLeader:
    def __init__(self, cluster: Cluster) -> None:
        self.cluster = cluster
        self.epoch = 0
        self.leader_id: int | None = None

    def verify(self) -> None:
        for state in self.cluster.nodes.values():
            election = state.store.read_election_state()
            if election is None or not (election.epoch >= self.epoch and election.has_leader()):
                continue
            if self.epoch == election.epoch and self.leader_id is not None:
                assert self.leader_id == election.leader_id_or_throw(), \
                    f"two leaders in epoch {self.epoch}: {self.leader_id} and {election.leader_id_or_throw()}"
            else:
                self.epoch = election.epoch
                self.leader_id = election.leader_id_or_throw()


class MonotonicHighWatermark:
    def __init__(self, cluster: Cluster) -> None:
        self.cluster = cluster
        self.high_watermark = 0

    def verify(self) -> None:
        new_high_watermark = self.cluster.leader_high_watermark()
        if new_high_watermark is None:
            return
        old_high_watermark = self.high_watermark
        self.high_watermark = new_high_watermark
        if new_high_watermark < old_high_watermark:
            raise AssertionError(f"Non-monotonic update of high watermark detected: {old_high_watermark} -> "
                                 f"{new_high_watermark}")


class SnapshotAtLogStart:
    def __init__(self, cluster: Cluster) -> None:
        self.cluster = cluster

    def verify(self) -> None:
        for node_id, state in self.cluster.nodes.items():
            log_ = state.log
            earliest_snapshot_id = log_.earliest_snapshot_id()
            if earliest_snapshot_id is None:
                continue
            log_start_offset = log_.start_offset()
            validated = log_.validate_offset_and_epoch(earliest_snapshot_id.offset, earliest_snapshot_id.epoch)
            assert log_start_offset <= earliest_snapshot_id.offset, (
                f"invalid log start offset ({log_start_offset}) and snapshotId offset "
                f"({earliest_snapshot_id.offset}): nodeId = {node_id}")
            assert ValidOffsetAndEpoch.valid(earliest_snapshot_id) == validated, \
                f"invalid leader epoch cache: nodeId = {node_id}"
            if log_start_offset > 0:
                assert log_start_offset == earliest_snapshot_id.offset, \
                    f"missing snapshot at log start offset: nodeId = {node_id}"


class LeaderNeverLoadSnapshot:
    def __init__(self, cluster: Cluster) -> None:
        self.cluster = cluster

    def verify(self) -> None:
        for node in self.cluster.running():
            if node.counter.is_writable():
                assert node.counter.handle_load_snapshot_calls() == 0, \
                    f"leader {node.node_id} was asked to load a snapshot"


class ConsistentCommittedData:
    """Validated when a run ends: below its high watermark, every running node holds the sequence numbers every
    other node held at those offsets (snapshots included)."""

    def __init__(self, cluster: Cluster) -> None:
        self.cluster = cluster
        self.committed_sequence_numbers: dict[int, int] = {}

    def _assert_committed_data(self, node: RaftNode) -> None:
        node_id = node.node_id
        high_watermark = node.client.high_watermark()
        if high_watermark is None:
            return  # no validation while the high watermark is unknown
        start_offset = 0
        snapshot_id = node.log.earliest_snapshot_id()
        if snapshot_id is not None:
            assert snapshot_id.offset <= high_watermark
            start_offset = snapshot_id.offset
            snapshot = RecordsSnapshotReader.of(node.log.read_snapshot(snapshot_id), node.int_serde,
                                                MAX_BATCH_SIZE_BYTES, True)
            try:
                # the counter's state is one value: one batch with one record
                sequence = None
                while snapshot.has_next():
                    batch = snapshot.next()
                    if batch.records:
                        assert len(batch.records) == 1
                        assert sequence is None
                        sequence = batch.records[0]
                offset = snapshot_id.offset - 1  # the snapshot id's offset is an end offset
                self.committed_sequence_numbers.setdefault(offset, sequence)
                assert self.committed_sequence_numbers[offset] == sequence, \
                    f"Committed sequence at offset {offset} changed on node {node_id}"
            finally:
                snapshot.close()
        for batch in node.log.read_batches(start_offset, high_watermark):
            if batch.is_control_batch:
                continue
            for entry in batch.entries:
                offset = entry.offset
                assert offset < high_watermark
                sequence = _int32(entry.record.value)
                self.committed_sequence_numbers.setdefault(offset, sequence)
                assert self.committed_sequence_numbers[offset] == sequence, \
                    f"Committed sequence at offset {offset} changed on node {node_id}"

    def validate(self) -> None:
        self.cluster.for_all_running(self._assert_committed_data)


# -- the scenarios' common set-up ------------------------------------------------------------------------------------

DEFAULT_INVARIANTS = (MonotonicHighWatermark, MonotonicEpoch, MajorityReachedHighWatermark, SingleLeader,
                      SnapshotAtLogStart, LeaderNeverLoadSnapshot)


def scheduler_with_default_invariants(cluster: Cluster) -> EventScheduler:
    scheduler = EventScheduler(cluster.random, cluster.time)
    for invariant in DEFAULT_INVARIANTS:
        scheduler.add_invariant(invariant(cluster))
    scheduler.add_validation(ConsistentCommittedData(cluster))
    return scheduler


def schedule_polling(scheduler: EventScheduler, cluster: Cluster, poll_interval_ms: int, poll_jitter_ms: int) -> None:
    for delay_ms, node_id in enumerate(cluster.node_ids()):
        scheduler.schedule(lambda node_id=node_id: cluster.poll_if_running(node_id), delay_ms, poll_interval_ms,
                           poll_jitter_ms)
