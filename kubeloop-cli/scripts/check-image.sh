#!/usr/bin/env bash
# Checks the operator's image tarball (`./kubeloop image`) without a Docker daemon (docs/image.md, "Verifying"):
#
#   kubeloop-cli/scripts/check-image.sh [--run] [IMAGE.tar]   default: kubeloop-cli/target/image/pod-guardian.tar
#
# 1. The image config: the entrypoint is `java ... io.kubeloop.cli.Main run` (so a Deployment's args are `run`'s
#    options) with no Cmd, and the user is 65532, not root.
# 2. The layers, unpacked in order into a temporary root: every class path entry of /app/jib-classpath-file is
#    there, and `java` is found on the image's PATH.
# 3. The image's own java runs the CLI from the image's files: the entrypoint with `version` instead of `run`, and
#    `run --help`, which must offer the options deploy/'s Deployment passes and `kubeloop run` documents
#    (--leader-election, --metrics-port, --health-port, --kubeconfig, --namespace; CHECK_IMAGE_RUN_OPTIONS
#    overrides the list). As root it runs them in a chroot of the unpacked image as user 65532 (with a /proc of
#    its own, in a new mount and PID namespace); otherwise in `unshare -r` (user namespaces) and a chroot;
#    otherwise with the image's dynamic loader and its paths prefixed by the root. CHECK_IMAGE_RUN=chroot,
#    unshare or loader picks one. Needs a Linux host of the image's architecture.
# 4. When this JDK has jdeps: every module the image's jars need is in the image's JRE (its `release` file).
# 5. With --run: the operator itself, from the image, against an embedded API server (`./kubeloop apiserver` of this
#    checkout, on a free port): the entrypoint with deploy/'s args (--leader-election, free metrics and health
#    ports, on 127.0.0.1) and --kubeconfig; /healthz answers 200, its informer lists pods, /readyz answers 200 when
#    deploy/10-crd.yaml and kubectl are there to install the PodSet CRD first, /metrics serves Prometheus text;
#    then SIGTERM, and the operator exits within 45 s.
# Prints what it checked; exits non-zero at the first failure, naming it.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
run_operator=""
if [ "${1:-}" = --run ]; then
  run_operator=1
  shift
fi
image="${1:-$here/../target/image/pod-guardian.tar}"
[ -f "$image" ] || { echo "check-image.sh: no image tarball at $image (build it with ./kubeloop image)" >&2; exit 2; }

fail() {
  printf 'check-image.sh: FAILED: %s\n' "$*" >&2
  exit 1
}
ok() {
  printf 'check-image.sh: ok: %s\n' "$*"
}

# Prints the string elements of the JSON array "$1":[...] in file $2, one a line (Jib and docker save write
# compact JSON; strings here hold no ']' or '"').
json_array() {
  grep -o "\"$1\":\[[^]]*\]" "$2" | head -n 1 | sed -e "s/^\"$1\":\[//" -e 's/\]$//' | grep -o '"[^"]*"' | tr -d '"' || true
}
json_string() {
  grep -o "\"$1\":\"[^\"]*\"" "$2" | head -n 1 | sed -e "s/^\"$1\":\"//" -e 's/"$//' || true
}

work="$(mktemp -d)"
started=() # process groups this script started (setsid), ended on exit
cleanup() {
  local pgid
  for pgid in "${started[@]}"; do
    kill -TERM -- "-$pgid" 2>/dev/null || true
  done
  for pgid in "${started[@]}"; do
    for _ in $(seq 1 60); do
      kill -0 "$pgid" 2>/dev/null || break
      sleep 0.5
    done
    kill -KILL -- "-$pgid" 2>/dev/null || true
    wait "$pgid" 2>/dev/null || true # reaps it
  done
  rm -rf "$work"
}
trap cleanup EXIT
mkdir -p "$work/tar" "$work/root"
tar -xf "$image" -C "$work/tar"
[ -f "$work/tar/manifest.json" ] || fail "no manifest.json in $image (not a docker-loadable image tarball)"
config="$work/tar/$(json_string Config "$work/tar/manifest.json")"
[ -f "$config" ] || fail "the manifest's Config is not in the tarball"

# 1. The config.
mapfile -t entrypoint < <(json_array Entrypoint "$config")
mapfile -t cmd < <(json_array Cmd "$config")
n=${#entrypoint[@]}
[ "$n" -ge 3 ] || fail "the entrypoint is '${entrypoint[*]:-}', expected java ... io.kubeloop.cli.Main run"
[ "${entrypoint[0]}" = java ] || fail "the entrypoint starts with '${entrypoint[0]}', expected java"
[ "${entrypoint[n - 2]}" = io.kubeloop.cli.Main ] && [ "${entrypoint[n - 1]}" = run ] ||
  fail "the entrypoint '${entrypoint[*]}' does not end with io.kubeloop.cli.Main run"
[ "${#cmd[@]}" -eq 0 ] || fail "the image has a Cmd (${cmd[*]}): a Deployment's args would replace it, keep it empty"
ok "entrypoint: ${entrypoint[*]}"
user="$(json_string User "$config")"
uid="${user%%:*}"
[ "$uid" = 65532 ] || fail "the image's user is '${user:-<unset, root>}', expected 65532 (non-root)"
ok "user: $user (non-root)"
arch="$(json_string architecture "$config")"
mapfile -t image_env < <(json_array Env "$config")
path_env="$(printf '%s\n' "${image_env[@]}" | sed -n 's/^PATH=//p')"
path_env="${path_env:-/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin}"

# 2. The file system: layers in order (Jib's layers have no whiteouts).
size=0
while IFS= read -r layer; do
  tar -xf "$work/tar/$layer" -C "$work/root" --no-same-owner --warning=no-unknown-keyword
  size=$((size + $(stat -c %s "$work/tar/$layer")))
done < <(json_array Layers "$work/tar/manifest.json")
root="$work/root"
[ -f "$root/app/jib-classpath-file" ] || fail "no /app/jib-classpath-file in the image"
IFS=: read -r -a classpath <"$root/app/jib-classpath-file" || true # no newline at its end
for entry in "${classpath[@]}"; do
  [ -e "$root$entry" ] || fail "class path entry $entry is not in the image"
done
ok "class path: ${#classpath[@]} entries, all in the image ($(du -sh "$root" | cut -f1) unpacked, $((size / 1048576)) MB of layers)"

# Resolves $1 (a path in the image) through the image's symbolic links; prints the path in the image.
resolve() {
  local path="$1" target hops=0
  while [ -L "$root$path" ] && [ $hops -lt 20 ]; do
    target="$(readlink "$root$path")"
    case "$target" in
      /*) path="$target" ;;
      *) path="${path%/*}/$target" ;;
    esac
    hops=$((hops + 1))
  done
  printf '%s\n' "$path"
}
java=""
IFS=: read -r -a dirs <<<"$path_env"
for dir in "${dirs[@]}"; do
  if [ -L "$root$dir/java" ] || [ -f "$root$dir/java" ]; then
    java="$(resolve "$dir/java")"
    break
  fi
done
[ -n "$java" ] && [ -x "$root$java" ] || fail "no java on the image's PATH ($path_env)"
java_home="${java%/bin/java}"
ok "java: $java (on PATH $path_env)"

# 3. Run the image's java on the image's files.
host_arch="$(uname -m)"
case "$host_arch" in x86_64) host_arch=amd64 ;; aarch64) host_arch=arm64 ;; esac
[ "$(uname -s)" = Linux ] && [ "$arch" = "$host_arch" ] ||
  fail "cannot run an image for linux/$arch on $(uname -s)/$host_arch (the config checks above passed)"
jvm_args=("${entrypoint[@]:1:n-3}")
mkdir -p "$root/proc" # the JVM and the loader ($ORIGIN) read /proc/self; a runtime mounts it there
chroot="$(command -v chroot || true)"
unshare="$(command -v unshare || true)"
how="${CHECK_IMAGE_RUN:-}" # chroot, unshare or loader; by default the first that works here
if [ -z "$how" ]; then
  if [ "$(id -u)" = 0 ] && [ -n "$chroot" ] && [ -n "$unshare" ]; then
    how=chroot
  elif [ -n "$unshare" ] && [ -n "$chroot" ] && "$unshare" -r true 2>/dev/null; then
    how=unshare
  else
    how=loader
  fi
fi
case "$how" in
  chroot)
    how="chroot as 65532, with its own /proc"
    run_image() {
      exec env -i PATH="$path_env" "${image_env[@]}" "$unshare" --mount --pid --fork --mount-proc="$root/proc" \
        "$chroot" --userspec=65532:65532 "$root" "$java" "$@"
    }
    ;;
  unshare)
    how="unshare -r chroot, with its own /proc"
    run_image() {
      exec env -i PATH="$path_env" "${image_env[@]}" "$unshare" -r --mount --pid --fork --mount-proc="$root/proc" \
        "$chroot" "$root" "$java" "$@"
    }
    ;;
  loader)
    how="the image's dynamic loader, paths prefixed"
    loader="$(ls "$root"/lib64/ld-linux-*.so.* "$root"/lib/ld-linux-*.so.* 2>/dev/null | head -n 1 || true)"
    [ -n "$loader" ] || fail "no dynamic loader in the image to run its java with (run as root to chroot instead)"
    libpath="$root/lib/x86_64-linux-gnu:$root/usr/lib/x86_64-linux-gnu:$root/lib/aarch64-linux-gnu"
    libpath="$libpath:$root/usr/lib/aarch64-linux-gnu:$root/lib:$root/usr/lib"
    sed "s#\(^\|:\)/#\1$root/#g" "$root/app/jib-classpath-file" >"$work/classpath"
    run_image() {
      local args=() arg
      for arg in "$@"; do
        [ "$arg" = @/app/jib-classpath-file ] && arg="@$work/classpath"
        args+=("$arg")
      done
      exec env -i "${image_env[@]}" "$loader" --library-path "$libpath" "$root$java" "${args[@]}"
    }
    ;;
  *) fail "CHECK_IMAGE_RUN=$how: expected chroot, unshare or loader" ;;
esac
# run_image replaces the shell it runs in (exec), so each call runs in a subshell: $(...) or (...) &.
output="$(run_image "${jvm_args[@]}" io.kubeloop.cli.Main version 2>&1)" ||
  fail "the image's java could not run 'kubeloop version' ($how): $output"
grep -q '^kubeloop ' <<<"$output" || fail "'kubeloop version' in the image printed no version: $output"
ok "kubeloop version ($how): $(grep '^kubeloop ' <<<"$output")"
output="$(run_image "${jvm_args[@]}" io.kubeloop.cli.Main run --help 2>&1)" ||
  fail "the image's java could not run 'kubeloop run --help' ($how): $output"
options="${CHECK_IMAGE_RUN_OPTIONS:---leader-election --metrics-port --health-port --kubeconfig --namespace}"
for option in $options; do
  grep -q -- "$option" <<<"$output" ||
    fail "'kubeloop run' in the image has no $option option ($(grep -v "^Picked up" <<<"$output" | head -n 1))"
done
ok "kubeloop run --help: offers $options"

# 4. The JRE's modules against the jars' needs.
jdeps="${JAVA_HOME:+$JAVA_HOME/bin/jdeps}"
if [ -n "$jdeps" ] && [ -x "$jdeps" ] && [ -f "$root$java_home/release" ]; then
  release_modules=" $(sed -n 's/^MODULES="\(.*\)"$/\1/p' "$root$java_home/release") "
  jars=()
  for entry in "${classpath[@]}"; do
    case "$entry" in *.jar) jars+=("$root$entry") ;; esac
  done
  needed="$("$jdeps" --ignore-missing-deps --multi-release 21 --print-module-deps "$root/app/classes" "${jars[@]}" 2>/dev/null)" ||
    fail "jdeps could not analyse the image's jars"
  IFS=, read -r -a needed_modules <<<"$needed"
  for module in "${needed_modules[@]}"; do
    case "$release_modules" in
      *" $module "*) ;;
      *) fail "the image's jars need module $module, which its JRE ($java_home) does not have" ;;
    esac
  done
  ok "modules: the jars need $needed, all in the image's JRE"
else
  echo "check-image.sh: skipped: the module check (needs JAVA_HOME with jdeps, and a JRE with a release file)"
fi

# 5. The operator from the image against an embedded API server.
free_port() {
  local port tries=0
  while [ $tries -lt 100 ]; do
    port=$((20000 + RANDOM % 40000))
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
      printf '%s\n' "$port"
      return
    fi
    tries=$((tries + 1))
  done
  fail "no free port found"
}
# Waits (at most $2 seconds) until $1 answers 200; prints the body.
await_ok() {
  local deadline=$((SECONDS + $2))
  while [ $SECONDS -lt $deadline ]; do
    curl -fsS --max-time 2 "$1" 2>/dev/null && return 0
    sleep 0.5
  done
  return 1
}
if [ -n "$run_operator" ]; then
  command -v curl >/dev/null || fail "--run needs curl"
  mkdir -p "$root/tmp"
  setsid "$here/../../kubeloop" apiserver --port 0 --kubeconfig-out "$root/tmp/kubeconfig" \
    >"$work/apiserver.log" 2>&1 </dev/null &
  started+=($!)
  for _ in $(seq 1 240); do
    grep -q '^kubeconfig:' "$work/apiserver.log" 2>/dev/null && break
    kill -0 "${started[0]}" 2>/dev/null || fail "the API server did not start: $(cat "$work/apiserver.log")"
    sleep 0.5
  done
  grep -q '^kubeconfig:' "$work/apiserver.log" || fail "the API server did not start in 120 s"
  chmod 644 "$root/tmp/kubeconfig"
  crd="$here/../../deploy/10-crd.yaml"
  ready=""
  if [ -f "$crd" ] && command -v kubectl >/dev/null; then
    KUBECONFIG="$root/tmp/kubeconfig" kubectl apply -f "$crd" >"$work/crd.log" 2>&1 ||
      fail "kubectl apply -f deploy/10-crd.yaml failed: $(cat "$work/crd.log")"
    ready=1
  fi
  kubeconfig=/tmp/kubeconfig
  case "$how" in the*) kubeconfig="$root/tmp/kubeconfig" ;; esac
  metrics_port="$(free_port)"
  health_port="$(free_port)"
  setsid bash -c "$(declare -f run_image); $(declare -p root java path_env image_env unshare chroot work loader libpath 2>/dev/null); run_image \"\$@\"" \
    run_image "${entrypoint[@]:1}" --kubeconfig "$kubeconfig" --leader-election --lease-namespace default \
    --metrics-port "$metrics_port" --health-port "$health_port" --bind-address 127.0.0.1 \
    >"$work/operator.log" 2>&1 </dev/null &
  operator=$!
  started+=("$operator")
  await_ok "http://127.0.0.1:$health_port/healthz" 90 >/dev/null ||
    fail "the operator in the image did not answer /healthz with 200 in 90 s: $(tail -n 20 "$work/operator.log")"
  for _ in $(seq 1 120); do
    grep -q 'pods: listed' "$work/operator.log" && break
    sleep 0.5
  done
  grep -q 'pods: listed' "$work/operator.log" ||
    fail "the operator in the image listed no pods in 60 s: $(tail -n 20 "$work/operator.log")"
  if [ -n "$ready" ]; then
    await_ok "http://127.0.0.1:$health_port/readyz" 90 >/dev/null ||
      fail "the operator in the image was not ready in 90 s: $(curl -sS "http://127.0.0.1:$health_port/readyz")"
    readiness="/readyz 200 (the CRD applied)"
  else
    readiness="/readyz not checked (no deploy/10-crd.yaml or no kubectl to install the PodSet CRD)"
  fi
  metrics="$(curl -fsS --max-time 5 "http://127.0.0.1:$metrics_port/metrics")" ||
    fail "the operator in the image did not serve /metrics"
  grep -q '^# TYPE ' <<<"$metrics" || fail "/metrics is not Prometheus text: $(head -n 3 <<<"$metrics")"
  ok "kubeloop run from the image against $(sed -n 's/.*listening on //p' "$work/apiserver.log"): /healthz 200, pods listed, $readiness, /metrics $(grep -c '^# TYPE ' <<<"$metrics") metric families"
  kill -TERM -- "-$operator"
  for _ in $(seq 1 90); do
    kill -0 "$operator" 2>/dev/null || break
    sleep 0.5
  done
  kill -0 "$operator" 2>/dev/null && fail "the operator did not exit within 45 s of SIGTERM: $(tail -n 20 "$work/operator.log")"
  wait "$operator" 2>/dev/null || true # reaps it
  ok "SIGTERM: the operator exited"
fi
echo "check-image.sh: $image passed"
