"""Our own code, not a Kafka port: the lessons in the order a learner takes them. Each is a module of `lessons/`
holding one `LESSON`; `kafka-edu lesson list` and the docs generator read them in this order."""

from __future__ import annotations

import importlib

from kafka_edu.lessons.model import Lesson

# Module names under lessons/, in order; a lesson's `name` is what `kafka-edu lesson run` takes.
ORDER = ["broker_life", "request_journey", "controller", "replication", "many_runs",  # ZooKeeper mode (Kafka 1.0.2),
         "raft", "growing_the_quorum", "metadata_journey", "request_journey_kraft",  # then KRaft (Kafka 3.9)
         "zk_or_kraft", "rebalance_without_stopping",
         "lost_writes", "zombie_controller"]  # network partitions (cluster up --netns, root)


def all_lessons() -> list[Lesson]:
    return [importlib.import_module(f"lessons.{module}").LESSON for module in ORDER]


def find(name: str) -> Lesson | None:
    return next((lesson for lesson in all_lessons() if lesson.name == name), None)
