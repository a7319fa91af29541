"""Part A of issue 24 on real processes (Kafka 3.9, KRaft): configs changed through the broker, which preprocesses
them and forwards the rest to the active controller (IncrementalAlterConfigs through confluent-kafka, AlterConfigs
through kafka-python), the controller's validator refusing a bad value with INVALID_CONFIG and its message, at
CreateTopics too."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from confluent_kafka import KafkaException
from confluent_kafka.admin import AdminClient, AlterConfigOpType, ConfigEntry, ConfigResource, NewTopic
from kafka.admin import ConfigResource as KConfigResource
from kafka.admin import ConfigResourceType as KConfigResourceType
from kafka.admin import KafkaAdminClient

from kafka_edu.cluster_runner.runner import ClusterRunner
from kafka_edu.v3_9.clients.common.protocol.api_keys import ApiKeys
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from tests.integration.helpers import request_to, wait_until


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ClusterRunner]:
    runner = ClusterRunner.up(1, tmp_path_factory.mktemp("configs") / "traces", mode="kraft", controllers=1,
                              timeout_s=120, overrides=["offsets.topic.replication.factor=1"])
    try:
        yield runner
    finally:
        runner.down()


@pytest.fixture(scope="module")
def admin(cluster: ClusterRunner) -> AdminClient:
    return AdminClient({"bootstrap.servers": cluster.run.read_manifest()["bootstrap_servers"]})


def broker_port(cluster: ClusterRunner) -> int:
    return next(p["port"] for p in cluster.run.read_manifest()["processes"] if p["role"] == "broker")


def topic_config(admin: AdminClient, topic: str, name: str) -> str | None:
    resource = ConfigResource(ConfigResource.Type.TOPIC, topic)
    return admin.describe_configs([resource])[resource].result(30)[name].value


def create_topic(admin: AdminClient, topic: str) -> None:
    admin.create_topics([NewTopic(topic, 1, 1)])[topic].result(30)
    wait_until(lambda: topic in admin.list_topics(timeout=10).topics, 30, f"{topic} in the metadata")


def test_incremental_alter_configs_sets_and_deletes_a_topic_config(cluster: ClusterRunner,
                                                                    admin: AdminClient) -> None:
    create_topic(admin, "iac")
    resource = ConfigResource(ConfigResource.Type.TOPIC, "iac", incremental_configs=[
        ConfigEntry("retention.ms", "123456", incremental_operation=AlterConfigOpType.SET),
        ConfigEntry("cleanup.policy", "compact", incremental_operation=AlterConfigOpType.APPEND)])
    admin.incremental_alter_configs([resource])[resource].result(30)
    wait_until(lambda: topic_config(admin, "iac", "retention.ms") == "123456", 30, "retention.ms in the image")
    assert topic_config(admin, "iac", "cleanup.policy") == "delete,compact"
    delete = ConfigResource(ConfigResource.Type.TOPIC, "iac", incremental_configs=[
        ConfigEntry("retention.ms", None, incremental_operation=AlterConfigOpType.DELETE)])
    admin.incremental_alter_configs([delete])[delete].result(30)
    wait_until(lambda: topic_config(admin, "iac", "retention.ms") == "604800000", 30, "retention.ms back to default")


def test_a_bad_value_is_refused_with_the_validators_message(cluster: ClusterRunner, admin: AdminClient) -> None:
    create_topic(admin, "bad")
    resource = ConfigResource(ConfigResource.Type.TOPIC, "bad", incremental_configs=[
        ConfigEntry("cleanup.policy", "nonsense", incremental_operation=AlterConfigOpType.SET)])
    with pytest.raises(KafkaException) as e:
        admin.incremental_alter_configs([resource])[resource].result(30)
    assert e.value.args[0].code() == Errors.INVALID_CONFIG
    assert "nonsense" in e.value.args[0].str()
    # the same through the raw protocol, with 3.9's message
    response = request_to(broker_port(cluster), ApiKeys.INCREMENTAL_ALTER_CONFIGS, 1, validate_only=False,
                          resources=[dict(resource_type=2, resource_name="bad", configs=[
                              dict(name="cleanup.policy", config_operation=0, value="nonsense")])])
    (result,) = response.responses
    assert (result.error_code, result.error_message) == (
        Errors.INVALID_CONFIG, "Invalid value nonsense for configuration cleanup.policy: String must be one of: "
                               "compact, delete")
    # and at CreateTopics
    futures = admin.create_topics([NewTopic("bad-at-birth", 1, 1, config={"cleanup.policy": "nonsense"})])
    with pytest.raises(KafkaException) as e:
        futures["bad-at-birth"].result(30)
    assert e.value.args[0].code() == Errors.INVALID_CONFIG


def test_unknown_topic_and_bad_broker_id(cluster: ClusterRunner, admin: AdminClient) -> None:
    unknown = ConfigResource(ConfigResource.Type.TOPIC, "no-such-topic", incremental_configs=[
        ConfigEntry("retention.ms", "1000", incremental_operation=AlterConfigOpType.SET)])
    with pytest.raises(KafkaException) as e:
        admin.incremental_alter_configs([unknown])[unknown].result(30)
    assert e.value.args[0].code() == Errors.UNKNOWN_TOPIC_OR_PARTITION
    # a broker resource that names another broker is refused by the broker itself (preprocessing)
    response = request_to(broker_port(cluster), ApiKeys.INCREMENTAL_ALTER_CONFIGS, 1, validate_only=False,
                          resources=[dict(resource_type=4, resource_name="77", configs=[
                              dict(name="log.cleaner.threads", config_operation=0, value="2")])])
    assert [(r.error_code, r.error_message) for r in response.responses] == [
        (Errors.INVALID_REQUEST, f"Unexpected broker id, expected {broker_id(cluster)}, but received 77")]


def broker_id(cluster: ClusterRunner) -> int:
    return next(p["id"] for p in cluster.run.read_manifest()["processes"] if p["role"] == "broker")


def test_alter_configs_through_kafka_python(cluster: ClusterRunner, admin: AdminClient) -> None:
    create_topic(admin, "legacy")
    client = KafkaAdminClient(bootstrap_servers=cluster.run.read_manifest()["bootstrap_servers"])
    try:
        # AlterConfigs (legacy)
        assert client.alter_configs([KConfigResource(KConfigResourceType.TOPIC, "legacy",
                                                     configs={"retention.ms": "7777"})], incremental=False) == {
            "topic": {"legacy": "OK"}}
        wait_until(lambda: topic_config(admin, "legacy", "retention.ms") == "7777", 30, "retention.ms")
        bad = client.alter_configs([KConfigResource(KConfigResourceType.TOPIC, "legacy",
                                                    configs={"cleanup.policy": "nonsense"})], incremental=False)
        assert str(bad["topic"]["legacy"]) == (
            "[Error 40] InvalidConfigurationError: Invalid value nonsense for configuration cleanup.policy: String "
            "must be one of: compact, delete")
        # IncrementalAlterConfigs, which kafka-python picks when the broker offers it
        assert client.alter_configs([KConfigResource(KConfigResourceType.TOPIC, "legacy",
                                                     configs={"segment.ms": "3600000"})]) == {
            "topic": {"legacy": "OK"}}
        wait_until(lambda: topic_config(admin, "legacy", "segment.ms") == "3600000", 30, "segment.ms")
        assert topic_config(admin, "legacy", "retention.ms") == "7777"
    finally:
        client.close()
    # AlterConfigs replaces the whole set (kafka-python adds the other keys back itself): retention.ms goes
    response = request_to(broker_port(cluster), ApiKeys.ALTER_CONFIGS, 2, validate_only=False, resources=[
        dict(resource_type=2, resource_name="legacy", configs=[dict(name="segment.ms", value="3600000")])])
    assert [(r.error_code, r.error_message) for r in response.responses] == [(Errors.NONE, None)]
    wait_until(lambda: topic_config(admin, "legacy", "retention.ms") == "604800000", 30, "retention.ms gone")
    # a resource given twice is refused by the broker, before anything is forwarded
    response = request_to(broker_port(cluster), ApiKeys.ALTER_CONFIGS, 2, validate_only=False, resources=[
        dict(resource_type=2, resource_name="legacy", configs=[]),
        dict(resource_type=2, resource_name="legacy", configs=[])])
    assert [(r.error_code, r.error_message) for r in response.responses] == [
        (Errors.INVALID_REQUEST, "Each resource must appear at most once.")] * 2


# -- client quotas: neither client library offers these calls, so raw requests ------------------------------------

def alter_quotas(cluster: ClusterRunner, entity: dict[str, str | None], ops: list[tuple[str, float, bool]],
                 validate_only: bool = False) -> Any:
    return request_to(broker_port(cluster), ApiKeys.ALTER_CLIENT_QUOTAS, 1, validate_only=validate_only, entries=[
        dict(entity=[dict(entity_type=t, entity_name=n) for t, n in entity.items()],
             ops=[dict(key=k, value=v, remove=r) for k, v, r in ops])])


def describe_quotas(cluster: ClusterRunner, components: list[dict[str, Any]], strict: bool = False) -> Any:
    return request_to(broker_port(cluster), ApiKeys.DESCRIBE_CLIENT_QUOTAS, 1, components=components, strict=strict)


def quotas_of(response: Any) -> dict[tuple[tuple[str, str | None], ...], dict[str, float]]:
    return {tuple((e.entity_type, e.entity_name) for e in entry.entity): {v.key: v.value for v in entry.values}
            for entry in response.entries}


def test_client_quotas_are_altered_on_the_controller_and_described_from_the_image(cluster: ClusterRunner) -> None:
    response = alter_quotas(cluster, {"user": "alice", "client-id": "app"}, [("producer_byte_rate", 1024.0, False),
                                                                             ("request_percentage", 12.5, False)])
    assert [(e.error_code, e.error_message) for e in response.entries] == [(Errors.NONE, None)]
    response = alter_quotas(cluster, {"user": None}, [("consumer_byte_rate", 2048.0, False)])
    assert [e.error_code for e in response.entries] == [Errors.NONE]
    user_alice = [dict(entity_type="user", match_type=0, match="alice")]
    wait_until(lambda: quotas_of(describe_quotas(cluster, user_alice)), 30, "alice's quotas in the image")
    assert quotas_of(describe_quotas(cluster, user_alice)) == {
        (("user", "alice"), ("client-id", "app")): {"producer_byte_rate": 1024.0, "request_percentage": 12.5}}
    assert quotas_of(describe_quotas(cluster, [dict(entity_type="user", match_type=1, match=None)], strict=True)) == {
        (("user", None),): {"consumer_byte_rate": 2048.0}}
    # removal, and validate_only writes nothing
    alter_quotas(cluster, {"user": "alice", "client-id": "app"}, [("request_percentage", 0.0, True)])
    alter_quotas(cluster, {"user": None}, [("consumer_byte_rate", 4096.0, False)], validate_only=True)
    wait_until(lambda: quotas_of(describe_quotas(cluster, user_alice)) == {
        (("user", "alice"), ("client-id", "app")): {"producer_byte_rate": 1024.0}}, 30, "request_percentage gone")
    assert quotas_of(describe_quotas(cluster, [dict(entity_type="user", match_type=1, match=None)], strict=True)) == {
        (("user", None),): {"consumer_byte_rate": 2048.0}}


def test_bad_client_quotas_get_3_9s_errors(cluster: ClusterRunner) -> None:
    bob = {"user": "bob"}
    cases = [(bob, [("no_such_quota", 1.0, False)], "Invalid configuration key no_such_quota"),
             (bob, [("producer_byte_rate", -5.0, False)], "Quota producer_byte_rate must be greater than 0"),
             (bob, [("producer_byte_rate", 1.5, False)], "producer_byte_rate cannot be a fractional value."),
             ({"ip": "1.2.3.4", "user": "bob"}, [("connection_creation_rate", 5.0, False)],
              "Invalid quota entity combination, IP entity shouldnot be combined with User or ClientId"),
             ({"group": "g"}, [("producer_byte_rate", 5.0, False)], "Unhandled client quota entity type: group")]
    for entity, ops, message in cases:
        response = alter_quotas(cluster, entity, ops)
        assert [(e.error_code, e.error_message) for e in response.entries] == [(Errors.INVALID_REQUEST, message)]
    response = describe_quotas(cluster, [dict(entity_type="user", match_type=0, match=None)])
    assert (response.error_code, response.error_message) == (
        Errors.INVALID_REQUEST, "Request specified MATCH_TYPE_EXACT, but set match string to null.")
    response = describe_quotas(cluster, [dict(entity_type="group", match_type=2, match=None)])
    assert (response.error_code, response.error_message) == (Errors.UNSUPPORTED_VERSION,
                                                             "Unsupported entity type group")


# -- SCRAM credentials ---------------------------------------------------------------------------------------------

def test_scram_credentials_through_confluent_kafka(cluster: ClusterRunner, admin: AdminClient) -> None:
    from confluent_kafka.admin import (
        ScramCredentialInfo,
        ScramMechanism,
        UserScramCredentialDeletion,
        UserScramCredentialUpsertion,
    )
    upserts = [UserScramCredentialUpsertion("carol", ScramCredentialInfo(ScramMechanism.SCRAM_SHA_256, 8192),
                                            b"carol-secret", b"salt-of-carol"),
               UserScramCredentialUpsertion("dave", ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, 4096),
                                            b"dave-secret")]
    for future in admin.alter_user_scram_credentials(upserts).values():
        future.result(30)

    def described() -> dict[str, list[tuple[Any, int]]]:
        result = {}
        for user, future in admin.describe_user_scram_credentials(["carol", "dave"]).items():
            try:
                result[user] = [(info.mechanism, info.iterations) for info in future.result(30).scram_credential_infos]
            except KafkaException as e:
                assert e.args[0].code() == Errors.RESOURCE_NOT_FOUND  # not in the broker's image yet
        return result
    wait_until(lambda: len(described()) == 2, 30, "both users' credentials in the image")
    assert described() == {"carol": [(ScramMechanism.SCRAM_SHA_256, 8192)],
                           "dave": [(ScramMechanism.SCRAM_SHA_512, 4096)]}
    # too few iterations: UNACCEPTABLE_CREDENTIAL; deleting what is not there: RESOURCE_NOT_FOUND
    bad = admin.alter_user_scram_credentials([
        UserScramCredentialUpsertion("erin", ScramCredentialInfo(ScramMechanism.SCRAM_SHA_256, 100), b"x"),
        UserScramCredentialDeletion("carol", ScramMechanism.SCRAM_SHA_512)])
    with pytest.raises(KafkaException) as e:
        bad["erin"].result(30)
    assert (e.value.args[0].code(), e.value.args[0].str()) == (Errors.UNACCEPTABLE_CREDENTIAL, "Too few iterations")
    with pytest.raises(KafkaException) as e:
        bad["carol"].result(30)
    assert e.value.args[0].code() == Errors.RESOURCE_NOT_FOUND
    admin.alter_user_scram_credentials([UserScramCredentialDeletion("carol", ScramMechanism.SCRAM_SHA_256)])[
        "carol"].result(30)
    response = request_to(broker_port(cluster), ApiKeys.DESCRIBE_USER_SCRAM_CREDENTIALS, 0,
                          users=[dict(name="carol"), dict(name="dave"), dict(name="dave")])
    wait_until(lambda: request_to(broker_port(cluster), ApiKeys.DESCRIBE_USER_SCRAM_CREDENTIALS, 0,
                                  users=[dict(name="carol")]).results[0].error_code == Errors.RESOURCE_NOT_FOUND,
               30, "carol's credential gone")
    response = request_to(broker_port(cluster), ApiKeys.DESCRIBE_USER_SCRAM_CREDENTIALS, 0,
                          users=[dict(name="carol"), dict(name="dave"), dict(name="dave")])
    assert sorted((r.user, r.error_code, r.error_message) for r in response.results) == [
        ("carol", Errors.RESOURCE_NOT_FOUND, "Attempt to describe a user credential that does not exist: carol"),
        ("dave", Errors.DUPLICATE_RESOURCE,
         "Cannot describe SCRAM credentials for the same user twice in a single request: dave")]


def test_scram_credentials_through_kafka_python(cluster: ClusterRunner) -> None:
    from kafka.admin import ScramMechanism as KScramMechanism
    from kafka.admin import UserScramCredentialUpsertion as KUpsertion
    client = KafkaAdminClient(bootstrap_servers=cluster.run.read_manifest()["bootstrap_servers"])
    try:
        assert client.alter_user_scram_credentials([
            KUpsertion("frank", KScramMechanism.SCRAM_SHA_512, "frank-secret", iterations=5000)]) == {"frank": None}
        wait_until(lambda: client.describe_user_scram_credentials(["frank"])["frank"]["error"] is None, 30,
                   "frank's credential in the image")
        assert client.describe_user_scram_credentials(["frank"])["frank"]["credential_infos"] == [
            {"mechanism": KScramMechanism.SCRAM_SHA_512, "iterations": 5000}]
        result = client.alter_user_scram_credentials([
            KUpsertion("frank", KScramMechanism.SCRAM_SHA_512, "x", iterations=20000)])
        assert "Too many iterations" in str(result["frank"])
    finally:
        client.close()


# -- the `kafka-edu configs` tool: Kafka 3.9's ConfigCommand through the brokers -----------------------------------

def configs_tool(cluster: ClusterRunner, *args: str) -> tuple[int, str, str]:
    import io

    from kafka_edu.v3_9.core.admin.config_command import main
    out, err = io.StringIO(), io.StringIO()
    status = main(["--bootstrap-server", cluster.run.read_manifest()["bootstrap_servers"], *args], out, err)
    return status, out.getvalue(), err.getvalue()


def test_configs_tool_topics_quotas_and_scram(cluster: ClusterRunner, admin: AdminClient) -> None:
    create_topic(admin, "tool")
    assert configs_tool(cluster, "--alter", "--entity-type", "topics", "--entity-name", "tool",
                        "--add-config", "retention.ms=5000,cleanup.policy=[compact,delete]")[:2] == (
        0, "Completed updating config for topic tool.\n")
    wait_until(lambda: topic_config(admin, "tool", "retention.ms") == "5000", 30, "retention.ms")
    status, out, _ = configs_tool(cluster, "--describe", "--entity-type", "topics", "--entity-name", "tool")
    assert status == 0 and out.splitlines() == [
        "Dynamic configs for topic tool are:",
        "  cleanup.policy=compact,delete sensitive=false synonyms={DYNAMIC_TOPIC_CONFIG:cleanup.policy="
        "compact,delete, DEFAULT_CONFIG:log.cleanup.policy=delete}",
        "  retention.ms=5000 sensitive=false synonyms={DYNAMIC_TOPIC_CONFIG:retention.ms=5000, "
        "STATIC_BROKER_CONFIG:log.retention.ms=null, DEFAULT_CONFIG:log.retention.hours=168}"] or out
    status, _, err = configs_tool(cluster, "--alter", "--entity-type", "topics", "--entity-name", "tool",
                                  "--delete-config", "segment.ms")
    assert status == 1 and "Invalid config(s): segment.ms" in err
    status, _, err = configs_tool(cluster, "--alter", "--entity-type", "topics", "--entity-name", "tool",
                                  "--add-config", "cleanup.policy=nonsense")
    assert status == 1 and "Invalid value nonsense for configuration cleanup.policy" in err
    # quotas: a user and client pair, and the default user
    assert configs_tool(cluster, "--alter", "--entity-type", "users", "--entity-name", "gina", "--entity-type",
                        "clients", "--entity-name", "app2", "--add-config", "producer_byte_rate=4096")[:2] == (
        0, "Completed updating config for user gina.\n")
    assert configs_tool(cluster, "--alter", "--entity-type", "users", "--entity-default", "--add-config",
                        "consumer_byte_rate=8192")[:2] == (0, "Completed updating default config for users in the "
                                                              "cluster.\n")
    wait_until(lambda: "Quota configs for the default user-principal are consumer_byte_rate=8192.0" in configs_tool(
        cluster, "--describe", "--entity-type", "users", "--entity-default")[1], 30, "the default user's quota")
    status, out, _ = configs_tool(cluster, "--describe", "--entity-type", "users", "--entity-name", "gina",
                                  "--entity-type", "clients", "--entity-name", "app2")
    assert out == "Quota configs for user-principal 'gina', client-id 'app2' are producer_byte_rate=4096.0\n"
    # SCRAM: the password is salted by the tool
    # 3.9's ScramControlManager takes one change per user and request: both mechanisms at once are refused
    status, _, err = configs_tool(cluster, "--alter", "--entity-type", "users", "--entity-name", "hank",
                                  "--add-config", "SCRAM-SHA-256=[iterations=8192,password=hank-secret],"
                                                  "SCRAM-SHA-512=[password=x]")
    assert status == 1 and "A user credential cannot be altered twice in the same request" in err
    assert configs_tool(cluster, "--alter", "--entity-type", "users", "--entity-name", "hank", "--add-config",
                        "SCRAM-SHA-256=[iterations=8192,password=hank-secret]")[:2] == (
        0, "Completed updating config for user hank.\n")
    assert configs_tool(cluster, "--alter", "--entity-type", "users", "--entity-name", "hank", "--add-config",
                        "SCRAM-SHA-512=[password=x]")[0] == 0
    prefix = "SCRAM credential configs for user-principal 'hank' are "

    def hanks() -> set[str]:
        out = configs_tool(cluster, "--describe", "--entity-type", "users", "--entity-name", "hank")[1]
        return set(out.removeprefix(prefix).strip().split(", ")) if out.startswith(prefix) else set()
    # the mechanisms in the image's order, as 3.9 lists them from a HashMap
    wait_until(lambda: hanks() == {"SCRAM-SHA-256=iterations=8192", "SCRAM-SHA-512=iterations=4096"}, 30,
               "hank's credentials")
    status, _, err = configs_tool(cluster, "--alter", "--entity-type", "users", "--entity-name", "hank",
                                  "--add-config", "SCRAM-SHA-256=[iterations=100,password=x]")
    assert status == 1 and "Iterations 100 is less than the minimum 4096 required for SCRAM-SHA-256" in err


def test_kafka_edu_configs_defaults_to_3_9s_tool_on_a_kraft_run(cluster: ClusterRunner, admin: AdminClient) -> None:
    import subprocess
    import sys
    create_topic(admin, "cli")
    run_dir = str(cluster.run.path)
    done = subprocess.run([sys.executable, "-m", "kafka_edu.cli", "configs", "--run", run_dir, "--alter",
                           "--entity-type", "topics", "--entity-name", "cli", "--add-config", "retention.ms=9000"],
                          capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stdout) == (0, "Completed updating config for topic cli.\n"), done.stderr
    wait_until(lambda: topic_config(admin, "cli", "retention.ms") == "9000", 30, "retention.ms")


# -- UpdateFeatures ------------------------------------------------------------------------------------------------

def test_update_features_through_kafka_python(cluster: ClusterRunner) -> None:
    from kafka.admin import UpdateFeatureType
    client = KafkaAdminClient(bootstrap_servers=cluster.run.read_manifest()["bootstrap_servers"])
    try:
        assert client.describe_features()["metadata.version"]["finalized"] == (21, 21)
        # a safe downgrade that loses no metadata (3.9-IV0 to 3.8-IV0), validated only
        assert client.update_features({"metadata.version": (UpdateFeatureType.SAFE_DOWNGRADE, 20)},
                                      validate_only=True) == {"metadata.version": "OK"}
        result = client.update_features({"metadata.version": (UpdateFeatureType.UPGRADE, 19)})
        assert "Invalid update version 19 for feature metadata.version. Can't downgrade the version of this " \
               "feature without setting the upgrade type to either safe or unsafe downgrade." in str(
                   result["metadata.version"])
        result = client.update_features({"metadata.version": (UpdateFeatureType.SAFE_DOWNGRADE, 14)})
        assert "Invalid metadata.version 14. Refusing to perform the requested downgrade because it might delete " \
               "metadata information." in str(result["metadata.version"])
        result = client.update_features({"metadata.version": 22})
        assert "only supports versions 1-21" in str(result["metadata.version"])
        result = client.update_features({"kraft.version": 1})
        assert f"Broker {broker_id(cluster)} does not support this feature." in str(result["kraft.version"])
        assert client.describe_features()["metadata.version"]["finalized"] == (21, 21)
    finally:
        client.close()


def test_broker_configs_are_checked_by_the_broker_then_stored_by_the_controller(cluster: ClusterRunner) -> None:
    me = str(broker_id(cluster))

    def alter(name: str, key: str, value: str) -> list[tuple[int, str | None]]:
        response = request_to(broker_port(cluster), ApiKeys.INCREMENTAL_ALTER_CONFIGS, 1, validate_only=False,
                              resources=[dict(resource_type=4, resource_name=name, configs=[
                                  dict(name=key, config_operation=0, value=value)])])
        return [(r.error_code, r.error_message) for r in response.responses]
    assert alter(me, "log.cleaner.threads", "2") == [(Errors.NONE, None)]
    assert alter("", "log.cleaner.threads", "2") == [(Errors.NONE, None)]  # the cluster-wide default
    assert alter(me, "log.dirs", "/elsewhere") == [
        (Errors.INVALID_REQUEST, "Cannot update these configs dynamically: Set(log.dirs)")]
    assert alter(me, "log.cleaner.threads", "many") == [
        (Errors.INVALID_REQUEST, "Invalid value many for configuration log.cleaner.threads: Not a number of type "
                                 "INT")]


def test_kafka_edu_features_describes_and_refuses_what_3_9_refuses(cluster: ClusterRunner) -> None:
    import io

    from kafka_edu.v3_9.tools.tools.feature_command import main
    bootstrap = cluster.run.read_manifest()["bootstrap_servers"]

    def features(*args: str) -> tuple[int, str, str]:
        out, err = io.StringIO(), io.StringIO()
        return main(["--bootstrap-server", bootstrap, *args], out, err), out.getvalue(), err.getvalue()
    status, out, _ = features("describe")
    assert status == 0 and out.startswith("Feature: metadata.version\tSupportedMinVersion: 3.0-IV1\t"), out
    assert "FinalizedVersionLevel: 3.9-IV0\t" in out
    assert features("downgrade", "--metadata", "3.8-IV0", "--dry-run")[:2] == (
        0, "metadata.version can be downgraded to 20.\n")
    status, out, err = features("downgrade", "--metadata", "3.6-IV2")
    assert (status, out, err) == (1, "Could not downgrade metadata.version to 14. Invalid metadata.version 14. "
                                     "Refusing to perform the requested downgrade because it might delete metadata "
                                     "information.\n", "1 out of 1 operation(s) failed.\n")
    assert features("upgrade", "--metadata", "3.9-IV0")[:2] == (0, "metadata.version was upgraded to 21.\n")
    status, _, err = features("upgrade", "--metadata", "9.9")
    assert status == 1 and err.startswith("Unsupported metadata.version 9.9. Supported metadata.version are 3.3-IV0")
