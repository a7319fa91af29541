"""Port of server-common/src/main/java/org/apache/kafka/security/PasswordEncoderConfigs.java (Kafka 3.9): the secret
and cipher settings with which dynamic password configs are encoded."""

from __future__ import annotations

from kafka_edu.v3_9.clients.common.config.config_def import ConfigDef, Range, Type

PASSWORD_ENCODER_SECRET_CONFIG = "password.encoder.secret"
PASSWORD_ENCODER_OLD_SECRET_CONFIG = "password.encoder.old.secret"
PASSWORD_ENCODER_KEYFACTORY_ALGORITHM_CONFIG = "password.encoder.keyfactory.algorithm"
PASSWORD_ENCODER_CIPHER_ALGORITHM_CONFIG = "password.encoder.cipher.algorithm"
PASSWORD_ENCODER_CIPHER_ALGORITHM_DEFAULT = "AES/CBC/PKCS5Padding"
PASSWORD_ENCODER_KEY_LENGTH_CONFIG = "password.encoder.key.length"
PASSWORD_ENCODER_KEY_LENGTH_DEFAULT = 128
PASSWORD_ENCODER_ITERATIONS_CONFIG = "password.encoder.iterations"
PASSWORD_ENCODER_ITERATIONS_DEFAULT = 4096

CONFIG_DEF = (
    ConfigDef()
    .define(PASSWORD_ENCODER_SECRET_CONFIG, Type.PASSWORD, None)
    .define(PASSWORD_ENCODER_OLD_SECRET_CONFIG, Type.PASSWORD, None)
    .define(PASSWORD_ENCODER_KEYFACTORY_ALGORITHM_CONFIG, Type.STRING, None)
    .define(PASSWORD_ENCODER_CIPHER_ALGORITHM_CONFIG, Type.STRING, PASSWORD_ENCODER_CIPHER_ALGORITHM_DEFAULT)
    .define(PASSWORD_ENCODER_KEY_LENGTH_CONFIG, Type.INT, PASSWORD_ENCODER_KEY_LENGTH_DEFAULT, Range.at_least(8))
    .define(PASSWORD_ENCODER_ITERATIONS_CONFIG, Type.INT, PASSWORD_ENCODER_ITERATIONS_DEFAULT, Range.at_least(1024))
)
