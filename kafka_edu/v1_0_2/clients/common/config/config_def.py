"""Port of clients/src/main/java/org/apache/kafka/common/config/ConfigDef.java + AbstractConfig.java (Kafka 1.0.2)."""

from __future__ import annotations

import logging
import re
import sys
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Any

log = logging.getLogger(__name__)

INT_MAX = 2**31 - 1
LONG_MAX = 2**63 - 1
DOUBLE_MAX = sys.float_info.max

_RANGES = {"INT": (-(2**31), INT_MAX), "SHORT": (-(2**15), 2**15 - 1), "LONG": (-(2**63), LONG_MAX)}
_JAVA_INTEGER = re.compile(r"[+-]?[0-9]+")
_JAVA_DOUBLE = re.compile(r"[+-]?(NaN|Infinity|(([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?)[fFdD]?)")
_MISSING = object()


def _java_str(value: Any) -> str:
    """How Java's `toString` would print a config value inside an error message."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_java_str(v) for v in value) + "]"
    return str(value)


class ConfigException(Exception):
    """A configuration is missing, malformed or out of range; `ConfigException(name, value, message)` or `(message)`."""

    def __init__(self, name: str, value: Any = _MISSING, message: str | None = None) -> None:
        if value is _MISSING:
            text = name
        else:
            text = f"Invalid value {_java_str(value)} for configuration {name}" + (f": {message}" if message else "")
        super().__init__(text)


class Type(Enum):
    BOOLEAN = "BOOLEAN"
    STRING = "STRING"
    INT = "INT"
    SHORT = "SHORT"
    LONG = "LONG"
    DOUBLE = "DOUBLE"
    LIST = "LIST"
    CLASS = "CLASS"
    PASSWORD = "PASSWORD"


class _NoDefault:
    def __repr__(self) -> str:
        return "NO_DEFAULT_VALUE"


# A key defined with this default is required: parse() fails when it is absent.
NO_DEFAULT_VALUE: Any = _NoDefault()


class Password:
    """A secret config value; it prints as [hidden] so it never lands in a log line."""

    HIDDEN = "[hidden]"

    def __init__(self, value: str) -> None:
        self._value = value

    def value(self) -> str:
        return self._value

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Password) and other._value == self._value

    def __hash__(self) -> int:
        return hash(self._value)

    def __str__(self) -> str:
        return self.HIDDEN

    __repr__ = __str__


Validator = Callable[[str, Any], None]


class Range:
    """`ConfigDef.Range`: numeric bounds, both inclusive."""

    def __init__(self, min_: float | None, max_: float | None) -> None:
        self.min, self.max = min_, max_

    @staticmethod
    def at_least(min_: float) -> Range:
        return Range(min_, None)

    @staticmethod
    def between(min_: float, max_: float) -> Range:
        return Range(min_, max_)

    def __call__(self, name: str, value: Any) -> None:
        if value is None:
            raise ConfigException(name, None, "Value must be non-null")
        if self.min is not None and value < self.min:
            raise ConfigException(name, value, f"Value must be at least {self.min}")
        if self.max is not None and value > self.max:
            raise ConfigException(name, value, f"Value must be no more than {self.max}")


class ValidString:
    """`ConfigDef.ValidString.in(...)`: the value must be one of a fixed set of strings."""

    def __init__(self, valid: Iterable[str]) -> None:
        self.valid = list(valid)

    @staticmethod
    def in_(*valid: str) -> ValidString:
        return ValidString(valid)

    def __call__(self, name: str, value: Any) -> None:
        if value not in self.valid:
            raise ConfigException(name, value, "String must be one of: " + ", ".join(self.valid))


class ValidList:
    """`ConfigDef.ValidList.in(...)`: every element of a LIST value must be one of a fixed set."""

    def __init__(self, valid: Iterable[str]) -> None:
        self.valid_string = ValidString(valid)

    @staticmethod
    def in_(*valid: str) -> ValidList:
        return ValidList(valid)

    def __call__(self, name: str, value: Any) -> None:
        for element in value:
            self.valid_string(name, element)


@dataclass(frozen=True)
class ConfigKey:
    name: str
    type: Type
    default_value: Any
    validator: Validator | None

    def has_default(self) -> bool:
        return self.default_value is not NO_DEFAULT_VALUE


def _wrong_type(name: str, value: Any, what: str) -> ConfigException:
    return ConfigException(name, value, f"Expected value to be a {what}, but it was a {type(value).__name__}")


def _parse_number(name: str, value: Any, type_: Type, what: str) -> int:
    if isinstance(value, str):
        if not _JAVA_INTEGER.fullmatch(value):
            raise ConfigException(name, value, f"Not a number of type {type_.value}")
        number = int(value)
    elif isinstance(value, int) and not isinstance(value, bool):
        number = value
    else:
        raise _wrong_type(name, value, what)
    low, high = _RANGES[type_.value]
    if not low <= number <= high:  # Java's parseInt/parseLong overflow is a NumberFormatException too
        raise ConfigException(name, value, f"Not a number of type {type_.value}")
    return number


class ConfigDef:
    """A table of config keys: name, type, default and validator, in definition order."""

    def __init__(self) -> None:
        self.config_keys: dict[str, ConfigKey] = {}

    def define(self, name: str, type_: Type, default_value: Any = NO_DEFAULT_VALUE,
               validator: Validator | None = None) -> ConfigDef:
        if name in self.config_keys:
            raise ConfigException(f"Configuration {name} is defined twice.")
        if default_value is not NO_DEFAULT_VALUE:
            default_value = ConfigDef.parse_type(name, default_value, type_)
            if validator is not None:
                validator(name, default_value)
        self.config_keys[name] = ConfigKey(name, type_, default_value, validator)
        return self

    def names(self) -> set[str]:
        return set(self.config_keys)

    def parse(self, props: Mapping[str, Any]) -> dict[str, Any]:
        return {name: self.parse_value(key, props.get(name), name in props) for name, key in self.config_keys.items()}

    def parse_value(self, key: ConfigKey, value: Any, is_set: bool) -> Any:
        if is_set:
            parsed = ConfigDef.parse_type(key.name, value, key.type)
        elif not key.has_default():
            raise ConfigException(f'Missing required configuration "{key.name}" which has no default value.')
        else:
            parsed = key.default_value
        if key.validator is not None:
            key.validator(key.name, parsed)
        return parsed

    @staticmethod
    def parse_type(name: str, value: Any, type_: Type) -> Any:
        """Turn a raw value (usually a string from a properties file) into the key's Python type."""
        if value is None:
            return None
        trimmed = value.strip() if isinstance(value, str) else None
        match type_:
            case Type.BOOLEAN:
                if isinstance(value, bool):
                    return value
                if trimmed is not None and trimmed.lower() in ("true", "false"):
                    return trimmed.lower() == "true"
                raise ConfigException(name, value, "Expected value to be either true or false")
            case Type.PASSWORD:
                if isinstance(value, Password):
                    return value
                if trimmed is not None:
                    return Password(trimmed)
                raise _wrong_type(name, value, "string")
            case Type.STRING | Type.CLASS:
                # CLASS values stay class names: there is no JVM class to load here.
                if trimmed is not None:
                    return trimmed
                if type_ is Type.CLASS and isinstance(value, type):
                    return f"{value.__module__}.{value.__qualname__}"
                raise _wrong_type(name, value, "string")
            case Type.INT:
                return _parse_number(name, trimmed if trimmed is not None else value, type_, "32-bit integer")
            case Type.SHORT:
                return _parse_number(name, trimmed if trimmed is not None else value, type_, "16-bit integer")
            case Type.LONG:
                return _parse_number(name, trimmed if trimmed is not None else value, type_, "64-bit integer")
            case Type.DOUBLE:
                if isinstance(value, int | float) and not isinstance(value, bool):
                    return float(value)
                if trimmed is not None:
                    if not _JAVA_DOUBLE.fullmatch(trimmed):
                        raise ConfigException(name, value, "Not a number of type DOUBLE")
                    return float(trimmed.rstrip("fFdD"))
                raise _wrong_type(name, value, "double")
            case Type.LIST:
                if isinstance(value, list | tuple):
                    return list(value)
                if trimmed is not None:
                    return [] if not trimmed else re.split(r"\s*,\s*", trimmed)
                raise ConfigException(name, value, "Expected a comma separated list.")
        raise ValueError(f"Unknown type {type_}")


class AbstractConfig:
    """Parsed values of a ConfigDef plus the raw properties they came from."""

    def __init__(self, definition: ConfigDef, originals: Mapping[str, Any], do_log: bool = True) -> None:
        for key in originals:
            if not isinstance(key, str):
                raise ConfigException(str(key), originals[key], "Key must be a string.")
        self._originals: dict[str, Any] = dict(originals)
        self._values: dict[str, Any] = definition.parse(self._originals)
        if do_log:
            self.log_all()

    def get(self, key: str) -> Any:
        if key not in self._values:
            raise ConfigException(f"Unknown configuration '{key}'")
        return self._values[key]

    get_int = get_short = get_long = get_double = get_string = get_boolean = get_list = get_class = get_password = get

    def originals(self) -> dict[str, Any]:
        return dict(self._originals)

    def values(self) -> dict[str, Any]:
        return dict(self._values)

    def log_all(self) -> None:
        lines = "".join(f"\n\t{k} = {_java_str(v)}" for k, v in sorted(self._values.items()))
        log.info("%s values: %s", type(self).__name__, lines)
