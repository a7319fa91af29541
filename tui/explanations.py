"""Every FIDELITY.md row of LC, NW, CT, KR, RQ and CL, with a paragraph on what that Kafka step is for.

`span` is the row's span as FIDELITY.md has it and `what` its summary (shortened where the row is long); `why` is
written for the detail pane: what a learner should take from seeing the step run (or not run) in a trace. A 3.9 row
(RQ, CL) also says what 1.0.2 did at that step.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Row:
    span: str
    what: str
    why: str


_SWALLOW = (" Like every component in KafkaServer.shutdown it runs inside CoreUtils.swallow: a failure is recorded "
            "on this span and the shutdown carries on with the next component.")

ROWS: dict[str, Row] = {
    # -- LC: kafka.Kafka.main ------------------------------------------------------------------------------------
    "LC.main.1": Row("Kafka.getPropsFromArgs", "parse the properties file and `--override k=v` pairs",
                     "Before anything else the broker turns its command line into one Properties object: the "
                     "server.properties file, then each --override on top. A typo here ends the process before a "
                     "single Kafka component exists, which is why this is the first span of every broker's life."),
    "LC.main.2": Row("KafkaServerStartable.fromProps", "build the config, reporters, the server object",
                     "KafkaConfig validates every property against its ConfigDef (types, ranges, defaults), and "
                     "the KafkaServer object is built, but nothing is started yet: construction and startup are "
                     "separate so that a bad config fails fast and cheaply."),
    "LC.main.3": Row("Kafka.main#shutdownHook", "SIGTERM/SIGINT run `shutdown()` (Kafka's JVM shutdown hook)",
                     "Kafka registers a JVM shutdown hook so that SIGTERM (what `kafka-server-stop.sh` and the "
                     "cluster runner send) runs the orderly KafkaServer.shutdown. A kill -9 bypasses it: that is "
                     "the difference between a controlled stop and a crash you can see in the traces."),
    "LC.main.4": Row("KafkaServer.startup", "the root span of the startup trace",
                     "The whole startup sequence hangs under this span, one child per step, in the order Kafka's "
                     "source runs them. Its duration is the time from process start to a broker that serves "
                     "requests; the critical path shows which step dominated it."),
    "LC.main.5": Row("KafkaServer.awaitShutdown", "block on the shutdown latch; exit 0, or 1 after a fatal error",
                     "The main thread parks on a CountDownLatch for the broker's whole life. This span is open "
                     "until shutdown completes; if the process is killed it never ends, which the TUI shows as a "
                     "span that was left running."),
    # -- LC: KafkaServer.startup ---------------------------------------------------------------------------------
    "LC.startup.01": Row("KafkaServer.startup#guard",
                         "shutting down → IllegalStateException; already started → return; CAS isStartingUp",
                         "Startup must run exactly once. The guard refuses to start a broker that is shutting "
                         "down, returns if it already started, and flips isStartingUp with a compare-and-set so "
                         "two concurrent callers cannot both proceed."),
    "LC.startup.02": Row("BrokerState.newState", "→ Starting",
                         "The broker announces the Starting state (value 1). BrokerState is what operators watch "
                         "through JMX; every later transition is a span like this one."),
    "LC.startup.03": Row("KafkaScheduler.startup", "background scheduler (`background.threads`)",
                         "A thread pool for periodic work (log retention and flushing, ISR checks, checkpointing). "
                         "It starts early because LogManager and ReplicaManager schedule tasks on it."),
    "LC.startup.04": Row("KafkaServer.initZk", "chroot creation, ZK session (kazoo), `setupCommonPaths`",
                         "The broker opens its ZooKeeper session, creating the chroot if zookeeper.connect names "
                         "one, and makes sure the common znodes (/brokers/ids, /controller_epoch, /config/...) exist. "
                         "In ZooKeeper mode everything about cluster membership flows through this session."),
    "LC.startup.05": Row("KafkaServer.getOrGenerateClusterId", "read or create `/cluster/id`",
                         "The first broker of a new cluster writes a random cluster id into /cluster/id; every other "
                         "broker reads it. It is later checked against meta.properties so a broker cannot join a "
                         "different cluster's data by mistake."),
    "LC.startup.06": Row("KafkaServer.getBrokerIdAndOfflineDirs",
                         "meta.properties in every log dir; the four branches; `/brokers/seqid` generation",
                         "The broker id comes from broker.id or from the meta.properties files in its log dirs; "
                         "they must agree. With broker.id.generation.enable and no id, a fresh one is taken from "
                         "/brokers/seqid. Dirs that cannot be read are reported offline rather than failing."),
    "LC.startup.07": Row("KafkaServer.startup#metrics",
                         "metrics, reporters, BrokerTopicStats, quota managers, LogDirFailureChannel",
                         "The measuring and limiting machinery is built before anything that needs it: the metrics "
                         "registry and reporters, per-topic byte and message rates, the client quota managers and "
                         "the channel on which a failing log dir is reported."),
    "LC.startup.08": Row("LogManager.startup",
                         "create + load logs; recovery when the clean-shutdown marker is missing "
                         "(→ RecoveringFromUncleanShutdown)",
                         "Every partition directory on disk is loaded: segments, indexes, the producer state. If the "
                         "previous process did not leave the .kafka_cleanshutdown marker (a crash, a kill -9), the "
                         "broker enters RecoveringFromUncleanShutdown and re-validates the segments after the "
                         "recovery point, which is why a crashed broker takes longer to start."),
    "LC.startup.09": Row("MetadataCache.<init>", "empty cache of cluster metadata; credential provider",
                         "The broker's view of the cluster (brokers, partition leaders, ISRs) starts empty. It is "
                         "filled only by the controller's UpdateMetadata requests, so a broker answers Metadata "
                         "requests from what the controller last told it."),
    "LC.startup.10": Row("SocketServer.startup",
                         "acceptors bound, processors not yet started (`startupProcessors=false`)",
                         "Listening sockets are bound so the port is taken and advertised, but the processor "
                         "threads stay idle: requests cannot be served before the components that handle them exist."),
    "LC.startup.11": Row("ReplicaManager.startup", "ISR expiration / ISR change propagation tasks",
                         "ReplicaManager owns the partitions this broker hosts. Startup schedules the tasks that "
                         "shrink an ISR when a follower falls behind (replica.lag.time.max.ms) and that publish ISR "
                         "changes to ZooKeeper for the controller."),
    "LC.startup.12": Row("KafkaController.startup", "put `Startup` on the controller event queue, start its thread",
                         "Every broker runs a controller component; only the one that wins the /controller znode "
                         "becomes active. Startup just enqueues the Startup event: the election itself happens on "
                         "the controller's event thread, in a trace of its own."),
    "LC.startup.13": Row("AdminManager.<init>", "topic admin operations",
                         "The handler behind CreateTopics, DeleteTopics and config changes: it validates requests "
                         "and writes assignments to ZooKeeper, where the controller picks them up."),
    "LC.startup.14": Row("GroupCoordinator.startup", "consumer groups, `__consumer_offsets`",
                         "The group coordinator manages consumer group membership and committed offsets for the "
                         "groups whose __consumer_offsets partition this broker leads."),
    "LC.startup.15": Row("TransactionCoordinator.startup", "producer ids (`/latest_producer_id_block`)",
                         "The transaction coordinator hands out producer ids, reserving blocks of them in "
                         "/latest_producer_id_block with a conditional ZooKeeper write so two brokers never give "
                         "out the same id."),
    "LC.startup.16": Row("KafkaServer.startup#authorizer",
                         "create and configure the authorizer if `authorizer.class.name` is set",
                         "Authorization is optional: with no authorizer.class.name every request is allowed. When "
                         "set, the authorizer is created before KafkaApis, which consults it on every request."),
    "LC.startup.17": Row("KafkaApis.<init>", "the request dispatcher",
                         "KafkaApis holds one handle method per API key and references to every component built so "
                         "far; it is the place where a request's meaning is implemented."),
    "LC.startup.18": Row("KafkaRequestHandlerPool.<init>", "`num.io.threads` handler threads",
                         "The I/O threads that take requests off the shared request queue and run KafkaApis.handle. "
                         "Their number bounds how many requests are processed at once."),
    "LC.startup.19": Row("DynamicConfigManager.startup", "watch `/config/changes`",
                         "Topic and client config overrides can change at runtime: the broker watches "
                         "/config/changes for notifications and applies each change to its logs or quotas."),
    "LC.startup.20": Row("KafkaHealthcheck.startup", "ephemeral `/brokers/ids/{id}` with endpoints",
                         "The broker registers itself: an ephemeral znode with its endpoints. Its appearance is what "
                         "makes the controller's BrokerChange fire; its disappearance when the session dies is how "
                         "the cluster learns a broker has failed."),
    "LC.startup.21": Row("KafkaServer.checkpointBrokerId", "write meta.properties where missing",
                         "Log dirs that have no meta.properties yet get one with the broker id (and cluster id), "
                         "tying the data on disk to this broker from now on."),
    "LC.startup.22": Row("SocketServer.startProcessors", "processors begin reading requests",
                         "Only now, with every handler in place, do the network processors start reading from "
                         "connections. Clients that connected early have been waiting in the accept backlog."),
    "LC.startup.23": Row("BrokerState.newState", "→ RunningAsBroker",
                         "The broker is serving (state 3). The cluster runner waits for exactly this span to decide "
                         "a broker has started."),
    "LC.startup.24": Row("KafkaServer.startup#complete",
                         "new latch, startupComplete, isStartingUp=false, app info",
                         "The bookkeeping that ends startup: the shutdown latch awaitShutdown will park on, the "
                         "startupComplete flag, and the version info registered for monitoring."),
    "LC.startup.err": Row("startup.fatal (event)",
                          "on any exception: log fatal, isStartingUp=false, `shutdown()`, rethrow",
                          "Any exception during startup is fatal: the broker logs it, clears isStartingUp, runs the "
                          "normal shutdown to release what was already started, and rethrows so the process exits "
                          "with status 1."),
    # -- LC: KafkaServer.shutdown --------------------------------------------------------------------------------
    "LC.shutdown.01": Row("KafkaServer.shutdown#guard", "still starting → IllegalStateException; latch/CAS",
                          "Shutdown refuses to run while startup is in progress and uses a compare-and-set so that "
                          "the signal handler and a fatal error cannot both run it."),
    "LC.shutdown.02": Row("KafkaServer.controlledShutdown",
                          "→ PendingControlledShutdown, ControlledShutdownRequest to the controller with retries",
                          "Before going away the broker asks the controller to move leadership of its partitions "
                          "elsewhere, retrying until nothing remains or the retries run out. This is what makes a "
                          "planned restart invisible to producers, and what a kill -9 skips."),
    "LC.shutdown.03": Row("BrokerState.newState", "→ BrokerShuttingDown",
                          "From here on the broker is tearing itself down (state 7)."),
    "LC.shutdown.04": Row("KafkaHealthcheck.shutdown", "deregister `/brokers/ids/{id}`",
                          "The broker stops watching its registration; the ephemeral znode goes when the ZooKeeper "
                          "session closes." + _SWALLOW),
    "LC.shutdown.05": Row("SocketServer.stopProcessingRequests", "stop acceptors and processors",
                          "No new requests are read: acceptors and processors stop, so the handlers can drain." +
                          _SWALLOW),
    "LC.shutdown.06": Row("KafkaRequestHandlerPool.shutdown", "stop the I/O threads",
                          "Each handler thread is sent AllDone through the request queue and joined." + _SWALLOW),
    "LC.shutdown.07": Row("KafkaScheduler.shutdown", "stop the background scheduler",
                          "Periodic tasks stop; a running task finishes first." + _SWALLOW),
    "LC.shutdown.08": Row("KafkaApis.close", "release the dispatcher's resources",
                          "The request dispatcher closes what it holds (quota and fetch sessions)." + _SWALLOW),
    "LC.shutdown.09": Row("Authorizer.close", "close the authorizer, if any",
                          "A configured authorizer releases its resources (for example its ZooKeeper watches)." +
                          _SWALLOW),
    "LC.shutdown.10": Row("AdminManager.shutdown", "stop topic admin operations",
                          "Pending admin operations in purgatory are completed or expired." + _SWALLOW),
    "LC.shutdown.11": Row("TransactionCoordinator.shutdown", "stop the transaction coordinator",
                          "The coordinator stops accepting transactional requests and its marker channel closes." +
                          _SWALLOW),
    "LC.shutdown.12": Row("GroupCoordinator.shutdown", "stop the group coordinator",
                          "Group state is dropped from memory; it lives on in __consumer_offsets, from which the "
                          "next coordinator reloads it." + _SWALLOW),
    "LC.shutdown.13": Row("ReplicaManager.shutdown", "stop fetchers, checkpoint high watermarks",
                          "Replica fetchers stop and the high watermarks are checkpointed, so the next start knows "
                          "how much of each log was committed." + _SWALLOW),
    "LC.shutdown.14": Row("LogManager.shutdown", "flush and close logs, write the clean-shutdown marker",
                          "Every log is flushed and closed and the .kafka_cleanshutdown marker is written. Its "
                          "presence is what lets the next startup skip recovery (see LC.startup.08)." + _SWALLOW),
    "LC.shutdown.15": Row("KafkaController.shutdown", "stop the controller event thread, resign",
                          "The controller component closes its event queue and resigns; if this broker was the "
                          "active controller, deleting its session lets another broker win the election." + _SWALLOW),
    "LC.shutdown.16": Row("ZkUtils.close", "close the ZooKeeper session",
                          "Closing the session removes the broker's ephemeral znodes at once instead of after the "
                          "session timeout: the controller's BrokerChange fires immediately." + _SWALLOW),
    "LC.shutdown.17": Row("quota managers", "shut down the client quota managers",
                          "The throttling threads of the produce, fetch and request quota managers stop." + _SWALLOW),
    "LC.shutdown.18": Row("SocketServer.shutdown", "close listeners and connections",
                          "Sockets are closed for good; connected clients see the connection drop." + _SWALLOW),
    "LC.shutdown.19": Row("KafkaServer.shutdown#metrics", "close metrics and reporters",
                          "Metrics reporters are closed and the app info is unregistered." + _SWALLOW),
    "LC.shutdown.20": Row("BrokerState.newState", "→ NotRunning",
                          "The broker has released everything (state 0). A trace that never reaches this span "
                          "belongs to a process that was killed."),
    "LC.shutdown.21": Row("KafkaServer.shutdown#complete", "flags, latch countDown",
                          "startupComplete and isShuttingDown are reset and the shutdown latch is counted down, "
                          "which releases awaitShutdown and lets the process exit 0."),
    # -- NW: the request path ------------------------------------------------------------------------------------
    "NW.acceptor.1": Row("Acceptor.accept",
                         "accept, `ConnectionQuotas.inc` (`max.connections.per.ip`), non-blocking, TCP_NODELAY, "
                         "keep-alive, buffer sizes, round-robin to a processor",
                         "One acceptor thread per listener accepts connections, enforces the per-IP connection "
                         "limit, tunes the socket and hands it round-robin to a processor thread. It never reads "
                         "a request itself."),
    "NW.acceptor.2": Row("connection.rejected (event)", "TooManyConnectionsException → close",
                         "When an address already has max.connections.per.ip connections, the new one is closed "
                         "straight away; the client sees a dropped connection, not an error response."),
    "NW.processor.1": Row("Processor.configureNewConnections",
                          "register queued channels for reads; connection id `local:port-remote:port-index`",
                          "A processor picks up the connections the acceptor queued for it and registers them with "
                          "its selector. The connection id names the connection in every later request span."),
    "NW.processor.2": Row("Processor.processNewResponses",
                          "NoOp → unmute; Send → `sendResponse` (inflight); Close → close",
                          "Responses the handlers produced are taken from this processor's response queue: a send "
                          "is started, a request needing no answer just unmutes the channel, a close closes it."),
    "NW.processor.3": Row("Processor.poll", "the selector poll (only traced when it returns work)",
                          "One non-blocking select over all this processor's connections: completed reads, "
                          "completed writes and disconnections come out of it."),
    "NW.processor.4": Row("Processor.processCompletedReceives",
                          "parse header, build Request, `RequestChannel.sendRequest` (blocks when full), mute",
                          "Each complete request read is parsed into a Request and put on the shared request queue; "
                          "the channel is muted so one connection has only one request in flight, which is how "
                          "Kafka keeps per-connection ordering. A full queue blocks the processor: back-pressure."),
    "NW.processor.5": Row("Processor.processCompletedSends",
                          "drop from inflight, update request metrics, unmute",
                          "When a response is fully written the request is finished: its metrics (queue, local, "
                          "remote, throttle, response times) are recorded and the channel may read the next request."),
    "NW.processor.6": Row("Processor.processDisconnected", "drop inflight, `ConnectionQuotas.dec`",
                          "A closed connection's in-flight response is dropped and its slot in the per-IP "
                          "connection count is freed."),
    "NW.handler.1": Row("KafkaRequestHandler.run",
                        "take a request (`receiveRequest(300)`), idle-ratio meter, `AllDone` ends the thread",
                        "An I/O thread waits up to 300 ms for a request; the time it spends waiting feeds the "
                        "RequestHandlerAvgIdlePercent metric, the classic sign of an overloaded broker."),
    "NW.apis.1": Row("KafkaApis.handle", "dispatch by API key to `handle<Api>Request`",
                     "The request's API key selects the handler. Errors thrown by a handler become error responses "
                     "here rather than killing the thread."),
    "NW.apis.produce": Row("KafkaApis.handleProduceRequest",
                           "authorize, acks=0 semantics, quota, `ReplicaManager.appendRecords`, response callback",
                           "A produce request is authorized per topic, appended through ReplicaManager and answered "
                           "from a callback, because with acks=all the answer waits for the followers. With acks=0 "
                           "no response is sent at all."),
    "NW.rm.append": Row("ReplicaManager.appendRecords",
                        "validate acks (INVALID_REQUIRED_ACKS), append to local log, DelayedProduce in purgatory "
                        "for acks=-1",
                        "The append happens on the leader's local log at once; for acks=-1 a DelayedProduce waits "
                        "in purgatory until every in-sync replica has fetched past the new offsets (or it times out)."),
    "NW.log.append": Row("Log.append",
                         "validate batches (CRC, size), assign offsets, roll segment, update LEO / high watermark",
                         "Batches are checked, given offsets under the log's lock and written to the active segment, "
                         "rolling a new one when it is full. The log end offset moves; the high watermark moves only "
                         "when replicas confirm."),
    "NW.channel.resp": Row("RequestChannel.sendResponse", "to the processor's response queue, wake it",
                           "The handler's answer goes back to the processor that owns the connection, and that "
                           "processor is woken from its poll to send it."),
    # -- RQ: Kafka 3.9's request path and storage on a KRaft broker -----------------------------------------------
    "RQ.net.1": Row("SocketServer.<init>",
                    "per data-plane listener: connection quotas, a DataPlaneAcceptor and num.network.threads "
                    "processors; no port bound (unless it is 0), no thread started",
                    "Building 3.9's SocketServer only lays out the acceptors and processors: nothing listens yet. "
                    "The broker keeps its doors shut until it has registered with the controller and caught up "
                    "with the metadata log (RQ.net.2), so no client talks to a broker that does not know the "
                    "cluster yet. 1.0.2 bound every port and started the acceptors at this point (LC.startup.10), "
                    "holding back only the processors."),
    "RQ.net.2": Row("SocketServer.enableRequestProcessing",
                    "after the broker is unfenced: per acceptor, once its listener's authorizer is ready, bind, "
                    "start the processors, then the acceptor",
                    "The last step of BrokerServer.startup: only now does the port accept connections. Each "
                    "listener waits for its authorizer, so no request is served before the ACLs are loaded. In "
                    "1.0.2 (SocketServer.startProcessors, LC.startup.22) the ports were already bound, so early "
                    "clients could connect and then wait."),
    "RQ.net.3": Row("Acceptor.accept",
                    "ConnectionQuotas.inc (max.connections, per-listener, per-IP and rate limits), socket options, "
                    "round-robin into a processor's 20-slot queue",
                    "The same job as 1.0.2's NW.acceptor.1: accept, count, tune the socket, hand it to a "
                    "processor. 3.9 enforces more limits: over the broker-wide max.connections or a listener's "
                    "limit the acceptor waits for a free slot instead of refusing; an address that opens "
                    "connections too fast has them held and closed later (throttled). Only the per-IP count "
                    "still closes the connection at once (NW.acceptor.2)."),
    "RQ.net.4": Row("Processor.processNewResponses",
                    "NoOp → unmute; Send → sendResponse; Close → close; Start/EndThrottling → the channel's mute "
                    "state",
                    "As in 1.0.2 (NW.processor.2) the processor drains the responses its handlers queued for it. "
                    "New since then (KIP-219): a throttled client gets its response at once, with the throttle "
                    "time in it, and the broker keeps the channel muted for that long; 1.0.2 held the response "
                    "back for the throttle time instead, so a client learned of it only after the wait and could "
                    "time out meanwhile."),
    "RQ.net.5": Row("Processor.processCompletedReceives",
                    "parse the header; an API or version this listener does not enable → close; Request → "
                    "RequestChannel.sendRequest (blocks when full); mute",
                    "The hand-over from a network thread to the handler threads, as in 1.0.2 (NW.processor.4): one "
                    "request at a time per connection (the channel stays muted until its response is sent), and "
                    "a full request queue blocks the processor (back-pressure). 3.9 also closes, without an "
                    "answer, a connection that sends an API its listener does not serve, and remembers the "
                    "client's software name and version from ApiVersions (KIP-511). The request's trace starts "
                    "here."),
    "RQ.net.6": Row("Processor.closeExcessConnections",
                    "above max.connections and not the inter-broker listener: close the lowest-priority "
                    "connection, one per loop",
                    "New in 3.9 (1.0.2 had no broker-wide connection limit): while the broker holds more than "
                    "max.connections, each processor loop closes one connection, preferring one already closing, "
                    "then the least recently used. The inter-broker listener is spared, so client floods cannot "
                    "cut replication."),
    "RQ.net.7": Row("KafkaRequestHandler.run",
                    "receiveRequest(300): callbacks first; Request → KafkaApis.handle; CallbackRequest → an "
                    "earlier request's continuation; ShutdownRequest ends the thread",
                    "An I/O thread as in 1.0.2 (NW.handler.1), with one new duty: a request that had to wait for "
                    "another broker (a transactional produce waiting for its coordinator, RQ.produce.2) resumes as a "
                    "CallbackRequest, and handlers take those before new requests. Such a span belongs to the "
                    "trace of the request it continues, not to a new one."),
    "RQ.produce.1": Row("KafkaApis.handleProduceRequest",
                        "authorize (transactional id, topics), partition known to the metadata cache, v3+ one "
                        "magic-v2 batch → RQ.produce.2; response callback",
                        "1.0.2's entry point (NW.apis.produce), now checking partitions against the metadata cache "
                        "that the KRaft metadata log keeps current. New on the way back: a NOT_LEADER_OR_FOLLOWER "
                        "error names the current leader (KIP-951), so the producer can retry without a metadata "
                        "round trip. acks=0 still gets no response, and an error closes the connection so the "
                        "producer notices."),
    "RQ.produce.2": Row("ReplicaManager.handleProduceAppend",
                        "transactional produce: partitions not yet in a transaction are verified with the "
                        "transaction coordinator (AddPartitionsToTxn, verifyOnly) before RQ.produce.3",
                        "New since 1.0.2 (KIP-890, Kafka 3.6): before writing transactional records, the leader asks "
                        "the transaction coordinator whether the partition belongs to the producer's ongoing "
                        "transaction. This closes a hole where a late or retried produce could write records outside "
                        "any transaction, a hanging transaction that blocks read_committed consumers. The answer "
                        "comes back on another thread and the append resumes as a callback (RQ.net.7) in this "
                        "trace. Non-transactional records pass straight through."),
    "RQ.produce.3": Row("ReplicaManager.appendRecords",
                        "acks in {-1, 0, 1} (INVALID_REQUIRED_ACKS), append to the local logs, queue purgatory "
                        "checks, acks=-1 → DelayedProduce",
                        "The role of 1.0.2's NW.rm.append: the leader appends at once; with acks=all the answer waits "
                        "in the produce purgatory (RQ.produce.8) until the in-sync replicas have the records. What "
                        "changed: requests waiting on these partitions are no longer completed from inside the "
                        "append; a queued action does it when KafkaApis.handle finishes, once every lock taken for "
                        "the append is released (completing them inside had led to deadlocks)."),
    "RQ.produce.4": Row("Partition.appendRecordsToLeader",
                        "leader check (NOT_LEADER_OR_FOLLOWER), acks=-1 below min.insync.replicas → "
                        "NOT_ENOUGH_REPLICAS, UnifiedLog.appendAsLeader, maybe advance the high watermark",
                        "The partition checks it still leads and, for acks=all, that enough replicas are in sync "
                        "before writing anything: below min.insync.replicas the write is refused rather than "
                        "acknowledged with too few copies. 3.9 also keeps the high watermark still while the ISR is "
                        "below that minimum, and reports whether it moved instead of completing waiting requests "
                        "itself, as 1.0.2 did here."),
    "RQ.produce.5": Row("UnifiedLog.append",
                        "validate batches (offset, size, CRC); under the log lock: offsets (RQ.produce.6), leader "
                        "epochs, roll, producer-state checks, write (RQ.produce.7), producer and transaction state",
                        "The heart of the write, 1.0.2's NW.log.append (Log.append) under a new name. UnifiedLog "
                        "keeps what a file does not: producer state, the leader-epoch cache, the high watermark, "
                        "open transactions; the files are LocalLog's. A retried batch of an idempotent producer "
                        "gets its first write's offsets back instead of being written twice. 3.9 also refuses a "
                        "transactional batch that RQ.produce.2 did not verify (INVALID_TXN_STATE), and rolls the "
                        "segment before the producer-state check, 1.0.2 after it."),
    "RQ.produce.6": Row("LogValidator.validateMessagesAndAssignOffsets",
                        "in place, with format conversion, or recompressed: check batches and records, assign "
                        "offsets, max timestamp and leader epoch",
                        "Offsets are given by the leader here, never by the client. Uncompressed batches get them in "
                        "place; a compressed batch stays as it is when its codec and format allow, otherwise it is "
                        "decompressed and rebuilt, which costs CPU and shows as a long span. Since 1.0.2 the "
                        "timestamp check has two bounds (message.timestamp.before.max.ms and .after.max.ms instead "
                        "of timestamp.difference.max.ms), and a rejected batch lists every bad record (KIP-467)."),
    "RQ.produce.7": Row("LocalLog.append",
                        "LogSegment.append: file, max timestamp, offset and time index entries every "
                        "index.interval.bytes; then the log end offset",
                        "The bytes reach the active segment's file (the page cache: fsync is left to the flush "
                        "settings and to replication). Every index.interval.bytes an offset-index and a time-index "
                        "entry are added, which keep reads by offset and by time cheap. LocalLog is 3.9's split of "
                        "the file side of 1.0.2's Log; the index entry is keyed by the batch's last offset, in "
                        "1.0.2 by its first."),
    "RQ.produce.8": Row("DelayedProduce.tryComplete",
                        "per partition: high watermark past the append → done; ISR below min → "
                        "NOT_ENOUGH_REPLICAS_AFTER_APPEND; all done → answer; else wait until the timeout",
                        "An acks=all produce waits until each partition's high watermark has passed its records, "
                        "that is until the in-sync replicas have fetched them. It is tried when created, then each "
                        "time a follower's fetch or an ISR change may have moved the HW, often on another thread; "
                        "every try stays in this request's trace, linked to what triggered it. What it waits for "
                        "has not changed since 1.0.2."),
    "RQ.fetch.1": Row("KafkaApis.handleFetchRequest",
                      "topic ids (v13+), fetch session (RQ.fetch.2), authorization (followers CLUSTER_ACTION, "
                      "consumers READ) → RQ.fetch.3; the response built through the session",
                      "One API for consumers and follower replicas alike; a follower's fetch is also how the "
                      "leader learns its progress, which moves the high watermark and the ISR. Since 1.0.2: "
                      "partitions named by topic id (a recreated topic is not mistaken for the old one), fetch "
                      "sessions, and errors that name the current leader (KIP-951). A follower's request links "
                      "its fetch round on the follower (RQ.follower.1) as parent."),
    "RQ.fetch.2": Row("FetchManager.newContext",
                      "full (epoch 0), sessionless (-1) or incremental fetch context; session errors for the whole "
                      "request",
                      "New since 1.0.2 (KIP-227, Kafka 1.1): a fetcher asking for the same partitions again and "
                      "again opens a fetch session; later requests list only what changed, and responses only "
                      "partitions with news. For a follower replicating thousands of partitions that saves most "
                      "of every round trip. A full request creates the session when its response is built; a "
                      "full cache may evict another session or answer with session id 0 (none)."),
    "RQ.fetch.3": Row("ReplicaManager.fetchMessages",
                      "read each partition (RQ.fetch.4); answer now on enough bytes, an error, a diverging epoch or "
                      "no wait, else a DelayedFetch (RQ.fetch.5)",
                      "As in 1.0.2, a fetch with too little to return parks in the fetch purgatory instead of "
                      "answering almost empty: long polling, bounded by max.wait.ms and satisfied by min.bytes. "
                      "New reasons to answer at once: a follower's log diverges (RQ.follower.2), or a consumer is "
                      "sent to a preferred read replica near it (KIP-392)."),
    "RQ.fetch.4": Row("Partition.fetchRecords",
                      "leader-epoch checks (FENCED / UNKNOWN_LEADER_EPOCH), diverging epoch, read up to LEO, HW or "
                      "LSO; for a follower: its state, ISR expansion, high watermark",
                      "The read is guarded by epochs (KIP-320): a fetcher that knows an older leader epoch is "
                      "fenced and refreshes its metadata instead of reading from a deposed leader. A follower "
                      "sends the epoch of its last record; if the leader's log diverges there, the answer is "
                      "where to truncate, not data. For a follower the read also records how far it got, which "
                      "can add it to the ISR (RQ.isr) and move the high watermark acks=all produces wait for. In "
                      "1.0.2 this was Log.read plus a separate follower update."),
    "RQ.fetch.5": Row("DelayedFetch.tryComplete",
                      "complete on leadership change, unknown or offline partition, epoch fencing, a segment change, "
                      "min.bytes reached or a diverging epoch; read again and answer; expire after max.wait.ms",
                      "A parked fetch is re-checked when data is appended, the high watermark moves or the "
                      "partition changes hands. It keeps no data: on completion it reads the logs again, so the "
                      "response holds the newest records. The cases are 1.0.2's plus the epoch and divergence "
                      "checks; later tries stay in the original request's trace."),
    "RQ.follower.1": Row("AbstractFetcherThread.processFetchRequest",
                         "a follower's fetch round: Fetch (session, leader epochs, last fetched epoch) to the "
                         "leader; append as follower, HW = min(leader HW, LEO); errors → truncate or back off",
                         "Replication is pulled: one fetcher thread per leader broker asks for more, appends what "
                         "comes back as a follower (the leader's offsets are kept) and takes the leader's high "
                         "watermark. This trace is the follower's side; the leader's RQ.fetch.1 names it as "
                         "parent. Since 1.0.2 the fetch carries the last fetched epoch, so a diverging log is found "
                         "in the fetch itself; the separate OffsetsForLeaderEpoch round (LE.request) remains only "
                         "for partitions without an epoch cache."),
    "RQ.follower.2": Row("AbstractFetcherThread.truncateOnFetchResponse",
                         "the leader reported a diverging epoch: truncation offset, truncate log, epoch cache and "
                         "producer state (pausing the cleaner), fetch again",
                         "After a leader change a follower may hold records of an old epoch the new leader never "
                         "had. The leader says so in the fetch response and the follower cuts its log back to "
                         "where the two agree. Without unclean leader election those records were never committed, "
                         "so no acknowledged acks=all write is lost. New since 1.0.2, which could truncate only "
                         "through OffsetsForLeaderEpoch (LE.truncate)."),
    "RQ.isr": Row("Partition.submitAlterPartition",
                  "expand (follower caught up) or shrink (follower behind for replica.lag.time.max.ms): pending "
                  "state, AlterPartition to the active controller, then commit or roll back",
                  "The leader no longer writes the ISR itself: it proposes the change to the controller with "
                  "AlterPartition and adopts it only once the controller has committed it to the metadata log "
                  "(KR.qc). While a change is pending the high watermark counts both the old and the new "
                  "members (the maximal ISR, KIP-497), so it never relies on an ISR the controller might refuse. "
                  "1.0.2's leader wrote the ISR to ZooKeeper (Partition.updateIsr) and told the controller "
                  "through /isr_change_notification."),
    "RQ.load.1": Row("LogManager.loadLogs",
                     "per log dir: clean-shutdown marker, recovery-point and log-start checkpoints; each partition "
                     "loaded on num.recovery.threads.per.data.dir threads; then the periodic tasks and the cleaner",
                     "A KRaft broker loads its logs when the first metadata image arrives (KR.publish), not early "
                     "in startup as 1.0.2 did (LC.startup.08): it needs the image to know which partitions are "
                     "still its own, and to spot the directory of a topic deleted while it was away. Without the "
                     ".kafka_cleanshutdown marker every log is recovered from its recovery point; 3.9 deletes the "
                     "marker before loading, so a crash while loading means recovery next time too."),
    "RQ.load.2": Row("LogLoader.load",
                     "leftover .deleted/.cleaned/.swap files, interrupted swaps, segments and indexes, recovery "
                     "after an unclean shutdown, producer state",
                     "One partition's log coming back from disk. What an interrupted cleaner swap or segment "
                     "split left behind is finished or thrown away, so the log is as it was before or after that "
                     "operation, never half-way. After a crash every segment past the recovery point is re-read "
                     "(CRCs checked, indexes rebuilt) and the log is cut at the first corrupt batch. 1.0.2 did "
                     "this in the Log constructor (Log.loadSegments)."),
    # -- CL: the log cleaner (1.0.2 and 3.9) ------------------------------------------------------------------------
    "CL.startup": Row("LogCleaner.startup",
                      "log.cleaner.threads cleaner threads, each with its share of the dedupe buffer and I/O "
                      "buffers",
                      "The cleaner compacts topics with cleanup.policy=compact (__consumer_offsets among them), "
                      "keeping the newest record of each key. Its threads start once the logs are loaded. The "
                      "dedupe buffer bounds how much of a dirty log one pass can compact. 3.9 creates the threads "
                      "here, so their number can change without a restart; 1.0.2 built them with the cleaner."),
    "CL.work": Row("CleanerThread.doWork",
                   "one pass: clean the filthiest log, then delete old segments; nothing to do → sleep",
                   "One pass of a cleaner thread. A pass with nothing to clean is not traced, so each CL.work trace "
                   "is real compaction. In 3.9 a log whose cleaning fails is marked uncleanable and skipped, and "
                   "the thread carries on; in 1.0.2 an unexpected error ended the thread, and with it compaction "
                   "for every log."),
    "CL.grab": Row("LogCleanerManager.grabFilthiestCompactedLog",
                   "per compacted log the cleanable range and dirty ratio; pick the highest above "
                   "min.cleanable.dirty.ratio; mark it in progress",
                   "The cleaner picks the log with the largest share of dirty bytes (written since its last clean). "
                   "The dirty range stops before the active segment, before open transactions and before records "
                   "younger than min.compaction.lag.ms. The chosen log is marked in progress, so truncation and "
                   "deletion wait for it. 3.9 also picks a log whose dirty records are older than "
                   "max.compaction.lag.ms, whatever its ratio."),
    "CL.clean": Row("Cleaner.clean",
                    "build the offset map (CL.map), then rewrite the segments up to its end (CL.group, "
                    "CL.segments)",
                    "Compaction in two passes: map each key of the dirty range to its newest offset, then rewrite "
                    "the log up to the map's end keeping only records nothing newer replaces. The clean head is "
                    "rewritten too, because a key in the dirty range can make an old record there obsolete."),
    "CL.map": Row("Cleaner.buildOffsetMap",
                  "key → newest offset over the dirty range, skipping aborted transactions, until the map is full",
                  "A compact hash of each key (MD5, so a long key costs 16 bytes) to its newest offset. When the "
                  "map fills, this pass cleans only up to there and the next pass continues. Records of aborted "
                  "transactions are skipped so they cannot hide a committed value."),
    "CL.group": Row("Cleaner.groupSegmentsBySize",
                    "consecutive segments merged while within segment.bytes, the index size and 32-bit relative "
                    "offsets",
                    "Cleaning shrinks segments; merging neighbours into one cleaned segment keeps the file count "
                    "down."),
    "CL.segments": Row("Cleaner.cleanSegments",
                       "each group into a new .cleaned segment (CL.into), flushed, then swapped in (CL.swap)",
                       "The cleaned data is written beside the original and swapped in, so a crash at any moment "
                       "leaves either the old segments or the new one. An aborted clean deletes the .cleaned files."),
    "CL.into": Row("Cleaner.cleanInto",
                   "keep the newest record per key, drop aborted data, keep tombstones and markers until their "
                   "horizon",
                   "The decision per record: kept if it is the newest for its key or newer than the map covers. "
                   "Tombstones (null values) and transaction markers outlive their data for delete.retention.ms so "
                   "that a consumer behind still sees the deletion. For v2 batches 3.9 writes that horizon into "
                   "the batch the first time it is cleaned (KIP-534); 1.0.2 guessed it from segment file times."),
    "CL.swap": Row("UnifiedLog.replaceSegments",
                   ".cleaned → .swap, old segments → .deleted (removed later), .swap → final name",
                   "The cleaned segment replaces the old ones through renames. A crash can stop at any rename, and "
                   "log loading (RQ.load.2) knows how to finish from each. 1.0.2's Log.replaceSegments put in "
                   "exactly one segment; 3.9 can put in several, after an offset overflow split one."),
    "CL.done": Row("LogCleanerManager.doneCleaning",
                   "the clean's end offset into cleaner-offset-checkpoint; an aborted clean → Paused, waiters woken",
                   "Runs whether the clean worked or not. The checkpoint is where the next pass starts; if the "
                   "clean was aborted meanwhile (CL.abort), the log becomes Paused and whoever waited is released."),
    "CL.delete": Row("LogCleanerManager.deletableLogs",
                     "compacted logs not being cleaned → deleteOldSegments",
                     "Retention still applies to a topic with cleanup.policy=compact,delete, and DeleteRecords "
                     "can move any log's start forward; the old segments go here, in the cleaner's bookkeeping, "
                     "so a deletion never races a clean of the same log. 3.9 visits every compacted log, 1.0.2 only "
                     "those with both policies."),
    "CL.abort": Row("LogCleanerManager.abortAndPauseCleaning",
                    "not in progress → paused; in progress → aborted, wait until the cleaner stops, then paused",
                    "Before a log is truncated, deleted or moved, a clean running on it must stop, or the cleaner "
                    "would swap in segments of a log that changed under it. The caller waits until the cleaner "
                    "gives up; the log stays paused until the caller resumes it. 3.9 counts pauses, so two callers "
                    "that pause one log must both resume it."),
    # -- CT: the ZooKeeper controller ----------------------------------------------------------------------------
    "CT.startup.1": Row("KafkaController.startup", "`eventManager.put(Startup)`, `eventManager.start()`",
                        "The controller does all its work on one event thread; startup only queues the first event "
                        "and starts that thread."),
    "CT.event": Row("ControllerEventManager.process",
                    "one span per event taken off the queue; `kafka.controller.event` = its name; "
                    "`kafka.controller.state` = its ControllerState",
                    "Every controller action is an event processed one at a time on a single thread, so the "
                    "controller never needs locks around its state. The event's name says what triggered it."),
    "CT.startup.2": Row("KafkaController.Startup.process",
                        "register session-expiration and controller-change listeners, `elect()`",
                        "The controller watches /controller for changes and its ZooKeeper session for expiry, then "
                        "tries to become the controller."),
    "CT.change": Row("KafkaController.ControllerChange.process",
                     "`/controller` data changed; resign if no longer active",
                     "Another broker wrote /controller. If this broker was the active controller, it has lost the "
                     "role and must resign."),
    "CT.reelect": Row("KafkaController.Reelect.process", "`/controller` deleted; resign if needed, `elect()`",
                      "The controller's ephemeral znode vanished (its broker died or stopped): every broker races to "
                      "create it again."),
    "CT.elect": Row("KafkaController.elect",
                    "read `/controller`; create it ephemeral; won → `onControllerFailover`; node exists → read "
                    "winner; error → `triggerControllerMove`",
                    "The election is a race to create the ephemeral /controller znode: ZooKeeper lets exactly one "
                    "create succeed. The winner becomes the controller; the others just learn its id."),
    "CT.failover.01": Row("KafkaController.readControllerEpochFromZookeeper", "",
                          "The new controller reads the current controller epoch and its znode version, the "
                          "starting point for the increment that follows."),
    "CT.failover.02": Row("KafkaController.incrementControllerEpoch",
                          "conditional update of `/controller_epoch` (zkVersion)",
                          "The epoch is bumped with a conditional write on the znode version, so two would-be "
                          "controllers cannot both claim the same epoch. Brokers reject requests carrying an older "
                          "epoch: that is how a deposed controller is fenced."),
    "CT.failover.03": Row("LogDirUtils.deleteLogDirEvents", "",
                          "Stale log-dir failure notifications from before this controller are removed; the new "
                          "controller will read the current state of every broker anyway."),
    "CT.failover.04": Row("KafkaController.register*Listener",
                          "reassignment, ISR change, preferred election, topic change, topic deletion, broker change, "
                          "log dir event — one span each",
                          "The controller subscribes to every znode whose changes it must act on. From now on "
                          "ZooKeeper watches turn into events on the controller queue."),
    "CT.failover.05": Row("KafkaController.initializeControllerContext",
                          "live brokers, topics, assignments, leadership; starts ControllerChannelManager",
                          "The controller loads the whole cluster state from ZooKeeper into memory and opens a "
                          "channel (queue and send thread) to every live broker."),
    "CT.failover.06": Row("TopicDeletionManager.init", "",
                          "Topics queued for deletion in /admin/delete_topics are picked up so their deletion can "
                          "resume under the new controller."),
    "CT.failover.07": Row("KafkaController.sendUpdateMetadataRequest", "to all live-or-shutting-down brokers",
                          "Every broker learns the current leaders and live brokers from the new controller, so "
                          "their metadata caches (and the clients that ask them) are correct again."),
    "CT.failover.08": Row("ReplicaStateMachine.startup", "replicas → OnlineReplica / ReplicaDeletionIneligible",
                          "Each replica is marked Online if its broker is alive, otherwise ineligible for deletion."),
    "CT.failover.09": Row("PartitionStateMachine.startup",
                          "partitions → OnlinePartition / OfflinePartition, elect leaders",
                          "Partitions whose leader is alive are Online; the others are Offline and get a new leader "
                          "elected from their live ISR, if any."),
    "CT.failover.10": Row("KafkaController.registerPartitionModificationsListener", "one per topic",
                          "A watch per topic notices partitions being added to it."),
    "CT.failover.11": Row("KafkaController.maybeTriggerPartitionReassignment", "",
                          "Reassignments that were in progress under the old controller are resumed."),
    "CT.failover.12": Row("TopicDeletionManager.tryTopicDeletion", "",
                          "Deletions whose replicas can all be reached are started."),
    "CT.failover.13": Row("KafkaController.onPreferredReplicaElection", "pending elections",
                          "Preferred-leader elections that were requested but not finished are run."),
    "CT.failover.14": Row("KafkaScheduler.startup",
                          "controller scheduler; auto leader rebalance task if enabled",
                          "With auto.leader.rebalance.enable the controller periodically moves leadership back to "
                          "each partition's preferred replica."),
    "CT.resign": Row("KafkaController.onControllerResignation",
                     "deregister every listener, reset deletion manager, stop scheduler, reset counters, stop both "
                     "state machines, reset context — in 1.0.2 order",
                     "A controller that lost the role (or is shutting down) undoes its failover: it stops listening "
                     "and forgets its in-memory state, so stale decisions cannot leak out."),
    "CT.broker": Row("KafkaController.BrokerChange.process", "`onBrokerStartup` / `onBrokerFailure`",
                     "/brokers/ids changed: new brokers get metadata and their replicas come online; for dead brokers "
                     "the partitions they led go Offline and new leaders are elected from the ISR."),
    "CT.topic": Row("KafkaController.TopicChange.process", "`onNewTopicCreation` → `onNewPartitionCreation`",
                    "A topic appeared under /brokers/topics: its partitions and replicas go from New to Online, the "
                    "first live replica of each becomes leader, and LeaderAndIsr requests tell the brokers."),
    "CT.shutdown": Row("KafkaController.ControlledShutdown.process",
                       "move leadership off the broker, shrink ISR, answer partitionsRemaining",
                       "A broker asked to stop cleanly: the controller moves each partition it leads to another ISR "
                       "member and removes it from ISRs, answering with the partitions it could not move yet."),
    "CT.channel": Row("ControllerChannelManager.sendRequest / RequestSendThread.doWork",
                      "one queue + send thread per broker; LeaderAndIsr, UpdateMetadata, StopReplica",
                      "Controller decisions reach the brokers as requests, one queue and one blocking send thread "
                      "per broker, so a slow broker delays only its own requests."),
    "CT.psm": Row("partition.state.change (event)",
                  "`{topic, partition, from, to}`: NonExistent, New, Online, Offline",
                  "The partition state machine's transitions. Offline means no live leader: producers to that "
                  "partition fail until a new leader is elected."),
    "CT.rsm": Row("replica.state.change (event)",
                  "`{topic, partition, replica, from, to}`: New, Online, Offline, "
                  "ReplicaDeletionStarted/Successful/Ineligible, NonExistent",
                  "The replica state machine's transitions, one per replica (partition × broker)."),
    "CT.select": Row("<Selector>.selectLeader",
                     "OfflinePartition (live ISR first; unclean only if enabled; NoReplicaOnlineException), "
                     "ReassignedPartition, PreferredReplica, ControlledShutdown",
                     "Each situation has its own rule for picking a leader. The offline selector prefers the live "
                     "ISR and only takes an out-of-sync replica when unclean.leader.election.enable allows data "
                     "loss; otherwise the partition stays offline."),
    "CT.fence": Row("controller.epoch.stale (event)",
                    "a broker rejects a request whose controller epoch is older than the newest it has seen "
                    "(STALE_CONTROLLER_EPOCH)",
                    "A controller that was replaced but has not noticed yet (a long GC pause, a partition from "
                    "ZooKeeper) keeps sending requests; the brokers ignore them because a newer epoch exists."),
    # -- KR: KRaft (Kafka 3.9) ----------------------------------------------------------------------------------
    "KR.storage": Row("StorageTool.runFormatCommand / Formatter.doFormat",
                      "meta.properties v1 (node.id, cluster.id, directory.id) and the bootstrap metadata",
                      "A KRaft node never invents its identity at startup, as a ZooKeeper broker generating a "
                      "cluster id did: an operator formats every log dir first, with one cluster id for the whole "
                      "cluster. A dir formatted before is refused, so a typo cannot silently join a node to "
                      "another cluster."),
    "KR.build": Row("Kafka.buildServer", "ZooKeeper config -> KafkaServer; process.roles set -> KafkaRaftServer",
                    "The one place where the two modes part: the same kafka-server-start command builds the old "
                    "ZooKeeper-mode broker or the KRaft server, depending only on process.roles."),
    "KR.server": Row("KafkaRaftServer.startup", "SharedServer, then ControllerServer and/or BrokerServer",
                     "The controller role starts before the broker role, because the broker needs a quorum to "
                     "register with; shutdown runs the other way round."),
    "KR.controller": Row("ControllerServer.startup",
                         "SocketServer on the CONTROLLER listener, SharedServer, QuorumController, ControllerApis",
                         "The listener is bound before the Raft client starts, but requests are only processed at "
                         "the end: until then the other voters' Vote and Fetch requests wait in the socket."),
    "KR.shared": Row("SharedServer.start", "the RaftManager: metadata log, quorum-state, KafkaRaftClient, driver",
                     "Shared by the controller and broker roles of one node, started by whichever comes first: "
                     "one Raft client per node, whatever its roles."),
    "KR.driver": Row("KafkaRaftClientDriver.doWork", "loop calling client.poll(); graceful shutdown",
                     "One thread runs the whole Raft protocol of this node, so the client needs no locks. It only "
                     "shows as a span while it shuts down gracefully: a leader resigns before it goes."),
    "KR.poll": Row("KafkaRaftClient.poll", "the role's work, then inbound messages, then the listeners",
                   "Each turn does what the node's role asks (a leader appends and checks its quorum, a follower "
                   "fetches, a candidate asks for votes), then handles what arrived. Turns that did nothing leave "
                   "no span, so an idle quorum is quiet."),
    "KR.role": Row("raft.role.change (event)",
                   "Unattached / Candidate / Leader / Follower / Resigned, with the epoch",
                   "The durable part of Raft: quorum-state is written and fsynced before the node acts in its new "
                   "role, so a restarted voter never votes twice in one epoch. The event shows the file as it was "
                   "written."),
    "KR.vote": Row("KafkaRaftClient.handleVoteRequest / maybeSendVoteRequests",
                   "elections with randomized timeouts; a vote only for a log at least as long",
                   "A voter grants one vote per epoch, and only to a candidate whose log is at least as "
                   "up to date as its own: that is what keeps every committed record on the next leader. The "
                   "span says granted or not, and why."),
    "KR.begin": Row("KafkaRaftClient.handleBeginQuorumEpochRequest", "the new leader announces its epoch",
                    "A new leader tells the voters at once instead of waiting for them to find it by fetching."),
    "KR.fetch": Row("KafkaRaftClient.handleFetchRequest / maybeSendFetch",
                    "followers pull; diverging epochs truncate; the high watermark advances on a majority",
                    "Replication is pulled by the followers. The leader counts a record as committed once a "
                    "majority has it, and only once a record of its own epoch is committed; a follower whose log "
                    "went astray in an old epoch is told where to truncate."),
    "KR.listener": Row("KafkaRaftClient.pollListeners", "handleCommit, handleLoadSnapshot, handleLeaderChange",
                       "The Raft layer hands committed batches to its users (the quorum controller, the metadata "
                       "loader) only up to the high watermark: nothing uncommitted leaks out of it."),
    "KR.end": Row("KafkaRaftClient.handleEndQuorumEpochRequest", "a resigning leader asks for an election now",
                  "A graceful hand-over: the voters most caught up start an election at once instead of waiting "
                  "for their fetch timeout, so a planned restart costs a round trip, not seconds."),
    "KR.snapshot": Row("KafkaRaftClient.createSnapshot / handleFetchSnapshotRequest",
                       "a snapshot written; a follower behind the log start fetches it",
                       "Snapshots let the log be cleaned. A follower that was away longer than the log keeps "
                       "history loads the snapshot instead of replaying records that are gone."),
    "KR.apis": Row("ControllerApis.handle", "dispatch of the controller listener's requests",
                   "Raft RPCs go to the Raft client's thread, metadata operations to the quorum controller's "
                   "event queue; each is answered when its future completes."),
    "KR.qc": Row("QuorumController.createTopics (and registerBroker, processBrokerHeartbeat, alterPartition, ...)",
                 "a write event: records appended to the metadata log, the future completed on commit",
                 "Every change to the cluster's metadata is a batch of records in the Raft log. The client is "
                 "answered only when the batch is committed, so an answer never describes a change a new leader "
                 "could lose."),
    "KR.queue": Row("KafkaEventQueue.enqueue / EventHandler.handleEvents",
                    "APPEND / PREPEND / DEFERRED, tags, deadlines, shutdown",
                    "One thread runs every controller operation in order, which is how the controller avoids "
                    "locks. Deferred events (broker fencing, NoOps) wait for their deadline; an event that waited "
                    "past its own deadline fails with a timeout."),
    "KR.replay": Row("QuorumController.replay", "a record applied to its control manager",
                     "The active controller applies its records before they commit (and reverts them if it loses "
                     "leadership); the standbys apply them when they commit. So a standby is always ready to take "
                     "over: this is KIP-500's fast failover."),
    "KR.broker": Row("BrokerServer.startup / BrokerLifecycleManager", "register, heartbeat, fenced -> unfenced",
                     "A KRaft broker registers with the active controller and is fenced until it has caught up "
                     "with the metadata log."),
    "KR.publish": Row("MetadataLoader.handleCommit / BrokerMetadataPublisher.onMetadataUpdate",
                      "committed records published as a new metadata image",
                      "Committed records become a new metadata image that publishers (snapshots, and a broker's "
                      "caches and replica manager) receive once the node has caught up."),
    "KR.fence": Row("QuorumController.rescheduleMaybeFenceStaleBrokers",
                    "a broker silent for broker.session.timeout.ms is fenced and its leaderships move",
                    "Without ZooKeeper sessions, the controller itself decides a broker is gone: no heartbeat "
                    "within the session timeout, and a deferred event fences it, one broker at a time."),
}


def explain(step: str | None) -> Row | None:
    return ROWS.get(step) if step else None
