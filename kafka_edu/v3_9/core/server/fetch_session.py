"""Port of core/src/main/scala/kafka/server/FetchSession.scala (Kafka 3.9): incremental fetch sessions (KIP-227).

A fetcher that lists its partitions once (a full fetch) may get a session: the broker caches the partitions and
what it last told the fetcher about each, and later (incremental) requests name only what changed, their responses
only partitions with news. FetchManager.new_context picks the context for a request; the context builds the
response and keeps the session up to date. Sessions live in a cache sharded by session id, each shard evicting by
its own rules (FetchSessionCacheShard._try_evict).

Port notes:
- Kafka keeps a session's partitions in an ImplicitLinkedHashCollection (an insertion-ordered hash set that finds an
  element by an equal key, and moves one to the end by removing and re-adding it). CacheMap below does that with an
  insertion-ordered dict mapping each CachedPartition to itself.
- Scala's `synchronized` blocks are re-entrant locks: `lock` on each FetchSession and each FetchSessionCacheShard.
- The metrics (NumIncrementalFetchSessions, NumIncrementalFetchPartitionsCached gauges) are not ported; the eviction
  meter is a plain counter per shard (Kafka's is one meter shared by every shard).
- Broker wiring (not done here): 3.9's BrokerServer builds 8 shards (KafkaBroker.NumFetchSessionCacheShards), each
  with max.incremental.fetch.session.cache.slots / 8 entries (default 1000) and an eviction time of
  KafkaServer.MIN_INCREMENTAL_FETCH_SESSION_EVICTION_MS (120000 ms, not a config), ids split by Int.MaxValue / 8.
"""

from __future__ import annotations

import bisect
import logging
import random
import threading
import uuid
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping
from typing import Generic, NamedTuple, TypeVar

from kafka_edu.tracing import step
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from kafka_edu.v3_9.clients.common.requests.fetch_metadata import (
    FINAL_EPOCH,
    INITIAL_EPOCH,
    INVALID_SESSION_ID,
    FetchMetadata,
    next_epoch,
)
from kafka_edu.v3_9.clients.common.requests.fetch_request import ZERO_UUID, PartitionData
from kafka_edu.v3_9.clients.common.requests.fetch_response import FetchResponse
from kafka_edu.v3_9.clients.common.requests.fetch_response import PartitionData as RespPartitionData
from kafka_edu.v3_9.clients.common.topic_id_partition import TopicIdPartition
from kafka_edu.v3_9.clients.common.topic_partition import TopicPartition
from kafka_edu.v3_9.clients.common.utils.time import Time
from kafka_edu.v3_9.clients.common.uuid import Uuid

INT_MAX = 2**31 - 1
TRACE = 5  # log4j's TRACE, below DEBUG: Python's logging has no such level

# FetchSession.REQ_MAP, RESP_MAP and TOPIC_NAME_MAP
REQ_MAP = Mapping[TopicIdPartition, PartitionData]
RESP_MAP = dict[TopicIdPartition, RespPartitionData]
TOPIC_NAME_MAP = Mapping[uuid.UUID, str]


def partitions_to_log_string(partitions: Collection[TopicIdPartition], trace_enabled: bool) -> str:
    """The partitions themselves at TRACE, else only how many."""
    if trace_enabled:
        return "(" + ", ".join(map(str, partitions)) + ")"
    return f"{len(partitions)} partition(s)"


class CachedPartition:
    """One partition of a session, and what the broker last said about it.

    Compact on purpose, as a broker holds many: topic and partition are kept apart rather than as a TopicPartition.
    fetcher_log_start_offset is the fetching follower's log start offset; local_log_start_offset is this broker's.
    """

    __slots__ = ("topic", "topic_id", "partition", "max_bytes", "fetch_offset", "high_watermark", "leader_epoch",
                 "fetcher_log_start_offset", "local_log_start_offset", "last_fetched_epoch")

    def __init__(self, topic: str | None, topic_id: uuid.UUID, partition: int, max_bytes: int = -1,
                 fetch_offset: int = -1, high_watermark: int = -1, leader_epoch: int | None = None,
                 fetcher_log_start_offset: int = -1, local_log_start_offset: int = -1,
                 last_fetched_epoch: int | None = None) -> None:
        self.topic = topic
        self.topic_id = topic_id
        self.partition = partition
        self.max_bytes = max_bytes
        self.fetch_offset = fetch_offset
        self.high_watermark = high_watermark
        self.leader_epoch = leader_epoch
        self.fetcher_log_start_offset = fetcher_log_start_offset
        self.local_log_start_offset = local_log_start_offset
        self.last_fetched_epoch = last_fetched_epoch

    @staticmethod
    def of(part: TopicIdPartition, req_data: PartitionData | None = None,
           resp_data: RespPartitionData | None = None) -> CachedPartition:
        """Kafka's other constructors: from the partition alone (a lookup key), with its request data, and with its
        response data too."""
        if req_data is None:
            return CachedPartition(part.topic, part.topic_id, part.partition)
        return CachedPartition(
            part.topic, part.topic_id, part.partition, req_data.max_bytes, req_data.fetch_offset,
            -1 if resp_data is None else resp_data.high_watermark, req_data.current_leader_epoch,
            req_data.log_start_offset, -1 if resp_data is None else resp_data.log_start_offset,
            req_data.last_fetched_epoch)

    def req_data(self) -> PartitionData:
        return PartitionData(self.topic_id, self.fetch_offset, self.fetcher_log_start_offset, self.max_bytes,
                             self.leader_epoch, self.last_fetched_epoch)

    def update_request_params(self, req_data: PartitionData) -> None:
        self.max_bytes = req_data.max_bytes
        self.fetch_offset = req_data.fetch_offset
        self.fetcher_log_start_offset = req_data.log_start_offset
        self.leader_epoch = req_data.current_leader_epoch
        self.last_fetched_epoch = req_data.last_fetched_epoch

    def maybe_resolve_unknown_name(self, topic_names: TOPIC_NAME_MAP) -> None:
        if self.topic is None:
            self.topic = topic_names.get(self.topic_id)

    def maybe_update_response_data(self, resp_data: RespPartitionData, update_response_data: bool) -> bool:
        """Whether the partition must be in the response to the fetcher; with `update_response_data`, also remember
        what this response tells it. Call with the session's lock held."""
        must_respond = False
        if FetchResponse.records_size(resp_data) > 0:
            must_respond = True  # new data always goes out
        if self.high_watermark != resp_data.high_watermark:
            must_respond = True
            if update_response_data:
                self.high_watermark = resp_data.high_watermark
        if self.local_log_start_offset != resp_data.log_start_offset:
            must_respond = True
            if update_response_data:
                self.local_log_start_offset = resp_data.log_start_offset
        if FetchResponse.is_preferred_replica(resp_data):
            must_respond = True  # the fetcher must learn the preferred read replica
        if resp_data.error_code != Errors.NONE.code:
            # An error always goes out. The cached high watermark becomes invalid so the partition is sent again
            # once the error is gone.
            if update_response_data:
                self.high_watermark = -1
            must_respond = True
        if FetchResponse.is_diverging_epoch(resp_data):
            must_respond = True  # the fetcher must truncate
        return must_respond

    # With topic ids, a partition whose name is not known yet is the same partition as the named one: id and
    # partition decide. Without them (every id zero), name and partition do; the hash follows the same rule.
    def __hash__(self) -> int:
        if self.topic_id != ZERO_UUID:
            return hash((self.partition, self.topic_id))
        return hash((self.partition, self.topic))

    def __eq__(self, that: object) -> bool:
        if not isinstance(that, CachedPartition):
            return False
        if self is that:
            return True
        if self.topic_id != ZERO_UUID:
            return self.partition == that.partition and self.topic_id == that.topic_id
        return self.partition == that.partition and self.topic == that.topic

    def __str__(self) -> str:
        return (f"CachedPartition(topic={self.topic}, topicId={Uuid.from_bytes(self.topic_id.bytes)}, "
                f"partition={self.partition}, "
                f"maxBytes={self.max_bytes}, fetchOffset={self.fetch_offset}, highWatermark={self.high_watermark}, "
                f"fetcherLogStartOffset={self.fetcher_log_start_offset}, "
                f"localLogStartOffset={self.local_log_start_offset})")

    __repr__ = __str__


class CacheMap:
    """FetchSession.CACHE_MAP, an ImplicitLinkedHashCollection[CachedPartition]: insertion-ordered, an element found
    by any equal key. `remove` then `must_add` moves an element to the end."""

    def __init__(self, expected_num_elements: int = 0) -> None:
        self._elements: dict[CachedPartition, CachedPartition] = {}

    def find(self, key: CachedPartition) -> CachedPartition | None:
        return self._elements.get(key)

    def add(self, element: CachedPartition) -> bool:
        if element in self._elements:
            return False
        self._elements[element] = element
        return True

    def must_add(self, element: CachedPartition) -> None:
        if not self.add(element):
            raise RuntimeError(f"Unable to add {element}")

    def remove(self, key: CachedPartition) -> bool:
        return self._elements.pop(key, None) is not None

    def size(self) -> int:
        return len(self._elements)

    def is_empty(self) -> bool:
        return not self._elements

    def __len__(self) -> int:
        return len(self._elements)

    def __iter__(self) -> Iterator[CachedPartition]:
        return iter(self._elements)


class LastUsedKey(NamedTuple):
    """Orders sessions by last use, then id."""

    last_used_ms: int
    id: int


class EvictableKey(NamedTuple):
    """Orders sessions from the least to the most worth keeping: unprivileged first, then fewer partitions, then
    id."""

    privileged: bool
    size: int
    id: int


class FetchSession:
    """A session: its id, whether a follower made it (privileged), its partitions, whether it names topics by id,
    when it was made and last used (changed only by FetchSessionCacheShard.touch) and its epoch, the number the
    next request must carry. Read or change its mutable fields, partitions included, only under `lock`."""

    def __init__(self, id: int, privileged: bool, partition_map: CacheMap, uses_topic_ids: bool, creation_ms: int,
                 last_used_ms: int, epoch: int) -> None:
        self.id = id
        self.privileged = privileged
        self.partition_map = partition_map
        self.uses_topic_ids = uses_topic_ids
        self.creation_ms = creation_ms
        self.last_used_ms = last_used_ms
        self.epoch = epoch
        self.cached_size = -1  # the size the cache last saw; -1 while the session is not in the cache
        self.lock = threading.RLock()

    def size(self) -> int:
        with self.lock:
            return self.partition_map.size()

    def is_empty(self) -> bool:
        with self.lock:
            return self.partition_map.is_empty()

    def last_used_key(self) -> LastUsedKey:
        with self.lock:
            return LastUsedKey(self.last_used_ms, self.id)

    def evictable_key(self) -> EvictableKey:
        with self.lock:
            return EvictableKey(self.privileged, self.cached_size, self.id)

    def metadata(self) -> FetchMetadata:
        with self.lock:
            return FetchMetadata(self.id, self.epoch)

    def get_fetch_offset(self, topic_id_partition: TopicIdPartition) -> int | None:
        with self.lock:
            cached = self.partition_map.find(CachedPartition.of(topic_id_partition))
            return None if cached is None else cached.fetch_offset

    def update(self, fetch_data: REQ_MAP, to_forget: Iterable[TopicIdPartition],
               req_metadata: FetchMetadata) -> tuple[list[TopicIdPartition], list[TopicIdPartition],
                                                     list[TopicIdPartition]]:
        """Apply an incremental request: its partitions are added or updated, its forgotten ones removed. Returns
        (added, updated, removed)."""
        with self.lock:
            added: list[TopicIdPartition] = []
            updated: list[TopicIdPartition] = []
            removed: list[TopicIdPartition] = []
            for topic_part, req_data in fetch_data.items():
                cached_partition_key = CachedPartition.of(topic_part, req_data)
                cached_part = self.partition_map.find(cached_partition_key)
                if cached_part is None:
                    self.partition_map.must_add(cached_partition_key)
                    added.append(topic_part)
                else:
                    cached_part.update_request_params(req_data)
                    updated.append(topic_part)
            for p in to_forget:
                if self.partition_map.remove(CachedPartition.of(p)):
                    removed.append(p)
            return added, updated, removed

    def __str__(self) -> str:
        with self.lock:
            return (f"FetchSession(id={self.id}, privileged={str(self.privileged).lower()}, "
                    f"partitionMap.size={self.partition_map.size()}, "
                    f"usesTopicIds={str(self.uses_topic_ids).lower()}, creationMs={self.creation_ms}, "
                    f"lastUsedMs={self.last_used_ms}, epoch={self.epoch})")


class FetchContext:
    """What a fetch request is, as far as its session goes: where its partitions come from and how its response is
    made."""

    log = logging.getLogger("kafka.server.FetchContext")

    def get_fetch_offset(self, part: TopicIdPartition) -> int | None:
        """The fetch offset of a partition of the request, None if it has none."""
        raise NotImplementedError

    def foreach_partition(self, fun: Callable[[TopicIdPartition, PartitionData], None]) -> None:
        """Call `fun` with each partition the request fetches, and its request data."""
        raise NotImplementedError

    def get_response_size(self, updates: RESP_MAP, version_id: int) -> int:
        """The size the response would have, for the quota check. The context must not change here: a throttled
        request gets an empty response instead."""
        raise NotImplementedError

    def update_and_generate_response_data(self, updates: RESP_MAP) -> FetchResponse:
        """Update the context from the partitions' new data, and make the response."""
        raise NotImplementedError

    def partitions_to_log_string(self, partitions: Collection[TopicIdPartition]) -> str:
        return partitions_to_log_string(partitions, self.log.isEnabledFor(TRACE))

    def get_throttled_response(self, throttle_time_ms: int) -> FetchResponse:
        """The empty response of a request over its quota."""
        return FetchResponse.of(Errors.NONE, throttle_time_ms, INVALID_SESSION_ID, {})


class SessionErrorContext(FetchContext):
    """A request whose session is wrong: which partitions it meant is unknown, so it gets only the error."""

    log = logging.getLogger("kafka.server.SessionErrorContext")

    def __init__(self, error: Errors, req_metadata: FetchMetadata) -> None:
        self.error = error
        self.req_metadata = req_metadata

    def get_fetch_offset(self, part: TopicIdPartition) -> int | None:
        return None

    def foreach_partition(self, fun: Callable[[TopicIdPartition, PartitionData], None]) -> None:
        pass

    def get_response_size(self, updates: RESP_MAP, version_id: int) -> int:
        return FetchResponse.size_of(version_id, iter(()))

    def update_and_generate_response_data(self, updates: RESP_MAP) -> FetchResponse:
        self.log.debug("Session error fetch context returning %s", self.error.name)
        return FetchResponse.of(self.error, 0, INVALID_SESSION_ID, {})


class SessionlessFetchContext(FetchContext):
    """A request outside any session: it fetches what it lists, and gets every partition back."""

    log = logging.getLogger("kafka.server.SessionlessFetchContext")

    def __init__(self, fetch_data: REQ_MAP) -> None:
        self.fetch_data = fetch_data

    def get_fetch_offset(self, part: TopicIdPartition) -> int | None:
        data = self.fetch_data.get(part)
        return None if data is None else data.fetch_offset

    def foreach_partition(self, fun: Callable[[TopicIdPartition, PartitionData], None]) -> None:
        for tp, data in self.fetch_data.items():
            fun(tp, data)

    def get_response_size(self, updates: RESP_MAP, version_id: int) -> int:
        return FetchResponse.size_of(version_id, iter(updates.items()))

    def update_and_generate_response_data(self, updates: RESP_MAP) -> FetchResponse:
        self.log.debug("Sessionless fetch context returning %s", self.partitions_to_log_string(updates.keys()))
        return FetchResponse.of(Errors.NONE, 0, INVALID_SESSION_ID, updates)


class FullFetchContext(FetchContext):
    """A full request that may start a session: it fetches what it lists; its response tries to create a session
    (from a follower, a privileged one) holding the partitions answered."""

    log = logging.getLogger("kafka.server.FullFetchContext")

    def __init__(self, time: Time, cache: FetchSessionCache | FetchSessionCacheShard, req_metadata: FetchMetadata,
                 fetch_data: REQ_MAP, uses_topic_ids: bool, is_from_follower: bool) -> None:
        self._time = time
        # Kafka's second constructor takes one shard
        self._cache = FetchSessionCache([cache]) if isinstance(cache, FetchSessionCacheShard) else cache
        self._req_metadata = req_metadata
        self._fetch_data = fetch_data
        self._uses_topic_ids = uses_topic_ids
        self._is_from_follower = is_from_follower

    def get_fetch_offset(self, part: TopicIdPartition) -> int | None:
        data = self._fetch_data.get(part)
        return None if data is None else data.fetch_offset

    def foreach_partition(self, fun: Callable[[TopicIdPartition, PartitionData], None]) -> None:
        for tp, data in self._fetch_data.items():
            fun(tp, data)

    def get_response_size(self, updates: RESP_MAP, version_id: int) -> int:
        return FetchResponse.size_of(version_id, iter(updates.items()))

    def update_and_generate_response_data(self, updates: RESP_MAP) -> FetchResponse:
        def create_new_session() -> CacheMap:
            cached_partitions = CacheMap(len(updates))
            for part, resp_data in updates.items():
                req_data = self._fetch_data.get(part)
                cached_partitions.must_add(CachedPartition.of(part, req_data, resp_data))
            return cached_partitions

        cache_shard = self._cache.get_next_cache_shard()
        response_session_id = cache_shard.maybe_create_session(self._time.milliseconds(), self._is_from_follower,
                                                               len(updates), self._uses_topic_ids,
                                                               create_new_session)
        self.log.debug("Full fetch context with session id %d returning %s", response_session_id,
                       self.partitions_to_log_string(updates.keys()))
        return FetchResponse.of(Errors.NONE, 0, response_session_id, updates)


class IncrementalFetchContext(FetchContext):
    """A request in a session: it fetches every partition of the session, and its response carries only the
    partitions with news. `topic_names` names the session's partitions whose topic was unknown so far."""

    log = logging.getLogger("kafka.server.IncrementalFetchContext")

    def __init__(self, time: Time, req_metadata: FetchMetadata, session: FetchSession,
                 topic_names: TOPIC_NAME_MAP) -> None:
        self._time = time
        self._req_metadata = req_metadata
        self._session = session
        self._topic_names = topic_names

    def get_fetch_offset(self, tp: TopicIdPartition) -> int | None:
        return self._session.get_fetch_offset(tp)

    def foreach_partition(self, fun: Callable[[TopicIdPartition, PartitionData], None]) -> None:
        with self._session.lock:
            for part in self._session.partition_map:
                # a partition still without a name may have one by now
                if self._session.uses_topic_ids:
                    part.maybe_resolve_unknown_name(self._topic_names)
                fun(TopicIdPartition(part.topic_id, TopicPartition(part.topic, part.partition)), part.req_data())

    def _partition_iterator(self, updates: RESP_MAP, update_fetch_context_and_remove_unselected: bool
                            ) -> Iterator[tuple[TopicIdPartition, RespPartitionData]]:
        """Kafka's PartitionIterator: the updates that must go in the response. With
        `update_fetch_context_and_remove_unselected`, the session learns what the selected ones say, the others
        leave `updates`, and a partition that returns records moves to the end of the session's order (the next
        responses favour the others)."""
        for topic_part, resp_data in list(updates.items()):
            cached_part = self._session.partition_map.find(CachedPartition.of(topic_part))
            must_respond = cached_part.maybe_update_response_data(resp_data,
                                                                  update_fetch_context_and_remove_unselected)
            if must_respond:
                if update_fetch_context_and_remove_unselected and FetchResponse.records_size(resp_data) > 0:
                    self._session.partition_map.remove(cached_part)
                    self._session.partition_map.must_add(cached_part)
                yield topic_part, resp_data
            elif update_fetch_context_and_remove_unselected:
                del updates[topic_part]

    def get_response_size(self, updates: RESP_MAP, version_id: int) -> int:
        with self._session.lock:
            expected_epoch = next_epoch(self._req_metadata.epoch)
            if self._session.epoch != expected_epoch:
                return FetchResponse.size_of(version_id, iter(()))
            # neither the context nor the updates change here
            return FetchResponse.size_of(version_id, self._partition_iterator(updates, False))

    def update_and_generate_response_data(self, updates: RESP_MAP) -> FetchResponse:
        with self._session.lock:
            # the session's epoch may have moved on since this context was made: a duplicate request
            expected_epoch = next_epoch(self._req_metadata.epoch)
            if self._session.epoch != expected_epoch:
                self.log.info("Incremental fetch session %d expected epoch %d, but got %d.  Possible duplicate "
                              "request.", self._session.id, expected_epoch, self._session.epoch)
                return FetchResponse.of(Errors.INVALID_FETCH_SESSION_EPOCH, 0, self._session.id, {})
            # drain the iterator: it prunes the updates that need not be sent
            for _ in self._partition_iterator(updates, True):
                pass
            self.log.debug("Incremental fetch context with session id %d returning %s", self._session.id,
                           self.partitions_to_log_string(updates.keys()))
            return FetchResponse.of(Errors.NONE, 0, self._session.id, updates)

    def get_throttled_response(self, throttle_time_ms: int) -> FetchResponse:
        with self._session.lock:
            expected_epoch = next_epoch(self._req_metadata.epoch)
            if self._session.epoch != expected_epoch:
                self.log.info("Incremental fetch session %d expected epoch %d, but got %d.  Possible duplicate "
                              "request.", self._session.id, expected_epoch, self._session.epoch)
                return FetchResponse.of(Errors.INVALID_FETCH_SESSION_EPOCH, throttle_time_ms, self._session.id, {})
            return FetchResponse.of(Errors.NONE, throttle_time_ms, self._session.id, {})


K = TypeVar("K")
V = TypeVar("V")


class _TreeMap(Generic[K, V]):
    """The part of java.util.TreeMap the cache uses: put, remove, and the entry with the smallest key."""

    def __init__(self) -> None:
        self._keys: list[K] = []
        self._values: dict[K, V] = {}

    def put(self, key: K, value: V) -> None:
        if key not in self._values:
            bisect.insort(self._keys, key)
        self._values[key] = value

    def remove(self, key: K) -> V | None:
        value = self._values.pop(key, None)
        if value is not None:
            del self._keys[bisect.bisect_left(self._keys, key)]
        return value

    def first_entry(self) -> tuple[K, V] | None:
        return (self._keys[0], self._values[self._keys[0]]) if self._keys else None


class _Counter:
    """The eviction meter, reduced to its count."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._count = 0

    def mark(self) -> None:
        with self._lock:
            self._count += 1

    def count(self) -> int:
        with self._lock:
            return self._count


class FetchSessionCacheShard:
    """One shard of the session cache: at most `max_entries` sessions, whose ids lie in
    [max(1, shard_num * session_id_range), (shard_num + 1) * session_id_range). A session unused for more than
    `eviction_ms` is stale. All methods hold `lock`; never take it while holding a session's lock (deadlock)."""

    def __init__(self, max_entries: int, eviction_ms: int, session_id_range: int = INT_MAX,
                 shard_num: int = 0) -> None:
        self._max_entries = max_entries
        self._eviction_ms = eviction_ms
        self.session_id_range = session_id_range
        self._shard_num = shard_num
        self.log_ident = f"[Shard {shard_num}] "
        self.log = logging.getLogger("kafka.server.FetchSessionCacheShard")
        self.lock = threading.RLock()
        self._num_partitions = 0
        self._sessions: dict[int, FetchSession] = {}
        self._last_used: _TreeMap[LastUsedKey, FetchSession] = _TreeMap()  # sessions by last use
        self._evictable_by_all: _TreeMap[EvictableKey, FetchSession] = _TreeMap()  # evictable by any new session
        self._evictable_by_privileged: _TreeMap[EvictableKey, FetchSession] = _TreeMap()  # by privileged ones only
        self.evictions_meter = _Counter()

    def get(self, session_id: int) -> FetchSession | None:
        with self.lock:
            return self._sessions.get(session_id)

    def size(self) -> int:
        """The number of sessions in the shard."""
        with self.lock:
            return len(self._sessions)

    def total_partitions(self) -> int:
        """The number of partitions cached in all the shard's sessions."""
        with self.lock:
            return self._num_partitions

    def new_session_id(self) -> int:
        """A random id in the shard's range, positive and not in use."""
        with self.lock:
            while True:
                id = random.randrange(max(1, self._shard_num * self.session_id_range),
                                      (self._shard_num + 1) * self.session_id_range)
                if id not in self._sessions and id != INVALID_SESSION_ID:
                    return id

    def maybe_create_session(self, now: int, privileged: bool, size: int, uses_topic_ids: bool,
                             create_partitions: Callable[[], CacheMap]) -> int:
        """Create a session if there is room or an entry can be evicted for it; its id, or INVALID_SESSION_ID.
        `create_partitions` makes its partitions."""
        with self.lock:
            if len(self._sessions) < self._max_entries or \
                    self._try_evict(privileged, EvictableKey(privileged, size, 0), now):
                partition_map = create_partitions()
                session = FetchSession(self.new_session_id(), privileged, partition_map, uses_topic_ids, now, now,
                                       next_epoch(INITIAL_EPOCH))
                self.log.debug("%sCreated fetch session %s", self.log_ident, session)
                self._sessions[session.id] = session
                self.touch(session, now)
                return session.id
            self.log.debug("%sNo fetch session created for privileged=%s, size=%d.", self.log_ident,
                           str(privileged).lower(), size)
            return INVALID_SESSION_ID

    def _try_evict(self, privileged: bool, key: EvictableKey, now: int) -> bool:
        """Evict an entry to make room for a new one with `key`. A new entry A may evict an entry B if B is stale,
        or A is privileged and B is not, or A has more partitions than B and B is not new. Only entries of this
        shard are considered (before KAFKA-9401 the one cache considered all). Whether one was evicted."""
        with self.lock:
            last_used_entry = self._last_used.first_entry()
            if last_used_entry is None:
                self.log.log(TRACE, "%sThere are no cache entries to evict.", self.log_ident)
                return False
            if now - last_used_entry[0].last_used_ms > self._eviction_ms:
                session = last_used_entry[1]
                self.log.log(TRACE, "%sEvicting stale FetchSession %d.", self.log_ident, session.id)
                self.remove(session)
                self.evictions_meter.mark()
                return True
            # nothing stale: the least valuable evictable entry goes if it is worth less than the new one
            evictable = self._evictable_by_privileged if privileged else self._evictable_by_all
            evictable_entry = evictable.first_entry()
            if evictable_entry is None:
                self.log.log(TRACE, "%sNo evictable entries found.", self.log_ident)
                return False
            if key < evictable_entry[0]:
                self.log.log(TRACE, "%sCan't evict %s with %s", self.log_ident, evictable_entry[0], key)
                return False
            self.log.log(TRACE, "%sEvicting %s with %s.", self.log_ident, evictable_entry[0], key)
            self.remove(evictable_entry[1])
            self.evictions_meter.mark()
            return True

    def remove(self, session: FetchSession | int) -> FetchSession | None:
        """Remove a session (given, or by id) from the shard; the removed session, or None if it was not there."""
        with self.lock:
            if isinstance(session, int):
                found = self.get(session)
                return None if found is None else self.remove(found)
            with session.lock:
                self._last_used.remove(session.last_used_key())
                evictable_key = session.evictable_key()
            self._evictable_by_all.remove(evictable_key)
            self._evictable_by_privileged.remove(evictable_key)
            remove_result = self._sessions.pop(session.id, None)
            if remove_result is not None:
                self._num_partitions -= session.cached_size
            return remove_result

    def touch(self, session: FetchSession, now: int) -> None:
        """Mark the session used at `now`, and file it again by last use and by evictability."""
        with self.lock, session.lock:
            self._last_used.remove(session.last_used_key())
            session.last_used_ms = now
            self._last_used.put(session.last_used_key(), session)

            old_size = session.cached_size
            if old_size != -1:
                old_evictable_key = session.evictable_key()
                self._evictable_by_privileged.remove(old_evictable_key)
                self._evictable_by_all.remove(old_evictable_key)
                self._num_partitions -= old_size
            session.cached_size = session.size()
            new_evictable_key = session.evictable_key()
            # a privileged session is evictable only once it is no longer new, and then by anyone
            if not session.privileged or now - session.creation_ms > self._eviction_ms:
                self._evictable_by_privileged.put(new_evictable_key, session)
            if now - session.creation_ms > self._eviction_ms:
                self._evictable_by_all.put(new_evictable_key, session)
            self._num_partitions += session.cached_size


class _AtomicInteger:
    """java.util.concurrent.atomic.AtomicInteger: an int32 that wraps on overflow."""

    def __init__(self, value: int = 0) -> None:
        self._lock = threading.Lock()
        self._value = value

    def get_and_increment(self) -> int:
        with self._lock:
            value = self._value
            self._value = (value + 1 + 2**31) % 2**32 - 2**31
            return value

    def set(self, value: int) -> None:
        with self._lock:
            self._value = value


def _to_positive(number: int) -> int:
    """Utils.toPositive: the int32's sign bit cleared."""
    return number & 0x7FFFFFFF


class FetchSessionCache:
    """The sharded session cache: a session's id says its shard; new sessions go to the shards in turn. The shards
    must be in shard number order."""

    counter = _AtomicInteger(0)  # shared by every cache, as Kafka's is

    def __init__(self, cache_shards: list[FetchSessionCacheShard]) -> None:
        self._cache_shards = list(cache_shards)

    def get_cache_shard(self, session_id: int) -> FetchSessionCacheShard:
        """The shard that owns `session_id` (IndexError past the last one)."""
        shard = session_id // self._cache_shards[0].session_id_range
        return self._cache_shards[shard]

    def get_next_cache_shard(self) -> FetchSessionCacheShard:
        """The next shard, round-robin."""
        shard_num = _to_positive(FetchSessionCache.counter.get_and_increment()) % self.size()
        return self._cache_shards[shard_num]

    def size(self) -> int:
        return len(self._cache_shards)


class FetchManager:
    """Gives each fetch request its context, from its session id and epoch."""

    log = logging.getLogger("kafka.server.FetchManager")

    def __init__(self, time: Time, cache: FetchSessionCache | FetchSessionCacheShard) -> None:
        self._time = time
        # Kafka's second constructor takes one shard
        self._cache = FetchSessionCache([cache]) if isinstance(cache, FetchSessionCacheShard) else cache

    @step("RQ.fetch.2")
    def new_context(self, req_version: int, req_metadata: FetchMetadata, is_follower: bool, fetch_data: REQ_MAP,
                    to_forget: list[TopicIdPartition], topic_names: TOPIC_NAME_MAP) -> FetchContext:
        """A full request closes the session it names, then gets a new one (a FullFetchContext) unless its epoch is
        FINAL (a SessionlessFetchContext). An incremental request continues its session, or gets a
        SessionErrorContext if the session is unknown, the epoch wrong, or the request's use of topic ids differs
        from the session's; a session left with no partitions closes."""
        if req_metadata.is_full():
            removed_fetch_session_str = ""
            if req_metadata.session_id != INVALID_SESSION_ID:
                cache_shard = self._cache.get_cache_shard(req_metadata.session_id)
                if cache_shard.remove(req_metadata.session_id) is not None:
                    removed_fetch_session_str = f" Removed fetch session {req_metadata.session_id}."
            suffix = ""
            if req_metadata.epoch == FINAL_EPOCH:
                suffix = " Will not try to create a new session."
                context: FetchContext = SessionlessFetchContext(fetch_data)
            else:
                context = FullFetchContext(self._time, self._cache, req_metadata, fetch_data, req_version >= 13,
                                           is_follower)
            self.log.debug("Created a new full FetchContext with %s.%s%s",
                           self._partitions_to_log_string(fetch_data.keys()), removed_fetch_session_str, suffix)
            return context

        cache_shard = self._cache.get_cache_shard(req_metadata.session_id)
        with cache_shard.lock:
            session = cache_shard.get(req_metadata.session_id)
            if session is None:
                self.log.debug("Session error for %d: no such session ID found.", req_metadata.session_id)
                return SessionErrorContext(Errors.FETCH_SESSION_ID_NOT_FOUND, req_metadata)
            with session.lock:
                if session.epoch != req_metadata.epoch:
                    self.log.debug("Session error for %d: expected epoch %d, but got %d instead.",
                                   req_metadata.session_id, session.epoch, req_metadata.epoch)
                    return SessionErrorContext(Errors.INVALID_FETCH_SESSION_EPOCH, req_metadata)
                if (session.uses_topic_ids and req_version < 13) or (not session.uses_topic_ids and req_version >= 13):
                    self.log.debug("Session error for %d: expected  %s, but request version %d means that we can "
                                   "not.", req_metadata.session_id,
                                   "to use topic IDs" if session.uses_topic_ids else "to not use topic IDs",
                                   req_version)
                    return SessionErrorContext(Errors.FETCH_SESSION_TOPIC_ID_ERROR, req_metadata)
                added, updated, removed = session.update(fetch_data, to_forget, req_metadata)
                if session.is_empty():
                    self.log.debug("Created a new sessionless FetchContext and closing session id %d, epoch %d: "
                                   "after removing %s, there are no more partitions left.", session.id,
                                   session.epoch, self._partitions_to_log_string(removed))
                    cache_shard.remove(session)
                    return SessionlessFetchContext(fetch_data)
                cache_shard.touch(session, self._time.milliseconds())
                session.epoch = next_epoch(session.epoch)
                self.log.debug("Created a new incremental FetchContext for session id %d, epoch %d: added %s, "
                               "updated %s, removed %s", session.id, session.epoch,
                               self._partitions_to_log_string(added), self._partitions_to_log_string(updated),
                               self._partitions_to_log_string(removed))
                return IncrementalFetchContext(self._time, req_metadata, session, topic_names)

    def _partitions_to_log_string(self, partitions: Collection[TopicIdPartition]) -> str:
        return partitions_to_log_string(partitions, self.log.isEnabledFor(TRACE))


__all__ = ["CacheMap", "CachedPartition", "EvictableKey", "FetchContext", "FetchManager", "FetchSession",
           "FetchSessionCache", "FetchSessionCacheShard", "FullFetchContext", "IncrementalFetchContext",
           "LastUsedKey", "SessionErrorContext", "SessionlessFetchContext", "partitions_to_log_string"]
