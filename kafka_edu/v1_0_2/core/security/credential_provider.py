"""Port of core/src/main/scala/kafka/security/CredentialProvider.scala (Kafka 1.0.2)."""

from __future__ import annotations

from collections.abc import Mapping

from kafka_edu.v1_0_2.clients.common.security.authenticator.credential_cache import CredentialCache
from kafka_edu.v1_0_2.clients.common.security.scram import scram_credential_utils
from kafka_edu.v1_0_2.clients.common.security.scram.scram_mechanism import ScramMechanism


class CredentialProvider:
    """The broker's SCRAM credentials, one cache per enabled mechanism, kept up to date from /config/users."""

    def __init__(self, sasl_enabled_mechanisms: list[str]) -> None:
        self.credential_cache = CredentialCache()
        scram_credential_utils.create_cache(self.credential_cache, sasl_enabled_mechanisms)

    def update_credentials(self, username: str, config: Mapping[str, str]) -> None:
        """A user's config changed: each mechanism's credential is now what the config says, or gone."""
        for mechanism in ScramMechanism:
            cache = self.credential_cache.cache(mechanism.mechanism_name)
            if cache is not None:
                value = config.get(mechanism.mechanism_name)
                if value is None:
                    cache.remove(username)
                else:
                    cache.put(username, scram_credential_utils.credential_from_string(value))
