"""org.apache.kafka.common.acl and .resource (Kafka 1.0.2): ACL bindings and the filters the ACL APIs carry."""
