"""`kafka-edu mine dependencies`: who calls whom, how often, and how often it fails (the zipkin-dependencies links).

A call is one edge `caller -> callee` labelled with what was called:
- requests: every `RequestChannel.Request` a broker received. The caller is the process whose span the request's
  `traceparent` names (its link: the controller's `RequestSendThread.doWork`, shown as `broker-N (controller)`, or
  a broker's controlled-shutdown attempt), else the client id (`controller-N` is broker N's controller,
  `broker-N-fetcher-M` its replica fetcher, anything else a client);
- controller requests that no broker received (the send thread's span has no linked receiver, e.g. the target was
  dead) count as calls to the broker the send thread serves, marked unanswered;
- ZooKeeper: spans of `ZkUtils.*`, each one call from the broker to `zookeeper`.
An error is a span with status ERROR on either side, as zipkin-dependencies counts a call with an error tag.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from kafka_edu.mining import charts
from kafka_edu.mining.output import Col, JobResult

REQUEST_ROOT = "RequestChannel.Request"
CONTROLLER_SEND = "RequestSendThread.doWork"
FETCHER_CLIENT = r"^broker-(\d+)-fetcher-\d+$"
CONTROLLER_CLIENT = r"^controller-(\d+)$"
SEND_THREAD = r"-to-broker-(\d+)-send-thread$"
CONTROLLER_SUFFIX = " (controller)"


def dependencies(spans: DataFrame) -> JobResult:
    requests = (spans.where((F.col("name") == REQUEST_ROOT) & (F.col("parent_span_id") == ""))
                .select("run_id", F.col("service_instance").alias("callee"),
                        F.col("attributes")["kafka.api.name"].alias("via"),
                        F.col("attributes")["kafka.client.id"].alias("client_id"),
                        F.col("status_code").alias("callee_status"),
                        F.get("links", 0)["trace_id"].alias("link_trace"),  # get: null, not an error, when none
                        F.get("links", 0)["span_id"].alias("link_span")))
    callers = spans.select("run_id", F.col("trace_id").alias("link_trace"), F.col("span_id").alias("link_span"),
                           F.col("service_instance").alias("linked_instance"), F.col("name").alias("linked_name"),
                           F.col("status_code").alias("caller_status"))
    linked = requests.join(callers, ["run_id", "link_trace", "link_span"], "left")
    fetcher = F.regexp_extract("client_id", FETCHER_CLIENT, 1)
    # Kafka's controller names itself `controller-<broker id>` as a client: a request whose sending span was
    # never written (its process stopped first) still tells which controller sent it.
    controller = F.regexp_extract("client_id", CONTROLLER_CLIENT, 1)
    from_controller = (F.col("linked_name") == CONTROLLER_SEND) | (F.col("linked_name").isNull() & (controller != ""))
    request_calls = linked.select(
        F.when(F.col("linked_name") == CONTROLLER_SEND, F.concat("linked_instance", F.lit(CONTROLLER_SUFFIX)))
         .when(F.col("linked_instance").isNotNull(), F.col("linked_instance"))
         .when(controller != "", F.concat(F.lit("broker-"), controller, F.lit(CONTROLLER_SUFFIX)))
         .when(fetcher != "", F.concat(F.lit("broker-"), fetcher))
         .otherwise(F.concat(F.lit("client:"), F.coalesce("client_id", F.lit("?")))).alias("caller"),
        "callee", "via",
        F.when(from_controller, "controller request")
         .when(fetcher != "", "replica fetch")  # linked too when sent inside a span (LE.request's OffsetForLeaderEpoch)
         .when(F.col("linked_name").isNotNull(), "broker request").otherwise("client request").alias("kind"),
        ((F.col("callee_status") == 2) | (F.coalesce("caller_status", F.lit(0)) == 2)).alias("error"),
        F.lit(False).alias("unanswered"))
    received = requests.select("run_id", "link_trace", "link_span").where(F.col("link_span").isNotNull())
    unanswered = (spans.where(F.col("name") == CONTROLLER_SEND)
                  .join(received.withColumnsRenamed({"link_trace": "trace_id", "link_span": "span_id"}),
                        ["run_id", "trace_id", "span_id"], "left_anti")
                  .select(F.concat("service_instance", F.lit(CONTROLLER_SUFFIX)).alias("caller"),
                          F.concat(F.lit("broker-"), F.regexp_extract(F.col("attributes")["thread.name"],
                                                                      SEND_THREAD, 1)).alias("callee"),
                          F.col("attributes")["kafka.api.name"].alias("via"), F.lit("controller request").alias("kind"),
                          (F.col("status_code") == 2).alias("error"), F.lit(True).alias("unanswered")))
    zookeeper = (spans.where(F.col("name").startswith("ZkUtils."))
                 .select(F.col("service_instance").alias("caller"), F.lit("zookeeper").alias("callee"),
                         F.col("name").alias("via"), F.lit("ZooKeeper").alias("kind"),
                         (F.col("status_code") == 2).alias("error"), F.lit(False).alias("unanswered")))
    edges = (request_calls.unionByName(unanswered).unionByName(zookeeper)
             .groupBy("caller", "callee", "kind", "via")
             .agg(F.count("*").alias("calls"), F.sum(F.col("error").cast("int")).alias("errors"),
                  F.sum(F.col("unanswered").cast("int")).alias("unanswered")))
    rows = [r.asDict() for r in edges.collect()]
    rows.sort(key=lambda r: (r["caller"], r["callee"], r["kind"], r["via"] or ""))
    columns = [Col("caller", "caller"), Col("callee", "callee"), Col("kind", "kind"), Col("via", "API / call"),
               Col("calls", "calls", "{:d}"), Col("errors", "errors", "{:d}"), Col("unanswered", "unanswered", "{:d}")]
    notes = [] if rows else ["no calls between processes in the chosen runs"]
    return JobResult(job="dependencies", title="Dependencies: who calls whom", columns=columns, rows=rows,
                     notes=notes, chart=_chart)


def _chart(rows: list[dict[str, Any]], stem: Path) -> list[Path]:
    callers = sorted({r["caller"] for r in rows})
    callees = sorted({r["callee"] for r in rows})
    calls = [[0] * len(callees) for _ in callers]
    errors = [[0] * len(callees) for _ in callers]
    for r in rows:
        i, j = callers.index(r["caller"]), callees.index(r["callee"])
        calls[i][j] += r["calls"]
        errors[i][j] += r["errors"]
    fig, ax = charts.figure(1.1 * len(callees) + 3, 0.45 * len(callers) + 1.5)
    image = ax.imshow([[max(c, 0.5) for c in row] for row in calls], cmap="Blues", norm="log", aspect="auto")
    for i, row in enumerate(calls):
        for j, count in enumerate(row):
            if count:
                text = f"{count}" + (f"\n{errors[i][j]} err" if errors[i][j] else "")
                ax.text(j, i, text, ha="center", va="center", fontsize=7,
                        color="white" if count > max(max(r) for r in calls) / 8 else "black")
    ax.set_xticks(range(len(callees)), callees, rotation=30, ha="right")
    ax.set_yticks(range(len(callers)), callers)
    ax.set_xlabel("callee")
    ax.set_ylabel("caller")
    ax.set_title("Calls between processes (all APIs)")
    fig.colorbar(image, ax=ax, label="calls (log)")
    return charts.save(fig, stem)
