"""Describers for KRaft raft spans (Kafka 3.9; see kafka_edu/tracing/attributes.py).

What gets a span, so that an idle quorum writes almost nothing:

- the role phases of a poll (pollLeader, pollCandidate, ...) only when they change something: a timer ran out (an
  election starts, a candidate backs off, a leader resigns), a leader has batches to append;
- `KafkaRaftClient.poll` (KR.poll) afterwards, summarising the poll, only when one of the raft spans ran in it;
- a Fetch only when it says something new: the follower sends a fetch offset or epoch it has not sent before (it got
  records, or follows a new leader), and its response carries records, a truncation, an error or a new leader or
  high watermark. A follower's long poll that is answered empty after 500 ms, again and again, gets no span;
- the leader's BeginQuorumEpoch only while a voter has not acknowledged it (the re-sends every fetch timeout / 2
  after that are heartbeats);
- the handling of a raft request only when its sender traced the send: it is the send's child, through the
  traceparent in the request header.

One election is one trace: the phase that makes the replica a candidate is the root; the candidate's Vote round,
each voter's handling of it, the responses, and the new leader's first BeginQuorumEpoch round (with each voter's
handling) are all its descendants. The root is remembered by (client, epoch) here.

The Raft client's story is its own from the start: `KafkaRaftClient.initialize`, which 3.9 calls on the server's
startup thread (KafkaRaftManager.startup), reads `quorum-state` and puts the replica in the role it says (standing
for election at once if it was a candidate, or is the only voter). It is a trace of its own, linked to the startup
that called it, so a server's startup holds no role change and an election begun there is a trace of its own too.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from pathlib import Path
from typing import Any

from opentelemetry import trace
from opentelemetry.trace import NonRecordingSpan, SpanContext

from kafka_edu.tracing import attributes as _attributes
from kafka_edu.tracing.attributes import Scope, caller_link, end, links, on_event, own_trace, parent, retro, start, when
from kafka_edu.tracing.requests import remote_span_context

_MEMORY = 256
_elections: OrderedDict[tuple[int, int], Any] = OrderedDict()  # (id(client), epoch) -> the election's root span
_fetch_sends: OrderedDict[tuple[int, int], SpanContext] = OrderedDict()  # (id(client), correlation id) -> send
_last_fetch: dict[int, tuple[int, int, int]] = {}  # id(client) -> (epoch, fetch offset, leader) last sent
_asked: OrderedDict[tuple[int, int], set[int]] = OrderedDict()  # (id(client), epoch) -> voters asked for a vote
_poll_work = threading.local()  # names of the raft spans started during the current poll, per thread
_lock = threading.Lock()


def _remember(table: OrderedDict, key: Any, value: Any) -> None:
    with _lock:
        table[key] = value
        while len(table) > _MEMORY:
            table.popitem(last=False)


def _work(name: str) -> None:
    done = getattr(_poll_work, "names", None)
    if done is None:
        done = _poll_work.names = []
    done.append(name)


def _node(client: Any) -> dict[str, Any]:
    quorum = client.quorum
    attributes: dict[str, Any] = {"kafka.node.id": client.node_id() if client.node_id() is not None else -1}
    if quorum is not None and quorum.state is not None:
        attributes.update({"kafka.raft.role": quorum.state.name(), "kafka.raft.epoch": quorum.epoch(),
                           "kafka.raft.leader.id": quorum.leader_id_or_sentinel()})
    return attributes


def _remote_parent(request: Any) -> Any:
    """The sender's span, from the traceparent its request header carried; None (no span) without one."""
    context = remote_span_context(getattr(request, "traceparent", None))
    return NonRecordingSpan(context) if context is not None else None


def _election(client: Any, epoch: int) -> Any:
    with _lock:
        return _elections.get((id(client), epoch))


def _maybe_remember_election(client: Any) -> None:
    """The span running when this replica became a candidate (or a lone voter its own leader) roots the election."""
    quorum = client.quorum
    if quorum is None or not (quorum.is_candidate() or quorum.is_leader()):
        return
    key = (id(client), quorum.epoch())
    current = trace.get_current_span()
    if key not in _elections and current.get_span_context().is_valid:
        _remember(_elections, key, current)


def _offset(metadata: Any) -> int:
    return metadata.offset if metadata is not None else -1


# -- the driver and the poll ---------------------------------------------------------------------------------------

@retro("KafkaRaftClientDriver.doWork")
def _driver_work(s: Scope) -> dict[str, Any] | None:
    """A driver turn is worth a span only while a graceful shutdown is under way (the poll says the rest)."""
    client = s["self"].client
    shutdown = client._shutdown
    if shutdown is None:
        return None
    # The first turn of the shutdown and the one that finds it finished; the turns between only wait.
    finished = shutdown.is_finished()
    state = (id(shutdown), finished)
    if getattr(_driver_work, "last", None) == state:
        return None
    _driver_work.last = state
    return {**_node(client), "kafka.raft.shutdown.remaining_ms": shutdown.remaining_time_ms(),
            "kafka.raft.shutdown.finished": finished}


@retro("KafkaRaftClient.poll")
def _poll_did_work(s: Scope) -> dict[str, Any] | None:
    names = getattr(_poll_work, "names", None)
    if not names:
        return None
    _poll_work.names = []
    client = s["self"]
    high_watermark = client.quorum.high_watermark()
    return {**_node(client), "kafka.raft.poll.work": list(names),
            "kafka.raft.high_watermark": _offset(high_watermark),
            "kafka.raft.log_end_offset": client.log.end_offset().offset}


# -- the role phases -----------------------------------------------------------------------------------------------

@when("KafkaRaftClient.pollLeader")
@_attributes.safe(False)
def _leader_has_work(s: Scope) -> bool:
    client, now = s["self"], s["current_time_ms"]
    state = client.quorum.leader_state_or_throw()
    return (client._shutdown is not None or state.is_resign_requested()
            or state.time_until_check_quorum_expires(now) == 0 or state.accumulator().time_until_drain(now) <= 0)


@start("KafkaRaftClient.pollLeader")
def _leader_work(s: Scope) -> dict[str, Any]:
    _work("pollLeader")
    client, now = s["self"], s["current_time_ms"]
    state = client.quorum.leader_state_or_throw()
    if client._shutdown is not None:
        reason = "resign: shutting down"
    elif state.is_resign_requested():
        reason = "resign: requested"
    elif state.time_until_check_quorum_expires(now) == 0:
        reason = (f"resign: check-quorum expired (no Fetch from a majority in {state.check_quorum_timeout_ms} ms, "
                  f"fetched: {sorted(state.fetched_voters)})")
    else:
        reason = "append batches"
    return {**_node(client), "kafka.raft.poll.reason": reason,
            "kafka.raft.accumulator.batches": state.accumulator().num_completed_batches()}


@end("KafkaRaftClient.pollLeader")
def _leader_done(s: Scope) -> dict[str, Any]:
    client = s["self"]
    attributes = _node(client)
    if client.quorum.is_resigned():
        attributes["kafka.raft.preferred_successors"] = [k.id for k in
                                                         client.quorum.resigned_state_or_throw().preferred_successors()]
    else:
        attributes["kafka.raft.log_end_offset"] = client.log.end_offset().offset
    return attributes


@when("KafkaRaftClient.pollCandidate")
@_attributes.safe(False)
def _candidate_has_work(s: Scope) -> bool:
    client, now = s["self"], s["current_time_ms"]
    state = client.quorum.candidate_state_or_throw()
    if client._shutdown is not None:
        return False
    if state.is_backing_off():
        return state.is_backoff_complete(now)
    return state.has_election_timeout_expired(now)


@start("KafkaRaftClient.pollCandidate")
def _candidate_work(s: Scope) -> dict[str, Any]:
    _work("pollCandidate")
    client = s["self"]
    state = client.quorum.candidate_state_or_throw()
    reason = ("backoff over: a new election" if state.is_backing_off()
              else "election timed out: back off before the next")
    return {**_node(client), "kafka.raft.poll.reason": reason, "kafka.raft.election.retries": state.retries(),
            "kafka.raft.votes.granted": sorted(state.granting_voters()),
            "kafka.raft.votes.rejected": sorted(state.rejecting_voters())}


@when("KafkaRaftClient.pollFollower")
@_attributes.safe(False)
def _follower_times_out(s: Scope) -> bool:
    client, now = s["self"], s["current_time_ms"]
    state = client.quorum.follower_state_or_throw()
    return client.quorum.is_voter() and client._shutdown is None and state.has_fetch_timeout_expired(now)


@start("KafkaRaftClient.pollFollower")
def _follower_work(s: Scope) -> dict[str, Any]:
    _work("pollFollower")
    client = s["self"]
    state = client.quorum.follower_state_or_throw()
    return {**_node(client), "kafka.raft.poll.reason": f"fetch timeout: no successful Fetch from leader "
                                                       f"{state.leader_id()} in time, become candidate"}


@when("KafkaRaftClient.pollUnattached")
@_attributes.safe(False)
def _unattached_times_out(s: Scope) -> bool:
    client, now = s["self"], s["current_time_ms"]
    state = client.quorum.unattached_state_or_throw()
    return client.quorum.is_voter() and client._shutdown is None and state.has_election_timeout_expired(now)


@start("KafkaRaftClient.pollUnattached")
def _unattached_work(s: Scope) -> dict[str, Any]:
    _work("pollUnattached")
    client = s["self"]
    state = client.quorum.unattached_state_or_throw()
    voted = state.voted_key()
    return {**_node(client), "kafka.raft.voted.id": voted.id if voted is not None else -1,
            "kafka.raft.poll.reason": f"election timeout ({state.election_timeout_ms()} ms) without a leader, "
                                      "become candidate"}


@when("KafkaRaftClient.pollResigned")
@_attributes.safe(False)
def _resigned_has_work(s: Scope) -> bool:
    client, now = s["self"], s["current_time_ms"]
    state = client.quorum.resigned_state_or_throw()
    if client._shutdown is None and state.has_election_timeout_expired(now):
        return True
    nodes = client.voters.voter_nodes(state.unacked_voters(), client.channel.listener_name())
    manager = client.request_manager
    return any(not manager.is_backing_off(n, now) and manager.is_ready(n, now) for n in nodes)


@start("KafkaRaftClient.pollResigned")
def _resigned_work(s: Scope) -> dict[str, Any]:
    _work("pollResigned")
    client = s["self"]
    state = client.quorum.resigned_state_or_throw()
    return {**_node(client), "kafka.raft.end_quorum_epoch.unacked": sorted(state.unacked_voters()),
            "kafka.raft.preferred_successors": [k.id for k in state.preferred_successors()]}


@parent("KafkaRaftClient.initialize")
def _raft_story_begins(s: Scope) -> Any:
    return own_trace()


@links("KafkaRaftClient.initialize")
def _started_by(s: Scope) -> list[SpanContext]:
    return caller_link()


@end("KafkaRaftClient.pollCandidate", "KafkaRaftClient.pollFollower", "KafkaRaftClient.pollUnattached",
     "KafkaRaftClient.pollResigned", "KafkaRaftClient.initialize")
def _phase_done(s: Scope) -> dict[str, Any]:
    client = s["self"]
    _maybe_remember_election(client)
    return _node(client)


# -- the role change -----------------------------------------------------------------------------------------------

@on_event("raft.role.change")
def _role_change(s: Scope) -> dict[str, Any]:
    quorum, from_state = s["self"], s["from_state"]
    state = quorum.state
    election = state.election()
    attributes: dict[str, Any] = {
        "kafka.raft.role.from": from_state.name() if from_state is not None else "none",
        "kafka.raft.role.to": state.name(), "kafka.raft.epoch": election.epoch,
        "kafka.raft.leader.id": election.leader_id_or_sentinel(),
        "kafka.raft.voted.id": election.voted_key.id if election.voted_key is not None else -1,
        "kafka.raft.durable": state.name() != "Resigned"}
    try:  # what is on disk now: written (and fsynced) before this change
        attributes["kafka.raft.quorum_state"] = Path(quorum.store.path()).read_text(encoding="utf-8").strip()
    except OSError:
        pass
    return attributes


@start("FileQuorumStateStore.writeElectionState")
def _write_election_state(s: Scope) -> dict[str, Any]:
    return {"kafka.raft.quorum_state.path": str(s["self"].path()), "kafka.raft.election": str(s["latest"])}


# -- Vote ------------------------------------------------------------------------------------------------------------

@when("KafkaRaftClient.maybeSendVoteRequests")
@_attributes.safe(False)
def _votes_to_send(s: Scope) -> bool:
    """A round that asks a voter for the first time in this epoch (retries to an unreachable voter, every
    retry.backoff.ms, are not traced)."""
    client, state, now = s["self"], s["state"], s["current_time_ms"]
    if state.is_vote_rejected():
        return False
    manager = client.request_manager
    key = (id(client), state.epoch())
    asked = _asked.get(key, set())
    ready = {k.id for k in state.unrecorded_voters()
             if (n := client.voters.voter_node(k.id, client.channel.listener_name())) is not None
             and not manager.is_backing_off(n, now) and manager.is_ready(n, now)}
    if not ready - asked:
        return False
    _remember(_asked, key, asked | ready)
    return True


@parent("KafkaRaftClient.maybeSendVoteRequests")
@_attributes.safe(None)
def _vote_round_election(s: Scope) -> Any:
    return _election(s["self"], s["state"].epoch())


@start("KafkaRaftClient.maybeSendVoteRequests")
def _vote_round(s: Scope) -> dict[str, Any]:
    _work("maybeSendVoteRequests")
    client, state = s["self"], s["state"]
    end_offset = client._end_offset()
    return {**_node(client), "kafka.raft.vote.candidate_epoch": state.epoch(),
            "kafka.raft.vote.last_epoch": end_offset.epoch, "kafka.raft.vote.last_offset": end_offset.offset,
            "kafka.raft.vote.asked": sorted(k.id for k in state.unrecorded_voters())}


@parent("KafkaRaftClient.handleVoteRequest")
@_attributes.safe(None)
def _vote_request_sender(s: Scope) -> Any:
    return _remote_parent(s["request_metadata"])


@start("KafkaRaftClient.handleVoteRequest")
def _vote_request(s: Scope) -> dict[str, Any]:
    _work("handleVoteRequest")
    client, request = s["self"], s["request_metadata"].data
    attributes = {**_node(client), "kafka.api.version": s["request_metadata"].api_version}
    try:
        partition = request.topics[0].partitions[0]
    except (IndexError, AttributeError):
        return attributes
    end_offset = client._end_offset()
    attributes.update({"kafka.raft.vote.candidate_id": int(partition.candidate_id),
                       "kafka.raft.vote.candidate_epoch": int(partition.candidate_epoch),
                       "kafka.raft.vote.last_epoch": int(partition.last_offset_epoch),
                       "kafka.raft.vote.last_offset": int(partition.last_offset),
                       "kafka.raft.local.last_epoch": end_offset.epoch,
                       "kafka.raft.local.last_offset": end_offset.offset})
    return attributes


@end("KafkaRaftClient.handleVoteRequest")
def _vote_answer(s: Scope) -> dict[str, Any]:
    client, request, response = s["self"], s["request_metadata"].data, s["result"]
    attributes = _node(client)
    if response is None:
        return attributes
    error = _error_name(response.error_code)
    granted = False
    if error == "NONE" and response.topics:
        partition_response = response.topics[0].partitions[0]
        error = _error_name(partition_response.error_code)
        granted = bool(partition_response.vote_granted)
    attributes.update({"kafka.raft.vote.granted": granted, "kafka.error": error,
                       "kafka.raft.vote.reason": _vote_reason(client, request, error, granted)})
    return attributes


def _error_name(code: Any) -> str:
    """The name of an error code as a response the port built holds it: an Errors member (or kio's ErrorCode)."""
    return code.name.upper()


def _vote_reason(client: Any, request: Any, error: str, granted: bool) -> str:
    """Why this replica answered as it did: read from its state after the answer, which is what decided it."""
    if error == "FENCED_LEADER_EPOCH":
        return f"candidate's epoch is stale: ours is {client.quorum.epoch()}"
    if error != "NONE":
        return f"refused with {error}"
    partition = request.topics[0].partitions[0]
    candidate = int(partition.candidate_id)
    their_offset, their_epoch = int(partition.last_offset), int(partition.last_offset_epoch)
    ours = client._end_offset()
    if granted:
        return (f"granted: candidate's log (epoch {their_epoch}, offset {their_offset}) is at least ours "
                f"(epoch {ours.epoch}, offset {ours.offset})")
    quorum = client.quorum
    voted = quorum.voted_key()
    if quorum.is_unattached() and voted is not None and voted.id != candidate:
        return f"already voted for {voted.id} in epoch {quorum.epoch()}"
    if quorum.is_candidate():
        return f"candidate itself in epoch {quorum.epoch()} (voted for itself)"
    if quorum.is_leader():
        return f"leader of epoch {quorum.epoch()}"
    if quorum.is_resigned():
        return f"resigned leader of epoch {quorum.epoch()}"
    if quorum.has_leader():
        return f"leader known: {quorum.leader_id_or_sentinel()} in epoch {quorum.epoch()}"
    return (f"log behind: candidate's (epoch {their_epoch}, offset {their_offset}) < ours "
            f"(epoch {ours.epoch}, offset {ours.offset})")


@when("KafkaRaftClient.handleVoteResponse")
@_attributes.safe(False)
def _vote_response_arrived(s: Scope) -> bool:
    """Not the wire failures of the retries to an unreachable voter: those responses say nothing."""
    return int(s["response_metadata"].data.error_code) == 0


@parent("KafkaRaftClient.handleVoteResponse")
@_attributes.safe(None)
def _vote_response_election(s: Scope) -> Any:
    client = s["self"]
    return _election(client, client.quorum.epoch())


@start("KafkaRaftClient.handleVoteResponse")
def _vote_response(s: Scope) -> dict[str, Any]:
    _work("handleVoteResponse")
    response = s["response_metadata"]
    attributes = {**_node(s["self"]), "kafka.raft.vote.voter_id": response.source.id,
                  "kafka.error_code": int(response.data.error_code)}
    if response.data.topics:
        partition = response.data.topics[0].partitions[0]
        attributes.update({"kafka.raft.vote.granted": bool(partition.vote_granted),
                           "kafka.raft.vote.voter_epoch": int(partition.leader_epoch),
                           "kafka.error": int(partition.error_code)})
    return attributes


@end("KafkaRaftClient.handleVoteResponse")
def _vote_tally(s: Scope) -> dict[str, Any]:
    client = s["self"]
    attributes = _node(client)
    if client.quorum.is_candidate():
        state = client.quorum.candidate_state_or_throw()
        attributes.update({"kafka.raft.votes.granted": sorted(state.granting_voters()),
                           "kafka.raft.votes.rejected": sorted(state.rejecting_voters()),
                           "kafka.raft.votes.majority": state.majority_size(),
                           "kafka.raft.election.backing_off": state.is_backing_off()})
    elif client.quorum.is_leader():
        state = client.quorum.leader_state_or_throw()
        attributes.update({"kafka.raft.votes.granted": sorted(state.granting_voters()),
                           "kafka.raft.epoch_start_offset": state.epoch_start_offset()})
        # the new leader's first BeginQuorumEpoch round belongs to the same election
        _maybe_remember_election(client)
    return attributes


# -- BeginQuorumEpoch and EndQuorumEpoch -----------------------------------------------------------------------------

@when("KafkaRaftClient.maybeSendBeginQuorumEpochRequests")
@_attributes.safe(False)
def _begin_quorum_epoch_due(s: Scope) -> bool:
    state, now = s["state"], s["current_time_ms"]
    return state.time_until_begin_quorum_epoch_timer_expires(now) == 0 and bool(state.non_acknowledging_voters())


@parent("KafkaRaftClient.maybeSendBeginQuorumEpochRequests")
@_attributes.safe(None)
def _begin_quorum_epoch_election(s: Scope) -> Any:
    return _election(s["self"], s["state"].epoch())


@start("KafkaRaftClient.maybeSendBeginQuorumEpochRequests")
def _begin_quorum_epoch_round(s: Scope) -> dict[str, Any]:
    _work("maybeSendBeginQuorumEpochRequests")
    return {**_node(s["self"]),
            "kafka.raft.begin_quorum_epoch.unacknowledged": sorted(k.id for k in
                                                                   s["state"].non_acknowledging_voters())}


@parent("KafkaRaftClient.handleBeginQuorumEpochRequest",
        "KafkaRaftClient.handleEndQuorumEpochRequest")
@_attributes.safe(None)
def _leader_request_sender(s: Scope) -> Any:
    return _remote_parent(s["request_metadata"])


@start("KafkaRaftClient.handleBeginQuorumEpochRequest", "KafkaRaftClient.handleEndQuorumEpochRequest")
def _leader_request(s: Scope) -> dict[str, Any]:
    _work(type(s["request_metadata"].data).__name__)
    attributes = _node(s["self"])
    try:
        partition = s["request_metadata"].data.topics[0].partitions[0]
        attributes.update({"kafka.raft.request.leader_id": int(partition.leader_id),
                           "kafka.raft.request.leader_epoch": int(partition.leader_epoch)})
    except (IndexError, AttributeError):
        pass
    return attributes


@end("KafkaRaftClient.handleBeginQuorumEpochRequest", "KafkaRaftClient.handleEndQuorumEpochRequest")
def _leader_request_answer(s: Scope) -> dict[str, Any]:
    client, response = s["self"], s["result"]
    attributes = _node(client)
    if response is not None and response.topics:
        attributes["kafka.error_code"] = int(response.topics[0].partitions[0].error_code)
    elif response is not None:
        attributes["kafka.error_code"] = int(response.error_code)
    request = s["request_metadata"].data
    partition = request.topics[0].partitions[0] if request.topics else None
    if hasattr(partition, "preferred_candidates") and client.quorum.is_follower():  # an EndQuorumEpoch (v1)
        attributes["kafka.raft.preferred_successors"] = [int(c.candidate_id) for c in partition.preferred_candidates]
        # the fetch timeout the follower now has: the election backoff its place among the successors gave it
        state = client.quorum.follower_state_or_throw()
        attributes["kafka.raft.fetch_timeout_override_ms"] = state.remaining_fetch_time_ms(s["current_time_ms"])
    return attributes


# -- Fetch -----------------------------------------------------------------------------------------------------------

@when("KafkaRaftClient.maybeSendFetchOrFetchSnapshot")
@_attributes.safe(False)
def _fetch_says_something_new(s: Scope) -> bool:
    client, state = s["self"], s["state"]
    if state.fetching_snapshot() is not None:
        return True  # each slice of a snapshot download moves the follower on
    sent = (client.quorum.epoch(), client.log.end_offset().offset, state.leader_id())
    if _last_fetch.get(id(client)) == sent:
        return False  # the same fetch again: a long poll that found nothing
    _last_fetch[id(client)] = sent
    return True


@start("KafkaRaftClient.maybeSendFetchOrFetchSnapshot")
def _fetch_send(s: Scope) -> dict[str, Any]:
    _work("maybeSendFetchOrFetchSnapshot")
    client, state = s["self"], s["state"]
    return {**_node(client), "kafka.raft.fetch.offset": client.log.end_offset().offset,
            "kafka.raft.fetch.last_fetched_epoch": client.log.last_fetched_epoch(),
            "kafka.raft.fetch.leader_id": state.leader_id()}


@end("KafkaRaftClient.maybeSendFetchOrFetchSnapshot")
def _fetch_sent(s: Scope) -> dict[str, Any]:
    client, state = s["self"], s["state"]
    connection = client.request_manager._connections.get(str(state.leader_id()))
    if connection is not None and connection.in_flight_correlation_id is not None:
        _remember(_fetch_sends, (id(client), connection.in_flight_correlation_id),
                  trace.get_current_span().get_span_context())
        return {"kafka.correlation_id": connection.in_flight_correlation_id}
    return {}


@parent("KafkaRaftClient.handleFetchRequest")
@_attributes.safe(None)
def _fetch_request_sender(s: Scope) -> Any:
    return _remote_parent(s["request_metadata"])


@start("KafkaRaftClient.handleFetchRequest")
def _fetch_request(s: Scope) -> dict[str, Any]:
    _work("handleFetchRequest")
    request = s["request_metadata"].data
    replica_state = getattr(request, "replica_state", None)  # v15+; older versions carry replica_id at the top
    replica_id = replica_state.replica_id if replica_state is not None else getattr(request, "replica_id", -1)
    attributes = {**_node(s["self"]), "kafka.api.version": s["request_metadata"].api_version,
                  "kafka.raft.fetch.replica_id": int(replica_id)}
    try:
        partition = request.topics[0].partitions[0]
        attributes.update({"kafka.raft.fetch.offset": int(partition.fetch_offset),
                           "kafka.raft.fetch.last_fetched_epoch": int(partition.last_fetched_epoch)})
    except (IndexError, AttributeError):
        pass
    return attributes


@end("KafkaRaftClient.handleFetchRequest")
def _fetch_answer(s: Scope) -> dict[str, Any]:
    client, future = s["self"], s["result"]
    attributes = _node(client)
    if future is not None and future.done() and future.exception() is None:
        response = future.result()
        attributes["kafka.raft.fetch.parked"] = False
        if response.responses:
            partition = response.responses[0].partitions[0]
            attributes.update({"kafka.error_code": int(partition.error_code),
                               "kafka.raft.fetch.records_bytes": len(partition.records or b""),
                               "kafka.raft.high_watermark": int(partition.high_watermark)})
            if partition.diverging_epoch.epoch >= 0:
                attributes["kafka.raft.fetch.diverging_epoch"] = int(partition.diverging_epoch.epoch)
                attributes["kafka.raft.fetch.diverging_end_offset"] = int(partition.diverging_epoch.end_offset)
        else:
            attributes["kafka.error_code"] = int(response.error_code)
    elif future is not None:
        attributes["kafka.raft.fetch.parked"] = True  # a long poll: answered when records come or in 500 ms
    leader = client.quorum.maybe_leader_state()
    if leader is not None:
        attributes.update(_high_watermark_computation(leader))
    return attributes


def _high_watermark_computation(leader: Any) -> dict[str, Any]:
    """LeaderState.maybeUpdateHighWatermark, shown: the voters' end offsets sorted descending, the one at index
    n / 2 (a majority has at least it), and whether it passed this epoch's start."""
    voters = leader.followers_by_descending_fetch_offset()
    index = len(leader.voter_states) // 2
    candidate = voters[index].end_offset
    return {"kafka.raft.hw.sorted_voters": [v.replica_key.id for v in voters],
            "kafka.raft.hw.sorted_offsets": [_offset(v.end_offset) for v in voters],
            "kafka.raft.hw.majority_index": index, "kafka.raft.hw.candidate": _offset(candidate),
            "kafka.raft.hw.epoch_start_offset": leader.epoch_start_offset(),
            "kafka.raft.high_watermark": _offset(leader.high_watermark())}


@when("KafkaRaftClient.handleFetchResponse")
@_attributes.safe(False)
def _fetch_response_says_something(s: Scope) -> bool:
    """The answer to a traced send, or one that changes something here. A fetch that failed on the wire (a dead
    leader, retried every retry.backoff.ms) is traced only when its send was."""
    client, response = s["self"], s["response_metadata"]
    with _lock:
        if (id(client), response.correlation_id) in _fetch_sends:
            return True
    data = response.data
    if int(data.error_code) != 0 or not data.responses or not data.responses[0].partitions:
        return False
    partition = data.responses[0].partitions[0]
    if (len(partition.records or b"") > 0 or partition.diverging_epoch.epoch >= 0
            or partition.snapshot_id.epoch >= 0):
        return True
    quorum = client.quorum
    if (int(partition.current_leader.leader_epoch) != quorum.epoch()
            or int(partition.current_leader.leader_id) != quorum.leader_id_or_sentinel()):
        return True
    return int(partition.error_code) == 0 and int(partition.high_watermark) != _offset(quorum.high_watermark())


@links("KafkaRaftClient.handleFetchResponse")
def _fetch_response_send(s: Scope) -> list[SpanContext]:
    with _lock:
        sent = _fetch_sends.pop((id(s["self"]), s["response_metadata"].correlation_id), None)
    return [sent] if sent is not None else []


@start("KafkaRaftClient.handleFetchResponse")
def _fetch_response(s: Scope) -> dict[str, Any]:
    _work("handleFetchResponse")
    client, data = s["self"], s["response_metadata"].data
    attributes = {**_node(client), "kafka.correlation_id": s["response_metadata"].correlation_id,
                  "kafka.raft.fetch.leader_id": s["response_metadata"].source.id}
    if data.responses and data.responses[0].partitions:
        partition = data.responses[0].partitions[0]
        attributes.update({"kafka.error_code": int(partition.error_code),
                           "kafka.raft.fetch.records_bytes": len(partition.records or b""),
                           "kafka.raft.leader.high_watermark": int(partition.high_watermark)})
        if partition.diverging_epoch.epoch >= 0:
            attributes["kafka.raft.fetch.diverging_epoch"] = int(partition.diverging_epoch.epoch)
            attributes["kafka.raft.fetch.diverging_end_offset"] = int(partition.diverging_epoch.end_offset)
    else:
        attributes["kafka.error_code"] = int(data.error_code)
    return attributes


@end("KafkaRaftClient.handleFetchResponse")
def _fetch_response_done(s: Scope) -> dict[str, Any]:
    client = s["self"]
    return {**_node(client), "kafka.raft.log_end_offset": client.log.end_offset().offset,
            "kafka.raft.high_watermark": _offset(client.quorum.high_watermark())}


@parent("KafkaRaftClient.handleFetchSnapshotRequest")
@_attributes.safe(None)
def _fetch_snapshot_sender(s: Scope) -> Any:
    return _remote_parent(s["request_metadata"])


@start("KafkaRaftClient.handleFetchSnapshotRequest")
def _fetch_snapshot_request(s: Scope) -> dict[str, Any]:
    _work("handleFetchSnapshotRequest")
    data = s["request_metadata"].data
    attributes = {**_node(s["self"]), "kafka.raft.fetch.replica_id": int(data.replica_id)}
    try:
        partition = data.topics[0].partitions[0]
        attributes.update({"kafka.raft.snapshot.end_offset": int(partition.snapshot_id.end_offset),
                           "kafka.raft.snapshot.epoch": int(partition.snapshot_id.epoch),
                           "kafka.raft.snapshot.position": int(partition.position)})
    except (IndexError, AttributeError):
        pass
    return attributes


@end("KafkaRaftClient.handleFetchSnapshotRequest")
def _fetch_snapshot_answer(s: Scope) -> dict[str, Any]:
    attributes = _node(s["self"])
    response = s.get("result")
    if response is not None and response.topics:
        partition = response.topics[0].partitions[0]
        attributes.update({"kafka.error_code": int(partition.error_code),
                           "kafka.raft.snapshot.size": int(partition.size),
                           "kafka.raft.snapshot.bytes": len(partition.unaligned_records or b"")})
    return attributes


@start("KafkaRaftClient.handleFetchSnapshotResponse")
def _fetch_snapshot_response(s: Scope) -> dict[str, Any]:
    _work("handleFetchSnapshotResponse")
    data = s["response_metadata"].data
    attributes = _node(s["self"])
    try:
        partition = data.topics[0].partitions[0]
        attributes.update({"kafka.error_code": int(partition.error_code),
                           "kafka.raft.snapshot.end_offset": int(partition.snapshot_id.end_offset),
                           "kafka.raft.snapshot.epoch": int(partition.snapshot_id.epoch),
                           "kafka.raft.snapshot.position": int(partition.position),
                           "kafka.raft.snapshot.size": int(partition.size)})
    except (IndexError, AttributeError):
        attributes["kafka.error_code"] = int(data.error_code)
    return attributes


@end("KafkaRaftClient.handleFetchSnapshotResponse")
def _fetch_snapshot_response_done(s: Scope) -> dict[str, Any]:
    client = s["self"]
    return {**_node(client), "kafka.raft.log_start_offset": client.log.start_offset(),
            "kafka.raft.log_end_offset": client.log.end_offset().offset}


@start("KafkaRaftClient.createSnapshot")
def _create_snapshot(s: Scope) -> dict[str, Any]:
    snapshot_id = s["snapshot_id"]
    client = s["self"]
    return {**_node(client), "kafka.raft.snapshot.end_offset": snapshot_id.offset,
            "kafka.raft.snapshot.epoch": snapshot_id.epoch, "kafka.raft.log_start_offset": client.log.start_offset(),
            "kafka.raft.high_watermark": _offset(client.quorum.high_watermark())}


@end("KafkaRaftClient.createSnapshot")
def _created_snapshot(s: Scope) -> dict[str, Any]:
    return {"kafka.raft.snapshot.created": s.get("result") is not None}


@end("KafkaMetadataLog.appendAsLeader", "KafkaMetadataLog.appendAsFollower")
def _appended(s: Scope) -> dict[str, Any]:
    info = s.get("result")
    return ({"kafka.raft.offset.first": info.first_offset, "kafka.raft.offset.last": info.last_offset}
            if info is not None else {})


@start("ReplicatedLog.truncateToEndOffset")
def _truncating(s: Scope) -> dict[str, Any]:
    end_offset = s["end_offset"]
    return {"kafka.raft.diverging_epoch": end_offset.epoch, "kafka.raft.diverging_end_offset": end_offset.offset,
            "kafka.raft.log_end_offset.before": s["self"].end_offset().offset}


@end("ReplicatedLog.truncateToEndOffset")
def _truncated(s: Scope) -> dict[str, Any]:
    return {"kafka.raft.truncation_offset": s["result"]} if s.get("result") is not None else {}


# -- listeners -------------------------------------------------------------------------------------------------------

@when("KafkaRaftClient.pollListeners")
@_attributes.safe(False)
def _listeners_have_work(s: Scope) -> bool:
    client = s["self"]
    if client._pending_registrations:
        return True
    high_watermark = client.quorum.high_watermark()
    leader_and_epoch = client.quorum.leader_and_epoch()
    leader = client.quorum.maybe_leader_state()
    for context in list(client.listener_contexts.values()):
        next_offset = context.next_expected_offset()
        if high_watermark is not None and next_offset is not None and next_offset < high_watermark.offset:
            return True
        if context._should_fire_leader_change(leader_and_epoch) and not client.quorum.is_resigned() and (
                leader is None or context.get_next_offset() > leader.epoch_start_offset()):
            return True
    return False


@start("KafkaRaftClient.pollListeners")
def _listeners(s: Scope) -> dict[str, Any]:
    _work("pollListeners")
    client = s["self"]
    return {**_node(client), "kafka.raft.listeners": len(client.listener_contexts),
            "kafka.raft.listeners.pending_registrations": len(client._pending_registrations),
            "kafka.raft.high_watermark": _offset(client.quorum.high_watermark())}


@end("KafkaRaftClient.pollListeners")
def _listeners_done(s: Scope) -> dict[str, Any]:
    client = s["self"]
    return {"kafka.raft.listeners.next_offsets": [c.get_next_offset() for c in client.listener_contexts.values()]}


# -- shutdown ----------------------------------------------------------------------------------------------------------

@start("KafkaRaftClientDriver.initiateShutdown")
def _initiate_shutdown(s: Scope) -> dict[str, Any]:
    return _node(s["self"].client)
