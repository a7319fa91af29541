"""Port of metadata/src/main/java/org/apache/kafka/controller/ActivationRecordsGenerator.java (Kafka 3.9).

Left out: the ZooKeeper-migration states (3.9 also writes a ZkMigrationStateRecord NONE on an empty log; the port
has no ZooKeeper migration and no record type 21).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kafka_edu.v3_9.metadata.common.metadata import (
    AbortTransactionRecord,
    ApiMessageAndVersion,
    BeginTransactionRecord,
    EndTransactionRecord,
)
from kafka_edu.v3_9.metadata.controller.controller_result import ControllerResult
from kafka_edu.v3_9.metadata.controller.feature_control_manager import (
    FeatureControlManager,
    is_metadata_transaction_supported,
)
from kafka_edu.v3_9.metadata.metadata.bootstrap.bootstrap_directory import BootstrapMetadata
from kafka_edu.v3_9.server_common.server.common.metadata_version import MINIMUM_KRAFT_VERSION, MetadataVersion


def records_for_empty_log(activation_message_consumer: Callable[[str], None], transaction_start_offset: int,
                          bootstrap_metadata: BootstrapMetadata,
                          metadata_version: MetadataVersion) -> ControllerResult[None]:
    """A new cluster: the bootstrap records (metadata.version first of all), inside a metadata transaction when
    the version has them, so a failover half-way through is undone."""
    message = ["Performing controller activation."]
    records: list[Any] = []
    bootstrap_records = bootstrap_metadata.records()
    source = bootstrap_metadata.source()
    if transaction_start_offset != -1:
        # A previous active controller died inside the bootstrap transaction: abort it and start again.
        if not is_metadata_transaction_supported(metadata_version):
            raise RuntimeError(f"Detected partial bootstrap records transaction at {transaction_start_offset}, but "
                               f"the metadata.version {metadata_version} does not support transactions. Cannot "
                               "continue.")
        message.append(f"Aborting partial bootstrap records transaction at offset {transaction_start_offset}. "
                       f"Re-appending {len(bootstrap_records)} bootstrap record(s) in new metadata transaction at "
                       f"metadata.version {metadata_version} from bootstrap source '{source}'.")
        records.append(ApiMessageAndVersion(AbortTransactionRecord(reason="Controller failover"), 0))
        records.append(ApiMessageAndVersion(BeginTransactionRecord(name="Bootstrap records"), 0))
    else:
        text = f"The metadata log appears to be empty. Appending {len(bootstrap_records)} bootstrap record(s) "
        if is_metadata_transaction_supported(metadata_version):
            records.append(ApiMessageAndVersion(BeginTransactionRecord(name="Bootstrap records"), 0))
            text += "in metadata transaction "
        message.append(text + f"at metadata.version {metadata_version} from bootstrap source '{source}'.")
    records.extend(bootstrap_records)
    activation_message_consumer(" ".join(message))
    if is_metadata_transaction_supported(metadata_version):
        records.append(ApiMessageAndVersion(EndTransactionRecord(), 0))
        return ControllerResult.of(records, None)
    return ControllerResult.atomic_of(records, None)


def records_for_non_empty_log(activation_message_consumer: Callable[[str], None], transaction_start_offset: int,
                              feature_control: FeatureControlManager,
                              metadata_version: MetadataVersion) -> ControllerResult[None]:
    """A controller taking over a log others wrote: only an open transaction needs closing (aborted)."""
    message = ["Performing controller activation."]
    records: list[Any] = []
    if transaction_start_offset != -1:
        if not is_metadata_transaction_supported(metadata_version):
            raise RuntimeError(f"Detected in-progress transaction at offset {transaction_start_offset}, but the "
                               f"metadata.version {metadata_version} does not support transactions. Cannot "
                               "continue.")
        message.append(f"Aborting in-progress metadata transaction at offset {transaction_start_offset}.")
        records.append(ApiMessageAndVersion(AbortTransactionRecord(reason="Controller failover"), 0))
    if metadata_version == MINIMUM_KRAFT_VERSION:
        message.append("No metadata.version feature level record was found in the log. Treating the log as "
                       f"version {MINIMUM_KRAFT_VERSION}.")
    activation_message_consumer(" ".join(message))
    return ControllerResult.atomic_of(records, None)


def generate(activation_message_consumer: Callable[[str], None], is_empty: bool, transaction_start_offset: int,
             bootstrap_metadata: BootstrapMetadata, feature_control: FeatureControlManager) -> ControllerResult[None]:
    """The records a new active controller writes first (`completeActivation`)."""
    if is_empty:
        return records_for_empty_log(activation_message_consumer, transaction_start_offset, bootstrap_metadata,
                                     bootstrap_metadata.metadata_version())
    return records_for_non_empty_log(activation_message_consumer, transaction_start_offset, feature_control,
                                     feature_control.metadata_version())
