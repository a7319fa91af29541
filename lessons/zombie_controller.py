"""Lesson: the zombie controller (issue 26). A Kafka 1.0.2 controller cut off from ZooKeeper does not know it has
been replaced: its session expires, another broker wins `/controller` at a higher epoch, and the old one goes on
believing it is in office. Its orders still reach the brokers; the controller epoch is what makes them refuse them.

Our own code, not a Kafka port. Read top to bottom: each step's checks come just before the step that uses them.
"""

from __future__ import annotations

from kafka_edu.lessons import Command, Evidence, Lesson, Predict, Result, Step
from kafka_edu.lessons.traces import (
    at,
    between,
    broker_of,
    clock,
    controller,
    elections_won,
    events,
    on_broker,
    started_after,
)
from kafka_edu.tracing.query import SpanRecord, Spans

TOPIC = "orders"
SESSION_MS = 3000
SOCKET_TIMEOUT_MS = 5000

INTRO = """
Only one broker at a time may act as controller, and ZooKeeper decides which: the one whose session holds the
ephemeral `/controller`. But a controller learns it has lost that node only through its own ZooKeeper session. Cut
it off from ZooKeeper and there is a stretch of time in which ZooKeeper has already handed the office to another
broker while the old controller still believes it holds it: a zombie. Its requests still reach the brokers. In this
lesson you make one, catch one of its orders in flight, and watch a broker refuse it because of the **controller
epoch**, the number every controller request carries.

The Kafka code is `kafka/controller/KafkaController.scala` (the epoch, `elect`, `onControllerResignation`),
`ControllerChannelManager.scala` (one send thread per broker) and `kafka/server/ReplicaManager.scala` (the check);
the port is `kafka_edu/v1_0_2/core/controller/` and `kafka_edu/v1_0_2/core/server/replica_manager.py`.
"""

SETUP = f"""
The lesson needs root: each process of its cluster (ZooKeeper and three brokers) runs in a network namespace of its
own (`cluster up --netns`), so that links between them can be cut. It sets `zookeeper.session.timeout.ms={SESSION_MS}`
(1.0.2's default is 6000; shorter, so that the lesson takes about a minute), `controller.socket.timeout.ms=
{SOCKET_TIMEOUT_MS}` (30000 by default: how long the controller waits on a broker before it connects again and
resends) and `auto.leader.rebalance.enable=false`.
"""


def heard(spans: Spans, broker: int, epoch: int, since_ns: int = 0) -> list[SpanRecord]:
    """The controller requests (UpdateMetadata, LeaderAndIsr) a broker took at that controller epoch."""
    return [s for s in started_after(on_broker(spans.where(name="ReplicaManager.maybeUpdateMetadataCache"), broker)
                                     + on_broker(spans.where(name="ReplicaManager.becomeLeaderOrFollower"), broker),
                                     since_ns)
            if s.attributes.get("kafka.controller.epoch") == epoch]


def cuts(spans: Spans, since_ns: int, name: str = "Runner.partition") -> list[SpanRecord]:
    """The runner's cuts (NF.cut) or heals (`Runner.heal`, NF.heal) since `since_ns`."""
    return started_after(spans.where(name=name), since_ns)


# -- 1. The controller in office -------------------------------------------------------------------------------

def in_office(ev: Evidence) -> Result:
    won = controller(ev.spans)
    if won is None:
        return Result.failed(expected="a controller elected", seen="no `KafkaController.elect` has won yet",
                             hint="the brokers are starting; press Enter again in a moment")
    ctrl, epoch = broker_of(won), won.attributes.get("kafka.controller.epoch")
    missing = [b for b in ev.facts["broker_ids"] if not heard(ev.spans, b, epoch)]
    if missing:
        return Result.failed(expected=f"every broker to have taken a request of controller epoch {epoch}",
                             seen=f"brokers {missing} not yet", hint="press Enter again in a moment")
    broker = next(b for b in ev.facts["broker_ids"] if b != ctrl)
    explain = f"""
Broker {ctrl} created `/controller` and is the controller ({at(won)}). During `onControllerFailover` it bumped
`/controller_epoch` to **{epoch}** with a conditional write, and every request it has sent since carries that
number; every broker has taken one (each `ReplicaManager` remembers the highest epoch it has seen). The lesson will
watch broker {broker}: it is not the controller.
"""
    return Result.passed(explain, controller=ctrl, epoch=epoch, broker=broker)


office = Step(
    title="The controller and its epoch",
    about=("KafkaController.elect", "KafkaController.incrementControllerEpoch"),
    text="""
When a broker wins `/controller` (`KafkaController.elect`), the first thing `onControllerFailover` does is read
`/controller_epoch` and write it back plus one (`KafkaController.incrementControllerEpoch`), with a conditional write
that fails if anyone else wrote it in between. That number goes into every LeaderAndIsr, UpdateMetadata and
StopReplica the controller sends.
""",
    check=in_office,
    wait_s=30,
)


# -- 2. An order held up ---------------------------------------------------------------------------------------

def sent_to(spans: Spans, sender: int, broker: int, api: str, since_ns: int) -> list[SpanRecord]:
    return [s for s in started_after(on_broker(spans.where(name="ControllerChannelManager.sendRequest"), sender),
                                     since_ns)
            if s.attributes.get("kafka.destination.broker.id") == broker and s.attributes.get("kafka.api.name") == api]


def topic_taken(spans: Spans, broker: int, since_ns: int) -> list[SpanRecord]:
    return [s for s in started_after(on_broker(spans.where(name="ReplicaManager.becomeLeaderOrFollower"), broker),
                                     since_ns)
            if any(p.startswith(f"{TOPIC}-") for p in s.attributes.get("kafka.partitions", []))]


def order_held_up(ev: Evidence) -> Result:
    since, ctrl, broker = ev.facts["action_ns"], ev.facts["controller"], ev.facts["broker"]
    cut = cuts(ev.spans, since)
    if not cut:
        return Result.failed(expected=f"broker {ctrl} cut off from broker {broker}", seen="no cut since this step "
                             "began", hint="run the commands above", wait=False)
    queued = sent_to(ev.spans, ctrl, broker, "LeaderAndIsr", cut[0].start_ns)
    if not queued:
        return Result.failed(expected=f"the controller to queue a LeaderAndIsr for `{TOPIC}` to broker {broker}",
                             seen="none yet", hint=f"did `topics --create --topic {TOPIC}` run? Press Enter again")
    taken = topic_taken(ev.spans, broker, cut[0].start_ns)
    if taken:
        return Result.failed(expected=f"broker {broker} not to have the LeaderAndIsr yet",
                             seen=f"it took it ({at(taken[0])}): the link was not cut",
                             hint="heal (`kafka-edu cluster heal --run {run_dir}`) and start the lesson again",
                             wait=False)
    cut_id = cut[0].attributes.get("kafka.network.cut")
    explain = f"""
The controller made `{TOPIC}` (its `TopicChange` event) and queued a LeaderAndIsr for broker {broker}
(`ControllerChannelManager.sendRequest`, {at(queued[0])}, controller epoch {ev.facts['epoch']}). Broker {broker}
has not taken it: the controller's `RequestSendThread` for broker {broker} sends one request at a time and waits for
its answer, and the packets are dropped on the way (cut {cut_id}). It will try again until the request gets through.
"""
    return Result.passed(explain, link_cut=cut_id, queued_ns=queued[0].start_ns)


held_up = Step(
    title="An order held up on the way",
    about=("ControllerChannelManager.sendRequest", "RequestSendThread.doWork", "KafkaController.onNewTopicCreation"),
    text=f"""
The controller keeps one queue and one send thread per broker: `ControllerChannelManager.sendRequest` puts a request
on the broker's queue, and that broker's `RequestSendThread.doWork` sends it and waits for the answer. Cut the
controller, broker {{controller}}, off from broker {{broker}}, then create a topic `{TOPIC}` with a replica on every
broker: `KafkaController.onNewTopicCreation` sends each broker a LeaderAndIsr, and the one for broker {{broker}}
cannot arrive.
""",
    action=Command("kafka-edu cluster partition --split {controller} {broker} --run {run_dir} && "
                   f"kafka-edu topics --create --topic {TOPIC} --partitions 3 --replication-factor 3 "
                   "--bootstrap-server {bootstrap}"),
    check=order_held_up,
    wait_s=30,
)


# -- 3. Cut from ZooKeeper: a zombie ------------------------------------------------------------------------------

def zombie(ev: Evidence) -> Result:
    since, ctrl, broker, epoch = (ev.facts[k] for k in ("action_ns", "controller", "broker", "epoch"))
    cut = cuts(ev.spans, since)
    if not cut:
        return Result.failed(expected=f"broker {ctrl} cut off from ZooKeeper", seen="no cut since this step began",
                             hint="run the command above", wait=False)
    newer = [s for s in elections_won(ev.spans) if s.start_ns >= cut[0].start_ns
             and (s.attributes.get("kafka.controller.epoch") or 0) > epoch]
    if not newer:
        return Result.failed(expected=f"another broker to win `/controller` at epoch {epoch + 1}",
                             seen=f"the cut at {clock(cut[0].start_ns)}; no new controller yet",
                             hint=f"ZooKeeper first waits out broker {ctrl}'s session ({SESSION_MS} ms); press Enter "
                                  "again")
    won = newer[0]
    new, new_epoch = broker_of(won), won.attributes.get("kafka.controller.epoch")
    took = heard(ev.spans, broker, new_epoch, cut[0].start_ns)
    if not took:
        return Result.failed(expected=f"broker {broker} to take a request of epoch {new_epoch}", seen="not yet",
                             hint="press Enter again in a moment")
    resigned = [s for s in on_broker(ev.spans.where(step="CT.resign"), ctrl) if s.start_ns >= cut[0].start_ns]
    if resigned:
        return Result.failed(expected=f"broker {ctrl} still acting as controller",
                             seen=f"it resigned ({at(resigned[0])})",
                             hint="was ZooKeeper healed already? Start the lesson again", wait=False)
    explain = f"""
Broker {ctrl}'s heartbeats stopped reaching ZooKeeper; after the session timeout ZooKeeper expired its session and
deleted the ephemeral `/controller`. The other brokers' watches fired, and broker {new} won the election
({at(won)}) at **epoch {new_epoch}**, {between(cut[0].start_ns, won.start_ns)} after the cut. It sent its view of
the cluster to every broker it can reach: broker {broker} took epoch {new_epoch} ({at(took[0])}), and from now on
remembers it.

Broker {ctrl} has not resigned: no `onControllerResignation` in its spans. Its ZooKeeper client only knows the
connection is gone, not that the session expired (it can learn that only from ZooKeeper), so its controller still
holds the office in its own eyes, epoch {epoch}, and its send thread for broker {broker} is still trying to deliver
the LeaderAndIsr from the last step.
"""
    return Result.passed(explain, new_controller=new, new_epoch=new_epoch, zk_cut_ns=cut[0].start_ns,
                         elected_ns=won.start_ns)


zk_cut = Step(
    title="Cut off from ZooKeeper: two controllers",
    about=("KafkaController.Reelect", "KafkaController.elect", "KafkaController.onControllerResignation"),
    text="""
Now cut broker {controller} off from ZooKeeper too. ZooKeeper will expire its session after
`zookeeper.session.timeout.ms`, and with it `/controller`; the brokers watching that node get a
`KafkaController.Reelect` event and run for it again (`KafkaController.elect`). A controller that loses the office
gives up its state in `KafkaController.onControllerResignation`, if it hears about it.
""",
    predict=Predict(
        question="Once another broker has won `/controller`, what does broker {controller} do?",
        choices={"a": "it resigns at once: ZooKeeper tells it the session expired",
                 "b": "nothing changes for it: it still thinks it is the controller, until it can reach ZooKeeper",
                 "c": "it shuts itself down"},
        answer="b",
        why="""
An expired session is news that only ZooKeeper can deliver, and ZooKeeper cannot reach it. A client cut off sees a
lost connection, which may come back with the session intact; so 1.0.2 waits. Until then there are two brokers that
each think they are the controller, and only the epoch tells their orders apart.
"""),
    action=Command("kafka-edu cluster partition --from-zookeeper {controller} --run {run_dir}"),
    check=zombie,
    wait_s=40,
)


# -- 4. The zombie's order arrives -------------------------------------------------------------------------------

def fenced(ev: Evidence) -> Result:
    since, ctrl, broker, epoch, new_epoch = (ev.facts[k] for k in ("action_ns", "controller", "broker", "epoch",
                                                                   "new_epoch"))
    heals = cuts(ev.spans, since, "Runner.heal")
    if not heals:
        return Result.failed(expected=f"the link between brokers {ctrl} and {broker} healed",
                             seen="no heal since this step began", hint="run the command above", wait=False)
    refused = [(s, e) for s, e in events(on_broker(ev.spans, broker), "controller.epoch.stale")
               if e.attributes.get("kafka.controller.id") == ctrl and e.time_ns >= heals[0].start_ns]
    if not refused:
        return Result.failed(expected=f"broker {broker} to refuse a request of broker {ctrl}'s epoch {epoch}",
                             seen="none yet",
                             hint=f"the send thread resends after controller.socket.timeout.ms ({SOCKET_TIMEOUT_MS} "
                                  "ms); press Enter again")
    span, event = refused[0]
    a = event.attributes
    explain = f"""
With the link back, broker {ctrl}'s send thread delivered what it had been holding: a {a.get('kafka.api.name')}
from controller {a.get('kafka.controller.id')} at epoch {a.get('kafka.controller.epoch')}, arriving
{between(heals[0].start_ns, event.time_ns)} after the heal. Broker {broker} compared it with the highest epoch it
had seen, {a.get('kafka.controller.epoch.latest')}, and refused it: `ReplicaManager` ({span.name}, {at(span)}, event
`controller.epoch.stale`) answered STALE_CONTROLLER_EPOCH (error 11) without applying anything.

That one comparison is what keeps a zombie harmless. The old controller's view of who leads what is out of date;
had broker {broker} applied it, it could have made a replica leader behind the new controller's back.
"""
    return Result.passed(explain, fenced_ns=event.time_ns)


link_healed = Step(
    title="The zombie's order arrives",
    about=("ReplicaManager.becomeLeaderOrFollower", "ReplicaManager.maybeUpdateMetadataCache",
           "StaleControllerEpochException"),
    text="""
Heal the link between broker {controller} and broker {broker} (cut {link_cut}), and only that one: broker
{controller} is still cut off from ZooKeeper and still a controller in its own eyes. Its send thread gets through
and delivers the LeaderAndIsr it queued at epoch {epoch}; broker {broker} has since heard from the controller of
epoch {new_epoch}. Each controller request passes an epoch check on the broker (`ReplicaManager.becomeLeaderOrFollower`
for LeaderAndIsr, `ReplicaManager.maybeUpdateMetadataCache` for UpdateMetadata); Kafka's name for a request that
fails it is `StaleControllerEpochException`.
""",
    predict=Predict(
        question="What does broker {broker} do with the LeaderAndIsr of epoch {epoch}?",
        choices={"a": "applies it: it is the newest request it received",
                 "b": "refuses it: STALE_CONTROLLER_EPOCH, its epoch is older than one it has seen",
                 "c": "asks ZooKeeper who the controller is"},
        answer="b",
        why="""
Brokers do not ask ZooKeeper who the controller is on every request: they trust the number. A higher epoch can only
come from a later `/controller_epoch` write, so a request with a lower one is from a controller that has been
replaced, whatever it believes.
"""),
    action=Command("kafka-edu cluster heal {link_cut} --run {run_dir}"),
    check=fenced,
    wait_s=45,
)


# -- 5. Heal: the zombie resigns -------------------------------------------------------------------------------

def resigned_and_rejoined(ev: Evidence) -> Result:
    since, ctrl, epoch, new, new_epoch = (ev.facts[k] for k in ("action_ns", "controller", "epoch",
                                                                "new_controller", "new_epoch"))
    heals = cuts(ev.spans, since, "Runner.heal")
    if not heals:
        return Result.failed(expected=f"broker {ctrl} reconnected to ZooKeeper", seen="no heal since this step began",
                             hint="run the command above", wait=False)
    resign = [s for s in on_broker(ev.spans.where(step="CT.resign"), ctrl) if s.start_ns >= heals[0].start_ns]
    if not resign:
        return Result.failed(expected=f"broker {ctrl} to resign as controller", seen="not yet",
                             hint="its ZooKeeper client must reconnect and learn its session expired; press Enter "
                                  "again")
    lost = [s for s in on_broker(ev.spans.where(step="CT.elect"), ctrl) if s.start_ns >= resign[0].start_ns
            and s.attributes.get("kafka.controller.won") is False]
    took = heard(ev.spans, ctrl, new_epoch, heals[0].start_ns)
    if not took:
        return Result.failed(expected=f"broker {ctrl} to take a request of epoch {new_epoch}", seen="not yet",
                             hint="press Enter again in a moment")
    resigned_epoch = resign[0].attributes.get("kafka.controller.epoch", epoch)
    elect = (f" Then it ran for `/controller` again and lost to broker "
             f"{lost[0].attributes.get('kafka.controller.id')} ({at(lost[0])})." if lost else "")
    explain = f"""
Back in touch, broker {ctrl}'s ZooKeeper client learned its session had expired and opened a new one. The new
session put a `Reelect` on the controller's queue, and
`onControllerResignation` ({at(resign[0])}, at epoch {resigned_epoch}) dropped every watch, stopped the state
machines and the send threads, queued orders and all.{elect} As a broker, it took the new controller's epoch
{new_epoch} like everyone else ({at(took[0])}), {between(heals[0].start_ns, took[0].start_ns)} after the heal.

It had been cut off from ZooKeeper for {between(ev.facts['zk_cut_ns'], resign[0].start_ns)} before it resigned, and
a zombie, a controller replaced without knowing it, for {between(ev.facts['elected_ns'], resign[0].start_ns)} of that.
"""
    return Result.passed(explain)


heal = Step(
    title="Heal: the zombie resigns",
    about=("KafkaController.onControllerResignation", "KafkaController.Reelect", "KafkaHealthcheck.register"),
    text="""
Heal the last cut. Broker {controller} reaches ZooKeeper again and finds out its session is gone. A new session
means registering again (`KafkaHealthcheck.register`) and, for the controller, a `KafkaController.Reelect` event:
`KafkaController.onControllerResignation` if it held the office, then `elect` again.
""",
    predict=Predict(
        question="What happens to broker {controller} as a controller?",
        choices={"a": "it takes the office back: it was controller first",
                 "b": "it resigns, runs for `/controller`, loses to broker {new_controller}, and follows epoch "
                      "{new_epoch}",
                 "c": "both stay controllers until one is restarted"},
        answer="b",
        why="""
`/controller` belongs to whoever created it, and broker {new_controller} did. The old controller gives up its state
when its session is replaced, runs for the node like any broker, finds it taken, and from then on takes orders of
the new epoch.
"""),
    action=Command("kafka-edu cluster heal --run {run_dir}"),
    check=resigned_and_rejoined,
    wait_s=45,
)


LESSON = Lesson(
    name="zombie-controller",
    title="The zombie controller: two controllers, one epoch that counts",
    summary="a 1.0.2 controller cut from ZooKeeper acts on after it is replaced; the brokers refuse it by epoch",
    minutes=10,
    intro=INTRO,
    setup=SETUP,
    brokers=3,
    netns=True,
    overrides=(f"zookeeper.session.timeout.ms={SESSION_MS}", f"controller.socket.timeout.ms={SOCKET_TIMEOUT_MS}",
               "auto.leader.rebalance.enable=false", "controlled.shutdown.retry.backoff.ms=500"),
    steps=[office, held_up, zk_cut, link_healed, heal],
    outro="""
A controller can be replaced without being told. Kafka 1.0.2 copes by numbering controllers: ZooKeeper's
`/controller_epoch` only grows, each request carries it, and each broker refuses a number lower than one it has seen.
KRaft (lessons 6 on) keeps the idea: its controllers' epochs are the Raft leader epochs. `kafka-edu tui --run
{run_dir}` replays this run.
""",
)
