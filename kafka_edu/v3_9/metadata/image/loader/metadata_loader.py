"""Port of metadata/src/main/java/org/apache/kafka/image/loader/MetadataLoader.java (Kafka 3.9)."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future
from typing import Any

from kafka_edu.tracing.step import span, step
from kafka_edu.v1_0_2.core.utils.kafka_logging import Logging
from kafka_edu.v3_9.metadata.controller.quorum_controller import FaultHandler
from kafka_edu.v3_9.metadata.image.loader.loader_manifest import LoaderManifest
from kafka_edu.v3_9.metadata.image.loader.metadata_batch_loader import MetadataBatchLoader
from kafka_edu.v3_9.metadata.image.loader.snapshot_manifest import SnapshotManifest
from kafka_edu.v3_9.metadata.image.metadata_delta import MetadataDelta
from kafka_edu.v3_9.metadata.image.metadata_image import MetadataImage
from kafka_edu.v3_9.metadata.image.metadata_provenance import MetadataProvenance
from kafka_edu.v3_9.metadata.image.publisher.metadata_publisher import MetadataPublisher
from kafka_edu.v3_9.metadata.image.writer.image_re_writer import ImageReWriter
from kafka_edu.v3_9.metadata.image.writer.image_writer_options import ImageWriterOptions
from kafka_edu.v3_9.raft.raft.batch_reader import BatchReader
from kafka_edu.v3_9.raft.raft.leader_and_epoch import LeaderAndEpoch
from kafka_edu.v3_9.raft.raft.raft_client import RaftClient
from kafka_edu.v3_9.raft.snapshot.snapshot_reader import SnapshotReader
from kafka_edu.v3_9.raft.snapshot.snapshots import Snapshots
from kafka_edu.v3_9.server_common.queue.event_queue import EarliestDeadlineFunction, Event
from kafka_edu.v3_9.server_common.queue.kafka_event_queue import SYSTEM_TIME, KafkaEventQueue, Time
from kafka_edu.v3_9.server_common.server.common.api_message_and_version import ApiMessageAndVersion

INITIALIZE_NEW_PUBLISHERS = "InitializeNewPublishers"


class _LoaderEvent(Event):
    """One of the loader's lambdas on its queue, named for the trace (`kafka.queue.event`)."""

    def __init__(self, name: str, run: Callable[[], None]) -> None:
        self.name = name
        self._run = run

    def run(self) -> None:
        self._run()


class MetadataLoader(RaftClient.Listener[ApiMessageAndVersion]):
    """Follows the metadata log through the raft client and turns it into MetadataDeltas and MetadataImages for
    its publishers.

    Everything runs on the loader's own event queue thread, publishers included: one installed before another
    hears of each change first. Nothing is published until the loader has caught up with the high watermark it
    found at startup. A publisher installed later first gets the whole current image, as a delta from nothing.
    """

    class Builder:
        def __init__(self) -> None:
            self.node_id = -1
            self.thread_name_prefix = ""
            self.time: Time = SYSTEM_TIME
            self.log_context: str | None = None
            self.fault_handler: Any = FaultHandler("metadata loading")
            self.high_water_mark_accessor: Callable[[], int | None] | None = None

        def set_node_id(self, node_id: int) -> MetadataLoader.Builder:
            self.node_id = node_id
            return self

        def set_thread_name_prefix(self, thread_name_prefix: str) -> MetadataLoader.Builder:
            self.thread_name_prefix = thread_name_prefix
            return self

        def set_time(self, time: Time) -> MetadataLoader.Builder:
            self.time = time
            return self

        def set_fault_handler(self, fault_handler: Any) -> MetadataLoader.Builder:
            self.fault_handler = fault_handler
            return self

        def set_high_water_mark_accessor(self, accessor: Callable[[], int | None]) -> MetadataLoader.Builder:
            self.high_water_mark_accessor = accessor
            return self

        def build(self) -> MetadataLoader:
            if self.log_context is None:
                self.log_context = f"[MetadataLoader id={self.node_id}] "
            if self.high_water_mark_accessor is None:
                raise RuntimeError("You must set the high water mark accessor.")
            return MetadataLoader(self.time, self.log_context, self.node_id, self.thread_name_prefix,
                                  self.fault_handler, self.high_water_mark_accessor)

    def __init__(self, time: Time, log_context: str, node_id: int, thread_name_prefix: str, fault_handler: Any,
                 high_water_mark_accessor: Callable[[], int | None]) -> None:
        self.log = Logging("org.apache.kafka.image.loader.MetadataLoader", log_context)
        self.time = time
        self.node_id = node_id
        self.fault_handler = fault_handler
        # the raft client's high watermark, or None while it is not known
        self.high_water_mark_accessor = high_water_mark_accessor
        # publishers that have not had the first image yet, and those that get every update (in install order)
        self.uninitialized_publishers: dict[str, MetadataPublisher] = {}
        self.publishers: dict[str, MetadataPublisher] = {}
        # True until the loader has first caught up with the high watermark: nothing is published before
        self.catching_up = True
        self.current_leader_and_epoch = LeaderAndEpoch.UNKNOWN
        # the current image; read and written on the queue thread only
        self.image = MetadataImage.EMPTY
        # the provenance of the last image published (3.9 keeps it in MetadataLoaderMetrics)
        self._last_applied_provenance = MetadataProvenance.EMPTY
        self.batch_loader = MetadataBatchLoader(log_context, time.nanoseconds, fault_handler,
                                                self._maybe_publish_metadata)
        self.event_queue = KafkaEventQueue(SYSTEM_TIME, log_context, thread_name_prefix + "metadata-loader-",
                                           MetadataLoader.ShutdownEvent(self))

    def _still_need_to_catch_up(self, where: str, offset: int) -> bool:
        if not self.catching_up:
            self.log.debug("%s: we are not in the initial catching up state.", where)
            return False
        high_water_mark = self.high_water_mark_accessor()
        if high_water_mark is None:
            self.log.info("%s: the loader is still catching up because we still don't know the high water mark "
                          "yet.", where)
            return True
        if high_water_mark - 1 > offset:
            self.log.info("%s: The loader is still catching up because we have loaded up to offset %d, but the high "
                          "water mark is %d", where, offset, high_water_mark)
            return True
        if not self.batch_loader.has_seen_record():
            self.log.info("%s: The loader is still catching up because we have not loaded a controller record as of "
                          "offset %d and high water mark is %d", where, offset, high_water_mark)
            return True
        self.log.info("%s: The loader finished catching up to the current high water mark of %d", where,
                      high_water_mark)
        self.catching_up = False
        return False

    def schedule_initialize_new_publishers(self, delay_ns: int) -> None:
        """Initialize the new publishers on the queue thread, after `delay_ns` at the latest (a pending run keeps
        the earlier deadline)."""
        def initialize() -> None:
            try:
                self.initialize_new_publishers()
            except Exception as e:
                self.fault_handler.handle_fault("Unhandled error initializing new publishers", e)

        self.event_queue.schedule_deferred(INITIALIZE_NEW_PUBLISHERS,
                                           EarliestDeadlineFunction(self.event_queue.time.nanoseconds() + delay_ns),
                                           _LoaderEvent(INITIALIZE_NEW_PUBLISHERS, initialize))

    def initialize_new_publishers(self) -> None:
        if not self.uninitialized_publishers:
            self.log.debug("InitializeNewPublishers: nothing to do.")
            return
        if self._still_need_to_catch_up("initializeNewPublishers", self.image.highest_offset_and_epoch().offset):
            self.log.debug("InitializeNewPublishers: unable to initialize new publisher(s) %s because we are still "
                           "catching up with quorum metadata. Rescheduling.", self._uninitialized_publisher_names())
            self.schedule_initialize_new_publishers(100 * 1_000_000)
            return
        self.log.debug("InitializeNewPublishers: setting up snapshot image for new publisher(s): %s",
                       self._uninitialized_publisher_names())
        start_ns = self.time.nanoseconds()
        # a delta from the empty image: these publishers have seen nothing yet
        delta = MetadataDelta.Builder().set_image(MetadataImage.EMPTY).build()
        writer = ImageReWriter(delta)
        self.image.write(writer, ImageWriterOptions.Builder()
                         .set_metadata_version(self.image.features.metadata_version).build())
        # image.write closed the writer, which finished the snapshot on the delta
        manifest = SnapshotManifest(self.image.provenance, self.time.nanoseconds() - start_ns)
        for name in list(self.uninitialized_publishers):
            publisher = self.uninitialized_publishers.pop(name)
            try:
                self.log.info("InitializeNewPublishers: initializing %s with a snapshot at offset %d",
                              publisher.name(), self.image.highest_offset_and_epoch().offset)
                publisher.on_metadata_update(delta, self.image, manifest)
                publisher.on_controller_change(self.current_leader_and_epoch)
                self.publishers[publisher.name()] = publisher
            except Exception as e:
                self.fault_handler.handle_fault(f"Unhandled error initializing {publisher.name()} with a snapshot at "
                                                f"offset {self.image.highest_offset_and_epoch().offset}", e)

    def _uninitialized_publisher_names(self) -> str:
        return ", ".join(self.uninitialized_publishers)

    def _maybe_publish_metadata(self, delta: MetadataDelta, image: MetadataImage, manifest: LoaderManifest) -> None:
        """What MetadataBatchLoader and a snapshot load end with: the new image, published once caught up."""
        self.image = image
        if self._still_need_to_catch_up(f"maybePublishMetadata({manifest.type()})",
                                        manifest.provenance().last_contained_offset):
            return
        self.log.debug("handleCommit: publishing new image with provenance %s.", image.provenance)
        for publisher in list(self.publishers.values()):
            try:
                publisher.on_metadata_update(delta, image, manifest)
            except Exception as e:
                self.fault_handler.handle_fault(f"Unhandled error publishing the new metadata image ending at "
                                                f"{manifest.provenance().last_contained_offset} with publisher "
                                                f"{publisher.name()}", e)
        self._last_applied_provenance = image.provenance
        if self.uninitialized_publishers:
            self.schedule_initialize_new_publishers(0)

    def handle_commit(self, reader: BatchReader[ApiMessageAndVersion]) -> None:
        def handle_commit_event() -> None:
            try:
                batches = list(reader)  # read whole before the span: whether a commit is worth one depends on them
                with step("KR.publish", self, batches=batches):
                    for batch in batches:
                        self.batch_loader.load_batch(batch, self.current_leader_and_epoch)
                    self.batch_loader.maybe_flush_batches(self.current_leader_and_epoch)
            except Exception as e:
                # failures should have been handled where they happen; this catches the rest
                self.fault_handler.handle_fault(f"Unhandled fault in MetadataLoader#handleCommit. Last image offset "
                                                f"was {self.image.offset()}", e)
            finally:
                reader.close()

        self.event_queue.append(_LoaderEvent("handleCommit", handle_commit_event))

    def handle_load_snapshot(self, reader: SnapshotReader[ApiMessageAndVersion]) -> None:
        def handle_load_snapshot_event() -> None:
            try:
                with span("MetadataLoader.handleLoadSnapshot", self, reader=reader):
                    snapshot_name = Snapshots.filename_from_snapshot_id(reader.snapshot_id())
                    self.log.info("handleLoadSnapshot(%s): loading the snapshot.", snapshot_name)
                    delta = MetadataDelta.Builder().set_image(self.image).build()
                    manifest = self.load_snapshot(delta, reader)
                    self.log.info("handleLoadSnapshot(%s): generated a metadata delta between offset %d and this "
                                  "snapshot in %d us.", snapshot_name, self.image.provenance.last_contained_offset,
                                  manifest.elapsed_ns // 1000)
                    image = delta.apply(manifest.provenance())
                    self.batch_loader.reset_to_image(image)
                    self._maybe_publish_metadata(delta, image, manifest)
            except Exception as e:
                self.fault_handler.handle_fault(f"Unhandled fault in MetadataLoader#handleLoadSnapshot. Snapshot "
                                                f"offset was {reader.last_contained_log_offset()}", e)
            finally:
                reader.close()

        self.event_queue.append(_LoaderEvent("handleLoadSnapshot", handle_load_snapshot_event))

    def load_snapshot(self, delta: MetadataDelta, reader: SnapshotReader[ApiMessageAndVersion]) -> SnapshotManifest:
        """Replay a snapshot's records into `delta`; whatever the old image had and the snapshot lacks goes."""
        start_ns = self.time.nanoseconds()
        snapshot_index = 0
        for batch in reader:
            for record in batch.records:
                try:
                    delta.replay(record.message)
                except Exception as e:
                    self.fault_handler.handle_fault(f"Error loading metadata log record {snapshot_index} in snapshot "
                                                    f"at offset {reader.last_contained_log_offset()}", e)
                snapshot_index += 1
        delta.finish_snapshot()
        provenance = MetadataProvenance(reader.last_contained_log_offset(), reader.last_contained_log_epoch(),
                                        reader.last_contained_log_timestamp())
        return SnapshotManifest(provenance, self.time.nanoseconds() - start_ns)

    def handle_leader_change(self, leader_and_epoch: LeaderAndEpoch) -> None:
        def handle_leader_change_event() -> None:
            self.current_leader_and_epoch = leader_and_epoch
            for publisher in list(self.publishers.values()):
                try:
                    publisher.on_controller_change(self.current_leader_and_epoch)
                except Exception as e:
                    self.fault_handler.handle_fault(f"Unhandled error publishing the new leader change to "
                                                    f"{self.current_leader_and_epoch} with publisher "
                                                    f"{publisher.name()}", e)

        self.event_queue.append(_LoaderEvent("handleLeaderChange", handle_leader_change_event))

    def install_publishers(self, new_publishers: list[MetadataPublisher]) -> Future[None]:
        """Add publishers; each first gets the whole current image once the loader has caught up. The future
        completes when they are installed (not yet initialized)."""
        future: Future[None] = Future()
        if not new_publishers:
            future.set_result(None)
            return future

        def install_publishers_event() -> None:
            try:
                for new_publisher in new_publishers:
                    prev = self.publishers.get(new_publisher.name())
                    if prev is None:
                        prev = self.uninitialized_publishers.get(new_publisher.name())
                    if prev is not None:
                        if prev is new_publisher:
                            raise self.fault_handler.handle_fault(f"Attempted to install publisher "
                                                                  f"{new_publisher.name()}, which is already "
                                                                  "installed.")
                        raise self.fault_handler.handle_fault(f"Attempted to install a new publisher named "
                                                              f"{new_publisher.name()}, but there is already a "
                                                              "publisher with that name.")
                # the loader may not have caught up yet: a deferred event initializes them when it has
                for publisher in new_publishers:
                    self.uninitialized_publishers[publisher.name()] = publisher
                self.schedule_initialize_new_publishers(0)
                future.set_result(None)
            except Exception as e:
                future.set_exception(self.fault_handler.handle_fault("Unhandled fault in "
                                                                     "MetadataLoader#installPublishers", e))

        self.event_queue.append(_LoaderEvent("installPublishers", install_publishers_event))
        return future

    def wait_for_all_events_to_be_handled(self) -> None:
        """Until everything queued before this call has run (for tests)."""
        future: Future[None] = Future()
        self.event_queue.append(_LoaderEvent("waitForAllEventsToBeHandled", lambda: future.set_result(None)))
        future.result()

    def remove_and_close_publisher(self, publisher: MetadataPublisher) -> Future[None]:
        future: Future[None] = Future()

        def remove_event() -> None:
            try:
                if self.publishers.get(publisher.name()) is publisher:
                    del self.publishers[publisher.name()]
                elif self.uninitialized_publishers.get(publisher.name()) is publisher:
                    del self.uninitialized_publishers[publisher.name()]
                else:
                    raise self.fault_handler.handle_fault(f"Attempted to remove publisher {publisher.name()}, which "
                                                          "is not installed.")
                self._close_publisher(publisher)
                future.set_result(None)
            except Exception as e:
                future.set_exception(e)

        self.event_queue.append(_LoaderEvent("removeAndClosePublisher", remove_event))
        return future

    def last_applied_offset(self) -> int:
        """The last offset of the last image published (what a broker's heartbeat reports as caught up to)."""
        return self._last_applied_provenance.last_contained_offset

    def begin_shutdown(self) -> None:
        self.event_queue.begin_shutdown("beginShutdown")

    class ShutdownEvent(Event):
        """The queue's cleanup event: every publisher, installed or not, is closed."""

        def __init__(self, loader: MetadataLoader) -> None:
            self.loader = loader

        def run(self) -> None:
            loader = self.loader
            for name in list(loader.uninitialized_publishers):
                loader._close_publisher(loader.uninitialized_publishers.pop(name))
            for name in list(loader.publishers):
                loader._close_publisher(loader.publishers.pop(name))

    def _close_publisher(self, publisher: MetadataPublisher) -> None:
        try:
            publisher.close()
        except Exception as e:
            self.fault_handler.handle_fault(f"Got unexpected exception while closing publisher {publisher.name()}", e)

    def close(self) -> None:
        self.begin_shutdown()
        self.event_queue.close()
