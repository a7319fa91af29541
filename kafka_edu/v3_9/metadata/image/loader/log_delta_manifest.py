"""Port of metadata/src/main/java/org/apache/kafka/image/loader/LogDeltaManifest.java (Kafka 3.9)."""

from __future__ import annotations

from dataclasses import dataclass

from kafka_edu.v3_9.metadata.image.loader.loader_manifest import LoaderManifest, LoaderManifestType
from kafka_edu.v3_9.metadata.image.metadata_provenance import MetadataProvenance
from kafka_edu.v3_9.raft.raft.leader_and_epoch import LeaderAndEpoch


@dataclass(frozen=True, eq=True)
class LogDeltaManifest(LoaderManifest):
    """A delta read from the log: up to which offset, under which leader, from how many batches and bytes."""

    _provenance: MetadataProvenance
    leader_and_epoch: LeaderAndEpoch
    num_batches: int
    elapsed_ns: int
    num_bytes: int  # the log bytes read for this delta: what SnapshotGenerator counts towards the next snapshot

    class Builder:
        def __init__(self) -> None:
            self._provenance: MetadataProvenance | None = None
            self._leader_and_epoch: LeaderAndEpoch | None = None
            self._num_batches = -1
            self._elapsed_ns = -1
            self._num_bytes = -1

        def provenance(self, provenance: MetadataProvenance) -> LogDeltaManifest.Builder:
            self._provenance = provenance
            return self

        def leader_and_epoch(self, leader_and_epoch: LeaderAndEpoch) -> LogDeltaManifest.Builder:
            self._leader_and_epoch = leader_and_epoch
            return self

        def num_batches(self, num_batches: int) -> LogDeltaManifest.Builder:
            self._num_batches = num_batches
            return self

        def elapsed_ns(self, elapsed_ns: int) -> LogDeltaManifest.Builder:
            self._elapsed_ns = elapsed_ns
            return self

        def num_bytes(self, num_bytes: int) -> LogDeltaManifest.Builder:
            self._num_bytes = num_bytes
            return self

        def build(self) -> LogDeltaManifest:
            if self._provenance is None:
                raise RuntimeError("provenance must not be null")
            if self._leader_and_epoch is None:
                raise RuntimeError("leaderAndEpoch must not be null")
            if self._num_batches == -1:
                raise RuntimeError("numBatches must not be null")
            if self._elapsed_ns == -1:
                raise RuntimeError("elapsedNs must not be null")
            if self._num_bytes == -1:
                raise RuntimeError("numBytes must not be null")
            return LogDeltaManifest(self._provenance, self._leader_and_epoch, self._num_batches, self._elapsed_ns,
                                    self._num_bytes)

    @staticmethod
    def new_builder() -> LogDeltaManifest.Builder:
        return LogDeltaManifest.Builder()

    def type(self) -> LoaderManifestType:
        return LoaderManifestType.LOG_DELTA

    def provenance(self) -> MetadataProvenance:
        return self._provenance

    def __str__(self) -> str:
        return (f"LogDeltaManifest(provenance={self._provenance}, leaderAndEpoch={self.leader_and_epoch}, "
                f"numBatches={self.num_batches}, elapsedNs={self.elapsed_ns}, numBytes={self.num_bytes})")
