"""The FIDELITY.md rows this port emits: step id -> span name and the Kafka file the step lives in.

This table is the one place that ties a step id to Kafka's source; ported code only names the id.
"""

from __future__ import annotations

from dataclasses import dataclass

KAFKA_1_0_2 = "1.0.2"
KAFKA_3_9 = "3.9"

_SERVER = "core/src/main/scala/kafka/server/"
_KAFKA = "core/src/main/scala/kafka/Kafka.scala"
_KAFKA_SERVER = _SERVER + "KafkaServer.scala"
_BROKER_STATES = _SERVER + "BrokerStates.scala"
_SCHEDULER = "core/src/main/scala/kafka/utils/KafkaScheduler.scala"
_ZK_UTILS = "core/src/main/scala/kafka/utils/ZkUtils.scala"
_LOG_MANAGER = "core/src/main/scala/kafka/log/LogManager.scala"
_SOCKET_SERVER = "core/src/main/scala/kafka/network/SocketServer.scala"
_KAFKA_APIS = _SERVER + "KafkaApis.scala"
_REQUEST_HANDLER = _SERVER + "KafkaRequestHandler.scala"
_TXN_COORDINATOR = "core/src/main/scala/kafka/coordinator/transaction/TransactionCoordinator.scala"
_GROUP_COORDINATOR = "core/src/main/scala/kafka/coordinator/group/GroupCoordinator.scala"
_CONTROLLER = "core/src/main/scala/kafka/controller/KafkaController.scala"
_CONTROLLER_EVENT_MANAGER = "core/src/main/scala/kafka/controller/ControllerEventManager.scala"
_CHANNEL_MANAGER = "core/src/main/scala/kafka/controller/ControllerChannelManager.scala"
_TOPIC_DELETION = "core/src/main/scala/kafka/controller/TopicDeletionManager.scala"
_SELECTOR = "core/src/main/scala/kafka/controller/PartitionLeaderSelector.scala"


@dataclass(frozen=True)
class Step:
    """One FIDELITY row: the span it becomes and where its original lives."""

    span_name: str
    origin_file: str
    version: str = KAFKA_1_0_2

    @property
    def origin_symbol(self) -> str:
        return self.span_name.split("#", 1)[0]


STEPS: dict[str, Step] = {
    # kafka.Kafka.main
    "LC.main.1": Step("Kafka.getPropsFromArgs", _KAFKA),
    "LC.main.2": Step("KafkaServerStartable.fromProps", _SERVER + "KafkaServerStartable.scala"),
    "LC.main.3": Step("Kafka.main#shutdownHook", _KAFKA),  # the span registering the hook carries the event
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
    "LC.startup.11": Step("ReplicaManager.startup", _SERVER + "ReplicaManager.scala"),
    "LC.startup.12": Step("KafkaController.startup", _CONTROLLER),
    "LC.startup.13": Step("AdminManager.<init>", _SERVER + "AdminManager.scala"),
    "LC.startup.14": Step("GroupCoordinator.startup", _GROUP_COORDINATOR),
    "LC.startup.15": Step("TransactionCoordinator.startup", _TXN_COORDINATOR),
    "LC.startup.16": Step("KafkaServer.startup#authorizer", _KAFKA_SERVER),
    "LC.startup.17": Step("KafkaApis.<init>", _KAFKA_APIS),
    "LC.startup.18": Step("KafkaRequestHandlerPool.<init>", _REQUEST_HANDLER),
    "LC.startup.19": Step("DynamicConfigManager.startup", _SERVER + "DynamicConfigManager.scala"),
    "LC.startup.20": Step("KafkaHealthcheck.startup", _SERVER + "KafkaHealthcheck.scala"),
    "LC.startup.21": Step("KafkaServer.checkpointBrokerId", _KAFKA_SERVER),
    "LC.startup.22": Step("SocketServer.startProcessors", _SOCKET_SERVER),
    "LC.startup.23": Step("BrokerState.newState", _BROKER_STATES),
    "LC.startup.24": Step("KafkaServer.startup#complete", _KAFKA_SERVER),
    # KafkaServer.shutdown, numbered in 1.0.2 order (steps of components not built yet are absent)
    "LC.shutdown.01": Step("KafkaServer.shutdown#guard", _KAFKA_SERVER),
    "LC.shutdown.02": Step("KafkaServer.controlledShutdown", _KAFKA_SERVER),
    "LC.shutdown.03": Step("BrokerState.newState", _BROKER_STATES),
    "LC.shutdown.04": Step("KafkaHealthcheck.shutdown", _SERVER + "KafkaHealthcheck.scala"),
    "LC.shutdown.05": Step("SocketServer.stopProcessingRequests", _SOCKET_SERVER),
    "LC.shutdown.06": Step("KafkaRequestHandlerPool.shutdown", _REQUEST_HANDLER),
    "LC.shutdown.07": Step("KafkaScheduler.shutdown", _SCHEDULER),
    "LC.shutdown.08": Step("KafkaApis.close", _KAFKA_APIS),
    "LC.shutdown.09": Step("Authorizer.close", _KAFKA_SERVER),
    "LC.shutdown.10": Step("AdminManager.shutdown", _SERVER + "AdminManager.scala"),
    "LC.shutdown.11": Step("TransactionCoordinator.shutdown", _TXN_COORDINATOR),
    "LC.shutdown.12": Step("GroupCoordinator.shutdown", _GROUP_COORDINATOR),
    "LC.shutdown.13": Step("ReplicaManager.shutdown", _SERVER + "ReplicaManager.scala"),
    "LC.shutdown.14": Step("LogManager.shutdown", _LOG_MANAGER),
    "LC.shutdown.15": Step("KafkaController.shutdown", _CONTROLLER),
    "LC.shutdown.16": Step("ZkUtils.close", _ZK_UTILS),
    "LC.shutdown.18": Step("SocketServer.shutdown", _SOCKET_SERVER),
    "LC.shutdown.19": Step("KafkaServer.shutdown#metrics", _KAFKA_SERVER),
    "LC.shutdown.20": Step("BrokerState.newState", _BROKER_STATES),
    "LC.shutdown.21": Step("KafkaServer.shutdown#complete", _KAFKA_SERVER),
    # The request path (FIDELITY NW)
    "NW.acceptor.1": Step("Acceptor.accept", _SOCKET_SERVER),
    "NW.processor.1": Step("Processor.configureNewConnections", _SOCKET_SERVER),
    "NW.processor.2": Step("Processor.processNewResponses", _SOCKET_SERVER),
    "NW.processor.3": Step("Processor.poll", _SOCKET_SERVER),
    "NW.processor.4": Step("Processor.processCompletedReceives", _SOCKET_SERVER),
    "NW.processor.5": Step("Processor.processCompletedSends", _SOCKET_SERVER),
    "NW.processor.6": Step("Processor.processDisconnected", _SOCKET_SERVER),
    "NW.handler.1": Step("KafkaRequestHandler.run", _REQUEST_HANDLER),
    "NW.apis.1": Step("KafkaApis.handle", _KAFKA_APIS),
    "NW.apis.produce": Step("KafkaApis.handleProduceRequest", _KAFKA_APIS),
    "NW.rm.append": Step("ReplicaManager.appendRecords", _SERVER + "ReplicaManager.scala"),
    "NW.log.append": Step("Log.append", "core/src/main/scala/kafka/log/Log.scala"),
    "NW.channel.resp": Step("RequestChannel.sendResponse", "core/src/main/scala/kafka/network/RequestChannel.scala"),
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
    # One span per listener, named after its method (SYMBOLS below) and tagged with this id.
    "CT.failover.04": Step("KafkaController.register*Listener", _CONTROLLER),
    "CT.failover.05": Step("KafkaController.initializeControllerContext", _CONTROLLER),
    "CT.failover.06": Step("TopicDeletionManager.init", _TOPIC_DELETION),
    "CT.failover.07": Step("KafkaController.sendUpdateMetadataRequest", _CONTROLLER),
    "CT.failover.08": Step("ReplicaStateMachine.startup",
                           "core/src/main/scala/kafka/controller/ReplicaStateMachine.scala"),
    "CT.failover.09": Step("PartitionStateMachine.startup",
                           "core/src/main/scala/kafka/controller/PartitionStateMachine.scala"),
    "CT.failover.10": Step("KafkaController.registerPartitionModificationsListener", _CONTROLLER),
    "CT.failover.11": Step("KafkaController.maybeTriggerPartitionReassignment", _CONTROLLER),
    "CT.failover.12": Step("TopicDeletionManager.tryTopicDeletion", _TOPIC_DELETION),
    "CT.failover.13": Step("KafkaController.onPreferredReplicaElection", _CONTROLLER),
    "CT.failover.14": Step("KafkaScheduler.startup", "core/src/main/scala/kafka/utils/KafkaScheduler.scala"),
    "CT.resign": Step("KafkaController.onControllerResignation", _CONTROLLER),
    "CT.broker": Step("KafkaController.BrokerChange.process", _CONTROLLER),
    "CT.topic": Step("KafkaController.TopicChange.process", _CONTROLLER),
    "CT.shutdown": Step("KafkaController.ControlledShutdown.process", _CONTROLLER),
    # Two spans, ControllerChannelManager.sendRequest (queued) and RequestSendThread.doWork (sent), both in SYMBOLS.
    "CT.channel": Step("ControllerChannelManager.sendRequest", _CHANNEL_MANAGER),
    # One span per selector class, `<Selector>.selectLeader` (SYMBOLS below), tagged with this id.
    "CT.select": Step("<Selector>.selectLeader", _SELECTOR),
}

# Spans for Kafka symbols that are not FIDELITY rows themselves but show inside one (no kafka.step).
SYMBOLS: dict[str, str] = {
    "BrokerState.newState": _BROKER_STATES,
    "KafkaServer.shutdown": _KAFKA_SERVER,
    "KafkaHealthcheck.register": _SERVER + "KafkaHealthcheck.scala",
    "KafkaHealthcheck.SessionExpireListener.handleNewSession": _SERVER + "KafkaHealthcheck.scala",
    "Kafka.main": _KAFKA,
    "LogManager.loadLogs": _LOG_MANAGER,
    "LogManager.loadLog": _LOG_MANAGER,
    "ZkUtils.setupCommonPaths": _ZK_UTILS,
    "ZkUtils.getBrokerSequenceId": _ZK_UTILS,
    "RequestChannel.Request": "core/src/main/scala/kafka/network/RequestChannel.scala",
    "Processor.sendResponse": _SOCKET_SERVER,
    "KafkaController.onControllerFailover": _CONTROLLER,
    "KafkaController.triggerControllerMove": _CONTROLLER,
    "KafkaController.registerTopicChangeListener": _CONTROLLER,
    "KafkaController.registerBrokerChangeListener": _CONTROLLER,
    "KafkaController.registerTopicDeletionListener": _CONTROLLER,
    "KafkaController.registerPartitionReassignmentListener": _CONTROLLER,
    "KafkaController.registerIsrChangeNotificationListener": _CONTROLLER,
    "KafkaController.registerPreferredReplicaElectionListener": _CONTROLLER,
    "KafkaController.registerLogDirEventNotificationListener": _CONTROLLER,
    "KafkaController.onPartitionReassignment": _CONTROLLER,
    "KafkaController.onPartitionReassignment#expand": _CONTROLLER,
    "KafkaController.onPartitionReassignment#complete": _CONTROLLER,
    "KafkaController.checkAndTriggerAutoLeaderRebalance": _CONTROLLER,
    "KafkaController.onPreferredReplicaElection": _CONTROLLER,  # also CT.failover.13 at failover
    "KafkaController.onBrokerStartup": _CONTROLLER,
    "KafkaController.onBrokerFailure": _CONTROLLER,
    "KafkaController.onNewTopicCreation": _CONTROLLER,
    "KafkaController.onNewPartitionCreation": _CONTROLLER,
    "ControllerChannelManager.sendRequest": _CHANNEL_MANAGER,
    "RequestSendThread.doWork": _CHANNEL_MANAGER,
    "PartitionStateMachine.handleStateChanges": "core/src/main/scala/kafka/controller/PartitionStateMachine.scala",
    "PartitionStateMachine.triggerOnlinePartitionStateChange":
        "core/src/main/scala/kafka/controller/PartitionStateMachine.scala",
    "ReplicaStateMachine.handleStateChanges": "core/src/main/scala/kafka/controller/ReplicaStateMachine.scala",
    "OfflinePartitionLeaderSelector.selectLeader": _SELECTOR,
    "ControlledShutdownLeaderSelector.selectLeader": _SELECTOR,
    "ReassignedPartitionLeaderSelector.selectLeader": _SELECTOR,
    "PreferredReplicaPartitionLeaderSelector.selectLeader": _SELECTOR,
}
