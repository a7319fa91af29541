"""Our own code, not a Kafka port: `kafka-edu nemesis`, a workload under a seeded schedule of faults whose
client-side history is judged afterwards the way Jepsen's queue checkers judge theirs (docs/nemesis.md)."""
