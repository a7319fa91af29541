"""Port of metadata/src/test/java/org/apache/kafka/metadata/storage/FormatterTest.java (Kafka 3.9).

TestEnv and FormatterContext are Kafka's two helpers: temporary directories removed on close, and a Formatter whose
output goes to a buffer.
"""

from __future__ import annotations

import io
import logging
import os
import shutil
import stat
import tempfile

import pytest

from kafka_edu.v1_0_2.clients.common.errors import IllegalArgumentException
from kafka_edu.v1_0_2.clients.common.security.scram.scram_formatter import ScramFormatter
from kafka_edu.v1_0_2.clients.common.security.scram.scram_mechanism import ScramMechanism
from kafka_edu.v3_9.clients.common.uuid import Uuid
from kafka_edu.v3_9.metadata.common.metadata.feature_level_record import FeatureLevelRecord
from kafka_edu.v3_9.metadata.common.metadata.user_scram_credential_record import UserScramCredentialRecord
from kafka_edu.v3_9.metadata.metadata.bootstrap.bootstrap_directory import BootstrapDirectory
from kafka_edu.v3_9.metadata.metadata.properties.meta_properties import META_PROPERTIES_NAME, MetaPropertiesEnsemble
from kafka_edu.v3_9.metadata.metadata.storage.formatter import Formatter, FormatterException
from kafka_edu.v3_9.raft.raft.dynamic_voters import DynamicVoters
from kafka_edu.v3_9.server_common.server.common.api_message_and_version import ApiMessageAndVersion
from kafka_edu.v3_9.server_common.server.common.features import TEST_FEATURE_VERSION_FEATURE_NAME, Features
from kafka_edu.v3_9.server_common.server.common.metadata_version import FEATURE_NAME, MetadataVersion
from tests.kafka_tests.referee import kafka_test_class
from tests.kafka_tests.v3_9.metadata.metadata.storage.scram_parser_test import TEST_SALT, TEST_SALTED_PASSWORD

KAFKA = kafka_test_class(
    "3.9", "metadata/src/test/java/org/apache/kafka/metadata/storage/FormatterTest.java",
    cases=[
        "testDirectories",
        "testFormatterFailsOnAlreadyFormatted",
        "testFormatterFailsOnUnwritableDirectory",
        "testIgnoreFormatted",
        "testOneDirectoryFormattedAndOthersNotFormatted",
        "testOneDirectoryFormattedAndOthersNotFormattedWithIgnoreFormatted",
        "testFormatWithOlderReleaseVersion",
        "testFormatWithUnstableReleaseVersionFailsWithoutEnableUnstable",
        "testFormatWithUnstableReleaseVersion",
        "testFormattingCreatesLogDirId",
        "testFormatWithScramFailsOnUnsupportedReleaseVersions",
        "testFormatWithScram",
        "testFeatureFlag",
        "testInvalidFeatureFlag",
        "testFormatWithInitialVoters",
        "testFormatWithInitialVotersFailsWithOlderKraftVersion",
        "testFormatWithoutInitialVotersFailsWithNewerKraftVersion",
        "testFormatWithInitialVotersFailsWithOlderMetadataVersion",
    ],
)

log = logging.getLogger(__name__)

DEFAULT_NODE_ID = 1
DEFAULT_CLUSTER_ID = Uuid.from_string("b3dGE68sQQKzfk80C_aLZw")


class FormatterContext:
    def __init__(self, formatter: Formatter) -> None:
        self.formatter = formatter
        self.stream = io.StringIO()
        self.formatter.set_print_stream(self.stream)
        self.formatter.set_controller_listener_name("CONTROLLER")

    def output(self) -> str:
        return self.stream.getvalue()

    def output_lines(self) -> list[str]:
        return self.stream.getvalue().strip().splitlines()


class TestEnv:
    __test__ = False

    def __init__(self, num_dirs: int) -> None:
        self.directories = [tempfile.mkdtemp(prefix="formatter-test-") for _ in range(num_dirs)]

    def new_formatter(self) -> FormatterContext:
        formatter = Formatter().set_node_id(DEFAULT_NODE_ID).set_cluster_id(str(DEFAULT_CLUSTER_ID))
        for d in self.directories:
            formatter.add_directory(d)
        formatter.set_metadata_log_directory(self.directories[0])
        return FormatterContext(formatter)

    def directory(self, i: int) -> str:
        return self.directories[i]

    def delete_directory(self, i: int) -> None:
        os.chmod(self.directories[i], stat.S_IRWXU)  # one test leaves it read-only
        shutil.rmtree(self.directories[i])

    def __enter__(self) -> TestEnv:
        return self

    def __exit__(self, *_: object) -> None:
        for i in range(len(self.directories)):
            try:
                self.delete_directory(i)
            except Exception:
                log.exception("Error deleting directory %s", self.directories[i])


def load_ensemble(directories: list[str]) -> MetaPropertiesEnsemble:
    return MetaPropertiesEnsemble.Loader().add_log_dirs(directories).load()


@pytest.mark.parametrize("num_dirs", [1, 2, 3])
def test_directories(num_dirs: int) -> None:
    with TestEnv(num_dirs) as test_env:
        test_env.new_formatter().formatter.run()
        ensemble = load_ensemble(test_env.directories)
        assert ensemble.node_id() == DEFAULT_NODE_ID
        assert ensemble.cluster_id() == str(DEFAULT_CLUSTER_ID)
        assert set(ensemble.log_dir_props()) == set(test_env.directories)
        bootstrap_metadata = BootstrapDirectory(test_env.directory(0), None).read()
        assert bootstrap_metadata.metadata_version() == MetadataVersion.latest_production()


def test_formatter_fails_on_already_formatted() -> None:
    with TestEnv(1) as test_env:
        test_env.new_formatter().formatter.run()
        with pytest.raises(FormatterException) as e:
            test_env.new_formatter().formatter.run()
        assert str(e.value) == (f"Log directory {test_env.directory(0)} is already formatted. Use --ignore-formatted "
                                "to ignore this directory and format the others.")


def test_formatter_fails_on_unwritable_directory() -> None:
    with TestEnv(1) as test_env:
        os.chmod(test_env.directory(0), stat.S_IRUSR | stat.S_IXUSR | stat.S_IRGRP | stat.S_IXGRP)  # setReadOnly
        if os.geteuid() == 0:
            # root writes through a read-only mode: a directory where meta.properties' temporary file goes makes
            # the write fail all the same
            os.chmod(test_env.directory(0), stat.S_IRWXU)
            os.mkdir(os.path.join(test_env.directory(0), META_PROPERTIES_NAME + ".tmp"))
        formatter1 = test_env.new_formatter()
        expected_prefix = "Error while writing meta.properties file"
        with pytest.raises(FormatterException) as e:
            formatter1.formatter.run()
        assert str(e.value)[:len(expected_prefix)] == expected_prefix


def test_ignore_formatted() -> None:
    with TestEnv(1) as test_env:
        formatter1 = test_env.new_formatter()
        formatter1.formatter.run()
        assert formatter1.output().strip() == (f"Formatting metadata directory {test_env.directory(0)} with "
                                               f"metadata.version {MetadataVersion.latest_production()}.")
        formatter2 = test_env.new_formatter()
        formatter2.formatter.set_ignore_formatted(True)
        formatter2.formatter.run()
        assert formatter2.output().strip() == "All of the log directories are already formatted."


def test_one_directory_formatted_and_others_not_formatted() -> None:
    with TestEnv(2) as test_env:
        test_env.new_formatter().formatter.set_directories([test_env.directory(0)]).run()
        with pytest.raises(FormatterException) as e:
            test_env.new_formatter().formatter.run()
        assert str(e.value) == (f"Log directory {test_env.directory(0)} is already formatted. Use --ignore-formatted "
                                "to ignore this directory and format the others.")


def test_one_directory_formatted_and_others_not_formatted_with_ignore_formatted() -> None:
    with TestEnv(2) as test_env:
        test_env.new_formatter().formatter.set_directories([test_env.directory(0)]).run()
        formatter2 = test_env.new_formatter()
        formatter2.formatter.set_ignore_formatted(True)
        formatter2.formatter.run()
        assert formatter2.output().strip() == (f"Formatting data directory {test_env.directory(1)} with "
                                               f"metadata.version {MetadataVersion.latest_production()}.")


def test_format_with_older_release_version() -> None:
    with TestEnv(1) as test_env:
        formatter1 = test_env.new_formatter()
        formatter1.formatter.set_release_version(MetadataVersion.IBP_3_5_IV0)
        formatter1.formatter.run()
        assert formatter1.output().strip() == (f"Formatting metadata directory {test_env.directory(0)} with "
                                               f"metadata.version {MetadataVersion.IBP_3_5_IV0}.")
        bootstrap_metadata = BootstrapDirectory(test_env.directory(0), None).read()
        assert bootstrap_metadata.metadata_version() == MetadataVersion.IBP_3_5_IV0
        assert len(bootstrap_metadata.records()) == 1


def test_format_with_unstable_release_version_fails_without_enable_unstable() -> None:
    with TestEnv(1) as test_env:
        formatter1 = test_env.new_formatter()
        formatter1.formatter.set_release_version(MetadataVersion.latest_testing())
        with pytest.raises(FormatterException) as e:
            formatter1.formatter.run()
        assert str(e.value) == f"metadata.version {MetadataVersion.latest_testing()} is not yet stable."


def test_format_with_unstable_release_version() -> None:
    with TestEnv(1) as test_env:
        formatter1 = test_env.new_formatter()
        formatter1.formatter.set_release_version(MetadataVersion.latest_testing())
        formatter1.formatter.set_unstable_feature_versions_enabled(True)
        formatter1.formatter.run()
        assert formatter1.output().strip() == (f"Formatting metadata directory {test_env.directory(0)} with "
                                               f"metadata.version {MetadataVersion.latest_testing()}.")
        bootstrap_metadata = BootstrapDirectory(test_env.directory(0), None).read()
        assert bootstrap_metadata.metadata_version() == MetadataVersion.latest_testing()


def test_formatting_creates_log_dir_id() -> None:
    with TestEnv(1) as test_env:
        test_env.new_formatter().formatter.run()
        log_dir_props = load_ensemble(test_env.directories).log_dir_props().get(test_env.directory(0))
        assert log_dir_props is not None
        assert log_dir_props.directory_id is not None


SCRAM_ARGUMENTS = [
    'SCRAM-SHA-256=[name=alice,salt="MWx2NHBkbnc0ZndxN25vdGN4bTB5eTFrN3E=",'
    'saltedpassword="mT0yyUUxnlJaC99HXgRTSYlbuqa4FSGtJCJfTMvjYCE="]',
    'SCRAM-SHA-512=[name=alice,salt="MWx2NHBkbnc0ZndxN25vdGN4bTB5eTFrN3E=",'
    'saltedpassword="mT0yyUUxnlJaC99HXgRTSYlbuqa4FSGtJCJfTMvjYCE="]',
]


def test_format_with_scram_fails_on_unsupported_release_versions() -> None:
    with TestEnv(1) as test_env:
        formatter1 = test_env.new_formatter()
        formatter1.formatter.set_release_version(MetadataVersion.IBP_3_4_IV0)
        formatter1.formatter.set_scram_arguments(SCRAM_ARGUMENTS)
        with pytest.raises(FormatterException) as e:
            formatter1.formatter.run()
        assert str(e.value) == "SCRAM is only supported in metadata.version 3.5-IV2 or later."


def test_format_with_scram() -> None:
    with TestEnv(1) as test_env:
        formatter1 = test_env.new_formatter()
        formatter1.formatter.set_release_version(MetadataVersion.IBP_3_8_IV0)
        formatter1.formatter.set_scram_arguments(SCRAM_ARGUMENTS)
        formatter1.formatter.run()
        assert formatter1.output().strip() == (f"Formatting metadata directory {test_env.directory(0)} with "
                                               f"metadata.version {MetadataVersion.IBP_3_8_IV0}.")
        bootstrap_metadata = BootstrapDirectory(test_env.directory(0), None).read()
        assert bootstrap_metadata.metadata_version() == MetadataVersion.IBP_3_8_IV0
        scram_records = [r for r in bootstrap_metadata.records() if isinstance(r.message, UserScramCredentialRecord)]
        scram256 = ScramFormatter(ScramMechanism.SCRAM_SHA_256)
        scram512 = ScramFormatter(ScramMechanism.SCRAM_SHA_512)
        assert scram_records == [
            ApiMessageAndVersion(UserScramCredentialRecord(
                name="alice", mechanism=1, salt=TEST_SALT,  # ScramMechanism.SCRAM_SHA_256.type()
                stored_key=scram256.stored_key(scram256.client_key(TEST_SALTED_PASSWORD)),
                server_key=scram256.server_key(TEST_SALTED_PASSWORD), iterations=4096), 0),
            ApiMessageAndVersion(UserScramCredentialRecord(
                name="alice", mechanism=2, salt=TEST_SALT,
                stored_key=scram512.stored_key(scram512.client_key(TEST_SALTED_PASSWORD)),
                server_key=scram512.server_key(TEST_SALTED_PASSWORD), iterations=4096), 0),
        ]


@pytest.mark.parametrize("version", [0, 1])
def test_feature_flag(version: int) -> None:
    with TestEnv(1) as test_env:
        formatter1 = test_env.new_formatter()
        formatter1.formatter.set_supported_features(list(Features))
        formatter1.formatter.set_feature_level(TEST_FEATURE_VERSION_FEATURE_NAME, version)
        formatter1.formatter.run()
        bootstrap_metadata = BootstrapDirectory(test_env.directory(0), None).read()
        expected = [ApiMessageAndVersion(FeatureLevelRecord(
            name=FEATURE_NAME, feature_level=MetadataVersion.latest_production().feature_level()), 0)]
        if version > 0:
            expected.append(ApiMessageAndVersion(FeatureLevelRecord(
                name=TEST_FEATURE_VERSION_FEATURE_NAME, feature_level=version), 0))
        assert bootstrap_metadata.records() == expected


def test_invalid_feature_flag() -> None:
    with TestEnv(2) as test_env:
        formatter1 = test_env.new_formatter()
        formatter1.formatter.set_supported_features(list(Features))
        formatter1.formatter.set_feature_level("nonexistent.feature", 1)
        with pytest.raises(FormatterException) as e:
            formatter1.formatter.run()
        assert str(e.value) == ("Unsupported feature: nonexistent.feature. Supported features are: kraft.version, "
                                "test.feature.version, transaction.version")


@pytest.mark.parametrize("specify_kraft_version", [False, True])
def test_format_with_initial_voters(specify_kraft_version: bool) -> None:
    with TestEnv(2) as test_env:
        formatter1 = test_env.new_formatter()
        if specify_kraft_version:
            formatter1.formatter.set_feature_level("kraft.version", 1)
        formatter1.formatter.set_unstable_feature_versions_enabled(True)
        formatter1.formatter.set_initial_controllers(DynamicVoters.parse("1@localhost:8020:4znU-ou9Taa06bmEJxsjnw"))
        formatter1.formatter.run()
        assert sorted(formatter1.output_lines()) == [
            f"Formatting data directory {test_env.directory(1)} with {FEATURE_NAME} "
            f"{MetadataVersion.latest_testing()}.",
            f"Formatting dynamic metadata voter directory {test_env.directory(0)} with {FEATURE_NAME} "
            f"{MetadataVersion.latest_testing()}.",
        ]
        ensemble = load_ensemble(test_env.directories)
        log_dir_props0 = ensemble.log_dir_props().get(test_env.directory(0))
        assert log_dir_props0 is not None
        assert log_dir_props0.directory_id == Uuid.from_string("4znU-ou9Taa06bmEJxsjnw")
        log_dir_props1 = ensemble.log_dir_props().get(test_env.directory(1))
        assert log_dir_props1 is not None
        assert log_dir_props1.directory_id != Uuid.from_string("4znU-ou9Taa06bmEJxsjnw")


def test_format_with_initial_voters_fails_with_older_kraft_version() -> None:
    with TestEnv(2) as test_env:
        formatter1 = test_env.new_formatter()
        formatter1.formatter.set_feature_level("kraft.version", 0)
        formatter1.formatter.set_unstable_feature_versions_enabled(True)
        formatter1.formatter.set_initial_controllers(DynamicVoters.parse("1@localhost:8020:4znU-ou9Taa06bmEJxsjnw"))
        assert formatter1.formatter.has_dynamic_quorum()
        with pytest.raises(FormatterException) as e:
            formatter1.formatter.run()
        assert str(e.value) == ("Cannot set kraft.version to 0 if KIP-853 configuration is present. Try removing the "
                                "--feature flag for kraft.version.")


def test_format_without_initial_voters_fails_with_newer_kraft_version() -> None:
    with TestEnv(2) as test_env:
        formatter1 = test_env.new_formatter()
        formatter1.formatter.set_feature_level("kraft.version", 1)
        formatter1.formatter.set_unstable_feature_versions_enabled(True)
        assert not formatter1.formatter.has_dynamic_quorum()
        with pytest.raises(FormatterException) as e:
            formatter1.formatter.run()
        assert str(e.value) == ("Cannot set kraft.version to 1 unless KIP-853 configuration is present. Try removing "
                                "the --feature flag for kraft.version.")


def test_format_with_initial_voters_fails_with_older_metadata_version() -> None:
    with TestEnv(2) as test_env:
        formatter1 = test_env.new_formatter()
        formatter1.formatter.set_release_version(MetadataVersion.IBP_3_8_IV0)
        formatter1.formatter.set_feature_level("kraft.version", 1)
        formatter1.formatter.set_initial_controllers(DynamicVoters.parse("1@localhost:8020:4znU-ou9Taa06bmEJxsjnw"))
        formatter1.formatter.set_unstable_feature_versions_enabled(True)
        with pytest.raises(IllegalArgumentException) as e:
            formatter1.formatter.run()
        assert str(e.value) == "kraft.version could not be set to 1 because it depends on metadata.version level 21"
