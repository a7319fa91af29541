"""Trace mining: PySpark jobs that turn recorded runs' spans into answers about Kafka's behaviour.

`kafka-edu mine compact` turns a run's OTLP JSON Lines into Parquet; each job (`startup-profile`,
`request-breakdown`, `failover-timeline`, `dependencies`, `critical-path`, `regressions`) prints a table and writes
a CSV and a chart. Jobs run on `local[*]` by default and unchanged on a standalone cluster (`--master`).
"""
