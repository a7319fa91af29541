"""In-process cost of the broker's log layer per record: validate + append (the produce path) and read (fetch).

    python benchmarks/log_append.py [--repeat 3] [--mb 16] [--idempotent] [--profile produce|fetch]

For 100 B and 1 KiB values it builds produce batches the way librdkafka sends them (one uncompressed v2 batch of
about 1 MB per partition per request, no key, no headers, millisecond timestamps) with the port's own
MemoryRecordsBuilder, then times `Log.append_as_leader` (Log.analyzeAndValidateRecords, LogValidator, producer
state, LogSegment.append) on a temporary directory, and `Log.read` of 1 MB chunks up to the log end, the way a
consumer's fetches read it. Each figure is the best of `--repeat` runs, in µs per record and records/s. Figures,
not assertions: compare two commits by running this script on each.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import tempfile
import time
from pathlib import Path

from kafka_edu.v1_0_2.clients.common.record.compression_type import CompressionType
from kafka_edu.v1_0_2.clients.common.record.default_record import DefaultRecord
from kafka_edu.v1_0_2.clients.common.record.file_records import DefaultRecordBatch, TimestampType
from kafka_edu.v1_0_2.clients.common.record.memory_records_builder import MemoryRecordsBuilder
from kafka_edu.v1_0_2.core.log.log import Log
from kafka_edu.v1_0_2.core.log.log_config import LogConfig

BATCH_BYTES = 1_000_000  # librdkafka's default batch.size
FETCH_BYTES = 1 << 20  # a consumer's max.partition.fetch.bytes


def produce_batch(value_size: int, producer_id: int = -1, base_sequence: int = -1) -> bytes:
    """One batch of ~1 MB with `value_size`-byte values, offsets 0..n-1, timestamps a few ms apart."""
    count = BATCH_BYTES // (value_size + 12)
    start = int(time.time() * 1000)
    builder = MemoryRecordsBuilder(CompressionType.NONE, TimestampType.CREATE_TIME, 0, start, producer_id,
                                   0 if producer_id >= 0 else -1, base_sequence, False, -1)
    value = bytes(range(256)) * (value_size // 256) + bytes(value_size % 256)
    for i in range(count):
        builder.append_with_offset(i, DefaultRecord(0, 0, i, start + i // 1000, -1, None, value, []))
    return bytes(builder.build().buffer)


def bench_append(log_dir: Path, value_size: int, total_bytes: int, idempotent: bool) -> tuple[float, int]:
    """Seconds spent in append_as_leader for `total_bytes` worth of batches, and the records appended."""
    log = Log(log_dir, LogConfig())
    try:
        producer_id = 1000 if idempotent else -1
        first = produce_batch(value_size, producer_id, 0 if idempotent else -1)
        per_batch = DefaultRecordBatch(first).record_count
        batches = max(1, total_bytes // len(first))
        payloads = [first]
        for i in range(1, batches):
            payloads.append(produce_batch(value_size, producer_id, i * per_batch) if idempotent else first)
        started = time.perf_counter()
        for payload in payloads:
            log.append_as_leader(payload, leader_epoch=0)
        elapsed = time.perf_counter() - started
        return elapsed, batches * per_batch
    finally:
        log.close()


def bench_fetch(log_dir: Path) -> tuple[float, int]:
    """Seconds to read the whole log in 1 MB fetches, and the records read."""
    log = Log(log_dir, LogConfig())
    try:
        end = log.log_end_offset
        offset, records = 0, 0
        started = time.perf_counter()
        while offset < end:
            data = log.read(offset, FETCH_BYTES, max_offset=end)
            # The consumer's next offset: the batch headers of what came back (whole batches only).
            position, next_offset = 0, offset
            while position + 61 <= len(data):
                batch = DefaultRecordBatch(memoryview(data)[position:])
                size = batch.size_in_bytes
                if position + size > len(data):
                    break
                next_offset = batch.next_offset
                position += size
            records += next_offset - offset
            offset = next_offset
        return time.perf_counter() - started, records
    finally:
        log.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--mb", type=int, default=16, help="megabytes appended per run")
    parser.add_argument("--idempotent", action="store_true", help="batches carry a producer id and sequences")
    parser.add_argument("--profile", choices=("produce", "fetch"), help="cProfile one 100 B run and print the top")
    parser.add_argument("--sizes", default="100,1024")
    options = parser.parse_args()
    sizes = [int(s) for s in options.sizes.split(",")]
    print(f"{'record':>7} {'phase':<16} {'records':>9} {'µs/record':>10} {'records/s':>11} {'MB/s':>8}")
    for value_size in sizes:
        append_best = fetch_best = None
        for _ in range(options.repeat):
            with tempfile.TemporaryDirectory() as tmp:
                log_dir = Path(tmp) / "bench-0"
                profiler = cProfile.Profile() if options.profile == "produce" else None
                if profiler:
                    profiler.enable()
                append = bench_append(log_dir, value_size, options.mb * 1_000_000, options.idempotent)
                if profiler:
                    profiler.disable()
                    pstats.Stats(profiler).sort_stats("tottime").print_stats(25)
                profiler = cProfile.Profile() if options.profile == "fetch" else None
                if profiler:
                    profiler.enable()
                fetch = bench_fetch(log_dir)
                if profiler:
                    profiler.disable()
                    pstats.Stats(profiler).sort_stats("tottime").print_stats(25)
            if append_best is None or append[0] < append_best[0]:
                append_best = append
            if fetch_best is None or fetch[0] < fetch_best[0]:
                fetch_best = fetch
        for phase, (seconds, records) in (("validate+append", append_best), ("fetch read", fetch_best)):
            print(f"{value_size:>5} B {phase:<16} {records:>9,} {seconds / records * 1e6:>10.2f} "
                  f"{records / seconds:>11,.0f} {records * value_size / seconds / 1e6:>8.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
