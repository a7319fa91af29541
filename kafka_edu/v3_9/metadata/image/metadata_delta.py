"""Port of metadata/src/main/java/org/apache/kafka/image/MetadataDelta.java (Kafka 3.9)."""

from __future__ import annotations

from typing import Any

from kafka_edu.v3_9.metadata.common.metadata.metadata_record_type import MetadataRecordType
from kafka_edu.v3_9.metadata.image.acls_delta import AclsDelta
from kafka_edu.v3_9.metadata.image.client_quotas_delta import ClientQuotasDelta
from kafka_edu.v3_9.metadata.image.cluster_delta import ClusterDelta
from kafka_edu.v3_9.metadata.image.configurations_delta import ConfigurationsDelta
from kafka_edu.v3_9.metadata.image.features_delta import FeaturesDelta
from kafka_edu.v3_9.metadata.image.metadata_image import MetadataImage
from kafka_edu.v3_9.metadata.image.metadata_provenance import MetadataProvenance
from kafka_edu.v3_9.metadata.image.producer_ids_delta import ProducerIdsDelta
from kafka_edu.v3_9.metadata.image.scram_delta import ScramDelta
from kafka_edu.v3_9.metadata.image.topics_delta import TopicsDelta
from kafka_edu.v3_9.server_common.server.common.metadata_version import MetadataVersion

_T = MetadataRecordType


class MetadataDelta:
    """The records replayed on top of `image`, kept per part of the image; `apply` makes the next image."""

    class Builder:
        def __init__(self) -> None:
            self._image = MetadataImage.EMPTY

        def set_image(self, image: MetadataImage) -> MetadataDelta.Builder:
            self._image = image
            return self

        def build(self) -> MetadataDelta:
            return MetadataDelta(self._image)

    def __init__(self, image: MetadataImage) -> None:
        self._image = image
        self._features_delta: FeaturesDelta | None = None
        self._cluster_delta: ClusterDelta | None = None
        self._topics_delta: TopicsDelta | None = None
        self._configs_delta: ConfigurationsDelta | None = None
        self._producer_ids_delta: ProducerIdsDelta | None = None
        self._acls_delta: AclsDelta | None = None  # issue 24 part B (ACLs)
        self._client_quotas_delta: ClientQuotasDelta | None = None  # issue 24 part A
        self._scram_delta: ScramDelta | None = None  # issue 24 part A

    def image(self) -> MetadataImage:
        return self._image

    def features_delta(self) -> FeaturesDelta | None:
        return self._features_delta

    def get_or_create_features_delta(self) -> FeaturesDelta:
        if self._features_delta is None:
            self._features_delta = FeaturesDelta(self._image.features)
        return self._features_delta

    def cluster_delta(self) -> ClusterDelta | None:
        return self._cluster_delta

    def get_or_create_cluster_delta(self) -> ClusterDelta:
        if self._cluster_delta is None:
            self._cluster_delta = ClusterDelta(self._image.cluster)
        return self._cluster_delta

    def topics_delta(self) -> TopicsDelta | None:
        return self._topics_delta

    def get_or_create_topics_delta(self) -> TopicsDelta:
        if self._topics_delta is None:
            self._topics_delta = TopicsDelta(self._image.topics)
        return self._topics_delta

    def configs_delta(self) -> ConfigurationsDelta | None:
        return self._configs_delta

    def get_or_create_configs_delta(self) -> ConfigurationsDelta:
        if self._configs_delta is None:
            self._configs_delta = ConfigurationsDelta(self._image.configs)
        return self._configs_delta

    def producer_ids_delta(self) -> ProducerIdsDelta | None:
        return self._producer_ids_delta

    def get_or_create_producer_ids_delta(self) -> ProducerIdsDelta:
        if self._producer_ids_delta is None:
            self._producer_ids_delta = ProducerIdsDelta(self._image.producer_ids)
        return self._producer_ids_delta

    def acls_delta(self) -> AclsDelta | None:
        return self._acls_delta

    def get_or_create_acls_delta(self) -> AclsDelta:
        if self._acls_delta is None:
            self._acls_delta = AclsDelta(self._image.acls)
        return self._acls_delta

    def client_quotas_delta(self) -> ClientQuotasDelta | None:
        return self._client_quotas_delta

    def get_or_create_client_quotas_delta(self) -> ClientQuotasDelta:
        if self._client_quotas_delta is None:
            self._client_quotas_delta = ClientQuotasDelta(self._image.client_quotas)
        return self._client_quotas_delta

    def scram_delta(self) -> ScramDelta | None:
        return self._scram_delta

    def get_or_create_scram_delta(self) -> ScramDelta:
        if self._scram_delta is None:
            self._scram_delta = ScramDelta(self._image.scram)
        return self._scram_delta

    def metadata_version_changed(self) -> MetadataVersion | None:
        return None if self._features_delta is None else self._features_delta.metadata_version_change()

    def replay(self, record: Any) -> None:
        """Apply one metadata record (the message, without its version) to the part of the image it changes."""
        record_type = MetadataRecordType.for_message(record)
        if record_type is _T.REGISTER_BROKER_RECORD:
            self.get_or_create_cluster_delta().replay_register_broker(record)
        elif record_type is _T.UNREGISTER_BROKER_RECORD:
            self.get_or_create_cluster_delta().replay_unregister_broker(record)
        elif record_type is _T.TOPIC_RECORD:
            self.get_or_create_topics_delta().replay_topic(record)
        elif record_type is _T.PARTITION_RECORD:
            self.get_or_create_topics_delta().replay_partition(record)
        elif record_type is _T.CONFIG_RECORD:
            self.get_or_create_configs_delta().replay(record)
        elif record_type is _T.PARTITION_CHANGE_RECORD:
            self.get_or_create_topics_delta().replay_partition_change(record)
        elif record_type is _T.FENCE_BROKER_RECORD:
            self.get_or_create_cluster_delta().replay_fence_broker(record)
        elif record_type is _T.UNFENCE_BROKER_RECORD:
            self.get_or_create_cluster_delta().replay_unfence_broker(record)
        elif record_type is _T.REMOVE_TOPIC_RECORD:
            topic_name = self.get_or_create_topics_delta().replay_remove_topic(record)
            self.get_or_create_configs_delta().replay_remove_topic(record, topic_name)
        elif record_type is _T.FEATURE_LEVEL_RECORD:
            self._replay_feature_level(record)
        elif record_type is _T.BROKER_REGISTRATION_CHANGE_RECORD:
            self.get_or_create_cluster_delta().replay_broker_registration_change(record)
        elif record_type is _T.PRODUCER_IDS_RECORD:
            self.get_or_create_producer_ids_delta().replay(record)
        elif record_type is _T.ACCESS_CONTROL_ENTRY_RECORD:
            self.get_or_create_acls_delta().replay(record)
        elif record_type is _T.REMOVE_ACCESS_CONTROL_ENTRY_RECORD:
            self.get_or_create_acls_delta().replay_remove(record)
        elif record_type is _T.CLIENT_QUOTA_RECORD:
            self.get_or_create_client_quotas_delta().replay(record)
        elif record_type is _T.USER_SCRAM_CREDENTIAL_RECORD:
            self.get_or_create_scram_delta().replay(record)
        elif record_type is _T.REMOVE_USER_SCRAM_CREDENTIAL_RECORD:
            self.get_or_create_scram_delta().replay_remove(record)
        elif record_type is _T.NO_OP_RECORD:
            pass  # it only moves the image's offset
        else:
            # transaction markers never get here: MetadataBatchLoader handles them
            raise RuntimeError(f"Unknown metadata record type {record_type}")

    def _replay_feature_level(self, record: Any) -> None:
        self.get_or_create_features_delta().replay(record)
        changed_metadata_version = self._features_delta.metadata_version_change()  # type: ignore[union-attr]
        if changed_metadata_version is not None:
            # every part may have records a new metadata.version writes differently
            self.get_or_create_cluster_delta().handle_metadata_version_change(changed_metadata_version)
            self.get_or_create_configs_delta().handle_metadata_version_change(changed_metadata_version)
            self.get_or_create_topics_delta().handle_metadata_version_change(changed_metadata_version)

    def finish_snapshot(self) -> None:
        """After a snapshot's records: whatever the base image had and the snapshot did not mention is removed."""
        self.get_or_create_features_delta().finish_snapshot()
        self.get_or_create_cluster_delta().finish_snapshot()
        self.get_or_create_topics_delta().finish_snapshot()
        self.get_or_create_configs_delta().finish_snapshot()
        self.get_or_create_producer_ids_delta().finish_snapshot()
        self.get_or_create_acls_delta().finish_snapshot()
        self.get_or_create_client_quotas_delta().finish_snapshot()
        self.get_or_create_scram_delta().finish_snapshot()

    def apply(self, provenance: MetadataProvenance) -> MetadataImage:
        new_features = (self._image.features if self._features_delta is None else self._features_delta.apply())
        new_cluster = (self._image.cluster if self._cluster_delta is None else self._cluster_delta.apply())
        new_topics = (self._image.topics if self._topics_delta is None else self._topics_delta.apply())
        new_configs = (self._image.configs if self._configs_delta is None else self._configs_delta.apply())
        new_producer_ids = (self._image.producer_ids if self._producer_ids_delta is None
                            else self._producer_ids_delta.apply())
        new_acls = self._image.acls if self._acls_delta is None else self._acls_delta.apply()
        new_client_quotas = (self._image.client_quotas if self._client_quotas_delta is None
                             else self._client_quotas_delta.apply())
        new_scram = self._image.scram if self._scram_delta is None else self._scram_delta.apply()
        return MetadataImage(provenance, new_features, new_cluster, new_topics, new_configs, new_producer_ids,
                             acls=new_acls, client_quotas=new_client_quotas, scram=new_scram)

    def __str__(self) -> str:
        return (f"MetadataDelta(featuresDelta={self._features_delta}, clusterDelta={self._cluster_delta}, "
                f"topicsDelta={self._topics_delta}, configsDelta={self._configs_delta}, "
                f"producerIdsDelta={self._producer_ids_delta})")
