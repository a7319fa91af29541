"""Port of core/src/main/scala/kafka/server/AddPartitionsToTxnManager.scala (Kafka 3.9), with the part of
server-common's InterBrokerSendThread and clients' AddPartitionsToTxnRequest.Builder it is built on.

Transaction verification (KIP-890 part 1): before a partition leader appends a producer's first transactional batch
to a partition, it asks the transaction coordinator whether the partition is in the producer's ongoing transaction.
`verify_transaction` finds the coordinator (the leader of the `__transaction_state` partition the transactional id
hashes to) and queues the question for that node; the sender thread sends each node at most one AddPartitionsToTxn
(v4+, `verifyOnly`) at a time, carrying every transaction queued for it, and calls each transaction's callback with
the partitions that failed verification.

3.9 runs this on an InterBrokerSendThread over a NetworkClient. kafka-edu has no NetworkClient: the thread keeps one
BlockingChannel per destination node, learns the node's versions with ApiVersions on each new connection (as a
NetworkClient that discovers broker versions does), and sends one request at a time, so a slow coordinator holds up
the other nodes' requests for as long as it takes to answer (request.timeout.ms at most). Each queued check keeps its
caller's context: its callback runs in it, and a request carries the traceparent of the first transaction it holds,
so the coordinator's handling joins that producer's trace. Left out: the VerificationFailureRate and
VerificationTimeMs metrics (the 3.9 tree has no metrics registry).
"""

from __future__ import annotations

import contextvars
import enum
import logging
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from kio.schema.add_partitions_to_txn.v4.request import AddPartitionsToTxnTopic, AddPartitionsToTxnTransaction

from kafka_edu.tracing import step
from kafka_edu.v1_0_2.clients.common.errors import UnsupportedVersionException
from kafka_edu.v1_0_2.core.network.blocking_channel import BlockingChannel
from kafka_edu.v3_9.clients.clients.client_response import ClientResponse
from kafka_edu.v3_9.clients.common.internals import topic as Topic
from kafka_edu.v3_9.clients.common.protocol.api_keys import ApiKeys
from kafka_edu.v3_9.clients.common.protocol.builder import build, values
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from kafka_edu.v3_9.clients.common.topic_partition import TopicPartition
from kafka_edu.v3_9.clients.common.utils.time import Time
from kafka_edu.v3_9.raft.raft.voter_set import Node
from kafka_edu.v3_9.server_common.server.util.shutdownable_thread import FatalExitError, ShutdownableThread

log = logging.getLogger("kafka.server.AddPartitionsToTxnManager")

AppendCallback = Callable[[Mapping[TopicPartition, Errors]], None]
"""AddPartitionsToTxnManager.AppendCallback: the partitions that failed verification, with their errors."""

NO_LEADER_ID = -1  # MetadataResponse.NO_LEADER_ID
# NetworkUtils.buildNetworkClient: reconnect.backoff.ms of the inter-broker clients
RECONNECT_BACKOFF_MS = 50
API_VERSIONS_REQUEST_VERSION = 3


class TransactionSupportedOperation(enum.StrEnum):
    """How the partition errors of a verification reach the producer: `defaultError` for Produce below v11 and
    TxnOffsetCommit below v5 (TRANSACTION_ABORTABLE is turned into INVALID_TXN_STATE), `genericError` for clients
    that handle TRANSACTION_ABORTABLE; `addPartition` is KIP-890 part 2, unused in 3.9. The values are Kafka's case
    object names, which is what KafkaApis hands over."""

    DEFAULT_ERROR = "defaultError"
    GENERIC_ERROR = "genericError"
    ADD_PARTITION = "addPartition"


default_error = TransactionSupportedOperation.DEFAULT_ERROR
generic_error = TransactionSupportedOperation.GENERIC_ERROR
add_partition = TransactionSupportedOperation.ADD_PARTITION


@dataclass
class TransactionDataAndCallbacks:
    """What is queued for one coordinator node: at most one entry per transactional id (in insertion order, as
    AddPartitionsToTxnTransactionCollection keeps it), its callback and when it was queued. `contexts` is the port's:
    the context each entry's caller verified in."""

    transaction_data: dict[str, AddPartitionsToTxnTransaction]
    callbacks: dict[str, AppendCallback]
    start_time_ms: dict[str, int]
    transaction_supported_operation: Any
    contexts: dict[str, contextvars.Context] = field(default_factory=dict)


# -- clients: AddPartitionsToTxnRequest.Builder ------------------------------------------------------------------------

@dataclass(frozen=True)
class AddPartitionsToTxnRequestBuilder:
    """AddPartitionsToTxnRequest.Builder: the transactions to send, and the versions they may go at."""

    data: tuple[AddPartitionsToTxnTransaction, ...]
    oldest_allowed_version: int
    latest_allowed_version: int
    api_key: ApiKeys = ApiKeys.ADD_PARTITIONS_TO_TXN

    @staticmethod
    def for_broker(transactions: Iterable[AddPartitionsToTxnTransaction]) -> AddPartitionsToTxnRequestBuilder:
        """A broker's request: v4 (the first with a batch of transactions and verifyOnly) or later."""
        return AddPartitionsToTxnRequestBuilder(tuple(transactions), 4, ApiKeys.ADD_PARTITIONS_TO_TXN.latest_version)

    def build(self, version: int) -> Any:
        return build(self.api_key.request_schema(version), transactions=[values(t) for t in self.data])


# -- server-common: InterBrokerSendThread ------------------------------------------------------------------------------

class RequestCompletionHandler(Protocol):
    def on_complete(self, response: ClientResponse) -> None: ...


@dataclass
class RequestAndCompletionHandler:
    creation_time_ms: int
    destination: Node
    request: Any
    handler: RequestCompletionHandler
    # the port's: the context the request is sent in (its traceparent goes with it)
    context: contextvars.Context | None = None


@dataclass
class _ClientRequest:
    destination: Node
    request_and_handler: RequestAndCompletionHandler
    created_time_ms: int
    request_timeout_ms: int


class NetworkClient(Protocol):
    """The slice of a connection to one node the send thread uses (BlockingChannel's)."""

    def send_and_receive(self, api_key: ApiKeys, api_version: int, body: Any) -> Any: ...

    def disconnect(self) -> None: ...


class InterBrokerSendThread(ShutdownableThread):
    """A thread that sends the requests `generate_requests` hands it and runs each one's completion handler. One
    blocking connection per destination node, one exchange at a time; a node that refused a connection is left alone
    for RECONNECT_BACKOFF_MS, and a request that could not be sent within `request_timeout_ms` is completed as
    disconnected."""

    def __init__(self, name: str, network_client: Callable[[Node], NetworkClient], request_timeout_ms: int,
                 time: Time, is_interruptible: bool = True) -> None:
        super().__init__(name, is_interruptible, logger_name=log.name, daemon=True)
        self.network_client = network_client
        """Opens the connection to a node (NetworkClient's connection setup)."""
        self.request_timeout_ms = request_timeout_ms
        self.time = time
        self.unsent_requests: dict[Node, list[_ClientRequest]] = {}
        self._connections: dict[Node, NetworkClient] = {}
        self._api_versions: dict[Node, tuple[int, int] | None] = {}  # the node's range for the API sent
        self._reconnect_after_ms: dict[Node, int] = {}
        self._wakeup = threading.Condition()
        self._woken = False

    def generate_requests(self) -> list[RequestAndCompletionHandler]:
        raise NotImplementedError

    def has_unsent_requests(self) -> bool:
        return any(self.unsent_requests.values())

    def shutdown(self) -> None:
        self.initiate_shutdown()
        self.await_shutdown()
        for node in list(self._connections):
            self._disconnect(node)

    def _drain_generated_requests(self) -> None:
        for request in self.generate_requests():
            self.unsent_requests.setdefault(request.destination, []).append(_ClientRequest(
                request.destination, request, request.creation_time_ms, self.request_timeout_ms))

    def poll_once(self, max_timeout_ms: int | None) -> None:
        try:
            self._drain_generated_requests()
            now = self.time.milliseconds()
            timeout = self._send_requests(now, max_timeout_ms)
            self._poll(timeout)
            now = self.time.milliseconds()
            self._fail_expired_requests(now)
            self.unsent_requests = {node: requests for node, requests in self.unsent_requests.items() if requests}
        except FatalExitError:
            raise
        except Exception as e:
            self.log.error("unhandled exception caught in InterBrokerSendThread", exc_info=e)
            # requests may have been dropped: the thread cannot go on
            raise FatalExitError() from e

    def do_work(self) -> None:
        self.poll_once(None)

    def _send_requests(self, now: int, max_timeout_ms: int | None) -> int | None:
        """Send what can go now, each exchange to its end; the time to wait before the next round (0 after a send:
        its handler may have made more work)."""
        poll_timeout = max_timeout_ms
        for node in list(self.unsent_requests):
            requests = self.unsent_requests[node]
            while requests:
                backoff_ms = self._reconnect_after_ms.get(node, 0) - now
                if backoff_ms > 0:
                    poll_timeout = backoff_ms if poll_timeout is None else min(poll_timeout, backoff_ms)
                    break
                request = requests.pop(0)
                response = self._exchange(request)
                request.request_and_handler.handler.on_complete(response)
                poll_timeout = 0
                now = self.time.milliseconds()
        return poll_timeout

    def _exchange(self, request: _ClientRequest) -> ClientResponse:
        """The request on the node's connection, in its sender's context; the response, or how it failed."""
        context = request.request_and_handler.context
        if context is not None:
            return context.run(self._send_and_receive, request)
        return self._send_and_receive(request)

    def _send_and_receive(self, request: _ClientRequest) -> ClientResponse:
        node = request.destination
        builder = request.request_and_handler.request
        destination = node.id_string()
        try:
            connection = self._connections.get(node)
            if connection is None:
                connection = self._connections[node] = self.network_client(node)
                self._api_versions[node] = self._discover_api_versions(connection, builder.api_key)
            node_versions = self._api_versions[node]
            version = None if node_versions is None else min(node_versions[1], builder.latest_allowed_version)
            if version is None or version < max(node_versions[0], builder.oldest_allowed_version):
                mismatch = UnsupportedVersionException(
                    f"The node does not support {builder.api_key.api_name} at versions "
                    f"{builder.oldest_allowed_version} to {builder.latest_allowed_version}")
                return self._response(request, destination, version_mismatch=mismatch)
            body = connection.send_and_receive(builder.api_key, version, builder.build(version))
        except OSError as e:  # refused, reset, or no answer within request.timeout.ms
            self.log.info("Disconnected from node %s while sending %s: %s", destination, builder.api_key.api_name, e)
            self._disconnect(node)
            self._reconnect_after_ms[node] = self.time.milliseconds() + RECONNECT_BACKOFF_MS
            return self._response(request, destination, disconnected=True, timed_out=isinstance(e, TimeoutError))
        return self._response(request, destination, response_body=body)

    def _discover_api_versions(self, connection: NetworkClient, api_key: ApiKeys) -> tuple[int, int] | None:
        response = connection.send_and_receive(
            ApiKeys.API_VERSIONS, API_VERSIONS_REQUEST_VERSION,
            build(ApiKeys.API_VERSIONS.request_schema(API_VERSIONS_REQUEST_VERSION),
                  client_software_name="kafka-edu", client_software_version="3.9.0"))
        if Errors.for_code(response.error_code) != Errors.NONE:
            raise ConnectionError(f"ApiVersions failed: {Errors.for_code(response.error_code).name}")
        return next(((v.min_version, v.max_version) for v in response.api_keys if v.api_key == api_key.id), None)

    def _response(self, request: _ClientRequest, destination: str, disconnected: bool = False,
                  timed_out: bool = False, version_mismatch: BaseException | None = None,
                  response_body: Any = None) -> ClientResponse:
        return ClientResponse(None, destination, request.created_time_ms, self.time.milliseconds(), disconnected,
                              version_mismatch, None, response_body, timed_out=timed_out)

    def _poll(self, timeout_ms: int | None) -> None:
        """NetworkClient.poll with nothing in flight: wait for a wakeup (new work) or the timeout."""
        with self._wakeup:
            if not self._woken and timeout_ms != 0:
                self._wakeup.wait(None if timeout_ms is None else timeout_ms / 1000)
            self._woken = False

    def _fail_expired_requests(self, now: int) -> None:
        for node, requests in self.unsent_requests.items():
            expired = [r for r in requests if max(0, now - r.created_time_ms) > r.request_timeout_ms]
            for request in expired:
                requests.remove(request)
                self.log.debug("Failed to send the following request after %d ms: %s", request.request_timeout_ms,
                               request.request_and_handler.request)
                request.request_and_handler.handler.on_complete(
                    ClientResponse(None, node.id_string(), now, now, True, None, None, None))

    def _disconnect(self, node: Node) -> None:
        connection = self._connections.pop(node, None)
        self._api_versions.pop(node, None)
        if connection is not None:
            try:
                connection.disconnect()
            except Exception:
                self.log.exception("Had an error while disconnecting from node %s", node.id_string())

    def wakeup(self) -> None:
        with self._wakeup:
            self._woken = True
            self._wakeup.notify_all()

    def interrupt(self) -> None:
        self.wakeup()


# -- AddPartitionsToTxnManager -----------------------------------------------------------------------------------------

class AddPartitionsToTxnManager(InterBrokerSendThread):
    """The partition leader's side of transaction verification: one sender thread for every coordinator node."""

    def __init__(self, config: Any, client: Callable[[Node], NetworkClient] | None, metadata_cache: Any,
                 partition_for: Callable[[str], int], time: Time) -> None:
        super().__init__(f"AddPartitionsToTxnSenderThread-{config.broker_id}",
                         client or self._build_network_client, config.request_timeout_ms, time)
        self.config = config
        self.metadata_cache = metadata_cache
        self.partition_for = partition_for
        self.inter_broker_listener_name: str = config.inter_broker_listener_name().value()
        self.inflight_nodes: set[Node] = set()
        """Nodes with a request on the wire; only the sender thread reads and writes it."""
        self.nodes_to_transactions: dict[Node, TransactionDataAndCallbacks] = {}
        """What waits to be sent, per coordinator node; guarded by `_nodes_to_transactions_lock`."""
        self._nodes_to_transactions_lock = threading.RLock()

    def _build_network_client(self, node: Node) -> NetworkClient:
        """NetworkUtils.buildNetworkClient("AddPartitionsManager", ...): its client id, request.timeout.ms."""
        return BlockingChannel(node.host, node.port, self.config.request_timeout_ms / 1000,
                               client_id=f"AddPartitionsManager-client-{self.config.node_id}")

    @step("TX39.vsend")
    def verify_transaction(self, transactional_id: str, producer_id: int, producer_epoch: int,
                           topic_partitions: Sequence[TopicPartition], callback: AppendCallback,
                           transaction_supported_operation: Any) -> None:
        """Ask the coordinator whether `topic_partitions` are in the producer's ongoing transaction; `callback` gets
        the partitions that are not (or could not be verified), on the sender thread or, when nothing can be sent,
        at once."""
        coordinator_node = self._get_transaction_coordinator(self.partition_for(transactional_id))
        if coordinator_node is None:
            callback({tp: Errors.COORDINATOR_NOT_AVAILABLE for tp in topic_partitions})
            return
        topics: dict[str, list[int]] = {}
        for tp in topic_partitions:
            topics.setdefault(tp.topic, []).append(tp.partition)
        transaction_data = AddPartitionsToTxnTransaction(
            transactional_id=transactional_id, producer_id=producer_id, producer_epoch=producer_epoch,
            verify_only=True,
            topics=tuple(AddPartitionsToTxnTopic(name=topic, partitions=tuple(partitions))
                         for topic, partitions in topics.items()))
        self._add_txn_data(coordinator_node, transaction_data, callback, transaction_supported_operation)

    def _add_txn_data(self, node: Node, transaction_data: AddPartitionsToTxnTransaction, callback: AppendCallback,
                      transaction_supported_operation: Any) -> None:
        with self._nodes_to_transactions_lock:
            cur_time = self.time.milliseconds()
            existing_node_and_transaction_data = self.nodes_to_transactions.get(node)
            if existing_node_and_transaction_data is None:
                existing_node_and_transaction_data = self.nodes_to_transactions[node] = TransactionDataAndCallbacks(
                    {}, {}, {}, transaction_supported_operation)
            transactional_id = transaction_data.transactional_id
            existing_transaction_data = existing_node_and_transaction_data.transaction_data.get(transactional_id)

            # One entry per transactional id. A newer epoch fences the queued one (INVALID_PRODUCER_EPOCH); the same
            # epoch is the producer retrying, so the queued one gets a retriable NETWORK_EXCEPTION; an older epoch
            # is the fenced one, answered at once and not queued.
            if existing_transaction_data is not None:
                if existing_transaction_data.producer_epoch <= transaction_data.producer_epoch:
                    error = (Errors.INVALID_PRODUCER_EPOCH
                             if existing_transaction_data.producer_epoch < transaction_data.producer_epoch
                             else Errors.NETWORK_EXCEPTION)
                    old_callback = existing_node_and_transaction_data.callbacks[transactional_id]
                    old_context = existing_node_and_transaction_data.contexts.pop(transactional_id, None)
                    del existing_node_and_transaction_data.transaction_data[transactional_id]
                    self._send_callback(old_callback, self._topic_partitions_to_error(existing_transaction_data, error),
                                        existing_node_and_transaction_data.start_time_ms[transactional_id],
                                        old_context)
                else:
                    self._send_callback(callback, self._topic_partitions_to_error(
                        transaction_data, Errors.INVALID_PRODUCER_EPOCH), cur_time)
                    return

            existing_node_and_transaction_data.transaction_data[transactional_id] = transaction_data
            existing_node_and_transaction_data.callbacks[transactional_id] = callback
            existing_node_and_transaction_data.start_time_ms[transactional_id] = cur_time
            existing_node_and_transaction_data.contexts[transactional_id] = contextvars.copy_context()
            self.wakeup()

    def _get_transaction_coordinator(self, partition: int) -> Node | None:
        """The leader of the `__transaction_state` partition, on the inter-broker listener, if alive."""
        metadata = self.metadata_cache.get_partition_info(Topic.TRANSACTION_STATE_TOPIC_NAME, partition)
        if metadata is None or metadata.leader == NO_LEADER_ID:
            return None
        return self.metadata_cache.get_alive_broker_node(metadata.leader, self.inter_broker_listener_name)

    @staticmethod
    def _topic_partitions_to_error(transaction_data: AddPartitionsToTxnTransaction,
                                   error: Errors) -> dict[TopicPartition, Errors]:
        return {TopicPartition(topic.name, partition): error
                for topic in transaction_data.topics for partition in topic.partitions}

    def _send_callback(self, callback: AppendCallback, error_map: Mapping[TopicPartition, Errors],
                       start_time_ms: int, context: contextvars.Context | None = None) -> None:
        # (3.9 records the verification time here, time.milliseconds() - start_time_ms, in VerificationTimeMs)
        if context is not None:
            context.run(callback, dict(error_map))
        else:
            callback(dict(error_map))

    class AddPartitionsToTxnHandler:
        """The answer of one node's request, handed to every transaction it carried."""

        def __init__(self, manager: AddPartitionsToTxnManager, node: Node,
                     transaction_data_and_callbacks: TransactionDataAndCallbacks) -> None:
            self.manager = manager
            self.node = node
            self.transaction_data_and_callbacks = transaction_data_and_callbacks

        def on_complete(self, response: ClientResponse) -> None:
            manager = self.manager
            txns = self.transaction_data_and_callbacks
            manager.inflight_nodes.discard(self.node)
            if response.authentication_exception() is not None:
                manager.log.error("AddPartitionsToTxnRequest failed for node %s with an authentication exception.",
                                  response.destination(), exc_info=response.authentication_exception())
                self._send_callbacks_to_all(Errors.for_exception(response.authentication_exception()))
            elif response.version_mismatch() is not None:
                # a coordinator too old for verify-only requests: the append goes on unverified
                manager.log.warning("AddPartitionsToTxnRequest failed for node %s with invalid version exception. "
                                    "This suggests verification is not supported. Continuing handling the produce "
                                    "request.", response.destination())
                for txn_id, callback in txns.callbacks.items():
                    manager._send_callback(callback, {}, txns.start_time_ms[txn_id], txns.contexts.get(txn_id))
            elif response.was_disconnected() or response.was_timed_out():
                manager.log.warning("AddPartitionsToTxnRequest failed for node %s with a network exception.",
                                    response.destination())
                self._send_callbacks_to_all(Errors.NETWORK_EXCEPTION)
            else:
                add_partitions_to_txn_response_data = response.response_body
                top_level_error = Errors.for_code(add_partitions_to_txn_response_data.error_code)
                if top_level_error != Errors.NONE:
                    manager.log.error("AddPartitionsToTxnRequest for node %s returned with error %s.",
                                      response.destination(), top_level_error.name)
                    # the producer must not see CLUSTER_AUTHORIZATION_FAILED: verification did not complete
                    final_error = (Errors.INVALID_TXN_STATE if top_level_error == Errors.CLUSTER_AUTHORIZATION_FAILED
                                   else top_level_error)
                    self._send_callbacks_to_all(final_error)
                else:
                    for transaction_result in add_partitions_to_txn_response_data.results_by_transaction:
                        unverified: dict[TopicPartition, Errors] = {}
                        for topic_result in transaction_result.topic_results:
                            for partition_result in topic_result.results_by_partition:
                                tp = TopicPartition(topic_result.name, partition_result.partition_index)
                                code = Errors.for_code(partition_result.partition_error_code)
                                if code != Errors.NONE:
                                    if code == Errors.PRODUCER_FENCED:
                                        # what producers expect to handle here
                                        code = Errors.INVALID_PRODUCER_EPOCH
                                    elif (code == Errors.TRANSACTION_ABORTABLE
                                          and txns.transaction_supported_operation != generic_error):
                                        # older clients do not know TRANSACTION_ABORTABLE
                                        code = Errors.INVALID_TXN_STATE
                                    unverified[tp] = code
                        txn_id = transaction_result.transactional_id
                        manager._send_callback(txns.callbacks[txn_id], unverified, txns.start_time_ms[txn_id],
                                               txns.contexts.get(txn_id))
            manager.wakeup()

        def _build_error_map(self, transactional_id: str, error: Errors) -> dict[TopicPartition, Errors]:
            transaction_data = self.transaction_data_and_callbacks.transaction_data[transactional_id]
            return self.manager._topic_partitions_to_error(transaction_data, error)

        def _send_callbacks_to_all(self, error: Errors) -> None:
            txns = self.transaction_data_and_callbacks
            for txn_id, callback in txns.callbacks.items():
                self.manager._send_callback(callback, self._build_error_map(txn_id, error), txns.start_time_ms[txn_id],
                                            txns.contexts.get(txn_id))

    def generate_requests(self) -> list[RequestAndCompletionHandler]:
        """One request per node with something queued and nothing in flight; the queue moves into the request."""
        requests: list[RequestAndCompletionHandler] = []
        current_time_ms = self.time.milliseconds()
        removed_nodes: list[Node] = []
        with self._nodes_to_transactions_lock:
            for node, transaction_data_and_callbacks in self.nodes_to_transactions.items():
                if node not in self.inflight_nodes:
                    contexts = list(transaction_data_and_callbacks.contexts.values())
                    requests.append(RequestAndCompletionHandler(
                        current_time_ms, node,
                        AddPartitionsToTxnRequestBuilder.for_broker(
                            transaction_data_and_callbacks.transaction_data.values()),
                        AddPartitionsToTxnManager.AddPartitionsToTxnHandler(self, node, transaction_data_and_callbacks),
                        contexts[0] if contexts else None))
                    removed_nodes.append(node)
            for node in removed_nodes:
                self.inflight_nodes.add(node)
                del self.nodes_to_transactions[node]
        return requests

    def shutdown(self) -> None:
        super().shutdown()
        # (3.9 removes its two metrics here)
