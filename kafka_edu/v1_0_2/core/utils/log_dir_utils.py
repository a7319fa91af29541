"""Port of core/src/main/scala/kafka/utils/LogDirUtils.scala (Kafka 1.0.2), the part the controller uses."""

from __future__ import annotations

import json

from kafka_edu.v1_0_2.core.utils.zk_utils import LOG_DIR_EVENT_NOTIFICATION_PATH, ZkUtils


def delete_log_dir_events(zk_utils: ZkUtils) -> None:
    """Drop every pending log-dir-failure notification: a new controller asks each broker about its replicas anyway."""
    sequence_numbers = zk_utils.get_children(LOG_DIR_EVENT_NOTIFICATION_PATH)
    for x in sequence_numbers:
        zk_utils.delete_path_recursive(f"{LOG_DIR_EVENT_NOTIFICATION_PATH}/{x}")


def get_broker_id_from_log_dir_event(zk_utils: ZkUtils, log_dir_event_notification_sequence_number: str) -> int | None:
    """The broker that wrote `/log_dir_event_notification/log_dir_event_<seq>` ({"version":1,"broker":id,...})."""
    data, _ = zk_utils.read_data_maybe_null(f"{LOG_DIR_EVENT_NOTIFICATION_PATH}/"
                                            f"{log_dir_event_notification_sequence_number}")
    if data is None:
        return None
    try:
        return int(json.loads(data)["broker"])
    except (ValueError, KeyError, TypeError):
        return None
