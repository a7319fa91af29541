"""Port of metadata/src/main/java/org/apache/kafka/metadata/storage/Formatter.java (Kafka 3.9): formatting a node's
storage directories, for a static quorum or a KIP-853 dynamic one.

With initial controllers (a dynamic quorum) the metadata log directory of a controller that is one of them gets that
voter's directory id and a bootstrap snapshot, 00000000000000000000-0000000000.checkpoint in __cluster_metadata-0,
whose header batch holds the KRaftVersionRecord and the VotersRecord.

FormatterException has its own module (scram_parser.py raises it too) and is imported from here as before."""

from __future__ import annotations

import os
import sys
import time
from enum import Enum
from pathlib import Path
from typing import TextIO

from kafka_edu.tracing.step import note, span, step
from kafka_edu.v1_0_2.clients.common.errors import IllegalArgumentException
from kafka_edu.v3_9.clients.common.internals.topic import CLUSTER_METADATA_TOPIC_NAME
from kafka_edu.v3_9.clients.common.uuid import Uuid
from kafka_edu.v3_9.metadata.metadata.bootstrap.bootstrap_directory import BootstrapDirectory, BootstrapMetadata
from kafka_edu.v3_9.metadata.metadata.metadata_record_serde import MetadataRecordSerde
from kafka_edu.v3_9.metadata.metadata.properties.meta_properties import (
    MetaProperties,
    MetaPropertiesEnsemble,
    MetaPropertiesVersion,
)
from kafka_edu.v3_9.metadata.metadata.storage import scram_parser
from kafka_edu.v3_9.metadata.metadata.storage.formatter_exception import FormatterException
from kafka_edu.v3_9.raft.raft.dynamic_voters import DynamicVoters
from kafka_edu.v3_9.raft.snapshot.file_raw_snapshot_writer import FileRawSnapshotWriter
from kafka_edu.v3_9.raft.snapshot.records_snapshot_writer import RecordsSnapshotWriter
from kafka_edu.v3_9.raft.snapshot.snapshots import Snapshots
from kafka_edu.v3_9.server_common.server.common.features import PRODUCTION_FEATURES, Features
from kafka_edu.v3_9.server_common.server.common.k_raft_version import KRaftVersion
from kafka_edu.v3_9.server_common.server.common.metadata_version import FEATURE_NAME, MetadataVersion

KRAFT_VERSION_FEATURE_NAME = "kraft.version"
CLUSTER_METADATA_PARTITION = 0  # the one partition of __cluster_metadata

__all__ = ["DirectoryType", "Formatter", "FormatterException"]


class Formatter:
    """Formats storage directories: a meta.properties v1 in each (with a fresh directory.id) and the bootstrap
    metadata the first controller writes to an empty log."""

    def __init__(self) -> None:
        self.print_stream: TextIO = sys.stdout  # where progress lines go
        self.supported_features: list[Features] = PRODUCTION_FEATURES  # tests add test.feature.version
        self.node_id = -1
        self.cluster_id: str | None = None
        self.directories: set[str] = set()  # formatted in sorted order, as Kafka's TreeSet
        self.release_version: MetadataVersion | None = None
        self.feature_levels: dict[str, int] = {}  # feature name -> the level it starts at
        self.bootstrap_metadata: BootstrapMetadata | None = None
        self.unstable_feature_versions_enabled = False
        self.ignore_formatted = False
        self.scram_arguments: list[str] = []  # the --add-scram arguments
        self.controller_listener_name: str | None = None
        self.metadata_log_directory: str | None = None
        self.initial_controllers: DynamicVoters | None = None  # KIP-853: the voters the quorum starts with

    def set_print_stream(self, print_stream: TextIO) -> Formatter:
        self.print_stream = print_stream
        return self

    def set_supported_features(self, supported_features: list[Features]) -> Formatter:
        self.supported_features = list(supported_features)
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

    def set_scram_arguments(self, scram_arguments: list[str]) -> Formatter:
        self.scram_arguments = list(scram_arguments)
        return self

    def set_controller_listener_name(self, controller_listener_name: str) -> Formatter:
        self.controller_listener_name = controller_listener_name
        return self

    def set_metadata_log_directory(self, metadata_log_directory: str | None) -> Formatter:
        self.metadata_log_directory = metadata_log_directory
        return self

    def set_initial_controllers(self, initial_controllers: DynamicVoters) -> Formatter:
        self.initial_controllers = initial_controllers
        return self

    def initial_voters(self) -> DynamicVoters | None:
        return self.initial_controllers

    def has_dynamic_quorum(self) -> bool:
        """Initial controllers were given: the voters will live in the metadata log (kraft.version 1)."""
        return self.initial_controllers is not None

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
        if self.metadata_log_directory is None:
            raise FormatterException("You must specify the metadata log directory.")
        if self.metadata_log_directory not in self.directories:
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
        """Every supported feature's starting level: the ones asked for, else the default for the release; then
        each is checked against the levels of the others it depends on."""
        name_to_supported_feature = {feature.feature_name(): feature for feature in self.supported_features}
        new_feature_levels: dict[str, int] = {}
        for feature_name, level in self.feature_levels.items():
            if feature_name != FEATURE_NAME and feature_name not in name_to_supported_feature:
                raise FormatterException(f"Unsupported feature: {feature_name}. Supported features are: "
                                         f"{', '.join(sorted(name_to_supported_feature))}")
            new_feature_levels[feature_name] = level
        assert self.release_version is not None
        new_feature_levels[FEATURE_NAME] = self.release_version.feature_level()
        for supported_feature in self.supported_features:
            if supported_feature.feature_name() == KRAFT_VERSION_FEATURE_NAME:
                new_feature_levels[KRAFT_VERSION_FEATURE_NAME] = self._effective_kraft_feature_level(
                    new_feature_levels.get(KRAFT_VERSION_FEATURE_NAME))
            elif supported_feature.feature_name() not in new_feature_levels:
                new_feature_levels[supported_feature.feature_name()] = supported_feature.default_value(
                    self.release_version)
        new_feature_levels = dict(sorted(new_feature_levels.items()))  # Kafka's TreeMap
        # Dependencies may cross features, so this looks at the complete map.
        for feature_name, level in new_feature_levels.items():
            if feature_name != FEATURE_NAME:
                feature_version = name_to_supported_feature[feature_name].from_feature_level(
                    level, self.unstable_feature_versions_enabled)
                Features.validate_version(feature_version, new_feature_levels)
        return new_feature_levels

    def _effective_kraft_feature_level(self, configured: int | None) -> int:
        """kraft.version 0 (voters from controller.quorum.voters) unless initial controllers were given, then 1;
        a level given with --feature must agree with that. Existing format commands thus keep their meaning."""
        if configured is not None:
            if configured == 0:
                if self.has_dynamic_quorum():
                    raise FormatterException(f"Cannot set kraft.version to {configured} if KIP-853 configuration is "
                                             "present. Try removing the --feature flag for kraft.version.")
            elif not self.has_dynamic_quorum():
                raise FormatterException(f"Cannot set kraft.version to {configured} unless KIP-853 configuration is "
                                         "present. Try removing the --feature flag for kraft.version.")
            return configured
        if self.has_dynamic_quorum():
            return KRaftVersion.KRAFT_VERSION_1.feature_level()
        return KRaftVersion.KRAFT_VERSION_0.feature_level()

    def calculate_bootstrap_metadata(self) -> BootstrapMetadata:
        assert self.release_version is not None
        bootstrap_metadata = BootstrapMetadata.from_versions(self.release_version, self.feature_levels,
                                                             "format command")
        bootstrap_records = list(bootstrap_metadata.records())
        if self.scram_arguments:
            if not self.release_version.is_scram_supported():
                raise FormatterException(f"SCRAM is only supported in {FEATURE_NAME} {MetadataVersion.IBP_3_5_IV2} "
                                         "or later.")
            bootstrap_records.extend(scram_parser.parse(self.scram_arguments))
        return BootstrapMetadata.from_records(bootstrap_records, "format command")

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
                directory_type = DirectoryType.calculate(empty_log_dir, self.metadata_log_directory or "",
                                                         self.node_id, self.initial_controllers)
                directory_types[empty_log_dir] = directory_type
                if directory_type is DirectoryType.DYNAMIC_METADATA_VOTER_DIRECTORY:
                    # the voter set names this node's metadata log directory by its id: it must be that one
                    assert self.initial_controllers is not None
                    directory_id = self.initial_controllers.voters()[self.node_id].directory_id
                else:
                    directory_id = copier.generate_valid_directory_id()  # each directory its own id
                copier.set_log_dir_props(empty_log_dir, MetaProperties.Builder(meta_properties)
                                         .set_directory_id(directory_id).build())

            def pre_write(write_log_dir: str, _is_new: bool, _meta_properties: MetaProperties) -> None:
                print(f"Formatting {directory_types[write_log_dir].description()} {write_log_dir} with {FEATURE_NAME} "
                      f"{self.release_version}.", file=self.print_stream)
                os.makedirs(write_log_dir, exist_ok=True)
                BootstrapDirectory(write_log_dir, None).write_binary_file(bootstrap_metadata)
                if directory_types[write_log_dir].is_dynamic_metadata_directory():
                    assert self.initial_controllers is not None and self.controller_listener_name is not None
                    Formatter.write_dynamic_quorum_snapshot(write_log_dir, self.initial_controllers,
                                                            self.feature_levels[KRAFT_VERSION_FEATURE_NAME],
                                                            self.controller_listener_name)

            def write_error(error_log_dir: str, e: OSError) -> None:
                raise FormatterException(f"Error while writing meta.properties file {error_log_dir}: "
                                         f"{type(e).__name__}: {e}")

            copier.set_pre_write_handler(pre_write)
            copier.set_write_error_handler(write_error)
            copier.write_log_dir_changes()

    @staticmethod
    @step("KV.format")
    def write_dynamic_quorum_snapshot(write_log_dir: str, initial_controllers: DynamicVoters, kraft_version: int,
                                      controller_listener_name: str) -> None:
        """The bootstrap snapshot (end offset 0, epoch 0) of __cluster_metadata-0: no metadata records, only the
        header batch with the kraft.version and the initial voters (3.9's raft client starts from them)."""
        # imported here: the raft client is a large module, and formatting needs one constant of it
        from kafka_edu.v3_9.raft.raft.kafka_raft_client import MAX_BATCH_SIZE_BYTES

        cluster_metadata_directory = Path(write_log_dir) / f"{CLUSTER_METADATA_TOPIC_NAME}-{CLUSTER_METADATA_PARTITION}"
        voter_set = initial_controllers.to_voter_set(controller_listener_name)
        builder = (RecordsSnapshotWriter.Builder()
                   .set_last_contained_log_timestamp(time.time_ns() // 1_000_000)
                   .set_max_batch_size(MAX_BATCH_SIZE_BYTES)
                   .set_raw_snapshot_writer(FileRawSnapshotWriter.create(cluster_metadata_directory,
                                                                         Snapshots.BOOTSTRAP_SNAPSHOT_ID))
                   .set_kraft_version(KRaftVersion.from_feature_level(kraft_version))
                   .set_voter_set(voter_set))
        writer = builder.build(MetadataRecordSerde.INSTANCE)
        try:
            writer.freeze()
        finally:
            writer.close()


class DirectoryType(Enum):
    """What a directory being formatted is for; the dynamic kinds are the metadata log directory of a KIP-853
    quorum, on a node that is one of the initial voters or not."""

    LOG_DIRECTORY = "data directory"
    STATIC_METADATA_DIRECTORY = "metadata directory"
    DYNAMIC_METADATA_NON_VOTER_DIRECTORY = "dynamic metadata directory"
    DYNAMIC_METADATA_VOTER_DIRECTORY = "dynamic metadata voter directory"

    def description(self) -> str:
        return self.value

    def is_dynamic_metadata_directory(self) -> bool:
        return self in (DirectoryType.DYNAMIC_METADATA_NON_VOTER_DIRECTORY,
                        DirectoryType.DYNAMIC_METADATA_VOTER_DIRECTORY)

    @staticmethod
    def calculate(log_dir: str, metadata_log_directory: str, node_id: int,
                  initial_controllers: DynamicVoters | None) -> DirectoryType:
        if log_dir != metadata_log_directory:
            return DirectoryType.LOG_DIRECTORY
        if initial_controllers is None:
            return DirectoryType.STATIC_METADATA_DIRECTORY
        if node_id in initial_controllers.voters():
            return DirectoryType.DYNAMIC_METADATA_VOTER_DIRECTORY
        return DirectoryType.DYNAMIC_METADATA_NON_VOTER_DIRECTORY
