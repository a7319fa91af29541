"""Port of core/src/main/scala/kafka/admin/AclCommand.scala (Kafka 3.9), its admin-client path: `kafka-acls
--bootstrap-server B --add|--remove|--list` with the resource, principal, host and operation options of 3.9.

CreateAcls and DeleteAcls go to a broker, which forwards them to the active controller; DescribeAcls is answered by
the broker's authorizer. 3.9's tool goes through its Admin client; this port goes through a real client library
(kafka-python's KafkaAdminClient), as the port's other 3.9 admin tools do. The `--authorizer-properties` path (ACLs
written by the authorizer itself, in ZooKeeper) is the 1.0.2 tool's (kafka_edu/v1_0_2/core/admin/acl_command.py);
`kafka-edu acls` picks one or the other by the options given. Left out: `--command-config` (a properties file for the
admin client: the port's clients take no such file) and `--zk-tls-config-file`.
"""

from __future__ import annotations

import argparse
import sys
import traceback
from collections.abc import Callable
from typing import Any

from kafka_edu.v1_0_2.clients.common.security.auth.kafka_principal import KafkaPrincipal
from kafka_edu.v3_9.clients.common.acl.acl_binding import AccessControlEntry, AccessControlEntryFilter, AclBinding
from kafka_edu.v3_9.clients.common.acl.acl_operation import AclOperation, AclPermissionType
from kafka_edu.v3_9.clients.common.resource.pattern_type import PatternType
from kafka_edu.v3_9.clients.common.resource.resource_pattern import ResourcePattern, ResourcePatternFilter
from kafka_edu.v3_9.clients.common.resource.resource_type import ResourceType

CLUSTER_RESOURCE_FILTER = ResourcePatternFilter(ResourceType.CLUSTER, "kafka-cluster", PatternType.LITERAL)
WILDCARD_HOST = "*"  # AclEntry.WILDCARD_HOST
NEWLINE = "\n"
TIMEOUT_MS = 30000

# AclEntry.supportedOperations(resourceType)
SUPPORTED_OPERATIONS: dict[ResourceType, set[AclOperation]] = {
    ResourceType.TOPIC: {AclOperation.READ, AclOperation.WRITE, AclOperation.CREATE, AclOperation.DESCRIBE,
                         AclOperation.DELETE, AclOperation.ALTER, AclOperation.DESCRIBE_CONFIGS,
                         AclOperation.ALTER_CONFIGS},
    ResourceType.GROUP: {AclOperation.READ, AclOperation.DESCRIBE, AclOperation.DELETE},
    ResourceType.CLUSTER: {AclOperation.CREATE, AclOperation.CLUSTER_ACTION, AclOperation.DESCRIBE_CONFIGS,
                           AclOperation.ALTER_CONFIGS, AclOperation.IDEMPOTENT_WRITE, AclOperation.ALTER,
                           AclOperation.DESCRIBE},
    ResourceType.TRANSACTIONAL_ID: {AclOperation.DESCRIBE, AclOperation.WRITE},
    ResourceType.DELEGATION_TOKEN: {AclOperation.DESCRIBE},
    ResourceType.USER: {AclOperation.CREATE_TOKENS, AclOperation.DESCRIBE_TOKENS},
}


class UsageError(Exception):
    """CommandLineUtils.printUsageAndExit: the message, then the usage, exit 1."""


def operation_name(operation: AclOperation) -> str:
    """SecurityUtils.operationName: "IdempotentWrite" for IDEMPOTENT_WRITE."""
    return "".join(part.capitalize() for part in operation.name.split("_"))


def operation(name: str) -> AclOperation:
    """SecurityUtils.operation: a Pascal-case or enum-style name, case aside."""
    key = name.replace("_", "").replace("-", "").upper()
    for op in AclOperation:
        if op.name.replace("_", "") == key:
            return op
    raise ValueError(f"Unknown operation {name}")


def main(args: list[str], out: Callable[[str], None] = print, confirm: Callable[[str], str] = input) -> int:
    parser = options_parser()
    try:
        opts = parser.parse_args(args)
    except SystemExit as e:  # --help, or a usage error argparse reported
        return int(e.code or 0)
    try:
        check_args(opts)
        service = AdminClientService(opts, out, confirm)
        if opts.add:
            service.add_acls()
        elif opts.remove:
            service.remove_acls()
        elif opts.list:
            service.list_acls()
    except UsageError as e:
        out(str(e))
        out(parser.format_usage())
        return 1
    except Exception as e:
        out(f"Error while executing ACL command: {e}")
        out("".join(traceback.format_exception(e)))
        return 1
    return 0


class AdminClientService:
    def __init__(self, opts: argparse.Namespace, out: Callable[[str], None],
                 confirm: Callable[[str], str]) -> None:
        self.opts = opts
        self.out = out
        self.confirm = confirm

    def with_admin_client(self, f: Callable[[Any], None]) -> None:
        from kafka.admin import KafkaAdminClient  # the Admin client: a real client library
        admin_client = KafkaAdminClient(bootstrap_servers=self.opts.bootstrap_server, client_id="kafka-acls",
                                        request_timeout_ms=TIMEOUT_MS)
        try:
            f(admin_client)
        finally:
            admin_client.close()

    def add_acls(self) -> None:
        resource_to_acl = get_resource_to_acls(self.opts)

        def add(admin_client: Any) -> None:
            for resource, acls in resource_to_acl.items():
                self.out(f"Adding ACLs for resource `{resource}`: {NEWLINE} {_lines(acls)} {NEWLINE}")
                result = admin_client.create_acls([_client_acl(AclBinding(resource, acl)) for acl in acls])
                for _, error in result["failed"]:
                    raise error if isinstance(error, BaseException) else RuntimeError(str(error))
        self.with_admin_client(add)

    def remove_acls(self) -> None:
        def remove(admin_client: Any) -> None:
            for pattern_filter, acls in get_resource_filter_to_acls(self.opts).items():
                if not acls:
                    if confirm_action(self.opts, f"Are you sure you want to delete all ACLs for resource filter "
                                                 f"`{pattern_filter}`? (y/n)", self.out, self.confirm):
                        self._remove_acls(admin_client, acls, pattern_filter)
                elif confirm_action(self.opts, f"Are you sure you want to remove ACLs: {NEWLINE} {_lines(acls)} "
                                               f"{NEWLINE} from resource filter `{pattern_filter}`? (y/n)", self.out,
                                    self.confirm):
                    self._remove_acls(admin_client, acls, pattern_filter)
        self.with_admin_client(remove)

    def list_acls(self) -> None:
        self.with_admin_client(self._list_acls)

    def _list_acls(self, admin_client: Any) -> None:
        filters = get_resource_filter(self.opts, die_if_no_resource_found=False)
        list_principals = get_principals(self.opts.principal)
        resource_to_acls = self._get_acls(admin_client, filters)
        if not list_principals:
            self._print_resource_acls(resource_to_acls)
        else:
            for principal in list_principals:
                self.out(f"ACLs for principal `{principal}`")
                filtered = {resource: {acl for acl in acls if str(principal) == acl.principal}
                            for resource, acls in resource_to_acls.items()}
                self._print_resource_acls({r: acls for r, acls in filtered.items() if acls})

    def _print_resource_acls(self, resource_to_acls: dict[ResourcePattern, set[AccessControlEntry]]) -> None:
        for resource, acls in resource_to_acls.items():
            self.out(f"Current ACLs for resource `{resource}`: {NEWLINE} {_lines(acls)} {NEWLINE}")

    def _remove_acls(self, admin_client: Any, acls: set[AccessControlEntry],
                     pattern_filter: ResourcePatternFilter) -> None:
        if not acls:
            filters = [_client_filter(pattern_filter, AccessControlEntryFilter.ANY)]
        else:
            filters = [_client_filter(pattern_filter, acl.to_filter()) for acl in acls]
        for _, _, error in admin_client.delete_acls(filters):
            if getattr(error, "errno", 0):
                raise error() if isinstance(error, type) else error

    def _get_acls(self, admin_client: Any, filters: set[ResourcePatternFilter]
                  ) -> dict[ResourcePattern, set[AccessControlEntry]]:
        pattern_filters = filters or {ResourcePatternFilter.ANY}
        resource_to_acls: dict[ResourcePattern, set[AccessControlEntry]] = {}
        for pattern_filter in pattern_filters:
            acls, error = admin_client.describe_acls(_client_filter(pattern_filter, AccessControlEntryFilter.ANY))
            if getattr(error, "errno", 0):
                raise error() if isinstance(error, type) else error
            for binding in map(_binding, acls):
                resource_to_acls.setdefault(binding.pattern, set()).add(binding.entry)
        return resource_to_acls


# -- the options, as 3.9 reads them --------------------------------------------------------------------------------


def get_resource_to_acls(opts: argparse.Namespace) -> dict[ResourcePattern, set[AccessControlEntry]]:
    pattern_type = opts.resource_pattern_type
    if not pattern_type.is_specific():
        raise UsageError(f"A '--resource-pattern-type' value of '{pattern_type}' is not valid when adding acls.")
    resource_to_acl = {ResourcePattern(f.resource_type, f.name, f.pattern_type): acls  # type: ignore[arg-type]
                       for f, acls in get_resource_filter_to_acls(opts).items()}
    if any(not acls for acls in resource_to_acl.values()):
        raise UsageError("You must specify one of: --allow-principal, --deny-principal when trying to add ACLs.")
    return resource_to_acl


def get_resource_filter_to_acls(opts: argparse.Namespace) -> dict[ResourcePatternFilter, set[AccessControlEntry]]:
    resource_to_acls: dict[ResourcePatternFilter, set[AccessControlEntry]] = {}
    # without --producer or --consumer, the ACLs come from the options themselves
    if not opts.producer and not opts.consumer:
        resource_to_acls.update(get_cli_resource_filter_to_acls(opts))
    # --producer and --consumer may come together
    if opts.producer:
        resource_to_acls.update(get_producer_resource_filter_to_acls(opts))
    if opts.consumer:
        for k, v in get_consumer_resource_filter_to_acls(opts).items():
            resource_to_acls[k] = v | resource_to_acls.get(k, set())
    validate_operation(resource_to_acls)
    return resource_to_acls


def get_producer_resource_filter_to_acls(opts: argparse.Namespace
                                         ) -> dict[ResourcePatternFilter, set[AccessControlEntry]]:
    filters = get_resource_filter(opts)
    topic_acls = get_acl(opts, {AclOperation.WRITE, AclOperation.DESCRIBE, AclOperation.CREATE})
    transactional_id_acls = get_acl(opts, {AclOperation.WRITE, AclOperation.DESCRIBE})
    result = {f: topic_acls for f in filters if f.resource_type is ResourceType.TOPIC}
    result.update({f: transactional_id_acls for f in filters if f.resource_type is ResourceType.TRANSACTIONAL_ID})
    if opts.idempotent:
        result[CLUSTER_RESOURCE_FILTER] = get_acl(opts, {AclOperation.IDEMPOTENT_WRITE})
    return result


def get_consumer_resource_filter_to_acls(opts: argparse.Namespace
                                         ) -> dict[ResourcePatternFilter, set[AccessControlEntry]]:
    filters = get_resource_filter(opts)
    acls = get_acl(opts, {AclOperation.READ, AclOperation.DESCRIBE})
    result = {f: acls for f in filters if f.resource_type is ResourceType.TOPIC}
    result.update({f: get_acl(opts, {AclOperation.READ}) for f in filters if f.resource_type is ResourceType.GROUP})
    return result


def get_cli_resource_filter_to_acls(opts: argparse.Namespace) -> dict[ResourcePatternFilter, set[AccessControlEntry]]:
    acls = get_acl(opts, {operation(name.strip()) for name in (opts.operation or ["All"])})
    return {f: acls for f in get_resource_filter(opts)}


def get_acl(opts: argparse.Namespace, operations: set[AclOperation]) -> set[AccessControlEntry]:
    allowed_principals = get_principals(opts.allow_principal)
    denied_principals = get_principals(opts.deny_principal)
    allowed_hosts = get_hosts(opts.allow_host, opts.allow_principal)
    denied_hosts = get_hosts(opts.deny_host, opts.deny_principal)
    acls: set[AccessControlEntry] = set()
    if allowed_hosts and allowed_principals:
        acls |= get_acls(allowed_principals, AclPermissionType.ALLOW, operations, allowed_hosts)
    if denied_hosts and denied_principals:
        acls |= get_acls(denied_principals, AclPermissionType.DENY, operations, denied_hosts)
    return acls


def get_acls(principals: set[KafkaPrincipal], permission_type: AclPermissionType, operations: set[AclOperation],
             hosts: set[str]) -> set[AccessControlEntry]:
    return {AccessControlEntry(str(principal), host, op, permission_type)
            for principal in principals for op in operations for host in hosts}


def get_hosts(hosts: list[str] | None, principals: list[str] | None) -> set[str]:
    if hosts:
        return {h.strip() for h in hosts}
    if principals:
        return {WILDCARD_HOST}
    return set()


def get_principals(principals: list[str] | None) -> set[KafkaPrincipal]:
    return {KafkaPrincipal.from_string(p.strip()) for p in principals or []}


def get_resource_filter(opts: argparse.Namespace, die_if_no_resource_found: bool = True
                        ) -> set[ResourcePatternFilter]:
    pattern_type = opts.resource_pattern_type
    resource_filters: set[ResourcePatternFilter] = set()
    for topic in opts.topic or []:
        resource_filters.add(ResourcePatternFilter(ResourceType.TOPIC, topic.strip(), pattern_type))
    if pattern_type is PatternType.LITERAL and (opts.cluster or opts.idempotent):
        resource_filters.add(CLUSTER_RESOURCE_FILTER)
    for group in opts.group or []:
        resource_filters.add(ResourcePatternFilter(ResourceType.GROUP, group.strip(), pattern_type))
    for transactional_id in opts.transactional_id or []:
        resource_filters.add(ResourcePatternFilter(ResourceType.TRANSACTIONAL_ID, transactional_id, pattern_type))
    for token in opts.delegation_token or []:
        resource_filters.add(ResourcePatternFilter(ResourceType.DELEGATION_TOKEN, token.strip(), pattern_type))
    for user in opts.user_principal or []:
        resource_filters.add(ResourcePatternFilter(ResourceType.USER, user.strip(), pattern_type))
    if not resource_filters and die_if_no_resource_found:
        raise UsageError("You must provide at least one resource: --topic <topic> or --cluster or --group <group> or "
                         "--delegation-token <Delegation Token ID>")
    return resource_filters


def confirm_action(opts: argparse.Namespace, msg: str, out: Callable[[str], None],
                   confirm: Callable[[str], str]) -> bool:
    if opts.force:
        return True
    out(msg)
    return confirm("").strip().lower() == "y"


def validate_operation(resource_to_acls: dict[ResourcePatternFilter, set[AccessControlEntry]]) -> None:
    for resource, acls in resource_to_acls.items():
        valid_ops = SUPPORTED_OPERATIONS.get(resource.resource_type, set()) | {AclOperation.ALL}
        if {acl.operation for acl in acls} - valid_ops:
            raise UsageError(f"ResourceType {resource.resource_type} only supports operations "
                             f"{', '.join(operation_name(op) for op in sorted(valid_ops))}")


def _pattern_type(value: str) -> PatternType:
    """PatternTypeConverter: any PatternType but UNKNOWN, case aside."""
    pattern_type = PatternType.from_string(value)
    if pattern_type.is_unknown():
        raise argparse.ArgumentTypeError(f"Unknown resource-pattern-type: {value}")
    return pattern_type


def options_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="kafka-edu acls --bootstrap-server",
                                     description="Add, remove or list the ACLs of a KRaft cluster, through a broker "
                                                 "(Kafka 3.9's kafka-acls.sh, admin-client path).")
    parser.add_argument("--bootstrap-server", metavar="server to connect to",
                        help="host1:port1,host2:port2,...: the brokers to ask")
    parser.add_argument("--authorizer", help="refused with --bootstrap-server (ZooKeeper mode's option)")
    parser.add_argument("--authorizer-properties", action="append", help="refused with --bootstrap-server "
                                                                           "(ZooKeeper mode's option)")
    parser.add_argument("--topic", action="append", help="topic to which ACLs should be added or removed; * for all")
    parser.add_argument("--cluster", action="store_true", help="the cluster as the resource")
    parser.add_argument("--group", action="append", help="consumer group; * for all groups")
    parser.add_argument("--transactional-id", action="append", help="transactional id; * for all")
    parser.add_argument("--idempotent", action="store_true", help="with --producer: IdempotentWrite on the cluster")
    parser.add_argument("--delegation-token", action="append", help="delegation token; * for all tokens")
    parser.add_argument("--user-principal", action="append", help="a user principal as the resource")
    parser.add_argument("--resource-pattern-type", type=_pattern_type, default=PatternType.LITERAL,
                        metavar="ANY|MATCH|LITERAL|PREFIXED",
                        help="literal or prefixed when adding; any or match also when listing or removing "
                             "(default: literal)")
    parser.add_argument("--add", action="store_true", help="add the ACLs described by the other options")
    parser.add_argument("--remove", action="store_true", help="remove the ACLs described by the other options")
    parser.add_argument("--list", action="store_true", help="List ACLs for the specified resource (all without one).")
    parser.add_argument("--operation", action="append",
                        help="operation allowed or denied (default All): "
                             + ", ".join(operation_name(op) for op in AclOperation
                                         if op not in (AclOperation.UNKNOWN, AclOperation.ANY)))
    parser.add_argument("--allow-principal", action="append", help="principalType:name, e.g. User:alice; User:* is "
                                                                    "everyone")
    parser.add_argument("--deny-principal", action="append", help="principalType:name; deny rules win over allow")
    parser.add_argument("--principal", action="append", help="with --list: the ACLs of this principal")
    parser.add_argument("--allow-host", action="append", help="default * with --allow-principal")
    parser.add_argument("--deny-host", action="append", help="default * with --deny-principal")
    parser.add_argument("--producer", action="store_true", help="WRITE, DESCRIBE and CREATE on the topic")
    parser.add_argument("--consumer", action="store_true", help="READ, DESCRIBE on the topic, READ on the group")
    parser.add_argument("--force", action="store_true", help="Assume Yes to all queries and do not prompt.")
    return parser


def check_args(opts: argparse.Namespace) -> None:
    if opts.bootstrap_server and opts.authorizer:
        raise UsageError("Only one of --bootstrap-server or --authorizer must be specified")
    if not opts.bootstrap_server:
        if not opts.authorizer_properties:
            raise UsageError("Missing required argument \"[authorizer-properties]\"")
        raise UsageError("The --authorizer path (ACLs in ZooKeeper) is ZooKeeper mode's: kafka-edu acls "
                         "--authorizer-properties zookeeper.connect=... (Kafka 1.0.2's tool)")
    if opts.authorizer_properties and opts.bootstrap_server:
        raise UsageError("The --authorizer-properties option can only be used with --authorizer option")
    if sum(map(bool, (opts.add, opts.remove, opts.list))) != 1:
        raise UsageError("Command must include exactly one action: --list, --add, --remove. ")
    check_invalid_args(opts, "list", "producer", "consumer", "allow_host", "allow_principal", "deny_host",
                       "deny_principal")
    # --producer and --consumer imply their operations, and allow only
    check_invalid_args(opts, "producer", "operation", "deny_principal", "deny_host")
    check_invalid_args(opts, "consumer", "operation", "deny_principal", "deny_host")
    if opts.principal and not opts.list:
        raise UsageError("The --principal option is only available if --list is set")
    if opts.producer and not opts.topic:
        raise UsageError("With --producer you must specify a --topic")
    if opts.idempotent and not opts.producer:
        raise UsageError("The --idempotent option is only available if --producer is set")
    if opts.consumer and (not opts.topic or not opts.group
                          or (not opts.producer and (opts.cluster or opts.transactional_id))):
        raise UsageError("With --consumer you must specify a --topic and a --group and no --cluster or "
                         "--transactional-id option should be specified.")


def check_invalid_args(opts: argparse.Namespace, used_option: str, *invalid_options: str) -> None:
    """CommandLineUtils.checkInvalidArgs."""
    if getattr(opts, used_option):
        for option in invalid_options:
            if getattr(opts, option):
                raise UsageError(f"Option \"[{_name(used_option)}]\" can't be used with option \"[{_name(option)}]\"")


def _name(dest: str) -> str:
    return dest.replace("_", "-")


# -- our bindings <-> the client library's ----------------------------------------------------------------------------


def _client_acl(binding: AclBinding) -> Any:
    from kafka.admin import ACL, ACLOperation, ACLPermissionType, ACLResourcePatternType
    from kafka.admin import ResourcePattern as ClientResourcePattern
    from kafka.admin import ResourceType as ClientResourceType
    pattern = binding.pattern
    return ACL(binding.entry.principal, binding.entry.host, ACLOperation(binding.entry.operation.code()),
               ACLPermissionType(binding.entry.permission_type.code()),
               ClientResourcePattern(ClientResourceType(pattern.resource_type.code()), pattern.name,
                                     ACLResourcePatternType(pattern.pattern_type.code())))


def _client_filter(pattern_filter: ResourcePatternFilter, entry_filter: AccessControlEntryFilter) -> Any:
    from kafka.admin import ACLFilter, ACLOperation, ACLPermissionType, ACLResourcePatternType
    from kafka.admin import ResourcePatternFilter as ClientResourcePatternFilter
    from kafka.admin import ResourceType as ClientResourceType
    return ACLFilter(entry_filter.principal, entry_filter.host, ACLOperation(entry_filter.operation.code()),
                     ACLPermissionType(entry_filter.permission_type.code()),
                     ClientResourcePatternFilter(ClientResourceType(pattern_filter.resource_type.code()),
                                                 pattern_filter.name,
                                                 ACLResourcePatternType(pattern_filter.pattern_type.code())))


def _binding(acl: Any) -> AclBinding:
    pattern = acl.resource_pattern
    return AclBinding(ResourcePattern(ResourceType.from_code(pattern.resource_type.value), pattern.resource_name,
                                      PatternType.from_code(pattern.pattern_type.value)),
                      AccessControlEntry(acl.principal, acl.host, AclOperation.from_code(acl.operation.value),
                                         AclPermissionType.from_code(acl.permission_type.value)))


def _lines(acls: set[AccessControlEntry]) -> str:
    return NEWLINE.join("\t" + str(acl) for acl in acls)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
