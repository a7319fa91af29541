"""Port of metadata/src/main/java/org/apache/kafka/metadata/ScramCredentialData.java (Kafka 3.9): one user's stored
SCRAM credential for one mechanism, as the metadata image keeps it."""

from __future__ import annotations

from dataclasses import dataclass

from kafka_edu.v3_9.clients.clients.admin.scram_mechanism import ScramMechanism
from kafka_edu.v3_9.metadata.common.metadata import UserScramCredentialRecord


@dataclass(frozen=True)
class ScramCredentialData:
    salt: bytes
    stored_key: bytes
    server_key: bytes
    iterations: int

    @staticmethod
    def from_record(record: UserScramCredentialRecord) -> ScramCredentialData:
        return ScramCredentialData(record.salt, record.stored_key, record.server_key, record.iterations)

    def to_record(self, user_name: str, mechanism: ScramMechanism) -> UserScramCredentialRecord:
        return UserScramCredentialRecord(name=user_name, mechanism=mechanism.type(), salt=self.salt,
                                         stored_key=self.stored_key, server_key=self.server_key,
                                         iterations=self.iterations)

    def __repr__(self) -> str:
        # the secrets stay out of logs
        return "ScramCredentialData(salt=[hidden], storedKey=[hidden], serverKey=[hidden], iterations=[hidden])"
