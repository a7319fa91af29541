"""Port of core/src/main/scala/kafka/admin/ConsumerGroupCommand.scala (Kafka 1.0.2): `kafka-consumer-groups.sh
--list | --describe --group G`, speaking the Kafka protocol through a real client library (confluent-kafka)."""

from __future__ import annotations

from dataclasses import dataclass

from confluent_kafka import Consumer, ConsumerGroupTopicPartitions, TopicPartition
from confluent_kafka.admin import AdminClient
from rich.console import Console
from rich.table import Table

TIMEOUT_S = 30


@dataclass
class PartitionAssignmentState:
    group: str
    topic: str
    partition: int
    offset: int | None
    log_end_offset: int | None
    consumer_id: str
    host: str
    client_id: str

    @property
    def lag(self) -> int | None:
        if self.offset is None or self.log_end_offset is None:
            return None
        return self.log_end_offset - self.offset


class ConsumerGroupService:
    def __init__(self, bootstrap_servers: str) -> None:
        self.bootstrap_servers = bootstrap_servers
        self.admin_client = AdminClient({"bootstrap.servers": bootstrap_servers})

    def list_groups(self) -> list[str]:
        result = self.admin_client.list_consumer_groups(request_timeout=TIMEOUT_S).result()
        return sorted(g.group_id for g in result.valid)

    def describe_group(self, group: str) -> tuple[str, list[PartitionAssignmentState]]:
        description = self.admin_client.describe_consumer_groups([group], request_timeout=TIMEOUT_S)[group].result()
        committed = self.admin_client.list_consumer_group_offsets(
            [ConsumerGroupTopicPartitions(group)], request_timeout=TIMEOUT_S)[group].result()
        owners = {(tp.topic, tp.partition): member for member in description.members
                  for tp in member.assignment.topic_partitions}
        offsets = {(tp.topic, tp.partition): tp.offset for tp in committed.topic_partitions}
        rows = []
        consumer = Consumer({"bootstrap.servers": self.bootstrap_servers, "group.id": f"{group}-describe",
                             "enable.auto.commit": False})
        try:
            for topic, partition in sorted(set(owners) | set(offsets)):
                _, high = consumer.get_watermark_offsets(TopicPartition(topic, partition), timeout=TIMEOUT_S)
                member = owners.get((topic, partition))
                offset = offsets.get((topic, partition))
                rows.append(PartitionAssignmentState(
                    group, topic, partition, offset if offset is not None and offset >= 0 else None, high,
                    member.member_id if member else "-", member.host if member else "-",
                    member.client_id if member else "-"))
        finally:
            consumer.close()
        return str(description.state).rsplit(".", 1)[-1], rows


def run(bootstrap_servers: str, list_groups: bool, describe: str | None, console: Console | None = None) -> int:
    console = console or Console()
    service = ConsumerGroupService(bootstrap_servers)
    if list_groups:
        for group in service.list_groups():
            console.print(group)
        return 0
    state, rows = service.describe_group(describe)
    table = Table(title=f"Consumer group '{describe}' ({state})", title_justify="left")
    for column in ("GROUP", "TOPIC", "PARTITION", "CURRENT-OFFSET", "LOG-END-OFFSET", "LAG", "CONSUMER-ID", "HOST",
                   "CLIENT-ID"):
        table.add_column(column)
    for r in rows:
        table.add_row(r.group, r.topic, str(r.partition), _dash(r.offset), _dash(r.log_end_offset), _dash(r.lag),
                      r.consumer_id, r.host, r.client_id)
    console.print(table)
    return 0


def _dash(value: int | None) -> str:
    return "-" if value is None else str(value)
