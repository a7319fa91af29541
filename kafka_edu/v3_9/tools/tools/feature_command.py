"""Port of tools/src/main/java/org/apache/kafka/tools/FeatureCommand.java (Kafka 3.9): `kafka-features
--bootstrap-server B describe | upgrade [--metadata 3.9-IV0] [--feature f=level]... [--dry-run] | downgrade ...
[--unsafe] | disable --feature f...`.

`describe` reads a broker's ApiVersions (supported and finalized feature levels); the others send UpdateFeatures,
which the broker forwards to the active controller. 3.9 goes through its Admin client; `Admin` below sends the same
requests with the port's BlockingChannel. Left out: `--bootstrap-controller` and `--command-config`.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any, TextIO

from kafka_edu.v1_0_2.core.network.blocking_channel import BlockingChannel
from kafka_edu.v3_9.clients.common.protocol.api_keys import ApiKeys
from kafka_edu.v3_9.clients.common.protocol.builder import build
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from kafka_edu.v3_9.metadata.controller.feature_control_manager import UpgradeType
from kafka_edu.v3_9.server_common.server.common.metadata_version import (
    _ORDER,
    _VERSIONS,
    FEATURE_NAME,
    MINIMUM_BOOTSTRAP_VERSION,
    MetadataVersion,
)

TIMEOUT_MS = 30000


class TerseException(Exception):
    """An error whose message is all the user needs (no stack trace)."""


def main(args: list[str], out: TextIO | None = None, err: TextIO | None = None) -> int:
    """mainNoExit: 0, or 1 with the message on stderr."""
    out = out or sys.stdout
    err = err or sys.stderr
    try:
        execute(args, out)
        return 0
    except SystemExit as e:  # --help, or argparse's own usage error
        return int(e.code or 0)
    except Exception as e:
        print(str(e), file=err)
        return 1


def execute(args: list[str], out: TextIO) -> None:
    parser = argparse.ArgumentParser(
        prog="kafka-edu features",
        description="The cluster's feature levels (metadata.version, kraft.version, ...): what each node supports and "
                    "what is finalized, and UpdateFeatures to change them (Kafka 3.9's kafka-features.sh).")
    parser.add_argument("--bootstrap-server", required=True, help="the brokers to ask, host:port[,host:port...]")
    subparsers = parser.add_subparsers(dest="command", required=True)
    subparsers.add_parser("describe", help="each feature's supported range and finalized level")
    upgrade = subparsers.add_parser("upgrade", help="raise feature levels")
    upgrade.add_argument("--metadata", help="the metadata.version to go to, by name (e.g. 3.9-IV0)")
    upgrade.add_argument("--feature", action="append", help="feature=level, e.g. metadata.version=21 (repeatable)")
    upgrade.add_argument("--dry-run", action="store_true", help="let the controller check it, change nothing")
    downgrade = subparsers.add_parser("downgrade", help="lower feature levels")
    downgrade.add_argument("--metadata", help="the metadata.version to go to, by name (e.g. 3.3-IV0)")
    downgrade.add_argument("--feature", action="append", help="feature=level (repeatable)")
    downgrade.add_argument("--unsafe", action="store_true",
                           help="also where the lower level cannot hold all the metadata (some is lost)")
    downgrade.add_argument("--dry-run", action="store_true", help="let the controller check it, change nothing")
    disable = subparsers.add_parser("disable", help="set features to level 0")
    disable.add_argument("--feature", action="append", help="a feature's name (repeatable)")
    disable.add_argument("--unsafe", action="store_true",
                         help="also where level 0 cannot hold all the metadata (some is lost)")
    disable.add_argument("--dry-run", action="store_true", help="let the controller check it, change nothing")
    namespace = parser.parse_args(args)
    admin_client = Admin(namespace.bootstrap_server)
    if namespace.command == "describe":
        handle_describe(admin_client, out)
    elif namespace.command == "upgrade":
        handle_upgrade(namespace, admin_client, out)
    elif namespace.command == "downgrade":
        handle_downgrade(namespace, admin_client, out)
    elif namespace.command == "disable":
        handle_disable(namespace, admin_client, out)
    else:
        raise TerseException(f"Unknown command {namespace.command}")


def level_to_string(feature: str, level: int) -> str:
    if feature == FEATURE_NAME:
        try:
            return MetadataVersion.from_feature_level(level).version()
        except Exception:
            return f"UNKNOWN {level}"
    return str(level)


def handle_describe(admin_client: Admin, out: TextIO) -> None:
    supported, finalized, epoch = admin_client.describe_features()
    for feature in sorted(supported):
        min_version, max_version = supported[feature]
        finalized_level = finalized.get(feature, 0)
        print(f"Feature: {feature}\tSupportedMinVersion: {level_to_string(feature, min_version)}\t"
              f"SupportedMaxVersion: {level_to_string(feature, max_version)}\t"
              f"FinalizedVersionLevel: {level_to_string(feature, finalized_level)}\t"
              f"Epoch: {epoch if epoch is not None else '-'}", file=out)


def metadata_versions_to_string(first: MetadataVersion, last: MetadataVersion) -> str:
    return ", ".join(str(v) for v in _VERSIONS[_ORDER[first]:_ORDER[last] + 1])


def handle_upgrade(namespace: argparse.Namespace, admin_client: Admin, out: TextIO) -> None:
    _handle_upgrade_or_downgrade("upgrade", namespace, admin_client, UpgradeType.UPGRADE, out)


def downgrade_type(namespace: argparse.Namespace) -> UpgradeType:
    return UpgradeType.UNSAFE_DOWNGRADE if namespace.unsafe else UpgradeType.SAFE_DOWNGRADE


def handle_downgrade(namespace: argparse.Namespace, admin_client: Admin, out: TextIO) -> None:
    _handle_upgrade_or_downgrade("downgrade", namespace, admin_client, downgrade_type(namespace), out)


def parse_name_and_level(input_: str) -> tuple[str, int]:
    if "=" not in input_:
        raise RuntimeError(f"Can't parse feature=level string {input_}: equals sign not found.")
    name, _, level_string = input_.partition("=")
    name, level_string = name.strip(), level_string.strip()
    try:
        level = int(level_string)
        if not -(2**15) <= level < 2**15:
            raise ValueError(level_string)
    except ValueError:
        raise RuntimeError(f"Can't parse feature=level string {input_}: unable to parse {level_string} as a "
                           "short.") from None
    return name, level


def _handle_upgrade_or_downgrade(op: str, namespace: argparse.Namespace, admin: Admin, upgrade_type: UpgradeType,
                                 out: TextIO) -> None:
    updates: dict[str, tuple[int, UpgradeType]] = {}
    if namespace.metadata is not None:
        try:
            version = MetadataVersion.from_version_string(namespace.metadata)
        except Exception:
            supported = metadata_versions_to_string(MINIMUM_BOOTSTRAP_VERSION, MetadataVersion.latest_production())
            raise TerseException(f"Unsupported metadata.version {namespace.metadata}. Supported metadata.version "
                                 f"are {supported}") from None
        updates[FEATURE_NAME] = (version.feature_level(), upgrade_type)
    for feature in namespace.feature or ():
        name, level = parse_name_and_level(feature)
        if name in updates:
            raise RuntimeError(f"Feature {name} was specified more than once.")
        updates[name] = (level, upgrade_type)
    update(op, admin, updates, namespace.dry_run, out)


def handle_disable(namespace: argparse.Namespace, admin_client: Admin, out: TextIO) -> None:
    upgrade_type = downgrade_type(namespace)
    updates: dict[str, tuple[int, UpgradeType]] = {}
    for feature in namespace.feature or ():
        if feature in updates:
            raise RuntimeError(f"Feature {feature} was specified more than once.")
        updates[feature] = (0, upgrade_type)
    update("disable", admin_client, updates, namespace.dry_run, out)


def update(op: str, admin: Admin, updates: dict[str, tuple[int, UpgradeType]], dry_run: bool, out: TextIO) -> None:
    if not updates:
        raise TerseException(f"You must specify at least one feature to {op}")
    errors = admin.update_features(updates, dry_run)
    num_failures = 0
    for feature in sorted(errors):  # a TreeMap
        level = updates[feature][0]
        error = errors[feature]
        if error is not None:
            helper = "Can not " if dry_run else "Could not "
            suffix = f"disable {feature}" if op == "disable" else f"{op} {feature} to {level}"
            print(f"{helper}{suffix}. {error}", file=out)
            num_failures += 1
        else:
            verb = " can be " if dry_run else " was "
            obj = "disabled." if op == "disable" else f"{op}d to {level}."
            print(f"{feature}{verb}{obj}", file=out)
    if num_failures > 0:
        raise TerseException(f"{num_failures} out of {len(updates)} operation(s) failed.")


class Admin:
    """What the tool asks of 3.9's Admin client, sent to the first bootstrap server that answers."""

    def __init__(self, bootstrap_servers: str) -> None:
        self.addresses = [(host, int(port)) for host, _, port in
                          (a.strip().rpartition(":") for a in bootstrap_servers.split(",") if a.strip())]
        if not self.addresses:
            raise TerseException(f"Invalid --bootstrap-server {bootstrap_servers!r}")

    def _send(self, api: ApiKeys, version: int, **body: Any) -> Any:
        errors = []
        for host, port in self.addresses:
            channel = BlockingChannel(host, port, TIMEOUT_MS / 1000, "kafka-features")
            try:
                return channel.send_and_receive(api, version, build(api.request_schema(version), **body))
            except OSError as e:
                errors.append(f"{host}:{port}: {e}")
            finally:
                channel.disconnect()
        raise TerseException("No broker answered: " + "; ".join(errors))

    def describe_features(self) -> tuple[dict[str, tuple[int, int]], dict[str, int], int | None]:
        """describeFeatures: (supported ranges, finalized levels, finalized epoch or None), from ApiVersions."""
        response = self._send(ApiKeys.API_VERSIONS, 3, client_software_name="kafka-features",
                              client_software_version="3.9.0")
        if response.error_code != Errors.NONE:
            raise TerseException(Errors(response.error_code).name)
        supported = {f.name: (f.min_version, f.max_version) for f in response.supported_features}
        finalized = {f.name: f.max_version_level for f in response.finalized_features}
        epoch = response.finalized_features_epoch
        return supported, finalized, (epoch if epoch is not None and epoch >= 0 else None)

    def update_features(self, updates: dict[str, tuple[int, UpgradeType]], validate_only: bool
                        ) -> dict[str, str | None]:
        """updateFeatures: each feature's error message, or None where it succeeded."""
        response = self._send(ApiKeys.UPDATE_FEATURES, 1, timeout=TIMEOUT_MS, validate_only=validate_only,
                              feature_updates=[dict(feature=name, max_version_level=level, upgrade_type=int(kind))
                                               for name, (level, kind) in updates.items()])
        if response.error_code != Errors.NONE:
            return {name: response.error_message or Errors(response.error_code).name for name in updates}
        results = {r.feature: (None if r.error_code == Errors.NONE
                               else r.error_message or Errors(r.error_code).name) for r in response.results}
        return {name: results.get(name, "The controller response did not contain a result for this feature.")
                for name in updates}
