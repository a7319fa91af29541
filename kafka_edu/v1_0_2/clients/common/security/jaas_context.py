"""Port of clients/src/main/java/org/apache/kafka/common/security/JaasContext.java (Kafka 1.0.2), with a reader for
the JAAS file format (the JVM's ConfigFile, which Kafka reads through `java.security.auth.login.config`)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kafka_edu.v1_0_2.clients.common.errors import IllegalArgumentException, KafkaException

# The JVM system property naming the JAAS file; here a broker property standing in for `-D...` (docs/security.md).
JAVA_LOGIN_CONFIG_PARAM = "java.security.auth.login.config"
GLOBAL_CONTEXT_NAME_SERVER = "KafkaServer"

_TOKEN = re.compile(r'\s*(?:(//[^\n]*|/\*.*?\*/)|("(?:[^"\\]|\\.)*")|([{};=])|([^\s{};="]+))', re.S)


@dataclass(frozen=True)
class AppConfigurationEntry:
    """One login module line of a JAAS section: `Module flag key="value" ...;`."""

    login_module_name: str
    control_flag: str
    options: dict[str, str] = field(default_factory=dict)


def parse_jaas_config(text: str) -> dict[str, list[AppConfigurationEntry]]:
    """`Name { Module flag key="value"...; ... };` sections, by name. Malformed text raises
    IllegalArgumentException, as the JVM's parser refuses it."""
    tokens = []
    position = 0
    text = text.rstrip()
    while position < len(text):
        match = _TOKEN.match(text, position)
        if match is None:
            raise IllegalArgumentException(f"JAAS config: unexpected text at offset {position}")
        position = match.end()
        comment, quoted, punctuation, word = match.groups()
        if comment is not None:
            continue
        if quoted is not None:
            tokens.append(("value", re.sub(r"\\(.)", r"\1", quoted[1:-1])))
        elif punctuation is not None:
            tokens.append((punctuation, punctuation))
        elif word is not None:
            tokens.append(("word", word))

    sections: dict[str, list[AppConfigurationEntry]] = {}
    index = 0

    def take(kind: str | None = None) -> str:
        nonlocal index
        if index >= len(tokens):
            raise IllegalArgumentException("JAAS config: unexpected end of file")
        token_kind, value = tokens[index]
        if kind is not None and token_kind != kind and not (kind == "value" and token_kind == "word"):
            raise IllegalArgumentException(f"JAAS config: expected {kind} but found '{value}'")
        index += 1
        return value

    while index < len(tokens):
        name = take("word")
        take("{")
        entries = []
        while index < len(tokens) and tokens[index][0] != "}":
            module, flag = take("word"), take("word")
            if flag.lower() not in ("required", "requisite", "sufficient", "optional"):
                raise IllegalArgumentException(f"JAAS config: invalid control flag '{flag}' for {module}")
            options = {}
            while index < len(tokens) and tokens[index][0] != ";":
                key = take("word")
                take("=")
                options[key] = take("value")
            take(";")
            entries.append(AppConfigurationEntry(module, flag.lower(), options))
        take("}")
        take(";")
        sections[name] = entries
    return sections


class JaasContext:
    """The JAAS section a listener's SASL logins use, and the options of its login modules."""

    def __init__(self, name: str, configuration_entries: list[AppConfigurationEntry]) -> None:
        if not configuration_entries:
            raise IllegalArgumentException("JAAS config property does not contain any login modules")
        self.name = name
        self.configuration_entries = configuration_entries

    @staticmethod
    def load_server_context(listener_name: str, configs: dict[str, Any]) -> JaasContext:
        """The `<listener>.KafkaServer` section of the JAAS file, else `KafkaServer`; an error when the broker has
        no JAAS file or the file has neither (1.0.2 reads only the file for brokers)."""
        listener_context_name = f"{listener_name.lower()}.{GLOBAL_CONTEXT_NAME_SERVER}"
        path = configs.get(JAVA_LOGIN_CONFIG_PARAM)
        if not path:
            raise IllegalArgumentException(
                f"Could not find a '{GLOBAL_CONTEXT_NAME_SERVER}' or '{listener_context_name}' entry in the JAAS "
                f"configuration. System property '{JAVA_LOGIN_CONFIG_PARAM}' is not set")
        try:
            sections = parse_jaas_config(Path(str(path)).read_text())
        except OSError as e:
            raise KafkaException(f"Could not read the JAAS file {path}: {e}") from e
        for name in (listener_context_name, GLOBAL_CONTEXT_NAME_SERVER):
            if name in sections:
                return JaasContext(name, sections[name])
        raise IllegalArgumentException(
            f"Could not find a '{GLOBAL_CONTEXT_NAME_SERVER}' or '{listener_context_name}' entry in the JAAS "
            f"configuration. System property '{JAVA_LOGIN_CONFIG_PARAM}' is {path}")

    def config_entry_option(self, key: str, login_module_name: str | None) -> str | None:
        """The option `key` of the named login module (of any module when no name is given)."""
        for entry in self.configuration_entries:
            if login_module_name is not None and login_module_name != entry.login_module_name:
                continue
            value = entry.options.get(key)
            if value is not None:
                return value
        return None
