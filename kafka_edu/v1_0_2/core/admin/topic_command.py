"""Port of core/src/main/scala/kafka/admin/TopicCommand.scala (Kafka 1.0.2): `kafka-topics.sh --create | --describe |
--delete | --list | --alter --partitions N`, through the Kafka protocol with a real client library (confluent-kafka's
AdminClient). 1.0.2's --alter wrote the grown assignment to ZooKeeper itself; here it sends CreatePartitions, which
the controller's AdminManager answers by writing the same znode."""

from __future__ import annotations

from confluent_kafka.admin import AdminClient, NewPartitions, NewTopic
from rich.console import Console
from rich.table import Table

TIMEOUT_S = 30
GROUP_METADATA_TOPIC_NAME = "__consumer_offsets"


class TopicService:
    def __init__(self, bootstrap_servers: str) -> None:
        self.admin_client = AdminClient({"bootstrap.servers": bootstrap_servers})

    def create_topic(self, topic: str, partitions: int, replication_factor: int, configs: dict[str, str]) -> None:
        futures = self.admin_client.create_topics([NewTopic(topic, partitions, replication_factor, config=configs)],
                                                  request_timeout=TIMEOUT_S)
        futures[topic].result(TIMEOUT_S)

    def alter_topic(self, topic: str, partitions: int, replica_assignment: list[list[int]] | None) -> None:
        """Grow the topic to `partitions` in all; `replica_assignment` places the new partitions."""
        if topic == GROUP_METADATA_TOPIC_NAME:
            raise ValueError("The number of partitions for the offsets topic cannot be changed.")
        new_partitions = NewPartitions(topic, partitions) if replica_assignment is None \
            else NewPartitions(topic, partitions, replica_assignment)
        futures = self.admin_client.create_partitions([new_partitions], request_timeout=TIMEOUT_S)
        futures[topic].result(TIMEOUT_S)

    def delete_topic(self, topic: str) -> None:
        self.admin_client.delete_topics([topic], request_timeout=TIMEOUT_S)[topic].result(TIMEOUT_S)

    def list_topics(self) -> list[str]:
        return sorted(t for t in self.admin_client.list_topics(timeout=TIMEOUT_S).topics if not t.startswith("__"))

    def describe_topics(self, topic: str | None) -> list[tuple[str, int, int, list[int], list[int]]]:
        """(topic, partition, leader, replicas, isr) for each partition, from a Metadata request; a topic that does
        not exist has no rows, as 1.0.2's describe lists only the topics it finds."""
        # Every topic, then the one asked for: a Metadata request naming a topic lets the broker auto-create it
        # (a producer-type client asks with allow_auto_topic_creation), and describing must not create.
        metadata = self.admin_client.list_topics(timeout=TIMEOUT_S)
        rows = []
        for name, topic_metadata in sorted(metadata.topics.items()):
            if topic is not None and name != topic:
                continue
            if topic_metadata.error is not None:
                raise RuntimeError(f"{name}: {topic_metadata.error.str()}")
            for partition_id, p in sorted(topic_metadata.partitions.items()):
                rows.append((name, partition_id, p.leader, list(p.replicas), list(p.isrs)))
        return rows


def parse_replica_assignment(replica_assignment: str) -> list[list[int]]:
    """TopicCommand's `0:1,1:2`: the new partitions' replicas, comma between partitions, colon between brokers."""
    assignment = []
    for partition, replicas in enumerate(replica_assignment.split(",")):
        broker_ids = [int(b.strip()) for b in replicas.split(":")]
        if len(set(broker_ids)) != len(broker_ids):
            raise ValueError(f"Duplicate replica assignment found: partition {partition} has {broker_ids}")
        assignment.append(broker_ids)
    return assignment


def run(bootstrap_servers: str, action: str, topic: str | None, partitions: int, replication_factor: int,
        configs: list[str], console: Console, replica_assignment: str | None = None) -> int:
    service = TopicService(bootstrap_servers)
    if action == "alter":
        console.print("WARNING: If partitions are increased for a topic that has a key, the partition logic or "
                      "ordering of the messages will be affected")
        service.alter_topic(topic, partitions, None if replica_assignment is None
                            else parse_replica_assignment(replica_assignment))
        console.print("Adding partitions succeeded!")
    elif action == "create":
        service.create_topic(topic, partitions, replication_factor, dict(c.split("=", 1) for c in configs))
        console.print(f'Created topic "{topic}".')
    elif action == "delete":
        service.delete_topic(topic)
        console.print(f"Topic {topic} is marked for deletion.")
    elif action == "list":
        for name in service.list_topics():
            console.print(name)
    else:
        rows = service.describe_topics(topic)
        if not rows:
            return 0
        table = Table(title_justify="left")
        for column in ("Topic", "Partition", "Leader", "Replicas", "Isr"):
            table.add_column(column)
        for name, partition, leader, replicas, isr in rows:
            table.add_row(name, str(partition), str(leader), ",".join(map(str, replicas)), ",".join(map(str, isr)))
        console.print(table)
    return 0
