"""Kafka's wire error codes and the exception class each stands for: org.apache.kafka.common.protocol.Errors (3.9)."""

from __future__ import annotations

import enum

from kio.schema.errors import ErrorCode


class Errors(enum.IntEnum):
    """`Errors.X.value` is the int16 code; members work wherever kio expects an ErrorCode (it writes `.value`)."""

    exception_name: str | None
    retriable: bool

    def __new__(cls, code: int, exception_name: str | None) -> Errors:
        member = int.__new__(cls, code)
        member._value_ = code
        member.exception_name = exception_name
        member.retriable = bool(ErrorCode(code).retriable) if code in ErrorCode._value2member_map_ else False
        return member

    @property
    def code(self) -> int:
        return self.value

    @classmethod
    def for_exception(cls, exception: BaseException) -> Errors:
        """The code a Kafka exception travels as: the nearest Kafka class in its hierarchy decides."""
        for klass in type(exception).__mro__:
            error = _BY_1_0_2_CLASS_NAME.get(klass.__name__) if klass.__module__ == _ERRORS_1_0_2 else None
            error = error or _BY_EXCEPTION_NAME.get(klass.__name__)
            if error is not None:
                return error
        return cls.UNKNOWN_SERVER_ERROR

    @classmethod
    def for_code(cls, code: int) -> Errors:
        """Like Kafka, an unknown code reads as UNKNOWN_SERVER_ERROR."""
        return cls._value2member_map_.get(code, cls.UNKNOWN_SERVER_ERROR)  # type: ignore[return-value]

    UNKNOWN_SERVER_ERROR = -1, "UnknownServerException"
    NONE = 0, None
    OFFSET_OUT_OF_RANGE = 1, "OffsetOutOfRangeException"
    CORRUPT_MESSAGE = 2, "CorruptRecordException"
    UNKNOWN_TOPIC_OR_PARTITION = 3, "UnknownTopicOrPartitionException"
    INVALID_FETCH_SIZE = 4, "InvalidFetchSizeException"
    LEADER_NOT_AVAILABLE = 5, "LeaderNotAvailableException"
    NOT_LEADER_OR_FOLLOWER = 6, "NotLeaderOrFollowerException"
    REQUEST_TIMED_OUT = 7, "TimeoutException"
    BROKER_NOT_AVAILABLE = 8, "BrokerNotAvailableException"
    REPLICA_NOT_AVAILABLE = 9, "ReplicaNotAvailableException"
    MESSAGE_TOO_LARGE = 10, "RecordTooLargeException"
    STALE_CONTROLLER_EPOCH = 11, "ControllerMovedException"
    OFFSET_METADATA_TOO_LARGE = 12, "OffsetMetadataTooLarge"
    NETWORK_EXCEPTION = 13, "NetworkException"
    COORDINATOR_LOAD_IN_PROGRESS = 14, "CoordinatorLoadInProgressException"
    COORDINATOR_NOT_AVAILABLE = 15, "CoordinatorNotAvailableException"
    NOT_COORDINATOR = 16, "NotCoordinatorException"
    INVALID_TOPIC_EXCEPTION = 17, "InvalidTopicException"
    RECORD_LIST_TOO_LARGE = 18, "RecordBatchTooLargeException"
    NOT_ENOUGH_REPLICAS = 19, "NotEnoughReplicasException"
    NOT_ENOUGH_REPLICAS_AFTER_APPEND = 20, "NotEnoughReplicasAfterAppendException"
    INVALID_REQUIRED_ACKS = 21, "InvalidRequiredAcksException"
    ILLEGAL_GENERATION = 22, "IllegalGenerationException"
    INCONSISTENT_GROUP_PROTOCOL = 23, "InconsistentGroupProtocolException"
    INVALID_GROUP_ID = 24, "InvalidGroupIdException"
    UNKNOWN_MEMBER_ID = 25, "UnknownMemberIdException"
    INVALID_SESSION_TIMEOUT = 26, "InvalidSessionTimeoutException"
    REBALANCE_IN_PROGRESS = 27, "RebalanceInProgressException"
    INVALID_COMMIT_OFFSET_SIZE = 28, "InvalidCommitOffsetSizeException"
    TOPIC_AUTHORIZATION_FAILED = 29, "TopicAuthorizationException"
    GROUP_AUTHORIZATION_FAILED = 30, "GroupAuthorizationException"
    CLUSTER_AUTHORIZATION_FAILED = 31, "ClusterAuthorizationException"
    INVALID_TIMESTAMP = 32, "InvalidTimestampException"
    UNSUPPORTED_SASL_MECHANISM = 33, "UnsupportedSaslMechanismException"
    ILLEGAL_SASL_STATE = 34, "IllegalSaslStateException"
    UNSUPPORTED_VERSION = 35, "UnsupportedVersionException"
    TOPIC_ALREADY_EXISTS = 36, "TopicExistsException"
    INVALID_PARTITIONS = 37, "InvalidPartitionsException"
    INVALID_REPLICATION_FACTOR = 38, "InvalidReplicationFactorException"
    INVALID_REPLICA_ASSIGNMENT = 39, "InvalidReplicaAssignmentException"
    INVALID_CONFIG = 40, "InvalidConfigurationException"
    NOT_CONTROLLER = 41, "NotControllerException"
    INVALID_REQUEST = 42, "InvalidRequestException"
    UNSUPPORTED_FOR_MESSAGE_FORMAT = 43, "UnsupportedForMessageFormatException"
    POLICY_VIOLATION = 44, "PolicyViolationException"
    OUT_OF_ORDER_SEQUENCE_NUMBER = 45, "OutOfOrderSequenceException"
    DUPLICATE_SEQUENCE_NUMBER = 46, "DuplicateSequenceException"
    INVALID_PRODUCER_EPOCH = 47, "InvalidProducerEpochException"
    INVALID_TXN_STATE = 48, "InvalidTxnStateException"
    INVALID_PRODUCER_ID_MAPPING = 49, "InvalidPidMappingException"
    INVALID_TRANSACTION_TIMEOUT = 50, "InvalidTxnTimeoutException"
    CONCURRENT_TRANSACTIONS = 51, "ConcurrentTransactionsException"
    TRANSACTION_COORDINATOR_FENCED = 52, "TransactionCoordinatorFencedException"
    TRANSACTIONAL_ID_AUTHORIZATION_FAILED = 53, "TransactionalIdAuthorizationException"
    SECURITY_DISABLED = 54, "SecurityDisabledException"
    OPERATION_NOT_ATTEMPTED = 55, "OperationNotAttemptedException"
    KAFKA_STORAGE_ERROR = 56, "KafkaStorageException"
    LOG_DIR_NOT_FOUND = 57, "LogDirNotFoundException"
    SASL_AUTHENTICATION_FAILED = 58, "SaslAuthenticationException"
    UNKNOWN_PRODUCER_ID = 59, "UnknownProducerIdException"
    REASSIGNMENT_IN_PROGRESS = 60, "ReassignmentInProgressException"
    DELEGATION_TOKEN_AUTH_DISABLED = 61, "DelegationTokenDisabledException"
    DELEGATION_TOKEN_NOT_FOUND = 62, "DelegationTokenNotFoundException"
    DELEGATION_TOKEN_OWNER_MISMATCH = 63, "DelegationTokenOwnerMismatchException"
    DELEGATION_TOKEN_REQUEST_NOT_ALLOWED = 64, "UnsupportedByAuthenticationException"
    DELEGATION_TOKEN_AUTHORIZATION_FAILED = 65, "DelegationTokenAuthorizationException"
    DELEGATION_TOKEN_EXPIRED = 66, "DelegationTokenExpiredException"
    INVALID_PRINCIPAL_TYPE = 67, "InvalidPrincipalTypeException"
    NON_EMPTY_GROUP = 68, "GroupNotEmptyException"
    GROUP_ID_NOT_FOUND = 69, "GroupIdNotFoundException"
    FETCH_SESSION_ID_NOT_FOUND = 70, "FetchSessionIdNotFoundException"
    INVALID_FETCH_SESSION_EPOCH = 71, "InvalidFetchSessionEpochException"
    LISTENER_NOT_FOUND = 72, "ListenerNotFoundException"
    TOPIC_DELETION_DISABLED = 73, "TopicDeletionDisabledException"
    FENCED_LEADER_EPOCH = 74, "FencedLeaderEpochException"
    UNKNOWN_LEADER_EPOCH = 75, "UnknownLeaderEpochException"
    UNSUPPORTED_COMPRESSION_TYPE = 76, "UnsupportedCompressionTypeException"
    STALE_BROKER_EPOCH = 77, "StaleBrokerEpochException"
    OFFSET_NOT_AVAILABLE = 78, "OffsetNotAvailableException"
    MEMBER_ID_REQUIRED = 79, "MemberIdRequiredException"
    PREFERRED_LEADER_NOT_AVAILABLE = 80, "PreferredLeaderNotAvailableException"
    GROUP_MAX_SIZE_REACHED = 81, "GroupMaxSizeReachedException"
    FENCED_INSTANCE_ID = 82, "FencedInstanceIdException"
    ELIGIBLE_LEADERS_NOT_AVAILABLE = 83, "EligibleLeadersNotAvailableException"
    ELECTION_NOT_NEEDED = 84, "ElectionNotNeededException"
    NO_REASSIGNMENT_IN_PROGRESS = 85, "NoReassignmentInProgressException"
    GROUP_SUBSCRIBED_TO_TOPIC = 86, "GroupSubscribedToTopicException"
    INVALID_RECORD = 87, "InvalidRecordException"
    UNSTABLE_OFFSET_COMMIT = 88, "UnstableOffsetCommitException"
    THROTTLING_QUOTA_EXCEEDED = 89, "ThrottlingQuotaExceededException"
    PRODUCER_FENCED = 90, "ProducerFencedException"
    RESOURCE_NOT_FOUND = 91, "ResourceNotFoundException"
    DUPLICATE_RESOURCE = 92, "DuplicateResourceException"
    UNACCEPTABLE_CREDENTIAL = 93, "UnacceptableCredentialException"
    INCONSISTENT_VOTER_SET = 94, "InconsistentVoterSetException"
    INVALID_UPDATE_VERSION = 95, "InvalidUpdateVersionException"
    FEATURE_UPDATE_FAILED = 96, "FeatureUpdateFailedException"
    PRINCIPAL_DESERIALIZATION_FAILURE = 97, "PrincipalDeserializationException"
    SNAPSHOT_NOT_FOUND = 98, "SnapshotNotFoundException"
    POSITION_OUT_OF_RANGE = 99, "PositionOutOfRangeException"
    UNKNOWN_TOPIC_ID = 100, "UnknownTopicIdException"
    DUPLICATE_BROKER_REGISTRATION = 101, "DuplicateBrokerRegistrationException"
    BROKER_ID_NOT_REGISTERED = 102, "BrokerIdNotRegisteredException"
    INCONSISTENT_TOPIC_ID = 103, "InconsistentTopicIdException"
    INCONSISTENT_CLUSTER_ID = 104, "InconsistentClusterIdException"
    TRANSACTIONAL_ID_NOT_FOUND = 105, "TransactionalIdNotFoundException"
    FETCH_SESSION_TOPIC_ID_ERROR = 106, "FetchSessionTopicIdException"
    INELIGIBLE_REPLICA = 107, "IneligibleReplicaException"
    NEW_LEADER_ELECTED = 108, "NewLeaderElectedException"
    OFFSET_MOVED_TO_TIERED_STORAGE = 109, "OffsetMovedToTieredStorageException"
    FENCED_MEMBER_EPOCH = 110, "FencedMemberEpochException"
    UNRELEASED_INSTANCE_ID = 111, "UnreleasedInstanceIdException"
    UNSUPPORTED_ASSIGNOR = 112, "UnsupportedAssignorException"
    STALE_MEMBER_EPOCH = 113, "StaleMemberEpochException"
    MISMATCHED_ENDPOINT_TYPE = 114, "MismatchedEndpointTypeException"
    UNSUPPORTED_ENDPOINT_TYPE = 115, "UnsupportedEndpointTypeException"
    UNKNOWN_CONTROLLER_ID = 116, "UnknownControllerIdException"
    UNKNOWN_SUBSCRIPTION_ID = 117, "UnknownSubscriptionIdException"
    TELEMETRY_TOO_LARGE = 118, "TelemetryTooLargeException"
    INVALID_REGISTRATION = 119, "InvalidRegistrationException"
    TRANSACTION_ABORTABLE = 120, "TransactionAbortableException"
    INVALID_RECORD_STATE = 121, "InvalidRecordStateException"
    SHARE_SESSION_NOT_FOUND = 122, "ShareSessionNotFoundException"
    INVALID_SHARE_SESSION_EPOCH = 123, "InvalidShareSessionEpochException"
    FENCED_STATE_EPOCH = 124, "FencedStateEpochException"
    INVALID_VOTER_KEY = 125, "InvalidVoterKeyException"
    DUPLICATE_VOTER = 126, "DuplicateVoterException"
    VOTER_NOT_FOUND = 127, "VoterNotFoundException"



_BY_EXCEPTION_NAME = {e.exception_name: e for e in Errors if e.exception_name}
# The port raises Kafka 1.0.2's exception classes; where 3.9 renamed a class, the 1.0.2 name keeps its code.
_BY_EXCEPTION_NAME.update({
    "NotLeaderForPartitionException": Errors.NOT_LEADER_OR_FOLLOWER,
    "ProducerFencedException": Errors.INVALID_PRODUCER_EPOCH,
    "StaleControllerEpochException": Errors.STALE_CONTROLLER_EPOCH,
    "RequestTimedOutException": Errors.REQUEST_TIMED_OUT,
})
# 1.0.2's InvalidRecordException was a CorruptRecordException without a code of its own; 3.9's class of that name
# (kafka_edu.v3_9.clients.common.invalid_record_exception) is INVALID_RECORD.
_ERRORS_1_0_2 = "kafka_edu.v1_0_2.clients.common.errors"
_BY_1_0_2_CLASS_NAME = {"InvalidRecordException": Errors.CORRUPT_MESSAGE}
