"""Describers for the log cleaner's spans (FIDELITY CL, Kafka 1.0.2's and 3.9's LogCleaner; see
kafka_edu/tracing/attributes.py).

One trace per cleaner pass that does work, rooted at CL.work. Whether a pass has work is known only once
grabFilthiestCompactedLog has looked, so CL.work's `when` asks the same question first, without marking anything: a
compacted log, not being cleaned, whose dirty ratio passes its `min.cleanable.dirty.ratio`, by the manager's own
cleanableOffsets and LogToClean. An idle pass is therefore not traced, and neither is any step under it (each runs
only inside a recorded span, so that no step of an untraced pass starts a trace of its own). CL.abort is a child of
whatever asked for it (a truncation, a deletion); CL.startup of LogManager.startup (LC.startup.08).

The two ports name alike, except that 3.9's (Java-style) getters are methods where 1.0.2's are properties
(`log.config()`, `segment.base_offset()`): `_get` reads either. A span of the 3.9 port says so in
`kafka.origin.version` (the table gives one version per symbol, 1.0.2's for the rows both ports carry).
"""

from __future__ import annotations

import sys
from typing import Any

from opentelemetry import trace

from kafka_edu.tracing.attributes import Scope, end, on_event, safe, start, when


def _tp(tp: Any) -> dict[str, Any]:
    topic, partition = tp
    return {"kafka.topic": topic, "kafka.partition": partition}


def _get(obj: Any, name: str) -> Any:
    """A getter of either port: 1.0.2's property, or 3.9's method."""
    value = getattr(obj, name)
    return value() if callable(value) else value


def _is_3_9(obj: Any) -> bool:
    return type(obj).__module__.startswith("kafka_edu.v3_9.")


def _in_a_trace(_s: Scope) -> bool:
    return trace.get_current_span().is_recording()


when("CL.grab", "CL.clean", "CL.map", "CL.group", "CL.segments", "CL.into", "CL.done", "CL.delete",
     "Log.replaceSegments", "CL.swap")(_in_a_trace)


def _stats(stats: Any, prefix: str = "kafka.cleaner") -> dict[str, Any]:
    return {f"{prefix}.bytes.read": stats.bytes_read, f"{prefix}.bytes.kept": stats.bytes_written,
            f"{prefix}.bytes.removed": stats.bytes_read - stats.bytes_written,
            f"{prefix}.records.read": stats.messages_read, f"{prefix}.records.kept": stats.messages_written,
            f"{prefix}.records.removed": stats.messages_read - stats.messages_written,
            f"{prefix}.records.invalid": stats.invalid_messages_read}


def _log_to_clean(ltc: Any) -> dict[str, Any]:
    attrs = {**_tp(ltc.topic_partition), "kafka.log.dir": str(_get(ltc.log, "dir")),
             "kafka.cleaner.first_dirty_offset": ltc.first_dirty_offset,
             "kafka.cleaner.first_uncleanable_offset": ltc.first_uncleanable_offset,
             "kafka.cleaner.cleanable_bytes": ltc.cleanable_bytes, "kafka.cleaner.total_bytes": ltc.total_bytes,
             "kafka.cleaner.dirty_ratio": round(ltc.cleanable_ratio, 4),
             "kafka.cleaner.min_cleanable_ratio": _get(ltc.log, "config").min_cleanable_ratio}
    if hasattr(ltc, "need_compaction_now"):  # 3.9: past max.compaction.lag.ms
        attrs["kafka.cleaner.need_compaction_now"] = ltc.need_compaction_now
    return attrs


# -- CL.startup: LogCleaner.startup -----------------------------------------------------------------------------------

@start("CL.startup")
def _startup(s: Scope) -> dict[str, Any]:
    cleaner = s["self"]
    if _is_3_9(cleaner):  # 3.9 creates the threads in startup: CL.startup's end names them
        config = cleaner.current_config()
        return {"kafka.cleaner.dedupe_buffer_bytes_per_thread": min(config.dedupe_buffer_size // config.num_threads,
                                                                    2**31 - 1),
                "kafka.cleaner.io_buffer_bytes_per_thread": config.io_buffer_size // config.num_threads // 2,
                "kafka.cleaner.backoff_ms": config.backoff_ms,
                "kafka.log.dirs": [str(d) for d in cleaner.log_dirs]}
    config = cleaner.config
    return {"kafka.cleaner.threads": [t.name for t in cleaner.cleaners],
            "kafka.cleaner.dedupe_buffer_bytes_per_thread": min(config.dedupe_buffer_size // config.num_threads,
                                                                2**31 - 1),
            "kafka.cleaner.io_buffer_bytes_per_thread": config.io_buffer_size // config.num_threads // 2,
            "kafka.cleaner.backoff_ms": config.back_off_ms,
            "kafka.log.dirs": [str(d) for d in cleaner.log_dirs]}


@end("CL.startup")
def _started(s: Scope) -> dict[str, Any]:
    cleaner = s["self"]
    return {"kafka.cleaner.threads": [t.name for t in cleaner.cleaners]} if _is_3_9(cleaner) else {}


# -- CL.work: CleanerThread.doWork, traced only when there is a log to clean ---------------------------------------

@when("CL.work")
@safe(False)
def _pass_has_work(s: Scope) -> bool:
    """grabFilthiestCompactedLog's question, asked without marking a log in progress: LogToClean's ratio over the
    range LogCleanerManager.cleanableOffsets gives."""
    thread = s["self"]
    manager = thread.cleaner_manager
    now = thread.log_cleaner.time.milliseconds()
    last_clean = manager.all_cleaner_checkpoints()
    if _is_3_9(manager):
        return _pass_has_work_3_9(manager, last_clean, now)
    for tp, lg in list(manager.logs.items()):
        if not lg.config.compact or manager.cleaning_state(tp) is not None:
            continue
        first_dirty, uncleanable = manager.cleanable_offsets(lg, tp, last_clean, now)
        active = lg.active_segment
        uncleanable_segments = lg.log_segments(uncleanable, active.base_offset)
        first_uncleanable = uncleanable_segments[0].base_offset if uncleanable_segments else active.base_offset
        clean_bytes = sum(seg.size for seg in lg.log_segments(-1, first_dirty))
        cleanable_bytes = sum(seg.size for seg in lg.log_segments(first_dirty, max(first_dirty, first_uncleanable)))
        total_bytes = clean_bytes + cleanable_bytes
        if total_bytes > 0 and cleanable_bytes / total_bytes > lg.config.min_cleanable_ratio:
            return True
    return False


def _pass_has_work_3_9(manager: Any, last_clean: dict[Any, int], now: int) -> bool:
    """3.9's grabFilthiestCompactedLog, without its marks: the companion object's functions of the manager's own
    module (cleanableOffsets, maxCompactionDelay, calculateCleanableBytes), uncleanable partitions skipped, and a
    log past max.compaction.lag.ms with cleanable bytes counts whatever its ratio."""
    companion = sys.modules[type(manager).__module__]
    for tp, lg in list(manager.logs.items()):
        if not lg.config().compact or manager.cleaning_state(tp) is not None:
            continue
        if tp in manager.uncleanable_partitions(lg.parent_dir()):
            continue
        offsets = companion.cleanable_offsets(lg, last_clean.get(tp), now)
        first_dirty = offsets.first_dirty_offset
        need_compaction_now = companion.max_compaction_delay(lg, first_dirty, now) > 0
        clean_bytes = sum(seg.size() for seg in lg.log_segments(-1, first_dirty))
        _, cleanable_bytes = companion.calculate_cleanable_bytes(lg, first_dirty,
                                                                 offsets.first_uncleanable_dirty_offset)
        total_bytes = clean_bytes + cleanable_bytes
        if total_bytes > 0 and ((need_compaction_now and cleanable_bytes > 0)
                                or cleanable_bytes / total_bytes > lg.config().min_cleanable_ratio):
            return True
    return False


@start("CL.work")
def _work(s: Scope) -> dict[str, Any]:
    thread = s["self"]
    return {"kafka.cleaner.thread.id": thread.cleaner.id}


@end("CL.work")
def _worked(s: Scope) -> dict[str, Any]:
    return _stats(s["self"].last_stats, "kafka.cleaner.last")


# -- CL.grab: LogCleanerManager.grabFilthiestCompactedLog -------------------------------------------------------------

@end("CL.grab")
def _grabbed(s: Scope) -> dict[str, Any]:
    result = s.get("result")
    manager = s["self"]
    if _is_3_9(manager) and s.get("pre_clean_stats") is not None:
        stats = s["pre_clean_stats"]
        extra = {"kafka.cleaner.cleanable_partitions": stats.cleanable_partitions,
                 "kafka.cleaner.delayed_partitions": stats.delayed_partitions,
                 "kafka.cleaner.max_compaction_delay_ms": stats.max_compaction_delay_ms}
    else:
        extra = {}
    if result is None:
        return {"kafka.cleaner.found": False,
                "kafka.cleaner.dirtiest_ratio": round(manager.dirtiest_log_cleanable_ratio, 4), **extra}
    return {"kafka.cleaner.found": True, **_log_to_clean(result), **extra}


# -- CL.clean: Cleaner.clean ------------------------------------------------------------------------------------------

@start("CL.clean")
def _clean(s: Scope) -> dict[str, Any]:
    cleanable = s["cleanable"]
    return {**_log_to_clean(cleanable),
            "kafka.log.delete_retention_ms": _get(cleanable.log, "config").delete_retention_ms}


@end("CL.clean")
def _cleaned(s: Scope) -> dict[str, Any]:
    result = s.get("result")
    if result is None:
        return {}
    end_offset, stats = result
    return {"kafka.cleaner.end_offset": end_offset, **_stats(stats),
            "kafka.cleaner.map.records.read": stats.map_messages_read,
            "kafka.cleaner.map.bytes.read": stats.map_bytes_read,
            "kafka.cleaner.buffer_utilization": round(stats.buffer_utilization, 4)}


# -- CL.map: Cleaner.buildOffsetMap -----------------------------------------------------------------------------------

@start("CL.map")
def _map(s: Scope) -> dict[str, Any]:
    return {**_tp(_get(s["log"], "topic_partition")), "kafka.offset.start": s["start"], "kafka.offset.end": s["end"],
            "kafka.cleaner.map.slots": _get(s["map"], "slots")}


@end("CL.map")
def _mapped(s: Scope) -> dict[str, Any]:
    offset_map, stats = s["map"], s["stats"]
    return {"kafka.cleaner.map.keys": _get(offset_map, "size"),
            "kafka.cleaner.map.latest_offset": _get(offset_map, "latest_offset"),
            "kafka.cleaner.map.records.read": stats.map_messages_read,
            "kafka.cleaner.map.bytes.read": stats.map_bytes_read}


# -- CL.group: Cleaner.groupSegmentsBySize ----------------------------------------------------------------------------

@start("CL.group")
def _group(s: Scope) -> dict[str, Any]:
    return {"kafka.log.segment_bytes": s["max_size"], "kafka.log.segment_index_bytes": s["max_index_size"],
            "kafka.cleaner.first_uncleanable_offset": s["first_uncleanable_offset"]}


@end("CL.group")
def _grouped(s: Scope) -> dict[str, Any]:
    groups = s.get("result") or []
    return {"kafka.cleaner.groups": [",".join(str(_get(seg, "base_offset")) for seg in group) for group in groups]}


# -- CL.segments: Cleaner.cleanSegments -------------------------------------------------------------------------------

@start("CL.segments")
def _segments(s: Scope) -> dict[str, Any]:
    if _is_3_9(s["self"]):  # the legacy horizon only rules pre-v2 batches; v2 batches carry their own
        return {**_tp(s["log"].topic_partition()),
                "kafka.log.segments": [seg.base_offset() for seg in s["segments"]],
                "kafka.log.segments.bytes": sum(seg.size() for seg in s["segments"]),
                "kafka.cleaner.legacy_delete_horizon_ms": s["legacy_delete_horizon_ms"],
                "kafka.cleaner.current_time_ms": s["current_time"]}
    return {**_tp(s["log"].topic_partition),
            "kafka.log.segments": [seg.base_offset for seg in s["segments"]],
            "kafka.log.segments.bytes": sum(seg.size for seg in s["segments"]),
            "kafka.cleaner.delete_horizon_ms": s["delete_horizon_ms"]}


@end("CL.segments")
def _segments_cleaned(s: Scope) -> dict[str, Any]:
    base_offset = _get(s["segments"][0], "base_offset")
    cleaned = [seg for seg in s["log"].log_segments() if _get(seg, "base_offset") == base_offset]
    return {"kafka.log.segment.cleaned.bytes": _get(cleaned[0], "size") if cleaned else -1, **_stats(s["stats"])}


# -- CL.into: Cleaner.cleanInto ---------------------------------------------------------------------------------------

@start("CL.into")
def _into(s: Scope) -> dict[str, Any]:
    source = s["source_records"]
    if _is_3_9(s["self"]):
        return {**_tp(s["topic_partition"]), "kafka.log.segment.file": source.file().name,
                "kafka.log.segment.bytes": source.size_in_bytes(),
                "kafka.log.segment.cleaned.base_offset": s["dest"].base_offset(),
                "kafka.cleaner.retain_legacy_deletes": s["retain_legacy_deletes_and_txn_markers"],
                "kafka.log.delete_retention_ms": s["delete_retention_ms"],
                "kafka.cleaner.map.latest_offset": s["map"].latest_offset()}
    return {**_tp(s["topic_partition"]), "kafka.log.segment.file": source.file.name,
            "kafka.log.segment.bytes": source.size_in_bytes(), "kafka.log.segment.cleaned.base_offset":
            s["dest"].base_offset, "kafka.cleaner.retain_deletes": s["retain_deletes"],
            "kafka.cleaner.map.latest_offset": s["map"].latest_offset}


@end("CL.into")
def _into_done(s: Scope) -> dict[str, Any]:
    return {"kafka.log.segment.cleaned.bytes": _get(s["dest"], "size"), **_stats(s["stats"])}


# -- CL.swap: Log.replaceSegments (1.0.2) -----------------------------------------------------------------------------

@start("Log.replaceSegments")
def _swap(s: Scope) -> dict[str, Any]:
    return {**_tp(s["self"].topic_partition), "kafka.log.segment.new": s["new_segment"].base_offset,
            "kafka.log.segments.replaced": [seg.base_offset for seg in s["old_segments"]],
            "kafka.log.swap.recovered": bool(s.get("is_recovered_swap_file", False))}


# -- CL.swap: UnifiedLog.replaceSegments (3.9) -----------------------------------------------------------------------

@start("CL.swap")
def _swap_3_9(s: Scope) -> dict[str, Any]:
    if not _is_3_9(s["self"]):  # 1.0.2's Log.replaceSegments is the same row
        return _swap(s)
    # a list in Kafka's signature; the cleaner hands one
    new_segments = [seg.base_offset() for seg in s["new_segments"]]
    return {**_tp(s["self"].topic_partition()), "kafka.log.segment.new": new_segments[0] if new_segments else -1,
            "kafka.log.segments.new": new_segments,
            "kafka.log.segments.replaced": [seg.base_offset() for seg in s["old_segments"]]}


# -- CL.done: LogCleanerManager.doneCleaning --------------------------------------------------------------------------

@start("CL.done")
def _done(s: Scope) -> dict[str, Any]:
    state = s["self"].cleaning_state(s["topic_partition"])
    return {**_tp(s["topic_partition"]), "kafka.cleaner.end_offset": s["end_offset"],
            "kafka.cleaner.state.from": state.value if state is not None else "none"}


@end("CL.done")
def _done_end(s: Scope) -> dict[str, Any]:
    state = s["self"].cleaning_state(s["topic_partition"])
    return {"kafka.cleaner.state.to": state.value if state is not None else "none",
            "kafka.cleaner.checkpoint": s["self"].all_cleaner_checkpoints().get(s["topic_partition"], -1)}


# -- CL.delete: LogCleanerManager.deletableLogs and the retention of each ---------------------------------------------

@end("CL.delete")
def _deleted(s: Scope) -> dict[str, Any]:
    deletable = s.get("deletable")
    if deletable is None:
        return {}
    return {"kafka.cleaner.deletable": [f"{t}-{p}" for (t, p), _ in deletable],
            "kafka.log.segments.deleted": s.get("segments_deleted", 0)}


# -- CL.abort: LogCleanerManager.abortAndPauseCleaning ----------------------------------------------------------------

@start("CL.abort")
def _abort(s: Scope) -> dict[str, Any]:
    state = s["self"].cleaning_state(s["topic_partition"])
    return {**_tp(s["topic_partition"]), "kafka.cleaner.state.from": state.value if state is not None else "none"}


@end("CL.abort")
def _aborted(s: Scope) -> dict[str, Any]:
    state = s["self"].cleaning_state(s["topic_partition"])
    return {"kafka.cleaner.state.to": state.value if state is not None else "none"}


# -- partition.uncleanable (3.9): LogCleanerManager.markPartitionUncleanable -----------------------------------------

@on_event("partition.uncleanable")
def _uncleanable(s: Scope) -> dict[str, Any]:
    return {**_tp(s["topic_partition"]), "kafka.log.dir": s["log_dir"],
            "kafka.cleaner.uncleanable": sorted(str(tp) for tp in s["self"].uncleanable_partitions(s["log_dir"]))}
