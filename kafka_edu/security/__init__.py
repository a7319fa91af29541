"""Kafka 1.0.2's security: SASL authentication (PLAIN, SCRAM-SHA-256/512) and the ACL authorizer (SimpleAclAuthorizer).

Laid out like Kafka's two trees: `auth/` is core's kafka.security.auth (Acl, Resource, SimpleAclAuthorizer) plus the
clients' KafkaPrincipal; `authenticator/`, `plain/` and `scram/` are org.apache.kafka.common.security's; `acl/` is
org.apache.kafka.common.acl, the filters the ACL APIs carry.
"""
