"""Producer ids on KRaft (Kafka 3.9): ProducerIdControlManager hands out blocks as ProducerIdsRecords through the
QuorumController; the image (and so a snapshot) carries the next id; a broker's RPCProducerIdManager claims ids
from the blocks it is given."""

from __future__ import annotations

from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import pytest
from kio.schema.allocate_producer_ids.v0.request import AllocateProducerIdsRequest
from kio.static.primitive import i32, i64

from kafka_edu.v1_0_2.clients.common.errors import CoordinatorLoadInProgressException
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from kafka_edu.v3_9.core.coordinator.transaction.rpc_producer_id_manager import RPCProducerIdManager
from kafka_edu.v3_9.metadata.common.metadata import ProducerIdsRecord
from kafka_edu.v3_9.metadata.controller.controller_exceptions import StaleBrokerEpochException
from kafka_edu.v3_9.metadata.controller.controller_request_context import ANONYMOUS_CONTEXT
from kafka_edu.v3_9.metadata.image.metadata_delta import MetadataDelta
from kafka_edu.v3_9.metadata.image.metadata_image import MetadataImage
from kafka_edu.v3_9.metadata.image.metadata_provenance import MetadataProvenance
from kafka_edu.v3_9.metadata.image.writer.image_writer_options import ImageWriterOptions
from kafka_edu.v3_9.metadata.image.writer.record_list_writer import RecordListWriter
from kafka_edu.v3_9.server_common.server.common.metadata_version import MetadataVersion
from tests.integration.helpers import wait_until
from tests.unit.controller_kraft.test_kraft_quorum_controller import (
    TIMEOUT,
    Cluster,
    record_types,
    register_and_unfence,
    result,
)


@pytest.fixture
def clusters() -> Iterator[list[Cluster]]:
    made: list[Cluster] = []
    yield made
    for cluster in made:
        cluster.close()


def allocate(controller: Any, broker_id: int, epoch: int) -> Any:
    return controller.allocate_producer_ids(ANONYMOUS_CONTEXT, AllocateProducerIdsRequest(
        broker_id=i32(broker_id), broker_epoch=i64(epoch)))


def test_blocks_are_consecutive_committed_records_and_a_new_controller_goes_on_from_the_last(
        clusters: list[Cluster]) -> None:
    cluster = Cluster(num_controllers=2)
    clusters.append(cluster)
    active = cluster.activate(0)
    epochs = register_and_unfence(cluster, active, [1, 2])
    first = result(allocate(active, 1, epochs[1]))
    second = result(allocate(active, 2, epochs[2]))
    assert (first.first_producer_id(), first.size()) == (0, 1000)
    assert (second.first_producer_id(), second.assigned_broker_id) == (1000, 2)
    assert record_types(cluster).count("ProducerIdsRecord") == 2

    # the standby replayed both: once it leads, it hands out the block after them, never one of theirs
    standby = cluster.controllers[1]
    wait_until(lambda: standby.producer_id_control_manager.next_producer_block().first_producer_id() == 2000,
               TIMEOUT, "the standby replays the ProducerIdsRecords")
    new = cluster.activate(1)
    third = result(allocate(new, 1, epochs[1]))
    assert third.first_producer_id() == 2000


def test_a_stale_broker_epoch_gets_stale_broker_epoch_and_writes_nothing(clusters: list[Cluster]) -> None:
    cluster = Cluster()
    clusters.append(cluster)
    active = cluster.activate(0)
    epochs = register_and_unfence(cluster, active, [1])
    before = record_types(cluster)
    with pytest.raises(StaleBrokerEpochException):
        result(allocate(active, 1, epochs[1] - 1))
    with pytest.raises(StaleBrokerEpochException):
        result(allocate(active, 9, 0))  # never registered
    assert record_types(cluster) == before
    assert Errors.for_exception(StaleBrokerEpochException("x")) == Errors.STALE_BROKER_EPOCH


def test_replay_refuses_a_record_that_would_move_the_ids_back(clusters: list[Cluster]) -> None:
    cluster = Cluster()
    clusters.append(cluster)
    manager = cluster.activate(0).producer_id_control_manager
    manager.replay(ProducerIdsRecord(broker_id=i32(1), broker_epoch=i64(5), next_producer_id=i64(3000)))
    with pytest.raises(RuntimeError, match="not greater"):
        manager.replay(ProducerIdsRecord(broker_id=i32(1), broker_epoch=i64(5), next_producer_id=i64(3000)))
    assert manager.next_producer_block().first_producer_id() == 3000


def test_the_image_and_so_a_snapshot_carries_the_next_producer_id() -> None:
    delta = MetadataDelta.Builder().set_image(MetadataImage.EMPTY).build()
    delta.replay(ProducerIdsRecord(broker_id=i32(4), broker_epoch=i64(7), next_producer_id=i64(1000)))
    delta.replay(ProducerIdsRecord(broker_id=i32(5), broker_epoch=i64(9), next_producer_id=i64(2000)))
    image = delta.apply(MetadataProvenance(10, 1, 0))
    assert image.producer_ids.next_producer_id == 2000 and not image.is_empty()
    writer = RecordListWriter()
    image.write(writer, ImageWriterOptions.Builder().set_metadata_version(MetadataVersion.IBP_3_9_IV0).build())
    written = [r.message for r in writer.records() if isinstance(r.message, ProducerIdsRecord)]
    assert [(r.broker_id, r.next_producer_id) for r in written] == [(-1, 2000)]
    # a snapshot that does not mention producer ids leaves them where they were
    reloaded = MetadataDelta.Builder().set_image(image).build()
    reloaded.finish_snapshot()
    assert reloaded.apply(MetadataProvenance(11, 1, 0)).producer_ids.next_producer_id == 2000


class FakeChannel:
    """The broker's channel to the controller: keeps what was sent; the test answers."""

    def __init__(self) -> None:
        self.sent: list[tuple[Any, Any]] = []

    def send_request(self, request: Any, handler: Any) -> None:
        self.sent.append((request, handler))

    def answer(self, error: Errors = Errors.NONE, start: int = 0, length: int = 1000) -> None:
        _request, handler = self.sent[-1]
        handler.on_complete(SimpleNamespace(response_body=SimpleNamespace(
            error_code=error.value, producer_id_start=start, producer_id_len=length)))


def test_rpc_manager_asks_for_a_block_retries_meanwhile_and_prefetches_the_next_at_90_percent() -> None:
    now = [0]
    channel = FakeChannel()
    manager = RPCProducerIdManager(4, lambda: 17, channel, milliseconds=lambda: now[0])
    with pytest.raises(CoordinatorLoadInProgressException):
        manager.generate_producer_id()
    assert len(channel.sent) == 1
    request = channel.sent[0][0]
    assert (request.data.broker_id, request.data.broker_epoch) == (4, 17)
    with pytest.raises(CoordinatorLoadInProgressException):
        manager.generate_producer_id()
    assert len(channel.sent) == 1  # one request in flight at a time
    channel.answer(start=5000, length=1000)
    ids = [manager.generate_producer_id() for _ in range(900)]
    assert ids == list(range(5000, 5900))
    assert len(channel.sent) == 1
    assert manager.generate_producer_id() == 5900  # 90% used: the next block is asked for now
    assert len(channel.sent) == 2
    channel.answer(start=6000, length=1000)
    rest = [manager.generate_producer_id() for _ in range(99)]
    assert rest == list(range(5901, 6000))
    assert manager.generate_producer_id() == 6000  # the next block, with no wait


def test_rpc_manager_refuses_a_malformed_block_and_backs_off_after_an_error() -> None:
    now = [0]
    channel = FakeChannel()
    manager = RPCProducerIdManager(4, lambda: 17, channel, milliseconds=lambda: now[0])
    with pytest.raises(CoordinatorLoadInProgressException):
        manager.generate_producer_id()
    channel.answer(start=-5, length=1000)
    with pytest.raises(CoordinatorLoadInProgressException):
        manager.generate_producer_id()
    assert len(channel.sent) == 1  # within the 50 ms backoff: no new request
    now[0] = 50
    with pytest.raises(CoordinatorLoadInProgressException):
        manager.generate_producer_id()
    assert len(channel.sent) == 2
    channel.answer(Errors.STALE_BROKER_EPOCH)
    now[0] = 100
    with pytest.raises(CoordinatorLoadInProgressException):
        manager.generate_producer_id()
    channel.answer(start=0, length=1000)
    assert manager.generate_producer_id() == 0
