"""Port of clients/src/main/java/org/apache/kafka/clients/FetchSessionHandler.java (Kafka 3.9): the fetcher's side of a
KIP-227 incremental fetch session with one node: which partitions the session holds, what the next request must send,
forget or replace, and the session id and epoch it carries."""

from __future__ import annotations

import logging
import uuid
from collections.abc import Iterable, Mapping, Set
from typing import TypeVar

from kafka_edu.v1_0_2.core.utils.kafka_logging import Logging
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from kafka_edu.v3_9.clients.common.requests.fetch_metadata import INVALID_SESSION_ID, FetchMetadata
from kafka_edu.v3_9.clients.common.requests.fetch_request import TOPIC_IDS_VERSION, ZERO_UUID, PartitionData
from kafka_edu.v3_9.clients.common.requests.fetch_response import FetchResponse
from kafka_edu.v3_9.clients.common.topic_id_partition import TopicIdPartition
from kafka_edu.v3_9.clients.common.topic_partition import TopicPartition

T = TypeVar("T")

log = logging.getLogger("org.apache.kafka.clients.FetchSessionHandler")


class FetchRequestData:
    """What the next fetch request sends: partitions to fetch (`to_send`), to drop from the session (`to_forget`),
    partitions whose topic id changed (`to_replace`), every partition the session holds, and the session metadata."""

    def __init__(self, to_send: Mapping[TopicPartition, PartitionData], to_forget: list[TopicIdPartition],
                 to_replace: list[TopicIdPartition], session_partitions: Mapping[TopicPartition, PartitionData],
                 metadata: FetchMetadata, can_use_topic_ids: bool) -> None:
        self._to_send = to_send
        self._to_forget = to_forget
        self._to_replace = to_replace
        self._session_partitions = session_partitions
        self._metadata = metadata
        self._can_use_topic_ids = can_use_topic_ids

    def to_send(self) -> Mapping[TopicPartition, PartitionData]:
        """A full request: every partition of the session; an incremental one: only the new and changed ones."""
        return self._to_send

    def to_forget(self) -> list[TopicIdPartition]:
        """Partitions to drop from the session (empty in a full request)."""
        return self._to_forget

    def to_replace(self) -> list[TopicIdPartition]:
        """Partitions whose topic id changed: from v13 they are forgotten under the old id and sent under the new."""
        return self._to_replace

    def session_partitions(self) -> Mapping[TopicPartition, PartitionData]:
        return self._session_partitions

    def metadata(self) -> FetchMetadata:
        return self._metadata

    def can_use_topic_ids(self) -> bool:
        """Every partition has a topic id, so the request may be v13 or newer."""
        return self._can_use_topic_ids

    def __str__(self) -> str:
        if self._metadata.is_full():
            text = "FullFetchRequest(toSend=(" + ", ".join(str(tp) for tp in self._to_send)
        else:
            implied = [str(tp) for tp in self._session_partitions if tp not in self._to_send]
            text = ("IncrementalFetchRequest(toSend=(" + ", ".join(str(tp) for tp in self._to_send)
                    + "), toForget=(" + ", ".join(str(p) for p in self._to_forget)
                    + "), toReplace=(" + ", ".join(str(p) for p in self._to_replace)
                    + "), implied=(" + ", ".join(implied))
        return text + f"), canUseTopicIds={'True' if self._can_use_topic_ids else 'False'})"


class FetchSessionHandler:
    """One per node a client (or replica fetcher) fetches from; not thread-safe, like Kafka's."""

    def __init__(self, log_prefix: str, node: int) -> None:
        self.log = Logging(log.name, log_prefix)
        self.node = node
        # the metadata for the next fetch request
        self.next_metadata = FetchMetadata.INITIAL
        # every partition of the session, in the order they were added (Java's LinkedHashMap)
        self._session_partitions: dict[TopicPartition, PartitionData] = {}
        # the topic names of the session by id: how a v13+ response, which names topics by id only, is read
        self._session_topic_names: dict[uuid.UUID, str] = {}

    def session_id(self) -> int:
        """Visible for testing."""
        return self.next_metadata.session_id

    def session_topic_names(self) -> Mapping[uuid.UUID, str]:
        return self._session_topic_names

    class Builder:
        """The partitions wanted in the next request, in order; `build` works out what must go on the wire."""

        def __init__(self, handler: FetchSessionHandler, initial_size: int = 0,
                     copy_session_partitions: bool = True) -> None:
            self._handler = handler
            self._next: dict[TopicPartition, PartitionData] | None = {}
            self._topic_names: dict[uuid.UUID, str] = {}
            self._copy_session_partitions = copy_session_partitions
            self._partitions_without_topic_ids = 0

        def add(self, topic_partition: TopicPartition, data: PartitionData) -> None:
            self._next[topic_partition] = data
            # a topic's id cannot change between add and build: the first name stays
            if data.topic_id == ZERO_UUID:
                self._partitions_without_topic_ids += 1
            else:
                self._topic_names.setdefault(data.topic_id, topic_partition.topic)

        def build(self) -> FetchRequestData:
            handler = self._handler
            can_use_topic_ids = self._partitions_without_topic_ids == 0
            next_partitions = self._next

            if handler.next_metadata.is_full():
                handler.log.debug("Built full fetch %s for node %d with %s.", handler.next_metadata, handler.node,
                                  handler._topic_partitions_to_log_string(next_partitions))
                handler._session_partitions = next_partitions
                self._next = None
                # the session names topics by id only if every partition has one
                handler._session_topic_names = self._topic_names if can_use_topic_ids else {}
                to_send = dict(handler._session_partitions)
                return FetchRequestData(to_send, [], [], to_send, handler.next_metadata, can_use_topic_ids)

            added: list[TopicIdPartition] = []
            removed: list[TopicIdPartition] = []
            altered: list[TopicIdPartition] = []
            replaced: list[TopicIdPartition] = []
            session_partitions = handler._session_partitions
            for topic_partition, prev_data in list(session_partitions.items()):
                next_data = next_partitions.pop(topic_partition, None)
                if next_data is not None:
                    # A new topic id (both ids known) replaces the partition: from v13 the old one is forgotten.
                    # Either way the partition goes at the end of `next`, to be sent.
                    if prev_data.topic_id != next_data.topic_id and prev_data.topic_id != ZERO_UUID \
                            and next_data.topic_id != ZERO_UUID:
                        next_partitions[topic_partition] = next_data
                        session_partitions[topic_partition] = next_data
                        replaced.append(TopicIdPartition(prev_data.topic_id, topic_partition))
                    elif prev_data != next_data:
                        next_partitions[topic_partition] = next_data
                        session_partitions[topic_partition] = next_data
                        altered.append(TopicIdPartition(next_data.topic_id, topic_partition))
                else:
                    # no longer wanted: drop it from the session and tell the node to forget it
                    del session_partitions[topic_partition]
                    removed.append(TopicIdPartition(prev_data.topic_id, topic_partition))
                    # a forgotten partition without an id can only be named by name: no topic ids then
                    if can_use_topic_ids and prev_data.topic_id == ZERO_UUID:
                        can_use_topic_ids = False
            # What is left at the front of `next` is new to the session; partitions moved to its end by the loop
            # above are already in the session, so the first of them ends the new ones.
            for topic_partition, next_data in next_partitions.items():
                if topic_partition in session_partitions:
                    break
                session_partitions[topic_partition] = next_data
                added.append(TopicIdPartition(next_data.topic_id, topic_partition))

            # an inconsistent id, or a switch to or from topic ids, is for the receiving broker to answer
            handler._session_topic_names = self._topic_names if can_use_topic_ids else {}

            handler.log.debug("Built incremental fetch %s for node %d. Added %s, altered %s, removed %s, replaced %s "
                              "out of %s", handler.next_metadata, handler.node,
                              handler._topic_id_partitions_to_log_string(added),
                              handler._topic_id_partitions_to_log_string(altered),
                              handler._topic_id_partitions_to_log_string(removed),
                              handler._topic_id_partitions_to_log_string(replaced),
                              handler._topic_partitions_to_log_string(session_partitions))
            to_send = next_partitions
            cur_session_partitions = dict(session_partitions) if self._copy_session_partitions \
                else session_partitions
            self._next = None
            return FetchRequestData(to_send, removed, replaced, cur_session_partitions, handler.next_metadata,
                                    can_use_topic_ids)

    def new_builder(self, size: int = 0, copy_session_partitions: bool = True) -> FetchSessionHandler.Builder:
        """`copy_session_partitions=False` hands the request the live session map (the replica fetcher's choice:
        it reads it before the next build)."""
        return FetchSessionHandler.Builder(self, size, copy_session_partitions)

    def _topic_partitions_to_log_string(self, partitions: Iterable[TopicPartition]) -> str:
        partitions = list(partitions)
        if not self.log.isEnabledFor(logging.DEBUG - 5):  # TRACE
            return f"{len(partitions)} partition(s)"
        return "(" + ", ".join(str(p) for p in partitions) + ")"

    def _topic_id_partitions_to_log_string(self, partitions: Iterable[TopicIdPartition]) -> str:
        partitions = list(partitions)
        if not self.log.isEnabledFor(logging.DEBUG - 5):
            return f"{len(partitions)} partition(s)"
        return "(" + ", ".join(str(p) for p in partitions) + ")"

    @staticmethod
    def find_missing(to_find: Iterable[T], to_search: Set[T] | Mapping[T, object]) -> list[T]:
        """The items of `to_find` not in `to_search`, in `to_find`'s order (a LinkedHashSet in Kafka)."""
        return [item for item in dict.fromkeys(to_find) if item not in to_search]

    def verify_full_fetch_response_partitions(self, topic_partitions: Iterable[TopicPartition],
                                              ids: Iterable[uuid.UUID], version: int) -> str | None:
        """None if the full response has exactly the session's partitions (and, from v13, only its topic ids);
        otherwise what is wrong with it."""
        topic_partitions = list(topic_partitions)
        extra = self.find_missing(topic_partitions, self._session_partitions)
        omitted = self.find_missing(self._session_partitions, set(topic_partitions))
        extra_ids = self.find_missing(ids, self._session_topic_names) if version >= TOPIC_IDS_VERSION else []
        bld = ""
        if omitted:
            bld += "omittedPartitions=(" + ", ".join(str(tp) for tp in omitted) + "), "
        if extra:
            bld += "extraPartitions=(" + ", ".join(str(tp) for tp in extra) + "), "
        if extra_ids:
            bld += "extraIds=(" + ", ".join(str(i) for i in extra_ids) + "), "
        if omitted or extra or extra_ids:
            return bld + "response=(" + ", ".join(str(tp) for tp in topic_partitions) + ")"
        return None

    def verify_incremental_fetch_response_partitions(self, topic_partitions: Iterable[TopicPartition],
                                                     ids: Iterable[uuid.UUID], version: int) -> str | None:
        """None if the incremental response names only partitions (and, from v13, topic ids) of the session."""
        topic_partitions = list(topic_partitions)
        extra_ids = self.find_missing(ids, self._session_topic_names) if version >= TOPIC_IDS_VERSION else []
        extra = self.find_missing(topic_partitions, self._session_partitions)
        bld = ""
        if extra:
            bld += "extraPartitions=(" + ", ".join(str(tp) for tp in extra) + "), "
        if extra_ids:
            bld += "extraIds=(" + ", ".join(str(i) for i in extra_ids) + "), "
        if extra or extra_ids:
            return bld + "response=(" + ", ".join(str(tp) for tp in topic_partitions) + ")"
        return None

    def _response_data_to_log_string(self, topic_partitions: list[TopicPartition]) -> str:
        implied = len(self._session_partitions) - len(topic_partitions)
        if implied > 0:
            return f" with {len(topic_partitions)} response partition(s), {implied} implied partition(s)"
        return f" with {len(topic_partitions)} response partition(s)"

    def handle_response(self, response: FetchResponse, version: int) -> bool:
        """Move the session on from a response: True if its partitions may be processed, False if the response
        is an error or does not fit the session (then the next request is full)."""
        if response.error() != Errors.NONE:
            self.log.info("Node %d was unable to process the fetch request with %s: %s.", self.node,
                          self.next_metadata, response.error().name)
            if response.error() == Errors.FETCH_SESSION_ID_NOT_FOUND:
                self.next_metadata = FetchMetadata.INITIAL
            else:
                self.next_metadata = self.next_metadata.next_close_existing_attempt_new()
            return False
        topic_partitions = list(response.response_data(self._session_topic_names, version))
        if self.next_metadata.is_full():
            if not topic_partitions and response.throttle_time_ms() > 0:
                # KIP-219: an empty full response with a throttle time throttles the client; not an error, but
                # there is nothing to process
                self.log.debug("Node %d sent a empty full fetch response to indicate that this client should be "
                               "throttled for %d ms.", self.node, response.throttle_time_ms())
                self.next_metadata = FetchMetadata.INITIAL
                return False
            problem = self.verify_full_fetch_response_partitions(topic_partitions, response.topic_ids(), version)
            if problem is not None:
                self.log.info("Node %d sent an invalid full fetch response with %s", self.node, problem)
                self.next_metadata = FetchMetadata.INITIAL
                return False
            elif response.session_id() == INVALID_SESSION_ID:
                self.log.debug("Node %d sent a full fetch response%s", self.node,
                               self._response_data_to_log_string(topic_partitions))
                self.next_metadata = FetchMetadata.INITIAL
                return True
            else:
                # the node created a new incremental fetch session
                self.log.debug("Node %d sent a full fetch response that created a new incremental fetch session %d%s",
                               self.node, response.session_id(), self._response_data_to_log_string(topic_partitions))
                self.next_metadata = FetchMetadata.new_incremental(response.session_id())
                return True
        else:
            problem = self.verify_incremental_fetch_response_partitions(topic_partitions, response.topic_ids(),
                                                                        version)
            if problem is not None:
                self.log.info("Node %d sent an invalid incremental fetch response with %s", self.node, problem)
                self.next_metadata = self.next_metadata.next_close_existing_attempt_new()
                return False
            elif response.session_id() == INVALID_SESSION_ID:
                # the node closed the session
                self.log.debug("Node %d sent an incremental fetch response closing session %d%s", self.node,
                               self.next_metadata.session_id, self._response_data_to_log_string(topic_partitions))
                self.next_metadata = FetchMetadata.INITIAL
                return True
            else:
                # the session goes on; an empty incremental response is valid (KIP-219 needs nothing here)
                self.log.debug("Node %d sent an incremental fetch response with throttleTimeMs = %d for session %d%s",
                               self.node, response.throttle_time_ms(), response.session_id(),
                               self._response_data_to_log_string(topic_partitions))
                self.next_metadata = self.next_metadata.next_incremental()
                return True

    def notify_close(self) -> None:
        """The next request closes the session (the client is closing)."""
        self.log.debug("Set the metadata for next fetch request to close the existing session ID=%d",
                       self.next_metadata.session_id)
        self.next_metadata = self.next_metadata.next_close_existing()

    def handle_error(self, t: BaseException) -> None:
        """The request failed: the next one closes this session and asks for a new one."""
        self.log.info("Error sending fetch request %s to node %d:", self.next_metadata, self.node, exc_info=t)
        self.next_metadata = self.next_metadata.next_close_existing_attempt_new()

    def session_topic_partitions(self) -> Set[TopicPartition]:
        return self._session_partitions.keys()
