#!/usr/bin/env bash
# client-list-ab.sh: ClientListBenchmark (*_all: kubeloop, fabric8, client-java) alternately with this build and
# with the build from before issue 15 (f8bae24, kept in BEFORE=/tmp/compact-before with its classpath.txt).
# Runs: before-1, after-2, before-2, after-3 (after-1 was run by hand with ./kubeloop jmh, same arguments).
set -eu
here="$(cd "$(dirname "$0")" && pwd)"; root="$here/../../.."
before="${BEFORE:-/tmp/compact-before}"
java="${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}/bin/java"
args=('io.kubeloop.bench.ClientListBenchmark.*_all' -f 1 -wi 2 -i 3 -prof gc -rf json)
cd "$root"
for n in 1 2; do
  "$java" -cp "$(cat "$before/classpath.txt")" org.openjdk.jmh.Main "${args[@]}" -rff "$here/client-list-before-run$n.json"
  ./kubeloop jmh "${args[@]}" -rff "$here/client-list-run$((n + 1)).json"
done
