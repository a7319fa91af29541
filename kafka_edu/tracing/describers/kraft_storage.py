"""Describers for KRaft storage spans (Kafka 3.9; see kafka_edu/tracing/attributes.py).

KR.storage is `kafka-storage format`: StorageTool.runFormatCommand (the cluster id and node id it was given) and
Formatter.doFormat (which directories it found formatted, the directory.id it gave each one it formatted, and what
it refused). The directories' state is read again from their meta.properties files: the ported code keeps it in
locals the describers do not see. The row has two spans, so the describers go by span name.
"""

from __future__ import annotations

import os
import sys
from typing import Any

from kafka_edu.tracing.attributes import Scope, end, start

_FORMATTED_BEFORE = "_kafka_edu_formatted_before"  # set on the Formatter when doFormat starts, read when it ends


def _meta_properties(directory: str) -> dict[str, str] | None:
    from kafka_edu.v3_9.metadata.metadata.properties.meta_properties import META_PROPERTIES_NAME, read_properties_file
    try:
        return read_properties_file(os.path.join(directory, META_PROPERTIES_NAME))
    except OSError:
        return None


def _refusal() -> dict[str, Any]:
    """The refusal the call is ending with, if any: end describers run while its exception is being handled."""
    error = sys.exc_info()[1]
    return {"kafka.storage.refused": str(error)} if isinstance(error, Exception) else {}


@start("StorageTool.runFormatCommand")
def _format_command(s: Scope) -> dict[str, Any]:
    namespace, config = s["namespace"], s["config"]
    attributes = {"kafka.cluster.id": namespace.cluster_id, "kafka.node.id": config.node_id,
                  "kafka.process.roles": sorted(str(role) for role in config.process_roles),
                  "kafka.storage.ignore_formatted": bool(namespace.ignore_formatted)}
    if namespace.release_version is not None:
        attributes["kafka.storage.release_version"] = namespace.release_version
    return attributes


@end("StorageTool.runFormatCommand")
def _format_command_refused(s: Scope) -> dict[str, Any]:
    return _refusal()


@start("Formatter.doFormat")
def _directories_before(s: Scope) -> dict[str, Any]:
    formatter = s["self"]
    directories = sorted(formatter.directories)
    formatted_before = [d for d in directories if _meta_properties(d) is not None]
    setattr(formatter, _FORMATTED_BEFORE, formatted_before)
    return {"kafka.cluster.id": formatter.cluster_id, "kafka.node.id": formatter.node_id,
            "kafka.storage.directories": directories,
            "kafka.storage.metadata_log_dir": formatter.metadata_log_directory or "",
            "kafka.metadata.version": str(s["bootstrap_metadata"].metadata_version()),
            "kafka.storage.ignore_formatted": formatter.ignore_formatted,
            "kafka.storage.formatted_before": formatted_before}


@end("Formatter.doFormat")
def _directory_ids(s: Scope) -> dict[str, Any]:
    formatter = s["self"]
    formatted_before = getattr(formatter, _FORMATTED_BEFORE, [])
    written = {}
    for directory in sorted(formatter.directories):
        props = _meta_properties(directory)
        if directory not in formatted_before and props is not None:
            written[directory] = props.get("directory.id", "")
    attributes: dict[str, Any] = {
        "kafka.storage.formatted": list(written),
        "kafka.storage.directory_ids": [f"{d}={directory_id}" for d, directory_id in written.items()]}
    if formatter.ignore_formatted and formatted_before:
        attributes["kafka.storage.skipped"] = formatted_before
    attributes.update(_refusal())
    return attributes
