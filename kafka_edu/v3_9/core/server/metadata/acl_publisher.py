"""Port of core/src/main/scala/kafka/server/metadata/AclPublisher.scala (Kafka 3.9): the metadata image's ACLs into
the node's ClusterMetadataAuthorizer, on brokers and on controllers."""

from __future__ import annotations

import logging
from typing import Any

from kafka_edu.v1_0_2.clients.common.errors import TimeoutException
from kafka_edu.v3_9.metadata.image.loader.loader_manifest import LoaderManifest, LoaderManifestType
from kafka_edu.v3_9.metadata.image.metadata_delta import MetadataDelta
from kafka_edu.v3_9.metadata.image.metadata_image import MetadataImage
from kafka_edu.v3_9.metadata.image.publisher.metadata_publisher import MetadataPublisher
from kafka_edu.v3_9.metadata.metadata.authorizer.cluster_metadata_authorizer import ClusterMetadataAuthorizer


class AclPublisher(MetadataPublisher):
    """The first publish reaches the high watermark: it completes the authorizer's initial load, which opens the
    listeners that were waiting for it."""

    def __init__(self, node_id: int, fault_handler: Any, node_type: str, authorizer: Any | None) -> None:
        self.node_id = node_id
        self.fault_handler = fault_handler
        self.node_type = node_type
        self.authorizer = authorizer
        self.log = logging.LoggerAdapter(logging.getLogger("kafka.server.metadata.AclPublisher"),
                                         {"log_context": f"[{self.name()}] "})
        self.completed_initial_load = False

    def name(self) -> str:
        return f"AclPublisher {self.node_type} id={self.node_id}"

    def on_metadata_update(self, delta: MetadataDelta, new_image: MetadataImage, manifest: LoaderManifest) -> None:
        delta_name = f"MetadataDelta up to {new_image.offset()}"
        acls_delta = delta.acls_delta()
        if acls_delta is None or not isinstance(self.authorizer, ClusterMetadataAuthorizer):
            return
        authorizer = self.authorizer
        # Other threads authorize meanwhile: the changes go in the order they were made, never exposing a state the
        # log never had (an ALLOW before the DENY ALL that came first, say).
        if manifest.type() is LoaderManifestType.SNAPSHOT:
            try:
                self.log.info("Loading authorizer snapshot at offset %d", new_image.offset())
                authorizer.load_snapshot(new_image.acls.acls())
            except Exception as t:
                self.fault_handler.handle_fault(f"Error loading authorizer snapshot in {delta_name}", t)
        else:
            try:
                for acl_id, acl in acls_delta.changes().items():
                    if acl is not None:
                        authorizer.add_acl(acl_id, acl)
                    else:
                        authorizer.remove_acl(acl_id)
            except Exception as t:
                self.fault_handler.handle_fault(f"Error loading authorizer changes in {delta_name}", t)
        if not self.completed_initial_load:
            # the loader publishes only once it has caught up with the high watermark
            self.completed_initial_load = True
            authorizer.complete_initial_load()

    def close(self) -> None:
        if isinstance(self.authorizer, ClusterMetadataAuthorizer):
            self.authorizer.complete_initial_load(TimeoutException())
