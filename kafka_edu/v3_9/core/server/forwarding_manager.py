"""Port of core/src/main/scala/kafka/server/ForwardingManager.scala (Kafka 3.9), without the Envelope.

A KRaft broker cannot change the metadata itself and clients cannot reach the controllers (KIP-590), so requests
such as CreateTopics and DeleteTopics go on to the active controller through the broker's "forwarding" channel.
3.9 wraps the client's bytes in an EnvelopeRequest so the controller sees the client's principal and version; this
port has no Envelope (nor principals to carry), so the broker sends the request itself, at the client's version when
the controller's CONTROLLER listener speaks it and otherwise at the nearest version it does, and gives the client's
handler the answer re-built at the client's version.

The request is 3.9's RequestChannel.Request (kafka_edu/v3_9/core/network/request_channel.py). Where 3.9 hands the
callback `requestBody.getErrorResponse(error)`, this port hands it None and the error (the request's error response
is KafkaApis' to build): UNKNOWN_SERVER_ERROR for a version mismatch or an authentication failure on the channel,
REQUEST_TIMED_OUT (3.9's TimeoutException) when the request never reached the controller in time.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from kafka_edu.v3_9.clients.common.protocol.api_keys import ApiKeys
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from kafka_edu.v3_9.core.network.request_channel import Request
from kafka_edu.v3_9.core.server.controller_apis import CONTROLLER_SUPPORTED_VERSIONS, convert
from kafka_edu.v3_9.core.server.node_to_controller_channel_manager import (
    ClientResponse,
    ControllerRequest,
    NodeToControllerChannelManagerImpl,
)

log = logging.getLogger("kafka.server.ForwardingManager")

# The controller's answer at the client's version, or None with the error the client is to get instead.
ForwardingResponseCallback = Callable[[Any | None, Errors], None]


def controller_version(api: ApiKeys, client_version: int) -> int:
    """The version to send at: the client's, moved into the range the controller speaks (3.9 learns that range
    from the controller's ApiVersions; here it is the CONTROLLER listener's table)."""
    low, high = CONTROLLER_SUPPORTED_VERSIONS[api]
    return min(max(client_version, low), high)


class ForwardingManagerImpl:
    """Sends client requests that only the controller can carry out, and answers them when it has."""

    def __init__(self, channel_manager: NodeToControllerChannelManagerImpl) -> None:
        self.channel_manager = channel_manager

    def forward_request(self, request: Request, response_callback: ForwardingResponseCallback,
                        request_to_forward: Any = None) -> None:
        """`request_to_forward`: the body to send in place of the client's (3.9's two-request forwardRequest, used
        when the broker answered part of the request itself)."""
        api = request.header.api_key
        client_version = request.header.api_version
        version = controller_version(api, client_version)
        body = request.body() if request_to_forward is None else request_to_forward
        data = body if version == client_version else convert(body, api.request_schema(version))
        client_schema = api.response_schema(client_version)

        def request_to_string() -> str:
            return request.request_desc(False)

        class _ForwardingResponseHandler:
            def on_complete(self, response: ClientResponse) -> None:
                if response.version_mismatch is not None:
                    log.debug("Returning `UNKNOWN_SERVER_ERROR` in response to %s due to unexpected version error",
                              request_to_string(), exc_info=response.version_mismatch)
                    response_callback(None, Errors.UNKNOWN_SERVER_ERROR)
                elif response.authentication_exception is not None:
                    log.debug("Returning `UNKNOWN_SERVER_ERROR` in response to %s due to authentication error",
                              request_to_string(), exc_info=response.authentication_exception)
                    response_callback(None, Errors.UNKNOWN_SERVER_ERROR)
                else:
                    answer = response.response_body
                    response_callback(answer if version == client_version else convert(answer, client_schema),
                                      Errors.NONE)

            def on_timeout(self) -> None:
                log.debug("Forwarding of the request %s failed due to timeout exception", request_to_string())
                response_callback(None, Errors.REQUEST_TIMED_OUT)

        self.channel_manager.send_request(ControllerRequest(api, version, data), _ForwardingResponseHandler())

    def close(self) -> None:
        """3.9 closes its metrics here; the channel is the broker's, shut down by BrokerServer."""
