"""Port of core/src/main/scala/kafka/common/ZkNodeChangeNotificationListener.scala (Kafka 1.0.2)."""

from __future__ import annotations

import logging
import threading
import time
from typing import Protocol

from kafka_edu.v1_0_2.core.utils.zk_utils import ZkStateListener, ZkUtils

log = logging.getLogger("kafka.common.ZkNodeChangeNotificationListener")

DEFAULT_CHANGE_EXPIRATION_MS = 15 * 60 * 1000


class NotificationHandler(Protocol):
    def process_notification(self, notification_message: str) -> None: ...


class ZkNodeChangeNotificationListener:
    """Watches `seq_node_root` for sequential znodes named `seq_node_prefix`N and hands each new one's data to the
    handler, in order, once; notifications older than `change_expiration_ms` are deleted after a pass."""

    def __init__(self, zk_utils: ZkUtils, seq_node_root: str, seq_node_prefix: str,
                 notification_handler: NotificationHandler,
                 change_expiration_ms: int = DEFAULT_CHANGE_EXPIRATION_MS) -> None:
        self.zk_utils = zk_utils
        self.seq_node_root = seq_node_root
        self.seq_node_prefix = seq_node_prefix
        self.notification_handler = notification_handler
        self.change_expiration_ms = change_expiration_ms
        self.last_executed_change = -1
        self.is_closed = threading.Event()
        self._lock = threading.Lock()  # the watch and a new session may both process at once

    def init(self) -> None:
        self.zk_utils.make_sure_persistent_path_exists(self.seq_node_root)
        # kazoo's watch also fires once now, with the notifications already there
        self.zk_utils.zk_client.ChildrenWatch(self.seq_node_root, self._node_change_listener)
        self.zk_utils.subscribe_state_changes(_ZkStateChangeListener(self))
        self.process_all_notifications()

    def close(self) -> None:
        self.is_closed.set()

    def process_all_notifications(self) -> None:
        self.process_notifications(sorted(self.zk_utils.get_children(self.seq_node_root)))

    def _node_change_listener(self, children: list[str]) -> bool | None:
        if self.is_closed.is_set():
            return False  # tells kazoo to stop watching
        try:
            self.process_notifications(sorted(children))
        except Exception:
            if not self.is_closed.is_set():  # a listener closing loses its session under a watch: no error
                log.exception("Error processing notifications under %s", self.seq_node_root)
        return None

    def process_notifications(self, notifications: list[str]) -> None:
        notifications = [n for n in notifications if n.startswith(self.seq_node_prefix)]
        if not notifications:
            return
        with self._lock:
            log.info("Processing notification(s) to %s", self.seq_node_root)
            now = time.time() * 1000
            for notification in notifications:
                change_id = self.change_number(notification)
                if change_id > self.last_executed_change:
                    change_znode = f"{self.seq_node_root}/{notification}"
                    data, _ = self.zk_utils.read_data_maybe_null(change_znode)
                    if data is not None:
                        self.notification_handler.process_notification(data)
                    else:
                        log.warning("read null data from %s when processing notification %s", change_znode,
                                    notification)
                    self.last_executed_change = change_id
            self.purge_obsolete_notifications(now, notifications)

    def purge_obsolete_notifications(self, now: float, notifications: list[str]) -> None:
        for notification in sorted(notifications):
            notification_node = f"{self.seq_node_root}/{notification}"
            data, stat = self.zk_utils.read_data_maybe_null(notification_node)
            if data is not None and now - stat.ctime > self.change_expiration_ms:
                log.debug("Purging change notification %s", notification_node)
                self.zk_utils.delete_path(notification_node)

    def change_number(self, name: str) -> int:
        return int(name[len(self.seq_node_prefix):])


class _ZkStateChangeListener(ZkStateListener):
    """A new session may have missed notifications: read them all again."""

    def __init__(self, listener: ZkNodeChangeNotificationListener) -> None:
        self.listener = listener

    def handle_new_session(self) -> None:
        log.info("processing notification(s) to %s", self.listener.seq_node_root)
        self.listener.process_all_notifications()

    def handle_session_establishment_error(self, error: Exception) -> None:
        log.error("Could not establish session with zookeeper: %s", error)
