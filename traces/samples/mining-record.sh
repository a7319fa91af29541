#!/usr/bin/env bash
# Record the committed sample runs the trace-mining jobs, their tests and docs read (kafka_edu/mining/).
#   traces/samples/mining-record.sh            both samples
#   traces/samples/mining-record.sh failover   one of: failover, baseline
# Each scenario runs a real cluster in a scratch directory and keeps only the span files, exit records and manifest
# (the mining jobs never read span-start files). Replica fetchers wait up to 5 s per idle fetch (replica.fetch.wait.max.ms) so the idle
# Fetch traffic of a 3-broker run does not dwarf the rest of the sample.
set -euo pipefail
cd "$(dirname "$0")/../.."
KE="${KAFKA_EDU:-/work/venv/bin/kafka-edu}"
PY="${PYTHON:-/work/venv/bin/python}"
SCRATCH="$(mktemp -d)"
trap 'rm -rf "$SCRATCH"' EXIT

manifest() { "$PY" -c "import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])" "$1/manifest.json" "$2"; }

keep() {  # keep(run_dir, sample_name)
  local target="traces/samples/mining-$2"
  rm -rf "$target" && mkdir -p "$target"
  find "$1" -maxdepth 1 -name '*.jsonl' ! -name '*.starts.jsonl' -exec cp {} "$target"/ \;
  cp "$1"/*.exit.json "$1"/manifest.json "$target"/
  "$PY" - "$target" <<'PY'
import json, sys
from pathlib import Path
path = Path(sys.argv[1]) / "manifest.json"
manifest = json.loads(path.read_text())
manifest["run_dir"] = sys.argv[1]  # the scratch path means nothing once copied
path.write_text(json.dumps(manifest, indent=2) + "\n")
PY
  du -sh "$target"
}

seq 1 200 | sed 's/^/message /' > "$SCRATCH/messages.txt"

failover() {  # three brokers, six partitions; kill -9 the controller, wait past the session timeout, restart it
  "$KE" cluster up --brokers 3 --traces "$SCRATCH/failover" --override zookeeper.session.timeout.ms=6000 \
    --override replica.fetch.wait.max.ms=5000
  local run; run="$(ls -d "$SCRATCH"/failover/*/ | tail -1)"; run="${run%/}"
  "$KE" topics --traces "$SCRATCH/failover" --create --topic demo --partitions 6 --replication-factor 3
  kcat -b "$(manifest "$run" bootstrap_servers)" -P -t demo -l "$SCRATCH/messages.txt"
  sleep 1
  local controller
  controller="$("$PY" -c "
import json, sys
from kazoo.client import KazooClient
zk = KazooClient(hosts=sys.argv[1]); zk.start(); data, _ = zk.get('/controller'); zk.stop()
print(json.loads(data)['brokerid'])" "$(manifest "$run" zookeeper_connect)")"
  "$KE" cluster --traces "$SCRATCH/failover" kill "$controller"
  sleep 12
  kcat -b "$(manifest "$run" bootstrap_servers)" -P -t demo -l "$SCRATCH/messages.txt"
  "$KE" cluster --traces "$SCRATCH/failover" start "$controller"
  sleep 2
  "$KE" cluster --traces "$SCRATCH/failover" down
  keep "$run" failover
}

baseline() {  # one broker: start, create a topic, produce and consume a little, stop
  "$KE" cluster up --brokers 1 --traces "$SCRATCH/baseline"
  local run; run="$(ls -d "$SCRATCH"/baseline/*/ | tail -1)"; run="${run%/}"
  "$KE" topics --traces "$SCRATCH/baseline" --create --topic demo --partitions 2 --replication-factor 1
  kcat -b "$(manifest "$run" bootstrap_servers)" -P -t demo -l "$SCRATCH/messages.txt"
  kcat -b "$(manifest "$run" bootstrap_servers)" -C -t demo -e -q > /dev/null
  "$KE" cluster --traces "$SCRATCH/baseline" down
  keep "$run" baseline
}

for scenario in "${@:-failover baseline}"; do
  for s in $scenario; do "$s"; done
done
