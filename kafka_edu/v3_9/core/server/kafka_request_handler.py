"""Port of core/src/main/scala/kafka/server/KafkaRequestHandler.scala (Kafka 3.9): the request handler threads
(`num.io.threads`) that take requests and callbacks off the RequestChannel and run them through the API layer, and
`wrap_async_callback`, which brings an async step (transaction verification) back onto a handler thread.

Left out: the idle meter (RequestHandlerAvgIdlePercent, Yammer) and BrokerTopicStats, which the same Scala file
holds (per-topic Yammer meters, most of them for tiered storage): the 3.9 tree has no metrics registry.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from typing import Any, TypeVar

from kafka_edu.tracing import step
from kafka_edu.v1_0_2.clients.common.errors import IllegalStateException
from kafka_edu.v1_0_2.core.utils.concurrent import CountDownLatch
from kafka_edu.v1_0_2.core.utils.kafka_logging import Logging
from kafka_edu.v3_9.clients.common.utils.time import Time
from kafka_edu.v3_9.core.network.request_channel import (
    CallbackRequest,
    Request,
    RequestChannel,
    ShutdownRequest,
    WakeupRequest,
)
from kafka_edu.v3_9.core.server.request_local import RequestLocal
from kafka_edu.v3_9.server_common.server.util.shutdownable_thread import FatalExitError

T = TypeVar("T")


class ApiRequestHandler:
    """What the handler threads run requests through: KafkaApis, ControllerApis."""

    def handle(self, request: Request, request_local: RequestLocal) -> None:
        raise NotImplementedError

    def try_complete_actions(self) -> None:
        """Operations an append made completable, completed after the request (or callback) that made them."""


# The handler thread's request channel and the request it runs: what a callback needs to be re-queued.
_thread_state = threading.local()

# for tests: wrap_async_callback off a handler thread runs the callback inline
_bypass_thread_check = False


def set_bypass_thread_check(bypass_check: bool) -> None:
    global _bypass_thread_check
    _bypass_thread_check = bypass_check


def _thread_request_channel() -> RequestChannel | None:
    return getattr(_thread_state, "request_channel", None)


def _thread_current_request() -> Request | None:
    return getattr(_thread_state, "current_request", None)


def wrap_async_callback(async_completion_callback: Callable[[RequestLocal, T], None],
                        request_local: RequestLocal) -> Callable[[T], None]:
    """A callback that runs `async_completion_callback` at once when called on the handler thread of the request
    it was made for, and otherwise queues it for any handler thread, with that thread's RequestLocal. Must be called
    on a handler thread (IllegalStateException otherwise)."""
    request_channel = _thread_request_channel()
    current_request = _thread_current_request()
    if request_channel is None or current_request is None:
        if not _bypass_thread_check:
            raise IllegalStateException(
                "Attempted to reschedule to request handler thread from non-request handler thread.")
        return lambda t: async_completion_callback(request_local, t)

    def wrapped(t: T) -> None:
        if _thread_current_request() is current_request:
            # already on that request's handler thread: no need to queue it
            async_completion_callback(request_local, t)
        else:
            # the channel and request are captured here, so the callback can be queued from any thread
            request_channel.send_callback_request(CallbackRequest(
                lambda new_request_local: async_completion_callback(new_request_local, t), current_request))
    return wrapped


def _exit(status_code: int) -> None:
    """Exit.exit: the process stops (a FatalExitError means the broker cannot go on)."""
    os._exit(status_code)


class KafkaRequestHandler:
    """A thread that answers Kafka requests."""

    def __init__(self, id: int, broker_id: int, aggregate_idle_meter: Any, total_handler_threads: Any,
                 request_channel: RequestChannel, apis: ApiRequestHandler, time: Time,
                 node_name: str = "broker") -> None:
        self.id = id
        self.broker_id = broker_id
        self.aggregate_idle_meter = aggregate_idle_meter
        self.total_handler_threads = total_handler_threads
        self.request_channel = request_channel
        self.apis = apis
        self.time = time
        self.log = Logging("kafka.server.KafkaRequestHandler",
                           f"[Kafka Request Handler {id} on {node_name.capitalize()} {broker_id}], ")
        self._shutdown_complete = CountDownLatch(1)
        self._request_local = RequestLocal.with_thread_confined_caching()
        self._stopped = False

    def run(self) -> None:
        _thread_state.request_channel = self.request_channel
        while not self._stopped:
            # Kafka marks the pool's idle meter here with the wait, divided by the number of threads
            req = self.request_channel.receive_request(300)
            end_time = self.time.nanoseconds()

            if req is ShutdownRequest:
                self.log.debug("Kafka request handler %d on broker %d received shut down command", self.id,
                               self.broker_id)
                self._complete_shutdown()
                return

            with step("RQ.net.7", self, request=req):
                if isinstance(req, CallbackRequest):
                    original_request = req.original_request
                    try:
                        # A request may run several callbacks: the earlier ones' time is kept by moving the dequeue
                        # time back by it.
                        if original_request.callback_request_dequeue_time_nanos is not None:
                            prev_callbacks_time_nanos = ((original_request.callback_request_complete_time_nanos or 0)
                                                         - original_request.callback_request_dequeue_time_nanos)
                            original_request.callback_request_complete_time_nanos = None
                            original_request.callback_request_dequeue_time_nanos = (self.time.nanoseconds()
                                                                                    - prev_callbacks_time_nanos)
                        else:
                            original_request.callback_request_dequeue_time_nanos = self.time.nanoseconds()

                        _thread_state.current_request = original_request
                        req.fun(self._request_local)
                    except FatalExitError as e:
                        self._complete_shutdown()
                        _exit(e.status_code)
                    except Exception:
                        self.log.error("Exception when handling request", exc_info=True)
                    finally:
                        # what the callback made completable (purgatory operations) is completed here, as after handle
                        self.apis.try_complete_actions()
                        if original_request.callback_request_complete_time_nanos is None:
                            original_request.callback_request_complete_time_nanos = self.time.nanoseconds()
                        _thread_state.current_request = None

                elif isinstance(req, Request):
                    try:
                        req.request_dequeue_time_nanos = end_time
                        self.log.debug("Kafka request handler %d on broker %d handling request %s", self.id,
                                       self.broker_id, req)
                        _thread_state.current_request = req
                        self.apis.handle(req, self._request_local)
                    except FatalExitError as e:
                        self._complete_shutdown()
                        _exit(e.status_code)
                    except Exception:
                        self.log.error("Exception when handling request", exc_info=True)
                    finally:
                        _thread_state.current_request = None
                        req.release_buffer()

                elif req is WakeupRequest:
                    # receive_request takes the callback in its place
                    self.log.warning("Received a wakeup request outside of typical usage.")
        self._complete_shutdown()

    def _complete_shutdown(self) -> None:
        self._request_local.close()
        _thread_state.request_channel = None
        self._shutdown_complete.count_down()

    def stop(self) -> None:
        self._stopped = True

    def initiate_shutdown(self) -> None:
        self.request_channel.send_shutdown_request()

    def await_shutdown(self) -> None:
        self._shutdown_complete.await_()


class KafkaRequestHandlerPool:
    """`num_threads` handlers sharing one request channel; resizable (num.io.threads is a dynamic config)."""

    def __init__(self, broker_id: int, request_channel: RequestChannel, apis: ApiRequestHandler, time: Time,
                 num_threads: int, request_handler_avg_idle_metric_name: str, log_and_thread_name_prefix: str,
                 node_name: str = "broker") -> None:
        self.broker_id = broker_id
        self.request_channel = request_channel
        self.apis = apis
        self.time = time
        self.node_name = node_name
        self.log_and_thread_name_prefix = log_and_thread_name_prefix
        self.thread_pool_size = num_threads
        self.log = Logging("kafka.server.KafkaRequestHandlerPool",
                           f"[{log_and_thread_name_prefix} Kafka Request Handler on Broker {broker_id}], ")
        self._lock = threading.RLock()
        self.runnables: list[KafkaRequestHandler] = []
        for i in range(num_threads):
            self.create_handler(i)

    def create_handler(self, id: int) -> None:
        with self._lock:
            self.runnables.append(KafkaRequestHandler(id, self.broker_id, None, self.thread_pool_size,
                                                      self.request_channel, self.apis, self.time, self.node_name))
            threading.Thread(target=self.runnables[id].run, daemon=True,
                             name=f"{self.log_and_thread_name_prefix}-kafka-request-handler-{id}").start()

    def resize_thread_pool(self, new_size: int) -> None:
        with self._lock:
            current_size = self.thread_pool_size
            self.log.info("Resizing request handler thread pool size from %d to %d", current_size, new_size)
            if new_size > current_size:
                for i in range(current_size, new_size):
                    self.create_handler(i)
            elif new_size < current_size:
                for i in range(1, current_size - new_size + 1):
                    self.runnables.pop(current_size - i).stop()
            self.thread_pool_size = new_size

    def shutdown(self) -> None:
        with self._lock:
            self.log.info("shutting down")
            for handler in self.runnables:
                handler.initiate_shutdown()
            for handler in self.runnables:
                handler.await_shutdown()
            self.log.info("shut down completely")
