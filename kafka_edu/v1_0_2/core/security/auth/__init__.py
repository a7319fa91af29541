"""kafka.security.auth (core, Kafka 1.0.2): resources, operations, ACLs and the authorizers that check them."""
