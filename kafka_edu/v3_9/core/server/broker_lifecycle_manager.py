"""Port of core/src/main/scala/kafka/server/BrokerLifecycleManager.scala (Kafka 3.9): a KRaft broker's registration
with the active controller, its heartbeats, and the broker state they drive.

Everything runs as events on the manager's own KafkaEventQueue, so its state needs no lock: a StartupEvent sends the
BrokerRegistration; every later exchange is the one deferred event tagged "communication" (a registration until one
succeeds, then a heartbeat), re-armed after each answer: after the heartbeat interval, after 10 ms while STARTING, at
once when something changed, or after an exponential backoff when the exchange failed. One exchange is in flight
at a time: a communication due while one is outstanding waits for its answer, then goes at once. Every answer, and
every timeout, comes back from the channel's thread as an event at the head of the queue. The heartbeat answers move
the state: STARTING -> RECOVERY once the controller says the broker caught up with the metadata log (the start-up
waits for it), RECOVERY -> RUNNING once it is unfenced, PENDING_CONTROLLED_SHUTDOWN -> SHUTTING_DOWN once the
controller says it may stop. A failed log directory (`propagate_directory_failure`) goes in every later heartbeat;
if no heartbeat carrying it is answered within its timeout, the shutdown hook runs.

Left out of 3.9: ZooKeeper-migration brokers, which kafka-edu does not have.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterable
from concurrent.futures import Future
from typing import Any

from kafka_edu.tracing import event, span
from kafka_edu.v1_0_2.core.utils.kafka_logging import Logging
from kafka_edu.v3_9.clients.common.protocol.api_keys import ApiKeys
from kafka_edu.v3_9.clients.common.protocol.builder import build
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from kafka_edu.v3_9.clients.common.utils.exponential_backoff import ExponentialBackoff
from kafka_edu.v3_9.clients.common.uuid import Uuid
from kafka_edu.v3_9.core.server.node_to_controller_channel_manager import (
    ClientResponse,
    ControllerRequest,
    NodeToControllerChannelManagerImpl,
)
from kafka_edu.v3_9.metadata.metadata.broker_state import BrokerState
from kafka_edu.v3_9.server_common.queue.event_queue import DeadlineFunction, Event
from kafka_edu.v3_9.server_common.queue.kafka_event_queue import SYSTEM_TIME, KafkaEventQueue, Time

# The versions a 3.9 broker sends to a 3.9 controller (the newest both speak).
BROKER_REGISTRATION_VERSION = 4
BROKER_HEARTBEAT_VERSION = 1
MS = 1_000_000  # nanoseconds


def _kio_uuid(value: Uuid) -> uuid.UUID:
    return uuid.UUID(bytes=value.to_bytes())


def _complete(future: Future[None]) -> None:
    if not future.done():
        future.set_result(None)


class BrokerLifecycleManager:
    """Owns the broker state; start-up and shutdown wait on its futures."""

    def __init__(self, config: Any, time: Time = SYSTEM_TIME, thread_name_prefix: str = "",
                 is_zk_broker: bool = False, log_dirs: Iterable[Uuid] = (),
                 shutdown_hook: Callable[[], None] = lambda: None) -> None:
        self.config = config
        self.time = time
        self.thread_name_prefix = thread_name_prefix
        self.is_zk_broker = is_zk_broker
        self.log_dirs = set(log_dirs)
        self.shutdown_hook = shutdown_hook
        self.log_context = f"[BrokerLifecycleManager id={config.node_id}] "
        self.log = Logging("kafka.server.BrokerLifecycleManager", self.log_context)
        self.node_id: int = config.node_id
        # the broker's rack, or None
        self.rack: str | None = config.rack
        # how long the first registration may take before the broker gives up starting
        self.initial_timeout_ns = config.initial_registration_timeout_ms * MS
        # the wait before resending after a failed exchange, doubling up to the session timeout
        self.resend_exponential_backoff = ExponentialBackoff(100, 2, config.broker_session_timeout_ms, 0.02)
        # failed exchanges in a row (event queue thread only)
        self.failed_attempts = 0
        # this run of the broker: a restarted broker registers with a new one
        self.incarnation_id = Uuid.random_uuid()
        # completed the first time the controller says we have caught up with the metadata log
        self.initial_catch_up_future: Future[None] = Future()
        # completed the first time the controller unfences us
        self.initial_unfence_future: Future[None] = Future()
        # completed when the controller lets us stop (or when the manager shuts down)
        self.controlled_shutdown_future: Future[None] = Future()
        # written on the event queue thread only; -1 until registered
        self._broker_epoch = -1
        self._state = BrokerState.NOT_RUNNING
        # gives the offset of the last metadata image published on this broker (event queue thread only)
        self._highest_metadata_offset_provider: Callable[[], int] | None = None
        # true once the broker may be unfenced: it asks for it in every heartbeat from then on
        self.ready_to_unfence = False
        # failed log directories -> whether a heartbeat carrying it was answered (event queue thread only)
        self.offline_dirs: dict[Uuid, bool] = {}
        # true once a heartbeat asking to shut down has been answered
        self.got_controlled_shutdown_response = False
        # whether the controller knows this incarnation; false sends a registration instead of a heartbeat
        self.registered = False
        # a request was sent and neither its answer nor its timeout has been handled yet
        self.communication_in_flight = False
        # a communication came due while one was in flight: the next one is scheduled at once
        self.next_scheduling_should_be_immediate = False
        self.initial_registration_succeeded = False
        self._cluster_id: str | None = None
        self._advertised_listeners: list[dict[str, Any]] = []
        self._supported_features: dict[str, tuple[int, int]] = {}
        self._channel_manager: NodeToControllerChannelManagerImpl | None = None
        # the broker epoch of the previous run, -1 when unknown (a clean shutdown would have left it on disk)
        self.previous_broker_epoch = -1
        self.event_queue = KafkaEventQueue(time, self.log_context, thread_name_prefix + "lifecycle-manager-",
                                           BrokerLifecycleManager.ShutdownEvent(self))

    def start(self, highest_metadata_offset_provider: Callable[[], int],
              channel_manager: NodeToControllerChannelManagerImpl, cluster_id: str,
              advertised_listeners: list[dict[str, Any]], supported_features: dict[str, tuple[int, int]],
              previous_broker_epoch: int | None) -> None:
        """Start the channel and register. `advertised_listeners` are BrokerRegistrationRequest listeners (name,
        host, port, security_protocol); `supported_features` maps a feature to its (min, max) version."""
        self.previous_broker_epoch = -1 if previous_broker_epoch is None else previous_broker_epoch
        self.event_queue.append(BrokerLifecycleManager.StartupEvent(
            self, highest_metadata_offset_provider, channel_manager, cluster_id, advertised_listeners,
            supported_features))

    def set_ready_to_unfence(self) -> Future[None]:
        self.event_queue.append(BrokerLifecycleManager.SetReadyToUnfenceEvent(self))
        return self.initial_unfence_future

    def propagate_directory_failure(self, directory: Uuid, timeout: int) -> None:
        """Tell the controller that a log directory failed; shut down if that has not been heard within `timeout`
        ms."""
        self.event_queue.append(BrokerLifecycleManager.OfflineDirEvent(self, directory))
        # a broker that cannot tell the controller about an offline directory must not go on
        self.event_queue.schedule_deferred("offlineDirFailure",
                                           DeadlineFunction(self.time.nanoseconds() + timeout * MS),
                                           BrokerLifecycleManager.OfflineDirBrokerFailureEvent(self, directory))

    def resend_broker_registration_unless_zk_mode(self) -> None:
        """Register again (BrokerRegistrationTracker calls it when the registration in the log is out of date)."""
        self.event_queue.append(BrokerLifecycleManager.ResendBrokerRegistrationUnlessZkModeEvent(self))

    @property
    def broker_epoch(self) -> int:
        return self._broker_epoch

    @property
    def state(self) -> BrokerState:
        return self._state

    def begin_controlled_shutdown(self) -> None:
        """Enter PENDING_CONTROLLED_SHUTDOWN if RUNNING; in any other state, shut down at once."""
        self.event_queue.append(BrokerLifecycleManager.BeginControlledShutdownEvent(self))

    def begin_shutdown(self) -> None:
        """Stop the event queue without waiting: its ShutdownEvent runs last."""
        self.event_queue.begin_shutdown("beginShutdown")

    def close(self) -> None:
        self.begin_shutdown()
        self.event_queue.close()

    # -- events ---------------------------------------------------------------------------------------------------

    class BeginControlledShutdownEvent(Event):
        def __init__(self, manager: BrokerLifecycleManager) -> None:
            self.manager = manager

        def run(self) -> None:
            m = self.manager
            if m._state == BrokerState.PENDING_CONTROLLED_SHUTDOWN:
                m.log.info("Attempted to enter pending controlled shutdown state, but we are already in that state.")
            elif m._state == BrokerState.RUNNING:
                m.log.info("Beginning controlled shutdown.")
                m._state = BrokerState.PENDING_CONTROLLED_SHUTDOWN
                event("broker.state.change", m)
                # the next heartbeat carries wantShutDown: send it now, the controller can start moving leaders
                m.schedule_next_communication_immediately()
            else:
                m.log.info("Skipping controlled shutdown because we are in state %s.", m._state.name)
                m.begin_shutdown()

    class SetReadyToUnfenceEvent(Event):
        def __init__(self, manager: BrokerLifecycleManager) -> None:
            self.manager = manager

        def run(self) -> None:
            self.manager.ready_to_unfence = True
            self.manager.schedule_next_communication_immediately()

    class OfflineDirEvent(Event):
        def __init__(self, manager: BrokerLifecycleManager, directory: Uuid) -> None:
            self.manager = manager
            self.dir = directory

        def run(self) -> None:
            m = self.manager
            m.offline_dirs[self.dir] = False
            if m.registered:
                m.schedule_next_communication_immediately()

    class OfflineDirBrokerFailureEvent(Event):
        def __init__(self, manager: BrokerLifecycleManager, offline_dir: Uuid) -> None:
            self.manager = manager
            self.offline_dir = offline_dir

        def run(self) -> None:
            m = self.manager
            if not m.offline_dirs.get(self.offline_dir, False):
                m.log.error("Shutting down because couldn't communicate offline log dir %s with controllers",
                            self.offline_dir)
                m.shutdown_hook()

    class ResendBrokerRegistrationUnlessZkModeEvent(Event):
        def __init__(self, manager: BrokerLifecycleManager) -> None:
            self.manager = manager

        def run(self) -> None:
            if not self.manager.is_zk_broker:
                self.manager.registered = False
                self.manager.schedule_next_communication_immediately()

    class StartupEvent(Event):
        def __init__(self, manager: BrokerLifecycleManager, highest_metadata_offset_provider: Callable[[], int],
                     channel_manager: NodeToControllerChannelManagerImpl, cluster_id: str,
                     advertised_listeners: list[dict[str, Any]],
                     supported_features: dict[str, tuple[int, int]]) -> None:
            self.manager = manager
            self.highest_metadata_offset_provider = highest_metadata_offset_provider
            self.channel_manager = channel_manager
            self.cluster_id = cluster_id
            self.advertised_listeners = advertised_listeners
            self.supported_features = supported_features

        def run(self) -> None:
            m = self.manager
            m._highest_metadata_offset_provider = self.highest_metadata_offset_provider
            m._channel_manager = self.channel_manager
            m._channel_manager.start()
            m._state = BrokerState.STARTING
            event("broker.state.change", m)
            m._cluster_id = self.cluster_id
            m._advertised_listeners = [dict(listener) for listener in self.advertised_listeners]
            m._supported_features = dict(self.supported_features)
            if not m.is_zk_broker:
                # a KRaft broker cannot start without a registration: give up after the initial timeout
                m.event_queue.schedule_deferred("initialRegistrationTimeout",
                                                DeadlineFunction(m.time.nanoseconds() + m.initial_timeout_ns),
                                                BrokerLifecycleManager.RegistrationTimeoutEvent(m))
            m.send_broker_registration()
            m.log.info("Incarnation %s of broker %d in cluster %s is now STARTING.", m.incarnation_id, m.node_id,
                       m._cluster_id)

    def send_broker_registration(self) -> None:
        features = [{"name": name, "min_supported_version": low, "max_supported_version": high}
                    for name, (low, high) in self._supported_features.items()]
        sorted_log_dirs = sorted(self.log_dirs)
        data = build(ApiKeys.BROKER_REGISTRATION.request_schema(BROKER_REGISTRATION_VERSION),
                     broker_id=self.node_id, is_migrating_zk_broker=self.is_zk_broker, cluster_id=self._cluster_id,
                     features=features, incarnation_id=_kio_uuid(self.incarnation_id),
                     listeners=self._advertised_listeners, rack=self.rack,
                     previous_broker_epoch=self.previous_broker_epoch,
                     log_dirs=[_kio_uuid(d) for d in sorted_log_dirs])
        self.log.debug("Sending broker registration %s", data)
        with span("BrokerLifecycleManager.sendBrokerRegistration", self, data=data):
            self._channel_manager.send_request(
                ControllerRequest(ApiKeys.BROKER_REGISTRATION, BROKER_REGISTRATION_VERSION, data),
                BrokerLifecycleManager.BrokerRegistrationResponseHandler(self))
        self.communication_in_flight = True

    class BrokerRegistrationResponseHandler:
        """Runs on the channel's thread, where the manager's state may not be touched: the answer goes to the event
        queue, first in line."""

        def __init__(self, manager: BrokerLifecycleManager) -> None:
            self.manager = manager

        def on_complete(self, response: ClientResponse) -> None:
            self.manager.event_queue.prepend(
                BrokerLifecycleManager.BrokerRegistrationResponseEvent(self.manager, response, False))

        def on_timeout(self) -> None:
            self.manager.log.info("Unable to register the broker because the RPC got timed out before it could be "
                                  "sent.")
            self.manager.event_queue.prepend(
                BrokerLifecycleManager.BrokerRegistrationResponseEvent(self.manager, None, True))

    class BrokerRegistrationResponseEvent(Event):
        def __init__(self, manager: BrokerLifecycleManager, response: ClientResponse | None,
                     timed_out: bool) -> None:
            self.manager = manager
            self.response = response
            self.timed_out = timed_out

        def run(self) -> None:
            m, response = self.manager, self.response
            m.communication_in_flight = False
            if self.timed_out:
                m.schedule_next_communication_after_failure()
                return
            expected = ApiKeys.BROKER_REGISTRATION.response_schema(BROKER_REGISTRATION_VERSION)
            if response.authentication_exception is not None:
                m.log.error("Unable to register broker %d because of an authentication exception.", m.node_id,
                            exc_info=response.authentication_exception)
                m.schedule_next_communication_after_failure()
            elif response.version_mismatch is not None:
                m.log.error("Unable to register broker %d because of an API version problem.", m.node_id,
                            exc_info=response.version_mismatch)
                m.schedule_next_communication_after_failure()
            elif response.response_body is None:
                m.log.warning("Unable to register broker %d.", m.node_id)
                m.schedule_next_communication_after_failure()
            elif not isinstance(response.response_body, expected):
                m.log.error("Unable to register broker %d because the controller returned an invalid response type.",
                            m.node_id)
                m.schedule_next_communication_after_failure()
            else:
                message = response.response_body
                error_code = Errors.for_code(int(message.error_code))
                if error_code == Errors.NONE:
                    m.failed_attempts = 0
                    m._broker_epoch = message.broker_epoch
                    m.registered = True
                    m.initial_registration_succeeded = True
                    m.log.info("Successfully registered broker %d with broker epoch %d", m.node_id, m._broker_epoch)
                    m.schedule_next_communication_immediately()  # the first heartbeat right away
                else:
                    m.log.info("Unable to register broker %d because the controller returned error %s", m.node_id,
                               error_code.name)
                    m.schedule_next_communication_after_failure()

    def send_broker_heartbeat(self) -> None:
        metadata_offset = self._highest_metadata_offset_provider()
        data = build(ApiKeys.BROKER_HEARTBEAT.request_schema(BROKER_HEARTBEAT_VERSION),
                     broker_epoch=self._broker_epoch, broker_id=self.node_id,
                     current_metadata_offset=metadata_offset, want_fence=not self.ready_to_unfence,
                     want_shut_down=self._state == BrokerState.PENDING_CONTROLLED_SHUTDOWN,
                     offline_log_dirs=[_kio_uuid(d) for d in self.offline_dirs])
        self.log.debug("Sending broker heartbeat %s", data)
        handler = BrokerLifecycleManager.BrokerHeartbeatResponseHandler(self, list(self.offline_dirs))
        with span("BrokerLifecycleManager.sendBrokerHeartbeat", self, data=data):
            self._channel_manager.send_request(
                ControllerRequest(ApiKeys.BROKER_HEARTBEAT, BROKER_HEARTBEAT_VERSION, data), handler)
        self.communication_in_flight = True

    class BrokerHeartbeatResponseHandler:
        """Like the registration's: the answer, with the offline directories the heartbeat carried, goes to the event
        queue."""

        def __init__(self, manager: BrokerLifecycleManager, current_offline_dirs: list[Uuid]) -> None:
            self.manager = manager
            self.current_offline_dirs = current_offline_dirs

        def on_complete(self, response: ClientResponse) -> None:
            self.manager.event_queue.prepend(BrokerLifecycleManager.BrokerHeartbeatResponseEvent(
                self.manager, response, False, self.current_offline_dirs))

        def on_timeout(self) -> None:
            self.manager.log.info("Unable to send a heartbeat because the RPC got timed out before it could be sent.")
            self.manager.event_queue.prepend(BrokerLifecycleManager.BrokerHeartbeatResponseEvent(
                self.manager, None, True, self.current_offline_dirs))

    class BrokerHeartbeatResponseEvent(Event):
        def __init__(self, manager: BrokerLifecycleManager, response: ClientResponse | None, timed_out: bool,
                     current_offline_dirs: list[Uuid]) -> None:
            self.manager = manager
            self.response = response
            self.timed_out = timed_out
            self.current_offline_dirs = current_offline_dirs

        def run(self) -> None:
            m, response = self.manager, self.response
            m.communication_in_flight = False
            if self.timed_out:
                m.schedule_next_communication_after_failure()
                return
            expected = ApiKeys.BROKER_HEARTBEAT.response_schema(BROKER_HEARTBEAT_VERSION)
            if response.authentication_exception is not None:
                m.log.error("Unable to send broker heartbeat for %d because of an authentication exception.",
                            m.node_id, exc_info=response.authentication_exception)
                m.schedule_next_communication_after_failure()
            elif response.version_mismatch is not None:
                m.log.error("Unable to send broker heartbeat for %d because of an API version problem.", m.node_id,
                            exc_info=response.version_mismatch)
                m.schedule_next_communication_after_failure()
            elif response.response_body is None:
                m.log.warning("Unable to send broker heartbeat for %d. Retrying.", m.node_id)
                m.schedule_next_communication_after_failure()
            elif not isinstance(response.response_body, expected):
                m.log.error("Unable to send broker heartbeat for %d because the controller returned an invalid "
                            "response type.", m.node_id)
                m.schedule_next_communication_after_failure()
            else:
                message = response.response_body
                error_code = Errors.for_code(int(message.error_code))
                if error_code == Errors.NONE:
                    response_data = message
                    m.failed_attempts = 0
                    for offline_dir in self.current_offline_dirs:
                        m.offline_dirs[offline_dir] = True
                    if m._state == BrokerState.STARTING:
                        if response_data.is_caught_up:
                            m.log.info("The broker has caught up. Transitioning from STARTING to RECOVERY.")
                            m._state = BrokerState.RECOVERY
                            event("broker.state.change", m)
                            _complete(m.initial_catch_up_future)
                        else:
                            m.log.debug("The broker is STARTING. Still waiting to catch up with cluster metadata.")
                        # 10 ms rather than the interval: with nothing to recover the broker is up a little sooner
                        m.schedule_next_communication(10 * MS)
                    elif m._state == BrokerState.RECOVERY:
                        if not response_data.is_fenced:
                            m.log.info("The broker has been unfenced. Transitioning from RECOVERY to RUNNING.")
                            _complete(m.initial_unfence_future)
                            m._state = BrokerState.RUNNING
                            event("broker.state.change", m)
                        else:
                            m.log.info("The broker is in RECOVERY.")
                        m.schedule_next_communication_after_success()
                    elif m._state == BrokerState.RUNNING:
                        m.log.debug("The broker is RUNNING. Processing heartbeat response.")
                        m.schedule_next_communication_after_success()
                    elif m._state == BrokerState.PENDING_CONTROLLED_SHUTDOWN:
                        if not response_data.should_shut_down:
                            m.log.info("The broker is in PENDING_CONTROLLED_SHUTDOWN state, still waiting for the "
                                       "active controller.")
                            if not m.got_controlled_shutdown_response:
                                # the first answer: ask again soon, a quick controlled shutdown ends sooner
                                m.schedule_next_communication(50 * MS)
                            else:
                                m.schedule_next_communication_after_success()
                        else:
                            m.log.info("The controller has asked us to exit controlled shutdown.")
                            m.begin_shutdown()
                        m.got_controlled_shutdown_response = True
                    elif m._state == BrokerState.SHUTTING_DOWN:
                        m.log.info("The broker is SHUTTING_DOWN. Ignoring heartbeat response.")
                    else:
                        m.log.error("Unexpected broker state %s", m._state.name)
                        m.schedule_next_communication_after_success()
                else:
                    m.log.warning("Broker %d sent a heartbeat request but received error %s.", m.node_id,
                                  error_code.name)
                    m.schedule_next_communication_after_failure()

    def schedule_next_communication_immediately(self) -> None:
        self.schedule_next_communication(0)

    def schedule_next_communication_after_failure(self) -> None:
        delay_ms = self.resend_exponential_backoff.backoff(self.failed_attempts)
        self.failed_attempts += 1
        self.next_scheduling_should_be_immediate = False  # never straight back after a failure
        self.schedule_next_communication(delay_ms * MS)

    def schedule_next_communication_after_success(self) -> None:
        self.schedule_next_communication(self.config.broker_heartbeat_interval_ms * MS)

    def schedule_next_communication(self, interval_ns: int) -> None:
        adjusted_interval_ns = 0 if self.next_scheduling_should_be_immediate else interval_ns
        self.next_scheduling_should_be_immediate = False
        self.log.debug("Scheduling next communication at %d ms from now.", adjusted_interval_ns // MS)
        deadline_ns = self.time.nanoseconds() + adjusted_interval_ns
        self.event_queue.schedule_deferred("communication", DeadlineFunction(deadline_ns),
                                           BrokerLifecycleManager.CommunicationEvent(self))

    class RegistrationTimeoutEvent(Event):
        def __init__(self, manager: BrokerLifecycleManager) -> None:
            self.manager = manager

        def run(self) -> None:
            if not self.manager.initial_registration_succeeded:
                self.manager.log.error("Shutting down because we were unable to register with the controller "
                                       "quorum.")
                self.manager.event_queue.begin_shutdown("registrationTimeout")

    class CommunicationEvent(Event):
        def __init__(self, manager: BrokerLifecycleManager) -> None:
            self.manager = manager

        def run(self) -> None:
            m = self.manager
            if m.communication_in_flight:
                m.log.debug("Delaying communication because there is already one in flight.")
                m.next_scheduling_should_be_immediate = True
            elif m.registered:
                m.send_broker_heartbeat()
            else:
                m.send_broker_registration()

    class ShutdownEvent(Event):
        """The queue's cleanup event: it runs last, once the queue has shut down."""

        def __init__(self, manager: BrokerLifecycleManager) -> None:
            self.manager = manager

        @span("BrokerLifecycleManager.ShutdownEvent.run")
        def run(self) -> None:
            m = self.manager
            m.log.info("Transitioning from %s to %s.", m._state.name, BrokerState.SHUTTING_DOWN.name)
            m._state = BrokerState.SHUTTING_DOWN
            event("broker.state.change", m)
            _complete(m.controlled_shutdown_future)
            m.initial_catch_up_future.cancel()
            m.initial_unfence_future.cancel()
            if m._channel_manager is not None:
                m._channel_manager.shutdown()
                m._channel_manager = None
