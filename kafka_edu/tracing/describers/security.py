"""Describers for the security spans (see kafka_edu/tracing/attributes.py): a SASL login's requests and the
authorizer's decisions. Attributes: `kafka.sasl.mechanism`, `kafka.principal`, `kafka.sasl.outcome` and
`kafka.authorization.outcome` (ALLOWED or DENIED), with the operation and resource a decision was about."""

from __future__ import annotations

import sys
from typing import Any

from kafka_edu.tracing.attributes import Scope, end, parent, start, when
from kafka_edu.tracing.requests import request_root

_HANDSHAKE = "SaslServerAuthenticator.handleHandshakeRequest"
_API_VERSIONS = "SaslServerAuthenticator.handleApiVersionsRequest"
_RAW_TOKEN = "SaslServerAuthenticator.handleSaslToken"
_AUTHENTICATE = "SaslServerAuthenticator.handleSaslToken#saslAuthenticate"
_AUTHORIZE = "KafkaApis.authorize"
_ADD_ACLS = "SimpleAclAuthorizer.addAcls"
_REMOVE_ACLS = "SimpleAclAuthorizer.removeAcls"
_ACL_CHANGED = "SimpleAclAuthorizer.AclChangedNotificationHandler.processNotification"


# -- the login: each Kafka request of it is a request's trace ------------------------------------------------------

@parent(_HANDSHAKE, _API_VERSIONS, _AUTHENTICATE)
def _login_request(s: Scope) -> Any:
    return request_root(s["context"])


def _connection(authenticator: Any) -> dict[str, Any]:
    return {"kafka.connection.id": authenticator.connection_id, "kafka.listener": authenticator.listener_name,
            "kafka.sasl.state": authenticator.sasl_state.value}


@start(_API_VERSIONS)
def _api_versions(s: Scope) -> dict[str, Any]:
    return _connection(s["self"])


@start(_HANDSHAKE)
def _handshake(s: Scope) -> dict[str, Any]:
    return {**_connection(s["self"]), "kafka.sasl.mechanism": s["handshake_request"].mechanism,
            "kafka.sasl.enabled_mechanisms": list(s["self"].enabled_mechanisms),
            # v1 and later: the tokens come in SaslAuthenticate requests; v0: raw
            "kafka.sasl.authenticate_headers": s["context"].api_version >= 1}


@end(_HANDSHAKE)
def _handshake_outcome(s: Scope) -> dict[str, Any]:
    return {"kafka.sasl.outcome": "mechanism accepted" if s.get("result") else "unsupported mechanism"}


@when(_RAW_TOKEN)
def _is_raw_token(s: Scope) -> bool:
    # with SaslAuthenticate headers the token is a request's: its span is handleSaslToken#saslAuthenticate
    return not s["self"].enable_kafka_sasl_authenticate_headers


@start(_RAW_TOKEN, _AUTHENTICATE)
def _token(s: Scope) -> dict[str, Any]:
    authenticator = s["self"]
    attributes = {**_connection(authenticator), "kafka.sasl.mechanism": authenticator.sasl_mechanism or ""}
    scram_state = getattr(authenticator.sasl_server, "state", None)
    if scram_state is not None:
        attributes["kafka.sasl.scram.state"] = scram_state.value
    return attributes


@end(_RAW_TOKEN, _AUTHENTICATE)
def _token_outcome(s: Scope) -> dict[str, Any]:
    authenticator = s["self"]
    server = authenticator.sasl_server
    # the span ends inside the except clause when the token was refused (its exception is on the span too)
    if sys.exc_info()[0] is not None:
        return {"kafka.sasl.outcome": "failed"}
    if server is not None and server.is_complete():
        return {"kafka.sasl.outcome": "authenticated", "kafka.principal": str(authenticator.principal())}
    return {"kafka.sasl.outcome": "challenge sent"}


# -- authorization ---------------------------------------------------------------------------------------------------

@when(_AUTHORIZE)
def _has_authorizer(s: Scope) -> bool:
    return s["self"].authorizer is not None  # without one every request is allowed: no decision to trace


@start(_AUTHORIZE)
def _authorize(s: Scope) -> dict[str, Any]:
    session, resource = s["session"], s["resource"]
    return {"kafka.principal": str(session.principal), "kafka.client.address": session.client_address,
            "kafka.acl.operation": str(s["operation"]), "kafka.resource.type": resource.resource_type.type_name,
            "kafka.resource.name": resource.name}


@end(_AUTHORIZE)
def _authorized(s: Scope) -> dict[str, Any]:
    result = s.get("result")
    return {} if result is None else {"kafka.authorization.outcome": "ALLOWED" if result else "DENIED"}


# -- ACL changes -----------------------------------------------------------------------------------------------------

@start(_ADD_ACLS)
def _add_acls(s: Scope) -> dict[str, Any]:
    return {"kafka.resource": str(s["resource"]), "kafka.acls": sorted(str(acl) for acl in s["acls"])}


@start(_REMOVE_ACLS)
def _remove_acls(s: Scope) -> dict[str, Any]:
    return {"kafka.resource": str(s["resource"]),
            "kafka.acls": sorted(str(acl) for acl in s["acls_to_be_removed"])}


@end(_REMOVE_ACLS)
def _removed(s: Scope) -> dict[str, Any]:
    result = s.get("result")
    return {} if result is None else {"kafka.acls.changed": bool(result)}


@start(_ACL_CHANGED)
def _acl_changed(s: Scope) -> dict[str, Any]:
    return {"kafka.resource": s["notification_message"]}


@end(_ACL_CHANGED)
def _acls_now(s: Scope) -> dict[str, Any]:
    # the notification names the resource as it prints ("Topic:orders"); a resource without ACLs is not cached
    message = s["notification_message"]
    acls = next((acls for resource, acls in s["self"].authorizer.get_all_acls().items() if str(resource) == message),
                set())
    return {"kafka.acls.count": len(acls)}
