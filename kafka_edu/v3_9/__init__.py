"""Kafka 3.9, KRaft mode, laid out by 3.9's Gradle modules: `<module>/<package>`, with `kafka.` (core) or
`org.apache.kafka.` (every other module) left off the package. `core/server/` is core's kafka.server,
`raft/raft/` is the raft module's org.apache.kafka.raft, `metadata/controller/` is org.apache.kafka.controller,
`server_common/queue/` is server-common's org.apache.kafka.queue. Classes 3.9 kept from 1.0.2 are imported from
`kafka_edu.v1_0_2`, not copied."""
