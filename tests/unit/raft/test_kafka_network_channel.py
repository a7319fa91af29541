"""Our own tests (not a port of Kafka's KafkaNetworkChannelTest, which runs on MockClient): the raft send thread of
KafkaNetworkChannel over real 127.0.0.1 sockets, and how it connects to voters.

A voter whose packets are dropped is a listening socket with `listen(0)` whose accept queue is already full: Linux
drops every further SYN to it, so a connect to it neither completes nor fails until the connecting side gives up.
The channel's connect is non-blocking, so such a voter holds up only the requests sent to it.
"""

from __future__ import annotations

import logging
import os
import resource
import select
import socket
import struct
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass

import pytest

from kafka_edu.cluster_runner.processes import free_port
from kafka_edu.v3_9.clients.common.protocol.api_keys import ApiKeys
from kafka_edu.v3_9.clients.common.protocol.codec import encode_response
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from kafka_edu.v3_9.clients.common.topic_partition import TopicPartition
from kafka_edu.v3_9.raft.raft import raft_util
from kafka_edu.v3_9.raft.raft.endpoints import Endpoints
from kafka_edu.v3_9.raft.raft.kafka_network_channel import KafkaNetworkChannel
from kafka_edu.v3_9.raft.raft.raft_message import InboundResponse, OutboundRequest
from kafka_edu.v3_9.raft.raft.replica_key import ReplicaKey
from kafka_edu.v3_9.raft.raft.voter_set import Node
from tests.integration.helpers import wait_until
from tests.unit.raft.raft_cluster import CLUSTER_ID, _read, decode_raft_request

METADATA = TopicPartition("__cluster_metadata", 0)
CANDIDATE = ReplicaKey.of(1, ReplicaKey.NO_DIRECTORY_ID)
CANDIDATE_EPOCH = 5
WAIT_S = 30  # deadline of every wait: generous, a loaded machine is slow; the assertions are on order and errors
CHANNEL_LOGGER = "org.apache.kafka.raft.KafkaNetworkChannel"
_SIZE = struct.Struct(">i")


class Voter:
    """A voter on 127.0.0.1 that grants every Vote request (or, not `answering`, reads them and never answers), one
    request at a time per connection, once `serve` is called. Before that it accepts nothing; `fill_accept_queue`
    then makes it a voter whose packets are dropped."""

    def __init__(self, node_id: int, answering: bool = True) -> None:
        self.answering = answering
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(0)
        self.node = Node(node_id, "127.0.0.1", self.sock.getsockname()[1])
        self.received: list[int] = []  # correlation ids of the Vote requests, in arrival order
        self.fillers: list[socket.socket] = []
        self.connections: list[socket.socket] = []
        self.running = True
        self.thread: threading.Thread | None = None

    def fill_accept_queue(self) -> None:
        """Two connects that are never accepted: the first fills the queue of `listen(0)`, the second (and any later
        one) has its SYN dropped."""
        for _ in range(2):
            client = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            client.setblocking(False)
            client.connect_ex(self.node_address())
            self.fillers.append(client)
        # the first connect completes at once on loopback: until then the queue has room for the channel's connect
        poller = select.poll()  # not select.select: the suite's worker has descriptors numbered above 1024
        poller.register(self.fillers[0], select.POLLOUT)
        assert poller.poll(WAIT_S * 1000), "the first connect to a listen(0) socket did not complete"

    def node_address(self) -> tuple[str, int]:
        return self.node.host, self.node.port

    def serve(self) -> None:
        self.sock.settimeout(0.2)
        self.thread = threading.Thread(target=self._accept, name=f"test-voter-{self.node.id}", daemon=True)
        self.thread.start()

    def _accept(self) -> None:
        while self.running:
            try:
                conn, _ = self.sock.accept()
            except (TimeoutError, OSError):
                continue
            self.connections.append(conn)
            threading.Thread(target=self._answer, args=(conn,), daemon=True).start()

    def _answer(self, conn: socket.socket) -> None:
        try:
            while self.running:
                request = decode_raft_request(_read(conn, _SIZE.unpack(_read(conn, 4))[0]))
                assert request.api_key is ApiKeys.VOTE, request
                self.received.append(request.correlation_id)
                if not self.answering:
                    continue
                body = raft_util.singleton_vote_response("CONTROLLER", request.api_version, Errors.NONE, METADATA,
                                                         Errors.NONE, CANDIDATE_EPOCH, -1, True, Endpoints.empty())
                payload = encode_response(request.api_key, request.api_version, request.correlation_id, body)
                conn.sendall(_SIZE.pack(len(payload)) + payload)
        except (OSError, ConnectionError):
            pass  # a filler's connection, or the test is over
        finally:
            conn.close()

    def close(self) -> None:
        self.running = False
        self.sock.close()
        for conn in self.connections + self.fillers:
            try:
                conn.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            conn.close()
        if self.thread is not None:
            self.thread.join(5)


@dataclass
class Completion:
    correlation_id: int
    elapsed_s: float  # from the test's send
    response: InboundResponse

    @property
    def error(self) -> Errors:
        return Errors.for_code(self.response.data.error_code)


class Completions:
    """Each request's completion, in the order the send thread completed them."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.done: list[Completion] = []

    def track(self, request: OutboundRequest) -> OutboundRequest:
        sent = time.monotonic()

        def record(response: InboundResponse | None, error: BaseException | None) -> None:
            assert error is None and response is not None, error
            with self.lock:
                self.done.append(Completion(request.correlation_id, time.monotonic() - sent, response))
        request.completion.when_complete(record)
        return request

    def wait_for(self, count: int, channel: KafkaNetworkChannel | None = None) -> list[Completion]:
        """The completions once `count` are in; with `channel`, whatever is in once its send thread has died."""
        wait_until(lambda: len(self.done) >= count or (channel is not None and not send_thread_alive(channel)),
                   WAIT_S, f"{count} completed requests")
        with self.lock:
            return list(self.done)


@pytest.fixture
def voters() -> Iterator[list[Voter]]:
    made: list[Voter] = []
    yield made
    for voter in made:
        voter.close()


def make_channel(request_timeout_ms: int) -> KafkaNetworkChannel:
    channel = KafkaNetworkChannel("CONTROLLER", request_timeout_ms, "test-raft")
    channel.start()
    return channel


@pytest.fixture
def channels() -> Iterator[list[KafkaNetworkChannel]]:
    made: list[KafkaNetworkChannel] = []
    yield made
    for channel in made:
        channel.close()


def vote_request(channel: KafkaNetworkChannel, destination: Node) -> OutboundRequest:
    body = raft_util.singleton_vote_request(METADATA, CLUSTER_ID, CANDIDATE_EPOCH, CANDIDATE,
                                            ReplicaKey.of(destination.id, ReplicaKey.NO_DIRECTORY_ID), 4, 329)
    return OutboundRequest(channel.new_correlation_id(), body, destination, int(time.time() * 1000),
                           raft_util.VOTE_VERSION)


def send_thread_alive(channel: KafkaNetworkChannel) -> bool:
    return channel._request_thread.is_alive()


def waiting_behind_connect(channel: KafkaNetworkChannel, node: Node) -> int:
    """How many requests to `node` wait for its connect to complete (white box: the send thread's state)."""
    connection = channel._request_thread._connections.get(node.id_string())
    return len(connection.outbox) if connection is not None and connection.connecting is not None else 0


def test_a_voter_whose_connect_hangs_does_not_hold_up_the_requests_to_another(
        voters: list[Voter], channels: list[KafkaNetworkChannel], caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger=CHANNEL_LOGGER)
    request_timeout_ms = 2000
    hanging, answering = Voter(2), Voter(3)
    voters += [hanging, answering]
    hanging.fill_accept_queue()
    answering.serve()
    channel = make_channel(request_timeout_ms)
    channels.append(channel)
    completions = Completions()

    # the hanging voter first: a blocking connect to it would hold the request to the answering voter behind it
    to_hanging = completions.track(vote_request(channel, hanging.node))
    to_answering = completions.track(vote_request(channel, answering.node))
    channel.send(to_hanging)
    channel.send(to_answering)

    first, second = completions.wait_for(2)
    assert [first.correlation_id, second.correlation_id] == [to_answering.correlation_id, to_hanging.correlation_id]
    assert answering.received == [to_answering.correlation_id]
    assert first.error is Errors.NONE
    partition = first.response.data.topics[0].partitions[0]
    assert (Errors.for_code(partition.error_code), partition.vote_granted) == (Errors.NONE, True)
    assert first.response.source == answering.node
    # no answer to the connect: it is given up at the request timeout, never before, and the request fails as a
    # lost connection does; it was never sent (not a sent request that timed out)
    assert second.error is Errors.BROKER_NOT_AVAILABLE
    assert second.response.source == hanging.node
    assert second.elapsed_s >= request_timeout_ms / 1000
    assert [r.getMessage() for r in caplog.records if "could not be established" in r.getMessage()] == [
        f"Connection to node {hanging.node} could not be established: no answer within {request_timeout_ms} ms"]


def test_a_refused_connect_fails_the_request_at_once(channels: list[KafkaNetworkChannel]) -> None:
    request_timeout_ms = 10_000  # the connect, too, would be given up after 10 s
    channel = make_channel(request_timeout_ms)
    channels.append(channel)
    completions = Completions()
    closed = Node(2, "127.0.0.1", free_port())  # nothing listens there: the connect is refused

    request = completions.track(vote_request(channel, closed))
    channel.send(request)

    (done,) = completions.wait_for(1)
    assert (done.correlation_id, done.error, done.response.source) == (request.correlation_id,
                                                                     Errors.BROKER_NOT_AVAILABLE, closed)
    # a refused connect is not waited for: far sooner than the timeouts of the request and of the connect
    assert done.elapsed_s < request_timeout_ms / 1000 / 2


def test_requests_queued_behind_a_connect_in_progress_are_all_sent_in_order(
        voters: list[Voter], channels: list[KafkaNetworkChannel]) -> None:
    voter = Voter(2)
    voters.append(voter)
    voter.fill_accept_queue()  # the connect stays in progress until the voter accepts
    # long enough for the SYN retransmitted 1 s (or 3 s) after the first to find the accept queue drained
    channel = make_channel(request_timeout_ms=10_000)
    channels.append(channel)
    completions = Completions()

    requests = [completions.track(vote_request(channel, voter.node)) for _ in range(5)]
    for request in requests:
        channel.send(request)
    wait_until(lambda: waiting_behind_connect(channel, voter.node) == len(requests), WAIT_S,
               "every request waiting for the connect")
    assert completions.done == []
    voter.serve()  # drains the accept queue: the channel's next SYN is answered

    done = completions.wait_for(len(requests))
    sent_order = [r.correlation_id for r in requests]
    assert voter.received == sent_order
    assert [d.correlation_id for d in done] == sent_order
    assert [d.error for d in done] == [Errors.NONE] * len(requests)
    assert all(d.response.source == voter.node for d in done)


def test_a_sent_request_that_outlives_the_request_timeout_fails_as_a_disconnect(
        voters: list[Voter], channels: list[KafkaNetworkChannel]) -> None:
    """NetworkClient.handleTimedOutRequests closes the connection and completes the request with
    InFlightRequest.timedOut, whose ClientResponse is disconnected as well as timed out; KafkaNetworkChannel's
    sendOnComplete turns any disconnect into BROKER_NOT_AVAILABLE (it has no case for a timeout), which
    KafkaRaftClient.handleTopLevelError takes as an expected failure, not an unexpected error to log."""
    request_timeout_ms = 1000
    silent = Voter(2, answering=False)
    voters.append(silent)
    silent.serve()
    channel = make_channel(request_timeout_ms)
    channels.append(channel)
    completions = Completions()

    request = completions.track(vote_request(channel, silent.node))
    channel.send(request)

    (done,) = completions.wait_for(1)
    assert silent.received == [request.correlation_id]  # it was sent, and never answered
    assert done.elapsed_s >= request_timeout_ms / 1000
    assert done.error is Errors.BROKER_NOT_AVAILABLE


def test_a_connect_on_a_file_descriptor_above_1024_completes(
        voters: list[Voter], channels: list[KafkaNetworkChannel]) -> None:
    """A controller with many segments and connections open has sockets numbered above 1024; Java's NIO selector
    (epoll on Linux) has no such limit, and neither has the Selector the send thread polls its connections with."""
    if resource.getrlimit(resource.RLIMIT_NOFILE)[0] < 1200:
        pytest.skip("the open files limit is too low for a descriptor above 1024")
    voter = Voter(2)
    voters.append(voter)
    voter.serve()
    taken = [os.open(os.devnull, os.O_RDONLY) for _ in range(1100)]  # the channel's sockets are numbered above them
    try:
        channel = make_channel(request_timeout_ms=2000)
        channels.append(channel)
        completions = Completions()
        request = completions.track(vote_request(channel, voter.node))
        channel.send(request)
        done = completions.wait_for(1, channel)
    finally:
        for fd in taken:
            os.close(fd)
    assert send_thread_alive(channel)
    assert [(d.correlation_id, d.error) for d in done] == [(request.correlation_id, Errors.NONE)]
