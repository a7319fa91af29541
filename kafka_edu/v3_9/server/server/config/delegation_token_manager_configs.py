"""Port of server/src/main/java/org/apache/kafka/server/config/DelegationTokenManagerConfigs.java (Kafka 3.9): the
delegation-token secret and lifetimes (the port issues no tokens; the keys are read as 3.9 reads them)."""

from __future__ import annotations

from kafka_edu.v3_9.clients.common.config.config_def import ConfigDef, Range, Type

DELEGATION_TOKEN_SECRET_KEY_CONFIG = "delegation.token.secret.key"
DELEGATION_TOKEN_SECRET_KEY_ALIAS_CONFIG = "delegation.token.master.key"  # deprecated name of the secret
DELEGATION_TOKEN_MAX_LIFETIME_CONFIG = "delegation.token.max.lifetime.ms"
DELEGATION_TOKEN_MAX_LIFE_TIME_MS_DEFAULT = 7 * 24 * 60 * 60 * 1000
DELEGATION_TOKEN_EXPIRY_TIME_MS_CONFIG = "delegation.token.expiry.time.ms"
DELEGATION_TOKEN_EXPIRY_TIME_MS_DEFAULT = 24 * 60 * 60 * 1000
DELEGATION_TOKEN_EXPIRY_CHECK_INTERVAL_MS_CONFIG = "delegation.token.expiry.check.interval.ms"
DELEGATION_TOKEN_EXPIRY_CHECK_INTERVAL_MS_DEFAULT = 60 * 60 * 1000

CONFIG_DEF = (
    ConfigDef()
    .define(DELEGATION_TOKEN_SECRET_KEY_ALIAS_CONFIG, Type.PASSWORD, None)
    .define(DELEGATION_TOKEN_SECRET_KEY_CONFIG, Type.PASSWORD, None)
    .define(DELEGATION_TOKEN_MAX_LIFETIME_CONFIG, Type.LONG, DELEGATION_TOKEN_MAX_LIFE_TIME_MS_DEFAULT,
            Range.at_least(1))
    .define(DELEGATION_TOKEN_EXPIRY_TIME_MS_CONFIG, Type.LONG, DELEGATION_TOKEN_EXPIRY_TIME_MS_DEFAULT,
            Range.at_least(1))
    .define(DELEGATION_TOKEN_EXPIRY_CHECK_INTERVAL_MS_CONFIG, Type.LONG,
            DELEGATION_TOKEN_EXPIRY_CHECK_INTERVAL_MS_DEFAULT, Range.at_least(1))
)
