"""Port of core/src/test/scala/unit/kafka/server/FetchSessionTest.scala (Kafka 3.9).

Kafka's requests are built with FetchRequest.Builder and handed to FetchManager.newContext as KafkaApis does; its
`new FetchResponseData.PartitionData().setX(..)` chains read `partition_data(x=..)`, Optional.empty() reads None,
Uuid.randomUuid() a random uuid.UUID (the port's topic ids are kio's uuid.UUID) and Uuid.ZERO_UUID ZERO_UUID.
Kafka's @AfterEach resets FetchSessionCache.counter (and removes the metrics, which the port has not got).
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator, Mapping

import pytest

from kafka_edu.v3_9.clients.common.compress.compression import Compression
from kafka_edu.v3_9.clients.common.protocol.api_keys import ApiKeys
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from kafka_edu.v3_9.clients.common.record.memory_records import MemoryRecords
from kafka_edu.v3_9.clients.common.record.simple_record import SimpleRecord
from kafka_edu.v3_9.clients.common.requests.fetch_metadata import FINAL_EPOCH, INVALID_SESSION_ID, FetchMetadata
from kafka_edu.v3_9.clients.common.requests.fetch_request import (
    CONSUMER_REPLICA_ID,
    ZERO_UUID,
    FetchRequest,
    PartitionData,
)
from kafka_edu.v3_9.clients.common.requests.fetch_response import EpochEndOffset, FetchResponse, partition_data
from kafka_edu.v3_9.clients.common.requests.fetch_response import PartitionData as RespPartitionData
from kafka_edu.v3_9.clients.common.topic_id_partition import TopicIdPartition
from kafka_edu.v3_9.clients.common.topic_partition import TopicPartition
from kafka_edu.v3_9.clients.common.utils.mock_time import MockTime
from kafka_edu.v3_9.core.server.fetch_session import (
    CachedPartition,
    CacheMap,
    FetchContext,
    FetchManager,
    FetchSessionCache,
    FetchSessionCacheShard,
    FullFetchContext,
    IncrementalFetchContext,
    SessionErrorContext,
    SessionlessFetchContext,
)
from tests.kafka_tests.referee import kafka_test_class

KAFKA = kafka_test_class(
    "3.9", "core/src/test/scala/unit/kafka/server/FetchSessionTest.scala",
    cases=[
        "testNewSessionId",
        "testSessionCache",
        "testResizeCachedSessions",
        "testCachedLeaderEpoch",
        "testLastFetchedEpoch",
        "testFetchRequests",
        "testIncrementalFetchSession",
        "testFetchSessionWithUnknownIdOldRequestVersion",
        "testFetchSessionWithUnknownId",
        "testIncrementalFetchSessionWithIdsWhenSessionDoesNotUseIds",
        "testIncrementalFetchSessionWithoutIdsWhenSessionUsesIds",
        "testFetchSessionUpdateTopicIdsBrokerSide",
        "testResolveUnknownPartitions",
        "testToForgetPartitions",
        "testUpdateAndGenerateResponseData",
        "testFetchSessionExpiration",
        "testPrivilegedSessionHandling",
        "testZeroSizeFetchSession",
        "testDivergingEpoch",
        "testDeprioritizesPartitionsWithRecordsOnly",
        "testCachedPartitionEqualsAndHashCode",
        "testMaybeResolveUnknownName",
        "testFetchSessionCache_getShardedCache_retrievesCacheFromCorrectSegment",
        "testFetchSessionCache_RoundRobinsIntoShards",
        "testFetchSessionCache_RoundRobinsIntoShards_WhenIntegerOverflows",
    ],
)

INT_MAX = 2**31 - 1
LATEST = ApiKeys.FETCH.latest_version
EMPTY_PART_LIST: list[TopicIdPartition] = []


@pytest.fixture(autouse=True)
def _after_each() -> Iterator[None]:
    yield
    FetchSessionCache.counter.set(0)


def random_uuid() -> uuid.UUID:
    return uuid.uuid4()


def test_new_session_id():
    cache_shard = FetchSessionCacheShard(3, 100)
    for _ in range(10001):
        assert cache_shard.new_session_id() > 0


def assert_cache_contains(cache_shard: FetchSessionCacheShard, *session_ids: int) -> None:
    for i, session_id in enumerate(session_ids, start=1):
        assert cache_shard.get(session_id) is not None, f"Missing session {i} out of {len(session_ids)} ({session_id})"
    assert cache_shard.size() == len(session_ids)


def dummy_create(size: int) -> CacheMap:
    cache_map = CacheMap(size)
    for i in range(size):
        cache_map.add(CachedPartition("test", random_uuid(), i))
    return cache_map


def create_session(cache_shard: FetchSessionCacheShard, now: int, privileged: bool, size: int) -> int:
    """cacheShard.maybeCreateSession(now, privileged, size, usesTopicIds = true, () => dummyCreate(size))."""
    return cache_shard.maybe_create_session(now, privileged, size, True, lambda: dummy_create(size))


def test_session_cache():
    cache_shard = FetchSessionCacheShard(3, 100)
    assert cache_shard.size() == 0
    id1 = create_session(cache_shard, 0, privileged=False, size=10)
    id2 = create_session(cache_shard, 10, privileged=False, size=20)
    id3 = create_session(cache_shard, 20, privileged=False, size=30)
    assert create_session(cache_shard, 30, privileged=False, size=40) == INVALID_SESSION_ID
    assert create_session(cache_shard, 40, privileged=False, size=5) == INVALID_SESSION_ID
    assert_cache_contains(cache_shard, id1, id2, id3)
    cache_shard.touch(cache_shard.get(id1), 200)
    id4 = create_session(cache_shard, 210, privileged=False, size=11)
    assert_cache_contains(cache_shard, id1, id3, id4)
    cache_shard.touch(cache_shard.get(id1), 400)
    cache_shard.touch(cache_shard.get(id3), 390)
    cache_shard.touch(cache_shard.get(id4), 400)
    id5 = create_session(cache_shard, 410, privileged=False, size=50)
    assert_cache_contains(cache_shard, id3, id4, id5)
    assert create_session(cache_shard, 410, privileged=False, size=5) == INVALID_SESSION_ID
    id6 = create_session(cache_shard, 410, privileged=True, size=5)
    assert_cache_contains(cache_shard, id3, id5, id6)


def test_resize_cached_sessions():
    cache_shard = FetchSessionCacheShard(2, 100)
    assert cache_shard.total_partitions() == 0
    assert cache_shard.size() == 0
    assert cache_shard.evictions_meter.count() == 0
    id1 = create_session(cache_shard, 0, privileged=False, size=2)
    assert id1 > 0
    assert_cache_contains(cache_shard, id1)
    session1 = cache_shard.get(id1)
    assert session1.size() == 2
    assert cache_shard.total_partitions() == 2
    assert cache_shard.size() == 1
    assert cache_shard.evictions_meter.count() == 0
    id2 = create_session(cache_shard, 0, privileged=False, size=4)
    session2 = cache_shard.get(id2)
    assert id2 > 0
    assert_cache_contains(cache_shard, id1, id2)
    assert cache_shard.total_partitions() == 6
    assert cache_shard.size() == 2
    assert cache_shard.evictions_meter.count() == 0
    cache_shard.touch(session1, 200)
    cache_shard.touch(session2, 200)
    id3 = create_session(cache_shard, 200, privileged=False, size=5)
    assert id3 > 0
    assert_cache_contains(cache_shard, id2, id3)
    assert cache_shard.total_partitions() == 9
    assert cache_shard.size() == 2
    assert cache_shard.evictions_meter.count() == 1
    cache_shard.remove(id3)
    assert_cache_contains(cache_shard, id2)
    assert cache_shard.size() == 1
    assert cache_shard.evictions_meter.count() == 1
    assert cache_shard.total_partitions() == 4
    # Kafka: iter.next(); iter.remove()
    session2.partition_map.remove(next(iter(session2.partition_map)))
    assert session2.size() == 3
    assert session2.cached_size == 4
    cache_shard.touch(session2, session2.last_used_ms)
    assert cache_shard.total_partitions() == 3


def create_request(metadata: FetchMetadata, fetch_data: Mapping[TopicPartition, PartitionData],
                   to_forget: list[TopicIdPartition], is_from_follower: bool, version: int = LATEST) -> FetchRequest:
    return FetchRequest.Builder(version, version, 1 if is_from_follower else CONSUMER_REPLICA_ID,
                                1 if is_from_follower else -1, 0, 0, fetch_data) \
        .metadata(metadata).removed(to_forget).build()


def create_request_without_topic_ids(metadata: FetchMetadata, fetch_data: Mapping[TopicPartition, PartitionData],
                                     to_forget: list[TopicIdPartition], is_from_follower: bool) -> FetchRequest:
    return FetchRequest.Builder(12, 12, 1 if is_from_follower else CONSUMER_REPLICA_ID,
                                1 if is_from_follower else -1, 0, 0, fetch_data) \
        .metadata(metadata).removed(to_forget).build()


def new_context_of(fetch_manager: FetchManager, request: FetchRequest,
                   topic_names: Mapping[uuid.UUID, str]) -> FetchContext:
    """fetchManager.newContext(request.version, request.metadata, request.isFromFollower,
    request.fetchData(topicNames), request.forgottenTopics(topicNames), topicNames), as each Kafka case spells out."""
    return fetch_manager.new_context(request.version, request.metadata(), request.is_from_follower(),
                                     request.fetch_data(topic_names), request.forgotten_topics(topic_names),
                                     topic_names)


def swap(mapping: Mapping) -> dict:
    return {v: k for k, v in mapping.items()}


def cached_leader_epochs(context: FetchContext) -> dict[TopicIdPartition, int | None]:
    epochs: dict[TopicIdPartition, int | None] = {}
    context.foreach_partition(lambda tp, data: epochs.__setitem__(tp, data.current_leader_epoch))
    return epochs


def cached_last_fetched_epochs(context: FetchContext) -> dict[TopicIdPartition, int | None]:
    epochs: dict[TopicIdPartition, int | None] = {}
    context.foreach_partition(lambda tp, data: epochs.__setitem__(tp, data.last_fetched_epoch))
    return epochs


def response_of(partition: int, high_watermark: int) -> RespPartitionData:
    """A partition's data with high watermark, last stable offset and log start offset all `high_watermark`."""
    return partition_data(partition_index=partition, high_watermark=high_watermark,
                          last_stable_offset=high_watermark, log_start_offset=high_watermark)


def test_cached_leader_epoch():
    time = MockTime()
    cache_shard = FetchSessionCacheShard(10, 1000)
    fetch_manager = FetchManager(time, cache_shard)

    topic_ids = {"foo": random_uuid(), "bar": random_uuid()}
    tp0 = TopicIdPartition(topic_ids["foo"], TopicPartition("foo", 0))
    tp1 = TopicIdPartition(topic_ids["foo"], TopicPartition("foo", 1))
    tp2 = TopicIdPartition(topic_ids["bar"], TopicPartition("bar", 1))
    topic_names = swap(topic_ids)

    request_data1 = {
        tp0.topic_partition: PartitionData(tp0.topic_id, 0, 0, 100, None),
        tp1.topic_partition: PartitionData(tp1.topic_id, 10, 0, 100, 1),
        tp2.topic_partition: PartitionData(tp2.topic_id, 10, 0, 100, 2),
    }
    request1 = create_request(FetchMetadata.INITIAL, request_data1, EMPTY_PART_LIST, is_from_follower=False)
    context1 = new_context_of(fetch_manager, request1, topic_names)
    epochs1 = cached_leader_epochs(context1)
    assert epochs1[tp0] is None
    assert epochs1[tp1] == 1
    assert epochs1[tp2] == 2

    response = {
        tp0: response_of(tp0.partition, 100),
        tp1: response_of(tp1.partition, 10),
        tp2: response_of(tp2.partition, 5),
    }
    session_id = context1.update_and_generate_response_data(response).session_id()

    # no changes: the cached epochs stay
    request2 = create_request(FetchMetadata(session_id, 1), {}, EMPTY_PART_LIST, is_from_follower=False)
    context2 = new_context_of(fetch_manager, request2, topic_names)
    epochs2 = cached_leader_epochs(context2)
    assert epochs1[tp0] is None
    assert epochs2[tp1] == 1
    assert epochs2[tp2] == 2
    context2.update_and_generate_response_data(response).session_id()

    # a changed leader epoch updates the context
    request_data3 = {
        tp0.topic_partition: PartitionData(tp0.topic_id, 0, 0, 100, 6),
        tp1.topic_partition: PartitionData(tp1.topic_id, 10, 0, 100, None),
        tp2.topic_partition: PartitionData(tp2.topic_id, 10, 0, 100, 3),
    }
    request3 = create_request(FetchMetadata(session_id, 2), request_data3, EMPTY_PART_LIST, is_from_follower=False)
    context3 = new_context_of(fetch_manager, request3, topic_names)
    epochs3 = cached_leader_epochs(context3)
    assert epochs3[tp0] == 6
    assert epochs3[tp1] is None
    assert epochs3[tp2] == 3


def test_last_fetched_epoch():
    time = MockTime()
    cache_shard = FetchSessionCacheShard(10, 1000)
    fetch_manager = FetchManager(time, cache_shard)

    topic_ids = {"foo": random_uuid(), "bar": random_uuid()}
    topic_names = swap(topic_ids)
    tp0 = TopicIdPartition(topic_ids["foo"], TopicPartition("foo", 0))
    tp1 = TopicIdPartition(topic_ids["foo"], TopicPartition("foo", 1))
    tp2 = TopicIdPartition(topic_ids["bar"], TopicPartition("bar", 1))

    request_data1 = {
        tp0.topic_partition: PartitionData(tp0.topic_id, 0, 0, 100, None, None),
        tp1.topic_partition: PartitionData(tp1.topic_id, 10, 0, 100, 1, None),
        tp2.topic_partition: PartitionData(tp2.topic_id, 10, 0, 100, 2, 1),
    }
    request1 = create_request(FetchMetadata.INITIAL, request_data1, EMPTY_PART_LIST, is_from_follower=False)
    context1 = new_context_of(fetch_manager, request1, topic_names)
    assert cached_leader_epochs(context1) == {tp0: None, tp1: 1, tp2: 2}
    assert cached_last_fetched_epochs(context1) == {tp0: None, tp1: None, tp2: 1}

    response = {
        tp0: response_of(tp0.partition, 100),
        tp1: response_of(tp1.partition, 10),
        tp2: response_of(tp2.partition, 5),
    }
    session_id = context1.update_and_generate_response_data(response).session_id()

    # no changes: the cached epochs stay
    request2 = create_request(FetchMetadata(session_id, 1), {}, EMPTY_PART_LIST, is_from_follower=False)
    context2 = new_context_of(fetch_manager, request2, topic_names)
    assert cached_leader_epochs(context2) == {tp0: None, tp1: 1, tp2: 2}
    assert cached_last_fetched_epochs(context2) == {tp0: None, tp1: None, tp2: 1}
    context2.update_and_generate_response_data(response).session_id()

    # changed epochs update the context
    request_data3 = {
        tp0.topic_partition: PartitionData(tp0.topic_id, 0, 0, 100, 6, 5),
        tp1.topic_partition: PartitionData(tp1.topic_id, 10, 0, 100, None, None),
        tp2.topic_partition: PartitionData(tp2.topic_id, 10, 0, 100, 3, 3),
    }
    request3 = create_request(FetchMetadata(session_id, 2), request_data3, EMPTY_PART_LIST, is_from_follower=False)
    context3 = new_context_of(fetch_manager, request3, topic_names)
    assert cached_leader_epochs(context3) == {tp0: 6, tp1: None, tp2: 3}
    # Kafka reads context2 here: it shares the session, so it sees the same partitions
    assert cached_last_fetched_epochs(context2) == {tp0: 5, tp1: None, tp2: 3}


def test_fetch_requests():
    time = MockTime()
    cache_shard = FetchSessionCacheShard(10, 1000)
    fetch_manager = FetchManager(time, cache_shard)
    topic_names = {random_uuid(): "foo", random_uuid(): "bar"}
    topic_ids = swap(topic_names)
    tp0 = TopicIdPartition(topic_ids["foo"], TopicPartition("foo", 0))
    tp1 = TopicIdPartition(topic_ids["foo"], TopicPartition("foo", 1))
    tp2 = TopicIdPartition(topic_ids["bar"], TopicPartition("bar", 0))
    tp3 = TopicIdPartition(topic_ids["bar"], TopicPartition("bar", 1))

    # SESSIONLESS requests get a SessionlessFetchContext
    request = create_request(FetchMetadata.LEGACY, {}, EMPTY_PART_LIST, is_from_follower=True)
    context = new_context_of(fetch_manager, request, topic_names)
    assert type(context) is SessionlessFetchContext

    # a FULL fetch request creates a new session
    req_data2 = {
        tp0.topic_partition: PartitionData(tp0.topic_id, 0, 0, 100, None),
        tp1.topic_partition: PartitionData(tp1.topic_id, 10, 0, 100, None),
    }
    request2 = create_request(FetchMetadata.INITIAL, req_data2, EMPTY_PART_LIST, is_from_follower=False)
    context2 = new_context_of(fetch_manager, request2, topic_names)
    assert type(context2) is FullFetchContext
    req_data2_iter = iter(req_data2.items())

    def check2(topic_id_part: TopicIdPartition, data: PartitionData) -> None:
        key, value = next(req_data2_iter)
        assert topic_id_part.topic_partition == key
        assert topic_id_part.topic_id == topic_ids[key.topic]
        assert data == value

    context2.foreach_partition(check2)
    assert context2.get_fetch_offset(tp0) == 0
    assert context2.get_fetch_offset(tp1) == 10
    resp_data2 = {tp0: response_of(0, 100), tp1: response_of(1, 10)}
    resp2 = context2.update_and_generate_response_data(resp_data2)
    assert resp2.error() == Errors.NONE
    assert resp2.session_id() != INVALID_SESSION_ID
    assert resp2.response_data(topic_names, request2.version) == \
        {tp.topic_partition: data for tp, data in resp_data2.items()}

    # an invalid epoch
    request3 = create_request(FetchMetadata(resp2.session_id(), 5), req_data2, EMPTY_PART_LIST,
                              is_from_follower=False)
    context3 = new_context_of(fetch_manager, request3, topic_names)
    assert type(context3) is SessionErrorContext
    assert context3.update_and_generate_response_data(resp_data2).error() == Errors.INVALID_FETCH_SESSION_EPOCH

    # a session id that does not exist
    request4 = create_request(FetchMetadata(resp2.session_id() + 1, 1), req_data2, EMPTY_PART_LIST,
                              is_from_follower=False)
    context4 = new_context_of(fetch_manager, request4, topic_names)
    assert context4.update_and_generate_response_data(resp_data2).error() == Errors.FETCH_SESSION_ID_NOT_FOUND

    # continue the first session
    request5 = create_request(FetchMetadata(resp2.session_id(), 1), {}, EMPTY_PART_LIST, is_from_follower=False)
    context5 = new_context_of(fetch_manager, request5, topic_names)
    assert type(context5) is IncrementalFetchContext
    req_data5_iter = iter(req_data2.items())

    def check5(topic_id_part: TopicIdPartition, data: PartitionData) -> None:
        key, value = next(req_data5_iter)
        assert topic_id_part.topic_partition == key
        assert topic_id_part.topic_id == topic_ids[key.topic]
        assert data == value

    context5.foreach_partition(check5)
    assert context5.get_fetch_offset(tp1) == 10
    resp5 = context5.update_and_generate_response_data(resp_data2)
    assert resp5.error() == Errors.NONE
    assert resp5.session_id() == resp2.session_id()
    assert len(resp5.response_data(topic_names, request5.version)) == 0

    # an invalid fetch session epoch
    request6 = create_request(FetchMetadata(resp2.session_id(), 5), req_data2, EMPTY_PART_LIST,
                              is_from_follower=False)
    context6 = new_context_of(fetch_manager, request6, topic_names)
    assert type(context6) is SessionErrorContext
    assert context6.update_and_generate_response_data(resp_data2).error() == Errors.INVALID_FETCH_SESSION_EPOCH

    # a throttled response for the incremental session
    request7 = create_request(FetchMetadata(resp2.session_id(), 2), {}, EMPTY_PART_LIST, is_from_follower=False)
    context7 = new_context_of(fetch_manager, request7, topic_names)
    resp7 = context7.get_throttled_response(100)
    assert resp7.error() == Errors.NONE
    assert resp7.session_id() == resp2.session_id()
    assert resp7.throttle_time_ms() == 100

    # close the incremental session
    prev_session_id = resp5.session_id()
    next_session_id = prev_session_id
    while True:
        req_data8 = {
            tp2.topic_partition: PartitionData(tp2.topic_id, 0, 0, 100, None),
            tp3.topic_partition: PartitionData(tp3.topic_id, 10, 0, 100, None),
        }
        request8 = create_request(FetchMetadata(prev_session_id, FINAL_EPOCH), req_data8, EMPTY_PART_LIST,
                                  is_from_follower=False)
        context8 = new_context_of(fetch_manager, request8, topic_names)
        assert type(context8) is SessionlessFetchContext
        assert cache_shard.size() == 0
        resp_data8 = {tp2: response_of(0, 100), tp3: response_of(1, 100)}
        resp8 = context8.update_and_generate_response_data(resp_data8)
        assert resp8.error() == Errors.NONE
        next_session_id = resp8.session_id()
        if next_session_id != prev_session_id:
            break


@pytest.mark.parametrize("uses_topic_ids", [True, False])
def test_incremental_fetch_session(uses_topic_ids: bool):
    time = MockTime()
    cache_shard = FetchSessionCacheShard(10, 1000)
    fetch_manager = FetchManager(time, cache_shard)
    topic_names = {random_uuid(): "foo", random_uuid(): "bar"} if uses_topic_ids else {}
    topic_ids = swap(topic_names)
    version = LATEST if uses_topic_ids else 12
    foo_id = topic_ids.get("foo", ZERO_UUID)
    bar_id = topic_ids.get("bar", ZERO_UUID)
    tp0 = TopicIdPartition(foo_id, TopicPartition("foo", 0))
    tp1 = TopicIdPartition(foo_id, TopicPartition("foo", 1))
    tp2 = TopicIdPartition(bar_id, TopicPartition("bar", 0))

    # a new session with foo-0 and foo-1
    req_data1 = {
        tp0.topic_partition: PartitionData(foo_id, 0, 0, 100, None),
        tp1.topic_partition: PartitionData(foo_id, 10, 0, 100, None),
    }
    request1 = create_request(FetchMetadata.INITIAL, req_data1, EMPTY_PART_LIST, False, version)
    context1 = new_context_of(fetch_manager, request1, topic_names)
    assert type(context1) is FullFetchContext
    resp_data1 = {tp0: response_of(0, 100), tp1: response_of(1, 10)}
    resp1 = context1.update_and_generate_response_data(resp_data1)
    assert resp1.error() == Errors.NONE
    assert resp1.session_id() != INVALID_SESSION_ID
    assert len(resp1.response_data(topic_names, request1.version)) == 2

    # an incremental request that removes foo-0 and adds bar-0
    req_data2 = {tp2.topic_partition: PartitionData(bar_id, 15, 0, 0, None)}
    removed2 = [tp0]
    request2 = create_request(FetchMetadata(resp1.session_id(), 1), req_data2, removed2, False, version)
    context2 = new_context_of(fetch_manager, request2, topic_names)
    assert type(context2) is IncrementalFetchContext
    parts2 = iter([tp1, tp2])
    context2.foreach_partition(lambda topic_id_part, _: _assert_equal(next(parts2), topic_id_part))
    assert context2.get_fetch_offset(tp0) is None
    assert context2.get_fetch_offset(tp1) == 10
    assert context2.get_fetch_offset(tp2) == 15
    assert context2.get_fetch_offset(TopicIdPartition(bar_id, TopicPartition("bar", 2))) is None
    resp_data2 = {tp1: response_of(1, 10), tp2: response_of(0, 10)}
    resp2 = context2.update_and_generate_response_data(resp_data2)
    assert resp2.error() == Errors.NONE
    assert len(resp2.response_data(topic_names, request2.version)) == 1
    assert resp2.session_id() > 0


def _assert_equal(expected: object, actual: object) -> None:
    assert actual == expected


def test_fetch_session_with_unknown_id_old_request_version():
    """A request without ids to a broker with ids."""
    time = MockTime()
    cache_shard = FetchSessionCacheShard(10, 1000)
    fetch_manager = FetchManager(time, cache_shard)
    topic_names = {random_uuid(): "foo", random_uuid(): "bar"}
    topic_ids = swap(topic_names)
    tp0 = TopicIdPartition(topic_ids["foo"], TopicPartition("foo", 0))
    tp1 = TopicIdPartition(topic_ids["foo"], TopicPartition("foo", 1))

    # a new session with foo-0 and foo-1
    req_data1 = {
        tp0.topic_partition: PartitionData(tp0.topic_id, 0, 0, 100, None),
        tp1.topic_partition: PartitionData(ZERO_UUID, 10, 0, 100, None),
    }
    request1 = create_request_without_topic_ids(FetchMetadata.INITIAL, req_data1, EMPTY_PART_LIST, False)
    # foo's id is unknown; an old request version does not mind
    topic_names_only_bar = {topic_ids["bar"]: "bar"}
    context1 = new_context_of(fetch_manager, request1, topic_names_only_bar)
    assert type(context1) is FullFetchContext
    resp_data1 = {tp0: response_of(0, 100), tp1: response_of(1, 10)}
    resp1 = context1.update_and_generate_response_data(resp_data1)
    # ids are ignored: no errors
    assert resp1.error() == Errors.NONE
    assert resp1.session_id() != INVALID_SESSION_ID
    assert len(resp1.response_data(topic_names, request1.version)) == 2
    for resp in resp1.response_data(topic_names, request1.version).values():
        assert resp.error_code == Errors.NONE.code


def error_codes(response: FetchResponse, topic_names: Mapping[uuid.UUID, str],
                version: int) -> dict[TopicPartition, int]:
    return {tp: resp.error_code for tp, resp in response.response_data(topic_names, version).items()}


def test_fetch_session_with_unknown_id():
    time = MockTime()
    cache_shard = FetchSessionCacheShard(10, 1000)
    fetch_manager = FetchManager(time, cache_shard)
    foo_id = random_uuid()
    bar_id = random_uuid()
    zar_id = random_uuid()
    topic_names = {foo_id: "foo", bar_id: "bar", zar_id: "zar"}
    foo0 = TopicIdPartition(foo_id, TopicPartition("foo", 0))
    foo1 = TopicIdPartition(foo_id, TopicPartition("foo", 1))
    zar0 = TopicIdPartition(zar_id, TopicPartition("zar", 0))
    empty_foo0 = TopicIdPartition(foo_id, TopicPartition(None, 0))
    empty_foo1 = TopicIdPartition(foo_id, TopicPartition(None, 1))
    empty_zar0 = TopicIdPartition(zar_id, TopicPartition(None, 0))

    # a new session with foo-0, foo-1 and zar-0
    req_data1 = {
        foo0.topic_partition: PartitionData(foo0.topic_id, 0, 0, 100, None),
        foo1.topic_partition: PartitionData(foo1.topic_id, 10, 0, 100, None),
        zar0.topic_partition: PartitionData(zar0.topic_id, 10, 0, 100, None),
    }
    request1 = create_request(FetchMetadata.INITIAL, req_data1, EMPTY_PART_LIST, is_from_follower=False)
    # foo's id is unknown
    topic_names_only_bar = {bar_id: "bar"}
    context1 = new_context_of(fetch_manager, request1, topic_names_only_bar)
    assert type(context1) is FullFetchContext
    assert_partitions_order(context1, [empty_foo0, empty_foo1, empty_zar0])
    resp_data1 = {
        empty_foo0: partition_data(partition_index=0, error_code=Errors.UNKNOWN_TOPIC_ID.code),
        empty_foo1: partition_data(partition_index=1, error_code=Errors.UNKNOWN_TOPIC_ID.code),
        empty_zar0: partition_data(partition_index=1, error_code=Errors.UNKNOWN_TOPIC_ID.code),
    }
    resp1 = context1.update_and_generate_response_data(resp_data1)
    # the latest request version gets unknown topic id errors
    assert resp1.error() == Errors.NONE
    assert resp1.session_id() != INVALID_SESSION_ID
    assert error_codes(resp1, topic_names, request1.version) == {
        foo0.topic_partition: Errors.UNKNOWN_TOPIC_ID.code,
        foo1.topic_partition: Errors.UNKNOWN_TOPIC_ID.code,
        zar0.topic_partition: Errors.UNKNOWN_TOPIC_ID.code,
    }

    # an incremental request where the partitions are resolved
    request2 = create_request(FetchMetadata(resp1.session_id(), 1), {}, EMPTY_PART_LIST, is_from_follower=False)
    topic_names_no_zar = {foo_id: "foo", bar_id: "bar"}
    context2 = new_context_of(fetch_manager, request2, topic_names_no_zar)
    assert type(context2) is IncrementalFetchContext
    # names of session partitions not in the request are resolved lazily, by foreach_partition: foo's here
    assert_partitions_order(context2, [foo0, foo1, empty_zar0])
    resp_data2 = {
        foo0: response_of(0, 100),
        foo1: response_of(1, 10),
        empty_zar0: partition_data(partition_index=1, error_code=Errors.UNKNOWN_TOPIC_ID.code),
    }
    resp2 = context2.update_and_generate_response_data(resp_data2)
    assert resp2.error() == Errors.NONE
    assert resp2.session_id() != INVALID_SESSION_ID
    assert len(resp2.response_data(topic_names, request2.version)) == 3
    assert error_codes(resp2, topic_names, request2.version) == {
        foo0.topic_partition: Errors.NONE.code,
        foo1.topic_partition: Errors.NONE.code,
        zar0.topic_partition: Errors.UNKNOWN_TOPIC_ID.code,
    }


def test_incremental_fetch_session_with_ids_when_session_does_not_use_ids():
    time = MockTime()
    cache_shard = FetchSessionCacheShard(10, 1000)
    fetch_manager = FetchManager(time, cache_shard)
    topic_names: dict[uuid.UUID, str] = {}
    foo0 = TopicIdPartition(ZERO_UUID, TopicPartition("foo", 0))

    # a new session with foo-0, at a request version without topic ids
    req_data1 = {foo0.topic_partition: PartitionData(ZERO_UUID, 0, 0, 100, None)}
    request1 = create_request_without_topic_ids(FetchMetadata.INITIAL, req_data1, EMPTY_PART_LIST, False)
    context1 = new_context_of(fetch_manager, request1, topic_names)
    assert type(context1) is FullFetchContext
    resp1 = context1.update_and_generate_response_data({foo0: response_of(0, 100)})
    assert resp1.error() == Errors.NONE
    assert resp1.session_id() != INVALID_SESSION_ID

    # an incremental request with no changes, but at v13+, and the topic id now known to the broker
    foo_id = random_uuid()
    topic_names[foo_id] = "foo"
    request2 = create_request(FetchMetadata(resp1.session_id(), 1), {}, EMPTY_PART_LIST, is_from_follower=False)
    context2 = new_context_of(fetch_manager, request2, topic_names)

    assert type(context2) is SessionErrorContext
    assert context2.update_and_generate_response_data({}).error() == Errors.FETCH_SESSION_TOPIC_ID_ERROR


def test_incremental_fetch_session_without_ids_when_session_uses_ids():
    time = MockTime()
    cache_shard = FetchSessionCacheShard(10, 1000)
    fetch_manager = FetchManager(time, cache_shard)
    foo_id = random_uuid()
    topic_names = {foo_id: "foo"}
    foo0 = TopicIdPartition(foo_id, TopicPartition("foo", 0))

    # a new session with foo-0, at a request version with topic ids
    req_data1 = {foo0.topic_partition: PartitionData(foo_id, 0, 0, 100, None)}
    request1 = create_request(FetchMetadata.INITIAL, req_data1, EMPTY_PART_LIST, is_from_follower=False)
    context1 = new_context_of(fetch_manager, request1, topic_names)
    assert type(context1) is FullFetchContext
    resp1 = context1.update_and_generate_response_data({foo0: response_of(0, 100)})
    assert resp1.error() == Errors.NONE
    assert resp1.session_id() != INVALID_SESSION_ID

    # an incremental request with no changes, but at v12, and the topic id unknown to the broker
    del topic_names[foo_id]
    request2 = create_request_without_topic_ids(FetchMetadata(resp1.session_id(), 1), {}, EMPTY_PART_LIST, False)
    context2 = new_context_of(fetch_manager, request2, topic_names)

    assert type(context2) is SessionErrorContext
    assert context2.update_and_generate_response_data({}).error() == Errors.FETCH_SESSION_TOPIC_ID_ERROR


def test_fetch_session_update_topic_ids_broker_side():
    """The topic id changes on the broker handling the session, in the metadata cache and the log, as if the topic
    were deleted and recreated."""
    time = MockTime()
    cache_shard = FetchSessionCacheShard(10, 1000)
    fetch_manager = FetchManager(time, cache_shard)
    topic_names = {random_uuid(): "foo", random_uuid(): "bar"}
    topic_ids = swap(topic_names)
    tp0 = TopicIdPartition(topic_ids["foo"], TopicPartition("foo", 0))
    tp1 = TopicIdPartition(topic_ids["bar"], TopicPartition("bar", 1))

    # a new session with foo-0 and bar-1; foo-0 is unknown
    req_data1 = {
        tp0.topic_partition: PartitionData(tp0.topic_id, 0, 0, 100, None),
        tp1.topic_partition: PartitionData(tp1.topic_id, 10, 0, 100, None),
    }
    request1 = create_request(FetchMetadata.INITIAL, req_data1, EMPTY_PART_LIST, is_from_follower=False)
    context1 = new_context_of(fetch_manager, request1, topic_names)
    assert type(context1) is FullFetchContext
    resp_data1 = {
        tp1: response_of(1, 10),
        tp0: partition_data(partition_index=0, high_watermark=-1, last_stable_offset=-1, log_start_offset=-1,
                            error_code=Errors.UNKNOWN_TOPIC_OR_PARTITION.code),
    }
    resp1 = context1.update_and_generate_response_data(resp_data1)
    assert resp1.error() == Errors.NONE
    assert resp1.session_id() != INVALID_SESSION_ID
    assert len(resp1.response_data(topic_names, request1.version)) == 2

    # an incremental request with no changes, while foo's id changes on the broker
    request2 = create_request(FetchMetadata(resp1.session_id(), 1), {}, EMPTY_PART_LIST, is_from_follower=False)
    topic_names_foo_changed = {topic_ids["bar"]: "bar", random_uuid(): "foo"}
    context2 = new_context_of(fetch_manager, request2, topic_names_foo_changed)
    assert type(context2) is IncrementalFetchContext
    # the log check finds the id inconsistent too
    resp_data2 = {tp0: partition_data(partition_index=0, high_watermark=-1, last_stable_offset=-1,
                                      log_start_offset=-1, error_code=Errors.INCONSISTENT_TOPIC_ID.code)}
    resp2 = context2.update_and_generate_response_data(resp_data2)

    assert resp2.error() == Errors.NONE
    assert resp2.session_id() > 0
    response_data2 = resp2.response_data(topic_names, request2.version)
    # the partition carries the inconsistent topic id error
    assert response_data2[tp0.topic_partition].error_code == Errors.INCONSISTENT_TOPIC_ID.code


def no_error_response() -> RespPartitionData:
    return partition_data(partition_index=1, high_watermark=10, last_stable_offset=10, log_start_offset=10)


def error_response(error_code: int) -> RespPartitionData:
    return partition_data(partition_index=0, high_watermark=-1, last_stable_offset=-1, log_start_offset=-1,
                          error_code=error_code)


class _SessionDriver:
    """The newContext and updateAndGenerateResponseData helpers Kafka's cases below define for themselves."""

    def __init__(self, fetch_manager: FetchManager) -> None:
        self.fetch_manager = fetch_manager

    def new_context(self, metadata: FetchMetadata, partitions: list[TopicIdPartition],
                    topic_names: Mapping[uuid.UUID, str], to_forget: list[TopicIdPartition] | None = None
                    ) -> FetchContext:
        """`topic_names`: the ids and names the broker knows."""
        data = {p.topic_partition: PartitionData(p.topic_id, 0, 0, 100, None) for p in partitions}
        fetch_request = create_request(metadata, data, list(to_forget or []), is_from_follower=False)
        return new_context_of(self.fetch_manager, fetch_request, topic_names)

    @staticmethod
    def update_and_generate_response_data(context: FetchContext, known_error: int | None = None) -> FetchResponse:
        """An unresolved partition answers UNKNOWN_TOPIC_ID; a resolved one no error, or `known_error`."""
        data = {}

        def add(topic_id_partition: TopicIdPartition, _: PartitionData) -> None:
            if topic_id_partition.topic is None:
                data[topic_id_partition] = error_response(Errors.UNKNOWN_TOPIC_ID.code)
            elif known_error is None:
                data[topic_id_partition] = no_error_response()
            else:
                data[topic_id_partition] = error_response(known_error)

        context.foreach_partition(add)
        return context.update_and_generate_response_data(data)


def test_resolve_unknown_partitions():
    time = MockTime()
    cache_shard = FetchSessionCacheShard(10, 1000)
    driver = _SessionDriver(FetchManager(time, cache_shard))

    foo = TopicIdPartition(random_uuid(), TopicPartition("foo", 0))
    bar = TopicIdPartition(random_uuid(), TopicPartition("bar", 0))
    zar = TopicIdPartition(random_uuid(), TopicPartition("zar", 0))

    foo_unresolved = TopicIdPartition(foo.topic_id, TopicPartition(None, foo.partition))
    bar_unresolved = TopicIdPartition(bar.topic_id, TopicPartition(None, bar.partition))
    zar_unresolved = TopicIdPartition(zar.topic_id, TopicPartition(None, zar.partition))

    # the metadata cache does not know the topics
    context1 = driver.new_context(FetchMetadata.INITIAL, [foo, bar, zar], {})
    # so the context holds unresolved partitions
    assert type(context1) is FullFetchContext
    assert_partitions_order(context1, [foo_unresolved, bar_unresolved, zar_unresolved])

    # the response creates the session
    session_id = driver.update_and_generate_response_data(context1).session_id()

    # the metadata cache knows foo only
    context2 = driver.new_context(FetchMetadata(session_id, 1), [], {foo.topic_id: foo.topic})
    # so foo is resolved, the others not
    assert type(context2) is IncrementalFetchContext
    assert_partitions_order(context2, [foo, bar_unresolved, zar_unresolved])

    driver.update_and_generate_response_data(context2)

    # the metadata cache knows foo and bar
    context3 = driver.new_context(FetchMetadata(session_id, 2), [bar],
                                  {foo.topic_id: foo.topic, bar.topic_id: bar.topic})
    # so foo and bar are resolved
    assert type(context3) is IncrementalFetchContext
    assert_partitions_order(context3, [foo, bar, zar_unresolved])

    driver.update_and_generate_response_data(context3)

    # the metadata cache knows every topic
    context4 = driver.new_context(FetchMetadata(session_id, 3), [],
                                  {foo.topic_id: foo.topic, bar.topic_id: bar.topic, zar.topic_id: zar.topic})
    # so all are resolved
    assert type(context4) is IncrementalFetchContext
    assert_partitions_order(context4, [foo, bar, zar])

    driver.update_and_generate_response_data(context4)

    # the metadata cache no longer knows the topics (deleted, say)
    context5 = driver.new_context(FetchMetadata(session_id, 4), [], {})
    # every topic stays resolved (Kafka checks context4 here)
    assert type(context5) is IncrementalFetchContext
    assert_partitions_order(context4, [foo, bar, zar])


@pytest.mark.parametrize(("foo_starts_resolved", "foo_ends_resolved"),
                         [(True, True), (True, False), (False, True), (False, False)])
def test_to_forget_partitions(foo_starts_resolved: bool, foo_ends_resolved: bool):
    """Forgetting a partition, with every combination of topic id use in the two requests."""
    time = MockTime()
    cache_shard = FetchSessionCacheShard(10, 1000)
    driver = _SessionDriver(FetchManager(time, cache_shard))

    foo = TopicIdPartition(random_uuid(), TopicPartition("foo", 0))
    bar = TopicIdPartition(random_uuid(), TopicPartition("bar", 0))

    foo_unresolved = TopicIdPartition(foo.topic_id, TopicPartition(None, foo.partition))
    bar_unresolved = TopicIdPartition(bar.topic_id, TopicPartition(None, bar.partition))

    # a new context where foo is resolved iff foo_starts_resolved, and bar is not
    context1_names = {foo.topic_id: foo.topic} if foo_starts_resolved else {}
    foo_context1 = foo if foo_starts_resolved else foo_unresolved
    context1 = driver.new_context(FetchMetadata.INITIAL, [foo_context1, bar], context1_names)

    assert type(context1) is FullFetchContext
    assert_partitions_order(context1, [foo_context1, bar_unresolved])

    # the response creates the session
    session_id = driver.update_and_generate_response_data(context1).session_id()

    # forget foo (resolved iff foo_ends_resolved), keep bar (unresolved)
    context2_names = {foo.topic_id: foo.topic} if foo_ends_resolved else {}
    foo_context2 = foo if foo_ends_resolved else foo_unresolved
    context2 = driver.new_context(FetchMetadata(session_id, 1), [], context2_names, to_forget=[foo_context2])

    # so foo is gone, bar stays
    assert type(context2) is IncrementalFetchContext
    assert_partitions_order(context2, [bar_unresolved])

    driver.update_and_generate_response_data(context2)

    # now forget bar
    context3 = driver.new_context(FetchMetadata(session_id, 2), [], {}, to_forget=[bar])

    # an empty session: the context is sessionless
    assert type(context3) is SessionlessFetchContext
    assert_partitions_order(context3, [])


def test_update_and_generate_response_data():
    time = MockTime()
    cache_shard = FetchSessionCacheShard(10, 1000)
    driver = _SessionDriver(FetchManager(time, cache_shard))

    foo = TopicIdPartition(random_uuid(), TopicPartition("foo", 0))
    bar = TopicIdPartition(random_uuid(), TopicPartition("bar", 0))

    # the receiving broker always knows foo and never bar
    receiving_broker_topic_names = {foo.topic_id: foo.topic}
    # the sender knows both
    sending_topic_names = {foo.topic_id: foo.topic, bar.topic_id: bar.topic}

    def update_and_generate_response_data(context: FetchContext) -> FetchResponse:
        # both topics answer with errors, so they stay in the session's responses
        return driver.update_and_generate_response_data(context, Errors.UNKNOWN_TOPIC_OR_PARTITION.code)

    def check_response_data(response: FetchResponse) -> None:
        assert error_codes(response, sending_topic_names, LATEST) == {
            foo.topic_partition: Errors.UNKNOWN_TOPIC_OR_PARTITION.code,
            bar.topic_partition: Errors.UNKNOWN_TOPIC_ID.code,
        }

    # a sessionless context first
    context1 = driver.new_context(FetchMetadata.LEGACY, [foo, bar], receiving_broker_topic_names)
    assert type(context1) is SessionlessFetchContext
    check_response_data(update_and_generate_response_data(context1))

    # now a full context
    context2 = driver.new_context(FetchMetadata.INITIAL, [foo, bar], receiving_broker_topic_names)
    assert type(context2) is FullFetchContext
    response2 = update_and_generate_response_data(context2)
    session_id = response2.session_id()
    check_response_data(response2)

    # an incremental context
    context3 = driver.new_context(FetchMetadata(session_id, 1), [], receiving_broker_topic_names)
    assert type(context3) is IncrementalFetchContext
    check_response_data(update_and_generate_response_data(context3))

    # the same epoch again: an error context
    context4 = driver.new_context(FetchMetadata(session_id, 1), [], receiving_broker_topic_names)
    assert type(context4) is SessionErrorContext
    # with an empty response
    assert update_and_generate_response_data(context4).data().responses == []


def full_session(fetch_manager: FetchManager, foo0: TopicIdPartition, foo1: TopicIdPartition,
                 topic_names: Mapping[uuid.UUID, str], is_from_follower: bool,
                 foo1_fetch_offset: int = 10) -> tuple[FetchRequest, FetchContext]:
    req = {
        foo0.topic_partition: PartitionData(foo0.topic_id, 0, 0, 100, None),
        foo1.topic_partition: PartitionData(foo1.topic_id, foo1_fetch_offset, 0, 100, None),
    }
    request = create_request(FetchMetadata.INITIAL, req, EMPTY_PART_LIST, is_from_follower)
    return request, new_context_of(fetch_manager, request, topic_names)


def test_fetch_session_expiration():
    time = MockTime()
    # two entries at most, so that one is evicted later
    cache_shard = FetchSessionCacheShard(2, 1000)
    fetch_manager = FetchManager(time, cache_shard)
    foo_id = random_uuid()
    topic_names = {foo_id: "foo"}
    foo0 = TopicIdPartition(foo_id, TopicPartition("foo", 0))
    foo1 = TopicIdPartition(foo_id, TopicPartition("foo", 1))

    # session 1
    session1_request1, session1_context1 = full_session(fetch_manager, foo0, foo1, topic_names, False)
    assert type(session1_context1) is FullFetchContext
    resp_data1 = {foo0: response_of(0, 100), foo1: response_of(1, 10)}
    session1_resp = session1_context1.update_and_generate_response_data(resp_data1)
    assert session1_resp.error() == Errors.NONE
    assert session1_resp.session_id() != INVALID_SESSION_ID
    assert len(session1_resp.response_data(topic_names, session1_request1.version)) == 2

    # it is in the cache
    assert cache_shard.get(session1_resp.session_id()) is not None
    time.sleep(500)

    # session 2 (Kafka builds it from session 1's request data, and answers with session 1's response data)
    session2_request1, session2_context = full_session(fetch_manager, foo0, foo1, topic_names, False)
    assert type(session2_context) is FullFetchContext
    session2_resp = session2_context.update_and_generate_response_data(resp_data1)
    assert session2_resp.error() == Errors.NONE
    assert session2_resp.session_id() != INVALID_SESSION_ID
    assert len(session2_resp.response_data(topic_names, session2_request1.version)) == 2

    # both are in the cache
    assert cache_shard.get(session1_resp.session_id()) is not None
    assert cache_shard.get(session2_resp.session_id()) is not None
    time.sleep(500)

    # an incremental request for session 1
    session1_request2 = create_request(FetchMetadata(session1_resp.session_id(), 1), {}, [], is_from_follower=False)
    context1v2 = new_context_of(fetch_manager, session1_request2, topic_names)
    assert type(context1v2) is IncrementalFetchContext

    # long enough now that session 1 would be evicted had the incremental request not touched it
    time.sleep(501)

    # a last session: the least recently used entry goes, session 2, as session 1 was fetched more recently than
    # session 2 was created
    session3_request1, session3_context = full_session(fetch_manager, foo0, foo1, topic_names, False,
                                                       foo1_fetch_offset=0)
    assert type(session3_context) is FullFetchContext
    resp_data3 = {
        TopicIdPartition(foo_id, TopicPartition("foo", 0)): response_of(0, 100),
        TopicIdPartition(foo_id, TopicPartition("foo", 1)): response_of(1, 10),
    }
    session3_resp = session3_context.update_and_generate_response_data(resp_data3)
    assert session3_resp.error() == Errors.NONE
    assert session3_resp.session_id() != INVALID_SESSION_ID
    assert len(session3_resp.response_data(topic_names, session3_request1.version)) == 2

    assert cache_shard.get(session1_resp.session_id()) is not None
    assert cache_shard.get(session2_resp.session_id()) is None, \
        "session 2 should have been evicted by latest session, as session 1 was used more recently"
    assert cache_shard.get(session3_resp.session_id()) is not None


def test_privileged_session_handling():
    time = MockTime()
    # two entries at most, so that one is evicted later
    cache_shard = FetchSessionCacheShard(2, 1000)
    fetch_manager = FetchManager(time, cache_shard)
    foo_id = random_uuid()
    topic_names = {foo_id: "foo"}
    foo0 = TopicIdPartition(foo_id, TopicPartition("foo", 0))
    foo1 = TopicIdPartition(foo_id, TopicPartition("foo", 1))

    # session 1, from a follower
    session1_request, session1_context = full_session(fetch_manager, foo0, foo1, topic_names, True)
    assert type(session1_context) is FullFetchContext
    resp_data1 = {foo0: response_of(0, 100), foo1: response_of(1, 10)}
    session1_resp = session1_context.update_and_generate_response_data(resp_data1)
    assert session1_resp.error() == Errors.NONE
    assert session1_resp.session_id() != INVALID_SESSION_ID
    assert len(session1_resp.response_data(topic_names, session1_request.version)) == 2
    assert cache_shard.size() == 1

    # session 1 ages a little
    time.sleep(500)

    # session 2, from a consumer
    session2_request, session2_context = full_session(fetch_manager, foo0, foo1, topic_names, False)
    assert type(session2_context) is FullFetchContext
    session2_resp = session2_context.update_and_generate_response_data(
        {foo0: response_of(0, 100), foo1: response_of(1, 10)})
    assert session2_resp.error() == Errors.NONE
    assert session2_resp.session_id() != INVALID_SESSION_ID
    assert len(session2_resp.response_data(topic_names, session2_request.version)) == 2

    # both are in the cache
    assert cache_shard.get(session1_resp.session_id()) is not None
    assert cache_shard.get(session2_resp.session_id()) is not None
    assert cache_shard.size() == 2
    time.sleep(500)

    # session 3, from a follower: session 1 is kept for its privilege and session 2 goes
    session3_request, session3_context = full_session(fetch_manager, foo0, foo1, topic_names, True,
                                                      foo1_fetch_offset=0)
    assert type(session3_context) is FullFetchContext
    session3_resp = session3_context.update_and_generate_response_data(
        {foo0: response_of(0, 100), foo1: response_of(1, 10)})
    assert session3_resp.error() == Errors.NONE
    assert session3_resp.session_id() != INVALID_SESSION_ID
    assert len(session3_resp.response_data(topic_names, session3_request.version)) == 2

    assert cache_shard.get(session1_resp.session_id()) is not None
    # session 2 is newer than session 1 and not expired, but less privileged than session 3
    assert cache_shard.get(session2_resp.session_id()) is None, "session 2 should have been evicted by session 3"
    assert cache_shard.get(session3_resp.session_id()) is not None
    assert cache_shard.size() == 2

    time.sleep(501)

    # session 4, from a follower: session 1 goes for its age, privileged or not
    session4_request, session4_context = full_session(fetch_manager, foo0, foo1, topic_names, True,
                                                      foo1_fetch_offset=0)
    assert type(session4_context) is FullFetchContext
    # Kafka answers through session 3's context here: it too is a full one, so it creates a session
    session4_resp = session3_context.update_and_generate_response_data(
        {foo0: response_of(0, 100), foo1: response_of(1, 10)})
    assert session4_resp.error() == Errors.NONE
    assert session4_resp.session_id() != INVALID_SESSION_ID
    assert len(session4_resp.response_data(topic_names, session4_request.version)) == 2

    assert cache_shard.get(session1_resp.session_id()) is None, \
        "session 1 should have been evicted by session 4 even though it is privileged as it has hit eviction time"
    assert cache_shard.get(session3_resp.session_id()) is not None
    assert cache_shard.get(session4_resp.session_id()) is not None
    assert cache_shard.size() == 2


def test_zero_size_fetch_session():
    time = MockTime()
    cache_shard = FetchSessionCacheShard(10, 1000)
    fetch_manager = FetchManager(time, cache_shard)
    foo_id = random_uuid()
    topic_names = {foo_id: "foo"}
    foo0 = TopicIdPartition(foo_id, TopicPartition("foo", 0))
    foo1 = TopicIdPartition(foo_id, TopicPartition("foo", 1))

    # a new session with foo-0 and foo-1
    request1, context1 = full_session(fetch_manager, foo0, foo1, topic_names, False)
    assert type(context1) is FullFetchContext
    resp1 = context1.update_and_generate_response_data({foo0: response_of(0, 100), foo1: response_of(1, 10)})
    assert resp1.error() == Errors.NONE
    assert resp1.session_id() != INVALID_SESSION_ID
    assert len(resp1.response_data(topic_names, request1.version)) == 2

    # an incremental request that removes both: the session closes
    request2 = create_request(FetchMetadata(resp1.session_id(), 1), {}, [foo0, foo1], is_from_follower=False)
    context2 = new_context_of(fetch_manager, request2, topic_names)
    assert type(context2) is SessionlessFetchContext
    resp2 = context2.update_and_generate_response_data({})
    assert resp2.session_id() == INVALID_SESSION_ID
    assert not resp2.response_data(topic_names, request2.version)
    assert cache_shard.size() == 0


def test_diverging_epoch():
    time = MockTime()
    cache_shard = FetchSessionCacheShard(10, 1000)
    fetch_manager = FetchManager(time, cache_shard)
    topic_names = {random_uuid(): "foo", random_uuid(): "bar"}
    topic_ids = swap(topic_names)
    tp1 = TopicIdPartition(topic_ids["foo"], TopicPartition("foo", 1))
    tp2 = TopicIdPartition(topic_ids["bar"], TopicPartition("bar", 2))

    req_data = {
        tp1.topic_partition: PartitionData(tp1.topic_id, 100, 0, 1000, 5, 4),
        tp2.topic_partition: PartitionData(tp2.topic_id, 100, 0, 1000, 5, 4),
    }

    # a full fetch context returns every partition
    request1 = create_request(FetchMetadata.INITIAL, req_data, EMPTY_PART_LIST, is_from_follower=False)
    context1 = new_context_of(fetch_manager, request1, topic_names)
    assert type(context1) is FullFetchContext
    diverging_epoch = EpochEndOffset(epoch=3, end_offset=90)
    resp_data = {
        tp1: partition_data(partition_index=tp1.partition, high_watermark=105, last_stable_offset=105,
                            log_start_offset=0),
        tp2: partition_data(partition_index=tp2.partition, high_watermark=105, last_stable_offset=105,
                            log_start_offset=0, diverging_epoch=diverging_epoch),
    }
    resp1 = context1.update_and_generate_response_data(resp_data)
    assert resp1.error() == Errors.NONE
    assert resp1.session_id() != INVALID_SESSION_ID
    assert set(resp1.response_data(topic_names, request1.version)) == {tp1.topic_partition, tp2.topic_partition}

    # an incremental one returns a partition with a diverging epoch even when nothing else would send it
    request2 = create_request(FetchMetadata(resp1.session_id(), 1), req_data, EMPTY_PART_LIST,
                              is_from_follower=False)
    context2 = new_context_of(fetch_manager, request2, topic_names)
    assert type(context2) is IncrementalFetchContext
    resp2 = context2.update_and_generate_response_data(resp_data)
    assert resp2.error() == Errors.NONE
    assert resp2.session_id() == resp1.session_id()
    assert set(resp2.response_data(topic_names, request2.version)) == {tp2.topic_partition}

    # every partition with a diverging epoch is returned
    resp_data[tp1] = partition_data(partition_index=tp1.partition, high_watermark=105, last_stable_offset=105,
                                    log_start_offset=0, diverging_epoch=diverging_epoch)
    resp3 = context2.update_and_generate_response_data(resp_data)
    assert resp3.error() == Errors.NONE
    assert resp3.session_id() == resp1.session_id()
    assert set(resp3.response_data(topic_names, request2.version)) == {tp1.topic_partition, tp2.topic_partition}

    # partitions that meet the other conditions are returned, diverging epoch or not
    resp_data[tp1] = partition_data(partition_index=tp1.partition, high_watermark=110, last_stable_offset=110,
                                    log_start_offset=0)
    resp4 = context2.update_and_generate_response_data(resp_data)
    assert resp4.error() == Errors.NONE
    assert resp4.session_id() == resp1.session_id()
    assert set(resp4.response_data(topic_names, request2.version)) == {tp1.topic_partition, tp2.topic_partition}


def test_deprioritizes_partitions_with_records_only():
    time = MockTime()
    cache_shard = FetchSessionCacheShard(10, 1000)
    fetch_manager = FetchManager(time, cache_shard)
    topic_ids = {"foo": random_uuid(), "bar": random_uuid(), "zar": random_uuid()}
    topic_names = swap(topic_ids)
    tp1 = TopicIdPartition(topic_ids["foo"], TopicPartition("foo", 1))
    tp2 = TopicIdPartition(topic_ids["bar"], TopicPartition("bar", 2))
    tp3 = TopicIdPartition(topic_ids["zar"], TopicPartition("zar", 3))

    req_data = {tp: PartitionData(tp.topic_id, 100, 0, 1000, 5, 4) for tp in (tp1, tp2, tp3)}

    # a full fetch context returns every partition
    context1 = fetch_manager.new_context(LATEST, FetchMetadata.INITIAL, False, req_data, [], topic_names)
    assert type(context1) is FullFetchContext

    resp_data1 = {tp: partition_data(partition_index=tp.topic_partition.partition, high_watermark=50,
                                     last_stable_offset=50, log_start_offset=0) for tp in (tp1, tp2, tp3)}
    resp1 = context1.update_and_generate_response_data(resp_data1)
    assert resp1.error() == Errors.NONE
    assert resp1.session_id() != INVALID_SESSION_ID
    assert set(resp1.response_data(topic_names, LATEST)) == {tp1.topic_partition, tp2.topic_partition,
                                                             tp3.topic_partition}

    # an incremental context returns the partitions with changes, and moves back only those with records
    context2 = fetch_manager.new_context(LATEST, FetchMetadata(resp1.session_id(), 1), False, req_data, [],
                                         topic_names)
    assert type(context2) is IncrementalFetchContext

    # the session's order is the last response's
    assert_partitions_order(context2, [tp1, tp2, tp3])

    # an empty response
    resp2 = context2.update_and_generate_response_data({})
    assert resp2.error() == Errors.NONE
    assert resp2.session_id() == resp1.session_id()
    assert set(resp2.response_data(topic_names, LATEST)) == set()

    # every partition with changes is returned
    resp_data3 = {
        tp1: partition_data(partition_index=tp1.topic_partition.partition, high_watermark=60, last_stable_offset=50,
                            log_start_offset=0),
        tp2: partition_data(partition_index=tp2.topic_partition.partition, high_watermark=60, last_stable_offset=50,
                            log_start_offset=0,
                            records=MemoryRecords.with_records(Compression.NONE, SimpleRecord(None, timestamp=100))),
        tp3: partition_data(partition_index=tp3.topic_partition.partition, high_watermark=50, last_stable_offset=50,
                            log_start_offset=0),
    }
    resp3 = context2.update_and_generate_response_data(resp_data3)
    assert resp3.error() == Errors.NONE
    assert resp3.session_id() == resp1.session_id()
    assert set(resp3.response_data(topic_names, LATEST)) == {tp1.topic_partition, tp2.topic_partition}

    # only the partition that returned records moved back
    assert_partitions_order(context2, [tp1, tp3, tp2])


def test_cached_partition_equals_and_hash_code():
    topic_id = random_uuid()
    topic_name = "topic"
    partition = 0

    with_id_and_name = CachedPartition(topic_name, topic_id, partition)
    with_id_and_no_name = CachedPartition(None, topic_id, partition)
    with_different_id_and_name = CachedPartition(topic_name, random_uuid(), partition)
    with_zero_id_and_name = CachedPartition(topic_name, ZERO_UUID, partition)
    with_zero_id_and_other_name = CachedPartition("otherTopic", ZERO_UUID, partition)

    # with real topic ids: id and partition decide, not the name
    assert with_id_and_name == with_id_and_no_name
    assert hash(with_id_and_name) == hash(with_id_and_no_name)

    assert with_id_and_name != with_different_id_and_name
    assert hash(with_id_and_name) != hash(with_different_id_and_name)

    assert with_id_and_name != with_zero_id_and_name
    assert hash(with_id_and_name) != hash(with_zero_id_and_name)

    # with no name and a real id, as with a name
    assert with_id_and_no_name == with_id_and_name
    assert hash(with_id_and_no_name) == hash(with_id_and_name)

    assert with_id_and_no_name != with_different_id_and_name
    assert hash(with_id_and_no_name) != hash(with_different_id_and_name)

    assert with_id_and_no_name != with_zero_id_and_name
    assert hash(with_id_and_no_name) != hash(with_zero_id_and_name)

    # with zero ids: name and partition decide
    assert with_zero_id_and_name != with_zero_id_and_other_name
    assert hash(with_zero_id_and_name) != hash(with_zero_id_and_other_name)

    assert with_zero_id_and_name == with_zero_id_and_name
    assert hash(with_zero_id_and_name) == hash(with_zero_id_and_name)


def test_maybe_resolve_unknown_name():
    named_partition = CachedPartition("topic", random_uuid(), 0)
    null_name_partition1 = CachedPartition(None, random_uuid(), 0)
    null_name_partition2 = CachedPartition(None, random_uuid(), 0)

    topic_names = {named_partition.topic_id: "foo", null_name_partition1.topic_id: "bar"}

    # a name is never replaced (one id under two names cannot happen; this checks the None test)
    named_partition.maybe_resolve_unknown_name(topic_names)
    assert named_partition.topic == "topic"

    # an unknown name that the map knows is resolved
    null_name_partition1.maybe_resolve_unknown_name(topic_names)
    assert null_name_partition1.topic == "bar"

    # an id the map does not know stays unresolved
    null_name_partition2.maybe_resolve_unknown_name(topic_names)
    assert null_name_partition2.topic is None


def assert_partitions_order(context: FetchContext, partitions: list[TopicIdPartition]) -> None:
    partitions_in_context: list[TopicIdPartition] = []
    context.foreach_partition(lambda tp, _: partitions_in_context.append(tp))
    assert partitions_in_context == partitions


def sharded_cache(num_shards: int) -> tuple[int, list[FetchSessionCacheShard], FetchSessionCache]:
    session_id_range = INT_MAX // num_shards
    cache_shards = [FetchSessionCacheShard(10, 1000, session_id_range, shard_num) for shard_num in range(num_shards)]
    return session_id_range, cache_shards, FetchSessionCache(cache_shards)


def test_fetch_session_cache_get_sharded_cache_retrieves_cache_from_correct_segment():
    num_shards = 8
    session_id_range, cache_shards, cache = sharded_cache(num_shards)

    cache0 = cache.get_cache_shard(session_id_range - 1)
    cache1 = cache.get_cache_shard(session_id_range)
    cache2 = cache.get_cache_shard(session_id_range * 2)

    assert cache0 is cache_shards[0]
    assert cache1 is cache_shards[1]
    assert cache2 is cache_shards[2]
    with pytest.raises(IndexError):
        cache.get_cache_shard(session_id_range * num_shards)


def test_fetch_session_cache_round_robins_into_shards():
    num_shards = 8
    _, cache_shards, cache = sharded_cache(num_shards)

    for shard_num in range(num_shards * 2):
        assert cache.get_next_cache_shard() is cache_shards[shard_num % num_shards]


def test_fetch_session_cache_round_robins_into_shards_when_integer_overflows():
    FetchSessionCache.counter.set(-2**31)  # Int.MaxValue + 1, overflowed
    num_shards = 8
    _, cache_shards, cache = sharded_cache(num_shards)

    for shard_num in range(num_shards * 2):
        assert cache.get_next_cache_shard() is cache_shards[shard_num % num_shards]
