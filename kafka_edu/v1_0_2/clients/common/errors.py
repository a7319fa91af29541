"""Kafka's exception classes that the port raises, named as in Kafka so traces and messages match.

Ports classes from core/src/main/scala/kafka/common/ and clients' org.apache.kafka.common.errors (Kafka 1.0.2).
"""

from __future__ import annotations


class KafkaException(RuntimeError):
    """kafka.common.KafkaException / org.apache.kafka.common.KafkaException."""


class IllegalStateException(RuntimeError):
    """java.lang.IllegalStateException."""


class IllegalArgumentException(ValueError):
    """java.lang.IllegalArgumentException."""


class InconsistentBrokerIdException(KafkaException):
    pass


class LogCleaningAbortedException(RuntimeError):
    """kafka.common.LogCleaningAbortedException: the cleaning of a log was aborted (truncation, deletion)."""


class ThreadShutdownException(RuntimeError):
    """kafka.common.ThreadShutdownException: a cleaner thread noticed its shutdown in the middle of a clean."""


class GenerateBrokerIdException(KafkaException):
    pass


class ZkException(KafkaException):
    """org.I0Itec.zkclient.exception.ZkException: ZooKeeper could not be used."""


class ZkTimeoutException(ZkException):
    """org.I0Itec.zkclient.exception.ZkTimeoutException: no session within the connection timeout."""


class ZkNodeExistsException(ZkException):
    pass


class ZkNoNodeException(ZkException):
    pass


class AdminCommandFailedException(KafkaException):
    """kafka.common.AdminCommandFailedException: an admin tool (kafka-reassign-partitions.sh, ...) gave up."""


class AdminOperationException(KafkaException):
    """kafka.admin.AdminOperationException: an admin operation's input or znode could not be used."""


# --- org.apache.kafka.common.errors: the exceptions a response carries as an error code (Kafka 1.0.2). ---
# The protocol layer maps an exception to its code by the exact class name, so each name is Kafka's.


class ApiException(KafkaException):
    """org.apache.kafka.common.errors.ApiException: an error the broker reports to the client in a response."""


class RetriableException(ApiException):
    """A transient error: the client may retry the same request."""


class InvalidMetadataException(RetriableException):
    """The client's metadata is stale; it refreshes it before retrying."""


class AuthorizationException(ApiException):
    pass


class CoordinatorLoadInProgressException(RetriableException):
    """The coordinator is not ready yet (still loading, or, on KRaft, waiting for producer ids): retry shortly."""


class CorruptRecordException(RetriableException):
    """A batch failed its size or CRC check (CORRUPT_MESSAGE)."""


class InvalidRecordException(CorruptRecordException):
    """A batch is malformed; in 1.0.2 a subclass of CorruptRecordException, so recovery catches both."""


class KafkaStorageException(InvalidMetadataException):
    """A disk operation failed; the broker takes the log directory offline (KAFKA_STORAGE_ERROR)."""


class OffsetOutOfRangeException(RetriableException):
    """A fetch asked for an offset outside [log start offset, log end offset] (OFFSET_OUT_OF_RANGE)."""


class RecordTooLargeException(ApiException):
    """A batch is larger than max.message.bytes (MESSAGE_TOO_LARGE)."""


class RecordBatchTooLargeException(ApiException):
    """The appended batches are larger than segment.bytes (RECORD_LIST_TOO_LARGE)."""


class InvalidTimestampException(ApiException):
    """A record timestamp is out of range or a producer set LogAppendTime (INVALID_TIMESTAMP)."""


class OutOfOrderSequenceException(ApiException):
    """An idempotent producer's sequence number has a gap (OUT_OF_ORDER_SEQUENCE_NUMBER)."""


class DuplicateSequenceException(ApiException):
    """DUPLICATE_SEQUENCE_NUMBER; 1.0.2 answers a duplicate with the original offsets instead of this."""


class UnknownProducerIdException(OutOfOrderSequenceException):
    """The broker has no state for this producer id and the batch does not start at sequence 0 (UNKNOWN_PRODUCER_ID)."""


class ProducerFencedException(ApiException):
    """A batch carries an older producer epoch than the broker has seen (INVALID_PRODUCER_EPOCH in 1.0.2)."""


class InvalidProducerEpochException(ApiException):
    pass


class InvalidTxnStateException(ApiException):
    """A non-transactional write while the producer has a transaction open (INVALID_TXN_STATE)."""


class TransactionCoordinatorFencedException(ApiException):
    """A transaction marker from a coordinator with an older epoch (TRANSACTION_COORDINATOR_FENCED)."""


class UnsupportedForMessageFormatException(ApiException):
    """The request needs a message format the partition does not use (UNSUPPORTED_FOR_MESSAGE_FORMAT)."""


class UnsupportedCompressionTypeException(ApiException):
    """A batch uses a compression codec the broker cannot read (UNSUPPORTED_COMPRESSION_TYPE)."""


class NotLeaderForPartitionException(InvalidMetadataException):
    """This broker is not the leader of the partition (NOT_LEADER_FOR_PARTITION, code 6)."""


class UnknownTopicOrPartitionException(InvalidMetadataException):
    pass


class LeaderNotAvailableException(InvalidMetadataException):
    pass


class InvalidTopicException(ApiException):
    pass


class InvalidRequiredAcksException(ApiException):
    pass


class NotEnoughReplicasException(RetriableException):
    pass


class NotEnoughReplicasAfterAppendException(RetriableException):
    pass


class InvalidPartitionsException(ApiException):
    pass


class InvalidReplicaAssignmentException(ApiException):
    """A manual replica assignment that cannot be applied (INVALID_REPLICA_ASSIGNMENT)."""


class InvalidReplicationFactorException(ApiException):
    pass


class TopicExistsException(ApiException):
    pass


class PolicyViolationException(ApiException):
    pass


class InvalidRequestException(ApiException):
    pass


class UnsupportedVersionException(ApiException):
    pass


class TimeoutException(RetriableException):
    """org.apache.kafka.common.errors.TimeoutException: the class 1.0.2 maps to REQUEST_TIMED_OUT (code 7)."""


class RequestTimedOutException(RetriableException):
    """kafka.common.RequestTimedOutException (REQUEST_TIMED_OUT)."""


class NotControllerException(RetriableException):
    pass


class ControllerMovedException(ApiException):
    """The class 1.0.2 maps to STALE_CONTROLLER_EPOCH (code 11)."""


class StaleControllerEpochException(ApiException):
    """kafka.common.StaleControllerEpochException (STALE_CONTROLLER_EPOCH)."""


class CoordinatorNotAvailableException(RetriableException):
    pass


class NotCoordinatorException(RetriableException):
    pass


class ClusterAuthorizationException(AuthorizationException):
    pass


class TopicAuthorizationException(AuthorizationException):
    pass


class GroupAuthorizationException(AuthorizationException):
    pass


class TransactionalIdAuthorizationException(AuthorizationException):
    pass


class SecurityDisabledException(ApiException):
    """No authorizer is configured, so the ACL APIs have nothing to act on (SECURITY_DISABLED)."""


class AuthenticationException(ApiException):
    """A client could not be authenticated; the broker closes its connection."""


class SaslAuthenticationException(AuthenticationException):
    """SASL credentials were refused; the message may be sent to the client (SASL_AUTHENTICATION_FAILED)."""


class IllegalSaslStateException(AuthenticationException):
    """A request that does not fit the SASL exchange's current state (ILLEGAL_SASL_STATE)."""


class UnsupportedSaslMechanismException(AuthenticationException):
    """The client asked for a mechanism the listener has not enabled (UNSUPPORTED_SASL_MECHANISM)."""


class SaslException(IOError):
    """javax.security.sasl.SaslException: a SASL server could not evaluate a token."""


class InvalidConfigurationException(ApiException):
    pass


class ReplicaNotAvailableException(ApiException):
    pass


class BrokerNotAvailableException(ApiException):
    pass


class UnknownServerException(ApiException):
    pass


class ReassignmentInProgressException(ApiException):
    """Partitions cannot be added while a reassignment is pending (REASSIGNMENT_IN_PROGRESS)."""


class LogDirNotFoundException(ApiException):
    """A log directory that is not in the broker's `log.dirs` (LOG_DIR_NOT_FOUND)."""


# --- kafka.common (core): log-layer errors with no error code of their own (UNKNOWN_SERVER_ERROR on the wire). ---


class InvalidOffsetException(KafkaException):
    """An index was asked to hold an offset it cannot (kafka.common.InvalidOffsetException)."""


class OffsetsOutOfOrderException(KafkaException):
    """A follower append whose offsets do not increase."""


class UnexpectedAppendOffsetException(KafkaException):
    """A follower append that starts below the log end offset; it carries the append's first and last offsets."""

    def __init__(self, message: str, first_offset: int = -1, last_offset: int = -1) -> None:
        super().__init__(message)
        self.first_offset = first_offset
        self.last_offset = last_offset


class StateChangeFailedException(KafkaException):
    """kafka.common.StateChangeFailedException: a controller state change that could not be made."""


class NoReplicaOnlineException(KafkaException):
    """kafka.common.NoReplicaOnlineException: no replica of a partition can become its leader."""


class LeaderElectionNotNeededException(KafkaException):
    """kafka.common.LeaderElectionNotNeededException: the partition is already led as the selector would choose."""


# --- java.util.concurrent, as Kafka 3.9's KafkaEventQueue uses it. ---


class RejectedExecutionException(RuntimeError):
    """java.util.concurrent.RejectedExecutionException: an event queue that is shutting down refuses the event."""
