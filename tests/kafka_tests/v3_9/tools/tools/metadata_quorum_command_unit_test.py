"""Port of tools/src/test/java/org/apache/kafka/tools/MetadataQuorumCommandUnitTest.java (Kafka 3.9).

Java's Properties are a dict here; RaftVoterEndpoint is a (name, host, port) tuple; captureStandardOut is the `out`
stream `main` writes to.
"""

from __future__ import annotations

import io
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from kafka_edu.v3_9.clients.common.uuid import Uuid
from kafka_edu.v3_9.metadata.metadata.properties.meta_properties import (
    EMPTY,
    MetaProperties,
    MetaPropertiesEnsemble,
    write_properties_file,
)
from kafka_edu.v3_9.tools.tools import metadata_quorum_command as MetadataQuorumCommand
from kafka_edu.v3_9.tools.tools.metadata_quorum_command import TerseException
from tests.kafka_tests.referee import kafka_test_class

KAFKA = kafka_test_class(
    "3.9", "tools/src/test/java/org/apache/kafka/tools/MetadataQuorumCommandUnitTest.java",
    cases=["testRemoveControllerDryRun", "testGetControllerIdWithoutId", "testGetControllerId",
           "testGetNegativeControllerId", "testGetControllerIdWithoutProcessRoles",
           "testGetControllerIdWithBrokerProcessRoles", "testGetMetadataDirectory",
           "testGetMetadataDirectoryFromLogDirs", "testGetMetadataDirectoryFromMultipleLogDirs",
           "testGetMetadataDirectoryFailure", "testGetMetadataDirectoryId", "testGetMetadataDirectoryIdWhenThereIsNoId",
           "testGetMetadataDirectoryIdWhenThereIsNoDirectory",
           "testGetControllerAdvertisedListenersWithNoControllerListenerNames",
           "testGetControllerAdvertisedListenersWithNoControllerListenerInformation",
           "testGetControllerAdvertisedListenersWithRegularListeners",
           "testGetControllerAdvertisedListenersWithRegularListenersAndAdvertisedListeners",
           "testAddControllerDryRun"],
)


def main_capturing_out(*args: str) -> tuple[int, list[str]]:
    out = io.StringIO()
    code = MetadataQuorumCommand.main(list(args), out)
    return code, out.getvalue().split("\n")


def test_remove_controller_dry_run() -> None:
    code, outputs = main_capturing_out("--bootstrap-server", "localhost:9092", "remove-controller",
                                       "--controller-id", "2", "--controller-directory-id", "_KWDkTahTVaiVVVTaugNew",
                                       "--dry-run")
    assert code == 0
    assert "DRY RUN of removing  KRaft controller 2 with directory id _KWDkTahTVaiVVVTaugNew" in outputs, outputs


def test_get_controller_id_without_id() -> None:
    props = {"process.roles": "controller"}
    with pytest.raises(TerseException) as e:
        MetadataQuorumCommand.get_controller_id(props)
    assert str(e.value) == "node.id not found in configuration file. Is this a valid controller configuration file?"


def test_get_controller_id() -> None:
    assert MetadataQuorumCommand.get_controller_id({"node.id": "4", "process.roles": "controller"}) == 4


def test_get_negative_controller_id() -> None:
    with pytest.raises(TerseException) as e:
        MetadataQuorumCommand.get_controller_id({"node.id": "-4", "process.roles": "controller"})
    assert str(e.value) == "node.id was negative in configuration file. Is this a valid controller configuration file?"


def test_get_controller_id_without_process_roles() -> None:
    with pytest.raises(TerseException) as e:
        MetadataQuorumCommand.get_controller_id({"node.id": "4"})
    assert str(e.value) == ("process.roles did not contain 'controller' in configuration file. Is this a valid "
                            "controller configuration file?")


def test_get_controller_id_with_broker_process_roles() -> None:
    with pytest.raises(TerseException) as e:
        MetadataQuorumCommand.get_controller_id({"node.id": "4", "process.roles": "broker"})
    assert str(e.value) == ("process.roles did not contain 'controller' in configuration file. Is this a valid "
                            "controller configuration file?")


def test_get_metadata_directory() -> None:
    props = {"metadata.log.dir": "/tmp/meta", "log.dirs": "/tmp/log,/tmp/log2"}
    assert MetadataQuorumCommand.get_metadata_directory(props) == "/tmp/meta"


def test_get_metadata_directory_from_log_dirs() -> None:
    assert MetadataQuorumCommand.get_metadata_directory({"log.dirs": "/tmp/log"}) == "/tmp/log"


def test_get_metadata_directory_from_multiple_log_dirs() -> None:
    assert MetadataQuorumCommand.get_metadata_directory({"log.dirs": "/tmp/log,/tmp/log2"}) == "/tmp/log"


def test_get_metadata_directory_failure() -> None:
    with pytest.raises(TerseException) as e:
        MetadataQuorumCommand.get_metadata_directory({})
    assert str(e.value) == ("Neither metadata.log.dir nor log.dirs were found. Is this a valid controller "
                            "configuration file?")


class MetadataQuorumCommandUnitTestEnv:
    """A metadata directory whose meta.properties has the given directory id (or none)."""

    def __init__(self, tmp_path: Path, directory_id: Uuid | None) -> None:
        self.metadata_dir = tmp_path / "metadata"
        self.metadata_dir.mkdir()
        copier = MetaPropertiesEnsemble.Copier(EMPTY)
        copier.set_meta_log_dir(str(self.metadata_dir))
        copier.set_log_dir_props(str(self.metadata_dir), MetaProperties.Builder().set_cluster_id(
            "Ig-WB32JRqqzct3VafTr0w").set_node_id(2).set_directory_id(directory_id).build())
        copier.write_log_dir_changes()

    def write_properties_file(self) -> Path:
        props = {"metadata.log.dir": str(self.metadata_dir), "log.dirs": str(self.metadata_dir),
                 "process.roles": "controller,broker", "node.id": "5",
                 "controller.listener.names": "CONTROLLER,CONTROLLER_SSL",
                 "listeners": "CONTROLLER://:9093,CONTROLLER_SSL://:9094",
                 "advertised.listeners": "CONTROLLER://example.com:9093,CONTROLLER_SSL://example.com:9094"}
        path = self.metadata_dir / "controller.properties"
        write_properties_file(props, str(path), False)
        return path

    def close(self) -> None:
        shutil.rmtree(self.metadata_dir, ignore_errors=True)


@pytest.fixture
def env_with_id(tmp_path: Path) -> Iterator[MetadataQuorumCommandUnitTestEnv]:
    env = MetadataQuorumCommandUnitTestEnv(tmp_path, Uuid.from_string("wZoXPqWoSu6F6c8MkmdyAg"))
    yield env
    env.close()


def test_get_metadata_directory_id(env_with_id: MetadataQuorumCommandUnitTestEnv) -> None:
    assert (MetadataQuorumCommand.get_metadata_directory_id(str(env_with_id.metadata_dir))
            == Uuid.from_string("wZoXPqWoSu6F6c8MkmdyAg"))


def test_get_metadata_directory_id_when_there_is_no_id(tmp_path: Path) -> None:
    env = MetadataQuorumCommandUnitTestEnv(tmp_path, None)
    with pytest.raises(TerseException) as e:
        MetadataQuorumCommand.get_metadata_directory_id(str(env.metadata_dir))
    assert str(e.value) == f"No directory id found in {env.metadata_dir}"


def test_get_metadata_directory_id_when_there_is_no_directory(tmp_path: Path) -> None:
    env = MetadataQuorumCommandUnitTestEnv(tmp_path, None)
    env.close()
    with pytest.raises(TerseException) as e:
        MetadataQuorumCommand.get_metadata_directory_id(str(env.metadata_dir))
    assert str(e.value) == f"Unable to read meta.properties from {env.metadata_dir}"


def test_get_controller_advertised_listeners_with_no_controller_listener_names() -> None:
    with pytest.raises(TerseException) as e:
        MetadataQuorumCommand.get_controller_advertised_listeners({})
    assert str(e.value) == "controller.listener.names was not found. Is this a valid controller configuration file?"


def test_get_controller_advertised_listeners_with_no_controller_listener_information() -> None:
    with pytest.raises(TerseException) as e:
        MetadataQuorumCommand.get_controller_advertised_listeners(
            {"controller.listener.names": "CONTROLLER,CONTROLLER2"})
    assert str(e.value) == "Cannot find information about controller listener name: CONTROLLER"


def test_get_controller_advertised_listeners_with_regular_listeners() -> None:
    props = {"controller.listener.names": "CONTROLLER,CONTROLLER2",
             "listeners": "CONTROLLER://example.com:9092,CONTROLLER2://:9093"}
    assert set(MetadataQuorumCommand.get_controller_advertised_listeners(props)) == {
        ("CONTROLLER", "example.com", 9092), ("CONTROLLER2", "localhost", 9093)}


def test_get_controller_advertised_listeners_with_regular_listeners_and_advertised_listeners() -> None:
    props = {"controller.listener.names": "CONTROLLER,CONTROLLER2",
             "listeners": "CONTROLLER://:9092,CONTROLLER2://:9093",
             "advertised.listeners": "CONTROLLER://example.com:9092,CONTROLLER2://example.com:9093"}
    assert set(MetadataQuorumCommand.get_controller_advertised_listeners(props)) == {
        ("CONTROLLER", "example.com", 9092), ("CONTROLLER2", "example.com", 9093)}


def test_add_controller_dry_run(env_with_id: MetadataQuorumCommandUnitTestEnv) -> None:
    props_file = env_with_id.write_properties_file()
    code, outputs = main_capturing_out("--bootstrap-server", "localhost:9092", "--command-config", str(props_file),
                                       "add-controller", "--dry-run")
    assert code == 0
    assert ("DRY RUN of adding controller 5 with directory id wZoXPqWoSu6F6c8MkmdyAg and endpoints: "
            "CONTROLLER://example.com:9093, CONTROLLER_SSL://example.com:9094") in outputs, outputs
