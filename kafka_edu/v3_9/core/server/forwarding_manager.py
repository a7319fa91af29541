"""Port of core/src/main/scala/kafka/server/ForwardingManager.scala (Kafka 3.9), without the Envelope.

A KRaft broker cannot change the metadata itself and clients cannot reach the controllers (KIP-590), so requests
such as CreateTopics and DeleteTopics go on to the active controller through the broker's "forwarding" channel.
3.9 wraps the client's bytes in an EnvelopeRequest so the controller sees the client's principal and version; this
port has no Envelope (nor principals to carry), so the broker sends the request itself, at the client's version when
the controller's CONTROLLER listener speaks it and otherwise at the nearest version it does, and gives the client's
handler the answer re-built at the client's version.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from kafka_edu.v1_0_2.core.network.request_channel import Request
from kafka_edu.v3_9.clients.common.protocol.api_keys import ApiKeys
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
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

    def forward_request(self, request: Request, response_callback: ForwardingResponseCallback) -> None:
        api = ApiKeys.for_key(request.api_key)
        version = controller_version(api, request.api_version)
        data = request.body if version == request.api_version else convert(request.body, api.request_schema(version))
        client_schema = api.response_schema(request.api_version)

        class _Handler:
            def on_complete(self, response: ClientResponse) -> None:
                if response.authentication_exception is not None:
                    log.error("Returning CLUSTER_AUTHORIZATION_FAILED for %s forwarded for %s", api.api_name,
                              request.client_id, exc_info=response.authentication_exception)
                    response_callback(None, Errors.CLUSTER_AUTHORIZATION_FAILED)
                elif response.version_mismatch is not None:
                    log.error("%s could not be forwarded: the controller does not speak v%d", api.api_name, version)
                    response_callback(None, Errors.UNSUPPORTED_VERSION)
                else:
                    body = response.response_body
                    response_callback(body if version == request.api_version else convert(body, client_schema),
                                      Errors.NONE)

            def on_timeout(self) -> None:
                log.debug("Forwarding of %s timed out before reaching the controller", api.api_name)
                response_callback(None, Errors.REQUEST_TIMED_OUT)

        self.channel_manager.send_request(ControllerRequest(api, version, data), _Handler())

    def close(self) -> None:
        """3.9 closes nothing here either: the channel is the broker's, shut down by BrokerServer."""
