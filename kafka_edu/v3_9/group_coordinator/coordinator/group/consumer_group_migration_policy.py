"""Port of group-coordinator/src/main/java/org/apache/kafka/coordinator/group/ConsumerGroupMigrationPolicy.java
(Kafka 3.9)."""

from __future__ import annotations

import enum


class ConsumerGroupMigrationPolicy(enum.Enum):
    """Whether a classic group may turn into a consumer group (upgrade) and back (downgrade) while live."""

    BIDIRECTIONAL = ("bidirectional", True, True)
    UPGRADE = ("upgrade", True, False)
    DOWNGRADE = ("downgrade", False, True)
    DISABLED = ("disabled", False, False)

    def __init__(self, config_name: str, upgrade_enabled: bool, downgrade_enabled: bool) -> None:
        self._config_name = config_name
        self._upgrade_enabled = upgrade_enabled
        self._downgrade_enabled = downgrade_enabled

    def is_upgrade_enabled(self) -> bool:
        return self._upgrade_enabled

    def is_downgrade_enabled(self) -> bool:
        return self._downgrade_enabled

    def __str__(self) -> str:
        return self._config_name

    @staticmethod
    def parse(name: str | None) -> ConsumerGroupMigrationPolicy:
        # an unknown or missing name disables the migration rather than failing
        if name is None:
            return ConsumerGroupMigrationPolicy.DISABLED
        for policy in ConsumerGroupMigrationPolicy:
            if policy._config_name == name.lower():
                return policy
        return ConsumerGroupMigrationPolicy.DISABLED
