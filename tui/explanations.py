"""Every FIDELITY.md row of LC, NW, RQ, CL, CT, KR, LE, TX, GC, TX39 and KV, with a paragraph on what that Kafka
step is for.

`span` is the row's span as FIDELITY.md has it and `what` its summary (shortened where the row is long); `why` is
written for the detail pane: what a learner should take from seeing the step run (or not run) in a trace, and which
attributes show it. A 3.9 row (RQ, CL, GC, TX39, KV) also says what 1.0.2 did at that step.
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
    # -- LE: leader epochs (KIP-101, Kafka 1.0.2) ------------------------------------------------------------------
    "LE.assign": Row("LeaderEpochFileCache.assign",
                     "a new epoch's first offset, recorded and checkpointed to `leader-epoch-checkpoint`",
                     "Each v2 batch carries the leader epoch it was written in. The first batch of a new epoch adds "
                     "the pair (epoch, start offset) to the replica's cache, on the leader as it appends and on a "
                     "follower as it copies, and the file is rewritten at once: kafka.leader.epoch, "
                     "kafka.leader.epoch.start_offset and kafka.leader.epoch.previous show the step. This small "
                     "table is what later lets a follower ask where an epoch ended instead of trusting its high "
                     "watermark (KIP-101, Kafka 0.11)."),
    "LE.request": Row("AbstractFetcherThread.maybeTruncate",
                      "partitions marked for truncation: ask each leader where the follower's latest epoch ends",
                      "A follower told to follow a new leader (or just restarted) does not fetch at once: it first "
                      "sends OffsetsForLeaderEpoch with the latest epoch in its own log. kafka.partitions and "
                      "kafka.leader.epochs say what it asked, kafka.leader.epoch.end_offsets and "
                      "kafka.leader.epoch.errors what came back; LE.truncate then cuts inside this span. With an "
                      "inter-broker protocol too old for the request (kafka.leader.epoch.request.sent false) every "
                      "answer is undefined and the follower falls back to its high watermark, as before KIP-101."),
    "LE.apis": Row("KafkaApis.handleOffsetForLeaderEpochRequest",
                   "the leader answers from `ReplicaManager.lastOffsetForLeaderEpoch` → "
                   "`LeaderEpochFileCache.endOffsetFor`",
                   "The leader's side of the question: for the follower's latest epoch it answers its own log end "
                   "offset if that is the current epoch, else the start offset of the next epoch it knows, which is "
                   "where the two logs can start to differ. -1 in kafka.leader.epoch.end_offsets means it cannot say "
                   "(an epoch older than its cache, or no epochs at all). 1.0.2 answers with an offset only; KIP-279 "
                   "(Kafka 2.0) added the epoch to the answer, because after quick leader changes the single offset "
                   "could leave a follower's log diverged."),
    "LE.truncate": Row("ReplicaFetcherThread.maybeTruncate",
                       "truncate to the leader's end offset for that epoch (or the follower's LEO if smaller); the "
                       "high watermark only when the leader has no answer",
                       "Each partition is cut back to where it can still match the leader, and one `log.truncate` "
                       "event per partition says what decided: kafka.truncation.by is leader epoch, log end offset "
                       "(nothing to cut) or high watermark, and kafka.records.lost counts the records removed; "
                       "without unclean leader election they were never committed. Before KIP-101 a follower always "
                       "cut to its high watermark, which could throw away records that were already acknowledged, or "
                       "leave leader and follower with different records at the same offset."),
    # -- TX: transactions (KIP-98, Kafka 1.0.2) --------------------------------------------------------------------
    "TX.init": Row("TransactionCoordinator.handleInitProducerId",
                   "a transactional id gets its producer id and a bumped epoch; an older epoch's ongoing transaction "
                   "is aborted",
                   "InitProducerId is how a transactional producer claims its id. The coordinator keeps one producer "
                   "id per transactional id and bumps its epoch on every call, so an older instance of the same "
                   "application (a zombie) is fenced: its next request fails with INVALID_PRODUCER_EPOCH. If that "
                   "older instance left a transaction open, it is aborted first and the new one is told "
                   "CONCURRENT_TRANSACTIONS and retries. kafka.producer.id and kafka.producer.epoch are what it got "
                   "(kafka.txn.pending.state while its write is not yet acknowledged); in 1.0.2 new ids come in "
                   "blocks from ZooKeeper's /latest_producer_id_block."),
    "TX.add": Row("TransactionCoordinator.handleAddPartitionsToTransaction",
                  "the partitions join the transaction; the metadata is written to `__transaction_state` before the "
                  "answer",
                  "Before a producer writes to a partition inside a transaction, the coordinator must know: that "
                  "list is what lets it put a commit or abort marker on every partition at the end. The new "
                  "partition set (state Ongoing) is written to __transaction_state before the producer gets its "
                  "answer, so a new coordinator would know it too; partitions already in the transaction are "
                  "answered at once, with no write. The AddPartitionsToTxn that opens a transaction starts its "
                  "trace; later steps of the same transaction hang under it."),
    "TX.offsets": Row("GroupCoordinator.handleTxnCommitOffsets",
                      "offsets committed inside the transaction (after `AddOffsetsToTxn` added the group's offsets "
                      "partition)",
                      "Consume-transform-produce is exactly once only if the consumed offsets commit with the "
                      "output. The group coordinator writes kafka.offsets as a transactional batch of the producer "
                      "id, but keeps them pending: OffsetFetch does not see them until the COMMIT marker reaches "
                      "that __consumer_offsets partition (TX.write), and an ABORT drops them. 1.0.2 checks no group "
                      "generation here; KIP-447 (Kafka 2.5) added member and generation so that a consumer that lost "
                      "its partitions in a rebalance cannot commit for them."),
    "TX.end": Row("TransactionCoordinator.handleEndTransaction",
                  "PrepareCommit or PrepareAbort written, then the markers are queued",
                  "EndTxn is the point of decision: once PrepareCommit or PrepareAbort is in __transaction_state, "
                  "the transaction will be completed that way, even if this coordinator dies (its successor reloads "
                  "the state and resends the markers). The producer is answered as soon as that write is "
                  "acknowledged; the markers follow (TX.markers). kafka.txn.result is COMMIT or ABORT; an abort "
                  "started by a fence or a timeout shows here too."),
    "TX.markers": Row("TransactionMarkerChannelManager.addTxnMarkersToSend",
                      "WriteTxnMarkers to every partition leader of the transaction, retried until each answers",
                      "The coordinator queues one marker per leader broker for the partitions in "
                      "kafka.txn.partitions, and a send thread carries them as WriteTxnMarkers requests (the child "
                      "spans, with kafka.txn.partition.errors). Errors such as a moved leader are retried until "
                      "every partition has answered; only then is the transaction completed (TX.complete). "
                      "kafka.txn.coordinator.epoch goes with each marker, so a leader can refuse markers from a "
                      "coordinator that has been replaced."),
    "TX.write": Row("KafkaApis.handleWriteTxnMarkersRequest",
                    "each leader appends the control batch; the last stable offset moves; an abort enters the "
                    "aborted-transaction index",
                    "On each partition leader, the marker is a control batch appended to the log. It ends the "
                    "producer's open transaction there, so the last stable offset can move past it and "
                    "read_committed consumers can read up to it: kafka.txn.partitions.written shows leo, lso and hw "
                    "after the append. An abort is also added to the segment's .txnindex (kafka.txn.aborts.indexed), "
                    "which is how read_committed consumers learn which records to skip. A marker on "
                    "__consumer_offsets makes the transaction's offsets visible (or drops them)."),
    "TX.complete": Row("TransactionStateManager.appendTransactionToLog",
                       "CompleteCommit or CompleteAbort written once every marker is acknowledged",
                       "The last write of a transaction: the coordinator records CompleteCommit or CompleteAbort and "
                       "clears the partition list. Until it is written, a new AddPartitionsToTxn from the same "
                       "producer gets CONCURRENT_TRANSACTIONS and is retried, so the next transaction cannot start "
                       "while markers of this one are still being written. Only this write of appendTransactionToLog "
                       "has a span of its own; the earlier ones (Ongoing, PrepareCommit, PrepareAbort) run inside "
                       "TX.init, TX.add and TX.end."),
    "TX.expire": Row("TransactionCoordinator.abortTimedOutTransactions",
                     "*conditional* — a transaction older than its timeout is aborted by the coordinator",
                     "A producer that crashed mid-transaction would otherwise hold back the last stable offset of "
                     "every partition it wrote to, and read_committed consumers with it. A scheduled scan "
                     "(transaction.abort.timed.out.transaction.cleanup.interval.ms, 60 s in 1.0.2, 10 s in 3.9) "
                     "finds transactions open longer than their transaction.timeout.ms; each gets a bumped epoch "
                     "(fencing that producer) and an abort through TX.end. A run whose transactions all end in time "
                     "never shows this span."),
    "TX.state": Row("txn.state.change (event)",
                    "`{transactional.id, from, to}`: Empty, Ongoing, PrepareCommit, PrepareAbort, CompleteCommit, "
                    "CompleteAbort, Dead",
                    "A transactional id's state changes only after the record of the new state is acknowledged in "
                    "__transaction_state: until then the new state is only pending. So the coordinator's memory "
                    "never holds a state a successor could not reload. The event gives kafka.txn.state.from and "
                    "kafka.txn.state.to, on a short span of its own linked to the transaction's trace."),
    # -- GC: the group coordinator (Kafka 3.9, KIP-848) ------------------------------------------------------------
    "GC.build": Row("BrokerServer.createGroupCoordinator",
                    "the new coordinator's service, runtime, loader and writer built; otherwise the old Scala "
                    "coordinator",
                    "With `consumer` in group.coordinator.rebalance.protocols (kafka-edu's KRaft clusters turn it "
                    "on) the broker builds 3.9's new coordinator: a runtime with its own event-processor threads "
                    "(kafka.group.coordinator.threads), a timer, a loader reading offsets.load.buffer.size at a time "
                    "(kafka.offsets.load.buffer.size) and a writer into the ReplicaManager. Nothing runs yet. 1.0.2 "
                    "built and started its Scala GroupCoordinator in one go in KafkaServer.startup (LC.startup.14), "
                    "with purgatories for joins and heartbeats."),
    "GC.startup": Row("GroupCoordinatorService.startup",
                      "on the first metadata publish, after LogManager and ReplicaManager: active, with the "
                      "`__consumer_offsets` partition count",
                      "The coordinator goes live only once the broker has the cluster's metadata: the partition "
                      "count of __consumer_offsets (kafka.group.coordinator.partitions) comes from the published "
                      "image, since it decides which partition, and so which broker, owns each group. Until then "
                      "every group request is answered COORDINATOR_NOT_AVAILABLE. 1.0.2 started the coordinator "
                      "during KafkaServer.startup and read that count from ZooKeeper."),
    "GC.elect": Row("GroupCoordinatorService.onElection → CoordinatorRuntime.scheduleLoadOperation",
                    "this broker now leads `__consumer_offsets-p`: a context created, a load scheduled (a stale epoch "
                    "is ignored)",
                    "The groups hashed to a __consumer_offsets partition are served by that partition's leader. When "
                    "a metadata publish makes this broker the leader (kafka.topic.partition, kafka.leader.epoch), "
                    "the runtime creates a fresh shard for it and schedules its load; an election with an epoch no "
                    "newer than the one held is ignored. In 1.0.2 the controller's LeaderAndIsr request started the "
                    "same move (GroupCoordinator.handleGroupImmigration)."),
    "GC.load": Row("CoordinatorLoaderImpl.load / doLoad",
                   "read the partition from log start to end, replaying each record; COMMIT/ABORT markers settle "
                   "transactional offsets",
                   "The coordinator's state is rebuilt from the log alone: every record is replayed (GC.replay) and "
                   "transaction markers settle pending transactional offsets, on the loader's own thread. "
                   "kafka.load.records and kafka.load.bytes say how much was read, kafka.load.error why a load "
                   "failed. Meanwhile the partition's groups get COORDINATOR_LOAD_IN_PROGRESS, as in 1.0.2, whose "
                   "loader knew only offset commits and classic group metadata."),
    "GC.resign": Row("GroupCoordinatorService.onResignation → CoordinatorRuntime.scheduleUnloadOperation",
                     "*conditional* — the partition moved or was deleted: CLOSED; timers cancelled, pending work "
                     "failed with NOT_COORDINATOR",
                     "When leadership of the partition moves away (or the topic is deleted: kafka.leader.epoch -1), "
                     "everything the shard had running stops: timers are cancelled, and writes waiting for a commit "
                     "or sitting in the open batch fail with NOT_COORDINATOR, which sends clients to look for the "
                     "new coordinator. A resignation with an epoch no newer than the loaded one is ignored. In 1.0.2 "
                     "the same clean-up was GroupCoordinator.handleGroupEmigration, started by LeaderAndIsr or "
                     "StopReplica."),
    "GC.write": Row("CoordinatorRuntime.scheduleWriteOperation → CoordinatorWriteEvent.run",
                    "every mutating API (and every timer): an event queued under its partition, then run on a "
                    "processor thread",
                    "Each group operation (kafka.coordinator.operation: consumer-group-heartbeat, commit-offset, "
                    "...) becomes an event queued per __consumer_offsets partition, and one partition's events run "
                    "one at a time on a group-coordinator-event-processor thread: the shard needs no locks. The run "
                    "shows as the child span CoordinatorRuntime.CoordinatorWriteEvent.run, then the operation's own "
                    "row and GC.append. 1.0.2 ran group logic on the request-handler thread under the group's lock."),
    "GC.hb": Row("GroupMetadataManager.consumerGroupHeartbeat",
                 "KIP-848 ConsumerGroupHeartbeat: checks, join (epoch 0), leave (-1/-2 → GC.fence), member epoch "
                 "check, member record",
                 "The one membership request of the new protocol: a member joins with epoch 0, heartbeats with its "
                 "current epoch, changes its subscription, leaves with -1, and receives its partitions in the "
                 "answers. kafka.member.epoch.request is what it sent; kafka.member.epoch, kafka.group.epoch and "
                 "kafka.group.state (Empty, Assigning, Reconciling, Stable) are what it leaves behind. A member "
                 "whose epoch does not match gets FENCED_MEMBER_EPOCH and must rejoin. In 1.0.2 the same job took "
                 "JoinGroup, SyncGroup and Heartbeat, and every change stopped the whole group."),
    "GC.target": Row("TargetAssignmentBuilder.build",
                     "group epoch > assignment epoch: the server-side assignor (uniform or range) computes every "
                     "member's target",
                     "The assignment is computed on the broker now: when the group epoch has moved past the "
                     "assignment epoch, the assignor (kafka.assignor) spreads all subscribed partitions over the "
                     "members and records only the targets that changed (kafka.target.assignment, "
                     "kafka.target.epoch). A link points to the span that bumped the epoch, when another heartbeat "
                     "did. In 1.0.2 one consumer, the group leader, ran the assignor and sent the result in its "
                     "SyncGroup; the coordinator only passed it on."),
    "GC.reconcile": Row("CurrentAssignmentBuilder.build",
                        "move one member towards its target: revoke first (UNREVOKED_PARTITIONS), then the new epoch "
                        "and partitions not held by others",
                        "Each member converges on its own: it first gives up partitions it must lose "
                        "(kafka.partitions.pending.revocation, member state UNREVOKED_PARTITIONS) and keeps the "
                        "rest, and only once its heartbeat shows they are released does it move to the target epoch "
                        "and get its new partitions, except those another member still holds. Compare "
                        "kafka.member.epoch and kafka.assignment.partitions with their .next values. In 1.0.2 every "
                        "member revoked everything before rejoining (eager rebalancing); KIP-429 (Kafka 2.4) made "
                        "the clients cooperative, KIP-848 moves it to the broker."),
    "GC.fence": Row("GroupMetadataManager.consumerGroupFenceMember",
                    "*conditional* — leave, session timeout or rebalance timeout: the member's records tombstoned, "
                    "group epoch + 1",
                    "A member is removed when it leaves (epoch -1), stops heartbeating for "
                    "group.consumer.session.timeout.ms, or does not revoke within its rebalance timeout: tombstones "
                    "for its records, its timers cancelled, and the group epoch bumped (GC.epoch) so that its "
                    "partitions are reassigned. A timer's fence is a trace of its own. A static member leaving with "
                    "-2 keeps its slot for its instance id. In 1.0.2 an expired heartbeat removed the member and "
                    "made every other member rejoin."),
    "GC.join": Row("GroupMetadataManager.classicGroupJoin",
                   "classic JoinGroup on the new runtime: MEMBER_ID_REQUIRED, `prepareRebalance`, the initial delay, "
                   "the next generation",
                   "Old clients keep working: the classic protocol runs on the same runtime. A joining member first "
                   "gets MEMBER_ID_REQUIRED (JoinGroup v4+) and rejoins with the id it was given; a new member "
                   "starts a rebalance, which waits for the known members to rejoin (an empty group waits "
                   "group.initial.rebalance.delay.ms, 3 s, for more to arrive), then starts the next generation "
                   "(kafka.group.generation) with a leader. 1.0.2 ran the same algorithm with a join purgatory, "
                   "without MEMBER_ID_REQUIRED (KIP-394, Kafka 2.2) or static members (KIP-345)."),
    "GC.sync": Row("GroupMetadataManager.classicGroupSync",
                   "SyncGroup: members park; the leader's assignment written as a GroupMetadata record; on commit "
                   "every member gets its share",
                   "The second half of a classic rebalance. Followers wait; the leader's SyncGroup carries every "
                   "member's assignment, which is written to __consumer_offsets, and only when that write is "
                   "committed does each member get its share and the group become Stable "
                   "(kafka.assignment.partitions). The record is not replayed, because a classic group is plain "
                   "memory changed when the write completes. 1.0.2 did the same with an acks=all write in its Scala "
                   "coordinator."),
    "GC.classic": Row("GroupMetadataManager.classicGroupHeartbeat / classicGroupLeave",
                      "classic Heartbeat, LeaveGroup, and the expiry of a member's heartbeat timer",
                      "A classic member proves it is alive with Heartbeat, which re-arms its session timer; "
                      "REBALANCE_IN_PROGRESS in the answer tells it to rejoin. LeaveGroup, or a timer that expires, "
                      "removes members (kafka.members.removed) and starts a rebalance; kafka.classic.operation says "
                      "which of the three ran. 1.0.2 kept the same timers as delayed operations in a heartbeat "
                      "purgatory and could only remove one member per LeaveGroup."),
    "GC.commit": Row("OffsetMetadataManager.commitOffset / deleteOffsets",
                     "OffsetCommit (group, generation or member epoch, metadata size checks; one record per "
                     "partition) and OffsetDelete",
                     "Committed offsets are records in __consumer_offsets like any other group state, and the commit "
                     "is answered once they are committed there. A member of a consumer-protocol group must commit "
                     "with its current member epoch (STALE_MEMBER_EPOCH otherwise); a classic one with its "
                     "generation (ILLEGAL_GENERATION). 1.0.2 made the same checks for generations and wrote with "
                     "acks=all, updating its cache when the write came back; OffsetDelete is newer (KIP-496, Kafka "
                     "2.4)."),
    "GC.fetch": Row("OffsetMetadataManager.fetchOffsets",
                    "OffsetFetch as a read at the last committed offset; with requireStable a write with no records",
                    "Reads never see state that could still be lost: OffsetFetch reads the shard at the last "
                    "committed offset (kafka.last.committed.offset). A read_committed consumer asks with "
                    "requireStable (KIP-447, Kafka 2.5): it waits for pending writes, and a partition with an open "
                    "transactional commit answers UNSTABLE_OFFSET_COMMIT so the consumer retries instead of starting "
                    "from a stale offset. 1.0.2 read its cache, which held an offset only after the write was "
                    "acknowledged, and had no requireStable."),
    "GC.describe": Row("GroupCoordinatorService.consumerGroupDescribe → GroupMetadataManager.consumerGroupDescribe",
                       "ConsumerGroupDescribe: one read per partition, at the last committed offset: epochs, "
                       "assignor, members and their assignments",
                       "The admin view of KIP-848 groups (kafka.group.ids): group and assignment epochs, the "
                       "assignor, and each member's current and target assignment, so a rebalance in progress can be "
                       "seen. A classic group gives GROUP_ID_NOT_FOUND here; it is described by DescribeGroups, the "
                       "only such request in 1.0.2, which returned members' assignments as opaque bytes."),
    "GC.expire": Row("GroupCoordinatorShard.cleanupGroupMetadata",
                     "*conditional* — the `expire-group-metadata` timer: expired offsets tombstoned, then empty "
                     "groups deleted",
                     "Every offsets.retention.check.interval.ms (10 min) the shard looks for offsets older than "
                     "offsets.retention.minutes (7 days), counted from the commit or, for an empty classic group, "
                     "from when it became empty; subscribed topics and open transactions are spared. The span is "
                     "recorded only when something went (kafka.offsets.expired, kafka.group.ids). In 1.0.2 the "
                     "retention was 1 day and counted from each commit even for active groups; KIP-186 (Kafka 2.0) "
                     "and KIP-211 (Kafka 2.1) changed both."),
    "GC.append": Row("CoordinatorRuntime.CoordinatorContext.append",
                     "records replayed into the state first, then added to the open batch; flushed by linger, size or "
                     "a transaction; the event waits for commit",
                     "The write path of the new runtime: an operation's records (kafka.record.types) are applied to "
                     "the in-memory state at once, so the next event sees them, and added to a batch written with "
                     "acks=1 after group.coordinator.append.linger.ms, when full, or at once for a transaction. The "
                     "response waits in a queue until the high watermark passes the batch (GC.hwm), and a failed "
                     "write rolls the state back. 1.0.2 wrote each operation on its own with acks=all and changed "
                     "its state only when the write came back."),
    "GC.replay": Row("GroupCoordinatorShard.replay",
                     "*nested* — one record applied to the shard's state by its type (0/1 offsets, 2 classic group, "
                     "3–8 KIP-848)",
                     "The only way the coordinator's state changes: by applying a record, during a load and during "
                     "every append, so a new coordinator rebuilds exactly what the old one had. kafka.record.type "
                     "and kafka.record.tombstone say which record (a tombstone deletes); kafka.offset is where it "
                     "sits in the log. 1.0.2 replayed only at load and knew two record types; types 3 to 8 came with "
                     "KIP-848."),
    "GC.hwm": Row("CoordinatorRuntime.HighWatermarkListener.onHighWatermarkUpdated",
                  "the `__consumer_offsets-p` high watermark moved: committed offset advanced, parked responses sent",
                  "A write counts as done only when the partition's replicas have it. When the high watermark moves "
                  "(kafka.high.watermark), the runtime jumps the queue, advances its last committed offset and sends "
                  "every response parked up to there; its links lead to the writes it completed. A write not "
                  "committed within offsets.commit.timeout.ms fails (the client sees COORDINATOR_NOT_AVAILABLE). "
                  "1.0.2 waited with acks=all in the produce purgatory instead."),
    "GC.state": Row("coordinator.state.change (event)",
                    "`{tp, epoch, from, to}`: INITIAL → LOADING → ACTIVE, → FAILED on a load error, → CLOSED on "
                    "unload",
                    "The life of one __consumer_offsets partition on this broker (kafka.coordinator.state.from and "
                    ".to). Only an ACTIVE shard serves requests; becoming ACTIVE re-arms every member's timers, so "
                    "that a member that died during the failover is still fenced. 1.0.2 kept two sets, the "
                    "partitions loading and the partitions owned."),
    "GC.epoch": Row("group.epoch.bump (event)",
                    "`{group, from, to, reason}` at every ConsumerGroupMetadata record; group epoch > assignment "
                    "epoch → GC.target",
                    "The group epoch counts changes to the group that call for a new assignment; kafka.reason says "
                    "which one (a subscription change, a member that left or was fenced, new partitions in a "
                    "subscribed topic). A new epoch makes the group Assigning until GC.target catches up, then "
                    "members move to it one by one (GC.reconcile). 1.0.2's nearest thing was the generation id of a "
                    "classic group, bumped when every member had rejoined."),
    # -- TX39: transactions on a KRaft broker, what 3.9 changed since 1.0.2 ----------------------------------------
    "TX39.elect": Row("BrokerMetadataPublisher.updateCoordinator → TransactionCoordinator.onElection / onResignation",
                      "the metadata publisher, not LeaderAndIsr, tells the coordinator which `__transaction_state` "
                      "partitions it leads",
                      "A transactional id is served by the leader of its __transaction_state partition. On a KRaft "
                      "broker the news comes from the published metadata log: kafka.txn.partitions.elected "
                      "(partition@leader epoch, the coordinator epoch) and kafka.txn.partitions.resigned; a trace of "
                      "its own, linked to the publish. Loading the partition then goes as in 1.0.2, where the "
                      "controller's LeaderAndIsr request started it."),
    "TX39.init": Row("TransactionCoordinator.handleInitProducerId → prepareInitProducerIdTransit",
                     "KIP-360: an InitProducerId may name the producer's (id, epoch); fenced, rotated or bumped; "
                     "written before the answer",
                     "Since KIP-360 (Kafka 2.5) a producer can pass the id and epoch it has "
                     "(kafka.producer.id.expected, kafka.producer.epoch.expected), so it can bump its own epoch "
                     "after an error and keep going, and a retry whose answer was lost gets the same epoch back "
                     "instead of a new one. A pair that is neither the current one nor, for such a retry, the one "
                     "just before gets PRODUCER_FENCED (INVALID_PRODUCER_EPOCH for older clients, KIP-588). TX.init "
                     "runs inside this span; 1.0.2's request carried only the transactional id and the timeout."),
    "TX39.pid": Row("RPCProducerIdManager.generateProducerId",
                    "ids from the broker's block; a new block asked from the controller at 90%; none at hand → "
                    "COORDINATOR_LOAD_IN_PROGRESS",
                    "Producer ids must be unique in the cluster. A 3.9 broker hands them out from a block of 1000 "
                    "that the active controller gave it (kafka.producer.id.block), and asks for the next block "
                    "(AllocateProducerIds, KIP-730) when 90% is used. With no id at hand it answers "
                    "COORDINATOR_LOAD_IN_PROGRESS and the client retries, so the first InitProducerId after a start "
                    "always sees that error once. 1.0.2 reserved its blocks with a conditional write to ZooKeeper's "
                    "/latest_producer_id_block."),
    "TX39.pidctl": Row("QuorumController.allocateProducerIds → ProducerIdControlManager.generateNextProducerId",
                       "on the active controller: broker epoch checked, block [next, next+1000), a ProducerIdsRecord, "
                       "answered after commit",
                       "The controller hands out producer-id blocks as a write to the metadata log: a "
                       "ProducerIdsRecord naming the broker and the next free id (kafka.producer.id.block.first, "
                       "kafka.producer.id.next). Every controller replays it, so a new active controller never hands "
                       "out a block twice, and a broker with a stale broker epoch is refused. In 1.0.2 the version "
                       "of the ZooKeeper znode played that role."),
    "TX39.txoffsets": Row("GroupCoordinatorService.commitTransactionalOffsets → "
                          "CoordinatorRuntime.scheduleTransactionalWriteOperation",
                          "*conditional* — TxnOffsetCommit on the new coordinator: verified like a produce, then a "
                          "transactional write left pending until its marker",
                          "On the new group coordinator a transaction's offsets go through the same checks as its "
                          "records: first verification that the __consumer_offsets partition is in the producer's "
                          "transaction (TX39.vsend), then a transactional write flushed at once, whose offsets stay "
                          "pending until the COMMIT or ABORT marker. The member and generation (kafka.member.id, "
                          "kafka.generation.id, KIP-447) are checked, so a consumer fenced by a rebalance cannot "
                          "commit. 1.0.2's TX.offsets had neither the verification nor those fields."),
    "TX39.verify": Row("ReplicaManager.handleProduceAppend → maybeStartTransactionVerificationForPartitions",
                       "KIP-890 part 1: a transactional batch with no ongoing transaction on the partition → a "
                       "VerificationGuard, then ask the coordinator",
                       "A transactional produce to a partition where this producer has no open transaction is held: "
                       "the leader creates a VerificationGuard and asks the coordinator whether the partition really "
                       "is in the transaction. kafka.txn.partitions.ongoing lists the partitions that need no check "
                       "(the transaction already wrote there). This closes the hanging transaction of KIP-890 (Kafka "
                       "3.6): a late or duplicate write after an abort used to open a transaction the coordinator "
                       "knew nothing of, holding back the last stable offset for good. 1.0.2 appended any "
                       "transactional batch."),
    "TX39.vsend": Row("AddPartitionsToTxnManager.verifyTransaction / generateRequests",
                      "checks batched per coordinator node into AddPartitionsToTxn v4 with verifyOnly, one request in "
                      "flight per node",
                      "The leader's question travels as an AddPartitionsToTxn request with verifyOnly set, sent by "
                      "the broker itself to the coordinator node (kafka.txn.coordinator.id), many transactions in "
                      "one request. An unknown coordinator (kafka.txn.verify.error COORDINATOR_NOT_AVAILABLE) or a "
                      "disconnect fails the check with an error the producer retries. In 1.0.2 brokers never sent "
                      "this request; only producers did."),
    "TX39.vcheck": Row("TransactionCoordinator.handleVerifyPartitionsInTransaction",
                       "on the coordinator: is each partition in this producer's ongoing transaction? Nothing is "
                       "written",
                       "The coordinator only looks: the producer id and epoch must be the current ones and each "
                       "partition already in the ongoing transaction. kafka.txn.partition.errors lists the "
                       "partitions that fail, e.g. TRANSACTION_ABORTABLE for one the producer never added, "
                       "PRODUCER_FENCED for an old epoch or CONCURRENT_TRANSACTIONS while the transaction is being "
                       "ended. The span joins the producer's trace through the traceparent the request carried. "
                       "1.0.2 had only the client's AddPartitionsToTxn, which always writes (TX.add)."),
    "TX39.guard": Row("UnifiedLog.analyzeAndValidateProducerState",
                      "the leader's append: the transaction's first batch on the partition must carry the matching "
                      "guard, else INVALID_TXN_STATE",
                      "When the coordinator's answer comes back, the append resumes on a request-handler thread, and "
                      "the log checks that a batch starting a transaction carries the guard verification created "
                      "(kafka.txn.guard.required, kafka.txn.guard.matches). If the transaction ended meanwhile the "
                      "guard is gone and the batch is refused with INVALID_TXN_STATE; retriable verification errors "
                      "reach the producer as NOT_ENOUGH_REPLICAS. 1.0.2's Log checked only the producer's epoch and "
                      "sequence numbers."),
    "TX39.markers": Row("TransactionMarkerChannelManager.addTxnMarkersToBrokerQueue",
                        "as TX.markers, but each partition's leader comes from the KRaft metadata cache",
                        "The markers of one transaction are grouped by the leader each partition has in the broker's "
                        "metadata, which on a KRaft broker is the published metadata log (kafka.txn.marker.leaders, "
                        "partition@leader id). A leader not reachable yet waits in a queue, a partition with no "
                        "leader is dropped. On a broker with the new group coordinator, a marker for "
                        "__consumer_offsets is written by that coordinator's runtime. In 1.0.2 the cache was filled "
                        "by the controller's UpdateMetadata requests."),
    # -- KV: KIP-853 controller membership changes (Kafka 3.9) -----------------------------------------------------
    "KV.format": Row("StorageTool.runFormatCommand → Formatter.doFormat → Formatter.writeDynamicQuorumSnapshot",
                     "`--standalone` or `--initial-controllers`: kraft.version 1, each voter's directory id, a "
                     "bootstrap checkpoint with KRaftVersionRecord + VotersRecord",
                     "A dynamic quorum keeps its voter set in the metadata log, not in a config. Formatting writes "
                     "the first set (kafka.raft.voters.keys: id@host:port:directory id) into a checkpoint in "
                     "kafka.raft.checkpoint.directory and gives this node's log dir its directory id; "
                     "kafka.raft.kraft_version is 1. A static quorum (controller.quorum.voters, KIP-595) cannot "
                     "change its voters at all in 3.9. 1.0.2 had no quorum of its own: ZooKeeper's ensemble was "
                     "configured outside Kafka, and any broker could become the controller."),
    "KV.init": Row("KafkaRaftClient.initialize",
                   "the static voters or the checkpoint and log's voter set; voter only while (node.id, directory.id) "
                   "is in it, else observer",
                   "At start the Raft client reads its voter set from the bootstrap checkpoint and the log "
                   "(kafka.raft.voters.offset: -1 means the checkpoint), or from controller.quorum.voters for a "
                   "static quorum (kafka.raft.voters.static). A node votes only if its node id and directory id are "
                   "both in the set (kafka.raft.is_voter): a controller whose disk was wiped gets a new directory "
                   "id, so it cannot vote with a log it no longer has. 1.0.2 had no such check; its controller "
                   "election was a ZooKeeper write."),
    "KV.observe": Row("KafkaRaftClient.pollFollowerAsObserver / maybeSendAnyVoterFetch",
                      "a new controller fetches as an observer, from a bootstrap server, then the leader, which "
                      "tracks its progress",
                      "A controller that is not yet a voter replicates the metadata log like a broker does, as an "
                      "observer, and the leader keeps track of how far it got: that is what KV.apiv later checks. "
                      "The span appears when it starts following a leader (kafka.raft.fetch.leader_id) and once when "
                      "it first catches up with the high watermark (kafka.raft.observe.reason), not on every fetch. "
                      "1.0.2 had nothing like it: a broker became controller with the state it read from ZooKeeper."),
    "KV.add": Row("KafkaRaftClient.handleAddVoterRequest → AddVoterHandler.handleAddVoterRequest",
                  "AddRaftVoter: cluster id, leader, listener, pending-change, commit and kraft.version checks; then "
                  "ApiVersions to the new voter",
                  "kafka-metadata-quorum add-controller arrives here on the active controller (a broker forwards "
                  "it). It is refused unless the quorum is dynamic, no other change is pending and the last voter "
                  "change is committed: one voter at a time is what keeps every old and new majority overlapping. "
                  "kafka.raft.voters.before is the set now; the next step asks the new voter which versions it "
                  "supports. New in KIP-853 (Kafka 3.9); 1.0.2 had no voters to add."),
    "KV.apiv": Row("AddVoterHandler.handleApiVersionsResponse",
                   "the new voter's ApiVersions: kraft.version range, caught up? then the VotersRecord with the new "
                   "voter appended",
                   "The new voter must support the cluster's kraft.version and must have caught up as an observer "
                   "(kafka.raft.voter.caught_up, with kafka.raft.voter.last_caught_up_ms_ago and last_fetch_ms_ago). "
                   "3.9 does not wait for a lagging one: it answers REQUEST_TIMED_OUT. Otherwise the leader appends "
                   "a VotersRecord with the old set plus the new voter (kafka.raft.voters.after, "
                   "kafka.raft.voters_record.offset). 1.0.2 had no equivalent."),
    "KV.remove": Row("KafkaRaftClient.handleRemoveVoterRequest → RemoveVoterHandler.handleRemoveVoterRequest",
                     "RemoveRaftVoter: the same checks; (id, directory id) not in the set or the last voter → "
                     "VOTER_NOT_FOUND; VotersRecord appended",
                     "kafka-metadata-quorum remove-controller must name both the id and the directory id of the "
                     "voter. After the same checks as KV.add, the VotersRecord without that voter is appended at "
                     "once, and the answer waits for it to commit (KV.commit). A removed leader leads until then and "
                     "resigns after. New in KIP-853; in 1.0.2 a broker stopped being a controller candidate simply "
                     "by stopping."),
    "KV.voters": Row("KRaftControlRecordStateMachine.updateState",
                     "*nested* — a VotersRecord takes effect when appended, not when committed; a truncation below it "
                     "undoes it",
                     "The new set counts from the moment the record is in a node's log: the leader counts its "
                     "high-watermark majority over the new set at once, and a node that finds itself in the set "
                     "starts acting as a voter. Compare kafka.raft.voters.before with kafka.raft.voters. So when a "
                     "voter is added to a one-voter quorum, nothing (not even this record) commits until the new "
                     "voter fetches it. 1.0.2 had no voter set; a static 3.9 quorum never changes it."),
    "KV.commit": Row("AddVoterHandler.highWatermarkUpdated / RemoveVoterHandler.highWatermarkUpdated",
                     "the high watermark passed the VotersRecord: the RPC answered; a leader that removed itself "
                     "resigns",
                     "The change is safe once committed, and only then is the add or remove answered (kafka.error "
                     "NONE). If the operation's timer ran out first, the client already got REQUEST_TIMED_OUT, yet "
                     "the record stays in the log and the change still happens: check the voter set before trying "
                     "again. kafka.raft.resign_requested is true when the leader removed itself. New in KIP-853 "
                     "(Kafka 3.9); 1.0.2's controller changed hands only by a new broker winning the /controller "
                     "znode."),
    "KV.update": Row("KafkaRaftClient.pollFollowerAsVoter → maybeSendUpdateVoterRequest → "
                     "UpdateVoterHandler.handleUpdateVoterRequest",
                     "a follower voter whose endpoints or kraft.version range changed sends UpdateRaftVoter; the "
                     "leader appends and answers at once",
                     "Voters find each other through the endpoints in the voter set, so a controller that comes back "
                     "on another address must say so: every 3 × controller.quorum.fetch.timeout.ms a follower "
                     "compares its entry in the set with its own listeners and kraft.version range and, if they "
                     "differ, sends UpdateRaftVoter (kafka.raft.voter.listeners). The leader appends a new "
                     "VotersRecord and answers without waiting for the commit. A static quorum, like 1.0.2's "
                     "ZooKeeper connection string, takes addresses from the config only."),
    "KV.epoch": Row("LeaderState.appendStartOfEpochControlRecords",
                    "*conditional* — kraft.version 1: a new leader also writes KRaftVersionRecord + VotersRecord when "
                    "the log has none or its own endpoints changed",
                    "The formatted checkpoint with the first voter set is never sent to other nodes, so the first "
                    "leader copies the set into the log, right after its LeaderChangeMessage; a later leader does so "
                    "again if its own endpoints changed. kafka.raft.epoch.writes_voters_record and "
                    "kafka.raft.epoch.reason say whether and why. A static quorum (kraft.version 0) writes only the "
                    "LeaderChangeMessage (KIP-595); 1.0.2 had no log of its own for the controller."),
}


def explain(step: str | None) -> Row | None:
    return ROWS.get(step) if step else None
