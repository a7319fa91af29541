"""The Spark schemas of trace mining: the OTLP/JSON line as written by the file exporter, and the flat span row.

Both are explicit (TRACING.md: never inference): a line that does not fit is counted as bad input, not guessed at.
"""

from __future__ import annotations

from pyspark.sql.types import (
    ArrayType,
    BooleanType,
    DoubleType,
    IntegerType,
    LongType,
    MapType,
    StringType,
    StructField,
    StructType,
)

CORRUPT = "_corrupt_record"

# OTLP AnyValue: ints and nanosecond times are decimal strings in OTLP/JSON; arrays hold scalar values.
_SCALAR = StructType([
    StructField("stringValue", StringType()),
    StructField("intValue", StringType()),
    StructField("boolValue", BooleanType()),
    StructField("doubleValue", DoubleType()),
])
_ANY_VALUE = StructType(_SCALAR.fields + [
    StructField("arrayValue", StructType([StructField("values", ArrayType(_SCALAR))])),
])
_KEY_VALUES = ArrayType(StructType([StructField("key", StringType()), StructField("value", _ANY_VALUE)]))

OTLP_SPAN = StructType([
    StructField("traceId", StringType()),
    StructField("spanId", StringType()),
    StructField("parentSpanId", StringType()),
    StructField("name", StringType()),
    StructField("kind", IntegerType()),
    StructField("startTimeUnixNano", StringType()),
    StructField("endTimeUnixNano", StringType()),
    StructField("attributes", _KEY_VALUES),
    StructField("events", ArrayType(StructType([
        StructField("timeUnixNano", StringType()),
        StructField("name", StringType()),
        StructField("attributes", _KEY_VALUES),
    ]))),
    StructField("links", ArrayType(StructType([
        StructField("traceId", StringType()),
        StructField("spanId", StringType()),
    ]))),
    StructField("status", StructType([StructField("code", IntegerType()), StructField("message", StringType())])),
])

# One line of `<instance>.jsonl`: a TracesData object. The corrupt-record column catches what does not parse.
OTLP_LINE = StructType([
    StructField("resourceSpans", ArrayType(StructType([
        StructField("resource", StructType([StructField("attributes", _KEY_VALUES)])),
        StructField("schemaUrl", StringType()),
        StructField("scopeSpans", ArrayType(StructType([
            StructField("scope", StructType([StructField("name", StringType()), StructField("version", StringType())])),
            StructField("schemaUrl", StringType()),
            StructField("spans", ArrayType(OTLP_SPAN)),
        ]))),
    ]))),
    StructField(CORRUPT, StringType()),
])

_STRING_MAP = MapType(StringType(), StringType())

# The compacted row: one span, hot attributes as typed columns, every attribute also in `attributes` (as text;
# arrays as JSON arrays) so a job that needs a cold one still finds it.
SPAN = StructType([
    StructField("run_id", StringType(), False),
    StructField("trace_id", StringType(), False),
    StructField("span_id", StringType(), False),
    StructField("parent_span_id", StringType()),
    StructField("name", StringType(), False),
    StructField("kind", IntegerType()),
    StructField("start_ns", LongType(), False),
    StructField("end_ns", LongType(), False),
    StructField("duration_ns", LongType(), False),
    StructField("status_code", IntegerType()),
    StructField("status_message", StringType()),
    StructField("service_instance", StringType()),
    StructField("broker_id", IntegerType()),
    StructField("step", StringType()),
    StructField("api_key", IntegerType()),
    StructField("api_version", IntegerType()),
    StructField("controller_epoch", IntegerType()),
    StructField("attributes", _STRING_MAP),
    StructField("resource", _STRING_MAP),
    StructField("events", ArrayType(StructType([
        StructField("name", StringType()),
        StructField("time_ns", LongType()),
        StructField("attributes", _STRING_MAP),
    ]))),
    StructField("links", ArrayType(StructType([
        StructField("trace_id", StringType()),
        StructField("span_id", StringType()),
    ]))),
    StructField("schema_url", StringType()),
])

# hot column -> the span attribute it comes from
HOT_ATTRIBUTES = {
    "broker_id": "kafka.broker.id",
    "step": "kafka.step",
    "api_key": "kafka.api.key",
    "api_version": "kafka.api.version",
    "controller_epoch": "kafka.controller.epoch",
}
