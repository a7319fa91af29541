"""Describers for KRaft storage spans (Kafka 3.9; see kafka_edu/tracing/attributes.py).

KR.storage is `kafka-storage format`: StorageTool.runFormatCommand (the cluster id and node id it was given) and
Formatter.doFormat (which directories it found formatted, the directory.id it gave each one it formatted, and what
it refused). doFormat hands its span the MetaPropertiesEnsemble it loaded (the directories as they were) and the
Copier it writes the new meta.properties with, once it has them. The row has two spans, so the describers go by span
name.
"""

from __future__ import annotations

import sys
from typing import Any

from kafka_edu.tracing.attributes import Scope, end, start


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
def _format(s: Scope) -> dict[str, Any]:
    formatter = s["self"]
    return {"kafka.cluster.id": formatter.cluster_id, "kafka.node.id": formatter.node_id,
            "kafka.storage.directories": sorted(formatter.directories),
            "kafka.storage.metadata_log_dir": formatter.metadata_log_directory or "",
            "kafka.metadata.version": str(s["bootstrap_metadata"].metadata_version()),
            "kafka.storage.ignore_formatted": formatter.ignore_formatted}


@end("Formatter.doFormat")
def _directory_ids(s: Scope) -> dict[str, Any]:
    formatter, ensemble, copier = s["self"], s.get("ensemble"), s.get("copier")
    attributes: dict[str, Any] = {}
    if ensemble is not None:  # not refused before the directories were read
        formatted_before = sorted(ensemble.log_dir_props())
        # what the copier holds for a directory that had no meta.properties: written, unless the write was refused
        written = {directory: props.directory_id for directory, props in sorted(copier.log_dir_props().items())
                   if directory not in ensemble.log_dir_props()}
        attributes.update({
            "kafka.storage.formatted_before": formatted_before,
            "kafka.storage.formatted": list(written),
            "kafka.storage.directory_ids": [f"{d}={directory_id}" for d, directory_id in written.items()]})
        if formatter.ignore_formatted and formatted_before:
            attributes["kafka.storage.skipped"] = formatted_before
    attributes.update(_refusal())
    return attributes
