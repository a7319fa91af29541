"""Our own test code, not a Kafka port: every ported Kafka test class accounts for every one of its cases."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

from tests.kafka_tests.referee import VERSIONS, KafkaTestClass, snake

HERE = Path(__file__).resolve().parent
MODULES = sorted(p for p in HERE.rglob("*_test.py"))


def _module(path: Path):
    return importlib.import_module(".".join(path.relative_to(HERE.parents[1]).with_suffix("").parts))


def test_there_are_ported_kafka_test_classes():
    assert MODULES


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(HERE)))
def test_every_kafka_case_is_ported_or_not_applicable_with_a_reason(path: Path):
    module = _module(path)
    kafka: KafkaTestClass = module.KAFKA
    assert path.relative_to(HERE).parts[0] == VERSIONS[kafka.version], "the folder names the Kafka version"
    assert path.stem == snake(kafka.name), "the module is named after Kafka's test class"
    functions = {name for name in dir(module) if name.startswith("test_") and callable(getattr(module, name))}
    left_out = {**kafka.not_applicable, **kafka.not_ported}
    missing = [case for case in kafka.cases if snake(case) not in functions and case not in left_out]
    assert not missing, f"{kafka.name}: neither ported nor listed as left out: {missing}"
    both = [case for case in left_out if snake(case) in functions]
    assert not both, f"{kafka.name}: ported and listed as left out: {both}"
    assert not set(kafka.not_applicable) & set(kafka.not_ported)
    assert all(reason.strip() for reason in left_out.values()), "every case left out says why"
