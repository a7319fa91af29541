"""Port of core/src/main/scala/kafka/admin/LogDirsCommand.scala (Kafka 1.0.2): `kafka-log-dirs.sh --describe
--bootstrap-server B [--broker-list 1,2] [--topic-list t1,t2]`.

Each broker is asked with DescribeLogDirs (kafka-python's KafkaAdminClient sends it to each broker in turn) which
of its `log.dirs` are online and which partitions' logs each holds, with their size in bytes. The answer is
printed as 1.0.2 prints it: one JSON document, by broker, then log directory.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from kafka.admin import KafkaAdminClient

from kafka_edu.v3_9.clients.common.protocol.errors import Errors


def describe(bootstrap_server: str, broker_list: str | None, topic_list: str,
             out: Callable[[str], None] = print) -> int:
    topics = {t for t in topic_list.split(",") if t}
    admin_client = KafkaAdminClient(bootstrap_servers=bootstrap_server, client_id="kafka-log-dirs")
    try:
        if broker_list is not None:
            brokers = [int(b) for b in broker_list.split(",") if b]
        else:
            # 1.0.2 asks describeCluster; against a 1.0.2 broker the client falls back to Metadata
            brokers = sorted(b["broker_id"] for b in admin_client.describe_cluster()["brokers"])
        out("Querying brokers for log directories information")
        log_dir_infos_by_broker = admin_client.describe_log_dirs(brokers=brokers)
        out(f"Received log directory information from brokers {','.join(map(str, brokers))}")
        out(format_as_json(log_dir_infos_by_broker, topics))
    finally:
        admin_client.close()
    return 0


def format_as_json(log_dir_infos_by_broker: list[dict[str, Any]], topic_set: set[str]) -> str:
    """{"version": 1, "brokers": [{"broker": 0, "logDirs": [{"logDir", "error", "partitions": [{"partition":
    "t-0", "size", "offsetLag", "isFuture"}]}]}]}; `error` is the exception's name, or null."""
    return json.dumps({"version": 1, "brokers": [
        {"broker": info["broker"], "logDirs": [
            {"logDir": log_dir["log_dir"],
             "error": Errors.for_code(log_dir["error_code"]).exception_name,
             "partitions": [
                 {"partition": f"{topic['name']}-{p['partition_index']}", "size": p["partition_size"],
                  "offsetLag": p["offset_lag"], "isFuture": p["is_future_key"]}
                 for topic in log_dir["topics"] if not topic_set or topic["name"] in topic_set
                 for p in topic["partitions"]]}
            for log_dir in info["log_dirs"]]}
        for info in log_dir_infos_by_broker]}, separators=(",", ":"))
