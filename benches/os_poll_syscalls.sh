#!/usr/bin/env bash
# Syscalls per message of benches/os_poll.rs's ping-pong (one thread, N socket pairs on
# 127.0.0.1, both ends registered edge-triggered once), and per wake of its waker round
# trip, mio against polling in edge mode.
#
#   bash benches/os_poll_syscalls.sh                  # N = 1 and 64, 20000 messages each
#   NS="64" MESSAGES=128000 bash benches/os_poll_syscalls.sh
#
# Needs strace. Each case runs twice under `strace -c -f` (the bench binary's
# OS_POLL_STRACE mode): with R rounds and with 0 rounds; the difference, divided by the
# messages (N * R: one request and its reply on one connection) or the wakes (2 * R), is
# what the loop costs per unit, set-up and exit taken out.
set -euo pipefail
cd "$(dirname "$0")/.."
MESSAGES=${MESSAGES:-20000}
BIN=$(cargo bench -p filch-benches --bench os_poll --no-run --message-format=json 2>/dev/null |
  sed -n 's/.*"executable":"\([^"]*\)".*/\1/p' | tail -1)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# Runs OS_POLL_STRACE=$1 with $2 pairs for $3 rounds under strace; "syscall calls" lines.
counts() {
  OS_POLL_STRACE=$1 OS_POLL_N=$2 OS_POLL_ROUNDS=$3 strace -c -f -o "$out/strace" "$BIN" >/dev/null
  awk '$NF != "total" && $NF != "syscall" && $4 ~ /^[0-9]+$/ {print $NF, $4}' "$out/strace" | sort
}

# One table row: case $1, backend $2, $3 pairs, $4 rounds, $5 units (messages or wakes).
row() {
  counts "$2" "$3" "$4" >"$out/run"
  counts "$2" "$3" 0 >"$out/base"
  join -a1 -e0 -o '0,1.2,2.2' "$out/run" "$out/base" |
    awk -v units="$5" -v c="$1" -v b="${2%-waker}" '
      { d = ($2 - $3) / units; if (d >= 0.005) { total += d; detail = detail sprintf("%s %.2f, ", $1, d) } }
      END { sub(/, $/, "", detail); printf "| %s | %s | %.2f | %s |\n", c, b, total, detail }'
}

printf '| case | backend | syscalls per unit | of which |\n'
printf '|---|---|---:|---|\n'
for n in ${NS:-1 64}; do
  rounds=$((MESSAGES / n))
  for backend in mio polling; do
    row "ping-pong N=$n, per message" "$backend" "$n" "$rounds" $((n * rounds))
  done
done
for backend in mio polling; do
  row "waker, per wake" "$backend-waker" 0 $((MESSAGES / 2)) "$MESSAGES"
done
