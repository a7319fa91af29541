"""Port of server/src/main/java/org/apache/kafka/server/config/ZkConfigs.java (Kafka 3.9), as far as KafkaConfig
defines and validates them: the ZooKeeper connection keys. This port's 3.9 broker runs KRaft only; the keys stay
defined so a ZooKeeper-mode properties file is read (and refused or accepted) as 3.9 does."""

from __future__ import annotations

from kafka_edu.v3_9.clients.common.config.config_def import ConfigDef, Range, Type

ZK_CONNECT_CONFIG = "zookeeper.connect"
ZK_SESSION_TIMEOUT_MS_CONFIG = "zookeeper.session.timeout.ms"
ZK_CONNECTION_TIMEOUT_MS_CONFIG = "zookeeper.connection.timeout.ms"
ZK_ENABLE_SECURE_ACLS_CONFIG = "zookeeper.set.acl"
ZK_MAX_IN_FLIGHT_REQUESTS_CONFIG = "zookeeper.max.in.flight.requests"
ZK_SSL_CLIENT_ENABLE_CONFIG = "zookeeper.ssl.client.enable"
ZK_CLIENT_CNXN_SOCKET_CONFIG = "zookeeper.clientCnxnSocket"
ZK_SSL_KEY_STORE_LOCATION_CONFIG = "zookeeper.ssl.keystore.location"
ZK_SSL_KEY_STORE_PASSWORD_CONFIG = "zookeeper.ssl.keystore.password"
ZK_SSL_KEY_STORE_TYPE_CONFIG = "zookeeper.ssl.keystore.type"
ZK_SSL_TRUST_STORE_LOCATION_CONFIG = "zookeeper.ssl.truststore.location"
ZK_SSL_TRUST_STORE_PASSWORD_CONFIG = "zookeeper.ssl.truststore.password"
ZK_SSL_TRUST_STORE_TYPE_CONFIG = "zookeeper.ssl.truststore.type"
ZK_SSL_PROTOCOL_CONFIG = "zookeeper.ssl.protocol"
ZK_SSL_ENABLED_PROTOCOLS_CONFIG = "zookeeper.ssl.enabled.protocols"
ZK_SSL_CIPHER_SUITES_CONFIG = "zookeeper.ssl.cipher.suites"
ZK_SSL_ENDPOINT_IDENTIFICATION_ALGORITHM_CONFIG = "zookeeper.ssl.endpoint.identification.algorithm"
ZK_SSL_CRL_ENABLE_CONFIG = "zookeeper.ssl.crl.enable"
ZK_SSL_OCSP_ENABLE_CONFIG = "zookeeper.ssl.ocsp.enable"

ZK_SESSION_TIMEOUT_MS = 18000
ZK_ENABLE_SECURE_ACLS = False
ZK_MAX_IN_FLIGHT_REQUESTS = 10
ZK_SSL_CLIENT_ENABLE = False
ZK_SSL_PROTOCOL = "TLSv1.2"
ZK_SSL_ENDPOINT_IDENTIFICATION_ALGORITHM = "HTTPS"
ZK_SSL_CRL_ENABLE = False
ZK_SSL_OCSP_ENABLE = False

CONFIG_DEF = (
    ConfigDef()
    .define(ZK_CONNECT_CONFIG, Type.STRING, None)
    .define(ZK_SESSION_TIMEOUT_MS_CONFIG, Type.INT, ZK_SESSION_TIMEOUT_MS)
    .define(ZK_CONNECTION_TIMEOUT_MS_CONFIG, Type.INT, None)
    .define(ZK_ENABLE_SECURE_ACLS_CONFIG, Type.BOOLEAN, ZK_ENABLE_SECURE_ACLS)
    .define(ZK_MAX_IN_FLIGHT_REQUESTS_CONFIG, Type.INT, ZK_MAX_IN_FLIGHT_REQUESTS, Range.at_least(1))
    .define(ZK_SSL_CLIENT_ENABLE_CONFIG, Type.BOOLEAN, ZK_SSL_CLIENT_ENABLE)
    .define(ZK_CLIENT_CNXN_SOCKET_CONFIG, Type.STRING, None)
    .define(ZK_SSL_KEY_STORE_LOCATION_CONFIG, Type.STRING, None)
    .define(ZK_SSL_KEY_STORE_PASSWORD_CONFIG, Type.PASSWORD, None)
    .define(ZK_SSL_KEY_STORE_TYPE_CONFIG, Type.STRING, None)
    .define(ZK_SSL_TRUST_STORE_LOCATION_CONFIG, Type.STRING, None)
    .define(ZK_SSL_TRUST_STORE_PASSWORD_CONFIG, Type.PASSWORD, None)
    .define(ZK_SSL_TRUST_STORE_TYPE_CONFIG, Type.STRING, None)
    .define(ZK_SSL_PROTOCOL_CONFIG, Type.STRING, ZK_SSL_PROTOCOL)
    .define(ZK_SSL_ENABLED_PROTOCOLS_CONFIG, Type.LIST, None)
    .define(ZK_SSL_CIPHER_SUITES_CONFIG, Type.LIST, None)
    .define(ZK_SSL_ENDPOINT_IDENTIFICATION_ALGORITHM_CONFIG, Type.STRING, ZK_SSL_ENDPOINT_IDENTIFICATION_ALGORITHM)
    .define(ZK_SSL_CRL_ENABLE_CONFIG, Type.BOOLEAN, ZK_SSL_CRL_ENABLE)
    .define(ZK_SSL_OCSP_ENABLE_CONFIG, Type.BOOLEAN, ZK_SSL_OCSP_ENABLE)
)
