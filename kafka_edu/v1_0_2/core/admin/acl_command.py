"""Port of core/src/main/scala/kafka/admin/AclCommand.scala (Kafka 1.0.2): `kafka-acls.sh --authorizer-properties
zookeeper.connect=Z --add|--remove|--list [--allow-principal P] [--operation O] --topic T | --group G | --cluster
| --transactional-id I`, as `kafka-edu acls`.

Like 1.0.2's tool it talks to no broker: it configures the authorizer itself (SimpleAclAuthorizer, over ZooKeeper),
adds or removes ACLs there, and the change notification it writes makes every broker reload the resource.
"""

from __future__ import annotations

import argparse
import importlib
import sys
import traceback
from collections.abc import Callable
from typing import Any

from kafka_edu.v1_0_2.clients.common.security.auth.kafka_principal import KafkaPrincipal
from kafka_edu.v1_0_2.core.security.auth.acl import WILD_CARD_HOST, Acl
from kafka_edu.v1_0_2.core.security.auth.operation import Operation
from kafka_edu.v1_0_2.core.security.auth.permission_type import PermissionType
from kafka_edu.v1_0_2.core.security.auth.resource import CLUSTER_RESOURCE, Resource
from kafka_edu.v1_0_2.core.security.auth.resource_type import ResourceType

NEWLINE = "\n"
DEFAULT_AUTHORIZER = "kafka.security.auth.SimpleAclAuthorizer"
# Kafka's class names for the authorizers this port has
AUTHORIZER_CLASSES = {
    DEFAULT_AUTHORIZER: "kafka_edu.v1_0_2.core.security.auth.simple_acl_authorizer.SimpleAclAuthorizer"}
RESOURCE_TYPE_TO_VALID_OPERATIONS = {
    ResourceType.TOPIC: {Operation.READ, Operation.WRITE, Operation.DESCRIBE, Operation.DELETE,
                         Operation.DESCRIBE_CONFIGS, Operation.ALTER_CONFIGS, Operation.ALL},
    ResourceType.GROUP: {Operation.READ, Operation.DESCRIBE, Operation.ALL},
    ResourceType.CLUSTER: {Operation.CREATE, Operation.CLUSTER_ACTION, Operation.DESCRIBE_CONFIGS,
                           Operation.ALTER_CONFIGS, Operation.IDEMPOTENT_WRITE, Operation.ALTER, Operation.DESCRIBE,
                           Operation.ALL},
    ResourceType.TRANSACTIONAL_ID: {Operation.DESCRIBE, Operation.WRITE, Operation.ALL},
}


class UsageError(Exception):
    """CommandLineUtils.printUsageAndDie: the message, then the usage, then exit 1."""


def main(args: list[str], out: Callable[[str], None] = print, confirm: Callable[[str], str] = input) -> int:
    parser = options_parser()
    opts = parser.parse_args(args)
    try:
        check_args(opts)
        if opts.add:
            add_acl(opts, out)
        elif opts.remove:
            remove_acl(opts, out, confirm)
        else:
            list_acl(opts, out)
    except UsageError as e:
        out(str(e))
        out(parser.format_usage())
        return 1
    except Exception as e:
        out(f"Error while executing ACL command: {e}")
        out("".join(traceback.format_exception(e)))
        return 1
    return 0


def with_authorizer(opts: argparse.Namespace, f: Callable[[Any], None]) -> None:
    """Configure the authorizer from --authorizer-properties (a ZooKeeper session and the ACL cache), use it,
    close it."""
    module_name, _, class_name = AUTHORIZER_CLASSES.get(opts.authorizer, opts.authorizer).rpartition(".")
    authorizer = getattr(importlib.import_module(module_name), class_name)()
    try:
        authorizer.configure(authorizer_properties(opts))
        f(authorizer)
    finally:
        try:
            authorizer.close()
        except Exception as e:  # CoreUtils.swallow
            print(f"Error closing the authorizer: {e}", file=sys.stderr)


def authorizer_properties(opts: argparse.Namespace) -> dict[str, str]:
    props = {"zookeeper.set.acl": "false"}  # no JAAS login here, so ZooKeeper's own ACLs are off (JaasUtils)
    for pair in opts.authorizer_properties or []:
        key, separator, value = pair.partition("=")
        if not separator or not value:
            raise UsageError(f"Invalid command line properties: {pair}")
        props[key.strip()] = value.strip()
    return props


def add_acl(opts: argparse.Namespace, out: Callable[[str], None]) -> None:
    def add(authorizer: Any) -> None:
        resource_to_acl = get_resource_to_acls(opts)
        if any(not acls for acls in resource_to_acl.values()):
            raise UsageError("You must specify one of: --allow-principal, --deny-principal when trying to add ACLs.")
        for resource, acls in resource_to_acl.items():
            out(f"Adding ACLs for resource `{resource}`: {NEWLINE} {_lines(acls)} {NEWLINE}")
            authorizer.add_acls(acls, resource)
        print_acls(authorizer, opts, out)
    with_authorizer(opts, add)


def remove_acl(opts: argparse.Namespace, out: Callable[[str], None], confirm: Callable[[str], str]) -> None:
    def remove(authorizer: Any) -> None:
        for resource, acls in get_resource_to_acls(opts).items():
            if not acls:
                if confirm_action(opts, f"Are you sure you want to delete all ACLs for resource `{resource}`? (y/n)",
                                  out, confirm):
                    authorizer.remove_all_acls(resource)
            elif confirm_action(opts, f"Are you sure you want to remove ACLs: {NEWLINE} {_lines(acls)} {NEWLINE} "
                                      f"from resource `{resource}`? (y/n)", out, confirm):
                authorizer.remove_acls(acls, resource)
        print_acls(authorizer, opts, out)
    with_authorizer(opts, remove)


def list_acl(opts: argparse.Namespace, out: Callable[[str], None]) -> None:
    with_authorizer(opts, lambda authorizer: print_acls(authorizer, opts, out))


def print_acls(authorizer: Any, opts: argparse.Namespace, out: Callable[[str], None]) -> None:
    resources = get_resource(opts, die_if_no_resource_found=False)
    resource_to_acls = (authorizer.get_all_acls().items() if not resources
                        else [(resource, authorizer.get_acls(resource)) for resource in resources])
    for resource, acls in sorted(resource_to_acls, key=lambda item: str(item[0])):
        out(f"Current ACLs for resource `{resource}`: {NEWLINE} {_lines(acls)} {NEWLINE}")


def _lines(acls: set[Acl]) -> str:
    return NEWLINE.join("\t" + str(acl) for acl in sorted(acls, key=str))


def get_resource_to_acls(opts: argparse.Namespace) -> dict[Resource, set[Acl]]:
    resource_to_acls: dict[Resource, set[Acl]] = {}
    # without --producer or --consumer the ACLs are the command line's own
    if not opts.producer and not opts.consumer:
        resource_to_acls.update(get_cli_resource_to_acls(opts))
    # both may be given at once
    if opts.producer:
        resource_to_acls.update(get_producer_resource_to_acls(opts))
    if opts.consumer:
        for resource, acls in get_consumer_resource_to_acls(opts).items():
            resource_to_acls[resource] = acls | resource_to_acls.get(resource, set())
    validate_operation(resource_to_acls)
    return resource_to_acls


def get_producer_resource_to_acls(opts: argparse.Namespace) -> dict[Resource, set[Acl]]:
    """Write and Describe on the topics (and transactional ids), Create on the cluster (IdempotentWrite too
    with --idempotent)."""
    resources = get_resource(opts)
    acls = get_acl(opts, {Operation.WRITE, Operation.DESCRIBE})
    result = {r: acls for r in resources if r.resource_type in (ResourceType.TOPIC, ResourceType.TRANSACTIONAL_ID)}
    result[CLUSTER_RESOURCE] = get_acl(opts, {Operation.CREATE}) | (
        get_acl(opts, {Operation.IDEMPOTENT_WRITE}) if opts.idempotent else set())
    return result


def get_consumer_resource_to_acls(opts: argparse.Namespace) -> dict[Resource, set[Acl]]:
    """Read and Describe on the topics, Read on the groups."""
    resources = get_resource(opts)
    acls = get_acl(opts, {Operation.READ, Operation.DESCRIBE})
    return {**{r: acls for r in resources if r.resource_type == ResourceType.TOPIC},
            **{r: get_acl(opts, {Operation.READ}) for r in resources if r.resource_type == ResourceType.GROUP}}


def get_cli_resource_to_acls(opts: argparse.Namespace) -> dict[Resource, set[Acl]]:
    operations = {Operation.from_string(operation.strip()) for operation in opts.operation or ["All"]}
    acls = get_acl(opts, operations)
    return {resource: acls for resource in get_resource(opts)}


def get_acl(opts: argparse.Namespace, operations: set[Operation]) -> set[Acl]:
    allowed_principals = get_principals(opts.allow_principal)
    denied_principals = get_principals(opts.deny_principal)
    allowed_hosts = get_hosts(opts.allow_host, opts.allow_principal)
    denied_hosts = get_hosts(opts.deny_host, opts.deny_principal)
    acls: set[Acl] = set()
    if allowed_hosts and allowed_principals:
        acls |= get_acls(allowed_principals, PermissionType.ALLOW, operations, allowed_hosts)
    if denied_hosts and denied_principals:
        acls |= get_acls(denied_principals, PermissionType.DENY, operations, denied_hosts)
    return acls


def get_acls(principals: set[KafkaPrincipal], permission_type: PermissionType, operations: set[Operation],
             hosts: set[str]) -> set[Acl]:
    return {Acl(principal, permission_type, host, operation)
            for principal in principals for operation in operations for host in hosts}


def get_hosts(hosts: list[str] | None, principals: list[str] | None) -> set[str]:
    """The hosts given, or every host ("*") when principals were given without hosts."""
    if hosts:
        return {host.strip() for host in hosts}
    return {WILD_CARD_HOST} if principals else set()


def get_principals(principals: list[str] | None) -> set[KafkaPrincipal]:
    return {KafkaPrincipal.from_string(p.strip()) for p in principals or []}


def get_resource(opts: argparse.Namespace, die_if_no_resource_found: bool = True) -> list[Resource]:
    resources: list[Resource] = []
    for topic in opts.topic or []:
        resources.append(Resource(ResourceType.TOPIC, topic.strip()))
    if opts.cluster or opts.idempotent:
        resources.append(CLUSTER_RESOURCE)
    for group in opts.group or []:
        resources.append(Resource(ResourceType.GROUP, group.strip()))
    for transactional_id in opts.transactional_id or []:
        resources.append(Resource(ResourceType.TRANSACTIONAL_ID, transactional_id))
    if not resources and die_if_no_resource_found:
        raise UsageError("You must provide at least one resource: --topic <topic> or --cluster or --group <group>")
    return list(dict.fromkeys(resources))


def confirm_action(opts: argparse.Namespace, message: str, out: Callable[[str], None],
                   confirm: Callable[[str], str]) -> bool:
    if opts.force:
        return True
    out(message)
    return confirm("").strip().lower() == "y"


def validate_operation(resource_to_acls: dict[Resource, set[Acl]]) -> None:
    for resource, acls in resource_to_acls.items():
        valid_ops = RESOURCE_TYPE_TO_VALID_OPERATIONS[resource.resource_type]
        if {acl.operation for acl in acls} - valid_ops:
            raise UsageError(f"ResourceType {resource.resource_type} only supports operations "
                             f"{','.join(str(op) for op in sorted(valid_ops, key=str))}")


def check_args(opts: argparse.Namespace) -> None:
    if sum(bool(x) for x in (opts.add, opts.remove, opts.list)) != 1:
        raise UsageError("Command must include exactly one action: --list, --add, --remove. ")
    if opts.list and any((opts.producer, opts.consumer, opts.allow_host, opts.allow_principal, opts.deny_host,
                          opts.deny_principal)):
        raise UsageError("Option \"[list]\" can't be used with option\"[producer, consumer, allow-host, "
                         "allow-principal, deny-host, deny-principal]\"")
    # --producer and --consumer imply their operations and allow only
    for role in ("producer", "consumer"):
        if getattr(opts, role) and (opts.operation or opts.deny_principal or opts.deny_host):
            raise UsageError(f"Option \"[{role}]\" can't be used with option\"[operation, deny-principal, "
                             f"deny-host]\"")
    if opts.producer and not opts.topic:
        raise UsageError("With --producer you must specify a --topic")
    if opts.idempotent and not opts.producer:
        raise UsageError("The --idempotent option is only available if --producer is set")
    if opts.consumer and (not opts.topic or not opts.group or (not opts.producer and (
            opts.cluster or opts.transactional_id))):
        raise UsageError("With --consumer you must specify a --topic and a --group and no --cluster or "
                         "--transactional-id option should be specified.")


def options_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="kafka-edu acls", description="Add, remove or list ACLs "
                                     "(kafka-acls.sh, Kafka 1.0.2).")
    parser.add_argument("--authorizer", default=DEFAULT_AUTHORIZER,
                        help="the authorizer's class name (default kafka.security.auth.SimpleAclAuthorizer)")
    parser.add_argument("--authorizer-properties", nargs="+", action="extend", metavar="key=val",
                        help="the authorizer's properties, e.g. zookeeper.connect=localhost:2181")
    parser.add_argument("--topic", action="append", help="a topic; * for every topic")
    parser.add_argument("--cluster", action="store_true", help="the cluster's ACLs")
    parser.add_argument("--group", action="append", help="a consumer group; * for every group")
    parser.add_argument("--transactional-id", action="append", help="a transactional id; * for every one")
    parser.add_argument("--idempotent", action="store_true", help="with --producer: IdempotentWrite on the cluster")
    parser.add_argument("--add", action="store_true")
    parser.add_argument("--remove", action="store_true")
    parser.add_argument("--list", action="store_true")
    parser.add_argument("--operation", action="append",
                        help="what is allowed or denied (default All): " + ", ".join(str(o) for o in Operation))
    parser.add_argument("--allow-principal", action="append", help="Type:name, e.g. User:alice; User:* is everyone")
    parser.add_argument("--deny-principal", action="append", help="Type:name; deny rules win over allow rules")
    parser.add_argument("--allow-host", action="append", help="default * (every host) with --allow-principal")
    parser.add_argument("--deny-host", action="append", help="default * (every host) with --deny-principal")
    parser.add_argument("--producer", action="store_true", help="Write, Describe on the topic, Create on the cluster")
    parser.add_argument("--consumer", action="store_true", help="Read, Describe on the topic, Read on the group")
    parser.add_argument("--force", action="store_true", help="assume yes to every question")
    return parser
