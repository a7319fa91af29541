"""Port of core/src/main/scala/kafka/server/NodeToControllerChannelManager.scala (Kafka 3.9), with the interfaces it
implements from server-common (NodeToControllerChannelManager, ControllerRequestCompletionHandler) and the part of the
clients' ClientResponse it hands them.

A broker's channel to the *active* controller: one thread, one request in flight at a time, in order. The thread
asks a ControllerNodeProvider where the controller is (on a KRaft broker: the Raft client's leader, at its address on
the controller listener), sends each queued request there, and puts a request back at the head of the queue when the
connection drops or the controller answers NOT_CONTROLLER, so it goes to whichever node leads next. A request that
waited longer than the channel's retry timeout is handed back to its caller with `on_timeout`.

The network part of 3.9's NetworkClient is kafka-edu's BlockingChannel. The sender's context travels with each request
to this thread and the exchange runs in it: the request carries the traceparent of the sender's trace, and the
controller's handling joins it.
"""

from __future__ import annotations

import contextvars
import dataclasses
import logging
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from kafka_edu.tracing import span
from kafka_edu.v1_0_2.clients.common.errors import IllegalStateException
from kafka_edu.v1_0_2.core.network.blocking_channel import BlockingChannel
from kafka_edu.v1_0_2.core.utils.kafka_logging import Logging
from kafka_edu.v3_9.clients.common.protocol.api_keys import ApiKeys
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from kafka_edu.v3_9.raft.raft.voter_set import Node
from kafka_edu.v3_9.server_common.server.util.shutdownable_thread import ShutdownableThread

log = logging.getLogger("kafka.server.NodeToControllerChannelManager")

# NetworkClient's reconnect.backoff.ms as this channel builds it (50 ms): how long a node that refused a connection
# is left alone before the next attempt.
RECONNECT_BACKOFF_MS = 50
# doWork's backoff while no controller is known
NO_CONTROLLER_BACKOFF_MS = 100


@dataclass(frozen=True)
class ControllerInformation:
    node: Node | None
    listener_name: str
    security_protocol: str
    sasl_mechanism: str | None
    is_zk_controller: bool


class ControllerNodeProvider(Protocol):
    def get_controller_info(self) -> ControllerInformation: ...


class RaftControllerNodeProvider:
    """The active controller as the metadata log knows it: the Raft leader, found among the voters by id."""

    def __init__(self, raft_manager: Any, listener_name: str, security_protocol: str,
                 sasl_mechanism: str | None) -> None:
        self.raft_manager = raft_manager
        self.listener_name = listener_name
        self.security_protocol = security_protocol
        self.sasl_mechanism = sasl_mechanism

    @staticmethod
    def apply(raft_manager: Any, config: Any) -> RaftControllerNodeProvider:
        controller_listener_name = config.controller_listener_names[0]
        controller_security_protocol = config.listener_security_protocol_map.get(
            controller_listener_name, controller_listener_name)
        # no SASL in this port: sasl.mechanism.controller.protocol is not a key here
        return RaftControllerNodeProvider(raft_manager, controller_listener_name, controller_security_protocol, None)

    def get_controller_info(self) -> ControllerInformation:
        leader_id = self.raft_manager.leader_and_epoch().leader_id
        node = self.raft_manager.voter_node(leader_id, self.listener_name) if leader_id is not None else None
        return ControllerInformation(node, self.listener_name, self.security_protocol, self.sasl_mechanism,
                                     is_zk_controller=False)


@dataclass(frozen=True)
class ClientResponse:
    """What a request came to: the response body, or a lost connection (`disconnected`), or a version the other
    side does not speak (`version_mismatch`)."""

    api: ApiKeys
    destination: str | None
    disconnected: bool = False
    version_mismatch: BaseException | None = None
    authentication_exception: BaseException | None = None
    response_body: Any = None

    def was_disconnected(self) -> bool:
        return self.disconnected


class ControllerRequestCompletionHandler(Protocol):
    def on_complete(self, response: ClientResponse) -> None:
        """A response, or a failure the channel does not retry (a version mismatch)."""

    def on_timeout(self) -> None:
        """The request waited longer than the channel's retry timeout and was not sent."""


@dataclass(frozen=True)
class ControllerRequest:
    """AbstractRequest.Builder: the API, the version to send it at and the request data."""

    api: ApiKeys
    version: int
    data: Any


@dataclass
class NodeToControllerQueueItem:
    created_time_ms: int
    request: ControllerRequest
    callback: ControllerRequestCompletionHandler
    # the sender's context: the request is sent, and its callback run, inside the span that queued it
    context: contextvars.Context = dataclasses.field(default_factory=contextvars.copy_context)


class NetworkClient(Protocol):
    """The slice of a connection to one node the request thread uses (BlockingChannel's)."""

    def send_and_receive(self, api_key: ApiKeys, api_version: int, body: Any) -> Any: ...

    def disconnect(self) -> None: ...


def _milliseconds() -> int:
    return time.monotonic_ns() // 1_000_000


class NodeToControllerChannelManagerImpl:
    """One named channel ("forwarding", "heartbeat", "alter-partition", ...) and its request thread."""

    def __init__(self, controller_node_provider: ControllerNodeProvider, config: Any, channel_name: str,
                 thread_name_prefix: str, retry_timeout_ms: int,
                 network_client_factory: Callable[[Node, int], NetworkClient] | None = None) -> None:
        self.controller_node_provider = controller_node_provider
        self.config = config
        self.channel_name = channel_name
        self.thread_name_prefix = thread_name_prefix
        self.retry_timeout_ms = retry_timeout_ms
        self.log = Logging(log.name, f"[NodeToControllerChannelManager id={config.node_id} name={channel_name}] ")
        self.network_client_factory = network_client_factory or self._build_network_client
        self.request_thread = self.new_request_thread()

    def start(self) -> None:
        self.request_thread.start()

    def shutdown(self) -> None:
        self.request_thread.shutdown()
        self.log.info("Node to controller channel manager for %s shutdown", self.channel_name)

    def _build_network_client(self, node: Node, request_timeout_ms: int) -> NetworkClient:
        return BlockingChannel(node.host, node.port, request_timeout_ms / 1000,
                               client_id=str(self.config.node_id))

    def new_request_thread(self) -> NodeToControllerRequestThread:
        thread_name = f"{self.thread_name_prefix}to-controller-{self.channel_name}-channel-manager"
        return NodeToControllerRequestThread(self.network_client_factory, self.controller_node_provider, self.config,
                                             thread_name, self.retry_timeout_ms)

    def send_request(self, request: ControllerRequest, callback: ControllerRequestCompletionHandler) -> None:
        """Queue a request for the active controller; `callback` runs on the channel's thread."""
        self.request_thread.enqueue(NodeToControllerQueueItem(_milliseconds(), request, callback))

    def controller_api_versions(self) -> None:
        """3.9 answers with the active controller's ApiVersions; this channel does not ask for them."""
        return None


class NodeToControllerRequestThread(ShutdownableThread):
    """InterBrokerSendThread with at most one request in flight: find the controller, send, handle the answer."""

    def __init__(self, network_client_factory: Callable[[Node, int], NetworkClient],
                 controller_node_provider: ControllerNodeProvider, config: Any, thread_name: str,
                 retry_timeout_ms: int) -> None:
        super().__init__(thread_name, is_interruptible=True, logger_name=log.name, daemon=True)
        self.network_client_factory = network_client_factory
        self.controller_node_provider = controller_node_provider
        self.config = config
        self.retry_timeout_ms = retry_timeout_ms
        # a request outliving this is answered as lost (NetworkClient's request timeout)
        self.request_timeout_ms = min(config.controller_socket_timeout_ms, retry_timeout_ms)
        self.request_queue: deque[NodeToControllerQueueItem] = deque()
        self._queue_lock = threading.Condition()
        self.active_controller: Node | None = None
        self.network_client: NetworkClient | None = None
        self._reconnect_after_ms = 0
        self.started = False

    def active_controller_address(self) -> Node | None:
        return self.active_controller

    def update_controller_address(self, new_active_controller: Node | None) -> None:
        self.active_controller = new_active_controller

    def enqueue(self, request: NodeToControllerQueueItem) -> None:
        if not self.started:
            raise IllegalStateException("Cannot enqueue a request if the request thread is not running")
        with self._queue_lock:
            self.request_queue.append(request)
            if self.active_controller_address() is not None:
                self._queue_lock.notify()

    def queue_size(self) -> int:
        with self._queue_lock:
            return len(self.request_queue)

    def _put_first(self, item: NodeToControllerQueueItem) -> None:
        with self._queue_lock:
            self.request_queue.appendleft(item)

    def generate_requests(self) -> NodeToControllerQueueItem | None:
        """The next request to send to the active controller; requests past the retry timeout get on_timeout."""
        current_time_ms = _milliseconds()
        timed_out = []
        chosen = None
        with self._queue_lock:
            for request in list(self.request_queue):
                if current_time_ms - request.created_time_ms >= self.retry_timeout_ms:
                    self.request_queue.remove(request)
                    timed_out.append(request)
                elif self.active_controller_address() is not None:
                    self.request_queue.remove(request)
                    chosen = request
                    break
        for request in timed_out:
            request.context.run(request.callback.on_timeout)
        return chosen

    def handle_response(self, queue_item: NodeToControllerQueueItem, response: ClientResponse) -> None:
        self.log.debug("Request %s received %s", queue_item.request.api.api_name, response)
        if response.authentication_exception is not None:
            self.log.error("Request %s failed due to authentication error with controller",
                           queue_item.request.api.api_name, exc_info=response.authentication_exception)
            queue_item.callback.on_complete(response)
        elif response.version_mismatch is not None:
            self.log.error("Request %s failed due to unsupported version error", queue_item.request.api.api_name,
                           exc_info=response.version_mismatch)
            queue_item.callback.on_complete(response)
        elif response.was_disconnected():
            self.update_controller_address(None)
            self._put_first(queue_item)
        elif Errors.NOT_CONTROLLER in error_counts(response.response_body):
            controller = self.active_controller_address()
            self.log.debug("Request %s received NOT_CONTROLLER exception. Disconnecting the connection to the stale "
                           "controller %s", queue_item.request.api.api_name,
                           controller.id_string() if controller is not None else "null")
            # drop the connection and find the controller again in do_work
            if controller is not None:
                self._disconnect()
                self.update_controller_address(None)
            self._put_first(queue_item)
        else:
            queue_item.callback.on_complete(response)

    def do_work(self) -> None:
        controller_information = self.controller_node_provider.get_controller_info()
        if self.active_controller_address() is not None:
            self.poll_once()
        else:
            self.log.debug("Controller isn't cached, looking for local metadata changes")
            if controller_information.node is not None:
                self.log.info("Recorded new controller, from now on will use node %s", controller_information.node)
                self.update_controller_address(controller_information.node)
            else:
                self.log.debug("No controller provided, retrying after backoff")
                self._wait_for_requests(NO_CONTROLLER_BACKOFF_MS)
                self.generate_requests()  # expires what has waited too long

    def poll_once(self) -> None:
        """Send the next request and handle its answer; with nothing to send, wait to be woken by a new one."""
        queue_item = self.generate_requests()
        if queue_item is None:
            self._wait_for_requests(None)
            return
        backoff_ms = self._reconnect_after_ms - _milliseconds()
        if backoff_ms > 0:
            self.pause(backoff_ms / 1000)
        # in the sender's context: the exchange is a child of the span that queued it
        response = queue_item.context.run(self.send_requests, queue_item)
        queue_item.context.run(self.handle_response, queue_item, response)

    @span("InterBrokerSendThread.sendRequests")
    def send_requests(self, queue_item: NodeToControllerQueueItem) -> ClientResponse:
        """The exchange with the active controller: its response, or a disconnection."""
        controller = self.active_controller_address()
        request = queue_item.request
        destination = controller.id_string() if controller is not None else None
        if controller is None:
            return ClientResponse(request.api, destination, disconnected=True)
        if self.network_client is None:
            self.network_client = self.network_client_factory(controller, self.request_timeout_ms)
        try:
            body = self.network_client.send_and_receive(request.api, request.version, request.data)
        except OSError as e:  # refused, reset, or no answer within the request timeout
            self.log.info("Disconnected from node %s while sending %s: %s", destination, request.api.api_name, e)
            self._disconnect()
            return ClientResponse(request.api, destination, disconnected=True)
        return ClientResponse(request.api, destination, response_body=body)

    def _disconnect(self) -> None:
        """Close the connection; the next one waits out the reconnect backoff (no tight loop on a node that still
        looks like the leader)."""
        if self.network_client is not None:
            try:
                self.network_client.disconnect()
            except Exception:
                self.log.exception("Had an error while disconnecting from NetworkClient.")
            self.network_client = None
        self._reconnect_after_ms = _milliseconds() + RECONNECT_BACKOFF_MS

    def _wait_for_requests(self, timeout_ms: int | None) -> None:
        # bounded, so that a shutdown is noticed even when nobody enqueues
        with self._queue_lock:
            if not self.request_queue or timeout_ms is not None:
                self._queue_lock.wait(0.3 if timeout_ms is None else timeout_ms / 1000)

    def interrupt(self) -> None:
        with self._queue_lock:
            self._queue_lock.notify_all()

    def start(self) -> None:
        super().start()
        self.started = True

    def shutdown(self) -> None:
        super().shutdown()
        self._disconnect()


def error_counts(body: Any) -> set[Errors]:
    """AbstractResponse.errorCounts, as a set: every error code anywhere in the response."""
    found: set[Errors] = set()

    def walk(value: Any) -> None:
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            for f in dataclasses.fields(value):
                field_value = getattr(value, f.name)
                if f.name == "error_code" and isinstance(field_value, int):
                    found.add(Errors.for_code(int(field_value)))
                else:
                    walk(field_value)
        elif isinstance(value, (tuple, list)):
            for item in value:
                walk(item)

    walk(body)
    return found
