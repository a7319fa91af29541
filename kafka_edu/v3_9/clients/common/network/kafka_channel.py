"""Port of clients/src/main/java/org/apache/kafka/common/network/KafkaChannel.java (Kafka 3.9): one connection as the
Selector sees it: its transport layer, its authenticator, the receive being read and the send being written, and
its mute state, which SocketServer moves through ChannelMuteEvents so that a connection has one request in flight.

Re-authentication (KIP-368) is ported as Kafka has it but only a SASL authenticator would ever start it; SASL is not
ported, so on PLAINTEXT channels it never begins."""

from __future__ import annotations

from collections.abc import Callable
from enum import Enum
from typing import Any

from kafka_edu.v1_0_2.clients.common.errors import AuthenticationException, IllegalStateException
from kafka_edu.v3_9.clients.common.memory.memory_pool import MemoryPool
from kafka_edu.v3_9.clients.common.network.authenticator import Authenticator
from kafka_edu.v3_9.clients.common.network.channel_metadata_registry import ChannelMetadataRegistry
from kafka_edu.v3_9.clients.common.network.channel_state import ChannelState, State
from kafka_edu.v3_9.clients.common.network.delayed_response_authentication_exception import (
    DelayedResponseAuthenticationException,
)
from kafka_edu.v3_9.clients.common.network.java_nio import SelectionKey
from kafka_edu.v3_9.clients.common.network.network_receive import NetworkReceive
from kafka_edu.v3_9.clients.common.network.network_send import NetworkSend
from kafka_edu.v3_9.clients.common.network.transport_layer import TransportLayer
from kafka_edu.v3_9.clients.common.utils.utils import close_all

MIN_REAUTH_INTERVAL_ONE_SECOND_NANOS = 1000 * 1000 * 1000


class ChannelMuteState(Enum):
    """NOT_MUTED; MUTED (the only state unmute leaves); and SocketServer's states: MUTED_AND_RESPONSE_PENDING (a
    request is being handled), MUTED_AND_THROTTLED (a quota delay runs), MUTED_AND_THROTTLED_AND_RESPONSE_PENDING."""

    NOT_MUTED = "NOT_MUTED"
    MUTED = "MUTED"
    MUTED_AND_RESPONSE_PENDING = "MUTED_AND_RESPONSE_PENDING"
    MUTED_AND_THROTTLED = "MUTED_AND_THROTTLED"
    MUTED_AND_THROTTLED_AND_RESPONSE_PENDING = "MUTED_AND_THROTTLED_AND_RESPONSE_PENDING"


class ChannelMuteEvent(Enum):
    """What SocketServer tells a channel: REQUEST_RECEIVED, RESPONSE_SENT, THROTTLE_STARTED, THROTTLE_ENDED."""

    REQUEST_RECEIVED = "REQUEST_RECEIVED"
    RESPONSE_SENT = "RESPONSE_SENT"
    THROTTLE_STARTED = "THROTTLE_STARTED"
    THROTTLE_ENDED = "THROTTLE_ENDED"


def _describe(address: tuple[str, int] | None) -> str | None:
    """java.net.InetSocketAddress.toString of a resolved address."""
    return None if address is None else f"/{address[0]}:{address[1]}"


class KafkaChannel:
    ChannelMuteState = ChannelMuteState
    ChannelMuteEvent = ChannelMuteEvent

    def __init__(self, id: str, transport_layer: TransportLayer, authenticator_creator: Callable[[], Authenticator],
                 max_receive_size: int, memory_pool: MemoryPool, metadata_registry: ChannelMetadataRegistry) -> None:
        self._id = id
        self._transport_layer = transport_layer
        self._authenticator_creator = authenticator_creator
        self._authenticator = authenticator_creator()
        # network thread time spent on this channel, read and reset by SocketServer after each response
        self._network_thread_time_nanos = 0
        self._max_receive_size = max_receive_size
        self._memory_pool = memory_pool
        self._metadata_registry = metadata_registry
        self._receive: NetworkReceive | None = None
        self._send: NetworkSend | None = None
        # connection and mute state survive the disconnect, so that outstanding requests are still processed in order
        self._disconnected = False
        self._mute_state = ChannelMuteState.NOT_MUTED
        self._state = ChannelState.NOT_CONNECTED
        self._remote_address: tuple[str, int] | None = None
        self._successful_authentications = 0
        self._mid_write = False
        self._last_reauthentication_start_nanos = 0

    def close(self) -> None:
        self._disconnected = True
        close_all(self._transport_layer, self._authenticator, self._receive, self._metadata_registry)

    def principal(self) -> Any:
        return self._authenticator.principal()

    def principal_serde(self) -> Any | None:
        return self._authenticator.principal_serde()

    def prepare(self) -> None:
        """The transport layer's handshake, then authentication; the channel is READY once both are done."""
        authenticating = False
        try:
            if not self._transport_layer.ready():
                self._transport_layer.handshake()
            if self._transport_layer.ready() and not self._authenticator.complete():
                authenticating = True
                self._authenticator.authenticate()
        except AuthenticationException as e:
            # clients learn of authentication failures so they stop retrying; other errors are network errors
            self._state = ChannelState(State.AUTHENTICATION_FAILED, e, _describe(self._remote_address))
            if authenticating:
                self._delay_close_on_authentication_failure()
                raise DelayedResponseAuthenticationException(e) from e
            raise
        if self.ready():
            self._successful_authentications += 1
            self._state = ChannelState.READY

    def disconnect(self) -> None:
        self._disconnected = True
        if self._state is ChannelState.NOT_CONNECTED and self._remote_address is not None:
            self._state = ChannelState(State.NOT_CONNECTED, remote_address=_describe(self._remote_address))
        self._transport_layer.disconnect()

    def state(self, state: ChannelState | None = None) -> ChannelState:
        """state() reads the channel state; state(s) sets it (Java's two overloads)."""
        if state is not None:
            self._state = state
        return self._state

    def finish_connect(self) -> bool:
        # the remote address first: after a refused connect it is gone
        socket_channel = self._transport_layer.socket_channel()
        if socket_channel is not None:
            self._remote_address = socket_channel.get_remote_address()
        connected = self._transport_layer.finish_connect()
        if connected:
            if self.ready():
                self._state = ChannelState.READY
            elif self._remote_address is not None:
                self._state = ChannelState(State.AUTHENTICATE, remote_address=_describe(self._remote_address))
            else:
                self._state = ChannelState.AUTHENTICATE
        return connected

    def is_connected(self) -> bool:
        return self._transport_layer.is_connected()

    def id(self) -> str:
        return self._id

    def selection_key(self) -> SelectionKey:
        return self._transport_layer.selection_key()

    def mute(self) -> None:
        """Stop reading; the Selector's mute(id) is the way in, so that it tracks the channel as muted."""
        if self._mute_state is ChannelMuteState.NOT_MUTED:
            if not self._disconnected:
                self._transport_layer.remove_interest_ops(SelectionKey.OP_READ)
            self._mute_state = ChannelMuteState.MUTED

    def maybe_unmute(self) -> bool:
        """Unmute from MUTED only (the MUTED_AND_* states stay); whether the channel is NOT_MUTED now."""
        if self._mute_state is ChannelMuteState.MUTED:
            if not self._disconnected:
                self._transport_layer.add_interest_ops(SelectionKey.OP_READ)
            self._mute_state = ChannelMuteState.NOT_MUTED
        return self._mute_state is ChannelMuteState.NOT_MUTED

    def handle_channel_mute_event(self, event: ChannelMuteEvent) -> None:
        """Move the mute state on SocketServer's event; IllegalStateException if the event does not apply."""
        state_changed = False
        if event is ChannelMuteEvent.REQUEST_RECEIVED:
            if self._mute_state is ChannelMuteState.MUTED:
                self._mute_state = ChannelMuteState.MUTED_AND_RESPONSE_PENDING
                state_changed = True
        elif event is ChannelMuteEvent.RESPONSE_SENT:
            if self._mute_state is ChannelMuteState.MUTED_AND_RESPONSE_PENDING:
                self._mute_state = ChannelMuteState.MUTED
                state_changed = True
            if self._mute_state is ChannelMuteState.MUTED_AND_THROTTLED_AND_RESPONSE_PENDING:
                self._mute_state = ChannelMuteState.MUTED_AND_THROTTLED
                state_changed = True
        elif event is ChannelMuteEvent.THROTTLE_STARTED:
            if self._mute_state is ChannelMuteState.MUTED_AND_RESPONSE_PENDING:
                self._mute_state = ChannelMuteState.MUTED_AND_THROTTLED_AND_RESPONSE_PENDING
                state_changed = True
        elif event is ChannelMuteEvent.THROTTLE_ENDED:
            if self._mute_state is ChannelMuteState.MUTED_AND_THROTTLED:
                self._mute_state = ChannelMuteState.MUTED
                state_changed = True
            if self._mute_state is ChannelMuteState.MUTED_AND_THROTTLED_AND_RESPONSE_PENDING:
                self._mute_state = ChannelMuteState.MUTED_AND_RESPONSE_PENDING
                state_changed = True
        if not state_changed:
            raise IllegalStateException(f"Cannot transition from {self._mute_state.name} for {event.name}")

    def mute_state(self) -> ChannelMuteState:
        return self._mute_state

    def _delay_close_on_authentication_failure(self) -> None:
        """No more writes until complete_close_on_authentication_failure, when the failure response may go out."""
        self._transport_layer.remove_interest_ops(SelectionKey.OP_WRITE)

    def complete_close_on_authentication_failure(self) -> None:
        self._transport_layer.add_interest_ops(SelectionKey.OP_WRITE)
        self._authenticator.handle_authentication_failure()

    def is_muted(self) -> bool:
        return self._mute_state is not ChannelMuteState.NOT_MUTED

    def is_in_mutable_state(self) -> bool:
        # a receive whose size is unknown, or whose memory is already allocated, needs no memory: no reason to mute
        if self._receive is None or self._receive.memory_allocated():
            return False
        return self._transport_layer.ready()

    def ready(self) -> bool:
        return self._transport_layer.ready() and self._authenticator.complete()

    def has_send(self) -> bool:
        return self._send is not None

    def socket_address(self) -> str | None:
        """The remote address the socket is (or was) connected to; None if it never was."""
        return self._transport_layer.socket_channel().socket().get_inet_address()

    def socket_port(self) -> int:
        return self._transport_layer.socket_channel().socket().get_port()

    def socket_description(self) -> str:
        socket = self._transport_layer.socket_channel().socket()
        if socket.get_inet_address() is None:
            return f"/{socket.get_local_address()}"
        return f"/{socket.get_inet_address()}"

    def set_send(self, send: NetworkSend) -> None:
        if self._send is not None:
            raise IllegalStateException("Attempt to begin a send operation with prior send operation still in "
                                        f"progress, connection id is {self._id}")
        self._send = send
        self._transport_layer.add_interest_ops(SelectionKey.OP_WRITE)

    def maybe_complete_send(self) -> NetworkSend | None:
        if self._send is not None and self._send.completed():
            self._mid_write = False
            self._transport_layer.remove_interest_ops(SelectionKey.OP_WRITE)
            result, self._send = self._send, None
            return result
        return None

    def read(self) -> int:
        if self._receive is None:
            self._receive = NetworkReceive(self._max_receive_size, self._id, self._memory_pool)
        bytes_received = self._receive_into(self._receive)
        if (self._receive.required_memory_amount_known() and not self._receive.memory_allocated()
                and self.is_in_mutable_state()):
            # the pool is out of memory: stop reading until it has some again
            self.mute()
        return bytes_received

    def current_receive(self) -> NetworkReceive | None:
        return self._receive

    def maybe_complete_receive(self) -> NetworkReceive | None:
        if self._receive is not None and self._receive.complete():
            self._receive.payload().rewind()
            result, self._receive = self._receive, None
            return result
        return None

    def write(self) -> int:
        if self._send is None:
            return 0
        self._mid_write = True
        return self._send.write_to(self._transport_layer)

    def add_network_thread_time_nanos(self, nanos: int) -> None:
        self._network_thread_time_nanos += nanos

    def get_and_reset_network_thread_time_nanos(self) -> int:
        current, self._network_thread_time_nanos = self._network_thread_time_nanos, 0
        return current

    def _receive_into(self, receive: NetworkReceive) -> int:
        """KafkaChannel.receive: Kafka also turns TLS 1.3 post-handshake failures into AUTHENTICATION_FAILED here
        (SslAuthenticationException); SSL is not ported."""
        return receive.read_from(self._transport_layer)

    def has_bytes_buffered(self) -> bool:
        return self._transport_layer.has_bytes_buffered()

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        return other is not None and type(other) is type(self) and self._id == other._id  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash(self._id)

    def __str__(self) -> str:
        return f"{object.__repr__(self)} id={self._id}"

    def successful_authentications(self) -> int:
        return self._successful_authentications

    def maybe_begin_server_reauthentication(self, sasl_handshake_network_receive: NetworkReceive,
                                            now_nanos_supplier: Callable[[], int]) -> bool:
        if not self.ready():
            raise IllegalStateException(
                'KafkaChannel should be "ready" when processing SASL Handshake for potential re-authentication')
        # no session expiry: the handshake is handled as any request (and fails)
        if self._authenticator.server_session_expiration_time_nanos() is None:
            return False
        now_nanos = now_nanos_supplier()
        # at most one re-authentication a second
        if (self._last_reauthentication_start_nanos != 0
                and now_nanos - self._last_reauthentication_start_nanos < MIN_REAUTH_INTERVAL_ONE_SECOND_NANOS):
            return False
        self._last_reauthentication_start_nanos = now_nanos
        self._swap_authenticators_and_begin_reauthentication(
            _ReauthenticationContext(self._authenticator, sasl_handshake_network_receive, now_nanos))
        return True

    def maybe_begin_client_reauthentication(self, now_nanos_supplier: Callable[[], int]) -> bool:
        if not self.ready():
            raise IllegalStateException(
                'KafkaChannel should always be "ready" when it is checked for possible re-authentication')
        if (self._mute_state is not ChannelMuteState.NOT_MUTED or self._mid_write
                or self._authenticator.client_session_reauthentication_time_nanos() is None):
            return False
        now_nanos = now_nanos_supplier()
        if now_nanos < self._authenticator.client_session_reauthentication_time_nanos():
            return False
        self._swap_authenticators_and_begin_reauthentication(
            _ReauthenticationContext(self._authenticator, self._receive, now_nanos))
        self._receive = None
        return True

    def reauthentication_latency_ms(self) -> int | None:
        return self._authenticator.reauthentication_latency_ms()

    def server_authentication_session_expired(self, now_nanos: int) -> bool:
        expiration = self._authenticator.server_session_expiration_time_nanos()
        return expiration is not None and now_nanos - expiration > 0

    def poll_response_received_during_reauthentication(self) -> NetworkReceive | None:
        """Optional<NetworkReceive>: None when empty."""
        return self._authenticator.poll_response_received_during_reauthentication()

    def connected_client_supports_reauthentication(self) -> bool:
        return self._authenticator.connected_client_supports_reauthentication()

    def _swap_authenticators_and_begin_reauthentication(self, reauthentication_context: Any) -> None:
        # the new authenticator closes the old one
        self._authenticator = self._authenticator_creator()
        self._authenticator.reauthenticate(reauthentication_context)

    def channel_metadata_registry(self) -> ChannelMetadataRegistry:
        return self._metadata_registry


class _ReauthenticationContext:
    """ReauthenticationContext (SASL-only, not ported): what a new authenticator takes over from the previous one."""

    def __init__(self, previous_authenticator: Authenticator, network_receive: NetworkReceive | None,
                 reauthentication_begin_nanos: int) -> None:
        self.previous_authenticator = previous_authenticator
        self.network_receive = network_receive
        self.reauthentication_begin_nanos = reauthentication_begin_nanos
