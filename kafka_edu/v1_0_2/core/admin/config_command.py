"""Port of core/src/main/scala/kafka/admin/ConfigCommand.scala (Kafka 1.0.2): `kafka-configs.sh --zookeeper Z
--entity-type topics|clients|users|brokers (--entity-name N | --entity-default) --describe | --alter --add-config
k1=v1,k2=[v2,v3] --delete-config k3`.

Like 1.0.2's tool it writes ZooKeeper, not a broker API: the entity's whole config goes to `/config/<type>/<name>`
and a sequential `/config/changes/config_change_` znode tells every broker's DynamicConfigManager to apply it. A
topic's config is checked by LogConfig.validate first; a user's SCRAM-SHA-256/512 password is stored as a salted
SCRAM credential (ScramFormatter), never as given.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import quote, unquote

from kafka_edu.v1_0_2.clients.common.config.config_def import ConfigDef, Range, Type
from kafka_edu.v1_0_2.clients.common.errors import IllegalArgumentException, KafkaException
from kafka_edu.v1_0_2.core.server.admin_manager import change_entity_config, change_topic_config, fetch_entity_config
from kafka_edu.v1_0_2.core.utils.zk_utils import ZkUtils, get_entity_config_root_path

# The tool's own ZooKeeper timeouts (session, connection), as in 1.0.2.
ZK_SESSION_TIMEOUT_MS = 30000
ZK_CONNECTION_TIMEOUT_MS = 30000
DEFAULT_SCRAM_ITERATIONS = 4096
TOPIC, CLIENT, USER, BROKER = "topics", "clients", "users", "brokers"
ALL_CONFIG_TYPES = (TOPIC, CLIENT, USER, BROKER)
DEFAULT_ENTITY_NAME = "<default>"  # ConfigEntityName.Default: the quotas every client or user gets

# kafka.server.DynamicConfig (1.0.2): what a client, a user and a broker may be given at run time.
_CLIENT_CONFIG_DEF = (ConfigDef()
                      .define("producer_byte_rate", Type.LONG, 2**63 - 1)
                      .define("consumer_byte_rate", Type.LONG, 2**63 - 1)
                      .define("request_percentage", Type.DOUBLE, float(2**31 - 1)))
_USER_CONFIG_DEF = (ConfigDef()
                    .define("producer_byte_rate", Type.LONG, 2**63 - 1)
                    .define("consumer_byte_rate", Type.LONG, 2**63 - 1)
                    .define("request_percentage", Type.DOUBLE, float(2**31 - 1))
                    .define("SCRAM-SHA-256", Type.PASSWORD, None)
                    .define("SCRAM-SHA-512", Type.PASSWORD, None))
_BROKER_CONFIG_DEF = (ConfigDef()
                      .define("leader.replication.throttled.rate", Type.LONG, 2**63 - 1, Range.at_least(0))
                      .define("follower.replication.throttled.rate", Type.LONG, 2**63 - 1, Range.at_least(0)))


class InvalidConfigException(KafkaException):
    """kafka.common.InvalidConfigException: a config the command was asked to delete is not set."""


@dataclass(frozen=True)
class Entity:
    """ConfigCommand.Entity: a config entity type and its sanitized name (None: every entity of the type)."""

    entity_type: str
    sanitized_name: str | None

    @property
    def full_sanitized_name(self) -> str:
        return self.sanitized_name or ""

    def __str__(self) -> str:
        type_name = {USER: "user-principal", CLIENT: "client-id", TOPIC: "topic"}.get(self.entity_type,
                                                                                        self.entity_type)
        if self.sanitized_name is None:
            return self.entity_type
        if self.sanitized_name == DEFAULT_ENTITY_NAME:
            return f"default {type_name}"
        name = desanitize(self.sanitized_name) if self.entity_type in (USER, CLIENT) else self.sanitized_name
        return f"{type_name} '{name}'"


def sanitize(name: str) -> str:
    """Sanitizer.sanitize: a user or client id made safe as a znode name (URL-encoded, '*' too)."""
    return quote(name, safe="").replace("~", "%7E")


def desanitize(name: str) -> str:
    return unquote(name)


def check_args(action: str | None, entity_type: str | None, entity_name: str | None, entity_default: bool,
               add_config: str | None, delete_config: list[str]) -> None:
    """ConfigCommandOptions.checkArgs: one action, a known entity type, a name to alter, something to change."""
    if action not in ("alter", "describe"):
        raise IllegalArgumentException("Command must include exactly one action: --describe, --alter")
    if action == "describe" and (add_config is not None or delete_config):
        raise IllegalArgumentException("Option \"[describe]\" can't be used with option \"[add-config, "
                                       "delete-config]\"")
    if entity_type is None:
        raise IllegalArgumentException("At least one --entity-type must be specified")
    if entity_type not in ALL_CONFIG_TYPES:
        raise IllegalArgumentException(f"Invalid entity-type {entity_type}, --entity-type must be one of "
                                       f"{', '.join(ALL_CONFIG_TYPES)}")
    if action == "alter":
        if entity_type in (USER, CLIENT):
            if entity_name is None and not entity_default:
                raise IllegalArgumentException("--entity-name or --entity-default must be specified with --alter of "
                                               "users/clients")
        elif entity_name is None:
            raise IllegalArgumentException(f"--entity-name must be specified with --alter of {entity_type}")
        if add_config is None and not delete_config:
            raise IllegalArgumentException("At least one of --add-config or --delete-config must be specified with "
                                           "--alter")


def parse_entity(entity_type: str, entity_name: str | None, entity_default: bool) -> Entity:
    if entity_default:
        if entity_type not in (USER, CLIENT):
            raise IllegalArgumentException("--entity-default is only valid with --entity-type users or clients")
        return Entity(entity_type, DEFAULT_ENTITY_NAME)
    if entity_name is None:
        return Entity(entity_type, None)
    return Entity(entity_type, sanitize(entity_name) if entity_type in (USER, CLIENT) else entity_name)


def parse_configs_to_be_added(add_config: str | None) -> dict[str, str]:
    """`k1=v1,k2=[v2,v3]`: commas inside brackets belong to the value; the brackets are dropped."""
    props: dict[str, str] = {}
    if add_config is None:
        return props
    outside_brackets = r"(?=[^\]]*(?:\[|$))"
    pairs = [re.split(r"\s*=\s*" + outside_brackets, entry) for entry in re.split("," + outside_brackets, add_config)]
    if not all(len(pair) == 2 for pair in pairs):
        raise IllegalArgumentException("requirement failed: Invalid entity config: all configs to be added must be in "
                                       "the format \"key=val\".")
    for key, value in pairs:
        props[key.strip()] = re.sub(r"\[?\]?", "", value).strip()
    if "message.format.version" in props:
        print(f"WARNING: The configuration message.format.version={props['message.format.version']} is specified. "
              "This configuration will be ignored if the version is newer than the inter.broker.protocol.version "
              "specified in the broker.")
    return props


def parse_configs_to_be_deleted(delete_config: list[str]) -> list[str]:
    return [name.strip() for names in delete_config for name in names.split(",") if name.strip()]


def pre_process_scram_credentials(configs_to_be_added: dict[str, str]) -> None:
    """`SCRAM-SHA-256=[iterations=8192,password=alice-secret]` becomes the stored form: salt, stored key, server
    key and iterations, so ZooKeeper never holds the password."""
    from kafka_edu.v1_0_2.clients.common.security.scram.scram_credential_utils import credential_to_string
    from kafka_edu.v1_0_2.clients.common.security.scram.scram_formatter import ScramFormatter
    from kafka_edu.v1_0_2.clients.common.security.scram.scram_mechanism import ScramMechanism

    pattern = re.compile(r"(?:iterations=([0-9]*),)?password=(.*)")
    for mechanism in ScramMechanism:
        value = configs_to_be_added.get(mechanism.mechanism_name)
        if value is None:
            continue
        match = pattern.fullmatch(value)
        if match is None:
            raise IllegalArgumentException(f"Invalid credential property {mechanism.mechanism_name}={value}")
        iterations = int(match.group(1)) if match.group(1) else DEFAULT_SCRAM_ITERATIONS
        if iterations < mechanism.min_iterations:
            raise IllegalArgumentException(f"Iterations {iterations} is less than the minimum "
                                           f"{mechanism.min_iterations} required for {mechanism.mechanism_name}")
        credential = ScramFormatter(mechanism).generate_credential(match.group(2), iterations)
        configs_to_be_added[mechanism.mechanism_name] = credential_to_string(credential)


def _validate_dynamic_config(config_def: ConfigDef, configs: dict[str, str]) -> None:
    """DynamicConfig.validate: only the type's names, each value parsed."""
    names = config_def.names()
    for name in configs:
        if name not in names:
            raise IllegalArgumentException(f"requirement failed: Unknown Dynamic Configuration '{name}'.")
    config_def.parse(configs)


def change_configs(zk_utils: ZkUtils, entity_type: str, entity_name: str, configs: dict[str, str]) -> None:
    """AdminUtils.changeConfigs: validate by the entity's type, then write the config and its change notification."""
    if entity_type == TOPIC:
        change_topic_config(zk_utils, entity_name, configs)
        return
    if entity_type == CLIENT:
        _validate_dynamic_config(_CLIENT_CONFIG_DEF, configs)
    elif entity_type == USER:
        _validate_dynamic_config(_USER_CONFIG_DEF, configs)
    elif entity_type == BROKER:
        if entity_name != DEFAULT_ENTITY_NAME and not entity_name.isdigit():
            raise IllegalArgumentException(f"Error parsing broker {entity_name}. The broker's Entity Name must be a "
                                           "single integer value")
        _validate_dynamic_config(_BROKER_CONFIG_DEF, configs)
    change_entity_config(zk_utils, entity_type, entity_name, configs)


def alter_config(zk_utils: ZkUtils, entity: Entity, add_config: str | None, delete_config: list[str]) -> None:
    """The entity's stored config, with the additions and without the deletions, written back whole."""
    configs_to_be_added = parse_configs_to_be_added(add_config)
    configs_to_be_deleted = parse_configs_to_be_deleted(delete_config)
    if entity.entity_type == USER:
        pre_process_scram_credentials(configs_to_be_added)
    configs = fetch_entity_config(zk_utils, entity.entity_type, entity.full_sanitized_name)
    invalid_configs = [name for name in configs_to_be_deleted if name not in configs]
    if invalid_configs:
        raise InvalidConfigException(f"Invalid config(s): {','.join(invalid_configs)}")
    configs.update(configs_to_be_added)
    for name in configs_to_be_deleted:
        configs.pop(name, None)
    change_configs(zk_utils, entity.entity_type, entity.full_sanitized_name, configs)
    print(f"Completed Updating config for entity: {entity}.")


def describe_config(zk_utils: ZkUtils, entity: Entity, out: Callable[[str], None] = print) -> None:
    """Each entity's stored overrides; with no name, every entity of the type that has a config znode."""
    entities = [entity] if entity.sanitized_name is not None else [
        Entity(entity.entity_type, name)
        for name in sorted(zk_utils.get_children(get_entity_config_root_path(entity.entity_type)))]
    for each in entities:
        configs = fetch_entity_config(zk_utils, each.entity_type, each.full_sanitized_name)
        # every user, not just those with configs, has a node when <user, client> quotas exist: skip empty ones
        if configs or not (entity.entity_type == USER and entity.sanitized_name is None):
            out(f"Configs for {each} are {','.join(f'{k}={v}' for k, v in configs.items())}")


def run(zk_connect: str, action: str | None, entity_type: str | None, entity_name: str | None,
        entity_default: bool, add_config: str | None, delete_config: list[str]) -> None:
    """main: check the arguments, then alter or describe through ZooKeeper."""
    check_args(action, entity_type, entity_name, entity_default, add_config, delete_config)
    entity = parse_entity(entity_type, entity_name, entity_default)
    zk_utils = ZkUtils(zk_connect, ZK_SESSION_TIMEOUT_MS, ZK_CONNECTION_TIMEOUT_MS)
    try:
        if action == "alter":
            alter_config(zk_utils, entity, add_config, delete_config)
        else:
            describe_config(zk_utils, entity)
    finally:
        zk_utils.close()
