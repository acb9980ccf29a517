#!/usr/bin/env bash
# first-answer.sh PORT CMD...: runs CMD in the background, polls http://127.0.0.1:PORT/version every 5 ms
# (at most 60 s), prints "wall_ms cpu_ms" from start to the first 200 (cpu: the command's process and its
# waited-for children, from /proc), then stops CMD (the launcher execs java, so its pid is the server's).
port=$1; shift
t0=$(date +%s%N)
"$@" >/tmp/st/cmd.out 2>&1 &
pid=$!
ok=0
for i in $(seq 1 12000); do
  if curl -sf -o /dev/null "http://127.0.0.1:$port/version"; then ok=1; break; fi
  sleep 0.005
done
t1=$(date +%s%N)
read -r -a st < /proc/$pid/stat
cpu=$(( (st[13] + st[14] + st[15] + st[16]) * 10 ))
kill $pid 2>/dev/null; wait $pid 2>/dev/null
[ $ok = 1 ] && echo "$(( (t1 - t0) / 1000000 )) $cpu" || { echo FAIL; cat /tmp/st/cmd.out >&2; }
