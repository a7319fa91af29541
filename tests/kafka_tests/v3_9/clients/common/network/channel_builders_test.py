"""Port of clients/src/test/java/org/apache/kafka/common/network/ChannelBuildersTest.java (Kafka 3.9).

Kafka's TestSecurityConfig is `_TestSecurityConfig` below, with the security configs it defines that the case
reads (its client SSL configs are left out: SSL is not ported). Kafka also checks that each config it looks at is
marked used (`AbstractConfig.unused()`, a logging aid); the port's AbstractConfig does not track use, so those
assertions are not made."""

from __future__ import annotations

from kafka_edu.v1_0_2.clients.common.config.config_def import AbstractConfig, ConfigDef, Type
from kafka_edu.v3_9.clients.common.network import channel_builders
from kafka_edu.v3_9.clients.common.network.listener_name import ListenerName
from tests.kafka_tests.referee import kafka_test_class

KAFKA = kafka_test_class(
    "3.9", "clients/src/test/java/org/apache/kafka/common/network/ChannelBuildersTest.java",
    cases=["testCreateConfigurableKafkaPrincipalBuilder", "testChannelBuilderConfigs"],
)

_CONFIG = (ConfigDef()
           .define("ssl.client.auth", Type.STRING, None)
           .define("sasl.enabled.mechanisms", Type.LIST, ["GSSAPI"])
           .define("sasl.server.callback.handler.class", Type.CLASS, None)
           .define("principal.builder.class", Type.CLASS, None)
           .define("connections.max.reauth.ms", Type.LONG, 0)
           .define("sasl.server.max.receive.size", Type.INT, 524288)
           # withClientSaslSupport()
           .define("sasl.mechanism", Type.STRING, "GSSAPI")
           .define("sasl.jaas.config", Type.PASSWORD, None)
           .define("sasl.kerberos.service.name", Type.STRING, None)
           .define("sasl.kerberos.kinit.cmd", Type.STRING, "/usr/bin/kinit")
           .define("sasl.client.callback.handler.class", Type.CLASS, None)
           .define("sasl.login.callback.handler.class", Type.CLASS, None)
           .define("sasl.login.class", Type.CLASS, None))


class _TestSecurityConfig(AbstractConfig):
    def __init__(self, originals: dict) -> None:
        super().__init__(_CONFIG, originals, False)


class ConfigurableKafkaPrincipalBuilder:
    def __init__(self) -> None:
        self.configured = False

    def configure(self, configs: dict) -> None:
        self.configured = True

    def build(self, context: object) -> None:
        return None


def test_create_configurable_kafka_principal_builder():
    configs = {channel_builders.PRINCIPAL_BUILDER_CLASS_CONFIG: ConfigurableKafkaPrincipalBuilder}
    builder = channel_builders.create_principal_builder(configs, None, None)
    assert isinstance(builder, ConfigurableKafkaPrincipalBuilder)
    assert builder.configured


def test_channel_builder_configs():
    props = {
        "listener.name.listener1.gssapi.sasl.kerberos.service.name": "testkafka",
        "listener.name.listener1.sasl.kerberos.service.name": "testkafkaglobal",
        "plain.sasl.server.callback.handler.class": "callback",
        "listener.name.listener1.gssapi.config1.key": "custom.config1",
        "custom.config2.key": "custom.config2",
    }
    security_config = _TestSecurityConfig(props)

    # configs with the listener prefix
    configs = channel_builders.channel_builder_configs(security_config, ListenerName("listener1"))

    assert configs.get("listener.name.listener1.gssapi.sasl.kerberos.service.name") is None
    assert configs.get("gssapi.sasl.kerberos.service.name") == "testkafka"
    assert configs.get("sasl.kerberos.service.name") == "testkafkaglobal"
    assert configs.get("listener.name.listener1.sasl.kerberos.service.name") is None
    assert configs.get("plain.sasl.server.callback.handler.class") is None
    assert configs.get("listener.name.listener1.gssapi.config1.key") == "custom.config1"
    assert configs.get("custom.config2.key") == "custom.config2"

    # configs without the listener prefix
    security_config = _TestSecurityConfig(props)
    configs = channel_builders.channel_builder_configs(security_config, None)

    assert configs.get("listener.name.listener1.gssapi.sasl.kerberos.service.name") == "testkafka"
    assert configs.get("gssapi.sasl.kerberos.service.name") is None
    assert configs.get("listener.name.listener1.sasl.kerberos.service.name") == "testkafkaglobal"
    assert configs.get("sasl.kerberos.service.name") is None
    assert configs.get("plain.sasl.server.callback.handler.class") == "callback"
    assert configs.get("listener.name.listener1.gssapi.config1.key") == "custom.config1"
    assert configs.get("custom.config2.key") == "custom.config2"
