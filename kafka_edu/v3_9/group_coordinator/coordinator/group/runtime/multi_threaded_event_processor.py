"""Port of group-coordinator/src/main/java/org/apache/kafka/coordinator/group/runtime/MultiThreadedEventProcessor.java
(Kafka 3.9).

A pool of threads pulls events from an EventAccumulator, so events of one partition run in order and one at a time,
while partitions are spread over the threads. On shutdown the accumulator stops taking events first, then the
threads finish the event in hand and fail every event still queued with a RejectedExecutionException.
"""

from __future__ import annotations

import threading

from kafka_edu.v1_0_2.clients.common.errors import RejectedExecutionException
from kafka_edu.v1_0_2.core.utils.kafka_logging import Logging
from kafka_edu.v3_9.clients.common.topic_partition import TopicPartition
from kafka_edu.v3_9.clients.common.utils.time import Time
from kafka_edu.v3_9.group_coordinator.coordinator.group.metrics.coordinator_runtime_metrics import (
    CoordinatorRuntimeMetrics,
)
from kafka_edu.v3_9.group_coordinator.coordinator.group.runtime.coordinator_event import CoordinatorEvent
from kafka_edu.v3_9.group_coordinator.coordinator.group.runtime.coordinator_event_processor import (
    CoordinatorEventProcessor,
)
from kafka_edu.v3_9.group_coordinator.coordinator.group.runtime.event_accumulator import EventAccumulator

# how long a thread waits for an event before checking again whether it should stop
POLL_TIMEOUT_MS = 300

_LOGGER_NAME = "org.apache.kafka.coordinator.group.runtime.MultiThreadedEventProcessor"


class MultiThreadedEventProcessor(CoordinatorEventProcessor):
    """`log_context` is LogContext's prefix, as elsewhere in the port."""

    def __init__(self, log_context: str, thread_prefix: str, num_threads: int, time: Time,
                 metrics: CoordinatorRuntimeMetrics,
                 event_accumulator: EventAccumulator[TopicPartition, CoordinatorEvent] | None = None) -> None:
        if time is None or metrics is None:
            raise TypeError("time and metrics are required")  # Java's Objects.requireNonNull
        self._log = Logging(_LOGGER_NAME, log_context)
        self._shutting_down = False
        self._shutdown_lock = threading.Lock()  # Java's synchronized beginShutdown
        self._accumulator: EventAccumulator[TopicPartition, CoordinatorEvent] = (
            event_accumulator if event_accumulator is not None else EventAccumulator())
        self._time = time
        self._metrics = metrics
        self._metrics.register_event_queue_size_gauge(self._accumulator.size)
        self._threads = [MultiThreadedEventProcessor.EventProcessorThread(self, thread_prefix + str(thread_id))
                         for thread_id in range(num_threads)]
        for thread in self._threads:
            thread.start()

    class EventProcessorThread(threading.Thread):
        """Non-daemon, as Kafka's: `close` must be called, it joins every thread."""

        def __init__(self, processor: MultiThreadedEventProcessor, name: str) -> None:
            super().__init__(name=name, daemon=False)
            self._processor = processor
            self._log = Logging(_LOGGER_NAME + ".EventProcessorThread", f"[{name}]: ")

        def _handle_events(self) -> None:
            processor = self._processor
            while not processor._shutting_down:
                # the pool shares one idle meter, so each thread's idle time counts 1/num_threads of it
                idle_start_time_ms = processor._time.milliseconds()
                event = processor._accumulator.poll(POLL_TIMEOUT_MS)
                idle_end_time_ms = processor._time.milliseconds()
                idle_time_ms = idle_end_time_ms - idle_start_time_ms
                processor._metrics.record_thread_idle_time(idle_time_ms // len(processor._threads))
                if event is not None:
                    try:
                        self._log.debug("Executing event: %s.", event)
                        dequeued_time_ms = processor._time.milliseconds()
                        processor._metrics.record_event_queue_time(dequeued_time_ms - event.created_time_ms())
                        event.run()
                        processor._metrics.record_event_queue_processing_time(
                            processor._time.milliseconds() - dequeued_time_ms)
                    except BaseException as t:
                        self._log.error("Failed to run event %s due to: %s.", event, t, exc_info=t)
                        event.complete(t)
                    finally:
                        processor._accumulator.done(event)

        def _drain_events(self) -> None:
            processor = self._processor
            while (event := processor._accumulator.poll()) is not None:
                try:
                    self._log.debug("Draining event: %s.", event)
                    processor._metrics.record_event_queue_time(processor._time.milliseconds() - event.created_time_ms())
                    event.complete(RejectedExecutionException("EventProcessor is closed."))
                except BaseException as t:
                    self._log.error("Failed to reject event %s due to: %s.", event, t, exc_info=t)
                finally:
                    processor._accumulator.done(event)

        def run(self) -> None:
            self._log.info("Starting")
            try:
                self._handle_events()
            except BaseException as t:
                self._log.error("Exiting with exception.", exc_info=t)

            # only a shutdown drains: a thread that died of an error leaves the queue to the others
            if self._processor._shutting_down:
                self._log.info("Shutting down. Draining the remaining events.")
                try:
                    self._drain_events()
                except BaseException as t:
                    self._log.error("Draining threw exception.", exc_info=t)
                self._log.info("Shutdown completed")

    def enqueue_last(self, event: CoordinatorEvent) -> None:
        self._accumulator.add_last(event)

    def enqueue_first(self, event: CoordinatorEvent) -> None:
        self._accumulator.add_first(event)

    def begin_shutdown(self) -> None:
        with self._shutdown_lock:
            if self._shutting_down:
                self._log.debug("Event processor is already shutting down.")
                return
            self._log.info("Shutting down event processor.")
            # close the accumulator before raising the flag: once threads start draining, nothing new gets in
            self._accumulator.close()
            self._shutting_down = True

    def close(self) -> None:
        self.begin_shutdown()
        for thread in self._threads:
            thread.join()
        self._log.info("Event processor closed.")
