"""Port of core/src/test/java/kafka/test/MockController.java (Kafka 3.9).

A Controller double that keeps topics in two maps and answers at once, on the port's Controller contract (the one
kafka_edu's QuorumController serves): `find_topic_ids` / `find_topic_names` map to an id / a name or an ApiError
(Kafka's ResultOrError), `delete_topics` to an ApiError per id, `create_partitions` to one CreatePartitionsTopicResult's
fields per topic. Left out: `context.applyPartitionChangeQuota` (the port has no controller mutation quota, so the
THROTTLING_QUOTA_EXCEEDED branches cannot happen), and the methods for what the port's controller does not serve yet
(ACLs, SCRAM, delegation tokens, client quotas, reassignments, UpdateFeatures, ElectLeaders, controller registration,
legacy AlterConfigs), which Kafka's mock only throws UnsupportedOperationException from.
"""

from __future__ import annotations

import itertools
import threading
import uuid
from collections.abc import Collection, Iterable, Mapping
from concurrent.futures import Future
from typing import Any, TypeVar

from kio.schema.create_topics.v7 import response as create_topics_response

from kafka_edu.v1_0_2.clients.common.errors import NotControllerException
from kafka_edu.v3_9.clients.common.protocol.builder import build
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from kafka_edu.v3_9.clients.common.requests.api_error import ApiError
from kafka_edu.v3_9.metadata.controller.configuration_control_manager import OpType
from kafka_edu.v3_9.metadata.controller.controller_request_context import ControllerRequestContext

T = TypeVar("T")

NOT_CONTROLLER_EXCEPTION = NotControllerException("This is not the correct controller for this cluster.")


def _completed(value: T) -> Future[T]:
    future: Future[T] = Future()
    future.set_result(value)
    return future


def _failed(exception: BaseException) -> Future[Any]:
    future: Future[Any] = Future()
    future.set_exception(exception)
    return future


class MockTopic:
    def __init__(self, name: str, topic_id: uuid.UUID, num_partitions: int = 1) -> None:
        self.name = name
        self.id = topic_id
        self.num_partitions = num_partitions


class MockController:
    class Builder:
        def __init__(self) -> None:
            self.initial_topics: dict[str, MockTopic] = {}

        def new_initial_topic(self, name: str, topic_id: uuid.UUID, num_partitions: int = 1
                              ) -> MockController.Builder:
            self.initial_topics[name] = MockTopic(name, topic_id, num_partitions)
            return self

        def build(self) -> MockController:
            return MockController(self.initial_topics.values())

    def __init__(self, initial_topics: Iterable[MockTopic]) -> None:
        self._lock = threading.RLock()  # Kafka's synchronized methods
        self._next_topic_id = itertools.count(1)
        self.active = True
        self.topic_name_to_id: dict[str, uuid.UUID] = {}
        self.topics: dict[uuid.UUID, MockTopic] = {}
        self.configs: dict[Any, dict[str, str | None]] = {}
        for topic in initial_topics:
            self.topics[topic.id] = topic
            self.topic_name_to_id[topic.name] = topic.id

    def create_topics(self, context: ControllerRequestContext, request: Any, describable: set[str]) -> Future[Any]:
        with self._lock:
            results = []
            for topic in request.topics:
                if topic.name in self.topic_name_to_id:
                    results.append({"name": topic.name, "topic_id": uuid.UUID(int=0),
                                    "error_code": Errors.TOPIC_ALREADY_EXISTS, "error_message": None, "configs": []})
                    continue
                topic_uuid = uuid.UUID(int=next(self._next_topic_id))  # new Uuid(0, topicId)
                mock_topic = MockTopic(topic.name, topic_uuid)
                result: dict[str, Any] = {"name": topic.name, "topic_id": topic_uuid, "error_code": Errors.NONE,
                                          "error_message": None, "configs": []}
                self.topic_name_to_id[topic.name] = topic_uuid
                self.topics[topic_uuid] = mock_topic
                if topic.name in describable:
                    # no topic configs simulated: the replication factor and partition count only
                    result["topic_config_error_code"] = Errors.NONE
                    if topic.assignments:
                        result["replication_factor"] = len(topic.assignments[0].broker_ids)
                        result["num_partitions"] = len(topic.assignments)
                    else:
                        result["replication_factor"] = topic.replication_factor
                        result["num_partitions"] = topic.num_partitions
                else:
                    result["topic_config_error_code"] = Errors.TOPIC_AUTHORIZATION_FAILED
                results.append(result)
            return _completed(build(create_topics_response.CreateTopicsResponse, throttle_time=0, topics=results))

    def unregister_broker(self, context: ControllerRequestContext, broker_id: int) -> Future[None]:
        raise NotImplementedError

    def find_topic_ids(self, context: ControllerRequestContext, topic_names: Collection[str]
                       ) -> Future[dict[str, uuid.UUID | ApiError]]:
        with self._lock:
            results: dict[str, uuid.UUID | ApiError] = {}
            for name in topic_names:
                topic_id = self.topic_name_to_id.get(name)
                results[name] = topic_id if topic_id is not None else ApiError(Errors.UNKNOWN_TOPIC_OR_PARTITION)
            return _completed(results)

    def find_all_topic_ids(self, context: ControllerRequestContext) -> Future[dict[str, uuid.UUID]]:
        with self._lock:
            return _completed({topic.name: topic_id for topic_id, topic in self.topics.items()})

    def find_topic_names(self, context: ControllerRequestContext, topic_ids: Collection[uuid.UUID]
                         ) -> Future[dict[uuid.UUID, str | ApiError]]:
        with self._lock:
            results: dict[uuid.UUID, str | ApiError] = {}
            for topic_id in topic_ids:
                topic = self.topics.get(topic_id)
                results[topic_id] = topic.name if topic is not None else ApiError(Errors.UNKNOWN_TOPIC_ID)
            return _completed(results)

    def delete_topics(self, context: ControllerRequestContext, topic_ids: Collection[uuid.UUID]
                      ) -> Future[dict[uuid.UUID, ApiError]]:
        with self._lock:
            if not self.active:
                return _failed(NOT_CONTROLLER_EXCEPTION)
            results: dict[uuid.UUID, ApiError] = {}
            for topic_id in topic_ids:
                topic = self.topics.get(topic_id)
                if topic is None:
                    results[topic_id] = ApiError(Errors.UNKNOWN_TOPIC_ID)
                else:
                    del self.topics[topic_id]
                    del self.topic_name_to_id[topic.name]
                    results[topic_id] = ApiError.NONE
            return _completed(results)

    def describe_configs(self, context: ControllerRequestContext, resources: Mapping[Any, Collection[str]]
                         ) -> Future[Any]:
        raise NotImplementedError

    def finalized_features(self, context: ControllerRequestContext) -> Future[Any]:
        raise NotImplementedError

    def incremental_alter_configs(self, context: ControllerRequestContext,
                                  config_changes: Mapping[Any, Mapping[str, tuple[OpType, str | None]]],
                                  validate_only: bool) -> Future[dict[Any, ApiError]]:
        return _completed({resource: self._incremental_alter_resource(resource, ops, validate_only)
                           for resource, ops in config_changes.items()})

    def _incremental_alter_resource(self, resource: Any, ops: Mapping[str, tuple[OpType, str | None]],
                                    validate_only: bool) -> ApiError:
        for op_type, _value in ops.values():
            if op_type not in (OpType.SET, OpType.DELETE):
                return ApiError(Errors.INVALID_REQUEST, f"This mock does not support the {op_type.name} config "
                                                        "operation.")
        if not validate_only:
            for key, (op_type, value) in ops.items():
                if op_type is OpType.SET:
                    self.configs.setdefault(resource, {})[key] = value
                else:
                    self.configs.get(resource, {}).pop(key, None)
        return ApiError.NONE

    def legacy_alter_configs(self, context: ControllerRequestContext, new_configs: Mapping[Any, Mapping[str, str]],
                             validate_only: bool) -> Future[dict[Any, ApiError]]:
        """part A (issue 24): each resource's configs replaced; like Kafka's mock, it reports no results."""
        if not validate_only:
            for resource, configs in new_configs.items():
                self.configs[resource] = dict(configs)
        return _completed({})

    def alter_partition(self, context: ControllerRequestContext, request: Any) -> Future[Any]:
        raise NotImplementedError

    def process_broker_heartbeat(self, context: ControllerRequestContext, request: Any) -> Future[Any]:
        raise NotImplementedError

    def register_broker(self, context: ControllerRequestContext, request: Any) -> Future[Any]:
        raise NotImplementedError

    def allocate_producer_ids(self, context: ControllerRequestContext, request: Any) -> Future[Any]:
        raise NotImplementedError

    def create_partitions(self, context: ControllerRequestContext, topic_list: list[Any], validate_only: bool
                          ) -> Future[list[dict[str, Any]]]:
        with self._lock:
            if not self.active:
                return _failed(NOT_CONTROLLER_EXCEPTION)
            results = []
            for topic in topic_list:
                if topic.name in self.topic_name_to_id:
                    results.append({"name": topic.name, "error_code": Errors.NONE, "error_message": None})
                else:
                    results.append({"name": topic.name, "error_code": Errors.UNKNOWN_TOPIC_OR_PARTITION,
                                    "error_message": f"No such topic as {topic.name}"})
            return _completed(results)

    def begin_shutdown(self) -> None:
        self.active = False

    def set_active(self, active: bool) -> None:
        self.active = active

    def cur_claim_epoch(self) -> int:
        return 1 if self.active else -1

    def is_active(self) -> bool:  # Controller.isActive's default
        return self.cur_claim_epoch() != -1

    def close(self) -> None:
        self.begin_shutdown()
