#!/usr/bin/env bash
# Builds a distroless-like Java base image as a docker-loadable tarball, from this machine alone (no registry, no
# Docker daemon): `./kubeloop image --offline` builds the operator's image on it (docs/image.md, "Offline base").
#
#   kubeloop-cli/scripts/jre-base.sh OUT.tar [JDK]     JDK defaults to JAVA_HOME
#
# The one layer holds:
#   /opt/java/openjdk   a JRE made by the JDK's jlink with the modules the CLI uses (MODULES below)
#   /lib64, /lib/...    the host's C libraries that JRE loads (glibc: ld-linux, libc, libm, libdl, libpthread,
#                       librt), each at the path the loader looks for it; nothing else of the host
#   /etc/passwd, group  root, nonroot (65532, as distroless) and nobody; /home/nonroot owned by 65532
#   /etc/ssl/certs      the host's CA bundle, when it has one; /tmp (1777)
# The image config: PATH with the JRE first, JAVA_HOME, LANG=C.UTF-8, User 65532:65532. Linux only: the libraries
# are the host's, so the image is for the host's architecture.
set -euo pipefail

# jdeps --print-module-deps over the CLI's class path gives java.base, java.desktop (java.beans, for picocli and
# Jackson), java.naming, java.net.http, java.sql, jdk.httpserver, jdk.management, jdk.unsupported; added: the TLS
# and zip modules loaded by name at run time, and JFR for diagnosing a running operator.
# kubeloop-cli/scripts/check-image.sh compares this list against jdeps again.
MODULES="java.base,java.desktop,java.logging,java.management,java.naming,java.net.http,java.sql,jdk.httpserver"
MODULES="$MODULES,jdk.management,jdk.unsupported,jdk.crypto.ec,jdk.zipfs,jdk.jfr,jdk.naming.dns"
# The JRE's GUI and sound libraries are never loaded by a headless server; their X11/ALSA libraries are left out.
SKIP_LIBS=" libawt_xawt.so libjawt.so libsplashscreen.so libjsound.so "

die() {
  printf 'jre-base.sh: %s\n' "$*" >&2
  exit 1
}

out="${1:-}"
jdk="${2:-${JAVA_HOME:-}}"
[ -n "$out" ] || die "usage: jre-base.sh OUT.tar [JDK]"
[ "$(uname -s)" = Linux ] || die "the offline base copies the host's glibc into the image, so it needs a Linux host
  (this is $(uname -s)); use a registry base instead (./kubeloop image --base IMAGE, docs/image.md)."
[ -x "$jdk/bin/jlink" ] || die "no jlink in '$jdk': set JAVA_HOME to a JDK (not a JRE) 21 or newer."
command -v ldd >/dev/null || die "ldd is not on PATH (it comes with glibc's libc-bin)."
case "$(uname -m)" in
  x86_64) arch=amd64 ;;
  aarch64|arm64) arch=arm64 ;;
  *) die "unsupported architecture $(uname -m) (amd64 and arm64 are)." ;;
esac

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
root="$work/root"
mkdir -p "$root"

# The modules this JDK has (jdk.crypto.ec is gone from some JDKs).
available=" $("$jdk/bin/java" --list-modules | sed 's/@.*//' | tr '\n' ' ') "
modules=""
IFS=, read -r -a wanted <<<"$MODULES"
for module in "${wanted[@]}"; do
  case "$available" in
    *" $module "*) modules="${modules:+$modules,}$module" ;;
  esac
done
mkdir -p "$root/opt/java"
"$jdk/bin/jlink" --add-modules "$modules" --strip-debug --no-header-files --no-man-pages \
  --output "$root/opt/java/openjdk"
jre="$root/opt/java/openjdk"

# The C libraries: every library the JRE's binaries need that the JRE does not ship, copied (not linked) to the
# path the loader resolves it at, so the image needs no ld.so.cache.
libs=("$jre/bin/java" "$jre/lib/server/libjvm.so")
for lib in "$jre"/lib/*.so; do
  case "$SKIP_LIBS" in
    *" ${lib##*/} "*) ;;
    *) libs+=("$lib") ;;
  esac
done
ldd "${libs[@]}" 2>/dev/null | awk '
  $2 == "=>" && $3 ~ /^\// { print $3 }
  $1 ~ /^\// { print $1 }' | sort -u >"$work/libs"
while IFS= read -r lib; do
  case "$lib" in
    "$jre"/*|"$jdk"/*|*/bin/../lib/*) continue ;; # the JRE's own
  esac
  mkdir -p "$root${lib%/*}"
  cp -L "$lib" "$root$lib"
done <"$work/libs"
grep -q 'ld-linux' "$work/libs" || die "ldd found no dynamic loader for $jre/bin/java"

mkdir -p "$root/etc/ssl/certs" "$root/home/nonroot" "$root/tmp"
chmod 1777 "$root/tmp"
cat >"$root/etc/passwd" <<'PASSWD'
root:x:0:0:root:/root:/sbin/nologin
nobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin
nonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin
PASSWD
cat >"$root/etc/group" <<'GROUP'
root:x:0:
nobody:x:65534:
nonroot:x:65532:
GROUP
printf 'hosts: files dns\n' >"$root/etc/nsswitch.conf"
[ -r /etc/ssl/certs/ca-certificates.crt ] && cp -L /etc/ssl/certs/ca-certificates.crt "$root/etc/ssl/certs/"

# One layer, reproducible: sorted, owned by root (but /home/nonroot), every time stamp 0.
tar_opts=(--sort=name --mtime=@0 --numeric-owner --format=posix --pax-option=exthdr.name=%d/PaxHeaders/%f,delete=atime,delete=ctime)
(cd "$root" && tar "${tar_opts[@]}" --owner=0 --group=0 --exclude=./home/nonroot -cf "$work/layer.tar" ./*)
(cd "$root" && tar "${tar_opts[@]}" --owner=65532 --group=65532 -rf "$work/layer.tar" ./home/nonroot)

diff_id="$(sha256sum "$work/layer.tar" | cut -d' ' -f1)"
java_version="$("$jre/bin/java" -version 2>&1 | sed -n '1s/.*version "\([^"]*\)".*/\1/p')"
cat >"$work/config.json" <<CONFIG
{"architecture":"$arch","os":"linux","config":{"User":"65532:65532","WorkingDir":"/home/nonroot","Env":["PATH=/opt/java/openjdk/bin:/usr/local/bin:/usr/bin:/bin","JAVA_HOME=/opt/java/openjdk","LANG=C.UTF-8","JAVA_VERSION=$java_version"],"Labels":{"org.opencontainers.image.title":"kubeloop JRE base (jlink of the building JDK with the host's glibc)"}},"rootfs":{"type":"layers","diff_ids":["sha256:$diff_id"]},"history":[{"created":"1970-01-01T00:00:00Z","created_by":"kubeloop-cli/scripts/jre-base.sh"}]}
CONFIG
config_id="$(sha256sum "$work/config.json" | cut -d' ' -f1)"
mkdir -p "$work/image/$diff_id"
mv "$work/layer.tar" "$work/image/$diff_id/layer.tar"
mv "$work/config.json" "$work/image/$config_id.json"
printf '[{"Config":"%s.json","RepoTags":["kubeloop/jre-base:%s"],"Layers":["%s/layer.tar"]}]\n' \
  "$config_id" "${java_version%%[.+]*}" "$diff_id" >"$work/image/manifest.json"
mkdir -p "$(dirname "$out")"
(cd "$work/image" && tar --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner -cf "$work/base.tar" ./*)
mv "$work/base.tar" "$out"
printf 'jre-base.sh: %s (Java %s, modules %s; %s MB)\n' "$out" "$java_version" "$modules" \
  "$(( $(stat -c %s "$out") / 1048576 ))" >&2
