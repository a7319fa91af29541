"""Port of group-coordinator/src/main/java/.../group/assignor/UniformAssignor.java (Kafka 3.9).

The uniform assignor balances partitions across members (counts differ by one at most) and keeps members' current
partitions where it can; it picks the homogeneous builder when every member subscribes to the same topics, the
heterogeneous one otherwise.
"""

from __future__ import annotations

import logging

from kafka_edu.v3_9.group_coordinator.coordinator.group.assignor.uniform_heterogeneous_assignment_builder import (
    UniformHeterogeneousAssignmentBuilder,
)
from kafka_edu.v3_9.group_coordinator.coordinator.group.assignor.uniform_homogeneous_assignment_builder import (
    UniformHomogeneousAssignmentBuilder,
)
from kafka_edu.v3_9.group_coordinator_api.coordinator.group.api.assignor.consumer_group_partition_assignor import (
    ConsumerGroupPartitionAssignor,
)
from kafka_edu.v3_9.group_coordinator_api.coordinator.group.api.assignor.group_assignment import GroupAssignment
from kafka_edu.v3_9.group_coordinator_api.coordinator.group.api.assignor.group_spec import GroupSpec
from kafka_edu.v3_9.group_coordinator_api.coordinator.group.api.assignor.subscribed_topic_describer import (
    SubscribedTopicDescriber,
)
from kafka_edu.v3_9.group_coordinator_api.coordinator.group.api.assignor.subscription_type import SubscriptionType

LOG = logging.getLogger("org.apache.kafka.coordinator.group.assignor.UniformAssignor")
UNIFORM_ASSIGNOR_NAME = "uniform"


class UniformAssignor(ConsumerGroupPartitionAssignor):
    UNIFORM_ASSIGNOR_NAME = UNIFORM_ASSIGNOR_NAME

    def name(self) -> str:
        return UNIFORM_ASSIGNOR_NAME

    def assign(self, group_spec: GroupSpec, subscribed_topic_describer: SubscribedTopicDescriber) -> GroupAssignment:
        if not group_spec.member_ids():
            return GroupAssignment({})
        if group_spec.subscription_type() == SubscriptionType.HOMOGENEOUS:
            LOG.debug("All members subscribe to the same topics: using the homogeneous assignment builder")
            return UniformHomogeneousAssignmentBuilder(group_spec, subscribed_topic_describer).build()
        LOG.debug("Members subscribe to different topics: using the heterogeneous assignment builder")
        return UniformHeterogeneousAssignmentBuilder(group_spec, subscribed_topic_describer).build()
