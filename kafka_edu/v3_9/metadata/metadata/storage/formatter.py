"""Port of metadata/src/main/java/org/apache/kafka/metadata/storage/Formatter.java and FormatterException.java
(Kafka 3.9): formatting a node's storage directories, static quorum only."""

from __future__ import annotations

import os
import sys
from enum import Enum
from typing import TextIO

from kafka_edu.tracing.step import note, span
from kafka_edu.v1_0_2.clients.common.errors import IllegalArgumentException
from kafka_edu.v3_9.clients.common.uuid import Uuid
from kafka_edu.v3_9.metadata.metadata.bootstrap.bootstrap_directory import BootstrapDirectory, BootstrapMetadata
from kafka_edu.v3_9.metadata.metadata.properties.meta_properties import (
    MetaProperties,
    MetaPropertiesEnsemble,
    MetaPropertiesVersion,
)
from kafka_edu.v3_9.server_common.server.common.metadata_version import FEATURE_NAME, MetadataVersion

KRAFT_VERSION_FEATURE_NAME = "kraft.version"
TRANSACTION_VERSION_FEATURE_NAME = "transaction.version"


class FormatterException(RuntimeError):
    """A formatting request that cannot be carried out; the storage tool prints its message alone and exits 1."""


class Formatter:
    """Formats storage directories: a meta.properties v1 in each (with a fresh directory.id) and the bootstrap
    metadata the first controller writes to an empty log."""

    def __init__(self) -> None:
        self.print_stream: TextIO = sys.stdout  # where progress lines go
        # The features a production cluster of 3.9 knows, with the level each starts at on 3.9-IV0.
        self.supported_features: dict[str, int] = {KRAFT_VERSION_FEATURE_NAME: 0, TRANSACTION_VERSION_FEATURE_NAME: 0}
        self.node_id = -1
        self.cluster_id: str | None = None
        self.directories: set[str] = set()  # formatted in sorted order, as Kafka's TreeSet
        self.release_version: MetadataVersion | None = None
        self.feature_levels: dict[str, int] = {}  # feature name -> the level it starts at
        self.bootstrap_metadata: BootstrapMetadata | None = None
        self.unstable_feature_versions_enabled = False
        self.ignore_formatted = False
        self.controller_listener_name: str | None = None
        self.metadata_log_directory: str | None = None

    def set_print_stream(self, print_stream: TextIO) -> Formatter:
        self.print_stream = print_stream
        return self

    def set_node_id(self, node_id: int) -> Formatter:
        self.node_id = node_id
        return self

    def set_cluster_id(self, cluster_id: str) -> Formatter:
        self.cluster_id = cluster_id
        return self

    def set_directories(self, directories: list[str]) -> Formatter:
        self.directories = set(directories)
        return self

    def add_directory(self, directory: str) -> Formatter:
        self.directories.add(directory)
        return self

    def set_release_version(self, release_version: MetadataVersion) -> Formatter:
        self.release_version = release_version
        return self

    def set_feature_level(self, feature_name: str, level: int) -> Formatter:
        self.feature_levels[feature_name] = level
        return self

    def set_unstable_feature_versions_enabled(self, enabled: bool) -> Formatter:
        self.unstable_feature_versions_enabled = enabled
        return self

    def set_ignore_formatted(self, ignore_formatted: bool) -> Formatter:
        self.ignore_formatted = ignore_formatted
        return self

    def set_controller_listener_name(self, controller_listener_name: str) -> Formatter:
        self.controller_listener_name = controller_listener_name
        return self

    def set_metadata_log_directory(self, metadata_log_directory: str | None) -> Formatter:
        self.metadata_log_directory = metadata_log_directory
        return self

    def run(self) -> None:
        if self.node_id < 0:
            raise RuntimeError("You must specify a valid non-negative node ID.")
        if self.cluster_id is None:
            raise FormatterException("You must specify the cluster id.")
        try:
            # kafka-edu: 3.9's Formatter writes any string; 3.8's StorageTool refused one that is not a Uuid (a
            # node would fail later on it), and so do we, with 3.8's words.
            Uuid.from_string(self.cluster_id)
        except IllegalArgumentException as e:
            raise FormatterException(f"Cluster ID string {self.cluster_id} does not appear to be a valid UUID: "
                                     f"{e}") from e
        if not self.directories:
            raise FormatterException("You must specify at least one directory to format")
        if self.controller_listener_name is None:
            raise FormatterException("You must specify the name of the initial controller listener.")
        if self.metadata_log_directory is not None and self.metadata_log_directory not in self.directories:
            raise FormatterException(f"The specified metadata log directory, {self.metadata_log_directory} was not "
                                     f"one of the given directories: [{', '.join(sorted(self.directories))}]")
        self.release_version = self.calculate_effective_release_version()
        self.feature_levels = self.calculate_effective_feature_levels()
        self.bootstrap_metadata = self.calculate_bootstrap_metadata()
        self.do_format(self.bootstrap_metadata)

    def calculate_effective_release_version(self) -> MetadataVersion:
        """--release-version, else the latest production version (the latest testing one if unstable is on)."""
        if FEATURE_NAME in self.feature_levels:
            if self.release_version is not None:
                raise FormatterException(f"Use --release-version instead of --feature {FEATURE_NAME}=X to avoid "
                                         "ambiguity.")
            return self.verify_release_version(MetadataVersion.from_feature_level(self.feature_levels[FEATURE_NAME]))
        if self.release_version is not None:
            return self.verify_release_version(self.release_version)
        if self.unstable_feature_versions_enabled:
            return MetadataVersion.latest_testing()
        return MetadataVersion.latest_production()

    def verify_release_version(self, metadata_version: MetadataVersion) -> MetadataVersion:
        if not metadata_version.is_kraft_supported():
            raise FormatterException(f"{FEATURE_NAME} {metadata_version} is too old to be supported.")
        if not self.unstable_feature_versions_enabled and not metadata_version.is_production():
            raise FormatterException(f"{FEATURE_NAME} {metadata_version} is not yet stable.")
        return metadata_version

    def calculate_effective_feature_levels(self) -> dict[str, int]:
        """Every supported feature's starting level: the ones asked for, else the default for the release."""
        new_feature_levels: dict[str, int] = {}
        for feature_name, level in self.feature_levels.items():
            if feature_name != FEATURE_NAME and feature_name not in self.supported_features:
                raise FormatterException(f"Unsupported feature: {feature_name}. Supported features are: "
                                         f"{', '.join(sorted(self.supported_features))}")
            new_feature_levels[feature_name] = level
        assert self.release_version is not None
        new_feature_levels[FEATURE_NAME] = self.release_version.feature_level()
        for feature_name, default_level in self.supported_features.items():
            if feature_name == KRAFT_VERSION_FEATURE_NAME:
                new_feature_levels[feature_name] = self._effective_kraft_feature_level(
                    new_feature_levels.get(feature_name))
            elif feature_name not in new_feature_levels:
                new_feature_levels[feature_name] = default_level
        return dict(sorted(new_feature_levels.items()))

    def _effective_kraft_feature_level(self, configured: int | None) -> int:
        """kraft.version 0: the voters are static, from controller.quorum.voters (KIP-853's dynamic quorums, which
        need 1, are not ported)."""
        if configured is not None and configured != 0:
            raise FormatterException(f"Cannot set kraft.version to {configured} unless KIP-853 configuration is "
                                     "present. Try removing the --feature flag for kraft.version.")
        return 0

    def calculate_bootstrap_metadata(self) -> BootstrapMetadata:
        assert self.release_version is not None
        bootstrap_metadata = BootstrapMetadata.from_versions(self.release_version, self.feature_levels,
                                                             "format command")
        return BootstrapMetadata.from_records(list(bootstrap_metadata.records()), "format command")

    def do_format(self, bootstrap_metadata: BootstrapMetadata) -> None:
        with span("Formatter.doFormat", self, bootstrap_metadata=bootstrap_metadata):
            assert self.cluster_id is not None
            meta_properties = (MetaProperties.Builder().set_version(MetaPropertiesVersion.V1)
                               .set_cluster_id(self.cluster_id).set_node_id(self.node_id).build())
            loader = MetaPropertiesEnsemble.Loader()
            loader.add_log_dirs(self.directories)
            ensemble = loader.load()
            ensemble.verify(self.cluster_id, self.node_id, ())
            copier = MetaPropertiesEnsemble.Copier(ensemble)
            note(ensemble=ensemble, copier=copier)
            # A directory that already has meta.properties is refused, unless told to skip it.
            if not (self.ignore_formatted or not copier.log_dir_props()):
                first_log_dir = sorted(copier.log_dir_props())[0]
                raise FormatterException(f"Log directory {first_log_dir} is already formatted. Use --ignore-formatted "
                                         "to ignore this directory and format the others.")
            if copier.error_log_dirs():
                for error_log_dir in sorted(copier.error_log_dirs()):
                    print(f"I/O error trying to read log directory {error_log_dir}. Ignoring...",
                          file=self.print_stream)
                if not ensemble.empty_log_dirs() and not copier.log_dir_props():
                    raise FormatterException("No available log directories to format.")
            if not ensemble.empty_log_dirs():
                print("All of the log directories are already formatted.", file=self.print_stream)
                return
            directory_types: dict[str, DirectoryType] = {}
            for empty_log_dir in ensemble.empty_log_dirs():
                directory_type = DirectoryType.calculate(empty_log_dir, self.metadata_log_directory or "")
                directory_types[empty_log_dir] = directory_type
                directory_id = copier.generate_valid_directory_id()  # each directory its own id
                copier.set_log_dir_props(empty_log_dir, MetaProperties.Builder(meta_properties)
                                         .set_directory_id(directory_id).build())

            def pre_write(write_log_dir: str, _is_new: bool, _meta_properties: MetaProperties) -> None:
                print(f"Formatting {directory_types[write_log_dir].description()} {write_log_dir} with {FEATURE_NAME} "
                      f"{self.release_version}.", file=self.print_stream)
                os.makedirs(write_log_dir, exist_ok=True)
                BootstrapDirectory(write_log_dir, None).write_binary_file(bootstrap_metadata)

            def write_error(error_log_dir: str, e: OSError) -> None:
                raise FormatterException(f"Error while writing meta.properties file {error_log_dir}: "
                                         f"{type(e).__name__}: {e}")

            copier.set_pre_write_handler(pre_write)
            copier.set_write_error_handler(write_error)
            copier.write_log_dir_changes()


class DirectoryType(Enum):
    """What a directory being formatted is for (the dynamic-quorum kinds of 3.9 are left out)."""

    LOG_DIRECTORY = "data directory"
    STATIC_METADATA_DIRECTORY = "metadata directory"

    def description(self) -> str:
        return self.value

    @staticmethod
    def calculate(log_dir: str, metadata_log_directory: str) -> DirectoryType:
        if log_dir != metadata_log_directory:
            return DirectoryType.LOG_DIRECTORY
        return DirectoryType.STATIC_METADATA_DIRECTORY
