"""Our own test code, not a Kafka port: how a module of Kafka's own tests, ported, says what it covers.

Each module under tests/kafka_tests/ ports one Kafka test class, sits at the path of the Kafka version and test
file it ports (`tests/kafka_tests/v1_0_2/core/log/log_segment_test.py` is Kafka 1.0.2's
core/src/test/scala/unit/kafka/log/LogSegmentTest.scala) and declares the class:

    KAFKA = kafka_test_class(
        "1.0.2", "core/src/test/scala/unit/kafka/log/LogSegmentTest.scala",
        cases=["testReadOnEmptySegment", "testReadBeforeFirstOffset", ...],   # every test method, in Kafka's order
        not_applicable={"testMetricsRegistered": "JMX: the port has no metrics registry"},
    )

    def test_read_on_empty_segment(): ...        # Kafka's test name in snake_case, Kafka's assertions

A case is ported (a test function of its snake_case name), not applicable (with the reason), or applicable but
not ported yet (`not_ported`, with what it needs; it counts against the pass share), never silently dropped:
`tests/kafka_tests/test_referee.py` fails otherwise. A ported case where the port keeps a deliberate difference
from Kafka carries `@differs("why")`: it runs, is expected to fail, and fails the suite the day it passes.
`tests/kafka_tests/conftest.py` counts every class's cases at the end of the run (the table CI prints, and
docs/kafka-tests.md's figures).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

import pytest

F = TypeVar("F", bound=Callable[..., Any])
VERSIONS = {"1.0.2": "v1_0_2", "3.9": "v3_9"}


@dataclass(frozen=True)
class KafkaTestClass:
    version: str
    path: str  # in Kafka's repository at that version
    cases: tuple[str, ...]
    not_applicable: dict[str, str] = field(default_factory=dict)
    not_ported: dict[str, str] = field(default_factory=dict)  # applicable, not ported yet: counted against the port

    @property
    def name(self) -> str:
        return self.path.rsplit("/", 1)[-1].split(".")[0]


def kafka_test_class(version: str, path: str, *, cases: list[str],
                     not_applicable: dict[str, str] | None = None,
                     not_ported: dict[str, str] | None = None) -> KafkaTestClass:
    if version not in VERSIONS:
        raise ValueError(f"version {version!r}: one of {sorted(VERSIONS)}")
    if len(set(cases)) != len(cases):
        raise ValueError(f"{path}: a case is listed twice")
    unknown = (set(not_applicable or {}) | set(not_ported or {})) - set(cases)
    if unknown:
        raise ValueError(f"{path}: names cases Kafka's class has not got: {sorted(unknown)}")
    return KafkaTestClass(version, path, tuple(cases), dict(not_applicable or {}), dict(not_ported or {}))


def snake(case: str) -> str:
    """`testHandleVoteRequestAsFollower` -> `test_handle_vote_request_as_follower`; a case not named test...
    (JUnit 4's `shouldAssignEpoch`) gets the prefix pytest collects: `test_should_assign_epoch`. Class names
    (`LogSegmentTest` -> `log_segment_test`) start upper-case and get none. A plural acronym is one word:
    `testAclManagementAPIs` -> `test_acl_management_apis`."""
    case_ = re.sub(r"([A-Z]{2,})s(?=[A-Z0-9_]|$)", lambda m: m.group(1).capitalize() + "s", case)
    words = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1_\2", case_)).lower()
    return words if not case[:1].islower() or words.startswith("test") else f"test_{words}"


def differs(reason: str) -> Callable[[F], F]:
    """A ported case the port does not meet on purpose: documented here, expected to fail, strict."""
    return pytest.mark.xfail(reason=f"deliberate difference: {reason}", strict=True)
