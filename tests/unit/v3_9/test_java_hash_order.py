"""Our own test: JavaHashSet walks its elements in the order java.util.HashSet does (JDK 17), the order Kafka's
uniform assignors' answers depend on. The expected orders were printed by a Java program building the same sets.
Topic ids are uuid.UUID; _uuid(msb, lsb) is Java's new Uuid(msb, lsb) (signed longs) as one."""

from __future__ import annotations

import uuid

from kafka_edu.v3_9.clients.common.uuid import Uuid
from kafka_edu.v3_9.group_coordinator.coordinator.group.assignor.java_hash_order import (
    JavaHashSet,
    java_hash_code,
    java_hash_map_order,
)
from kafka_edu.v3_9.server_common.server.common.topic_id_partition import TopicIdPartition

_MASK64 = (1 << 64) - 1


def _uuid(msb: int, lsb: int) -> uuid.UUID:
    return uuid.UUID(int=((msb & _MASK64) << 64) | (lsb & _MASK64))


UUIDS = [_uuid(msb, lsb) for msb, lsb in [
    (-4588066762141701118, -7912908803613548926), (-7747173299880867347, -4565385657661118002),
    (579564241196435126, 6602457318652576433), (-3361053196040192472, 7704975138223047541),
    (-478957009993612106, -5286721520629762393), (8865034956231574663, 5380112710085299282),
    (-924917377818437675, -3311341186503823761), (-6702724865295600521, 6809089882916169883),
    (6645529480803663035, 8018081796930885386), (8436011436776032633, 8719562077786624187),
    (8651938460229599588, -3185338829648084755), (2786040548068544931, -3064627001040919599)]]
JAVA_ORDER = [5, 10, 3, 11, 4, 6, 7, 8, 2, 1, 0, 9]  # both new HashSet<>(list) and add() one by one

TOPICS = [_uuid(msb, lsb) for msb, lsb in [
    (-6169532649852302182, -1782466964123969572), (6802844026563419272, 5086654115216342560),
    (8552898714322622292, -4004755535478349341)]]
# every partition 0..5 of the three topics added, every third (in iteration order) removed, every sixth re-added
JAVA_TOPIC_PARTITION_ORDER = [(0, 4), (0, 5), (1, 5), (1, 2), (2, 0), (1, 1), (2, 1), (0, 1), (1, 4), (2, 2), (1, 3),
                              (2, 3), (0, 3), (2, 5), (1, 0)]


def test_uuid_sets_iterate_in_java_order():
    assert list(JavaHashSet(UUIDS)) == [UUIDS[i] for i in JAVA_ORDER]
    added: JavaHashSet[uuid.UUID] = JavaHashSet()
    for topic_id in UUIDS:
        added.add(topic_id)
    assert list(added) == [UUIDS[i] for i in JAVA_ORDER]
    assert java_hash_map_order(UUIDS) == [UUIDS[i] for i in JAVA_ORDER]


def test_topic_id_partition_set_after_removals_and_re_adds():
    partitions: JavaHashSet[TopicIdPartition] = JavaHashSet()
    for topic in TOPICS:
        for p in range(6):
            partitions.add(TopicIdPartition(topic, p))
    walked = list(partitions)
    for i in range(0, len(walked), 3):
        partitions.discard(walked[i])
    for i in range(0, len(walked), 6):
        partitions.add(walked[i])
    assert list(partitions) == [TopicIdPartition(TOPICS[t], p) for t, p in JAVA_TOPIC_PARTITION_ORDER]


def test_the_assignor_tests_fixed_topic_ids():
    # Kafka's uniform assignor tests rely on topic 3 coming before topic 1 in a HashSet
    topic1 = uuid.UUID(bytes=Uuid.from_string("T1-A4s3VTwiI5CTbEp6POw").to_bytes())
    topic3 = uuid.UUID(bytes=Uuid.from_string("T3-CU8fVTLCz5YMkLoDQsa").to_bytes())
    assert java_hash_code(topic1) == 418407434
    assert list(JavaHashSet([topic1, topic3])) == [topic3, topic1]
