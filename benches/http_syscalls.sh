#!/usr/bin/env bash
# Syscalls per request, context switches per second and CPU time per request of each
# runtime's server in benches/http.rs, under `wrk -t2 -c$CONNS -d${SECS}s` on 127.0.0.1.
#
#   bash benches/http_syscalls.sh            # 2 workers, 64 connections, 5 s per run
#   CONNS=1000 SECS=5 WORKERS=2 bash benches/http_syscalls.sh
#   RUNTIMES="filch filch+async-io" bash benches/http_syscalls.sh
#
# Needs wrk, strace and perf (apt-get install wrk strace linux-perf). Each server runs
# alone (`http --serve NAME`), is warmed up for 1 s, then measured twice: once under
# `strace -c -f` (which slows it, so only its counts are used) and once under `perf stat`
# (context switches, task-clock) with the request rate of that run.
set -euo pipefail
cd "$(dirname "$0")/.."
CONNS=${CONNS:-64}
SECS=${SECS:-5}
WORKERS=${WORKERS:-2}
PORT=${PORT:-18080}
cargo bench -p filch-benches --bench http --no-run >/dev/null 2>&1
BIN=$(ls -t target/release/deps/http-* | grep -v '\.d$' | head -1)
printf '| runtime | req/s (perf run) | syscalls/request | of which recv/send/epoll_wait/epoll_ctl/futex/write | context switches/s | CPU µs/request |\n'
printf '|---|---:|---:|---|---:|---:|\n'
for name in ${RUNTIMES:-filch tokio async-executor}; do
  fifo=$(mktemp -u); mkfifo "$fifo"
  FILCH_BENCH_WORKERS=$WORKERS "$BIN" --serve "$name" --port "$PORT" <"$fifo" >/dev/null &
  server=$!
  exec 3>"$fifo"
  sleep 1
  wrk -t2 -c"$CONNS" -d1s "http://127.0.0.1:$PORT/" >/dev/null
  # strace: counts only.
  strace -c -f -p "$server" -o /tmp/filch-strace.$$ &
  tracer=$!
  sleep 0.5
  reqs=$(wrk -t2 -c"$CONNS" -d"${SECS}s" "http://127.0.0.1:$PORT/" | awk '/requests in/ {print $1}')
  kill -INT "$tracer"; wait "$tracer" 2>/dev/null || true
  total=$(awk '/total$/ {print $4}' /tmp/filch-strace.$$)
  detail=$(awk '$NF ~ /^(recvfrom|read|readv|recvmsg|sendto|write|writev|sendmsg|epoll_wait|epoll_pwait|epoll_ctl|futex)$/ {printf "%s %s, ", $NF, ($4 ~ /^[0-9]+$/ ? $4 : $4)}' /tmp/filch-strace.$$)
  # perf: context switches and CPU time.
  perf stat -x, -e context-switches,task-clock -p "$server" -o /tmp/filch-perf.$$ -- sleep "$SECS" &
  stat=$!
  out=$(wrk -t2 -c"$CONNS" -d"${SECS}s" "http://127.0.0.1:$PORT/")
  wait "$stat" || true
  rps=$(awk '/Requests\/sec/ {print $2}' <<<"$out")
  preqs=$(awk '/requests in/ {print $1}' <<<"$out")
  cs=$(awk -F, '/context-switches/ {print $1}' /tmp/filch-perf.$$)
  clock=$(awk -F, '/task-clock/ {print $1}' /tmp/filch-perf.$$)
  exec 3>&-; wait "$server" 2>/dev/null || true; rm -f "$fifo"
  awk -v n="$name" -v rps="$rps" -v total="$total" -v reqs="$reqs" -v d="$detail" -v cs="$cs" -v secs="$SECS" -v clock="$clock" -v preqs="$preqs" \
    'BEGIN { printf "| %s | %.0f | %.2f | %s | %.0f | %.2f |\n", n, rps, total/reqs, d, cs/secs, clock*1000/preqs }'
  rm -f /tmp/filch-strace.$$ /tmp/filch-perf.$$
done
