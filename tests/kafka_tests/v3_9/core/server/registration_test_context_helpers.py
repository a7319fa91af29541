"""Port of the test helpers a KRaft broker's registration tests use (Kafka 3.9): core/src/test/scala/unit/kafka/server/
RegistrationTestContext.scala (with its SimpleControllerNodeProvider), MockNodeToControllerChannelManager.scala, and the
part of clients/src/test/java/org/apache/kafka/clients/MockClient.java they drive.

The channel stand-in queues what the manager sends; `poll()` hands each queued request to the mock client, which
answers it with the next prepared response (`prepare_response_from`) or keeps it in flight until the test answers it
(`respond`). An answer reaches the manager's callback on the next `poll()`, on the test's thread.

Left out of MockClient: its metadata updater (these tests never ask for metadata), pending authentication errors,
blocking wake-ups, throttling and delayed readiness. The port's requests carry the version they are sent at, so
there is no version negotiation against NodeApiVersions: the channel only reports them.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from typing import Any

from kafka_edu.v1_0_2.clients.common.errors import IllegalStateException
from kafka_edu.v1_0_2.core.server.kafka_config import SECURITY_PROTOCOLS, KafkaConfig
from kafka_edu.v3_9.clients.common.protocol.api_keys import ApiKeys
from kafka_edu.v3_9.clients.common.protocol.builder import build
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from kafka_edu.v3_9.clients.common.utils.mock_time import MockTime
from kafka_edu.v3_9.core.server.broker_lifecycle_manager import BROKER_HEARTBEAT_VERSION, BROKER_REGISTRATION_VERSION
from kafka_edu.v3_9.core.server.node_to_controller_channel_manager import (
    ClientResponse,
    ControllerInformation,
    ControllerRequest,
    ControllerRequestCompletionHandler,
    NodeToControllerQueueItem,
    error_counts,
)
from kafka_edu.v3_9.raft.raft.voter_set import Node

RequestMatcher = Callable[[Any], bool]


def always_true(body: Any) -> bool:
    """MockClient.ALWAYS_TRUE."""
    return True


def build_request(builder: ControllerRequest) -> Any:
    """AbstractRequest.Builder.build(): the request body (the port's builder already holds it)."""
    return builder.data


def is_request(body: Any, api: ApiKeys) -> bool:
    """`body match { case _: BrokerHeartbeatRequest => ...}`: whether a request body is of that API."""
    return getattr(type(body), "__api_key__", None) == api.id


# -- responses: the *ResponseData constructors, with the defaults of Kafka's message definitions --------------------

def broker_registration_response(broker_epoch: int = -1, error_code: Errors = Errors.NONE) -> Any:
    """new BrokerRegistrationResponse(new BrokerRegistrationResponseData()...)."""
    return build(ApiKeys.BROKER_REGISTRATION.response_schema(BROKER_REGISTRATION_VERSION), throttle_time=0,
                 error_code=error_code, broker_epoch=broker_epoch)


def broker_heartbeat_response(is_caught_up: bool = False, is_fenced: bool = True, should_shut_down: bool = False,
                              error_code: Errors = Errors.NONE) -> Any:
    """new BrokerHeartbeatResponse(new BrokerHeartbeatResponseData()...)."""
    return build(ApiKeys.BROKER_HEARTBEAT.response_schema(BROKER_HEARTBEAT_VERSION), throttle_time=0,
                 error_code=error_code, is_caught_up=is_caught_up, is_fenced=is_fenced,
                 should_shut_down=should_shut_down)


# -- MockClient -----------------------------------------------------------------------------------------------------

@dataclass
class ClientRequest:
    destination: str
    request_builder: ControllerRequest
    correlation_id: int
    client_id: str
    created_time_ms: int
    expect_response: bool
    request_timeout_ms: int
    callback: Callable[[ClientResponse], None] | None

    @property
    def api_key(self) -> ApiKeys:
        return self.request_builder.api


@dataclass
class _FutureResponse:
    node: Node | None
    request_matcher: RequestMatcher
    response_body: Any
    disconnected: bool
    is_unsupported_request: bool


class _ConnectionState:
    class State(Enum):
        CONNECTING = 1
        CONNECTED = 2
        DISCONNECTED = 3

    def __init__(self) -> None:
        self.throttled_until_ms = 0
        self.backing_off_until_ms = 0
        self.unreachable_until_ms = 0
        self.state = _ConnectionState.State.DISCONNECTED

    def is_ready(self, now: int) -> bool:
        return self.state is _ConnectionState.State.CONNECTED and self.not_throttled(now)

    def not_throttled(self, now: int) -> bool:
        return now > self.throttled_until_ms

    def is_backing_off(self, now: int) -> bool:
        return now < self.backing_off_until_ms

    def is_unreachable(self, now: int) -> bool:
        return now < self.unreachable_until_ms

    def disconnect(self) -> None:
        self.state = _ConnectionState.State.DISCONNECTED

    def ready(self, now: int) -> bool:
        if self.state is _ConnectionState.State.CONNECTED:
            return self.not_throttled(now)
        if self.state is _ConnectionState.State.CONNECTING:
            self.state = _ConnectionState.State.CONNECTED
            return self.ready(now)
        if self.is_backing_off(now):
            return False
        if self.is_unreachable(now):
            self.backing_off_until_ms = now + 100
            return False
        self.state = _ConnectionState.State.CONNECTING
        return self.ready(now)


class MockClient:
    """A network client for tests: requests go nowhere; answers are prepared, or given, by the test."""

    def __init__(self, time: MockTime) -> None:
        self.time = time
        self.correlation = 0
        self.wakeup_hook: Callable[[], None] | None = None
        self.connections: dict[str, _ConnectionState] = {}
        # the test's thread may read these while the client is polled (Java's concurrent queues)
        self.requests: deque[ClientRequest] = deque()
        self.responses: deque[tuple[Callable[[ClientResponse], None] | None, ClientResponse]] = deque()
        self._future_responses: deque[_FutureResponse] = deque()
        self.node_api_versions: dict[ApiKeys, tuple[int, int]] = {}

    def _connection_state(self, id_string: str) -> _ConnectionState:
        return self.connections.setdefault(id_string, _ConnectionState())

    def is_ready(self, node: Node, now: int) -> bool:
        return self._connection_state(node.id_string()).is_ready(now)

    def ready(self, node: Node, now: int) -> bool:
        return self._connection_state(node.id_string()).ready(now)

    def disconnect(self, node: str) -> None:
        for request in [r for r in self.requests if r.destination == node]:
            self.responses.append((request.callback, ClientResponse(request.api_key, node, disconnected=True)))
            self.requests.remove(request)
        self._connection_state(node).disconnect()

    def send(self, request: ClientRequest, now: int) -> None:
        if not self._connection_state(request.destination).is_ready(now):
            raise IllegalStateException(f"Cannot send {request} since the destination is not ready")
        for future_resp in list(self._future_responses):
            if future_resp.node is not None and request.destination != future_resp.node.id_string():
                continue
            version_mismatch = None
            if future_resp.is_unsupported_request:
                version_mismatch = RuntimeError(
                    f"Api {request.api_key.api_name} with version {request.request_builder.version}")
            else:
                body = build_request(request.request_builder)
                if not future_resp.request_matcher(body):
                    raise IllegalStateException(f"Request matcher did not match next-in-line request {body} with "
                                                f"prepared response {future_resp.response_body}")
            self.responses.append((request.callback, ClientResponse(
                request.api_key, request.destination, disconnected=future_resp.disconnected,
                version_mismatch=version_mismatch, response_body=future_resp.response_body)))
            self._future_responses.remove(future_resp)
            return
        self.requests.append(request)

    def wakeup(self) -> None:
        if self.wakeup_hook is not None:
            self.wakeup_hook()

    def poll(self, timeout_ms: int, now: int) -> list[ClientResponse]:
        self._check_timeout_of_pending_requests(now)
        copy = []
        while self.responses:
            callback, response = self.responses.popleft()
            if callback is not None:  # ClientResponse.onComplete
                callback(response)
            copy.append(response)
        return copy

    def _check_timeout_of_pending_requests(self, now_ms: int) -> None:
        while self.requests and max(0, now_ms - self.requests[0].created_time_ms) >= \
                self.requests[0].request_timeout_ms:
            request = self.requests[0]
            self.disconnect(request.destination)
            if self.requests and self.requests[0] is request:
                self.requests.popleft()

    def future_responses(self) -> deque[_FutureResponse]:
        return self._future_responses

    def respond(self, response: Any, matcher: RequestMatcher | None = None, disconnected: bool = False) -> None:
        """respond(response) / respond(matcher, response): answer the oldest request in flight."""
        if not self.requests:
            raise IllegalStateException(f"No requests pending for inbound response {response}")
        if matcher is not None:
            body = build_request(self.requests[0].request_builder)
            if not matcher(body):
                raise IllegalStateException(f"Request matcher did not match next-in-line request {body}")
        request = self.requests.popleft()
        self.responses.append((request.callback, ClientResponse(request.api_key, request.destination,
                                                                disconnected=disconnected, response_body=response)))

    def prepare_response_from(self, response: Any, node: Node | None, matcher: RequestMatcher = always_true,
                              disconnected: bool = False) -> None:
        """prepareResponseFrom(response, node) / prepareResponseFrom(matcher, response, node)."""
        self._future_responses.append(_FutureResponse(node, matcher, response, disconnected, False))

    def has_in_flight_requests(self) -> bool:
        return bool(self.requests)

    def new_client_request(self, node_id: str, request_builder: ControllerRequest, created_time_ms: int,
                           expect_response: bool, request_timeout_ms: int = 5000,
                           callback: Callable[[ClientResponse], None] | None = None) -> ClientRequest:
        request = ClientRequest(node_id, request_builder, self.correlation, "mockClientId", created_time_ms,
                                expect_response, request_timeout_ms, callback)
        self.correlation += 1
        return request

    def set_node_api_versions(self, node_api_versions: dict[ApiKeys, tuple[int, int]]) -> None:
        self.node_api_versions = node_api_versions


# -- MockNodeToControllerChannelManager -----------------------------------------------------------------------------

class MockNodeToControllerChannelManager:
    """The manager's channel to the controller: requests wait in `unsent_queue` until `poll()` sends them."""

    def __init__(self, client: MockClient, time: MockTime, controller_node_provider: Any,
                 controller_api_versions: dict[ApiKeys, tuple[int, int]] | None = None,
                 retry_timeout_ms: int = 60000, request_timeout_ms: int = 30000) -> None:
        self.client = client
        self.time = time
        self.controller_node_provider = controller_node_provider
        self._controller_api_versions = controller_api_versions or {}
        self.retry_timeout_ms = retry_timeout_ms
        self.request_timeout_ms = request_timeout_ms
        # appended on the manager's thread, sent from the test's (a ConcurrentLinkedDeque in Kafka)
        self.unsent_queue: deque[NodeToControllerQueueItem] = deque()
        self._lock = threading.Lock()
        client.set_node_api_versions(self._controller_api_versions)

    def start(self) -> None:
        pass

    def shutdown(self) -> None:
        pass

    def send_request(self, request: ControllerRequest, callback: ControllerRequestCompletionHandler) -> None:
        with self._lock:
            self.unsent_queue.append(NodeToControllerQueueItem(self.time.milliseconds(), request, callback))

    def controller_api_versions(self) -> dict[ApiKeys, tuple[int, int]]:
        return self._controller_api_versions

    def get_timeout_ms(self) -> int:
        return self.retry_timeout_ms

    def handle_response(self, request: NodeToControllerQueueItem) -> Callable[[ClientResponse], None]:
        def on_response(response: ClientResponse) -> None:
            if response.authentication_exception is not None or response.version_mismatch is not None:
                request.callback.on_complete(response)
            elif response.was_disconnected() or Errors.NOT_CONTROLLER in error_counts(response.response_body):
                with self._lock:
                    self.unsent_queue.appendleft(request)
            else:
                request.callback.on_complete(response)
        return on_response

    def poll(self) -> None:
        with self._lock:
            unsent = list(self.unsent_queue)
        for queue_item in unsent:
            elapsed_time_ms = self.time.milliseconds() - queue_item.created_time_ms
            if elapsed_time_ms >= self.retry_timeout_ms:
                queue_item.callback.on_timeout()
                self._remove(queue_item)
                continue
            controller = self.controller_node_provider.get_controller_info().node
            if controller is None or not self.client.ready(controller, self.time.milliseconds()):
                break
            client_request = self.client.new_client_request(
                controller.id_string(), queue_item.request, queue_item.created_time_ms, True,
                self.request_timeout_ms, self.handle_response(queue_item))
            self.client.send(client_request, self.time.milliseconds())
            self._remove(queue_item)
        self.client.poll(0, self.time.milliseconds())

    def _remove(self, queue_item: NodeToControllerQueueItem) -> None:
        with self._lock:
            self.unsent_queue.remove(queue_item)


# -- RegistrationTestContext ----------------------------------------------------------------------------------------

class SimpleControllerNodeProvider:
    """The controller is whatever node the test sets (`node`, an AtomicReference in Kafka)."""

    def __init__(self) -> None:
        self.node: Node | None = None
        self.listener_name = "PLAINTEXT"
        self.security_protocol = "PLAINTEXT"
        self.sasl_mechanism = "GSSAPI"  # SaslConfigs.DEFAULT_SASL_MECHANISM

    def get_controller_info(self) -> ControllerInformation:
        return ControllerInformation(self.node, self.listener_name, self.security_protocol, self.sasl_mechanism,
                                     is_zk_controller=False)


class AtomicLong:
    def __init__(self, value: int) -> None:
        self._value = value

    def get(self) -> int:
        return self._value

    def set(self, value: int) -> None:
        self._value = value


class RegistrationTestContext:
    def __init__(self, properties: dict[str, str]) -> None:
        self.config = KafkaConfig.from_props(properties)
        self.time = MockTime(0, 1, 1)  # server-common's MockTime(1, 1): no auto-tick
        self.highest_metadata_offset = AtomicLong(0)
        self.mock_client = MockClient(self.time)
        self.controller_node_provider = SimpleControllerNodeProvider()
        self.node_api_versions = {api: (api.oldest_version, api.latest_version) for api in (
            ApiKeys.BROKER_REGISTRATION, ApiKeys.BROKER_HEARTBEAT, ApiKeys.CONTROLLER_REGISTRATION)}
        self.mock_channel_manager = MockNodeToControllerChannelManager(
            self.mock_client, self.time, self.controller_node_provider, self.node_api_versions)
        self.cluster_id = "x4AJGXQSRnephtTZzujw4w"
        self.advertised_listeners = [
            {"host": ep.host, "name": ep.listener_name, "port": ep.port,
             "security_protocol": SECURITY_PROTOCOLS.index(ep.security_protocol)}
            for ep in self.config.effective_advertised_broker_listeners]
        self.controller_epoch = 123

    def poll(self) -> None:
        self.mock_client.wakeup()
        self.mock_channel_manager.poll()
