"""Port of core/src/test/scala/unit/kafka/server/AbstractFetcherThreadWithIbp26Test.scala (Kafka 3.9).

Kafka's class inherits every case of AbstractFetcherThreadTest with `truncateOnFetch = false`, Fetch v11 and no topic
ids: here the same functions run with this module's `cfg` fixture.
"""

from __future__ import annotations

import pytest

from kafka_edu.v3_9.core.server.abstract_fetcher_manager import FailedPartitions
from tests.kafka_tests.referee import kafka_test_class, snake
from tests.kafka_tests.v3_9.core.server import abstract_fetcher_thread_test as base
from tests.kafka_tests.v3_9.core.server.abstract_fetcher_thread_test import Config

KAFKA = kafka_test_class(
    "3.9", "core/src/test/scala/unit/kafka/server/AbstractFetcherThreadWithIbp26Test.scala",
    cases=list(base.KAFKA.cases),
    not_applicable={
        **base.KAFKA.not_applicable,
        "testTruncationOnFetchSkippedIfPartitionRemoved": "assumeTrue(truncateOnFetch): Kafka skips it in this class",
        "testTruncateOnFetchDoesNotProcessPartitionData": "assumeTrue(truncateOnFetch): Kafka skips it in this class",
    },
)


@pytest.fixture
def cfg() -> Config:
    return Config(truncate_on_fetch=False, version=11, topic_ids={})


@pytest.fixture
def failed_partitions() -> FailedPartitions:
    return FailedPartitions()


for _case in KAFKA.cases:
    if _case not in KAFKA.not_applicable:
        globals()[snake(_case)] = getattr(base, snake(_case))
