"""Port of metadata/src/main/java/org/apache/kafka/image/ScramDelta.java (Kafka 3.9)."""

from __future__ import annotations

from typing import Any

from kafka_edu.v3_9.clients.clients.admin.scram_mechanism import ScramMechanism
from kafka_edu.v3_9.metadata.common.metadata import RemoveUserScramCredentialRecord, UserScramCredentialRecord
from kafka_edu.v3_9.metadata.image.scram_image import ScramImage
from kafka_edu.v3_9.metadata.metadata.scram_credential_data import ScramCredentialData


class ScramDelta:
    """{mechanism: {user: new credential, or None for removed}}."""

    def __init__(self, image: ScramImage) -> None:
        self._image = image
        self._changes: dict[ScramMechanism, dict[str, ScramCredentialData | None]] = {}

    def finish_snapshot(self) -> None:
        for mechanism, users in self._image.mechanisms().items():
            user_name_map = self._changes.setdefault(mechanism, {})
            for user_name in users:
                user_name_map.setdefault(user_name, None)

    def image(self) -> ScramImage:
        return self._image

    def changes(self) -> dict[ScramMechanism, dict[str, ScramCredentialData | None]]:
        return self._changes

    def replay(self, record: UserScramCredentialRecord) -> None:
        mechanism = ScramMechanism.from_type(record.mechanism)
        self._changes.setdefault(mechanism, {})[record.name] = ScramCredentialData.from_record(record)

    def replay_remove(self, record: RemoveUserScramCredentialRecord) -> None:
        mechanism = ScramMechanism.from_type(record.mechanism)
        self._changes.setdefault(mechanism, {})[record.name] = None

    def handle_metadata_version_change(self, changed_metadata_version: Any) -> None:
        pass  # nothing to do

    def apply(self) -> ScramImage:
        new_mechanisms = {mechanism: dict(users) for mechanism, users in self._image.mechanisms().items()}
        for mechanism, user_changes in self._changes.items():
            user_map = new_mechanisms.setdefault(mechanism, {})
            for user_name, data in user_changes.items():
                if data is not None:
                    user_map[user_name] = data
                else:
                    user_map.pop(user_name, None)
            # 3.9 drops an emptied mechanism inside the loop, so a credential added after the last removal in
            # HashMap order is lost; here the mechanism goes only if it ends up empty
            if not user_map:
                new_mechanisms.pop(mechanism, None)
        return ScramImage(new_mechanisms)

    def __str__(self) -> str:
        return f"ScramDelta(changes={self._changes})"
