"""Port of core/src/main/scala/kafka/admin/ConfigCommand.scala (Kafka 3.9), its `--bootstrap-server` half:
`kafka-configs --bootstrap-server B (--describe [--all] | --alter --add-config k=v,k2=[a,b] --delete-config k3)
--entity-type topics|brokers|broker-loggers|users|clients|ips (--entity-name N | --entity-default)`.

Topic, broker and broker-logger configs go through DescribeConfigs and IncrementalAlterConfigs (a broker's through
AlterConfigs, as 3.9 does it: the whole set); client, user and ip quotas through DescribeClientQuotas and
AlterClientQuotas; a user's SCRAM credentials through DescribeUserScramCredentials and AlterUserScramCredentials, the
password salted here (the Admin client's job), so only the salted form crosses the wire. The broker forwards the
changes to the active controller.

Port notes: 3.9's tool goes through its Admin client; `Admin` below sends the same requests with the port's
BlockingChannel to the first bootstrap server that answers. Left out: `--add-config-file`, `--command-config`,
`--bootstrap-controller`, the entity shortcut flags (`--topic`, `--user-defaults`...), client-metrics resources (not
served by this port's broker). The ZooKeeper half (`--zookeeper`) is 1.0.2's tool (kafka_edu/v1_0_2/core/admin).
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import traceback
from typing import Any, TextIO

from kafka_edu.v1_0_2.clients.common.errors import InvalidConfigurationException
from kafka_edu.v1_0_2.clients.common.security.scram.scram_formatter import ScramFormatter
from kafka_edu.v1_0_2.clients.common.security.scram.scram_mechanism import ScramMechanism as InternalScramMechanism
from kafka_edu.v1_0_2.core.network.blocking_channel import BlockingChannel
from kafka_edu.v3_9.clients.clients.admin.scram_mechanism import ScramMechanism
from kafka_edu.v3_9.clients.common.internals import topic as Topic
from kafka_edu.v3_9.clients.common.protocol.api_keys import ApiKeys
from kafka_edu.v3_9.clients.common.protocol.builder import build
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from kafka_edu.v3_9.clients.common.quota.client_quota_entity import CLIENT_ID, IP, USER
from kafka_edu.v3_9.metadata.metadata.kafka_config_schema import ConfigSource
from kafka_edu.v3_9.server_common.server.config import quota_configs as QuotaConfigs

BROKER_DEFAULT_ENTITY_NAME = ""
BROKER_LOGGER_CONFIG_TYPE = "broker-loggers"
TOPIC, CLIENT, USER_TYPE, BROKER, IP_TYPE = "topics", "clients", "users", "brokers", "ips"  # ConfigType
BROKER_SUPPORTED_CONFIG_TYPES = [TOPIC, CLIENT, USER_TYPE, BROKER, IP_TYPE, BROKER_LOGGER_CONFIG_TYPE]
DEFAULT_SCRAM_ITERATIONS = 4096
TIMEOUT_MS = 30000
# ConfigResource.Type ids
_RESOURCE_TYPES = {TOPIC: 2, BROKER: 4, BROKER_LOGGER_CONFIG_TYPE: 8}
SET, DELETE = 0, 1  # AlterConfigOp.OpType
MATCH_TYPE_EXACT, MATCH_TYPE_DEFAULT, MATCH_TYPE_SPECIFIED = 0, 1, 2  # ClientQuotaFilterComponent


class AdminError(Exception):
    """What a failed Admin future raises: the Kafka error and its message (ExecutionException's cause)."""

    def __init__(self, error: Errors, message: str | None) -> None:
        super().__init__(message or error.name)
        self.error = error


def main(args: list[str], out: TextIO | None = None, err: TextIO | None = None) -> int:
    """ConfigCommand.main without the exit: 0, or 1 with the error and its trace on stderr."""
    out = out or sys.stdout
    err = err or sys.stderr
    try:
        opts = ConfigCommandOptions(args)
        opts.check_args()
        process_command(opts, out)
        return 0
    except SystemExit as e:  # --help, or argparse's own usage error
        return int(e.code or 0)
    except (ValueError, InvalidConfigurationException) as e:  # IllegalArgumentException and the like
        print(f"Error while executing config command with args '{' '.join(args)}'", file=err)
        print(f"{type(e).__name__}: {e}", file=err)
        return 1
    except Exception as e:
        print(f"Error while executing config command with args '{' '.join(args)}'", file=err)
        print("".join(traceback.format_exception(e)), file=err)
        return 1


def parse_configs_to_be_added(opts: ConfigCommandOptions, out: TextIO) -> dict[str, str]:
    """`k1=v1,k2=[v2,v3]`: split on the commas outside brackets, then each pair on its '=' (an empty value is kept);
    the brackets go."""
    props: dict[str, str] = {}
    if opts.add_config is not None:
        pattern = r"(?=[^\]]*(?:\[|$))"
        configs_to_be_added = [re.split(r"\s*=\s*" + pattern, c) for c in re.split("," + pattern, opts.add_config)]
        if not all(len(config) == 2 for config in configs_to_be_added):
            raise ValueError('Invalid entity config: all configs to be added must be in the format "key=val".')
        for key, value in configs_to_be_added:
            props[key.strip()] = re.sub(r"\[?\]?", "", value).strip()
    if "message.format.version" in props:
        print(f"WARNING: The configuration message.format.version={props['message.format.version']} is specified. "
              "This configuration will be ignored if the version is newer than the inter.broker.protocol.version "
              "specified in the broker or if the inter.broker.protocol.version is 3.0 or newer. This configuration "
              "is deprecated and it will be removed in Apache Kafka 4.0.", file=out)
    validate_props_key(props)
    return props


def parse_configs_to_be_deleted(opts: ConfigCommandOptions) -> list[str]:
    return [key.strip() for value in opts.delete_config for key in value.split(",")]


def validate_props_key(props: dict[str, str]) -> None:
    for props_key in props:
        if not re.fullmatch(r"[a-zA-Z0-9._-]*", props_key):
            raise ValueError(f"Invalid character found for config key: {props_key}")


def process_command(opts: ConfigCommandOptions, out: TextIO) -> None:
    admin_client = Admin(opts.bootstrap_server)
    if opts.alter and len(opts.entity_types()) != len(opts.entity_names()):
        raise ValueError("An entity name must be specified for every entity type")
    if opts.alter:
        alter_config(admin_client, opts, out)
    elif opts.describe:
        describe_config(admin_client, opts, out)


def alter_config(admin_client: Admin, opts: ConfigCommandOptions, out: TextIO) -> None:
    entity_types = opts.entity_types()
    entity_names = opts.entity_names()
    entity_type_head, entity_name_head = entity_types[0], entity_names[0]
    configs_to_be_added = parse_configs_to_be_added(opts, out)
    configs_to_be_deleted = parse_configs_to_be_deleted(opts)

    if entity_type_head in (TOPIC, BROKER_LOGGER_CONFIG_TYPE):
        old_config = {e["name"]: e for e in get_resource_config(
            admin_client, entity_type_head, entity_name_head, include_synonyms=entity_type_head != TOPIC,
            describe_all=False)}
        if entity_type_head == TOPIC:
            # a config to delete that is not set fails the command
            invalid_configs = [k for k in configs_to_be_deleted if k not in old_config]
            if invalid_configs:
                raise InvalidConfigurationException(f"Invalid config(s): {','.join(invalid_configs)}")
        else:
            invalid_loggers = ([k for k in configs_to_be_deleted if k not in old_config]
                               + [k for k in configs_to_be_added if k not in old_config])
            if invalid_loggers:
                raise InvalidConfigurationException(f"Invalid broker logger(s): {','.join(invalid_loggers)}")
        alter_entries = ([dict(name=k, config_operation=SET, value=v) for k, v in configs_to_be_added.items()]
                         + [dict(name=k, config_operation=DELETE, value="") for k in configs_to_be_deleted])
        admin_client.incremental_alter_configs(_RESOURCE_TYPES[entity_type_head], entity_name_head, alter_entries)
    elif entity_type_head == BROKER:
        old_config = {e["name"]: e for e in get_resource_config(
            admin_client, entity_type_head, entity_name_head, include_synonyms=False, describe_all=False)}
        invalid_configs = [k for k in configs_to_be_deleted if k not in old_config]
        if invalid_configs:
            raise InvalidConfigurationException(f"Invalid config(s): {','.join(invalid_configs)}")
        new_entries = {k: e["value"] for k, e in old_config.items()}
        new_entries.update(configs_to_be_added)
        for k in configs_to_be_deleted:
            new_entries.pop(k, None)
        sensitive_entries = [k for k, v in new_entries.items() if v is None]
        if sensitive_entries:
            raise InvalidConfigurationException(f"All sensitive broker config entries must be specified for --alter, "
                                                f"missing entries: {set(sensitive_entries)}")
        admin_client.alter_configs(_RESOURCE_TYPES[BROKER], entity_name_head, new_entries)
    elif entity_type_head in (USER_TYPE, CLIENT):
        is_quota = QuotaConfigs.is_client_or_user_quota_config
        is_scram = InternalScramMechanism.is_scram
        has_quota_configs_to_add = any(is_quota(k) for k in configs_to_be_added)
        scram_configs_to_add = {k: v for k, v in configs_to_be_added.items() if is_scram(k)}
        unknown_configs_to_add = [k for k in configs_to_be_added if not (is_scram(k) or is_quota(k))]
        has_quota_configs_to_delete = any(is_quota(k) for k in configs_to_be_deleted)
        scram_configs_to_delete = [k for k in configs_to_be_deleted if is_scram(k)]
        unknown_configs_to_delete = [k for k in configs_to_be_deleted if not (is_scram(k) or is_quota(k))]
        if entity_type_head == CLIENT or len(entity_types) == 2:
            if unknown_configs_to_add or scram_configs_to_add:
                raise ValueError(f"Only quota configs can be added for '{CLIENT}' using --bootstrap-server. "
                                 f"Unexpected config names: {unknown_configs_to_add + list(scram_configs_to_add)}")
            if unknown_configs_to_delete or scram_configs_to_delete:
                raise ValueError(f"Only quota configs can be deleted for '{CLIENT}' using --bootstrap-server. "
                                 f"Unexpected config names: {unknown_configs_to_delete + scram_configs_to_delete}")
        else:
            if unknown_configs_to_add:
                raise ValueError(f"Only quota and SCRAM credential configs can be added for '{USER_TYPE}' using "
                                 f"--bootstrap-server. Unexpected config names: {unknown_configs_to_add}")
            if unknown_configs_to_delete:
                raise ValueError(f"Only quota and SCRAM credential configs can be deleted for '{USER_TYPE}' using "
                                 f"--bootstrap-server. Unexpected config names: {unknown_configs_to_delete}")
            if scram_configs_to_add or scram_configs_to_delete:
                if any(not name for name in entity_names):
                    raise ValueError("The use of --entity-default or --user-defaults is not allowed with User SCRAM "
                                     "Credentials using --bootstrap-server.")
                if has_quota_configs_to_add or has_quota_configs_to_delete:
                    raise ValueError(f"Cannot alter both quota and SCRAM credential configs simultaneously for "
                                     f"'{USER_TYPE}' using --bootstrap-server.")
        if has_quota_configs_to_add or has_quota_configs_to_delete:
            alter_quota_configs(admin_client, entity_types, entity_names, configs_to_be_added, configs_to_be_deleted)
        else:
            alter_user_scram_credential_configs(admin_client, entity_names[0], scram_configs_to_add,
                                                scram_configs_to_delete)
    elif entity_type_head == IP_TYPE:
        unknown_configs = [k for k in list(configs_to_be_added) + configs_to_be_deleted
                           if k != QuotaConfigs.IP_CONNECTION_RATE_OVERRIDE_CONFIG]
        if unknown_configs:
            raise ValueError(f"Only connection quota configs can be added for '{IP_TYPE}' using --bootstrap-server. "
                             f"Unexpected config names: {','.join(unknown_configs)}")
        alter_quota_configs(admin_client, entity_types, entity_names, configs_to_be_added, configs_to_be_deleted)
    else:
        raise ValueError(f"Unsupported entity type: {entity_type_head}")

    if entity_name_head:
        print(f"Completed updating config for {entity_type_head[:-1]} {entity_name_head}.", file=out)
    else:
        print(f"Completed updating default config for {entity_type_head} in the cluster.", file=out)


def alter_user_scram_credential_configs(admin_client: Admin, user: str, scram_configs_to_add: dict[str, str],
                                        scram_configs_to_delete: list[str]) -> None:
    deletions = [dict(name=user, mechanism=ScramMechanism.from_mechanism_name(name).type())
                 for name in scram_configs_to_delete]

    def iterations_and_password(mechanism: InternalScramMechanism, credential_str: str) -> tuple[int, str]:
        match = re.fullmatch(r"(?:iterations=(-?[0-9]*),)?password=(.*)", credential_str)
        if match is None:
            raise ValueError(f"Invalid credential property {mechanism.name}={credential_str}")
        iterations_text, password = match.groups()
        iterations = int(iterations_text) if iterations_text and iterations_text != "-1" \
            else DEFAULT_SCRAM_ITERATIONS
        if iterations < mechanism.min_iterations:
            raise ValueError(f"Iterations {iterations} is less than the minimum {mechanism.min_iterations} required "
                             f"for {mechanism.mechanism_name}")
        return iterations, password

    upsertions = []
    for mechanism_name, value in scram_configs_to_add.items():
        internal = InternalScramMechanism.for_mechanism_name(mechanism_name)
        iterations, password = iterations_and_password(internal, value)  # type: ignore[arg-type]
        # the Admin client's part: a random salt, and only the salted password leaves this process
        salt = os.urandom(32)
        salted = ScramFormatter(internal).salted_password(password, salt, iterations)  # type: ignore[arg-type]
        upsertions.append(dict(name=user, mechanism=ScramMechanism.from_mechanism_name(mechanism_name).type(),
                               iterations=iterations, salt=salt, salted_password=salted))
    admin_client.alter_user_scram_credentials(deletions, upsertions)


def alter_quota_configs(admin_client: Admin, entity_types: list[str], entity_names: list[str],
                        configs_to_be_added: dict[str, str], configs_to_be_deleted: list[str]) -> None:
    old_config = get_client_quotas_config(admin_client, entity_types, entity_names)
    invalid_configs = [k for k in configs_to_be_deleted if k not in old_config]
    if invalid_configs:
        raise InvalidConfigurationException(f"Invalid config(s): {','.join(invalid_configs)}")
    alter_entity_types = [_quota_entity_type(t) for t in entity_types]
    alter_entity_names = [name or None for name in entity_names]
    entity = dict(zip(alter_entity_types, alter_entity_names, strict=True))
    ops = []
    for key, value in configs_to_be_added.items():
        try:
            double_value = float(value)
        except ValueError:
            raise ValueError(f"Cannot parse quota configuration value for {key}: {value}") from None
        ops.append(dict(key=key, value=double_value, remove=False))
    ops += [dict(key=key, value=0.0, remove=True) for key in configs_to_be_deleted]
    admin_client.alter_client_quotas(entity, ops)


def _quota_entity_type(entity_type: str) -> str:
    if entity_type == USER_TYPE:
        return USER
    if entity_type == CLIENT:
        return CLIENT_ID
    if entity_type == IP_TYPE:
        return IP
    raise ValueError(f"Unexpected entity type: {entity_type}")


def describe_config(admin_client: Admin, opts: ConfigCommandOptions, out: TextIO) -> None:
    entity_types = opts.entity_types()
    entity_names = opts.entity_names()
    if entity_types[0] in (TOPIC, BROKER, BROKER_LOGGER_CONFIG_TYPE):
        describe_resource_config(admin_client, entity_types[0], entity_names[0] if entity_names else None,
                                 opts.all, out)
    elif entity_types[0] in (USER_TYPE, CLIENT):
        describe_client_quota_and_user_scram_credential_configs(admin_client, entity_types, entity_names, out)
    elif entity_types[0] == IP_TYPE:
        describe_quota_configs(admin_client, entity_types, entity_names, out)
    else:
        raise ValueError(f"Invalid entity type: {entity_types[0]}")


def describe_resource_config(admin_client: Admin, entity_type: str, entity_name: str | None, describe_all: bool,
                             out: TextIO) -> None:
    if entity_name is not None:
        entities = [entity_name]
    elif entity_type == TOPIC:
        entities = admin_client.list_topics()
    else:  # brokers and broker-loggers: each broker, then the cluster default
        entities = [str(node_id) for node_id in admin_client.describe_cluster_node_ids()] + [BROKER_DEFAULT_ENTITY_NAME]
    for entity in entities:
        if entity == BROKER_DEFAULT_ENTITY_NAME:
            print(f"Default configs for {entity_type} in the cluster are:", file=out)
        else:
            config_source_str = "All" if describe_all else "Dynamic"
            print(f"{config_source_str} configs for {entity_type[:-1]} {entity} are:", file=out)
        for entry in get_resource_config(admin_client, entity_type, entity, True, describe_all):
            synonyms = ", ".join(f"{s['source'].name}:{s['name']}={_java(s['value'])}" for s in entry["synonyms"])
            print(f"  {entry['name']}={_java(entry['value'])} sensitive={str(entry['is_sensitive']).lower()} "
                  f"synonyms={{{synonyms}}}", file=out)


def _java(value: Any) -> str:
    return "null" if value is None else str(value)


def get_resource_config(admin_client: Admin, entity_type: str, entity_name: str, include_synonyms: bool,
                        describe_all: bool) -> list[dict[str, Any]]:
    def validate_broker_id() -> None:
        try:
            int(entity_name)
        except ValueError:
            raise ValueError(f"The entity name for {entity_type} must be a valid integer broker id, found: "
                             f"{entity_name}") from None

    if entity_type == TOPIC:
        if entity_name:
            Topic.validate(entity_name)
        dynamic_config_source: ConfigSource | None = ConfigSource.DYNAMIC_TOPIC_CONFIG
    elif entity_type == BROKER:
        if entity_name == BROKER_DEFAULT_ENTITY_NAME:
            dynamic_config_source = ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG
        else:
            validate_broker_id()
            dynamic_config_source = ConfigSource.DYNAMIC_BROKER_CONFIG
    elif entity_type == BROKER_LOGGER_CONFIG_TYPE:
        if entity_name:
            validate_broker_id()
        dynamic_config_source = None
    else:
        raise ValueError(f"Invalid entity type: {entity_type}")
    config_source_filter = None if describe_all else dynamic_config_source
    entries = admin_client.describe_configs(_RESOURCE_TYPES[entity_type], entity_name, include_synonyms)
    return sorted((e for e in entries if config_source_filter is None or e["source"] == config_source_filter),
                  key=lambda e: e["name"])


def describe_quota_configs(admin_client: Admin, entity_types: list[str], entity_names: list[str],
                           out: TextIO) -> None:
    for entity, entries in get_all_client_quotas_configs(admin_client, entity_types, entity_names):
        entity_str = ", ".join(s for s in (_entity_substr(entity, USER), _entity_substr(entity, CLIENT_ID),
                                           _entity_substr(entity, IP)) if s)
        entries_str = ", ".join(f"{k}={v}" for k, v in entries.items())
        print(f"Quota configs for {entity_str} are {entries_str}", file=out)


def _entity_substr(entity: dict[str, str | None], entity_type: str) -> str | None:
    if entity_type not in entity:
        return None
    type_str = {USER: "user-principal", CLIENT_ID: "client-id", IP: "ip"}[entity_type]
    name = entity[entity_type]
    return f"{type_str} '{name}'" if name is not None else f"the default {type_str}"


def describe_client_quota_and_user_scram_credential_configs(admin_client: Admin, entity_types: list[str],
                                                            entity_names: list[str], out: TextIO) -> None:
    describe_quota_configs(admin_client, entity_types, entity_names, out)
    # SCRAM credentials only for users, and not for the default user
    if CLIENT not in entity_types and "" not in entity_names:
        for result in admin_client.describe_user_scram_credentials(entity_names):
            if result.error_code == Errors.NONE:
                description_text = ", ".join(
                    f"{ScramMechanism.from_type(info.mechanism).mechanism_name()}=iterations={info.iterations}"
                    for info in result.credential_infos)
                print(f"SCRAM credential configs for user-principal '{result.user}' are {description_text}", file=out)
            else:
                exception = _exception_name(Errors(result.error_code))
                print(f"Error retrieving SCRAM credential configs for user-principal '{result.user}': "
                      f"{exception}: {result.error_message}", file=out)


def _exception_name(error: Errors) -> str:
    return getattr(error, "exception_name", None) or error.name


def get_client_quotas_config(admin_client: Admin, entity_types: list[str], entity_names: list[str]
                             ) -> dict[str, float]:
    if len(entity_types) != len(entity_names):
        raise ValueError("Exactly one entity name must be specified for every entity type")
    found = get_all_client_quotas_configs(admin_client, entity_types, entity_names)
    return found[0][1] if found else {}


def get_all_client_quotas_configs(admin_client: Admin, entity_types: list[str], entity_names: list[str]
                                  ) -> list[tuple[dict[str, str | None], dict[str, float]]]:
    if len(entity_names) > len(entity_types):
        raise ValueError("More entity names specified than entity types")
    components = []
    for i, entity_type in enumerate(entity_types):
        quota_type = _quota_entity_type(entity_type)
        if i >= len(entity_names):
            components.append(dict(entity_type=quota_type, match_type=MATCH_TYPE_SPECIFIED, match=None))
        elif entity_names[i] == "":
            components.append(dict(entity_type=quota_type, match_type=MATCH_TYPE_DEFAULT, match=None))
        else:
            components.append(dict(entity_type=quota_type, match_type=MATCH_TYPE_EXACT, match=entity_names[i]))
    return admin_client.describe_client_quotas(components, strict=True)  # ClientQuotaFilter.containsOnly


# -- Admin: the requests 3.9's Admin client sends for the calls above --------------------------------------------

class Admin:
    def __init__(self, bootstrap_servers: str) -> None:
        self.addresses = [(host, int(port)) for host, _, port in
                          (a.strip().rpartition(":") for a in bootstrap_servers.split(",") if a.strip())]
        if not self.addresses:
            raise ValueError(f"Invalid --bootstrap-server {bootstrap_servers!r}")

    def _send(self, api: ApiKeys, version: int, **body: Any) -> Any:
        errors = []
        for host, port in self.addresses:
            channel = BlockingChannel(host, port, TIMEOUT_MS / 1000, "kafka-configs")
            try:
                return channel.send_and_receive(api, version, build(api.request_schema(version), **body))
            except OSError as e:
                errors.append(f"{host}:{port}: {e}")
            finally:
                channel.disconnect()
        raise AdminError(Errors.NETWORK_EXCEPTION, "No broker answered: " + "; ".join(errors))

    @staticmethod
    def _check(error_code: int, message: str | None) -> None:
        if error_code != Errors.NONE:
            raise AdminError(Errors(error_code), message)

    def list_topics(self) -> list[str]:
        response = self._send(ApiKeys.METADATA, 12, topics=None, allow_auto_topic_creation=False,
                              include_topic_authorized_operations=False)
        return sorted(t.name for t in response.topics)

    def describe_cluster_node_ids(self) -> list[int]:
        response = self._send(ApiKeys.DESCRIBE_CLUSTER, 0, include_cluster_authorized_operations=False)
        return sorted(b.broker_id for b in response.brokers)

    def describe_configs(self, resource_type: int, name: str, include_synonyms: bool) -> list[dict[str, Any]]:
        response = self._send(ApiKeys.DESCRIBE_CONFIGS, 4, include_synonyms=include_synonyms,
                              include_documentation=False, resources=[
                                  dict(resource_type=resource_type, resource_name=name, configuration_keys=None)])
        (result,) = response.results
        self._check(result.error_code, result.error_message)
        return [dict(name=c.name, value=c.value, source=ConfigSource(c.config_source), is_sensitive=c.is_sensitive,
                     synonyms=[dict(name=s.name, value=s.value, source=ConfigSource(s.source)) for s in c.synonyms])
                for c in result.configs]

    def incremental_alter_configs(self, resource_type: int, name: str, configs: list[dict[str, Any]]) -> None:
        response = self._send(ApiKeys.INCREMENTAL_ALTER_CONFIGS, 1, validate_only=False, resources=[
            dict(resource_type=resource_type, resource_name=name, configs=configs)])
        for r in response.responses:
            self._check(r.error_code, r.error_message)

    def alter_configs(self, resource_type: int, name: str, configs: dict[str, str]) -> None:
        response = self._send(ApiKeys.ALTER_CONFIGS, 2, validate_only=False, resources=[
            dict(resource_type=resource_type, resource_name=name,
                 configs=[dict(name=k, value=v) for k, v in configs.items()])])
        for r in response.responses:
            self._check(r.error_code, r.error_message)

    def describe_client_quotas(self, components: list[dict[str, Any]], strict: bool
                               ) -> list[tuple[dict[str, str | None], dict[str, float]]]:
        response = self._send(ApiKeys.DESCRIBE_CLIENT_QUOTAS, 1, components=components, strict=strict)
        self._check(response.error_code, response.error_message)
        return [({e.entity_type: e.entity_name for e in entry.entity}, {v.key: v.value for v in entry.values})
                for entry in response.entries or ()]

    def alter_client_quotas(self, entity: dict[str, str | None], ops: list[dict[str, Any]]) -> None:
        response = self._send(ApiKeys.ALTER_CLIENT_QUOTAS, 1, validate_only=False, entries=[
            dict(entity=[dict(entity_type=t, entity_name=n) for t, n in entity.items()], ops=ops)])
        for entry in response.entries:
            self._check(entry.error_code, entry.error_message)

    def describe_user_scram_credentials(self, users: list[str]) -> list[Any]:
        response = self._send(ApiKeys.DESCRIBE_USER_SCRAM_CREDENTIALS, 0,
                              users=[dict(name=u) for u in users] if users else None)
        self._check(response.error_code, response.error_message)
        return list(response.results)

    def alter_user_scram_credentials(self, deletions: list[dict[str, Any]], upsertions: list[dict[str, Any]]
                                     ) -> None:
        response = self._send(ApiKeys.ALTER_USER_SCRAM_CREDENTIALS, 0, deletions=deletions, upsertions=upsertions)
        for r in response.results:
            self._check(r.error_code, r.error_message)


# -- ConfigCommandOptions -------------------------------------------------------------------------------------------

class _EntityName(argparse.Action):
    """--entity-name and --entity-default, in the order given (joptsimple's specs order)."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
                 option_string: str | None = None) -> None:
        names = list(getattr(namespace, "ordered_entity_names", None) or [])
        names.append("" if option_string == "--entity-default" else values)
        namespace.ordered_entity_names = names


class ConfigCommandOptions:
    def __init__(self, args: list[str]) -> None:
        parser = argparse.ArgumentParser(
            prog="kafka-configs", description="Add/Remove entity config for a topic, client, user, broker, "
            "broker-logger or ip through a broker (--bootstrap-server); with --zookeeper, 1.0.2's tool writes "
            "to ZooKeeper instead.")
        parser.add_argument("--bootstrap-server", required=True, help="the brokers to ask, host:port[,host:port...]")
        parser.add_argument("--describe", action="store_true", help="print the entity's configs")
        parser.add_argument("--alter", action="store_true",
                            help="change the entity's configs (--add-config, --delete-config)")
        parser.add_argument("--all", action="store_true", help="with --describe: every config of a topic, broker or "
                                                               "broker logger, the static ones included")
        parser.add_argument("--entity-type", action="append", default=[], choices=BROKER_SUPPORTED_CONFIG_TYPES)
        parser.add_argument("--entity-name", action=_EntityName)
        parser.add_argument("--entity-default", action=_EntityName, nargs=0)
        parser.add_argument("--add-config", metavar="k1=v1,k2=[v1,v2,v2],k3=v3")
        parser.add_argument("--delete-config", action="append", default=[], metavar="k1,k2")
        ns = parser.parse_args(args)
        self.bootstrap_server: str = ns.bootstrap_server
        self.describe: bool = ns.describe
        self.alter: bool = ns.alter
        self.all: bool = ns.all
        self.add_config: str | None = ns.add_config
        self.delete_config: list[str] = ns.delete_config
        self._entity_types: list[str] = ns.entity_type
        self._entity_names: list[str] = getattr(ns, "ordered_entity_names", None) or []

    def entity_types(self) -> list[str]:
        return list(self._entity_types)

    def entity_names(self) -> list[str]:
        return list(self._entity_names)

    def check_args(self) -> None:
        if int(self.alter) + int(self.describe) != 1:
            raise ValueError("Command must include exactly one action: --describe, --alter")
        if self.describe and (self.add_config is not None or self.delete_config):
            raise ValueError("Option --describe can't be used with --add-config or --delete-config")
        entity_type_vals = self.entity_types()
        if len(entity_type_vals) != len(set(entity_type_vals)):
            raise ValueError(f"Duplicate entity type(s) specified: {','.join(entity_type_vals)}")
        if not entity_type_vals:
            raise ValueError("At least one entity type must be specified")
        if len(entity_type_vals) > 1 and set(entity_type_vals) != {USER_TYPE, CLIENT}:
            raise ValueError(f"Only '{USER_TYPE}' and '{CLIENT}' entity types may be specified together")
        has_entity_name = any(self._entity_names)
        has_entity_default = any(not name for name in self._entity_names)
        if self.all and not self.describe:
            raise ValueError("--all can only be used with --describe")
        if has_entity_name and (BROKER in entity_type_vals or BROKER_LOGGER_CONFIG_TYPE in entity_type_vals):
            for broker_id in self._entity_names:
                if broker_id:
                    try:
                        int(broker_id)
                    except ValueError:
                        raise ValueError(f"The entity name for {entity_type_vals[0]} must be a valid integer broker "
                                         f"id, but it is: {broker_id}") from None
        if self.describe and BROKER_LOGGER_CONFIG_TYPE in entity_type_vals and not has_entity_name:
            raise ValueError(f"an entity name must be specified with --describe of {','.join(entity_type_vals)}")
        if self.alter:
            if {USER_TYPE, CLIENT, BROKER, IP_TYPE} & set(entity_type_vals):
                if not has_entity_name and not has_entity_default:
                    raise ValueError("an entity-name or default entity must be specified with --alter of users, "
                                     "clients, brokers or ips")
            elif not has_entity_name:
                raise ValueError(f"an entity name must be specified with --alter of {','.join(entity_type_vals)}")
            if self.add_config is None and not self.delete_config:
                raise ValueError("At least one of --add-config, --add-config-file, or --delete-config must be "
                                 "specified with --alter")
