"""Port of metadata/src/main/java/org/apache/kafka/controller/ConfigurationValidator.java (Kafka 3.9)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


class ConfigurationValidator:
    """Says whether a config resource may be described, and whether a resource's new configs are valid (raising an
    ApiException, or common.config's ConfigException, when not). This base class accepts everything: Kafka's
    ConfigurationValidator.NO_OP."""

    def validate_resource(self, resource: Any) -> None:
        """validate(ConfigResource): may this resource be described?"""

    def validate(self, resource: Any, new_configs: Mapping[str, str | None],
                 existing_configs: Mapping[str, str]) -> None:
        """validate(ConfigResource, newConfigs, existingConfigs): `new_configs` is every config the resource would
        have."""


NO_OP = ConfigurationValidator()
