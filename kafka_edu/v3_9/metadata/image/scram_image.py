"""Port of metadata/src/main/java/org/apache/kafka/image/ScramImage.java (Kafka 3.9): every user's SCRAM credentials,
by mechanism, and how a broker answers DescribeUserScramCredentials from them."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from kafka_edu.v3_9.clients.clients.admin.scram_mechanism import ScramMechanism
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from kafka_edu.v3_9.metadata.image.writer.image_writer import ImageWriter
from kafka_edu.v3_9.metadata.image.writer.image_writer_options import ImageWriterOptions
from kafka_edu.v3_9.metadata.metadata.scram_credential_data import ScramCredentialData

DESCRIBE_DUPLICATE_USER = "Cannot describe SCRAM credentials for the same user twice in a single request: "
DESCRIBE_USER_THAT_DOES_NOT_EXIST = "Attempt to describe a user credential that does not exist: "


class ScramImage:
    EMPTY: ClassVar[ScramImage]

    def __init__(self, mechanisms: Mapping[ScramMechanism, Mapping[str, ScramCredentialData]]) -> None:
        self._mechanisms = {mechanism: dict(users) for mechanism, users in mechanisms.items()}

    def write(self, writer: ImageWriter, options: ImageWriterOptions) -> None:
        if options.metadata_version().is_scram_supported():
            for mechanism, users in self._mechanisms.items():
                for user_name, data in users.items():
                    writer.write(0, data.to_record(user_name, mechanism))
        else:
            # a metadata.version before 3.5-IV2 has no SCRAM records: say what would be lost
            lost = [f"{mechanism.name}:{', '.join(users)}" for mechanism, users in self._mechanisms.items() if users]
            if lost:
                options.handle_loss("ScramImage({" + "},{".join(lost) + "},{})")

    def describe(self, request: Any) -> list[dict[str, Any]]:
        """One DescribeUserScramCredentialsResult per user asked for (every user when none are)."""
        users = request.users
        unique_users: dict[str, bool] = {}  # user -> asked for twice
        if not users:
            for credential_data_set in self._mechanisms.values():
                for user in credential_data_set:
                    unique_users[user] = False
        else:
            for user in users:
                unique_users[user.name] = user.name in unique_users
        results = []
        for user, duplicate in unique_users.items():
            result: dict[str, Any] = dict(user=user, error_code=Errors.NONE, error_message=None, credential_infos=[])
            if not duplicate:
                credential_infos = [dict(mechanism=mechanism.type(), iterations=users_data[user].iterations)
                                    for mechanism, users_data in self._mechanisms.items() if user in users_data]
                if credential_infos:
                    result["credential_infos"] = credential_infos
                else:
                    result.update(error_code=Errors.RESOURCE_NOT_FOUND,
                                  error_message=DESCRIBE_USER_THAT_DOES_NOT_EXIST + user)
            else:
                result.update(error_code=Errors.DUPLICATE_RESOURCE, error_message=DESCRIBE_DUPLICATE_USER + user)
            results.append(result)
        return results

    def mechanisms(self) -> dict[ScramMechanism, dict[str, ScramCredentialData]]:
        return self._mechanisms

    def is_empty(self) -> bool:
        return not self._mechanisms

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ScramImage) and self._mechanisms == other._mechanisms

    def __hash__(self) -> int:
        return hash(frozenset(self._mechanisms))

    def __repr__(self) -> str:
        return f"ScramImage({self._mechanisms})"


ScramImage.EMPTY = ScramImage({})
