"""`kafka-edu acls` (Kafka 1.0.2's AclCommand): what each option combination adds, lists and removes, through the
authorizer, over the in-memory ZooKeeper of test_acl_authorizer."""

from __future__ import annotations

import pytest

from kafka_edu.v1_0_2.clients.common.security.auth.kafka_principal import KafkaPrincipal
from kafka_edu.v1_0_2.core.admin import acl_command
from kafka_edu.v1_0_2.core.security.auth.acl import Acl
from kafka_edu.v1_0_2.core.security.auth.operation import Operation
from kafka_edu.v1_0_2.core.security.auth.permission_type import PermissionType
from kafka_edu.v1_0_2.core.security.auth.resource import CLUSTER_RESOURCE, Resource
from kafka_edu.v1_0_2.core.security.auth.resource_type import ResourceType
from kafka_edu.v1_0_2.core.security.auth.simple_acl_authorizer import SimpleAclAuthorizer
from tests.unit.test_acl_authorizer import zookeeper  # noqa: F401  (a fixture)

pytestmark = pytest.mark.usefixtures("zookeeper")

ZK = ["--authorizer-properties", "zookeeper.connect=127.0.0.1:2181"]
ALICE = KafkaPrincipal("User", "alice")


def acls_command(*args: str, answer: str = "y") -> tuple[int, str]:
    lines: list[str] = []
    code = acl_command.main([*ZK, *args], out=lines.append, confirm=lambda _: answer)
    return code, "\n".join(lines)


def stored_acls() -> dict[Resource, set[Acl]]:
    authorizer = SimpleAclAuthorizer()
    authorizer.configure({"zookeeper.connect": "127.0.0.1:2181"})
    return authorizer.get_all_acls()


def acl(operation: Operation, principal: KafkaPrincipal = ALICE, host: str = "*",
        permission: PermissionType = PermissionType.ALLOW) -> Acl:
    return Acl(principal, permission, host, operation)


def test_add_then_list() -> None:
    code, out = acls_command("--add", "--allow-principal", "User:alice", "--operation", "Read", "--operation",
                             "Write", "--topic", "orders")
    assert code == 0
    assert "Adding ACLs for resource `Topic:orders`: \n \tUser:alice has Allow permission for operations: Read " \
           "from hosts: *\n\tUser:alice has Allow permission for operations: Write from hosts: * \n" in out
    assert "Current ACLs for resource `Topic:orders`:" in out
    assert stored_acls() == {Resource(ResourceType.TOPIC, "orders"): {acl(Operation.READ), acl(Operation.WRITE)}}
    code, out = acls_command("--list")
    assert code == 0 and "Current ACLs for resource `Topic:orders`:" in out


def test_producer_and_consumer_roles() -> None:
    assert acls_command("--add", "--allow-principal", "User:alice", "--producer", "--idempotent", "--topic",
                        "orders")[0] == 0
    assert acls_command("--add", "--allow-principal", "User:alice", "--consumer", "--topic", "orders", "--group",
                        "billing")[0] == 0
    assert stored_acls() == {
        Resource(ResourceType.TOPIC, "orders"): {acl(Operation.WRITE), acl(Operation.DESCRIBE), acl(Operation.READ)},
        CLUSTER_RESOURCE: {acl(Operation.CREATE), acl(Operation.IDEMPOTENT_WRITE)},
        Resource(ResourceType.GROUP, "billing"): {acl(Operation.READ)}}


def test_deny_and_hosts() -> None:
    assert acls_command("--add", "--allow-principal", "User:*", "--deny-principal", "User:bob", "--deny-host",
                        "10.0.0.9", "--operation", "Read", "--group", "*")[0] == 0
    assert stored_acls() == {Resource(ResourceType.GROUP, "*"): {
        acl(Operation.READ, KafkaPrincipal("User", "*")),
        acl(Operation.READ, KafkaPrincipal("User", "bob"), "10.0.0.9", PermissionType.DENY)}}


def test_remove_asks_first_and_removes_all_without_principals() -> None:
    acls_command("--add", "--allow-principal", "User:alice", "--operation", "Read", "--operation", "Write",
                 "--topic", "orders")
    assert acls_command("--remove", "--allow-principal", "User:alice", "--operation", "Read", "--topic", "orders",
                        answer="n")[0] == 0
    assert len(stored_acls()[Resource(ResourceType.TOPIC, "orders")]) == 2  # the answer was no
    assert acls_command("--remove", "--allow-principal", "User:alice", "--operation", "Read", "--topic",
                        "orders")[0] == 0
    assert stored_acls() == {Resource(ResourceType.TOPIC, "orders"): {acl(Operation.WRITE)}}
    assert acls_command("--remove", "--force", "--topic", "orders")[0] == 0
    assert stored_acls() == {}


@pytest.mark.parametrize("args, message", [
    (["--add", "--list", "--topic", "t"], "exactly one action"),
    (["--add", "--topic", "t"], "You must specify one of: --allow-principal, --deny-principal"),
    (["--add", "--allow-principal", "User:alice"], "at least one resource"),
    (["--add", "--allow-principal", "User:alice", "--operation", "Write", "--group", "g"],
     "ResourceType Group only supports operations"),
    (["--add", "--allow-principal", "User:alice", "--consumer", "--topic", "t"], "With --consumer"),
    (["--add", "--allow-principal", "User:alice", "--producer", "--operation", "Read", "--topic", "t"],
     "can't be used"),
    (["--add", "--allow-principal", "User:alice", "--idempotent", "--topic", "t"], "--idempotent"),
    (["--list", "--allow-principal", "User:alice"], "can't be used"),
])
def test_bad_combinations_print_the_usage_and_write_nothing(args: list[str], message: str) -> None:
    code, out = acls_command(*args)
    assert code == 1 and message in out and "usage: kafka-edu acls" in out
    assert stored_acls() == {}


@pytest.mark.parametrize("args", [["--allow-principal", "alice"], ["--operation", "Fly"]])
def test_an_acl_that_cannot_be_made_is_an_error(args: list[str]) -> None:
    defaults = {"--allow-principal": "User:alice", "--operation": "Read"}
    defaults.update(dict(zip(args[::2], args[1::2], strict=True)))
    code, out = acls_command("--add", "--topic", "t", *[x for pair in defaults.items() for x in pair])
    assert code == 1 and out.startswith("Error while executing ACL command:")
    assert stored_acls() == {}
