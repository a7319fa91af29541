"""Port of transaction-coordinator/src/main/java/org/apache/kafka/coordinator/transaction/
TransactionStateManagerConfigs.java (Kafka 3.9): transaction timeouts, transactional-id expiration and cleanups."""

from __future__ import annotations

from kafka_edu.v3_9.clients.common.config.config_def import ConfigDef, Range, Type

TRANSACTIONS_MAX_TIMEOUT_MS_CONFIG = "transaction.max.timeout.ms"
TRANSACTIONS_MAX_TIMEOUT_MS_DEFAULT = 15 * 60 * 1000
TRANSACTIONAL_ID_EXPIRATION_MS_CONFIG = "transactional.id.expiration.ms"
TRANSACTIONAL_ID_EXPIRATION_MS_DEFAULT = 7 * 24 * 60 * 60 * 1000
TRANSACTIONS_ABORT_TIMED_OUT_TRANSACTION_CLEANUP_INTERVAL_MS_CONFIG = (
    "transaction.abort.timed.out.transaction.cleanup.interval.ms")
TRANSACTIONS_ABORT_TIMED_OUT_TRANSACTION_CLEANUP_INTERVAL_MS_DEFAULT = 10 * 1000
TRANSACTIONS_REMOVE_EXPIRED_TRANSACTIONAL_ID_CLEANUP_INTERVAL_MS_CONFIG = (
    "transaction.remove.expired.transaction.cleanup.interval.ms")
TRANSACTIONS_REMOVE_EXPIRED_TRANSACTIONAL_ID_CLEANUP_INTERVAL_MS_DEFAULT = 60 * 60 * 1000

CONFIG_DEF = (
    ConfigDef()
    .define(TRANSACTIONAL_ID_EXPIRATION_MS_CONFIG, Type.INT, TRANSACTIONAL_ID_EXPIRATION_MS_DEFAULT, Range.at_least(1))
    .define(TRANSACTIONS_MAX_TIMEOUT_MS_CONFIG, Type.INT, TRANSACTIONS_MAX_TIMEOUT_MS_DEFAULT, Range.at_least(1))
    .define(TRANSACTIONS_ABORT_TIMED_OUT_TRANSACTION_CLEANUP_INTERVAL_MS_CONFIG, Type.INT,
            TRANSACTIONS_ABORT_TIMED_OUT_TRANSACTION_CLEANUP_INTERVAL_MS_DEFAULT, Range.at_least(1))
    .define(TRANSACTIONS_REMOVE_EXPIRED_TRANSACTIONAL_ID_CLEANUP_INTERVAL_MS_CONFIG, Type.INT,
            TRANSACTIONS_REMOVE_EXPIRED_TRANSACTIONAL_ID_CLEANUP_INTERVAL_MS_DEFAULT, Range.at_least(1))
)
