"""The one table of what the port can emit: every span name, its Kafka origin, and the FIDELITY row it is.

`STEPS` maps a FIDELITY.md row to the span (or event) it becomes; `SYMBOLS` lists every other Kafka symbol the port
opens a span for; `EVENTS` every span event. Ported code names only a row id or a symbol; `step`, `span` and `event`
refuse a name that is not here, and `tests/unit/test_tracing_table.py` checks the code and FIDELITY.md against it.
"""

from __future__ import annotations

from dataclasses import dataclass

KAFKA_1_0_2 = "1.0.2"
KAFKA_1_1_0 = "1.1.0"
KAFKA_3_9 = "3.9"

_SERVER = "core/src/main/scala/kafka/server/"
_GC = "group-coordinator/src/main/java/org/apache/kafka/coordinator/group/"
_GC_CORE = "core/src/main/scala/kafka/coordinator/group/"
_KAFKA = "core/src/main/scala/kafka/Kafka.scala"
_KAFKA_SERVER = _SERVER + "KafkaServer.scala"
_BROKER_STATES = _SERVER + "BrokerStates.scala"
_SCHEDULER = "core/src/main/scala/kafka/utils/KafkaScheduler.scala"
_ZK_UTILS = "core/src/main/scala/kafka/utils/ZkUtils.scala"
_LOG_MANAGER = "core/src/main/scala/kafka/log/LogManager.scala"
_LOG_CLEANER = "core/src/main/scala/kafka/log/LogCleaner.scala"
_LOG_CLEANER_MANAGER = "core/src/main/scala/kafka/log/LogCleanerManager.scala"
_SOCKET_SERVER = "core/src/main/scala/kafka/network/SocketServer.scala"
_REQUEST_CHANNEL = "core/src/main/scala/kafka/network/RequestChannel.scala"
_KAFKA_APIS = _SERVER + "KafkaApis.scala"
_REPLICA_MANAGER = _SERVER + "ReplicaManager.scala"
_REQUEST_HANDLER = _SERVER + "KafkaRequestHandler.scala"
_HEALTHCHECK = _SERVER + "KafkaHealthcheck.scala"
_FETCHER = _SERVER + "AbstractFetcherThread.scala"
_REPLICA_FETCHER = _SERVER + "ReplicaFetcherThread.scala"
_PARTITION = "core/src/main/scala/kafka/cluster/Partition.scala"
_TXN_COORDINATOR = "core/src/main/scala/kafka/coordinator/transaction/TransactionCoordinator.scala"
_TXN_STATE_MANAGER = "core/src/main/scala/kafka/coordinator/transaction/TransactionStateManager.scala"
_TXN_MARKER_CHANNEL = "core/src/main/scala/kafka/coordinator/transaction/TransactionMarkerChannelManager.scala"
_TXN_METADATA = "core/src/main/scala/kafka/coordinator/transaction/TransactionMetadata.scala"
_GROUP_COORDINATOR = "core/src/main/scala/kafka/coordinator/group/GroupCoordinator.scala"
_GROUP_METADATA = "core/src/main/scala/kafka/coordinator/group/GroupMetadata.scala"
_GROUP_METADATA_MANAGER = "core/src/main/scala/kafka/coordinator/group/GroupMetadataManager.scala"
_CONTROLLER = "core/src/main/scala/kafka/controller/KafkaController.scala"
_CONTROLLER_EVENT_MANAGER = "core/src/main/scala/kafka/controller/ControllerEventManager.scala"
_CHANNEL_MANAGER = "core/src/main/scala/kafka/controller/ControllerChannelManager.scala"
_TOPIC_DELETION = "core/src/main/scala/kafka/controller/TopicDeletionManager.scala"
_PSM = "core/src/main/scala/kafka/controller/PartitionStateMachine.scala"
_RSM = "core/src/main/scala/kafka/controller/ReplicaStateMachine.scala"
_SELECTOR = "core/src/main/scala/kafka/controller/PartitionLeaderSelector.scala"
_SASL_AUTHENTICATOR = ("clients/src/main/java/org/apache/kafka/common/security/authenticator/"
                       "SaslServerAuthenticator.java")
_SASL_AUTHENTICATOR_PORT = ("kafka_edu.v1_0_2.clients.common.security.authenticator.sasl_server_authenticator:"
                            "SaslServerAuthenticator.")
_ACL_AUTHORIZER = "core/src/main/scala/kafka/security/auth/SimpleAclAuthorizer.scala"
_ACL_AUTHORIZER_PORT = "kafka_edu.v1_0_2.core.security.auth.simple_acl_authorizer:"
# Kafka 3.9 (KRaft)
_RAFT = "raft/src/main/java/org/apache/kafka/raft/"
_RAFT_CLIENT = _RAFT + "KafkaRaftClient.java"
_QUORUM_CONTROLLER = "metadata/src/main/java/org/apache/kafka/controller/QuorumController.java"
_REPLICATION_CONTROL = "metadata/src/main/java/org/apache/kafka/controller/ReplicationControlManager.java"
_EVENT_QUEUE = "server-common/src/main/java/org/apache/kafka/queue/KafkaEventQueue.java"
_UNIFIED_LOG = "core/src/main/scala/kafka/log/UnifiedLog.scala"
_LOG_VALIDATOR = "storage/src/main/java/org/apache/kafka/storage/internals/log/LogValidator.java"
_PRODUCER_ID_MANAGER = "core/src/main/scala/kafka/coordinator/transaction/ProducerIdManager.scala"
_PRODUCER_ID_CONTROL = "metadata/src/main/java/org/apache/kafka/controller/ProducerIdControlManager.java"
_ADD_PARTITIONS_MANAGER = _SERVER + "AddPartitionsToTxnManager.scala"
_FORMATTER = "metadata/src/main/java/org/apache/kafka/metadata/storage/Formatter.java"


@dataclass(frozen=True)
class Step:
    """One FIDELITY row: the span it becomes and where its original lives.

    A row whose span name is a family (`KafkaController.register*Listener`, `<Selector>.selectLeader`) is emitted as
    each member's own name; the members are in SYMBOLS with this row as their `step`.
    """

    span_name: str
    origin_file: str
    version: str = KAFKA_1_0_2
    event: str | None = None  # the span event this row is, for rows marked *event* in FIDELITY.md

    @property
    def origin_symbol(self) -> str:
        return self.span_name.split("#", 1)[0]

    @property
    def is_family(self) -> bool:
        return "*" in self.span_name or self.span_name.startswith("<")


@dataclass(frozen=True)
class Symbol:
    """A span name: the Kafka symbol it is named after, and the FIDELITY row it always is (None: none, or one that
    depends on the call, as `BrokerState.newState` is LC.startup.02 or LC.shutdown.20 by its target state)."""

    name: str
    origin_file: str
    version: str = KAFKA_1_0_2
    step: str | None = None
    # For a symbol that is no step: the port's method (`module:Class.method`) that instrument.py wraps in its span,
    # so that the ported module carries no marker for it; `root` starts a trace of its own.
    port: str | None = None
    root: bool = False

    @property
    def origin_symbol(self) -> str:
        return self.name.split("#", 1)[0]


STEPS: dict[str, Step] = {
    # kafka.Kafka.main
    "LC.main.1": Step("Kafka.getPropsFromArgs", _KAFKA),
    "LC.main.2": Step("KafkaServerStartable.fromProps", _SERVER + "KafkaServerStartable.scala"),
    "LC.main.3": Step("Kafka.main#shutdownHook", _KAFKA, event="shutdown.hook.registered"),
    "LC.main.4": Step("KafkaServer.startup", _KAFKA_SERVER),
    "LC.main.5": Step("KafkaServer.awaitShutdown", _KAFKA_SERVER),
    # KafkaServer.startup
    "LC.startup.01": Step("KafkaServer.startup#guard", _KAFKA_SERVER),
    "LC.startup.02": Step("BrokerState.newState", _BROKER_STATES),
    "LC.startup.03": Step("KafkaScheduler.startup", _SCHEDULER),
    "LC.startup.04": Step("KafkaServer.initZk", _KAFKA_SERVER),
    "LC.startup.05": Step("KafkaServer.getOrGenerateClusterId", _KAFKA_SERVER),
    "LC.startup.06": Step("KafkaServer.getBrokerIdAndOfflineDirs", _KAFKA_SERVER),
    "LC.startup.07": Step("KafkaServer.startup#metrics", _KAFKA_SERVER),
    "LC.startup.08": Step("LogManager.startup", _LOG_MANAGER),
    "LC.startup.09": Step("MetadataCache.<init>", _SERVER + "MetadataCache.scala"),
    "LC.startup.10": Step("SocketServer.startup", _SOCKET_SERVER),
    "LC.startup.11": Step("ReplicaManager.startup", _REPLICA_MANAGER),
    "LC.startup.12": Step("KafkaController.startup", _CONTROLLER),
    "LC.startup.13": Step("AdminManager.<init>", _SERVER + "AdminManager.scala"),
    "LC.startup.14": Step("GroupCoordinator.startup", _GROUP_COORDINATOR),
    "LC.startup.15": Step("TransactionCoordinator.startup", _TXN_COORDINATOR),
    "LC.startup.16": Step("KafkaServer.startup#authorizer", _KAFKA_SERVER),
    "LC.startup.17": Step("KafkaApis.<init>", _KAFKA_APIS),
    "LC.startup.18": Step("KafkaRequestHandlerPool.<init>", _REQUEST_HANDLER),
    "LC.startup.19": Step("DynamicConfigManager.startup", _SERVER + "DynamicConfigManager.scala"),
    "LC.startup.20": Step("KafkaHealthcheck.startup", _HEALTHCHECK),
    "LC.startup.21": Step("KafkaServer.checkpointBrokerId", _KAFKA_SERVER),
    "LC.startup.22": Step("SocketServer.startProcessors", _SOCKET_SERVER),
    "LC.startup.23": Step("BrokerState.newState", _BROKER_STATES),
    "LC.startup.24": Step("KafkaServer.startup#complete", _KAFKA_SERVER),
    # KafkaServer.shutdown, numbered in 1.0.2 order (steps of components not built yet are absent)
    "LC.startup.err": Step("KafkaServer.startup", _KAFKA_SERVER, event="startup.fatal"),
    "LC.shutdown.01": Step("KafkaServer.shutdown#guard", _KAFKA_SERVER),
    "LC.shutdown.02": Step("KafkaServer.controlledShutdown", _KAFKA_SERVER),
    "LC.shutdown.03": Step("BrokerState.newState", _BROKER_STATES),
    "LC.shutdown.04": Step("KafkaHealthcheck.shutdown", _HEALTHCHECK),
    "LC.shutdown.05": Step("SocketServer.stopProcessingRequests", _SOCKET_SERVER),
    "LC.shutdown.06": Step("KafkaRequestHandlerPool.shutdown", _REQUEST_HANDLER),
    "LC.shutdown.07": Step("KafkaScheduler.shutdown", _SCHEDULER),
    "LC.shutdown.08": Step("KafkaApis.close", _KAFKA_APIS),
    "LC.shutdown.09": Step("Authorizer.close", _KAFKA_SERVER),
    "LC.shutdown.10": Step("AdminManager.shutdown", _SERVER + "AdminManager.scala"),
    "LC.shutdown.11": Step("TransactionCoordinator.shutdown", _TXN_COORDINATOR),
    "LC.shutdown.12": Step("GroupCoordinator.shutdown", _GROUP_COORDINATOR),
    "LC.shutdown.13": Step("ReplicaManager.shutdown", _REPLICA_MANAGER),
    "LC.shutdown.14": Step("LogManager.shutdown", _LOG_MANAGER),
    "LC.shutdown.15": Step("KafkaController.shutdown", _CONTROLLER),
    "LC.shutdown.16": Step("ZkUtils.close", _ZK_UTILS),
    "LC.shutdown.18": Step("SocketServer.shutdown", _SOCKET_SERVER),
    "LC.shutdown.19": Step("KafkaServer.shutdown#metrics", _KAFKA_SERVER),
    "LC.shutdown.20": Step("BrokerState.newState", _BROKER_STATES),
    "LC.shutdown.21": Step("KafkaServer.shutdown#complete", _KAFKA_SERVER),
    # The request path (FIDELITY NW)
    "NW.acceptor.1": Step("Acceptor.accept", _SOCKET_SERVER),
    "NW.acceptor.2": Step("Acceptor.accept", _SOCKET_SERVER, event="connection.rejected"),
    "NW.processor.1": Step("Processor.configureNewConnections", _SOCKET_SERVER),
    "NW.processor.2": Step("Processor.processNewResponses", _SOCKET_SERVER),
    "NW.processor.3": Step("Processor.poll", _SOCKET_SERVER),
    "NW.processor.4": Step("Processor.processCompletedReceives", _SOCKET_SERVER),
    "NW.processor.5": Step("Processor.processCompletedSends", _SOCKET_SERVER),
    "NW.processor.6": Step("Processor.processDisconnected", _SOCKET_SERVER),
    "NW.handler.1": Step("KafkaRequestHandler.run", _REQUEST_HANDLER),
    "NW.apis.1": Step("KafkaApis.handle", _KAFKA_APIS),
    "NW.apis.produce": Step("KafkaApis.handleProduceRequest", _KAFKA_APIS),
    "NW.rm.append": Step("ReplicaManager.appendRecords", _REPLICA_MANAGER),
    "NW.log.append": Step("Log.append", "core/src/main/scala/kafka/log/Log.scala"),
    "NW.channel.resp": Step("RequestChannel.sendResponse", _REQUEST_CHANNEL),
    # The ZooKeeper controller (FIDELITY CT): election, failover, resignation, broker and topic changes
    "CT.startup.1": Step("KafkaController.startup", _CONTROLLER),
    "CT.event": Step("ControllerEventManager.process", _CONTROLLER_EVENT_MANAGER),
    "CT.startup.2": Step("KafkaController.Startup.process", _CONTROLLER),
    "CT.change": Step("KafkaController.ControllerChange.process", _CONTROLLER),
    "CT.reelect": Step("KafkaController.Reelect.process", _CONTROLLER),
    "CT.elect": Step("KafkaController.elect", _CONTROLLER),
    "CT.failover.01": Step("KafkaController.readControllerEpochFromZookeeper", _CONTROLLER),
    "CT.failover.02": Step("KafkaController.incrementControllerEpoch", _CONTROLLER),
    "CT.failover.03": Step("LogDirUtils.deleteLogDirEvents", "core/src/main/scala/kafka/utils/LogDirUtils.scala"),
    # One span per listener, named after its method (SYMBOLS below).
    "CT.failover.04": Step("KafkaController.register*Listener", _CONTROLLER),
    "CT.failover.05": Step("KafkaController.initializeControllerContext", _CONTROLLER),
    "CT.failover.06": Step("TopicDeletionManager.init", _TOPIC_DELETION),
    "CT.failover.07": Step("KafkaController.sendUpdateMetadataRequest", _CONTROLLER),
    "CT.failover.08": Step("ReplicaStateMachine.startup", _RSM),
    "CT.failover.09": Step("PartitionStateMachine.startup", _PSM),
    "CT.failover.10": Step("KafkaController.registerPartitionModificationsListener", _CONTROLLER),
    "CT.failover.11": Step("KafkaController.maybeTriggerPartitionReassignment", _CONTROLLER),
    "CT.failover.12": Step("TopicDeletionManager.tryTopicDeletion", _TOPIC_DELETION),
    "CT.failover.13": Step("KafkaController.onPreferredReplicaElection", _CONTROLLER),
    "CT.failover.14": Step("KafkaScheduler.startup", _SCHEDULER),
    "CT.resign": Step("KafkaController.onControllerResignation", _CONTROLLER),
    "CT.broker": Step("KafkaController.BrokerChange.process", _CONTROLLER),
    "CT.topic": Step("KafkaController.TopicChange.process", _CONTROLLER),
    "CT.shutdown": Step("KafkaController.ControlledShutdown.process", _CONTROLLER),
    # Two spans: ControllerChannelManager.sendRequest (queued) and RequestSendThread.doWork (sent, in SYMBOLS).
    "CT.channel": Step("ControllerChannelManager.sendRequest", _CHANNEL_MANAGER),
    # One span per selector class (SYMBOLS below).
    "CT.select": Step("<Selector>.selectLeader", _SELECTOR),
    "CT.psm": Step("PartitionStateMachine.handleStateChange", _PSM, event="partition.state.change"),
    "CT.rsm": Step("ReplicaStateMachine.handleStateChange", _RSM, event="replica.state.change"),
    "CT.fence": Step("ReplicaManager.becomeLeaderOrFollower", _REPLICA_MANAGER, event="controller.epoch.stale"),
    # Leader epochs (FIDELITY LE, KIP-101)
    "LE.assign": Step("LeaderEpochFileCache.assign", _SERVER + "epoch/LeaderEpochFileCache.scala"),
    "LE.request": Step("AbstractFetcherThread.maybeTruncate", _FETCHER),
    "LE.apis": Step("KafkaApis.handleOffsetForLeaderEpochRequest", _KAFKA_APIS),
    "LE.truncate": Step("ReplicaFetcherThread.maybeTruncate", _REPLICA_FETCHER),
    # Transactions (FIDELITY TX, KIP-98): the coordinator's side, then the partition leaders' (TX.write)
    "TX.init": Step("TransactionCoordinator.handleInitProducerId", _TXN_COORDINATOR),
    "TX.add": Step("TransactionCoordinator.handleAddPartitionsToTransaction", _TXN_COORDINATOR),
    "TX.offsets": Step("GroupCoordinator.handleTxnCommitOffsets", _GROUP_COORDINATOR),
    "TX.end": Step("TransactionCoordinator.handleEndTransaction", _TXN_COORDINATOR),
    "TX.markers": Step("TransactionMarkerChannelManager.addTxnMarkersToSend", _TXN_MARKER_CHANNEL),
    # Transactions (FIDELITY TX, KIP-98): the partition leaders' side
    "TX.write": Step("KafkaApis.handleWriteTxnMarkersRequest", _KAFKA_APIS),
    # the write of CompleteCommit/CompleteAbort (appendTransactionToLog's other writes get no span)
    "TX.complete": Step("TransactionStateManager.appendTransactionToLog", _TXN_STATE_MANAGER),
    "TX.expire": Step("TransactionCoordinator.abortTimedOutTransactions", _TXN_COORDINATOR),
    "TX.state": Step("TransactionMetadata.completeTransitionTo", _TXN_METADATA, event="txn.state.change"),
    # The log cleaner (FIDELITY CL): one trace per pass that does work, rooted at CL.work. Both ports carry these
    # rows (a 3.9 span says so in kafka.origin.version); CL.swap's row names 3.9's UnifiedLog, the 1.0.2 port's span
    # is Log.replaceSegments (SYMBOLS below).
    "CL.startup": Step("LogCleaner.startup", _LOG_CLEANER),
    "CL.work": Step("CleanerThread.doWork", _LOG_CLEANER),
    "CL.grab": Step("LogCleanerManager.grabFilthiestCompactedLog", _LOG_CLEANER_MANAGER),
    "CL.clean": Step("Cleaner.clean", _LOG_CLEANER),
    "CL.map": Step("Cleaner.buildOffsetMap", _LOG_CLEANER),
    "CL.group": Step("Cleaner.groupSegmentsBySize", _LOG_CLEANER),
    "CL.segments": Step("Cleaner.cleanSegments", _LOG_CLEANER),
    "CL.into": Step("Cleaner.cleanInto", _LOG_CLEANER),
    "CL.swap": Step("UnifiedLog.replaceSegments", "core/src/main/scala/kafka/log/UnifiedLog.scala", KAFKA_3_9),
    "CL.done": Step("LogCleanerManager.doneCleaning", _LOG_CLEANER_MANAGER),
    "CL.delete": Step("LogCleanerManager.deletableLogs", _LOG_CLEANER_MANAGER),
    "CL.abort": Step("LogCleanerManager.abortAndPauseCleaning", _LOG_CLEANER_MANAGER),
    # KRaft (FIDELITY KR, Kafka 3.9): storage, the servers, the Raft client, the quorum controller and its queue
    "KR.storage": Step("StorageTool.runFormatCommand", "core/src/main/scala/kafka/tools/StorageTool.scala", KAFKA_3_9),
    "KR.build": Step("Kafka.buildServer", _KAFKA, KAFKA_3_9),
    "KR.server": Step("KafkaRaftServer.startup", _SERVER + "KafkaRaftServer.scala", KAFKA_3_9),
    "KR.controller": Step("ControllerServer.startup", _SERVER + "ControllerServer.scala", KAFKA_3_9),
    "KR.shared": Step("SharedServer.start", _SERVER + "SharedServer.scala", KAFKA_3_9),
    "KR.driver": Step("KafkaRaftClientDriver.doWork", _RAFT + "KafkaRaftClientDriver.java", KAFKA_3_9),
    "KR.poll": Step("KafkaRaftClient.poll", _RAFT_CLIENT, KAFKA_3_9),
    "KR.role": Step("QuorumState.memoryTransitionTo", _RAFT + "QuorumState.java", KAFKA_3_9, event="raft.role.change"),
    "KR.vote": Step("KafkaRaftClient.handleVoteRequest", _RAFT_CLIENT, KAFKA_3_9),
    "KR.begin": Step("KafkaRaftClient.handleBeginQuorumEpochRequest", _RAFT_CLIENT, KAFKA_3_9),
    "KR.fetch": Step("KafkaRaftClient.handleFetchRequest", _RAFT_CLIENT, KAFKA_3_9),
    "KR.listener": Step("KafkaRaftClient.pollListeners", _RAFT_CLIENT, KAFKA_3_9),
    "KR.end": Step("KafkaRaftClient.handleEndQuorumEpochRequest", _RAFT_CLIENT, KAFKA_3_9),
    "KR.snapshot": Step("KafkaRaftClient.createSnapshot", _RAFT_CLIENT, KAFKA_3_9),
    "KR.apis": Step("ControllerApis.handle", _SERVER + "ControllerApis.scala", KAFKA_3_9),
    # createTopics here; the other operations are spans of this row too, named after their methods (SYMBOLS below).
    "KR.qc": Step("QuorumController.createTopics", _QUORUM_CONTROLLER, KAFKA_3_9),
    "KR.queue": Step("KafkaEventQueue.enqueue", _EVENT_QUEUE, KAFKA_3_9),
    "KR.replay": Step("QuorumController.replay", _QUORUM_CONTROLLER, KAFKA_3_9),
    "KR.broker": Step("BrokerServer.startup", _SERVER + "BrokerServer.scala", KAFKA_3_9),
    "KR.publish": Step("MetadataLoader.handleCommit",
                       "metadata/src/main/java/org/apache/kafka/image/loader/MetadataLoader.java", KAFKA_3_9),
    # The deferred "maybeFenceReplicas" write event that rescheduleMaybeFenceStaleBrokers defines, when it runs.
    "KR.fence": Step("QuorumController.rescheduleMaybeFenceStaleBrokers", _QUORUM_CONTROLLER, KAFKA_3_9),
    # Kafka 3.9's request path and storage on a KRaft broker (FIDELITY RQ). Rows that keep a 1.0.2 span name
    # (Acceptor.accept, KafkaApis.handleProduceRequest, ...) take their 3.9 origin from here (step.py).
    "RQ.net.1": Step("SocketServer.<init>", _SOCKET_SERVER, KAFKA_3_9),
    "RQ.net.2": Step("SocketServer.enableRequestProcessing", _SOCKET_SERVER, KAFKA_3_9),
    "RQ.net.3": Step("Acceptor.accept", _SOCKET_SERVER, KAFKA_3_9),
    "RQ.net.4": Step("Processor.processNewResponses", _SOCKET_SERVER, KAFKA_3_9),
    "RQ.net.5": Step("Processor.processCompletedReceives", _SOCKET_SERVER, KAFKA_3_9),
    "RQ.net.6": Step("Processor.closeExcessConnections", _SOCKET_SERVER, KAFKA_3_9),
    "RQ.net.7": Step("KafkaRequestHandler.run", _REQUEST_HANDLER, KAFKA_3_9),
    "RQ.produce.1": Step("KafkaApis.handleProduceRequest", _KAFKA_APIS, KAFKA_3_9),
    "RQ.produce.2": Step("ReplicaManager.handleProduceAppend", _REPLICA_MANAGER, KAFKA_3_9),
    "RQ.produce.3": Step("ReplicaManager.appendRecords", _REPLICA_MANAGER, KAFKA_3_9),
    "RQ.produce.4": Step("Partition.appendRecordsToLeader", _PARTITION, KAFKA_3_9),
    "RQ.produce.5": Step("UnifiedLog.append", _UNIFIED_LOG, KAFKA_3_9),
    "RQ.produce.6": Step("LogValidator.validateMessagesAndAssignOffsets", _LOG_VALIDATOR, KAFKA_3_9),
    "RQ.produce.7": Step("LocalLog.append", "core/src/main/scala/kafka/log/LocalLog.scala", KAFKA_3_9),
    "RQ.produce.8": Step("DelayedProduce.tryComplete", _SERVER + "DelayedProduce.scala", KAFKA_3_9),
    "RQ.fetch.1": Step("KafkaApis.handleFetchRequest", _KAFKA_APIS, KAFKA_3_9),
    "RQ.fetch.2": Step("FetchManager.newContext", _SERVER + "FetchSession.scala", KAFKA_3_9),
    "RQ.fetch.3": Step("ReplicaManager.fetchMessages", _REPLICA_MANAGER, KAFKA_3_9),
    "RQ.fetch.4": Step("Partition.fetchRecords", _PARTITION, KAFKA_3_9),
    "RQ.fetch.5": Step("DelayedFetch.tryComplete", _SERVER + "DelayedFetch.scala", KAFKA_3_9),
    "RQ.follower.1": Step("AbstractFetcherThread.processFetchRequest", _FETCHER, KAFKA_3_9),
    "RQ.follower.2": Step("AbstractFetcherThread.truncateOnFetchResponse", _FETCHER, KAFKA_3_9),
    "RQ.isr": Step("Partition.submitAlterPartition", _PARTITION, KAFKA_3_9),
    "RQ.load.1": Step("LogManager.loadLogs", _LOG_MANAGER, KAFKA_3_9),
    "RQ.load.2": Step("LogLoader.load", "core/src/main/scala/kafka/log/LogLoader.scala", KAFKA_3_9),
    # Kafka 3.9's group coordinator (FIDELITY GC): the service, its runtime and the shard's managers
    # (kafka_edu/v3_9/group_coordinator/), with the broker's loader and writer (kafka_edu/v3_9/core/coordinator/group/).
    # GC.load is on doLoad, the body load() schedules on the loader's thread. GC.hwm is the HighWatermarkUpdate event
    # onHighWatermarkUpdated queues (its body); GC.epoch is on the replay of the ConsumerGroupMetadata record the
    # heartbeat or fence wrote, so that it follows GC.target and GC.reconcile in the write's trace.
    "GC.build": Step("BrokerServer.createGroupCoordinator", _SERVER + "BrokerServer.scala", KAFKA_3_9),
    "GC.startup": Step("GroupCoordinatorService.startup", _GC + "GroupCoordinatorService.java", KAFKA_3_9),
    "GC.elect": Step("GroupCoordinatorService.onElection", _GC + "GroupCoordinatorService.java", KAFKA_3_9),
    "GC.load": Step("CoordinatorLoaderImpl.load", _GC_CORE + "CoordinatorLoaderImpl.scala", KAFKA_3_9),
    "GC.resign": Step("GroupCoordinatorService.onResignation", _GC + "GroupCoordinatorService.java", KAFKA_3_9),
    "GC.write": Step("CoordinatorRuntime.scheduleWriteOperation", _GC + "runtime/CoordinatorRuntime.java", KAFKA_3_9),
    "GC.hb": Step("GroupMetadataManager.consumerGroupHeartbeat", _GC + "GroupMetadataManager.java", KAFKA_3_9),
    "GC.target": Step("TargetAssignmentBuilder.build", _GC + "modern/TargetAssignmentBuilder.java", KAFKA_3_9),
    "GC.reconcile": Step("CurrentAssignmentBuilder.build", _GC + "modern/consumer/CurrentAssignmentBuilder.java",
                         KAFKA_3_9),
    "GC.fence": Step("GroupMetadataManager.consumerGroupFenceMember", _GC + "GroupMetadataManager.java", KAFKA_3_9),
    "GC.join": Step("GroupMetadataManager.classicGroupJoin", _GC + "GroupMetadataManager.java", KAFKA_3_9),
    "GC.sync": Step("GroupMetadataManager.classicGroupSync", _GC + "GroupMetadataManager.java", KAFKA_3_9),
    "GC.classic": Step("GroupMetadataManager.classicGroupHeartbeat", _GC + "GroupMetadataManager.java", KAFKA_3_9),
    "GC.commit": Step("OffsetMetadataManager.commitOffset", _GC + "OffsetMetadataManager.java", KAFKA_3_9),
    "GC.fetch": Step("OffsetMetadataManager.fetchOffsets", _GC + "OffsetMetadataManager.java", KAFKA_3_9),
    "GC.describe": Step("GroupCoordinatorService.consumerGroupDescribe", _GC + "GroupCoordinatorService.java",
                        KAFKA_3_9),
    "GC.expire": Step("GroupCoordinatorShard.cleanupGroupMetadata", _GC + "GroupCoordinatorShard.java", KAFKA_3_9),
    "GC.append": Step("CoordinatorRuntime.CoordinatorContext.append", _GC + "runtime/CoordinatorRuntime.java",
                      KAFKA_3_9),
    "GC.replay": Step("GroupCoordinatorShard.replay", _GC + "GroupCoordinatorShard.java", KAFKA_3_9),
    "GC.hwm": Step("CoordinatorRuntime.HighWatermarkListener.onHighWatermarkUpdated",
                   _GC + "runtime/CoordinatorRuntime.java", KAFKA_3_9),
    "GC.state": Step("CoordinatorRuntime.CoordinatorContext.transitionTo", _GC + "runtime/CoordinatorRuntime.java",
                     KAFKA_3_9, event="coordinator.state.change"),
    "GC.epoch": Step("GroupMetadataManager.consumerGroupHeartbeat", _GC + "GroupMetadataManager.java", KAFKA_3_9,
                     event="group.epoch.bump"),
    # Transactions on a KRaft broker (FIDELITY TX39): what 3.9 adds to the TX rows, which 3.9's own coordinator
    # (kafka_edu/v3_9/core/coordinator/transaction/) carries too. A row whose FIDELITY cell names a call chain is the
    # span of the call that does its work: TX39.verify the verification ReplicaManager.handleProduceAppend starts
    # (RQ.produce.2 is that span), TX39.pidctl the controller's write event that QuorumController.allocateProducerIds
    # queues (a KR.qc span). TX39.init shares its method with TX.init: both are on 3.9's handleInitProducerId, TX39.init
    # outside (the KIP-360 story), TX.init inside (the TX row). On 3.9's coordinator TX.end is on endTransaction, the
    # private method handleEndTransaction, the fence of handleInitProducerId and abortTimedOutTransactions all call.
    "TX39.elect": Step("BrokerMetadataPublisher.updateCoordinator", _SERVER + "metadata/BrokerMetadataPublisher.scala",
                       KAFKA_3_9),
    "TX39.init": Step("TransactionCoordinator.handleInitProducerId", _TXN_COORDINATOR, KAFKA_3_9),
    "TX39.pid": Step("RPCProducerIdManager.generateProducerId", _PRODUCER_ID_MANAGER, KAFKA_3_9),
    "TX39.pidctl": Step("ProducerIdControlManager.generateNextProducerId", _PRODUCER_ID_CONTROL, KAFKA_3_9),
    # conditional: the new group coordinator's transactional commit
    "TX39.txoffsets": Step("GroupCoordinatorService.commitTransactionalOffsets",
                           "group-coordinator/src/main/java/org/apache/kafka/coordinator/group/"
                           "GroupCoordinatorService.java", KAFKA_3_9),
    "TX39.verify": Step("ReplicaManager.maybeStartTransactionVerificationForPartitions", _REPLICA_MANAGER, KAFKA_3_9),
    "TX39.vsend": Step("AddPartitionsToTxnManager.verifyTransaction", _ADD_PARTITIONS_MANAGER, KAFKA_3_9),
    "TX39.vcheck": Step("TransactionCoordinator.handleVerifyPartitionsInTransaction", _TXN_COORDINATOR, KAFKA_3_9),
    "TX39.guard": Step("UnifiedLog.analyzeAndValidateProducerState", _UNIFIED_LOG, KAFKA_3_9),
    # inside TX.markers (addTxnMarkersToSend): the markers grouped by leader, from the KRaft metadata cache
    "TX39.markers": Step("TransactionMarkerChannelManager.addTxnMarkersToBrokerQueue", _TXN_MARKER_CHANNEL, KAFKA_3_9),
    # KIP-853 (FIDELITY KV): a membership change is one trace on the active controller, KV.add -> KV.apiv -> KV.voters
    # -> KV.commit (or KV.remove -> KV.voters -> KV.commit); the describers in kraft_voters.py tie the later steps,
    # which run in other polls, to the request's span.
    "KV.format": Step("Formatter.writeDynamicQuorumSnapshot", _FORMATTER, KAFKA_3_9),
    "KV.init": Step("KafkaRaftClient.initialize", _RAFT_CLIENT, KAFKA_3_9),
    "KV.observe": Step("KafkaRaftClient.pollFollowerAsObserver", _RAFT_CLIENT, KAFKA_3_9),
    "KV.add": Step("KafkaRaftClient.handleAddVoterRequest", _RAFT_CLIENT, KAFKA_3_9),
    "KV.apiv": Step("AddVoterHandler.handleApiVersionsResponse", _RAFT + "internals/AddVoterHandler.java", KAFKA_3_9),
    "KV.remove": Step("KafkaRaftClient.handleRemoveVoterRequest", _RAFT_CLIENT, KAFKA_3_9),
    "KV.voters": Step("KRaftControlRecordStateMachine.updateState",
                      _RAFT + "internals/KRaftControlRecordStateMachine.java", KAFKA_3_9),
    "KV.commit": Step("AddVoterHandler.highWatermarkUpdated", _RAFT + "internals/AddVoterHandler.java", KAFKA_3_9),
    "KV.update": Step("UpdateVoterHandler.handleUpdateVoterRequest", _RAFT + "internals/UpdateVoterHandler.java",
                      KAFKA_3_9),
    "KV.epoch": Step("LeaderState.appendStartOfEpochControlRecords", _RAFT + "LeaderState.java", KAFKA_3_9),
}


# Every other span name, and the members of the family rows above.
_SYMBOL_ROWS: list[Symbol] = [
    Symbol("Kafka.main", _KAFKA),
    # registering the hook; LC.main.3 is its event
    Symbol("Kafka.main#shutdownHook", _KAFKA, port="kafka_edu.v1_0_2.core.kafka:ShutdownHook.register"),
    Symbol("KafkaServer.shutdown", _KAFKA_SERVER,
           port="kafka_edu.v1_0_2.core.server.kafka_server:KafkaServer.shutdown"),
    Symbol("KafkaHealthcheck.register", _HEALTHCHECK,
           port="kafka_edu.v1_0_2.core.server.kafka_healthcheck:KafkaHealthcheck.register"),
    Symbol("KafkaHealthcheck.SessionExpireListener.handleNewSession", _HEALTHCHECK,
           port="kafka_edu.v1_0_2.core.server.kafka_healthcheck:SessionExpireListener.handle_new_session", root=True),
    Symbol("LogManager.loadLogs", _LOG_MANAGER, port="kafka_edu.v1_0_2.core.log.log_manager:LogManager.load_logs"),
    Symbol("ZkUtils.setupCommonPaths", _ZK_UTILS,
           port="kafka_edu.v1_0_2.core.utils.zk_utils:ZkUtils.setup_common_paths"),
    Symbol("ZkUtils.getBrokerSequenceId", _ZK_UTILS,
           port="kafka_edu.v1_0_2.core.utils.zk_utils:ZkUtils.get_broker_sequence_id"),
    # The request path: a request's life is its root span, from its receive to its response's send.
    Symbol("RequestChannel.Request", _REQUEST_CHANNEL),
    Symbol("Processor.sendResponse", _SOCKET_SERVER,
           port="kafka_edu.v1_0_2.core.network.socket_server:Processor.send_response"),
    Symbol("KafkaApis.handleLeaderAndIsrRequest", _KAFKA_APIS),
    Symbol("KafkaApis.handleStopReplicaRequest", _KAFKA_APIS),
    Symbol("KafkaApis.handleControlledShutdownRequest", _KAFKA_APIS),
    Symbol("KafkaApis.handleUpdateMetadataRequest", _KAFKA_APIS),
    # Replication
    Symbol("ReplicaManager.becomeLeaderOrFollower", _REPLICA_MANAGER),
    Symbol("ReplicaManager.makeLeaders", _REPLICA_MANAGER),
    Symbol("ReplicaManager.makeFollowers", _REPLICA_MANAGER,
           port="kafka_edu.v1_0_2.core.server.replica_manager:ReplicaManager.make_followers"),
    Symbol("ReplicaManager.maybePropagateIsrChanges", _REPLICA_MANAGER),
    Symbol("ReplicaManager.maybeUpdateMetadataCache", _REPLICA_MANAGER),
    Symbol("ReplicaManager.stopReplicas", _REPLICA_MANAGER),
    Symbol("Partition.maybeExpandIsr", _PARTITION),
    Symbol("Partition.maybeShrinkIsr", _PARTITION),
    Symbol("Partition.updateIsr", _PARTITION),
    Symbol("AbstractFetcherThread.processFetchRequest", _FETCHER),
    Symbol("ReplicaFetcherThread.handleOffsetOutOfRange", _REPLICA_FETCHER,
           port="kafka_edu.v1_0_2.core.server.replica_fetcher_thread:ReplicaFetcherThread.handle_offset_out_of_range"),
    # Consumer groups
    Symbol("GroupCoordinator.handleJoinGroup", _GROUP_COORDINATOR,
           port="kafka_edu.v1_0_2.core.coordinator.group.group_coordinator:GroupCoordinator.handle_join_group"),
    Symbol("GroupCoordinator.handleSyncGroup", _GROUP_COORDINATOR,
           port="kafka_edu.v1_0_2.core.coordinator.group.group_coordinator:GroupCoordinator.handle_sync_group"),
    Symbol("GroupCoordinator.handleLeaveGroup", _GROUP_COORDINATOR,
           port="kafka_edu.v1_0_2.core.coordinator.group.group_coordinator:GroupCoordinator.handle_leave_group"),
    Symbol("GroupCoordinator.handleDeleteGroups", _GROUP_COORDINATOR, KAFKA_1_1_0,
           port="kafka_edu.v1_0_2.core.coordinator.group.group_coordinator:GroupCoordinator.handle_delete_groups"),
    Symbol("GroupCoordinator.prepareRebalance", _GROUP_COORDINATOR,
           port="kafka_edu.v1_0_2.core.coordinator.group.group_coordinator:GroupCoordinator._prepare_rebalance"),
    Symbol("GroupCoordinator.onCompleteJoin", _GROUP_COORDINATOR),
    Symbol("GroupCoordinator.onExpireHeartbeat", _GROUP_COORDINATOR),
    Symbol("GroupMetadataManager.storeGroup", _GROUP_METADATA_MANAGER,
           port="kafka_edu.v1_0_2.core.coordinator.group.group_metadata_manager:GroupMetadataManager.store_group"),
    Symbol("GroupMetadataManager.storeOffsets", _GROUP_METADATA_MANAGER,
           port="kafka_edu.v1_0_2.core.coordinator.group.group_metadata_manager:GroupMetadataManager.store_offsets"),
    Symbol("GroupMetadataManager.loadGroupsForPartition", _GROUP_METADATA_MANAGER),
    Symbol("GroupMetadataManager.removeGroupsForPartition", _GROUP_METADATA_MANAGER),
    Symbol("GroupMetadataManager.cleanupGroupMetadata", _GROUP_METADATA_MANAGER),
    # Transactions: a state change is a trace of its own (TX.state's event is on it), linked to the step whose
    # write made it durable; a load of __transaction_state runs on the scheduler, in a trace of its own; each
    # WriteTxnMarkers exchange of the marker channel's thread is a span of the transaction's trace.
    Symbol("TransactionMetadata.completeTransitionTo", _TXN_METADATA,
           port="kafka_edu.v1_0_2.core.coordinator.transaction.transaction_metadata:TransactionMetadata.complete_transition_to"),
    Symbol("TransactionStateManager.loadTransactionsForTxnTopicPartition#loadTransactions", _TXN_STATE_MANAGER,
           port="kafka_edu.v1_0_2.core.coordinator.transaction.transaction_state_manager:TransactionStateManager.load_transactions",
           root=True),
    Symbol("InterBrokerSendThread.doWork#send", "core/src/main/scala/kafka/common/InterBrokerSendThread.scala",
           port="kafka_edu.v1_0_2.core.coordinator.transaction.transaction_marker_channel_manager:InterBrokerSendThread.send_request"),
    # The controller
    Symbol("KafkaController.onControllerFailover", _CONTROLLER,
           port="kafka_edu.v1_0_2.core.controller.kafka_controller:KafkaController.on_controller_failover"),
    Symbol("KafkaController.triggerControllerMove", _CONTROLLER,
           port="kafka_edu.v1_0_2.core.controller.kafka_controller:KafkaController.trigger_controller_move"),
    Symbol("KafkaController.registerPartitionReassignmentListener", _CONTROLLER, step="CT.failover.04"),
    Symbol("KafkaController.registerIsrChangeNotificationListener", _CONTROLLER, step="CT.failover.04"),
    Symbol("KafkaController.registerPreferredReplicaElectionListener", _CONTROLLER, step="CT.failover.04"),
    Symbol("KafkaController.registerTopicChangeListener", _CONTROLLER, step="CT.failover.04"),
    Symbol("KafkaController.registerTopicDeletionListener", _CONTROLLER, step="CT.failover.04"),
    Symbol("KafkaController.registerBrokerChangeListener", _CONTROLLER, step="CT.failover.04"),
    Symbol("KafkaController.registerLogDirEventNotificationListener", _CONTROLLER, step="CT.failover.04"),
    Symbol("KafkaController.onPartitionReassignment", _CONTROLLER,
           port="kafka_edu.v1_0_2.core.controller.kafka_controller:KafkaController.on_partition_reassignment"),
    Symbol("KafkaController.onPreferredReplicaElection", _CONTROLLER),  # CT.failover.13 only at failover
    Symbol("KafkaController.checkAndTriggerAutoLeaderRebalance", _CONTROLLER,
           port="kafka_edu.v1_0_2.core.controller.kafka_controller:KafkaController.check_and_trigger_auto_leader_rebalance"),
    Symbol("KafkaController.onBrokerStartup", _CONTROLLER,
           port="kafka_edu.v1_0_2.core.controller.kafka_controller:KafkaController.on_broker_startup"),
    Symbol("KafkaController.onBrokerFailure", _CONTROLLER,
           port="kafka_edu.v1_0_2.core.controller.kafka_controller:KafkaController.on_broker_failure"),
    Symbol("KafkaController.onNewTopicCreation", _CONTROLLER,
           port="kafka_edu.v1_0_2.core.controller.kafka_controller:KafkaController.on_new_topic_creation"),
    Symbol("KafkaController.onNewPartitionCreation", _CONTROLLER,
           port="kafka_edu.v1_0_2.core.controller.kafka_controller:KafkaController.on_new_partition_creation"),
    Symbol("RequestSendThread.doWork", _CHANNEL_MANAGER, step="CT.channel"),
    Symbol("PartitionStateMachine.handleStateChanges", _PSM,
           port="kafka_edu.v1_0_2.core.controller.partition_state_machine:"
                "PartitionStateMachine.handle_state_changes", root=True),
    Symbol("PartitionStateMachine.triggerOnlinePartitionStateChange", _PSM,
           port="kafka_edu.v1_0_2.core.controller.partition_state_machine:"
                "PartitionStateMachine.trigger_online_partition_state_change", root=True),
    Symbol("ReplicaStateMachine.handleStateChanges", _RSM,
           port="kafka_edu.v1_0_2.core.controller.replica_state_machine:"
                "ReplicaStateMachine.handle_state_changes", root=True),
    Symbol("OfflinePartitionLeaderSelector.selectLeader", _SELECTOR, step="CT.select"),
    Symbol("ControlledShutdownLeaderSelector.selectLeader", _SELECTOR, step="CT.select"),
    Symbol("ReassignedPartitionLeaderSelector.selectLeader", _SELECTOR, step="CT.select"),
    Symbol("PreferredReplicaPartitionLeaderSelector.selectLeader", _SELECTOR, step="CT.select"),
    # Security (Kafka 1.0.2). A SASL login's requests are answered by the network thread's authenticator before
    # the connection's requests reach the handlers; each is a request's trace (RequestChannel.Request) like any
    # other. A raw token after SaslHandshake v0 is no Kafka request: a trace of its own. KafkaApis.authorize is a
    # span only when an authorizer is configured; an ACL change read back from ZooKeeper is a trace of its own.
    Symbol("SaslServerAuthenticator.handleApiVersionsRequest", _SASL_AUTHENTICATOR,
           port=_SASL_AUTHENTICATOR_PORT + "handle_api_versions_request"),
    Symbol("SaslServerAuthenticator.handleHandshakeRequest", _SASL_AUTHENTICATOR,
           port=_SASL_AUTHENTICATOR_PORT + "handle_handshake_request"),
    Symbol("SaslServerAuthenticator.handleSaslToken", _SASL_AUTHENTICATOR,
           port=_SASL_AUTHENTICATOR_PORT + "handle_sasl_token", root=True),
    # handleSaslToken's SaslAuthenticate branch, a method of its own in the port
    Symbol("SaslServerAuthenticator.handleSaslToken#saslAuthenticate", _SASL_AUTHENTICATOR,
           port=_SASL_AUTHENTICATOR_PORT + "handle_sasl_authenticate_request"),
    Symbol("KafkaApis.authorize", _KAFKA_APIS, port="kafka_edu.v1_0_2.core.server.kafka_apis:KafkaApis.authorize"),
    Symbol("SimpleAclAuthorizer.addAcls", _ACL_AUTHORIZER, port=_ACL_AUTHORIZER_PORT + "SimpleAclAuthorizer.add_acls"),
    Symbol("SimpleAclAuthorizer.removeAcls", _ACL_AUTHORIZER,
           port=_ACL_AUTHORIZER_PORT + "SimpleAclAuthorizer.remove_acls"),
    Symbol("SimpleAclAuthorizer.AclChangedNotificationHandler.processNotification", _ACL_AUTHORIZER,
           port=_ACL_AUTHORIZER_PORT + "AclChangedNotificationHandler.process_notification", root=True),
    # The log cleaner's swap in Kafka 1.0.2 (CL.swap is 3.9's UnifiedLog.replaceSegments)
    Symbol("Log.replaceSegments", "core/src/main/scala/kafka/log/Log.scala", step="CL.swap"),
    # KRaft (Kafka 3.9). Second spans of two-sided rows carry the row too; add rows here as parts get built.
    # A role change in a call that has no recorded span of its own (step.event gives it this one).
    Symbol("QuorumState.memoryTransitionTo", _RAFT + "QuorumState.java", KAFKA_3_9),
    # Kafka 3.9's group coordinator: a write event's turn on a processor thread, the child of the GC.write that queued
    # it (a timer's write starts a trace of its own); the operation row, GC.append and GC.replay run inside it. A
    # coordinator's state change (GC.state) in an internal event with no span of its own gets transitionTo's.
    Symbol("CoordinatorRuntime.CoordinatorWriteEvent.run", _GC + "runtime/CoordinatorRuntime.java", KAFKA_3_9,
           port="kafka_edu.v3_9.group_coordinator.coordinator.group.runtime.coordinator_runtime:"
                "CoordinatorRuntime.CoordinatorWriteEvent.run"),
    Symbol("CoordinatorRuntime.CoordinatorContext.transitionTo", _GC + "runtime/CoordinatorRuntime.java", KAFKA_3_9),
    # GC.classic's other two methods: a LeaveGroup, and a classic member's session expiring (a timer's write)
    Symbol("GroupMetadataManager.classicGroupLeave", _GC + "GroupMetadataManager.java", KAFKA_3_9, step="GC.classic"),
    Symbol("GroupMetadataManager.expireClassicGroupMemberHeartbeat", _GC + "GroupMetadataManager.java", KAFKA_3_9,
           step="GC.classic"),
    Symbol("Formatter.doFormat", "metadata/src/main/java/org/apache/kafka/metadata/storage/Formatter.java",
           KAFKA_3_9, step="KR.storage"),
    Symbol("KafkaRaftClient.maybeSendVoteRequests", _RAFT_CLIENT, KAFKA_3_9, step="KR.vote"),
    Symbol("KafkaRaftClient.handleVoteResponse", _RAFT_CLIENT, KAFKA_3_9, step="KR.vote"),
    Symbol("KafkaRaftClient.maybeSendBeginQuorumEpochRequests", _RAFT_CLIENT, KAFKA_3_9, step="KR.begin"),
    Symbol("KafkaRaftClient.maybeSendFetchOrFetchSnapshot", _RAFT_CLIENT, KAFKA_3_9, step="KR.fetch"),
    Symbol("KafkaRaftClient.handleFetchResponse", _RAFT_CLIENT, KAFKA_3_9, step="KR.fetch"),
    Symbol("KafkaRaftClient.handleFetchSnapshotRequest", _RAFT_CLIENT, KAFKA_3_9, step="KR.snapshot"),
    Symbol("KafkaRaftClient.handleFetchSnapshotResponse", _RAFT_CLIENT, KAFKA_3_9, step="KR.snapshot"),
    Symbol("KafkaEventQueue.EventHandler.handleEvents", _EVENT_QUEUE, KAFKA_3_9, step="KR.queue"),
    Symbol("QuorumController.deleteTopics", _QUORUM_CONTROLLER, KAFKA_3_9, step="KR.qc"),
    Symbol("QuorumController.registerBroker", _QUORUM_CONTROLLER, KAFKA_3_9, step="KR.qc"),
    Symbol("QuorumController.processBrokerHeartbeat", _QUORUM_CONTROLLER, KAFKA_3_9, step="KR.qc"),
    Symbol("QuorumController.alterPartition", _QUORUM_CONTROLLER, KAFKA_3_9, step="KR.qc"),
    Symbol("QuorumController.allocateProducerIds", _QUORUM_CONTROLLER, KAFKA_3_9, step="KR.qc"),
    Symbol("QuorumController.createPartitions", _QUORUM_CONTROLLER, KAFKA_3_9, step="KR.qc"),
    Symbol("QuorumController.ControllerWriteEvent.run", _QUORUM_CONTROLLER, KAFKA_3_9),
    Symbol("QuorumController.QuorumMetaLogListener.handleCommit", _QUORUM_CONTROLLER, KAFKA_3_9),
    Symbol("QuorumController.QuorumMetaLogListener.handleLeaderChange", _QUORUM_CONTROLLER, KAFKA_3_9),
    Symbol("QuorumController.claim", _QUORUM_CONTROLLER, KAFKA_3_9),
    Symbol("QuorumController.completeActivation", _QUORUM_CONTROLLER, KAFKA_3_9),
    Symbol("QuorumController.renounce", _QUORUM_CONTROLLER, KAFKA_3_9),
    Symbol("ReplicationControlManager.maybeFenceOneStaleBroker", _REPLICATION_CONTROL, KAFKA_3_9, step="KR.fence"),
    Symbol("BrokerMetadataPublisher.onMetadataUpdate", _SERVER + "metadata/BrokerMetadataPublisher.scala",
           KAFKA_3_9, step="KR.publish"),
    # The raft client's role phases (KR.poll): each traced only when it has work, the one that starts an election
    # being the root of the election's trace.
    Symbol("KafkaRaftClient.pollLeader", _RAFT_CLIENT, KAFKA_3_9, step="KR.poll"),
    Symbol("KafkaRaftClient.pollCandidate", _RAFT_CLIENT, KAFKA_3_9, step="KR.poll"),
    Symbol("KafkaRaftClient.pollFollower", _RAFT_CLIENT, KAFKA_3_9, step="KR.poll"),
    Symbol("KafkaRaftClient.pollUnattached", _RAFT_CLIENT, KAFKA_3_9, step="KR.poll"),
    Symbol("KafkaRaftClient.pollResigned", _RAFT_CLIENT, KAFKA_3_9, step="KR.poll"),
    # KV.commit's second method: a RemoveRaftVoter answered at commit
    Symbol("RemoveVoterHandler.highWatermarkUpdated", _RAFT + "internals/RemoveVoterHandler.java", KAFKA_3_9,
           step="KV.commit"),
    Symbol("KafkaRaftClientDriver.initiateShutdown", _RAFT + "KafkaRaftClientDriver.java", KAFKA_3_9,
           port="kafka_edu.v3_9.raft.raft.kafka_raft_client_driver:KafkaRaftClientDriver.initiate_shutdown"),
    Symbol("FileQuorumStateStore.writeElectionState", _RAFT + "FileQuorumStateStore.java", KAFKA_3_9,
           port="kafka_edu.v3_9.raft.raft.file_quorum_state_store:FileQuorumStateStore.write_election_state"),
    Symbol("KafkaMetadataLog.appendAsLeader", "core/src/main/scala/kafka/raft/KafkaMetadataLog.scala", KAFKA_3_9,
           port="kafka_edu.v3_9.core.raft.kafka_metadata_log:KafkaMetadataLog.append_as_leader"),
    Symbol("KafkaMetadataLog.appendAsFollower", "core/src/main/scala/kafka/raft/KafkaMetadataLog.scala", KAFKA_3_9,
           port="kafka_edu.v3_9.core.raft.kafka_metadata_log:KafkaMetadataLog.append_as_follower"),
    Symbol("ReplicatedLog.truncateToEndOffset", _RAFT + "ReplicatedLog.java", KAFKA_3_9,
           port="kafka_edu.v3_9.raft.raft.replicated_log:ReplicatedLog.truncate_to_end_offset"),
    # The metadata image (metadata/.../image): a snapshot loaded into the loader is published as a commit is
    # (KR.publish); the snapshot generator's decision and the emitter's write lead to KR.snapshot.
    Symbol("MetadataLoader.handleLoadSnapshot",
           "metadata/src/main/java/org/apache/kafka/image/loader/MetadataLoader.java", KAFKA_3_9, step="KR.publish"),
    Symbol("MetadataLoader.installPublishers",
           "metadata/src/main/java/org/apache/kafka/image/loader/MetadataLoader.java", KAFKA_3_9,
           port="kafka_edu.v3_9.metadata.image.loader.metadata_loader:MetadataLoader.install_publishers"),
    Symbol("SnapshotGenerator.publishLogDelta",
           "metadata/src/main/java/org/apache/kafka/image/publisher/SnapshotGenerator.java", KAFKA_3_9,
           port="kafka_edu.v3_9.metadata.image.publisher.snapshot_generator:SnapshotGenerator.publish_log_delta"),
    Symbol("SnapshotEmitter.maybeEmit",
           "metadata/src/main/java/org/apache/kafka/image/publisher/SnapshotEmitter.java", KAFKA_3_9,
           port="kafka_edu.v3_9.metadata.image.publisher.snapshot_emitter:SnapshotEmitter.maybe_emit"),
    # A KRaft broker: its registration and heartbeats to the active controller (inside KR.broker, or a heartbeat's
    # own trace, rooted at the lifecycle manager's queue event), and the manager's cleanup event (its queue's last),
    # where the broker becomes SHUTTING_DOWN.
    Symbol("BrokerLifecycleManager.sendBrokerRegistration", _SERVER + "BrokerLifecycleManager.scala", KAFKA_3_9),
    Symbol("BrokerLifecycleManager.sendBrokerHeartbeat", _SERVER + "BrokerLifecycleManager.scala", KAFKA_3_9),
    Symbol("BrokerLifecycleManager.ShutdownEvent.run", _SERVER + "BrokerLifecycleManager.scala", KAFKA_3_9),
    Symbol("BrokerServer.shutdown", _SERVER + "BrokerServer.scala", KAFKA_3_9),
    # The broker applying a metadata delta (inside KR.publish's BrokerMetadataPublisher.onMetadataUpdate): 3.9's
    # applyDelta stops the replicas the broker lost, then leads and follows; a leader's ISR change goes to the
    # controller.
    Symbol("ReplicaManager.applyDelta", _REPLICA_MANAGER, KAFKA_3_9,
           port="kafka_edu.v3_9.core.server.replica_manager:ReplicaManager.apply_delta"),
    Symbol("ReplicaManager.stopPartitions", _REPLICA_MANAGER, KAFKA_3_9,
           port="kafka_edu.v3_9.core.server.replica_manager:ReplicaManager._stop_partitions"),
    Symbol("ReplicaManager.applyLocalLeadersDelta", _REPLICA_MANAGER, KAFKA_3_9,
           port="kafka_edu.v3_9.core.server.replica_manager:ReplicaManager._apply_local_leaders_delta"),
    Symbol("ReplicaManager.applyLocalFollowersDelta", _REPLICA_MANAGER, KAFKA_3_9,
           port="kafka_edu.v3_9.core.server.replica_manager:ReplicaManager._apply_local_followers_delta"),
    Symbol("Partition.submitAlterPartition", _PARTITION, KAFKA_3_9),
    Symbol("AlterPartitionManager.sendRequest", _SERVER + "AlterPartitionManager.scala", KAFKA_3_9),
    Symbol("AlterPartitionManager.handleAlterPartitionResponse", _SERVER + "AlterPartitionManager.scala", KAFKA_3_9),
    # A request on its way to the active controller (NodeToControllerChannelManager's thread): the exchange, as a
    # child of the span that queued it, whose traceparent it carries.
    Symbol("InterBrokerSendThread.sendRequests",
           "server-common/src/main/java/org/apache/kafka/server/util/InterBrokerSendThread.java", KAFKA_3_9),
]


def _symbols() -> dict[str, Symbol]:
    """SYMBOLS: the rows above, plus each non-family step's own span under its row id (when only one row has it)."""
    rows_by_name: dict[str, list[str]] = {}
    for step_id, row in STEPS.items():
        if row.event is None and not row.is_family:
            rows_by_name.setdefault(row.span_name, []).append(step_id)
    symbols = {s.name: s for s in _SYMBOL_ROWS}
    for name, step_ids in rows_by_name.items():
        row = STEPS[step_ids[0]]
        if name in symbols:  # a symbol that is a row only in context (onPreferredReplicaElection at failover)
            continue
        symbols[name] = Symbol(name, row.origin_file, row.version, step_ids[0] if len(step_ids) == 1 else None)
    return symbols


SYMBOLS: dict[str, Symbol] = _symbols()

# Span events: name -> the FIDELITY row it is (None: a state change that no row names).
EVENTS: dict[str, str | None] = {
    **{row.event: step_id for step_id, row in STEPS.items() if row.event},
    "exception": None,  # OpenTelemetry's own, for a failure a step survived (see provider.ExceptionsOnSpans)
    "group.state.change": None,
    "isr.change": None,
    "log.truncate": None,
    "records.truncated": None,
    "leader.epoch.stale": None,
    "raft.vote.granted": None,  # KRaft: a vote a voter granted or refused, with its reason
    "broker.state.change": None,  # KRaft: a broker's BrokerLifecycleManager changed its BrokerState
    "partition.uncleanable": None,  # Kafka 3.9's cleaner gave up on a partition after a failure (CL.work)
}

# Roots of request-path traces: a connection accepted, a processor's loop phases, one client request, and a follower's
# fetch of the records it replicates (traffic, not a change of replication state). They are sampled and budgeted on
# long runs (writer.py) and sampled away when KAFKA_EDU_TRACING=off; every other span is always kept.
REQUEST_PATH_ROOTS = frozenset({"RequestChannel.Request", "Acceptor.accept", "Processor.configureNewConnections",
                                "Processor.processNewResponses", "Processor.poll", "Processor.processCompletedSends",
                                "Processor.processDisconnected", "AbstractFetcherThread.processFetchRequest"})
