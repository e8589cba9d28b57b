#!/usr/bin/env bash
# Peak memory of reading a paginated photo list (issue 39, §3): thumbs run
# URL --dry-run over a loopback server of 1,000-entry pages
# (bench/paged_list_server.py), at 10,000 and at 1,000,000 entries, under
# /usr/bin/time -v. What ListReader keeps of the pages before must not grow
# with the list.
#
#   bash bench/paged_list_memory.sh
#   THUMBS_BIN=/path/to/thumbs PAGE_SIZE=100 bash bench/paged_list_memory.sh
#
# Target: at most +30 MB of peak RSS from 10,000 to 1,000,000 entries.
set -euo pipefail
export LC_ALL=C
cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$PWD
OUT=$ROOT/bench-out/paged-list-memory
mkdir -p "$OUT"
PAGE_SIZE=${PAGE_SIZE:-1000}
if [[ -z "${THUMBS_BIN:-}" ]]; then
  make -C "$ROOT" build >/dev/null
  THUMBS_BIN=$ROOT/.build/release/thumbs
fi
[[ -x /usr/bin/time ]] || { echo "paged list memory: /usr/bin/time missing (apt-get install time): n/a"; exit 0; }

# Prints "peak-MiB seconds user-cpu-s" of one dry run of N entries.
measure() {
  local n=$1 log=$OUT/time-$1.log port server
  exec {fifo}< <(python3 "$ROOT/bench/paged_list_server.py" "$n" "$PAGE_SIZE")
  server=$!
  read -r port <&$fifo
  /usr/bin/time -v "$THUMBS_BIN" run "http://127.0.0.1:$port/list?page=1" --dry-run --out "$OUT/out-$n" \
    --progress never --quiet >/dev/null 2>"$log" || { echo "n/a n/a n/a"; tail -3 "$log" >&2; }
  kill "$server" 2>/dev/null || true
  exec {fifo}<&-
  awk -F': ' '/Maximum resident set size/ {rss=$2} /User time/ {u=$2} /Elapsed \(wall clock\)/ {t=$2}
    END { n=split(t, p, ":"); s=0; for (i=1;i<=n;i++) s=s*60+p[i]; printf "%.1f %.1f %.1f\n", rss/1024, s, u }' "$log"
}

echo "paged list memory: pages of $PAGE_SIZE entries over loopback, thumbs run --dry-run ($THUMBS_BIN)"
printf '  %-12s %10s %10s %10s\n' "entries" "peak MiB" "seconds" "user s"
read -r small secs cpu < <(measure 10000)
printf '  %-12s %10s %10s %10s\n' 10000 "$small" "$secs" "$cpu"
read -r large secs cpu < <(measure 1000000)
printf '  %-12s %10s %10s %10s\n' 1000000 "$large" "$secs" "$cpu"
awk -v a="$small" -v b="$large" 'BEGIN { d = b - a; printf "  growth: %+.1f MiB (target <= +30 MB): %s\n", d, (d * 1.048576 <= 30 ? "PASS" : "FAIL") }'
