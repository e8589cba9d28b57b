#!/usr/bin/env bash
# Peak memory of reading a huge photo list (issue 14): thumbs run LIST
# --dry-run on a generated Picsum-like JSON array, from a local file and
# from a loopback HTTP server (python3 -m http.server), under /usr/bin/time -v.
#
#   bash bench/list_memory.sh                 # 1,000,000 entries
#   LIST_N=200000 bash bench/list_memory.sh
#   THUMBS_BIN=/path/to/thumbs bash bench/list_memory.sh
#
# Target: peak RSS under 300 MiB at 1,000,000 entries. The list is kept in
# bench-out/ between runs (making it takes about 10 s).
set -euo pipefail
export LC_ALL=C
cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$PWD
OUT=$ROOT/bench-out/list-memory
mkdir -p "$OUT"
N=${LIST_N:-1000000}
LIST=$OUT/list-$N.json

if [[ -z "${THUMBS_BIN:-}" ]]; then
  make -C "$ROOT" build >/dev/null
  THUMBS_BIN=$ROOT/.build/release/thumbs
fi
[[ -x /usr/bin/time ]] || { echo "list memory: /usr/bin/time missing (apt-get install time): n/a"; exit 0; }

if [[ ! -s $LIST ]]; then
  python3 - "$N" "$LIST" <<'PY'
import json, random, sys
n, path = int(sys.argv[1]), sys.argv[2]
random.seed(1)
with open(path + ".part", "w") as f:
    f.write("[")
    for i in range(n):
        w, h = random.randint(1000, 6000), random.randint(1000, 6000)
        e = {"id": str(i), "author": "Author %d" % (i % 997), "width": w, "height": h,
             "url": "https://unsplash.com/photos/%011x" % (i * 7919),
             "download_url": "https://picsum.photos/id/%d/%d/%d" % (i, w, h)}
        f.write((",\n" if i else "") + json.dumps(e, separators=(",", ":")))
    f.write("]\n")
import os; os.replace(path + ".part", path)
PY
fi

# Prints "peak MiB  seconds" of one dry run.
measure() {
  local log=$OUT/time.log
  /usr/bin/time -v "$THUMBS_BIN" run "$1" --dry-run --out "$OUT/out" --progress never --quiet --max-bytes 1000000000 \
    >/dev/null 2>"$log" || { echo "n/a n/a"; tail -3 "$log" >&2; return 0; }
  awk -F': ' '/Maximum resident set size/ {rss=$2} /Elapsed \(wall clock\)/ {t=$2}
    END { n=split(t, p, ":"); s=0; for (i=1;i<=n;i++) s=s*60+p[i]; printf "%.0f %.1f\n", rss/1024, s }' "$log"
}

echo "list memory: $N entries ($(du -m "$LIST" | cut -f1) MB of JSON), thumbs run --dry-run"
printf '  %-28s %10s %10s\n' "source" "peak MiB" "seconds"
read -r rss secs < <(measure "$LIST")
printf '  %-28s %10s %10s\n' "local file" "$rss" "$secs"

PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
python3 -m http.server "$PORT" --bind 127.0.0.1 --directory "$OUT" >/dev/null 2>&1 &
SERVER=$!
trap 'kill $SERVER 2>/dev/null || true' EXIT
for _ in $(seq 50); do curl -s -o /dev/null "http://127.0.0.1:$PORT/" 2>/dev/null && break; sleep 0.1; done
read -r rss2 secs2 < <(measure "http://127.0.0.1:$PORT/$(basename "$LIST")")
printf '  %-28s %10s %10s\n' "loopback URL (one page)" "$rss2" "$secs2"
verdict=PASS
for r in $rss $rss2; do [[ $r == n/a || $r -ge 300 ]] && verdict=FAIL; done
[[ $N == 1000000 ]] || verdict="n/a (the target is for LIST_N=1000000)"
echo "  target: peak RSS < 300 MiB at 1,000,000 entries: $verdict"
