"""Port of core/src/main/scala/kafka/server/KafkaRequestHandler.scala (Kafka 1.0.2): the request handler threads."""

from __future__ import annotations

import logging
import threading
import time
from typing import TYPE_CHECKING

from kafka_edu.tracing import step
from kafka_edu.v1_0_2.clients.common.internals.fatal_exit_error import FatalExitError
from kafka_edu.v1_0_2.clients.common.utils.exit import Exit
from kafka_edu.v1_0_2.core.network.request_channel import SHUTDOWN_REQUEST, RequestChannel

if TYPE_CHECKING:
    from kafka_edu.v1_0_2.core.server.kafka_apis import KafkaApis

log = logging.getLogger("kafka.server.KafkaRequestHandler")


class KafkaRequestHandler(threading.Thread):
    """An I/O thread: takes requests off the shared queue and runs them through KafkaApis."""

    def __init__(self, id: int, broker_id: int, total_handler_threads: int, request_channel: RequestChannel,
                 apis: KafkaApis) -> None:
        super().__init__(name=f"kafka-request-handler-{id}", daemon=True)
        self.id = id
        self.broker_id = broker_id
        self.total_handler_threads = total_handler_threads
        self.request_channel = request_channel
        self.apis = apis
        self.idle_ns = 0  # what Kafka's RequestHandlerAvgIdlePercent meter is computed from
        self._shutdown_complete = threading.Event()

    def run(self) -> None:
        while True:
            start_select = time.monotonic_ns()
            request = self.request_channel.receive_request(300)
            self.idle_ns += time.monotonic_ns() - start_select
            if request is None:
                continue
            if request is SHUTDOWN_REQUEST:
                log.debug("Kafka request handler %d on broker %d received shut down command", self.id, self.broker_id)
                self._shutdown_complete.set()
                return
            with step("NW.handler.1", self, request=request):
                try:
                    request.request_dequeue_time_ns = time.time_ns()
                    self.apis.handle(request)
                except FatalExitError as e:
                    self._shutdown_complete.set()
                    Exit.exit(e.status_code)
                    return  # exit does not return, but a test's exit procedure does
                except Exception:
                    log.exception("Exception when handling request")
                finally:
                    if request.api_local_complete_time_ns < 0:
                        request.api_local_complete_time_ns = time.time_ns()

    def initiate_shutdown(self) -> None:
        self.request_channel.send_shutdown_request()

    def await_shutdown(self) -> None:
        self._shutdown_complete.wait()


class KafkaRequestHandlerPool:
    """`num.io.threads` handlers sharing one request queue."""

    def __init__(self, broker_id: int, request_channel: RequestChannel, apis: KafkaApis, num_threads: int) -> None:
        self.broker_id = broker_id
        self.runnables = [KafkaRequestHandler(i, broker_id, num_threads, request_channel, apis)
                          for i in range(num_threads)]
        for handler in self.runnables:
            handler.start()

    def shutdown(self) -> None:
        log.info("shutting down")
        for handler in self.runnables:
            handler.initiate_shutdown()
        for handler in self.runnables:
            handler.await_shutdown()
        log.info("shut down completely")
