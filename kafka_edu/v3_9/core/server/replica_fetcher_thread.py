"""Port of core/src/main/scala/kafka/server/ReplicaFetcherThread.scala (Kafka 3.9): the follower's fetcher thread, which
appends what it fetches from the leader to the local replica's log, takes the leader's high watermark and log start
offset, and truncates the log where it diverged from the leader's.

Left out: BrokerTopicStats' replication and reassignment byte meters (metrics are not ported in the 3.9 tree), and
the TierStateMachine (tiered storage is not ported: AbstractFetcherThread backs such a partition off).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from kafka_edu.v1_0_2.clients.common.errors import IllegalStateException
from kafka_edu.v3_9.clients.common.record.memory_records import MemoryRecords
from kafka_edu.v3_9.clients.common.requests.fetch_response import FetchResponse
from kafka_edu.v3_9.clients.common.topic_partition import TopicPartition
from kafka_edu.v3_9.core.server.abstract_fetcher_manager import FailedPartitions
from kafka_edu.v3_9.core.server.abstract_fetcher_thread import AbstractFetcherThread, OffsetTruncationState
from kafka_edu.v3_9.core.server.leader_end_point import FetchData, LeaderEndPoint
from kafka_edu.v3_9.core.server.remote_leader_end_point import ReplicaQuota
from kafka_edu.v3_9.server_common.server.common.metadata_version import MetadataVersion
from kafka_edu.v3_9.server_common.server.common.offset_and_epoch import OffsetAndEpoch
from kafka_edu.v3_9.storage.storage.internals.log.log_append_info import LogAppendInfo
from kafka_edu.v3_9.storage.storage.internals.log.log_start_offset_increment_reason import (
    LogStartOffsetIncrementReason,
)

TRACE = logging.DEBUG - 5


class ReplicaFetcherThread(AbstractFetcherThread):
    def __init__(self, name: str, leader: LeaderEndPoint, broker_config: Any, failed_partitions: FailedPartitions,
                 replica_mgr: Any, quota: ReplicaQuota | None, log_prefix: str,
                 metadata_version_supplier: Callable[[], MetadataVersion]) -> None:
        super().__init__(name=name, client_id=name, leader=leader, failed_partitions=failed_partitions,
                         fetch_tier_state_machine=None, fetch_back_off_ms=broker_config.replica_fetch_backoff_ms,
                         is_interruptible=False, broker_topic_stats=replica_mgr.broker_topic_stats)
        self.broker_config = broker_config
        self.replica_mgr = replica_mgr
        self.quota = quota
        self.metadata_version_supplier = metadata_version_supplier
        self.log.log_ident = log_prefix
        # partitions whose high watermark moved this round: their delayed fetches may complete (visible for testing)
        self.partitions_with_new_high_watermark: list[TopicPartition] = []

    @property
    def is_offset_for_leader_epoch_supported(self) -> bool:
        return self.metadata_version_supplier().is_offset_for_leader_epoch_supported()

    def latest_epoch(self, topic_partition: TopicPartition) -> int | None:
        return self.replica_mgr.local_log_or_exception(topic_partition).latest_epoch()

    def log_start_offset(self, topic_partition: TopicPartition) -> int:
        return self.replica_mgr.local_log_or_exception(topic_partition).log_start_offset

    def log_end_offset(self, topic_partition: TopicPartition) -> int:
        return self.replica_mgr.local_log_or_exception(topic_partition).log_end_offset()

    def end_offset_for_epoch(self, topic_partition: TopicPartition, epoch: int) -> OffsetAndEpoch | None:
        return self.replica_mgr.local_log_or_exception(topic_partition).end_offset_for_epoch(epoch)

    def initiate_shutdown(self) -> bool:
        just_shutdown = super().initiate_shutdown()
        if just_shutdown:
            # Thread-safe and not expected to fail; a failure is logged, never thrown at the caller (often a
            # shutdown). The leader end point is closed once the thread has stopped.
            try:
                self.leader.initiate_close()
            except Exception:
                self.log.error("Failed to initiate shutdown of %s after initiating replica fetcher thread shutdown",
                               self.leader, exc_info=True)
        return just_shutdown

    def await_shutdown(self) -> None:
        super().await_shutdown()
        # The thread has stopped and the end point is not used again, so a failure to close it is only logged.
        try:
            self.leader.close()
        except Exception:
            self.log.error("Failed to close %s after shutting down replica fetcher thread", self.leader,
                           exc_info=True)

    def do_work(self) -> None:
        super().do_work()
        self._complete_delayed_fetch_requests()

    def process_partition_data(self, topic_partition: TopicPartition, fetch_offset: int,
                               partition_data: FetchData) -> LogAppendInfo | None:
        log_trace = self.log.isEnabledFor(TRACE)
        partition = self.replica_mgr.get_partition_or_exception(topic_partition)
        log = partition.local_log_or_exception()
        records = self.to_memory_records(FetchResponse.records_or_fail(partition_data))

        self._maybe_warn_if_oversized_records(records, topic_partition)

        if fetch_offset != log.log_end_offset():
            raise IllegalStateException(f"Offset mismatch for partition {topic_partition}: fetched offset = "
                                        f"{fetch_offset}, log end offset = {log.log_end_offset()}.")

        if log_trace:
            self.log.log(TRACE, "Follower has replica log end offset %d for partition %s. Received %d bytes of "
                         "messages and leader hw %d", log.log_end_offset(), topic_partition, records.size_in_bytes(),
                         partition_data.high_watermark)

        # Append the leader's messages to the log
        log_append_info = partition.append_records_to_follower_or_future_replica(records, is_future=False)

        if log_trace:
            self.log.log(TRACE, "Follower has replica log end offset %d after appending %d bytes of messages for "
                         "partition %s", log.log_end_offset(), records.size_in_bytes(), topic_partition)
        leader_log_start_offset = partition_data.log_start_offset

        # A follower keeps no segment position of its high watermark: it is worked out on becoming leader.
        maybe_update_high_watermark_message = "but did not update replica high watermark"
        new_high_watermark = log.maybe_update_high_watermark(partition_data.high_watermark)
        if new_high_watermark is not None:
            maybe_update_high_watermark_message = f"and updated replica high watermark to {new_high_watermark}"
            self.partitions_with_new_high_watermark.append(topic_partition)

        log.maybe_increment_log_start_offset(leader_log_start_offset,
                                             LogStartOffsetIncrementReason.LeaderOffsetIncremented)
        if log_trace:
            self.log.log(TRACE, "Follower received high watermark %d from the leader %s for partition %s",
                         partition_data.high_watermark, maybe_update_high_watermark_message, topic_partition)

        # In-sync and out-of-sync replicas alike count against the replication quota, so the total stays under it.
        if self.quota.is_throttled(topic_partition):
            self.quota.record(records.size_in_bytes())

        return log_append_info

    def _complete_delayed_fetch_requests(self) -> None:
        if self.partitions_with_new_high_watermark:
            self.replica_mgr.complete_delayed_fetch_requests(list(self.partitions_with_new_high_watermark))
            self.partitions_with_new_high_watermark.clear()

    def _maybe_warn_if_oversized_records(self, records: MemoryRecords, topic_partition: TopicPartition) -> None:
        # from fetch v3 (KIP-74) an oversized message no longer stops replication
        if self.metadata_version_supplier().fetch_request_version() <= 2 and records.size_in_bytes() > 0 \
                and records.valid_bytes() <= 0:
            self.log.error("Replication is failing due to a message that is greater than replica.fetch.max.bytes for "
                           "partition %s. This generally occurs when the max.message.bytes has been overridden to "
                           "exceed this value and a suitably large message has also been sent. To fix this problem "
                           "increase replica.fetch.max.bytes in your broker config to be equal or larger than your "
                           "settings for max.message.bytes, both at a broker and topic level.", topic_partition)

    def truncate(self, topic_partition: TopicPartition, offset_truncation_state: OffsetTruncationState) -> None:
        """Truncate to the offset AbstractFetcherThread worked out from the leader's epoch and end offset."""
        partition = self.replica_mgr.get_partition_or_exception(topic_partition)
        log = partition.local_log_or_exception()

        partition.truncate_to(offset_truncation_state.offset, is_future=False)

        if offset_truncation_state.offset < log.high_watermark():
            self.log.warning("Truncating %s to offset %d below high watermark %d", topic_partition,
                             offset_truncation_state.offset, log.high_watermark())

        # the future replica is marked for truncation only once, at the last truncation (a ReplicaManager built in a
        # test may have no ReplicaAlterLogDirsManager)
        alter_log_dirs_manager = self.replica_mgr.replica_alter_log_dirs_manager
        if offset_truncation_state.truncation_completed and alter_log_dirs_manager is not None:
            alter_log_dirs_manager.mark_partitions_for_truncation(self.broker_config.broker_id, topic_partition,
                                                                  offset_truncation_state.offset)

    def truncate_fully_and_start_at(self, topic_partition: TopicPartition, offset: int) -> None:
        partition = self.replica_mgr.get_partition_or_exception(topic_partition)
        partition.truncate_fully_and_start_at(offset, is_future=False)
