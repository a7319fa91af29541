"""Port of RPCProducerIdManager in core/src/main/scala/kafka/coordinator/transaction/ProducerIdManager.scala (Kafka
3.9; read in its later Java form, transaction-coordinator's RPCProducerIdManager.java, which keeps the same steps).

A KRaft broker has no ZooKeeper to claim id blocks in: it asks the active controller (AllocateProducerIds) for a
block of 1000, and asks for the next one when 90% of the current block is used, so producers rarely wait. While no
block is at hand, InitProducerId gets COORDINATOR_LOAD_IN_PROGRESS, which clients retry.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any

from kafka_edu.tracing import step
from kafka_edu.v1_0_2.clients.common.errors import CoordinatorLoadInProgressException
from kafka_edu.v3_9.clients.common.protocol.api_keys import ApiKeys
from kafka_edu.v3_9.clients.common.protocol.builder import build
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from kafka_edu.v3_9.core.server.node_to_controller_channel_manager import ClientResponse, ControllerRequest
from kafka_edu.v3_9.server_common.server.common.producer_ids_block import ProducerIdsBlock

log = logging.getLogger("kafka.coordinator.transaction.RPCProducerIdManager")

RETRY_BACKOFF_MS = 50
PID_PREFETCH_THRESHOLD = 0.90  # the share of a block used when the next one is asked for
ITERATION_LIMIT = 3
NO_RETRY = -1
ALLOCATE_PRODUCER_IDS_VERSION = 0
LONG_MAX = (1 << 63) - 1


class RPCProducerIdManager:
    """Producer ids from blocks the controller hands out; at most one AllocateProducerIds in flight."""

    def __init__(self, broker_id: int, broker_epoch_supplier: Callable[[], int], controller_channel: Any,
                 milliseconds: Callable[[], int] = lambda: time.monotonic_ns() // 1_000_000) -> None:
        self.broker_id = broker_id
        self.broker_epoch_supplier = broker_epoch_supplier
        self.controller_channel = controller_channel
        self.milliseconds = milliseconds
        self.log_prefix = f"[RPC ProducerId Manager {broker_id}]: "
        # compare-and-set in Kafka (atomics); one lock here
        self._lock = threading.Lock()
        self.next_producer_id_block: ProducerIdsBlock | None = None
        self.current_producer_id_block = ProducerIdsBlock.EMPTY
        self.request_in_flight = False
        self.backoff_deadline_ms = NO_RETRY

    @step("TX39.pid")
    def generate_producer_id(self) -> int:
        iteration = 0
        while iteration <= ITERATION_LIMIT:
            current = self.current_producer_id_block
            next_producer_id = current.claim_next_id()
            if next_producer_id is not None:
                prefetch_target = current.first_producer_id() + int(current.size() * PID_PREFETCH_THRESHOLD)
                if next_producer_id == prefetch_target:
                    self.maybe_request_next_block()
                return next_producer_id
            with self._lock:
                block, self.next_producer_id_block = self.next_producer_id_block, None
                if block is not None:
                    self.current_producer_id_block = block
                    self.request_in_flight = False
            if block is None:
                # a retriable error: clients older than KIP-890 treat REQUEST_TIMED_OUT here as fatal
                self.maybe_request_next_block()
                raise CoordinatorLoadInProgressException("Producer ID block is full. Waiting for next block")
            iteration += 1
        raise CoordinatorLoadInProgressException("Producer ID block is full. Waiting for next block")

    def maybe_request_next_block(self) -> None:
        with self._lock:
            retry_timestamp = self.backoff_deadline_ms
            if retry_timestamp != NO_RETRY and self.milliseconds() < retry_timestamp:
                return
            if self.next_producer_id_block is not None or self.request_in_flight:
                return
            self.request_in_flight = True
            self.backoff_deadline_ms = NO_RETRY
        self.send_request()

    def send_request(self) -> None:
        data = build(ApiKeys.ALLOCATE_PRODUCER_IDS.request_schema(ALLOCATE_PRODUCER_IDS_VERSION),
                     broker_id=self.broker_id, broker_epoch=self.broker_epoch_supplier())
        log.debug("%sRequesting next Producer ID block", self.log_prefix)
        manager = self

        class _Handler:
            def on_complete(self, response: ClientResponse) -> None:
                if response.response_body is not None:
                    manager.handle_allocate_producer_ids_response(response.response_body)
                else:  # lost connection or version mismatch: try again after the backoff
                    manager._failed()

            def on_timeout(self) -> None:
                log.warning("%sTimed out when requesting AllocateProducerIds from the controller.",
                            manager.log_prefix)
                with manager._lock:
                    manager.request_in_flight = False

        self.controller_channel.send_request(
            ControllerRequest(ApiKeys.ALLOCATE_PRODUCER_IDS, ALLOCATE_PRODUCER_IDS_VERSION, data), _Handler())

    def handle_allocate_producer_ids_response(self, data: Any) -> None:
        successful_response = False
        error = Errors(data.error_code)
        if error == Errors.NONE:
            log.debug("%sGot next producer ID block from controller %s", self.log_prefix, data)
            successful_response = self._sanity_check_response(data)
        elif error == Errors.STALE_BROKER_EPOCH:
            log.warning("%sOur broker epoch was stale, trying again.", self.log_prefix)
        elif error == Errors.BROKER_ID_NOT_REGISTERED:
            log.warning("%sOur broker ID is not yet known by the controller, trying again.", self.log_prefix)
        else:
            log.error("%sReceived error code %s from the controller.", self.log_prefix, error.name)
        if not successful_response:
            self._failed()

    def _failed(self) -> None:
        with self._lock:
            self.backoff_deadline_ms = self.milliseconds() + RETRY_BACKOFF_MS
            self.request_in_flight = False

    def _sanity_check_response(self, data: Any) -> bool:
        start, length = data.producer_id_start, data.producer_id_len
        if start < self.current_producer_id_block.last_producer_id():
            log.error("%sProducer ID block is not monotonic with current block: current=%s response=%s",
                      self.log_prefix, self.current_producer_id_block, data)
        elif start < 0 or length < 0 or start > LONG_MAX - length:
            log.error("%sProducer ID block includes invalid ID range: %s", self.log_prefix, data)
        else:
            with self._lock:
                self.next_producer_id_block = ProducerIdsBlock(self.broker_id, start, length)
            return True
        return False

    def shutdown(self) -> None:
        log.info("%sShutdown complete", self.log_prefix)
