"""Describers for lifecycle spans (see kafka_edu/tracing/attributes.py)."""

from __future__ import annotations

from typing import Any

from kafka_edu.tracing.attributes import Scope, end, links, on_event, start
from kafka_edu.tracing.provider import current_tracing, set_process_attribute

# -- kafka.Kafka.main ------------------------------------------------------------------------------------------------


@start("LC.main.1")
def _args(s: Scope) -> dict[str, Any]:
    return {"kafka.args": list(s["args"])}


@on_event("shutdown.hook.registered")
def _signals(s: Scope) -> dict[str, Any]:
    return {"signals": ["SIGTERM", "SIGINT"]}


_main: list[Any] = []  # the Kafka.main span of this process, which the wait for shutdown links to


@start("Kafka.main")
def _main_span(s: Scope) -> dict[str, Any]:
    from opentelemetry import trace
    _main.append(trace.get_current_span().get_span_context())
    tracing = current_tracing()  # the run's directory is where this process writes its spans
    writer = tracing.writer if tracing is not None else None
    return {"kafka.run.dir": str(writer.run_dir)} if writer is not None else {}


@links("LC.main.5")
def _started_by_main(s: Scope) -> list[Any]:
    return _main[-1:]


# -- BrokerState.newState: which FIDELITY row a change is follows from its target state -----------------------------

_STATE_STEPS = {"Starting": "LC.startup.02", "RunningAsBroker": "LC.startup.23", "BrokerShuttingDown": "LC.shutdown.03",
                "NotRunning": "LC.shutdown.20"}


@start("BrokerState.newState")
def _broker_state(s: Scope) -> dict[str, Any]:
    new_state = s["new_state"]
    attributes = {"kafka.broker.state.from": s["self"].current_state.name, "kafka.broker.state.to": new_state.name,
                  "kafka.broker.state.value": int(new_state)}
    if new_state.name in _STATE_STEPS:
        attributes["kafka.step"] = _STATE_STEPS[new_state.name]
    return attributes


# -- KafkaServer.startup -----------------------------------------------------------------------------------------------

@start("LC.startup.03")
def _scheduler(s: Scope) -> dict[str, Any]:
    return {"kafka.scheduler.threads": s["self"].config.background_threads}


@start("LC.startup.04")
def _zk_connect(s: Scope) -> dict[str, Any]:
    return {"kafka.zk.connect": s["self"].config.zk_connect}


@end("LC.startup.05")
def _cluster_id(s: Scope) -> dict[str, Any]:
    return {"kafka.cluster.id": s["self"].cluster_id or ""}


@end("LC.startup.06")
def _broker_id(s: Scope) -> dict[str, Any]:
    server = s["self"]
    if s["result"] is None:  # the step failed (InconsistentBrokerIdException): the exception says why
        return {}
    broker_id, initial_offline_dirs = s["result"]
    set_process_attribute("kafka.broker.id", broker_id)  # every span of this process names its broker from now on
    stored = [metadata for checkpoint in server.broker_metadata_checkpoints.values()
              if (metadata := _read_quietly(checkpoint)) is not None]
    configured = int(server.config.originals().get("broker.id", -1))
    source = "meta.properties" if stored else "config" if configured >= 0 else "zookeeper"
    return {"kafka.broker.id": broker_id, "kafka.log.offline_dirs": list(initial_offline_dirs),
            "kafka.broker.id.source": source}


def _read_quietly(checkpoint: Any) -> Any:
    try:
        return checkpoint.read()
    except OSError:
        return None


@start("LC.startup.08")
def _log_dirs(s: Scope) -> dict[str, Any]:
    return {"kafka.log.dirs": list(s["self"].config.log_dirs)}


@start("LC.startup.10")
def _listeners(s: Scope) -> dict[str, Any]:
    return {"kafka.listeners": [e.connection_string() for e in s["self"].config.listeners]}


@start("LC.startup.16")
def _authorizer(s: Scope) -> dict[str, Any]:
    return {"kafka.authorizer": s["self"].config.authorizer_class_name or ""}


@start("LC.startup.18")
def _io_threads(s: Scope) -> dict[str, Any]:
    return {"kafka.io.threads": s["self"].config.num_io_threads}


@start("LC.startup.20")
def _endpoints(s: Scope) -> dict[str, Any]:
    return {"kafka.endpoints": [e.connection_string() for e in s["listeners"]]}


@start("LC.startup.21")
def _to_checkpoint(s: Scope) -> dict[str, Any]:
    server = s["self"]  # the online dirs still without meta.properties: the ones this step writes
    return {"kafka.log.dirs.checkpointed": [
        log_dir for log_dir in server.config.log_dirs
        if server.log_manager.is_log_dir_online(log_dir) and _read_quietly(server.broker_metadata_checkpoints[log_dir])
        is None]}


@on_event("startup.fatal")
def _fatal(s: Scope) -> dict[str, Any]:
    e = s["e"]
    return {"exception.type": type(e).__name__, "exception.message": str(e)}


# -- KafkaServer.shutdown ------------------------------------------------------------------------------------------

@start("LC.shutdown.02")
def _controlled_shutdown_retries(s: Scope) -> dict[str, Any]:
    return {"kafka.controlled_shutdown.max_retries": s["self"].config.controlled_shutdown_max_retries}


@end("LC.shutdown.02")
def _controlled_shutdown_result(s: Scope) -> dict[str, Any]:
    return {"kafka.controlled_shutdown.succeeded": bool(s.get("shutdown_succeeded", False))}
