"""Port of metadata/src/main/java/org/apache/kafka/image/MetadataImage.java (Kafka 3.9)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from kafka_edu.v3_9.metadata.image.acls_image import AclsImage
from kafka_edu.v3_9.metadata.image.client_quotas_image import ClientQuotasImage
from kafka_edu.v3_9.metadata.image.cluster_image import ClusterImage
from kafka_edu.v3_9.metadata.image.configurations_image import ConfigurationsImage
from kafka_edu.v3_9.metadata.image.features_image import FeaturesImage
from kafka_edu.v3_9.metadata.image.metadata_provenance import MetadataProvenance
from kafka_edu.v3_9.metadata.image.producer_ids_image import ProducerIdsImage
from kafka_edu.v3_9.metadata.image.scram_image import ScramImage
from kafka_edu.v3_9.metadata.image.topics_image import TopicsImage
from kafka_edu.v3_9.metadata.image.writer.image_writer import ImageWriter
from kafka_edu.v3_9.metadata.image.writer.image_writer_options import ImageWriterOptions
from kafka_edu.v3_9.raft.raft.offset_and_epoch import OffsetAndEpoch


@dataclass(frozen=True)
class MetadataImage:
    """The cluster metadata as of one log offset: immutable, so any thread may read it.

    3.9's image also holds delegation tokens; their records are not ported, so neither is that part. The parts
    issue 24 added (ACLs, client quotas, SCRAM) come last, with defaults, so that images built without them stay
    valid.
    """

    EMPTY: ClassVar[MetadataImage]

    provenance: MetadataProvenance
    features: FeaturesImage
    cluster: ClusterImage
    topics: TopicsImage
    configs: ConfigurationsImage
    producer_ids: ProducerIdsImage
    acls: AclsImage = AclsImage.EMPTY  # issue 24 part B (ACLs)
    client_quotas: ClientQuotasImage = ClientQuotasImage.EMPTY  # issue 24 part A
    scram: ScramImage = ScramImage.EMPTY  # issue 24 part A

    def is_empty(self) -> bool:
        return (self.features.is_empty() and self.cluster.is_empty() and self.topics.is_empty()
                and self.configs.is_empty() and self.producer_ids.is_empty() and self.acls.is_empty()
                and self.client_quotas.is_empty() and self.scram.is_empty())

    def highest_offset_and_epoch(self) -> OffsetAndEpoch:
        return OffsetAndEpoch(self.provenance.last_contained_offset, self.provenance.last_contained_epoch)

    def offset(self) -> int:
        return self.provenance.last_contained_offset

    def write(self, writer: ImageWriter, options: ImageWriterOptions) -> None:
        # features first: the snapshot opens with metadata.version, which says how to read what follows
        self.features.write(writer, options)
        self.cluster.write(writer, options)
        self.topics.write(writer, options)
        self.configs.write(writer, options)
        self.client_quotas.write(writer, options)
        self.producer_ids.write(writer, options)
        self.acls.write(writer, options)
        self.scram.write(writer, options)
        writer.close(True)

    def __str__(self) -> str:
        return (f"MetadataImage(provenance={self.provenance}, features={self.features}, cluster={self.cluster}, "
                f"topics={self.topics}, configs={self.configs}, producerIds={self.producer_ids})")


MetadataImage.EMPTY = MetadataImage(MetadataProvenance.EMPTY, FeaturesImage.EMPTY, ClusterImage.EMPTY,
                                    TopicsImage.EMPTY, ConfigurationsImage.EMPTY, ProducerIdsImage.EMPTY)
