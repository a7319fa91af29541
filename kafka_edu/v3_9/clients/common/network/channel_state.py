"""Port of clients/src/main/java/org/apache/kafka/common/network/ChannelState.java (Kafka 3.9): why a channel is in
the state it is in, as the Selector reports it in `disconnected` (with the authentication failure, if that was it)."""

from __future__ import annotations

from enum import Enum

from kafka_edu.v1_0_2.clients.common.errors import AuthenticationException


class State(Enum):
    NOT_CONNECTED = "NOT_CONNECTED"
    AUTHENTICATE = "AUTHENTICATE"
    READY = "READY"
    EXPIRED = "EXPIRED"
    FAILED_SEND = "FAILED_SEND"
    AUTHENTICATION_FAILED = "AUTHENTICATION_FAILED"
    LOCAL_CLOSE = "LOCAL_CLOSE"


class ChannelState:
    State = State
    # one shared instance per state (set below); AUTHENTICATION_FAILED carries its exception, so it has none
    NOT_CONNECTED: ChannelState
    AUTHENTICATE: ChannelState
    READY: ChannelState
    EXPIRED: ChannelState
    FAILED_SEND: ChannelState
    LOCAL_CLOSE: ChannelState

    def __init__(self, state: State, exception: AuthenticationException | None = None,
                 remote_address: str | None = None) -> None:
        self._state = state
        self._exception = exception
        self._remote_address = remote_address

    def state(self) -> State:
        return self._state

    def exception(self) -> AuthenticationException | None:
        return self._exception

    def remote_address(self) -> str | None:
        return self._remote_address

    def __repr__(self) -> str:
        return f"ChannelState({self._state.name}, remote_address={self._remote_address})"


ChannelState.NOT_CONNECTED = ChannelState(State.NOT_CONNECTED)
ChannelState.AUTHENTICATE = ChannelState(State.AUTHENTICATE)
ChannelState.READY = ChannelState(State.READY)
ChannelState.EXPIRED = ChannelState(State.EXPIRED)
ChannelState.FAILED_SEND = ChannelState(State.FAILED_SEND)
ChannelState.LOCAL_CLOSE = ChannelState(State.LOCAL_CLOSE)
