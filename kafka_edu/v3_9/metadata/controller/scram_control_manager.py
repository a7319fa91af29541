"""Port of metadata/src/main/java/org/apache/kafka/controller/ScramControlManager.java (Kafka 3.9): every user's SCRAM
credentials (UserScramCredentialRecord / RemoveUserScramCredentialRecord), and AlterUserScramCredentials' checks.

The client sends a salted password; the controller stores only what a SCRAM server needs (StoredKey, ServerKey), so
no password, salted or not, reaches the metadata log.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from kafka_edu.v1_0_2.clients.common.security.scram.scram_formatter import ScramFormatter
from kafka_edu.v1_0_2.clients.common.security.scram.scram_mechanism import ScramMechanism as InternalScramMechanism
from kafka_edu.v3_9.clients.clients.admin.scram_mechanism import ScramMechanism
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from kafka_edu.v3_9.clients.common.requests.api_error import ApiError
from kafka_edu.v3_9.metadata.common.metadata import (
    ApiMessageAndVersion,
    RemoveUserScramCredentialRecord,
    UserScramCredentialRecord,
)
from kafka_edu.v3_9.metadata.controller.controller_result import ControllerResult
from kafka_edu.v3_9.server_common.server.common.metadata_version import MetadataVersion
from kafka_edu.v3_9.server_common.timeline.snapshot_registry import SnapshotRegistry
from kafka_edu.v3_9.server_common.timeline.timeline_hash_map import TimelineHashMap

MAX_ITERATIONS = 16384


@dataclass(frozen=True)
class ScramCredentialKey:
    username: str
    mechanism: ScramMechanism


@dataclass(frozen=True)
class ScramCredentialValue:
    salt: bytes
    stored_key: bytes
    server_key: bytes
    iterations: int

    def __repr__(self) -> str:
        return "ScramCredentialValue(salt=[hidden], storedKey=[hidden], serverKey=[hidden], iterations=[hidden])"


class ScramControlManager:
    def __init__(self, snapshot_registry: SnapshotRegistry | None = None, log_context: str = "") -> None:
        self._log = logging.getLogger(__name__)
        self._log_prefix = log_context
        self.credentials: TimelineHashMap[ScramCredentialKey, ScramCredentialValue] = TimelineHashMap(
            snapshot_registry if snapshot_registry is not None else SnapshotRegistry(log_context))

    def alter_credentials(self, request: Any, metadata_version: MetadataVersion) -> ControllerResult[dict[str, Any]]:
        """The records and the AlterUserScramCredentialsResponse data ({results: [...]}); a user named twice in one
        request is refused (DUPLICATE_RESOURCE), as is every change below metadata.version 3.5-IV2."""
        scram_is_supported = metadata_version.is_scram_supported()
        user_to_deletion: dict[str, Any] = {}
        user_to_upsert: dict[str, Any] = {}
        user_to_error: dict[str, ApiError] = {}
        for deletion in request.deletions:
            if deletion.name in user_to_error:
                continue
            if user_to_deletion.pop(deletion.name, None) is not None:
                user_to_error[deletion.name] = ApiError(
                    Errors.DUPLICATE_RESOURCE, "A user credential cannot be altered twice in the same request")
            elif not scram_is_supported:
                user_to_error[deletion.name] = ApiError(Errors.UNSUPPORTED_VERSION,
                                                        "The current metadata.version does not support SCRAM")
            else:
                error = self.validate_deletion(deletion)
                if error.is_failure():
                    user_to_error[deletion.name] = error
                else:
                    user_to_deletion[deletion.name] = deletion
        for upsertion in request.upsertions:
            if upsertion.name in user_to_error:
                continue
            removed_deletion = user_to_deletion.pop(upsertion.name, None)
            removed_upsertion = user_to_upsert.pop(upsertion.name, None)
            if removed_deletion is not None or removed_upsertion is not None:
                user_to_error[upsertion.name] = ApiError(
                    Errors.DUPLICATE_RESOURCE, "A user credential cannot be altered twice in the same request")
            elif not scram_is_supported:
                user_to_error[upsertion.name] = ApiError(Errors.UNSUPPORTED_VERSION,
                                                         "The current metadata.version does not support SCRAM")
            else:
                error = validate_upsertion(upsertion)
                if error.is_failure():
                    user_to_error[upsertion.name] = error
                else:
                    user_to_upsert[upsertion.name] = upsertion
        results: list[dict[str, Any]] = []
        records: list[ApiMessageAndVersion] = []
        for deletion in user_to_deletion.values():
            results.append(dict(user=deletion.name, error_code=Errors.NONE, error_message=None))
            records.append(ApiMessageAndVersion(RemoveUserScramCredentialRecord(
                name=deletion.name, mechanism=deletion.mechanism), 0))
        for upsertion in user_to_upsert.values():
            error = finish_upsertion(records, upsertion)
            if not error.is_failure():
                results.append(dict(user=upsertion.name, error_code=Errors.NONE, error_message=None))
            else:
                user_to_error[upsertion.name] = error
        for user, error in user_to_error.items():
            results.append(dict(user=user, error_code=error.error, error_message=error.message))
        return ControllerResult.atomic_of(records, dict(results=results))

    def validate_deletion(self, deletion: Any) -> ApiError:
        mechanism = ScramMechanism.from_type(deletion.mechanism)
        error = validate_scram_username_and_mechanism(deletion.name, mechanism)
        if error.is_failure():
            return error
        if not self.credentials.contains_key(ScramCredentialKey(deletion.name, mechanism)):
            return ApiError(Errors.RESOURCE_NOT_FOUND, "Attempt to delete a user credential that does not exist")
        return ApiError.NONE

    def replay_remove(self, record: RemoveUserScramCredentialRecord) -> None:
        key = ScramCredentialKey(record.name, ScramMechanism.from_type(record.mechanism))
        if self.credentials.remove(key) is None:
            raise RuntimeError(f"Unable to find credential to delete: {key}")
        self._log.info("%sReplayed RemoveUserScramCredentialRecord for %s with mechanism %s.", self._log_prefix,
                       key.username, key.mechanism.name)

    def replay(self, record: UserScramCredentialRecord) -> None:
        key = ScramCredentialKey(record.name, ScramMechanism.from_type(record.mechanism))
        value = ScramCredentialValue(record.salt, record.stored_key, record.server_key, record.iterations)
        if self.credentials.put(key, value) is None:
            self._log.info("%sReplayed UserScramCredentialRecord creating new entry for %s with mechanism %s.",
                           self._log_prefix, key.username, key.mechanism.name)
        else:
            self._log.info("%sReplayed UserScramCredentialRecord modifying existing entry for %s with mechanism %s.",
                           self._log_prefix, key.username, key.mechanism.name)


def finish_upsertion(records: list[ApiMessageAndVersion], upsertion: Any) -> ApiError:
    internal_mechanism = InternalScramMechanism.for_mechanism_name(
        ScramMechanism.from_type(upsertion.mechanism).mechanism_name())
    try:
        formatter = ScramFormatter(internal_mechanism)  # type: ignore[arg-type]
        # from the salted password to StoredKey and ServerKey
        records.append(ApiMessageAndVersion(UserScramCredentialRecord(
            name=upsertion.name, mechanism=upsertion.mechanism, salt=upsertion.salt,
            stored_key=formatter.stored_key(formatter.client_key(upsertion.salted_password)),
            server_key=formatter.server_key(upsertion.salted_password), iterations=upsertion.iterations), 0))
    except Exception as e:
        return ApiError.from_throwable(e)
    return ApiError.NONE


def validate_upsertion(upsertion: Any) -> ApiError:
    mechanism = ScramMechanism.from_type(upsertion.mechanism)
    error = validate_scram_username_and_mechanism(upsertion.name, mechanism)
    if error.is_failure():
        return error
    internal_mechanism = InternalScramMechanism.for_mechanism_name(mechanism.mechanism_name())
    if upsertion.iterations < internal_mechanism.min_iterations:  # type: ignore[union-attr]
        return ApiError(Errors.UNACCEPTABLE_CREDENTIAL, "Too few iterations")
    if upsertion.iterations > MAX_ITERATIONS:
        return ApiError(Errors.UNACCEPTABLE_CREDENTIAL, "Too many iterations")
    return ApiError.NONE


def validate_scram_username_and_mechanism(username: str, mechanism: ScramMechanism) -> ApiError:
    if not username:
        return ApiError(Errors.UNACCEPTABLE_CREDENTIAL, "Username must not be empty")
    if mechanism is ScramMechanism.UNKNOWN:
        return ApiError(Errors.UNSUPPORTED_SASL_MECHANISM, "Unknown SCRAM mechanism")
    return ApiError.NONE
