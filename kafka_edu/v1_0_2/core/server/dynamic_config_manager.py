"""Port of core/src/main/scala/kafka/server/DynamicConfigManager.scala and the ZkNodeChangeNotificationListener it
uses (core/src/main/scala/kafka/common/ZkNodeChangeNotificationListener.scala), Kafka 1.0.2."""

from __future__ import annotations

import json
import logging
import threading
import urllib.parse
from collections.abc import Callable
from typing import Protocol

from kafka_edu.v1_0_2.core.security.credential_provider import CredentialProvider
from kafka_edu.v1_0_2.core.utils.zk_utils import CONFIG_CHANGES_PATH, ZkUtils, get_entity_config_root_path

log = logging.getLogger("kafka.server.DynamicConfigManager")

CHANGE_NOTIFICATION_PREFIX = "config_change_"


class ConfigHandler(Protocol):
    def process_config_changes(self, entity_name: str, value: dict[str, str]) -> None: ...


class TopicConfigHandler:
    """Applies a topic's overrides to every log of that topic on this broker."""

    def __init__(self, apply_topic_config: Callable[[str, dict[str, str]], None]) -> None:
        self.apply_topic_config = apply_topic_config

    def process_config_changes(self, entity_name: str, value: dict[str, str]) -> None:
        self.apply_topic_config(entity_name, value)


class UserConfigHandler:
    """ConfigHandler.scala's UserConfigHandler: a user's SCRAM credentials (quotas are not ported). The entity
    path is `<user>`, or `<user>/clients/<client-id>` for a quota alone."""

    def __init__(self, credential_provider: CredentialProvider) -> None:
        self.credential_provider = credential_provider

    def process_config_changes(self, entity_name: str, value: dict[str, str]) -> None:
        entities = entity_name.split("/")
        if len(entities) not in (1, 3):
            raise ValueError(f"Invalid quota entity path: {entity_name}")
        if len(entities) == 1 and entities[0] != "<default>":
            # user names are stored URL-encoded (Sanitizer)
            self.credential_provider.update_credentials(urllib.parse.unquote(entities[0]), value)


class DynamicConfigManager:
    """Watches `/config/changes` for notifications written by admin tools and hands each entity's new config
    (read from `/config/<type>/<name>`) to the handler for its type."""

    def __init__(self, zk_utils: ZkUtils, config_handlers: dict[str, ConfigHandler]) -> None:
        self.zk_utils = zk_utils
        self.config_handlers = config_handlers
        self.last_executed_change = -1
        self._lock = threading.Lock()

    def startup(self) -> None:
        self.zk_utils.make_sure_persistent_path_exists(CONFIG_CHANGES_PATH)
        # The watch fires once at registration with the current children, so existing notifications run now.
        self.zk_utils.zk_client.ChildrenWatch(CONFIG_CHANGES_PATH, self._on_children)
        # Bootstrap: apply every override already stored, as Kafka does for each handled entity type.
        for entity_type, handler in self.config_handlers.items():
            root = get_entity_config_root_path(entity_type)
            for entity_name in self.zk_utils.get_children(root):
                handler.process_config_changes(entity_name, self.fetch_entity_config(entity_type, entity_name))

    def _on_children(self, children: list[str]) -> None:
        self.process_notifications(sorted(c for c in children if c.startswith(CHANGE_NOTIFICATION_PREFIX)))

    def process_notifications(self, notifications: list[str]) -> None:
        with self._lock:
            for notification in notifications:
                change_id = int(notification[len(CHANGE_NOTIFICATION_PREFIX):])
                if change_id <= self.last_executed_change:
                    continue
                data, _ = self.zk_utils.read_data_maybe_null(f"{CONFIG_CHANGES_PATH}/{notification}")
                if data is not None:
                    self.process_notification(data)
                self.last_executed_change = change_id

    def process_notification(self, json_bytes: str) -> None:
        notification = json.loads(json_bytes)
        if notification.get("version") == 1:
            entity_type, entity_name = notification["entity_type"], notification["entity_name"]
        elif notification.get("version") == 2:
            entity_type, _, entity_name = notification["entity_path"].partition("/")
        else:
            log.error("Config change notification has an unsupported version %s", notification.get("version"))
            return
        handler = self.config_handlers.get(entity_type)
        if handler is None:
            log.warning("No config handler for entity type %s; notification ignored", entity_type)
            return
        log.info("Processing override for entityPath: %s/%s", entity_type, entity_name)
        handler.process_config_changes(entity_name, self.fetch_entity_config(entity_type, entity_name))

    def fetch_entity_config(self, entity_type: str, entity_name: str) -> dict[str, str]:
        return self.zk_utils.fetch_entity_config(entity_type, entity_name)
