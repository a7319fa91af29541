"""Port of core/src/main/scala/kafka/utils/CoreUtils.scala (Kafka 3.9), the part KafkaConfig uses: a `listeners`
string to endpoints, with 3.9's rules on listener names and ports."""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping

from kafka_edu.v1_0_2.clients.common.errors import IllegalArgumentException
from kafka_edu.v3_9.clients.common.network.listener_name import ListenerName
from kafka_edu.v3_9.clients.common.security.auth.security_protocol import SecurityProtocol
from kafka_edu.v3_9.core.cluster.end_point import EndPoint
from kafka_edu.v3_9.server.network import socket_server_configs


def _require(requirement: bool, message: str) -> None:
    """Scala's Predef.require."""
    if not requirement:
        raise IllegalArgumentException(f"requirement failed: {message}")


def _is_valid_inet4_address(host: str) -> bool:
    try:
        ipaddress.IPv4Address(host)
        return True
    except ValueError:
        return False


def _is_valid_inet6_address(host: str) -> bool:
    try:
        ipaddress.IPv6Address(host)
        return True
    except ValueError:
        return False


def _is_valid_ip(host: str) -> bool:
    return _is_valid_inet4_address(host) or _is_valid_inet6_address(host)


def _check_duplicate_listener_ports(endpoints: list[EndPoint], listeners: str) -> None:
    distinct_ports = {ep.port for ep in endpoints}
    _require(len(distinct_ports) == len(endpoints),
             f"Each listener must have a different port, listeners: {listeners}")


def listener_list_to_end_points(listeners: str, security_protocol_map: Mapping[ListenerName, SecurityProtocol],
                                require_distinct_ports: bool = True) -> list[EndPoint]:
    def validate_one_is_ipv4_and_other_ipv6(first: str, second: str) -> bool:
        return ((_is_valid_inet4_address(first) and _is_valid_inet6_address(second))
                or (_is_valid_inet6_address(first) and _is_valid_inet4_address(second)))

    def validate(end_points: list[EndPoint]) -> None:
        distinct_listener_names = {ep.listener_name for ep in end_points}
        _require(len(distinct_listener_names) == len(end_points),
                 f"Each listener must have a different name, listeners: {listeners}")
        by_port: dict[int, list[EndPoint]] = {}
        for ep in end_points:
            if ep.port != 0:  # port 0 (any free port) may repeat
                by_port.setdefault(ep.port, []).append(ep)
        for port, eps in by_port.items():
            if len(eps) <= 1:
                continue
            with_ip_hosts = [ep for ep in eps if ep.host is not None and _is_valid_ip(ep.host)]
            without_ip_hosts = [ep for ep in eps if not (ep.host is not None and _is_valid_ip(ep.host))]
            if require_distinct_ports:
                _check_duplicate_listener_ports(without_ip_hosts, listeners)
            if not with_ip_hosts:
                continue
            if len(with_ip_hosts) == 2:
                if require_distinct_ports:
                    error_message = ("If you have two listeners on the same port then one needs to be IPv4 and the "
                                     f"other IPv6, listeners: {listeners}, port: {port}")
                    _require(validate_one_is_ipv4_and_other_ipv6(with_ip_hosts[0].host, with_ip_hosts[1].host),
                             error_message)
                    # valid on their own, but not beside another listener on this port without an IP host
                    if without_ip_hosts:
                        raise IllegalArgumentException(error_message)
            elif require_distinct_ports:
                # only two IP stacks exist, so more than two listeners cannot share a port
                raise IllegalArgumentException("Each listener must have a different port unless exactly one listener "
                                               "has an IPv4 address and the other IPv6 address, "
                                               f"listeners: {listeners}, port: {port}")

    try:
        end_points = [EndPoint.from_java(e) for e in
                      socket_server_configs.listener_list_to_end_points(listeners, security_protocol_map)]
    except Exception as e:
        raise IllegalArgumentException(f"Error creating broker listeners from '{listeners}': {e}") from e
    validate(end_points)
    return end_points
