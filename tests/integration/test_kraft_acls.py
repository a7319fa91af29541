"""ACLs on a KRaft cluster (Kafka 3.9's StandardAuthorizer), on real processes: CreateAcls through one broker (forwarded
to the controller, written as AccessControlEntryRecords), every broker's authorizer loaded from the metadata image and
enforcing them, DescribeAcls and DeleteAcls, through kafka-python's KafkaAdminClient and confluent-kafka's AdminClient;
the ACLs survive a restart of the whole cluster.

The port's KRaft listeners are PLAINTEXT only (the 3.9 tree has no SASL), so every client is User:ANONYMOUS: the
brokers allow what no ACL names (allow.everyone.if.no.acl.found=true) and the ACLs are on ANONYMOUS itself. The
controller is forwarded requests without 3.9's Envelope (it sees the broker's principal), and the Raft quorum needs
its listener before the ACLs are loaded, so the controller makes ANONYMOUS a super user (`controller:` overrides)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from confluent_kafka.admin import AclBinding as CkAclBinding
from confluent_kafka.admin import AclBindingFilter as CkAclBindingFilter
from confluent_kafka.admin import AclOperation as CkAclOperation
from confluent_kafka.admin import AclPermissionType as CkAclPermissionType
from confluent_kafka.admin import AdminClient
from confluent_kafka.admin import ResourcePatternType as CkResourcePatternType
from confluent_kafka.admin import ResourceType as CkResourceType
from kafka import KafkaProducer
from kafka.admin import (
    ACL,
    ACLFilter,
    ACLOperation,
    ACLPermissionType,
    ACLResourcePatternType,
    KafkaAdminClient,
    NewTopic,
    ResourcePattern,
    ResourcePatternFilter,
    ResourceType,
)
from kafka.errors import TopicAuthorizationFailedError

from kafka_edu.cluster_runner.runner import ClusterRunner
from kafka_edu.v3_9.clients.common.protocol.api_keys import ApiKeys
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from tests.integration.helpers import broker_port, request_to, wait_until

TOPIC = "secured"
BROKERS = (2, 3)  # node ids: the controller is 1
ANONYMOUS = "User:ANONYMOUS"
OVERRIDES = ["authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer",
             "allow.everyone.if.no.acl.found=true", "controller:super.users=User:ANONYMOUS",
             "default.replication.factor=1", "offsets.topic.replication.factor=1"]


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ClusterRunner]:
    runner = ClusterRunner.up(2, tmp_path_factory.mktemp("acls") / "traces", mode="kraft", controllers=1,
                              timeout_s=120, overrides=OVERRIDES)
    try:
        yield runner
    finally:
        runner.down()


def bootstrap(runner: ClusterRunner) -> str:
    return runner.run.read_manifest()["bootstrap_servers"]


def topic_pattern(name: str = TOPIC) -> ResourcePattern:
    return ResourcePattern(ResourceType.TOPIC, name, ACLResourcePatternType.LITERAL)


def acls_on_broker(runner: ClusterRunner, broker_id: int) -> set[tuple[str, str, int, int]]:
    """DescribeAcls (every ACL) asked of one broker: answered from its own authorizer."""
    response = request_to(broker_port(runner, broker_id), ApiKeys.DESCRIBE_ACLS, 3, resource_type_filter=1,
                          resource_name_filter=None, pattern_type_filter=1, principal_filter=None, host_filter=None,
                          operation=1, permission_type=1)
    assert response.error_code == Errors.NONE
    return {(r.resource_name, acl.principal, acl.operation, acl.permission_type)
            for r in response.resources for acl in r.acls}


def produce_to_each_partition(runner: ClusterRunner) -> list[BaseException | None]:
    """One record to each partition (whose leaders are spread over both brokers), each through its leader."""
    producer = KafkaProducer(bootstrap_servers=bootstrap(runner), retries=0, request_timeout_ms=10000,
                             max_block_ms=20000)
    outcomes: list[BaseException | None] = []
    try:
        for partition in sorted(producer.partitions_for(TOPIC)):
            try:
                producer.send(TOPIC, b"v", partition=partition).get(timeout=20)
                outcomes.append(None)
            except Exception as e:  # noqa: BLE001 - the outcome is what the test looks at
                outcomes.append(e)
    finally:
        producer.close(timeout=5)
    return outcomes


def test_acls_are_enforced_by_every_broker_and_survive_a_restart(cluster: ClusterRunner) -> None:
    admin = KafkaAdminClient(bootstrap_servers=bootstrap(cluster), api_version=(3, 9))
    try:
        admin.create_topics([NewTopic(TOPIC, 4, 1)])

        def leaders() -> set[int]:
            return {p["leader_id"] for p in admin.describe_topics([TOPIC])[0]["partitions"]}
        # each broker leads a partition: each one's authorizer is asked
        wait_until(lambda: leaders() == set(BROKERS), 30, "the partitions' leaders")

        # An ACL on the topic that lets ANONYMOUS see it but not write to it: the topic now has ACLs, so what they
        # do not allow is denied.
        describe_only = ACL(ANONYMOUS, "*", ACLOperation.DESCRIBE, ACLPermissionType.ALLOW, topic_pattern())
        result = admin.create_acls([describe_only])
        assert result["failed"] == [] and len(result["succeeded"]) == 1
        for broker_id in BROKERS:
            wait_until(lambda b=broker_id: (TOPIC, ANONYMOUS, 8, 3) in acls_on_broker(cluster, b), 30,
                       f"the ACL in broker {broker_id}'s authorizer")
        outcomes = produce_to_each_partition(cluster)
        assert len(outcomes) == 4 and all(isinstance(e, TopicAuthorizationFailedError) for e in outcomes)

        # WRITE, through confluent-kafka's admin client, and every broker lets the producer in
        ck_admin = AdminClient({"bootstrap.servers": bootstrap(cluster)})
        write = CkAclBinding(CkResourceType.TOPIC, TOPIC, CkResourcePatternType.LITERAL, ANONYMOUS, "*",
                             CkAclOperation.WRITE, CkAclPermissionType.ALLOW)
        for future in ck_admin.create_acls([write]).values():
            assert future.result(30) is None
        for broker_id in BROKERS:
            wait_until(lambda b=broker_id: (TOPIC, ANONYMOUS, 4, 3) in acls_on_broker(cluster, b), 30,
                       f"the WRITE ACL in broker {broker_id}'s authorizer")
        described = ck_admin.describe_acls(CkAclBindingFilter(
            CkResourceType.ANY, None, CkResourcePatternType.ANY, None, None, CkAclOperation.ANY,
            CkAclPermissionType.ANY)).result(30)
        assert {(b.name, b.principal, b.operation) for b in described} == {
            (TOPIC, ANONYMOUS, CkAclOperation.DESCRIBE), (TOPIC, ANONYMOUS, CkAclOperation.WRITE)}
        assert produce_to_each_partition(cluster) == [None] * 4

        # The whole cluster down and up again: the ACLs come back from the metadata log.
        for broker_id in BROKERS:
            cluster.stop(broker_id)
        cluster.stop(1)
        cluster.start(1)
        cluster.wait_for_quorum(60)
        for broker_id in BROKERS:
            cluster.start(broker_id)
        for broker_id in BROKERS:
            cluster.wait_for_state(broker_id, "RUNNING", 90)
        for broker_id in BROKERS:
            assert acls_on_broker(cluster, broker_id) == {(TOPIC, ANONYMOUS, 8, 3), (TOPIC, ANONYMOUS, 4, 3)}
        assert produce_to_each_partition(cluster) == [None] * 4

        # DeleteAcls through kafka-python: WRITE goes, and writing is refused again
        admin.close()
        admin = KafkaAdminClient(bootstrap_servers=bootstrap(cluster), api_version=(3, 9))
        [(_, deleted, error)] = admin.delete_acls([ACLFilter(ANONYMOUS, None, ACLOperation.WRITE,
                                                             ACLPermissionType.ANY, ResourcePatternFilter(
                                                                 ResourceType.TOPIC, TOPIC,
                                                                 ACLResourcePatternType.ANY))])
        assert error.errno == 0 and [acl.operation for acl in deleted] == [ACLOperation.WRITE]
        for broker_id in BROKERS:
            wait_until(lambda b=broker_id: (TOPIC, ANONYMOUS, 4, 3) not in acls_on_broker(cluster, b), 30,
                       f"the WRITE ACL gone from broker {broker_id}")
        outcomes = produce_to_each_partition(cluster)
        assert all(isinstance(e, TopicAuthorizationFailedError) for e in outcomes)
    finally:
        admin.close()


def test_bad_acls_get_kafkas_errors(cluster: ClusterRunner) -> None:
    port = broker_port(cluster, BROKERS[0])
    creation = dict(resource_type=4, resource_name="not-the-cluster", resource_pattern_type=3, principal=ANONYMOUS,
                    host="*", operation=7, permission_type=3)
    empty_name = dict(creation, resource_type=2, resource_name="")
    response = request_to(port, ApiKeys.CREATE_ACLS, 3, creations=[creation, empty_name])
    assert [(r.error_code, r.error_message) for r in response.results] == [
        (Errors.INVALID_REQUEST, "The only valid name for the CLUSTER resource is kafka-cluster"),
        (Errors.INVALID_REQUEST, "Invalid empty resource name")]
    # a filter that matches nothing deletes nothing
    response = request_to(port, ApiKeys.DELETE_ACLS, 3, filters=[dict(
        resource_type_filter=2, resource_name_filter="no-such-topic", pattern_type_filter=3, principal_filter=None,
        host_filter=None, operation=1, permission_type=1)])
    assert [(r.error_code, r.matching_acls) for r in response.filter_results] == [(Errors.NONE, ())]
    # kafka-python reports the refusal of an ACL the controller finds invalid
    admin = KafkaAdminClient(bootstrap_servers=bootstrap(cluster), api_version=(3, 9))
    try:
        result = admin.create_acls([ACL(ANONYMOUS, "*", ACLOperation.ALTER, ACLPermissionType.ALLOW,
                                        ResourcePattern(ResourceType.CLUSTER, "nope",
                                                        ACLResourcePatternType.LITERAL))])
        assert result["succeeded"] == [] and len(result["failed"]) == 1
    finally:
        admin.close()


def test_the_acls_tool_with_bootstrap_server(cluster: ClusterRunner, capsys: pytest.CaptureFixture[str]) -> None:
    """`kafka-edu acls --bootstrap-server`: Kafka 3.9's AclCommand through the admin client."""
    from kafka_edu.cli import main

    tool = ["acls", "--bootstrap-server", bootstrap(cluster)]
    assert main([*tool, "--add", "--allow-principal", "User:alice", "--operation", "Read", "--topic", "tool"]) == 0
    assert ("Adding ACLs for resource `ResourcePattern(resourceType=TOPIC, name=tool, patternType=LITERAL)`: \n"
            " \t(principal=User:alice, host=*, operation=READ, permissionType=ALLOW) \n") in capsys.readouterr().out
    entry = "(principal=User:alice, host=*, operation=READ, permissionType=ALLOW)"

    def listed() -> str:
        assert main([*tool, "--list", "--topic", "tool"]) == 0
        return capsys.readouterr().out
    wait_until(lambda: entry in listed(), 30, "the ACL listed")
    assert main([*tool, "--remove", "--force", "--allow-principal", "User:alice", "--operation", "Read",
                 "--topic", "tool"]) == 0
    wait_until(lambda: entry not in listed(), 30, "the ACL gone")
    # a usage error is 3.9's
    assert main([*tool, "--add", "--topic", "tool"]) == 1
    assert "You must specify one of: --allow-principal, --deny-principal when trying to add ACLs." in \
        capsys.readouterr().out
