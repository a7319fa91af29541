"""Port of core/src/main/scala/kafka/admin/TopicCommand.scala (Kafka 1.0.2): `kafka-topics.sh --create | --describe |
--delete | --list`, through the Kafka protocol with a real client library (confluent-kafka's AdminClient)."""

from __future__ import annotations

from confluent_kafka.admin import AdminClient, NewTopic
from rich.console import Console
from rich.table import Table

TIMEOUT_S = 30


class TopicService:
    def __init__(self, bootstrap_servers: str) -> None:
        self.admin_client = AdminClient({"bootstrap.servers": bootstrap_servers})

    def create_topic(self, topic: str, partitions: int, replication_factor: int, configs: dict[str, str]) -> None:
        futures = self.admin_client.create_topics([NewTopic(topic, partitions, replication_factor, config=configs)],
                                                  request_timeout=TIMEOUT_S)
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


def run(bootstrap_servers: str, action: str, topic: str | None, partitions: int, replication_factor: int,
        configs: list[str], console: Console) -> int:
    service = TopicService(bootstrap_servers)
    if action == "create":
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
