"""Port of clients/src/main/java/org/apache/kafka/common/config/internals/BrokerSecurityConfigs.java (Kafka 3.9), as
far as KafkaConfig reads it: the broker's SSL and SASL keys (with SslConfigs' and SaslConfigs' names) and defaults.
The port serves PLAINTEXT only; these keys are accepted and validated as Kafka defines them."""

from __future__ import annotations

from kafka_edu.v3_9.clients.common.config.config_def import ConfigDef, Type, ValidString

# SaslConfigs
GSSAPI_MECHANISM = "GSSAPI"
DEFAULT_SASL_MECHANISM = GSSAPI_MECHANISM

PRINCIPAL_BUILDER_CLASS_CONFIG = "principal.builder.class"
# DefaultKafkaPrincipalBuilder: a CLASS value stays a class name in this port
PRINCIPAL_BUILDER_CLASS_DEFAULT = "org.apache.kafka.common.security.authenticator.DefaultKafkaPrincipalBuilder"
SSL_PRINCIPAL_MAPPING_RULES_CONFIG = "ssl.principal.mapping.rules"
DEFAULT_SSL_PRINCIPAL_MAPPING_RULES = "DEFAULT"
SASL_KERBEROS_PRINCIPAL_TO_LOCAL_RULES_CONFIG = "sasl.kerberos.principal.to.local.rules"
DEFAULT_SASL_KERBEROS_PRINCIPAL_TO_LOCAL_RULES = [DEFAULT_SSL_PRINCIPAL_MAPPING_RULES]
SSL_CLIENT_AUTH_CONFIG = "ssl.client.auth"
SSL_CLIENT_AUTH_DEFAULT = "none"  # SslClientAuth.NONE
SASL_ENABLED_MECHANISMS_CONFIG = "sasl.enabled.mechanisms"
DEFAULT_SASL_ENABLED_MECHANISMS = [GSSAPI_MECHANISM]
SASL_SERVER_CALLBACK_HANDLER_CLASS_CONFIG = "sasl.server.callback.handler.class"
CONNECTIONS_MAX_REAUTH_MS_CONFIG = "connections.max.reauth.ms"
DEFAULT_CONNECTIONS_MAX_REAUTH_MS = 0
SASL_SERVER_MAX_RECEIVE_SIZE_CONFIG = "sasl.server.max.receive.size"
DEFAULT_SASL_SERVER_MAX_RECEIVE_SIZE = 524288
SSL_ALLOW_DN_CHANGES_CONFIG = "ssl.allow.dn.changes"
SSL_ALLOW_SAN_CHANGES_CONFIG = "ssl.allow.san.changes"
SASL_MECHANISM_INTER_BROKER_PROTOCOL_CONFIG = "sasl.mechanism.inter.broker.protocol"

SECURITY_PROVIDERS_CONFIG = "security.providers"  # SecurityConfig

# SslConfigs (the JVM's default key/trust manager algorithms are SunX509 and PKIX)
SSL_PROTOCOL_CONFIG = "ssl.protocol"
SSL_PROVIDER_CONFIG = "ssl.provider"
SSL_CIPHER_SUITES_CONFIG = "ssl.cipher.suites"
SSL_ENABLED_PROTOCOLS_CONFIG = "ssl.enabled.protocols"
SSL_KEYSTORE_TYPE_CONFIG = "ssl.keystore.type"
SSL_KEYSTORE_KEY_CONFIG = "ssl.keystore.key"
SSL_KEYSTORE_CERTIFICATE_CHAIN_CONFIG = "ssl.keystore.certificate.chain"
SSL_TRUSTSTORE_CERTIFICATES_CONFIG = "ssl.truststore.certificates"
SSL_KEYSTORE_LOCATION_CONFIG = "ssl.keystore.location"
SSL_KEYSTORE_PASSWORD_CONFIG = "ssl.keystore.password"
SSL_KEY_PASSWORD_CONFIG = "ssl.key.password"
SSL_TRUSTSTORE_TYPE_CONFIG = "ssl.truststore.type"
SSL_TRUSTSTORE_LOCATION_CONFIG = "ssl.truststore.location"
SSL_TRUSTSTORE_PASSWORD_CONFIG = "ssl.truststore.password"
SSL_KEYMANAGER_ALGORITHM_CONFIG = "ssl.keymanager.algorithm"
SSL_TRUSTMANAGER_ALGORITHM_CONFIG = "ssl.trustmanager.algorithm"
SSL_ENDPOINT_IDENTIFICATION_ALGORITHM_CONFIG = "ssl.endpoint.identification.algorithm"
SSL_SECURE_RANDOM_IMPLEMENTATION_CONFIG = "ssl.secure.random.implementation"
SSL_ENGINE_FACTORY_CLASS_CONFIG = "ssl.engine.factory.class"
DEFAULT_SSL_PROTOCOL = "TLSv1.3"
DEFAULT_SSL_ENABLED_PROTOCOLS = "TLSv1.2,TLSv1.3"

# SaslConfigs
SASL_JAAS_CONFIG = "sasl.jaas.config"
SASL_CLIENT_CALLBACK_HANDLER_CLASS = "sasl.client.callback.handler.class"
SASL_LOGIN_CLASS = "sasl.login.class"
SASL_LOGIN_CALLBACK_HANDLER_CLASS = "sasl.login.callback.handler.class"
SASL_KERBEROS_SERVICE_NAME = "sasl.kerberos.service.name"
SASL_KERBEROS_KINIT_CMD = "sasl.kerberos.kinit.cmd"
SASL_KERBEROS_TICKET_RENEW_WINDOW_FACTOR = "sasl.kerberos.ticket.renew.window.factor"
SASL_KERBEROS_TICKET_RENEW_JITTER = "sasl.kerberos.ticket.renew.jitter"
SASL_KERBEROS_MIN_TIME_BEFORE_RELOGIN = "sasl.kerberos.min.time.before.relogin"
SASL_LOGIN_REFRESH_WINDOW_FACTOR = "sasl.login.refresh.window.factor"
SASL_LOGIN_REFRESH_WINDOW_JITTER = "sasl.login.refresh.window.jitter"
SASL_LOGIN_REFRESH_MIN_PERIOD_SECONDS = "sasl.login.refresh.min.period.seconds"
SASL_LOGIN_REFRESH_BUFFER_SECONDS = "sasl.login.refresh.buffer.seconds"
SASL_LOGIN_CONNECT_TIMEOUT_MS = "sasl.login.connect.timeout.ms"
SASL_LOGIN_READ_TIMEOUT_MS = "sasl.login.read.timeout.ms"
SASL_LOGIN_RETRY_BACKOFF_MAX_MS = "sasl.login.retry.backoff.max.ms"
SASL_LOGIN_RETRY_BACKOFF_MS = "sasl.login.retry.backoff.ms"
SASL_OAUTHBEARER_SCOPE_CLAIM_NAME = "sasl.oauthbearer.scope.claim.name"
SASL_OAUTHBEARER_SUB_CLAIM_NAME = "sasl.oauthbearer.sub.claim.name"
SASL_OAUTHBEARER_TOKEN_ENDPOINT_URL = "sasl.oauthbearer.token.endpoint.url"
SASL_OAUTHBEARER_JWKS_ENDPOINT_URL = "sasl.oauthbearer.jwks.endpoint.url"
SASL_OAUTHBEARER_JWKS_ENDPOINT_REFRESH_MS = "sasl.oauthbearer.jwks.endpoint.refresh.ms"
SASL_OAUTHBEARER_JWKS_ENDPOINT_RETRY_BACKOFF_MS = "sasl.oauthbearer.jwks.endpoint.retry.backoff.ms"
SASL_OAUTHBEARER_JWKS_ENDPOINT_RETRY_BACKOFF_MAX_MS = "sasl.oauthbearer.jwks.endpoint.retry.backoff.max.ms"
SASL_OAUTHBEARER_CLOCK_SKEW_SECONDS = "sasl.oauthbearer.clock.skew.seconds"
SASL_OAUTHBEARER_EXPECTED_AUDIENCE = "sasl.oauthbearer.expected.audience"
SASL_OAUTHBEARER_EXPECTED_ISSUER = "sasl.oauthbearer.expected.issuer"
DEFAULT_SASL_OAUTHBEARER_JWKS_ENDPOINT_RETRY_BACKOFF_MS = 100
DEFAULT_SASL_OAUTHBEARER_JWKS_ENDPOINT_RETRY_BACKOFF_MAX_MS = 10000

CONFIG_DEF = (
    ConfigDef()
    # general security
    .define(CONNECTIONS_MAX_REAUTH_MS_CONFIG, Type.LONG, DEFAULT_CONNECTIONS_MAX_REAUTH_MS)
    .define(SASL_SERVER_MAX_RECEIVE_SIZE_CONFIG, Type.INT, DEFAULT_SASL_SERVER_MAX_RECEIVE_SIZE)
    .define(SECURITY_PROVIDERS_CONFIG, Type.STRING, None)
    # SSL
    .define(PRINCIPAL_BUILDER_CLASS_CONFIG, Type.CLASS, PRINCIPAL_BUILDER_CLASS_DEFAULT)
    .define(SSL_CLIENT_AUTH_CONFIG, Type.STRING, SSL_CLIENT_AUTH_DEFAULT,
            ValidString.in_("required", "requested", "none"))
    .define(SSL_PRINCIPAL_MAPPING_RULES_CONFIG, Type.STRING, DEFAULT_SSL_PRINCIPAL_MAPPING_RULES)
    .define(SSL_ALLOW_DN_CHANGES_CONFIG, Type.BOOLEAN, False)
    .define(SSL_ALLOW_SAN_CHANGES_CONFIG, Type.BOOLEAN, False)
    .define(SSL_PROTOCOL_CONFIG, Type.STRING, DEFAULT_SSL_PROTOCOL)
    .define(SSL_PROVIDER_CONFIG, Type.STRING, None)
    .define(SSL_ENABLED_PROTOCOLS_CONFIG, Type.LIST, DEFAULT_SSL_ENABLED_PROTOCOLS)
    .define(SSL_KEYSTORE_TYPE_CONFIG, Type.STRING, "JKS")
    .define(SSL_KEYSTORE_LOCATION_CONFIG, Type.STRING, None)
    .define(SSL_KEYSTORE_PASSWORD_CONFIG, Type.PASSWORD, None)
    .define(SSL_KEY_PASSWORD_CONFIG, Type.PASSWORD, None)
    .define(SSL_KEYSTORE_KEY_CONFIG, Type.PASSWORD, None)
    .define(SSL_KEYSTORE_CERTIFICATE_CHAIN_CONFIG, Type.PASSWORD, None)
    .define(SSL_TRUSTSTORE_TYPE_CONFIG, Type.STRING, "JKS")
    .define(SSL_TRUSTSTORE_LOCATION_CONFIG, Type.STRING, None)
    .define(SSL_TRUSTSTORE_PASSWORD_CONFIG, Type.PASSWORD, None)
    .define(SSL_TRUSTSTORE_CERTIFICATES_CONFIG, Type.PASSWORD, None)
    .define(SSL_KEYMANAGER_ALGORITHM_CONFIG, Type.STRING, "SunX509")
    .define(SSL_TRUSTMANAGER_ALGORITHM_CONFIG, Type.STRING, "PKIX")
    .define(SSL_ENDPOINT_IDENTIFICATION_ALGORITHM_CONFIG, Type.STRING, "https")
    .define(SSL_SECURE_RANDOM_IMPLEMENTATION_CONFIG, Type.STRING, None)
    .define(SSL_CIPHER_SUITES_CONFIG, Type.LIST, [])
    .define(SSL_ENGINE_FACTORY_CLASS_CONFIG, Type.CLASS, None)
    # SASL
    .define(SASL_MECHANISM_INTER_BROKER_PROTOCOL_CONFIG, Type.STRING, DEFAULT_SASL_MECHANISM)
    .define(SASL_ENABLED_MECHANISMS_CONFIG, Type.LIST, DEFAULT_SASL_ENABLED_MECHANISMS)
    .define(SASL_SERVER_CALLBACK_HANDLER_CLASS_CONFIG, Type.CLASS, None)
    .define(SASL_KERBEROS_PRINCIPAL_TO_LOCAL_RULES_CONFIG, Type.LIST, DEFAULT_SASL_KERBEROS_PRINCIPAL_TO_LOCAL_RULES)
    .define(SASL_JAAS_CONFIG, Type.PASSWORD, None)
    .define(SASL_CLIENT_CALLBACK_HANDLER_CLASS, Type.CLASS, None)
    .define(SASL_LOGIN_CLASS, Type.CLASS, None)
    .define(SASL_LOGIN_CALLBACK_HANDLER_CLASS, Type.CLASS, None)
    .define(SASL_KERBEROS_SERVICE_NAME, Type.STRING, None)
    .define(SASL_KERBEROS_KINIT_CMD, Type.STRING, "/usr/bin/kinit")
    .define(SASL_KERBEROS_TICKET_RENEW_WINDOW_FACTOR, Type.DOUBLE, 0.80)
    .define(SASL_KERBEROS_TICKET_RENEW_JITTER, Type.DOUBLE, 0.05)
    .define(SASL_KERBEROS_MIN_TIME_BEFORE_RELOGIN, Type.LONG, 60 * 1000)
    .define(SASL_LOGIN_REFRESH_WINDOW_FACTOR, Type.DOUBLE, 0.80)
    .define(SASL_LOGIN_REFRESH_WINDOW_JITTER, Type.DOUBLE, 0.05)
    .define(SASL_LOGIN_REFRESH_MIN_PERIOD_SECONDS, Type.SHORT, 60)
    .define(SASL_LOGIN_REFRESH_BUFFER_SECONDS, Type.SHORT, 300)
    .define(SASL_LOGIN_CONNECT_TIMEOUT_MS, Type.INT, None)
    .define(SASL_LOGIN_READ_TIMEOUT_MS, Type.INT, None)
    .define(SASL_LOGIN_RETRY_BACKOFF_MAX_MS, Type.LONG, 10000)
    .define(SASL_LOGIN_RETRY_BACKOFF_MS, Type.LONG, 100)
    .define(SASL_OAUTHBEARER_SCOPE_CLAIM_NAME, Type.STRING, "scope")
    .define(SASL_OAUTHBEARER_SUB_CLAIM_NAME, Type.STRING, "sub")
    .define(SASL_OAUTHBEARER_TOKEN_ENDPOINT_URL, Type.STRING, None)
    .define(SASL_OAUTHBEARER_JWKS_ENDPOINT_URL, Type.STRING, None)
    .define(SASL_OAUTHBEARER_JWKS_ENDPOINT_REFRESH_MS, Type.LONG, 60 * 60 * 1000)
    .define(SASL_OAUTHBEARER_JWKS_ENDPOINT_RETRY_BACKOFF_MS, Type.LONG,
            DEFAULT_SASL_OAUTHBEARER_JWKS_ENDPOINT_RETRY_BACKOFF_MS)
    .define(SASL_OAUTHBEARER_JWKS_ENDPOINT_RETRY_BACKOFF_MAX_MS, Type.LONG,
            DEFAULT_SASL_OAUTHBEARER_JWKS_ENDPOINT_RETRY_BACKOFF_MAX_MS)
    .define(SASL_OAUTHBEARER_CLOCK_SKEW_SECONDS, Type.INT, 30)
    .define(SASL_OAUTHBEARER_EXPECTED_AUDIENCE, Type.LIST, None)
    .define(SASL_OAUTHBEARER_EXPECTED_ISSUER, Type.STRING, None)
)
