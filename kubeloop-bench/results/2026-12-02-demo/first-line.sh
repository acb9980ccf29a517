#!/usr/bin/env bash
# prints ms from start to the first line of output of "$@"
start=$(date +%s%N)
"$@" 2>&1 | { IFS= read -r line; now=$(date +%s%N); echo "first line after $(( (now-start)/1000000 )) ms: $line"; cat >/dev/null; }
end=$(date +%s%N); echo "exit after $(( (end-start)/1000000 )) ms"
