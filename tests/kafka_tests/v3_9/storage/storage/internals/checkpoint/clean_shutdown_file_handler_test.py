"""Port of storage/src/test/java/org/apache/kafka/storage/internals/checkpoint/CleanShutdownFileHandlerTest.java
(Kafka 3.9). Files.createTempDirectory becomes pytest's tmp_path; an OptionalLong is an int or None."""

from __future__ import annotations

import os
from pathlib import Path

from kafka_edu.v3_9.storage.storage.internals.checkpoint.clean_shutdown_file_handler import CleanShutdownFileHandler
from tests.kafka_tests.referee import kafka_test_class

KAFKA = kafka_test_class(
    "3.9", "storage/src/test/java/org/apache/kafka/storage/internals/checkpoint/CleanShutdownFileHandlerTest.java",
    cases=["testCleanShutdownFileBasic", "testCleanShutdownFileNonExist",
           "testCleanShutdownFileCanParseWithUnknownFields"],
)


def test_clean_shutdown_file_basic(tmp_path: Path) -> None:
    clean_shutdown_file_handler = CleanShutdownFileHandler(tmp_path)
    clean_shutdown_file_handler.write(10)
    assert clean_shutdown_file_handler.exists()
    assert clean_shutdown_file_handler.read() == 10
    clean_shutdown_file_handler.delete()
    assert not clean_shutdown_file_handler.exists()


def test_clean_shutdown_file_non_exist(tmp_path: Path) -> None:
    clean_shutdown_file_handler = CleanShutdownFileHandler(tmp_path)
    clean_shutdown_file_handler.write(10, 0)
    assert clean_shutdown_file_handler.exists()
    clean_shutdown_file_handler.delete()
    assert not clean_shutdown_file_handler.exists()
    assert clean_shutdown_file_handler.read() is None


def test_clean_shutdown_file_can_parse_with_unknown_fields(tmp_path: Path) -> None:
    clean_shutdown_file_handler = CleanShutdownFileHandler(tmp_path)

    with open(clean_shutdown_file_handler.clean_shutdown_file, "w", encoding="utf-8") as bw:
        bw.write('{"version":0,"brokerEpoch":10,"unknown":123}')
        bw.flush()
        os.fsync(bw.fileno())

    assert clean_shutdown_file_handler.exists()
    assert clean_shutdown_file_handler.read() == 10
    clean_shutdown_file_handler.delete()
    assert not clean_shutdown_file_handler.exists()
