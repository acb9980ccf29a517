# The machinery of the whole-process benchmarks, sourced by informer-bench.sh and controller-bench.sh: one server
# JVM for the whole run, then one fresh measured JVM per (repeat, phase, runner), each on the class path its
# library needs, each printing one line "RESULT {json}" that goes to OUT/results.jsonl with the repeat and the
# 1-minute load added. Needs ROOT and OUT set, kubeloop-bench built.
#
#   bench_start OUT "ARGS..."          machine.txt: date, cores, load, JDK, the driver's arguments
#   bench_server MAIN [ARGS...]        starts the server JVM, waits for OUT/ready.txt; READY holds its line;
#                                      the server ends when the driver exits (its standard input closes)
#   ready_field NAME                   a NAME=value field of READY
#   bench_classpath RUNNER             sets RUN_NAME, RUN_CP and RUN_LABEL for a runner: NAME@before runs NAME on
#                                      the class path of an earlier build (BEFORE=DIR, DIR/classpath.txt);
#                                      josdk runs on kubeloop-bench/josdk's class path (built here if missing);
#                                      anything else on kubeloop-bench's own
#   bench_run REPEAT WHAT MAIN [ARGS...]
#                                      runs the measured JVM (JVM_FLAGS) for RUN_NAME on RUN_CP; appends its
#                                      result, or keeps its stderr as OUT/failed-REPEAT-WHAT-RUNNER.err
JAVA="${JAVA_HOME:?set JAVA_HOME to a JDK 21+}/bin/java"
BENCH_CP="$ROOT/kubeloop-bench/target/classes:$(cat "$ROOT/kubeloop-bench/target/classpath.txt")"
BEFORE="${BEFORE:-}"

bench_start() {
  mkdir -p "$1"
  { echo "date: $(date -u)"; echo "nproc: $(nproc)"; echo "uptime: $(uptime)"; "$JAVA" -version 2>&1 | head -1
    echo "args: $2"; } >"$1/machine.txt"
  SCRATCH="$(mktemp -d)"
}

bench_server() {
  local main="$1"
  shift
  mkfifo "$SCRATCH/server.in"
  "$JAVA" -Xmx6g -XX:+UseG1GC -Dorg.slf4j.simpleLogger.defaultLogLevel=warn -cp "$BENCH_CP" \
    "$main" --ready-file "$OUT/ready.txt" "$@" <"$SCRATCH/server.in" >"$OUT/server.log" 2>&1 &
  SERVER_PID=$!
  exec 3>"$SCRATCH/server.in"   # the server runs until this is closed
  trap bench_stop_server EXIT
  for _ in $(seq 1 1800); do
    [ -s "$OUT/ready.txt" ] && break
    kill -0 "$SERVER_PID" 2>/dev/null || { cat "$OUT/server.log" >&2; exit 1; }
    sleep 1
  done
  READY="$(cat "$OUT/ready.txt")"
  echo "$READY" | tee -a "$OUT/machine.txt"
}

bench_stop_server() { exec 3>&- || true; wait "$SERVER_PID" 2>/dev/null || true; rm -rf "$SCRATCH"; }

ready_field() { echo "$READY" | tr ' ' '\n' | sed -n "s/^$1=//p"; }

bench_classpath() {
  RUN_NAME="$1" RUN_CP="$BENCH_CP" RUN_LABEL=""
  if [ "${1%@before}" != "$1" ]; then
    RUN_NAME="${1%@before}" RUN_LABEL="@before"
    RUN_CP="$(cat "${BEFORE:?--before DIR is needed for $1}/classpath.txt")"
  elif [ "$1" = josdk ]; then
    local josdk="$ROOT/kubeloop-bench/josdk"
    if [ ! -s "$josdk/target/classpath.txt" ] || [ "$josdk/pom.xml" -nt "$josdk/target/classpath.txt" ]; then
      mvn -B -ntp -q -f "$josdk/pom.xml" package >&2
      touch "$josdk/target/classpath.txt" # build-classpath leaves an unchanged file with its old date
    fi
    # kubeloop-bench's classes for the JDK-only harness and the peer; nothing else of them is loaded.
    RUN_CP="$ROOT/kubeloop-bench/target/classes:$(cat "$josdk/target/classpath.txt")"
  fi
}

bench_run() {
  local repeat="$1" what="$2" main="$3" line
  shift 3
  echo "$(date -u +%H:%M:%S) run $repeat $what $RUN_NAME$RUN_LABEL (load: $(cut -d' ' -f1-3 /proc/loadavg))" >&2
  if line="$("$JAVA" "${JVM_FLAGS[@]}" -cp "$RUN_CP" "$main" --runner "$RUN_NAME" "$@" \
        2>"$SCRATCH/last-run.err" | grep '^RESULT ')"; then
    echo "${line#RESULT }" | sed "s/^{/{\"repeat\":$repeat,\"load1\":$(cut -d' ' -f1 /proc/loadavg),/" \
      | sed "s/\"runner\":\"$RUN_NAME\"/\"runner\":\"$RUN_NAME$RUN_LABEL\"/" | tee -a "$OUT/results.jsonl"
  else
    echo "FAILED: $RUN_NAME$RUN_LABEL $what (stderr in $OUT/failed-$repeat-$what-$RUN_NAME$RUN_LABEL.err)" >&2
    cp "$SCRATCH/last-run.err" "$OUT/failed-$repeat-$what-$RUN_NAME$RUN_LABEL.err"
  fi
}
