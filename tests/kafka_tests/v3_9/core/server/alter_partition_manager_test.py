"""Port of core/src/test/scala/unit/kafka/server/AlterPartitionManagerTest.scala (Kafka 3.9).

Differences of form only:

- The mocked NodeToControllerChannelManager is `MockChannelManager`: it counts `start` and keeps each
  `send_request`; `verify_send_request` is Mockito's `verify(...).sendRequest(captor, captor)` (exactly that many
  calls since the last reset) followed by what the case does with the captured values.
- What the manager hands the channel is the port's ControllerRequest: the AlterPartitionRequest.Builder built at
  its newest allowed version (what Kafka's `captor.getValue.build()` gives), as kio's object of that version. So a
  request of version 1 carries topic names and no ids, one of version 3 ids and no names.
- A response is built at the version the case gives, from the fields that version has (Kafka serialises and parses
  it again for the same end). The port's ClientResponse has no request header: the manager reads the answer at the
  version it sent, which is the version every case answers at.
- `error.exception`: the port completes a future with an AlterPartitionError that carries the code; the cases
  compare the code (`error_of`) where Kafka compares the exception class.
"""

from __future__ import annotations

import uuid
from concurrent.futures import Future
from typing import Any

import pytest
from kio.schema.alter_partition import v1 as alter_partition_v1
from kio.schema.alter_partition import v3 as alter_partition_v3
from kio.static.primitive import i8, i32, i64

from kafka_edu.v1_0_2.clients.common.errors import AuthenticationException, UnsupportedVersionException
from kafka_edu.v3_9.clients.common.protocol.api_keys import ApiKeys
from kafka_edu.v3_9.clients.common.protocol.builder import build
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from kafka_edu.v3_9.clients.common.topic_id_partition import TopicIdPartition
from kafka_edu.v3_9.core.api.leader_and_isr import LeaderAndIsr
from kafka_edu.v3_9.core.server.alter_partition_manager import DefaultAlterPartitionManager, error_of
from kafka_edu.v3_9.core.server.node_to_controller_channel_manager import ClientResponse, ControllerRequest
from kafka_edu.v3_9.metadata.metadata.partition_registration import LeaderRecoveryState
from kafka_edu.v3_9.server_common.server.common.metadata_version import MetadataVersion
from kafka_edu.v3_9.server_common.server.util.mock_scheduler import MockScheduler
from kafka_edu.v3_9.server_common.server.util.mock_time import MockTime
from tests.kafka_tests.referee import kafka_test_class

KAFKA = kafka_test_class(
    "3.9", "core/src/test/scala/unit/kafka/server/AlterPartitionManagerTest.scala",
    cases=["testBasic", "testBasicWithBrokerEpoch", "testBasicSentLeaderRecoveryState", "testOverwriteWithinBatch",
           "testSingleBatch", "testSubmitFromCallback", "testAuthorizationFailed", "testStaleBrokerEpoch",
           "testUnknownServer", "testRetryOnAuthenticationFailure", "testRetryOnUnsupportedVersionError",
           "testInvalidUpdateVersion", "testUnknownTopicPartition", "testNotLeaderOrFollower", "testInvalidRequest",
           "testOneInFlight", "testPartitionMissingInResponse", "testPartialTopicIds", "testZkBasic"],
    not_applicable={
        "testZkBasic": "ZooKeeper mode: ZkAlterPartitionManager is not ported; this repository's ZooKeeper broker is "
                       "1.0.2's, whose Partition writes the partition znode itself",
    },
)

TOPIC = "test-topic"
TOPIC_ID = uuid.uuid4()
BROKER_ID = 1
ZERO_UUID = uuid.UUID(int=0)
LATEST_VERSION = ApiKeys.ALTER_PARTITION.latest_version

TP0 = TopicIdPartition.of(TOPIC_ID, 0, TOPIC)
TP1 = TopicIdPartition.of(TOPIC_ID, 1, TOPIC)
TP2 = TopicIdPartition.of(TOPIC_ID, 2, TOPIC)

# provideMetadataVersions: KIP-903 (broker epochs in AlterPartition), KIP-704 (unclean leader recovery), KIP-497
METADATA_VERSIONS = [MetadataVersion.IBP_3_5_IV1, MetadataVersion.IBP_3_2_IV0, MetadataVersion.IBP_2_7_IV2]
LEADER_RECOVERY_STATES = [(metadata_version, leader_recovery_state) for metadata_version in METADATA_VERSIONS
                          for leader_recovery_state in (LeaderRecoveryState.RECOVERED,
                                                        LeaderRecoveryState.RECOVERING)]


class MockChannelManager:
    """mock(classOf[NodeToControllerChannelManager]): what the manager called."""

    def __init__(self) -> None:
        self.start_calls = 0
        self.send_request_calls: list[tuple[ControllerRequest, Any]] = []

    def start(self) -> None:
        self.start_calls += 1

    def shutdown(self) -> None:
        pass

    def send_request(self, request: ControllerRequest, callback: Any) -> None:
        self.send_request_calls.append((request, callback))

    def reset(self) -> None:
        self.start_calls = 0
        self.send_request_calls.clear()

    def verify_start(self) -> None:
        assert self.start_calls == 1

    def verify_send_request(self, times: int = 1) -> tuple[ControllerRequest, Any]:
        """The last request and callback, after checking there were exactly `times` calls."""
        assert len(self.send_request_calls) == times
        return self.send_request_calls[-1]


@pytest.fixture
def time() -> MockTime:
    return MockTime()


@pytest.fixture
def broker_to_controller() -> MockChannelManager:
    return MockChannelManager()


def _manager(broker_to_controller: MockChannelManager, scheduler: MockScheduler, time: MockTime,
             broker_epoch: int, metadata_version: MetadataVersion) -> DefaultAlterPartitionManager:
    return DefaultAlterPartitionManager(broker_to_controller, scheduler, time, BROKER_ID, lambda: broker_epoch,
                                        lambda: metadata_version)


def _leader_and_isr(isr: list[int], leader_recovery_state: LeaderRecoveryState = LeaderRecoveryState.RECOVERED
                    ) -> LeaderAndIsr:
    return LeaderAndIsr.apply(1, 1, isr, leader_recovery_state, 10)


@pytest.mark.parametrize("metadata_version", METADATA_VERSIONS, ids=str)
def test_basic(broker_to_controller: MockChannelManager, time: MockTime, metadata_version: MetadataVersion) -> None:
    scheduler = MockScheduler(time)
    alter_partition_manager = _manager(broker_to_controller, scheduler, time, 2, metadata_version)
    alter_partition_manager.start()
    alter_partition_manager.submit(TP0, _leader_and_isr([1, 2, 3]), 0)
    broker_to_controller.verify_start()
    broker_to_controller.verify_send_request()


@pytest.mark.parametrize("metadata_version", METADATA_VERSIONS, ids=str)
def test_basic_with_broker_epoch(broker_to_controller: MockChannelManager, time: MockTime,
                                 metadata_version: MetadataVersion) -> None:
    scheduler = MockScheduler(time)
    alter_partition_manager = _manager(broker_to_controller, scheduler, time, 101, metadata_version)
    alter_partition_manager.start()
    isr_with_broker_epoch = [alter_partition_v3.request.BrokerState(broker_id=i32(ii), broker_epoch=i64(100 + ii))
                             for ii in range(1, 4)]
    alter_partition_manager.submit(TP0, LeaderAndIsr(1, 1, LeaderRecoveryState.RECOVERED, isr_with_broker_epoch, 10),
                                   0)

    if metadata_version.is_topic_ids_supported():
        schema = alter_partition_v3.request
        new_isr_with_broker_epoch = tuple(schema.BrokerState(broker_id=i32(b), broker_epoch=i64(e))
                                          for b, e in ((1, 101), (2, 102), (3, 103)))
        topic_data = schema.TopicData(topic_id=TOPIC_ID, partitions=(schema.PartitionData(
            partition_index=i32(0), leader_epoch=i32(1), partition_epoch=i32(10),
            new_isr_with_epochs=new_isr_with_broker_epoch),))
    else:
        schema = alter_partition_v1.request
        topic_data = schema.TopicData(topic_name=TOPIC, partitions=(schema.PartitionData(
            partition_index=i32(0), leader_epoch=i32(1), partition_epoch=i32(10),
            new_isr=(i32(1), i32(2), i32(3))),))
    expected_alter_partition_data = schema.AlterPartitionRequest(broker_id=i32(BROKER_ID), broker_epoch=i64(101),
                                                                 topics=(topic_data,))

    broker_to_controller.verify_start()
    request, _ = broker_to_controller.verify_send_request()
    assert request.data == expected_alter_partition_data


@pytest.mark.parametrize("metadata_version,leader_recovery_state", LEADER_RECOVERY_STATES, ids=str)
def test_basic_sent_leader_recovery_state(broker_to_controller: MockChannelManager, time: MockTime,
                                          metadata_version: MetadataVersion,
                                          leader_recovery_state: LeaderRecoveryState) -> None:
    scheduler = MockScheduler(time)
    alter_partition_manager = _manager(broker_to_controller, scheduler, time, 2, metadata_version)
    alter_partition_manager.start()
    alter_partition_manager.submit(TP0, LeaderAndIsr.apply(1, 1, [1], leader_recovery_state, 10), 0)
    broker_to_controller.verify_start()
    request, _ = broker_to_controller.verify_send_request()

    expected_leader_recovery_state = (leader_recovery_state if metadata_version.is_at_least(
        MetadataVersion.IBP_3_2_IV0) else LeaderRecoveryState.RECOVERED)
    assert request.data.topics[0].partitions[0].leader_recovery_state == expected_leader_recovery_state


@pytest.mark.parametrize("metadata_version", METADATA_VERSIONS, ids=str)
def test_overwrite_within_batch(broker_to_controller: MockChannelManager, time: MockTime,
                                metadata_version: MetadataVersion) -> None:
    can_use_topic_ids = metadata_version.is_at_least(MetadataVersion.IBP_2_8_IV0)
    scheduler = MockScheduler(time)
    alter_partition_manager = _manager(broker_to_controller, scheduler, time, 2, metadata_version)
    alter_partition_manager.start()

    # one pending change per partition
    first_submit_future = alter_partition_manager.submit(TP0, _leader_and_isr([1, 2, 3]), 0)
    assert not first_submit_future.done()

    failed_submit_future = alter_partition_manager.submit(TP0, _leader_and_isr([1, 2]), 0)
    assert failed_submit_future.done() and failed_submit_future.exception() is not None
    assert error_of(failed_submit_future.exception()) == Errors.OPERATION_NOT_ATTEMPTED

    # the answer
    resp = _make_client_response(_partition_response(), LATEST_VERSION if can_use_topic_ids else 1)
    _, callback = broker_to_controller.verify_send_request()
    callback.on_complete(resp)

    # the partition may be submitted again
    new_submit_future = alter_partition_manager.submit(TP0, _leader_and_isr([1]), 0)
    assert not new_submit_future.done()

    broker_to_controller.verify_start()
    request, _ = broker_to_controller.verify_send_request(times=2)

    # the request sent ISR={1}
    assert len(request.data.topics) == 1
    if request.version < 3:
        assert len(request.data.topics[0].partitions[0].new_isr) == 1
    else:
        assert len(request.data.topics[0].partitions[0].new_isr_with_epochs) == 1


@pytest.mark.parametrize("metadata_version", METADATA_VERSIONS, ids=str)
def test_single_batch(broker_to_controller: MockChannelManager, time: MockTime,
                      metadata_version: MetadataVersion) -> None:
    scheduler = MockScheduler(time)
    alter_partition_manager = _manager(broker_to_controller, scheduler, time, 2, metadata_version)
    alter_partition_manager.start()

    # the first request carries one change
    alter_partition_manager.submit(TopicIdPartition.of(TOPIC_ID, 0, TOPIC), _leader_and_isr([1, 2, 3]), 0)

    # the others wait for its answer
    for i in range(1, 10):
        alter_partition_manager.submit(TopicIdPartition.of(TOPIC_ID, i, TOPIC), _leader_and_isr([1, 2, 3]), 0)

    # an answer without partition 0 leaves it unsent
    resp = ClientResponse(ApiKeys.ALTER_PARTITION, None, response_body=_make_alter_partition([], LATEST_VERSION))

    # the callback sends what is unsent
    _, callback = broker_to_controller.verify_send_request()
    callback.on_complete(resp)

    broker_to_controller.verify_start()
    request, _ = broker_to_controller.verify_send_request(times=2)

    # the last request had all 10 changes
    assert len(request.data.topics) == 1
    assert len(request.data.topics[0].partitions) == 10


def test_submit_from_callback(broker_to_controller: MockChannelManager, time: MockTime) -> None:
    # a retriable partition-level error
    error_response = _make_client_response(_partition_response(TP0, Errors.UNKNOWN_SERVER_ERROR), LATEST_VERSION)

    leader_id = 1
    leader_epoch = 1
    partition_epoch = 10
    isr = [1, 2, 3]
    leader_and_isr = LeaderAndIsr.apply(leader_id, leader_epoch, isr, LeaderRecoveryState.RECOVERED, partition_epoch)

    scheduler = MockScheduler(time)
    alter_partition_manager = _manager(broker_to_controller, scheduler, time, 2, MetadataVersion.IBP_3_2_IV0)
    alter_partition_manager.start()
    future = alter_partition_manager.submit(TP0, leader_and_isr, 0)
    final_future: Future[LeaderAndIsr] = Future()

    def when_complete(done: Future[LeaderAndIsr]) -> None:
        if done.exception() is not None:
            # retry on an error
            def when_retry_complete(retried: Future[LeaderAndIsr]) -> None:
                if retried.exception() is not None:
                    final_future.set_exception(retried.exception())
                else:
                    final_future.set_result(retried.result())
            alter_partition_manager.submit(TP0, leader_and_isr, 0).add_done_callback(when_retry_complete)
        else:
            final_future.set_exception(AssertionError("Expected the future to be failed"))

    future.add_done_callback(when_complete)

    broker_to_controller.verify_start()
    _, callback = broker_to_controller.verify_send_request()
    broker_to_controller.reset()
    callback.on_complete(error_response)

    # the retry's answer
    retry_alter_partition_response = _partition_response(TP0, Errors.NONE, partition_epoch, leader_id, leader_epoch,
                                                          isr)
    retry_response = _make_client_response(retry_alter_partition_response, LATEST_VERSION)

    _, callback = broker_to_controller.verify_send_request()
    callback.on_complete(retry_response)

    assert final_future.result(0.2) == leader_and_isr
    # nothing left unsent
    assert TP0.topic_partition not in alter_partition_manager.unsent_isr_updates


def test_authorization_failed(broker_to_controller: MockChannelManager, time: MockTime) -> None:
    _test_retry_on_top_level_error(broker_to_controller, time, Errors.CLUSTER_AUTHORIZATION_FAILED)


def test_stale_broker_epoch(broker_to_controller: MockChannelManager, time: MockTime) -> None:
    _test_retry_on_top_level_error(broker_to_controller, time, Errors.STALE_BROKER_EPOCH)


def test_unknown_server(broker_to_controller: MockChannelManager, time: MockTime) -> None:
    _test_retry_on_top_level_error(broker_to_controller, time, Errors.UNKNOWN_SERVER_ERROR)


def test_retry_on_authentication_failure(broker_to_controller: MockChannelManager, time: MockTime) -> None:
    _test_retry_on_error_response(broker_to_controller, time, ClientResponse(
        ApiKeys.ALTER_PARTITION, "", authentication_exception=AuthenticationException("authentication failed")))


def test_retry_on_unsupported_version_error(broker_to_controller: MockChannelManager, time: MockTime) -> None:
    _test_retry_on_error_response(broker_to_controller, time, ClientResponse(
        ApiKeys.ALTER_PARTITION, "", version_mismatch=UnsupportedVersionException("unsupported version")))


def _test_retry_on_top_level_error(broker_to_controller: MockChannelManager, time: MockTime, error: Errors) -> None:
    alter_partition_resp = {"error_code": error.code, "topics": []}
    response = _make_client_response(alter_partition_resp, LATEST_VERSION)
    _test_retry_on_error_response(broker_to_controller, time, response)


def _test_retry_on_error_response(broker_to_controller: MockChannelManager, time: MockTime,
                                  response: ClientResponse) -> None:
    leader_and_isr = _leader_and_isr([1, 2, 3])

    scheduler = MockScheduler(time)
    alter_partition_manager = _manager(broker_to_controller, scheduler, time, 2, MetadataVersion.IBP_3_2_IV0)
    alter_partition_manager.start()
    alter_partition_manager.submit(TP0, leader_and_isr, 0)

    broker_to_controller.verify_start()
    _, callback = broker_to_controller.verify_send_request()
    callback.on_complete(response)

    # after any top-level error the pending changes stay, to be sent again
    assert TP0.topic_partition in alter_partition_manager.unsent_isr_updates

    broker_to_controller.reset()

    # a while later, the retry
    time.sleep(100)
    scheduler.tick()

    # once answered, the partition may be submitted again
    retry_response = _make_client_response(_partition_response(), LATEST_VERSION)

    _, callback = broker_to_controller.verify_send_request()
    callback.on_complete(retry_response)

    assert TP0.topic_partition not in alter_partition_manager.unsent_isr_updates


def test_invalid_update_version(broker_to_controller: MockChannelManager, time: MockTime) -> None:
    _check_partition_error(broker_to_controller, time, Errors.INVALID_UPDATE_VERSION)


def test_unknown_topic_partition(broker_to_controller: MockChannelManager, time: MockTime) -> None:
    _check_partition_error(broker_to_controller, time, Errors.UNKNOWN_TOPIC_OR_PARTITION)


def test_not_leader_or_follower(broker_to_controller: MockChannelManager, time: MockTime) -> None:
    _check_partition_error(broker_to_controller, time, Errors.NOT_LEADER_OR_FOLLOWER)


def test_invalid_request(broker_to_controller: MockChannelManager, time: MockTime) -> None:
    _check_partition_error(broker_to_controller, time, Errors.INVALID_REQUEST)


def _check_partition_error(broker_to_controller: MockChannelManager, time: MockTime, error: Errors) -> None:
    alter_partition_manager = _test_partition_error(broker_to_controller, time, TP0, error)
    # a partition-level error clears the pending change: the next one may come
    future = alter_partition_manager.submit(TP0, _leader_and_isr([1, 2, 3]), 0)
    assert not future.done()


def _test_partition_error(broker_to_controller: MockChannelManager, time: MockTime, tp: TopicIdPartition,
                          error: Errors) -> DefaultAlterPartitionManager:
    broker_to_controller.reset()

    scheduler = MockScheduler(time)
    alter_partition_manager = _manager(broker_to_controller, scheduler, time, 2, MetadataVersion.IBP_3_2_IV0)
    alter_partition_manager.start()

    future = alter_partition_manager.submit(tp, _leader_and_isr([1, 2, 3]), 0)

    broker_to_controller.verify_start()
    _, callback = broker_to_controller.verify_send_request()
    broker_to_controller.reset()

    resp = _make_client_response(_partition_response(tp, error), LATEST_VERSION)
    callback.on_complete(resp)
    assert future.done() and future.exception() is not None
    assert error_of(future.exception()) == error
    return alter_partition_manager


@pytest.mark.parametrize("metadata_version", METADATA_VERSIONS, ids=str)
def test_one_in_flight(broker_to_controller: MockChannelManager, time: MockTime,
                       metadata_version: MetadataVersion) -> None:
    scheduler = MockScheduler(time)
    alter_partition_manager = _manager(broker_to_controller, scheduler, time, 2, metadata_version)
    alter_partition_manager.start()

    # the first submit sends the request
    alter_partition_manager.submit(TP0, _leader_and_isr([1, 2, 3]), 0)

    # these wait, unsent
    alter_partition_manager.submit(TP1, _leader_and_isr([1, 2, 3]), 0)
    alter_partition_manager.submit(TP2, _leader_and_isr([1, 2, 3]), 0)

    broker_to_controller.verify_start()
    _, callback = broker_to_controller.verify_send_request()

    # the callback sends the next request
    broker_to_controller.reset()

    resp = _make_client_response(_make_alter_partition_data([]), LATEST_VERSION)
    callback.on_complete(resp)


@pytest.mark.parametrize("metadata_version", METADATA_VERSIONS, ids=str)
def test_partition_missing_in_response(time: MockTime, metadata_version: MetadataVersion) -> None:
    expected_version = LATEST_VERSION if metadata_version.is_topic_ids_supported() else 1
    leader_and_isr = _leader_and_isr([1, 2, 3])
    controlled_epoch = 0
    broker_epoch = 2
    scheduler = MockScheduler(time)
    broker_to_controller = MockChannelManager()
    alter_partition_manager = _manager(broker_to_controller, scheduler, time, broker_epoch, metadata_version)
    alter_partition_manager.start()

    # the first submit sends the request
    future1 = alter_partition_manager.submit(TP0, leader_and_isr, controlled_epoch)
    callback1 = _verify_send_request(broker_to_controller, {TP0}, expected_version)

    # submits while it is in flight wait
    future2 = alter_partition_manager.submit(TP1, leader_and_isr, controlled_epoch)
    future3 = alter_partition_manager.submit(TP2, leader_and_isr, controlled_epoch)

    # the answer to the first lets the next request go
    callback1.on_complete(_make_client_response(_partition_response(TP0, Errors.UNKNOWN_SERVER_ERROR),
                                                expected_version))
    assert error_of(future1.exception(0)) == Errors.UNKNOWN_SERVER_ERROR
    assert not future2.done()
    assert not future3.done()

    # the second request has both partitions; the answer only one of them
    callback2 = _verify_send_request(broker_to_controller, {TP1, TP2}, expected_version)
    callback2.on_complete(_make_client_response(_partition_response(TP2, Errors.UNKNOWN_SERVER_ERROR),
                                                expected_version))
    assert error_of(future3.exception(0)) == Errors.UNKNOWN_SERVER_ERROR
    assert not future2.done()

    # the missing partition goes again
    callback3 = _verify_send_request(broker_to_controller, {TP1}, expected_version)
    callback3.on_complete(_make_client_response(_partition_response(TP1, Errors.UNKNOWN_SERVER_ERROR),
                                                expected_version))
    assert error_of(future2.exception(0)) == Errors.UNKNOWN_SERVER_ERROR


@pytest.mark.parametrize("metadata_version", METADATA_VERSIONS, ids=str)
def test_partial_topic_ids(time: MockTime, metadata_version: MetadataVersion) -> None:
    can_use_topic_ids = metadata_version.is_at_least(MetadataVersion.IBP_2_8_IV0)
    foo = TopicIdPartition.of(ZERO_UUID, 0, "foo")
    bar = TopicIdPartition.of(uuid.uuid4(), 0, "bar")
    zar = TopicIdPartition.of(uuid.uuid4(), 0, "zar")

    leader_and_isr = _leader_and_isr([1, 2, 3])
    controlled_epoch = 0
    broker_epoch = 2
    scheduler = MockScheduler(time)
    broker_to_controller = MockChannelManager()
    alter_partition_manager = _manager(broker_to_controller, scheduler, time, broker_epoch, metadata_version)
    alter_partition_manager.start()

    # zar has a topic id
    future1 = alter_partition_manager.submit(zar, leader_and_isr, controlled_epoch)

    # the latest version if every partition has a topic id and the metadata version allows ids, else version 1
    callback1 = _verify_send_request(broker_to_controller, {zar}, LATEST_VERSION if can_use_topic_ids else 1)

    # while it is in flight: foo without a topic id, bar with one
    future2 = alter_partition_manager.submit(foo, leader_and_isr, controlled_epoch)
    future3 = alter_partition_manager.submit(bar, leader_and_isr, controlled_epoch)

    # the first answer lets the next request go
    callback1.on_complete(_make_client_response(
        _make_alter_partition_data([_make_alter_partition_topic_data(zar, Errors.NONE)]),
        LATEST_VERSION if can_use_topic_ids else 1))

    assert future1.done()
    assert not future2.done()
    assert not future3.done()

    # version 1: foo has no topic id
    callback2 = _verify_send_request(broker_to_controller, {foo, bar}, 1)

    callback2.on_complete(_make_client_response(_make_alter_partition_data([
        _make_alter_partition_topic_data(foo, Errors.NONE),
        _make_alter_partition_topic_data(bar, Errors.NONE),
    ]), 1))

    assert future1.done()
    assert future2.done()
    assert future3.done()


def _verify_send_request(broker_to_controller: MockChannelManager, expected_topic_partitions: set[TopicIdPartition],
                         expected_version: int) -> Any:
    request, callback = broker_to_controller.verify_send_request()
    _alter_partition_request_matcher(request, expected_topic_partitions, expected_version)
    broker_to_controller.reset()
    return callback


def _alter_partition_request_matcher(request: ControllerRequest, expected_topic_partitions: set[TopicIdPartition],
                                     expected_version: int) -> None:
    assert request.api == ApiKeys.ALTER_PARTITION
    assert request.version == expected_version
    # a version carries topic ids (2 and up) or names (up to 1), not both
    if request.version > 1:
        requested = {(topic_data.topic_id, p.partition_index) for topic_data in request.data.topics
                     for p in topic_data.partitions}
        assert requested == {(tp.topic_id, tp.partition) for tp in expected_topic_partitions}
    else:
        requested = {(topic_data.topic_name, p.partition_index) for topic_data in request.data.topics
                     for p in topic_data.partitions}
        assert requested == {(tp.topic, tp.partition) for tp in expected_topic_partitions}


def _make_client_response(response: dict[str, Any], version: int) -> ClientResponse:
    """The answer as `version` carries it: fields other versions have are dropped."""
    body = build(ApiKeys.ALTER_PARTITION.response_schema(version), throttle_time=0, **response)
    return ClientResponse(ApiKeys.ALTER_PARTITION, "", response_body=body)


def _make_alter_partition(topics: list[dict[str, Any]], version: int) -> Any:
    return build(ApiKeys.ALTER_PARTITION.response_schema(version), throttle_time=0,
                 **_make_alter_partition_data(topics))


def _make_alter_partition_data(topics: list[dict[str, Any]]) -> dict[str, Any]:
    return {"error_code": Errors.NONE.code, "topics": topics}


def _make_alter_partition_topic_data(topic_id_partition: TopicIdPartition, error: Errors) -> dict[str, Any]:
    return {"topic_name": topic_id_partition.topic, "topic_id": topic_id_partition.topic_id,
            "partitions": [_partition_data(partition_index=topic_id_partition.partition, error_code=error.code)]}


def _partition_data(partition_index: int, error_code: int, partition_epoch: int = 0, leader_id: int = 0,
                    leader_epoch: int = 0, isr: tuple[int, ...] = ()) -> dict[str, Any]:
    """AlterPartitionResponseData.PartitionData with the message's defaults."""
    return {"partition_index": i32(partition_index), "error_code": error_code, "leader_id": i32(leader_id),
            "leader_epoch": i32(leader_epoch), "isr": tuple(i32(r) for r in isr), "leader_recovery_state": i8(0),
            "partition_epoch": i32(partition_epoch)}


def _partition_response(tp: TopicIdPartition = TP0, error: Errors = Errors.NONE, partition_epoch: int = 0,
                        leader_id: int = 0, leader_epoch: int = 0, isr: list[int] | None = None) -> dict[str, Any]:
    return {"error_code": Errors.NONE.code, "topics": [{
        "topic_name": tp.topic, "topic_id": tp.topic_id, "partitions": [_partition_data(
            tp.partition, error.code, partition_epoch, leader_id, leader_epoch, tuple(isr or ()))]}]}
