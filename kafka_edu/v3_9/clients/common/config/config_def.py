"""Port of clients/src/main/java/org/apache/kafka/common/config/ConfigDef.java + AbstractConfig.java (Kafka 3.9): the
3.9 additions over 1.0.2's ConfigDef (internal keys, merging defs, case-insensitive strings, prefix overrides).

The parts 3.9 kept as they were (ConfigException, Password, Type, Range, ValidString, ValidList, parsing a value) are
1.0.2's, imported: the 3.9 definitions already in this tree (LogConfig, QuorumConfig) are built with them.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable, Mapping
from typing import Any

from kafka_edu.v1_0_2.clients.common.config import config_def as _v1
from kafka_edu.v1_0_2.clients.common.config.config_def import (  # noqa: F401  (re-exported: unchanged in 3.9)
    NO_DEFAULT_VALUE,
    ConfigException,
    ConfigKey,
    Password,
    Range,
    Type,
    Validator,
    ValidList,
    ValidString,
)

__all__ = ["NO_DEFAULT_VALUE", "AbstractConfig", "CaseInsensitiveValidString", "ConfigDef", "ConfigException",
           "ConfigKey", "NonEmptyString", "NonNullValidator", "Password", "Range", "Type", "ValidList", "ValidString",
           "Validator", "merge_configs"]


class NonNullValidator:
    """`ConfigDef.NonNullValidator`."""

    def __call__(self, name: str, value: Any) -> None:
        if value is None:
            raise ConfigException(name, None, "entry must be non null")


class NonEmptyString:
    """`ConfigDef.NonEmptyString`: null passes, "" does not."""

    def __call__(self, name: str, value: Any) -> None:
        if value is not None and value == "":
            raise ConfigException(name, value, "String must be non-empty")


class CaseInsensitiveValidString:
    """`ConfigDef.CaseInsensitiveValidString.in(...)`: one of a fixed set, compared in upper case."""

    def __init__(self, valid: Iterable[str]) -> None:
        self.valid = list(valid)
        self._upper = {v.upper() for v in self.valid}

    @staticmethod
    def in_(*valid: str) -> CaseInsensitiveValidString:
        return CaseInsensitiveValidString(valid)

    def __call__(self, name: str, value: Any) -> None:
        if value is None or value.upper() not in self._upper:
            raise ConfigException(name, value, "String must be one of (case insensitive): " + ", ".join(self.valid))


# The Java classes a CLASS config may name in this port: Kafka's own defaults, which the port stands in for. There
# is no class path to load from; any other name must be an importable Python `module.Class`.
KNOWN_JAVA_CLASSES = frozenset({
    "org.apache.kafka.common.security.authenticator.DefaultKafkaPrincipalBuilder",
})


def load_class(name: str, value: str) -> str:
    """Utils.loadClass for a CLASS value: the class name, once it is known to exist."""
    if value in KNOWN_JAVA_CLASSES:
        return value
    module_name, _, class_name = value.rpartition(".")
    if module_name and class_name:
        try:
            if isinstance(getattr(importlib.import_module(module_name), class_name, None), type):
                return value
        except ImportError:
            pass
    raise ConfigException(name, value, f"Class {value} could not be found.")


class ConfigDef(_v1.ConfigDef):
    """A table of config keys; 3.9 adds internal keys (kept out of the docs) and the default values as a map."""

    def __init__(self) -> None:
        super().__init__()
        self.internal_names: set[str] = set()

    def parse_value(self, key: ConfigKey, value: Any, is_set: bool) -> Any:
        # a class named in a config must exist, as Kafka loads it while parsing
        if is_set and key.type is Type.CLASS and isinstance(value, str):
            value = load_class(key.name, value.strip())
        return super().parse_value(key, value, is_set)

    def define_internal(self, name: str, type_: Type, default_value: Any = NO_DEFAULT_VALUE,
                        validator: Validator | None = None) -> ConfigDef:
        self.define(name, type_, default_value, validator)
        self.internal_names.add(name)
        return self

    def default_values(self) -> dict[str, Any]:
        return {name: key.default_value for name, key in self.config_keys.items() if key.has_default()}


def merge_configs(config_defs: Iterable[_v1.ConfigDef]) -> ConfigDef:
    """Utils.mergeConfigs: one ConfigDef holding every key of the given ones (a name defined twice is an error)."""
    merged = ConfigDef()
    for config_def in config_defs:
        for name, key in config_def.config_keys.items():
            if name in merged.config_keys:
                raise ConfigException(f"Configuration {name} is defined twice.")
            merged.config_keys[name] = key
        merged.internal_names |= getattr(config_def, "internal_names", set())
    return merged


class AbstractConfig(_v1.AbstractConfig):
    """Parsed values of a ConfigDef plus the raw properties; 3.9 adds the listener-prefixed overrides."""

    def __init__(self, definition: _v1.ConfigDef, originals: Mapping[str, Any], do_log: bool = True) -> None:
        self._definition = definition
        super().__init__(definition, originals, do_log)

    def originals_with_prefix(self, prefix: str, strip: bool = True) -> dict[str, Any]:
        return {(k[len(prefix):] if strip else k): v for k, v in self._originals.items()
                if k.startswith(prefix) and len(k) > len(prefix)}

    def values_with_prefix_override(self, prefix: str) -> dict[str, Any]:
        """Every value, with `<prefix><name>` originals overriding `<name>` (parsed with the key's type)."""
        result = dict(self._values)
        for key, value in self.originals_with_prefix(prefix).items():
            config_key = self._definition.config_keys.get(key)
            if config_key is not None:
                result[key] = self._definition.parse_value(config_key, value, True)
        return result

    # The typed getters go through get(), as Java's do: a subclass that overrides get (KafkaConfig's current
    # config) is read the same way by all of them.
    def get_int(self, key: str) -> Any:
        return self.get(key)

    get_short = get_long = get_double = get_string = get_boolean = get_list = get_class = get_password = get_int
