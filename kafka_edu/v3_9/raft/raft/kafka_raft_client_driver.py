"""Port of raft/src/main/java/org/apache/kafka/raft/KafkaRaftClientDriver.java (Kafka 3.9): the raft client's thread
("<prefix>-io-thread"), which calls `poll` until a graceful shutdown has finished."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from kafka_edu.tracing.step import step
from kafka_edu.v3_9.raft.raft.internals.completable_future import CompletableFuture
from kafka_edu.v3_9.raft.raft.kafka_raft_client import KafkaRaftClient
from kafka_edu.v3_9.raft.raft.raft_message import InboundRequest
from kafka_edu.v3_9.server_common.server.util.shutdownable_thread import ShutdownableThread

log = logging.getLogger("org.apache.kafka.raft.KafkaRaftClientDriver")


def _raise_fault(message: str, cause: BaseException) -> BaseException:
    """The default fatal fault handler: log it, and let the thread die with it."""
    log.error("%s", message, exc_info=cause)
    return cause


class KafkaRaftClientDriver(ShutdownableThread):
    def __init__(self, client: KafkaRaftClient, thread_name_prefix: str,
                 fatal_fault_handler: Callable[[str, BaseException], BaseException] = _raise_fault) -> None:
        super().__init__(f"{thread_name_prefix}-io-thread", is_interruptible=False,
                         logger_name="org.apache.kafka.raft.KafkaRaftClientDriver", daemon=True)
        self.client = client
        self.fatal_fault_handler = fatal_fault_handler

    @step("KR.driver")
    def do_work(self) -> None:
        try:
            self.client.poll()
        except Exception as t:
            raise self.fatal_fault_handler("Unexpected error in raft IO thread", t) from t

    def initiate_shutdown(self) -> bool:
        """Stop taking work, and ask the client to shut down gracefully: a leader resigns first (EndQuorumEpoch),
        so the others need not wait for their fetch timeout. The thread polls on until that is done."""
        if not super().initiate_shutdown():
            return False

        def done(_: Any, exception: BaseException | None) -> None:
            if exception is not None:
                log.error("Graceful shutdown of RaftClient failed", exc_info=exception)
            else:
                log.info("Completed graceful shutdown of RaftClient")
        self.client.shutdown(5000).when_complete(done)
        return True

    def shutdown(self) -> None:
        try:
            super().shutdown()
        finally:
            self.client.close()

    @property
    def is_running(self) -> bool:
        # past initiate_shutdown too: the loop polls until the client's graceful shutdown is over
        return self.client.is_running() and not self.is_thread_failed

    def handle_request(self, header: Any, request: Any, created_time_ms: int) -> CompletableFuture:
        """Queue a raft request from the network; the future completes with its response body."""
        inbound_request = InboundRequest(header.correlation_id, header.api_version, request, created_time_ms,
                                         getattr(header, "listener_name", None) or self.client.channel.listener_name(),
                                         getattr(header, "traceparent", None))
        self.client.handle(inbound_request)
        return inbound_request.completion.then_apply(lambda response: response.data)
