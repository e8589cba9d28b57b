#!/usr/bin/env bash
# thumbs on a real Slurm cluster (issue 23): installs Debian's slurm-wlm and
# munge, starts a one-node cluster on this machine (munged, slurmctld and
# slurmd, each stopped by its PID when the script exits), runs the release
# binary's shards as a job array by submitting scripts/slurm/thumbs-array.sbatch
# (the job file docs/scale-out.md shows), waits for it, merges the shards and
# checks the result against one run over the same sources, as the shard tests
# do: same items in the same order, statuses, duplicates across shards,
# look-alikes, output bytes, statistics. Not part of `make test`: it installs
# packages and runs daemons as root.
#
#   sudo bash scripts/test-slurm.sh            THUMBS=/path/to/thumbs to use another binary
#   KEEP=1 sudo bash scripts/test-slurm.sh     keeps the work directory
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
thumbs=${THUMBS:-$repo/.build/release/thumbs}
work=$(mktemp -d /tmp/thumbs-slurm.XXXXXX)
pids=()

step() { printf '\n== %s\n' "$*"; }
fail() { printf 'FAIL: %s\n' "$*" >&2; exit 1; }

# Each daemon we started, by its PID; then the work directory.
cleanup() {
  local status=$? pid
  for ((i = ${#pids[@]} - 1; i >= 0; i--)); do
    pid=${pids[i]}
    if kill -0 "$pid" 2>/dev/null; then
      kill "$pid" 2>/dev/null || true
      for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
      kill -0 "$pid" 2>/dev/null && kill -9 "$pid" 2>/dev/null || true
      echo "stopped pid $pid"
    fi
  done
  if [[ ${KEEP:-0} == 1 ]]; then echo "kept $work"; else rm -rf "$work"; fi
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

[[ $(id -u) == 0 ]] || fail "run as root: it installs slurm-wlm and munge and starts their daemons"

step "packages"
if ! command -v slurmctld >/dev/null || ! command -v munged >/dev/null; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends slurm-wlm munge >/dev/null
fi
slurmctld -V
munged --version
if [[ ! -x $thumbs ]]; then
  step "building the release binary"
  make -C "$repo" build
fi
"$thumbs" --version

step "the job file is the one docs/scale-out.md shows"
python3 - "$repo/scripts/slurm/thumbs-array.sbatch" "$repo/docs/scale-out.md" <<'PY'
import re, sys
job = [l for l in open(sys.argv[1]).read().splitlines() if l and not (l.startswith("#") and not l.startswith(("#!", "#SBATCH")))]
doc = open(sys.argv[2]).read()
section = doc[doc.index("## Slurm job array"):]
shown = re.search(r"```bash\n(.*?)```", section, re.S).group(1).splitlines()
if shown != job:
    sys.exit("docs/scale-out.md's Slurm job file differs from scripts/slurm/thumbs-array.sbatch:\n" + "\n".join(shown) + "\n---\n" + "\n".join(job))
if "scripts/slurm/thumbs-array.sbatch" not in section:
    sys.exit("docs/scale-out.md's Slurm recipe does not submit scripts/slurm/thumbs-array.sbatch")
print("same lines, and the recipe submits that file")
PY

step "munged"
[[ -s /etc/munge/munge.key ]] || fail "no /etc/munge/munge.key (the munge package makes one)"
mkdir -p "$work/munge"
munged --foreground --force --socket="$work/munge/socket" --key-file=/etc/munge/munge.key \
  --pid-file="$work/munge/pid" --log-file="$work/munge/log" --seed-file="$work/munge/seed" &
pids+=($!)
for _ in $(seq 50); do [[ -S $work/munge/socket ]] && break; sleep 0.1; done
[[ -S $work/munge/socket ]] || fail "munged did not start: $(cat "$work/munge/log" 2>/dev/null)"
munge --socket="$work/munge/socket" -n | unmunge --socket="$work/munge/socket" >/dev/null || fail "munge cannot decode its own credential"
echo "munged pid ${pids[-1]}"

step "slurmctld and slurmd: one node"
node=$(hostname -s)
cpus=$(nproc)
mkdir -p "$work/state" "$work/spool" "$work/log"
cat >"$work/slurm.conf" <<CONF
ClusterName=thumbs-test
SlurmctldHost=$node
AuthType=auth/munge
AuthInfo=socket=$work/munge/socket
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/log/slurmctld.log
SlurmdLogFile=$work/log/slurmd.log
SlurmctldPort=16817
SlurmdPort=16818
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
ReturnToService=2
NodeName=$node CPUs=$cpus State=UNKNOWN
PartitionName=test Nodes=$node Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF=$work/slurm.conf
slurmctld -D -f "$SLURM_CONF" &
pids+=($!)
echo "slurmctld pid ${pids[-1]}"
slurmd -D -f "$SLURM_CONF" &
pids+=($!)
echo "slurmd pid ${pids[-1]}"
state=""
for _ in $(seq 120); do
  state=$(sinfo -h -n "$node" -o %t 2>/dev/null || true)
  [[ $state == idle ]] && break
  sleep 0.5
done
[[ $state == idle ]] || { tail -n 20 "$work"/log/*.log >&2; fail "the node did not come up (state '$state')"; }
sinfo

step "sources"
src=$work/photos
mkdir -p "$src/a" "$src/b/c"
i=0
for name in one.jpg two.jpg a/three.png a/four.jpg b/five.webp b/c/six.jpg seven.tif b/eight.jpg a/nine.jpg ten.png \
            eleven.jpg b/c/twelve.png; do
  vips black "$work/b.v" $((40 + i * 7)) $((30 + i * 5)) --bands 3
  vips linear "$work/b.v" "$work/l.v" 1 $((20 + i * 17))
  vips gaussnoise "$work/n.v" $((40 + i * 7)) $((30 + i * 5)) --sigma 30
  vips add "$work/l.v" "$work/n.v" "$work/s.v"
  vips cast "$work/s.v" "$work/c.v" uchar
  vips copy "$work/c.v" "$src/$name"
  i=$((i + 1))
done
rm -f "$work"/*.v
cp "$src/one.jpg" "$src/b/copy-of-one.jpg"      # duplicate bytes, in another shard than one.jpg
vips copy "$src/one.jpg" "$src/a/one-again.png"  # the same picture in other bytes: a look-alike, in another shard
printf 'not an image' >"$src/broken.jpg"         # one failure
ls -R "$src" | head -30

step "one run"
opts=(--size 64 --size 48x32 --max-failures 10)
"$thumbs" run "$src" --out "$work/single" "${opts[@]}" --progress never

step "shards: sbatch --array=0-3 scripts/slurm/thumbs-array.sbatch"
export THUMBS=$thumbs
start=$(date +%s.%N)
jid=$(sbatch --parsable --wait --array=0-3 --cpus-per-task=1 --chdir="$work" \
      --output="$work/log/thumbs-%A_%a.out" "$repo/scripts/slurm/thumbs-array.sbatch" "$src" "$work/shards" "${opts[@]}") \
  || { tail -n 30 "$work"/log/*.out "$work"/log/slurm*.log >&2; fail "the job array failed"; }
echo "job array $jid done in $(echo "$(date +%s.%N) - $start" | bc) s"
sacct_line=$(squeue -h -j "$jid" 2>/dev/null | wc -l)
echo "tasks still queued: $sacct_line"
for out in "$work"/log/thumbs-*.out; do echo "--- ${out##*/}"; tail -n 3 "$out"; done
ls "$work/shards"

step "merge"
"$thumbs" merge "$work"/shards/*/manifest.json --out "$work/merged"

step "compare with the one run"
python3 - "$work/single" "$work/merged" "$work/shards" <<'PY'
import json, os, sys
single_dir, merged_dir, shards_dir = sys.argv[1:4]
load = lambda d, f: json.load(open(os.path.join(d, f)))
single, merged = load(single_dir, "manifest.json"), load(merged_dir, "manifest.json")
shards = [load(os.path.join(shards_dir, s), "manifest.json") for s in sorted(os.listdir(shards_dir))]
problems = []
def same(what, a, b):
    if a != b:
        problems.append(f"{what}: merged {a!r} vs one run {b!r}")
si, mi = single["items"], merged["items"]
same("item count", len(mi), len(si))
same("shard item counts add up", sum(len(s["items"]) for s in shards), len(si))
same("shards", sorted(s["shard"]["index"] for s in shards), [0, 1, 2, 3])
same("ids in order", [i["id"] for i in mi], [i["id"] for i in si])
for key in ("status", "sha256", "duplicateOf", "similarTo", "width", "height", "format"):
    same(key, [i.get(key) for i in mi], [i.get(key) for i in si])
same("error codes", [i.get("error", {}).get("code") for i in mi], [i.get("error", {}).get("code") for i in si])
same("outputs", [[(o["size"], o["sha256"], o["bytes"], os.path.basename(o["path"])) for o in i["outputs"]] for i in mi],
     [[(o["size"], o["sha256"], o["bytes"], os.path.basename(o["path"])) for o in i["outputs"]] for i in si])
for i in mi:
    for o in i["outputs"]:
        if not os.path.isfile(os.path.join(merged_dir, o["path"])):
            problems.append(f"{o['path']} does not resolve from the merged folder")
ss, ms = load(single_dir, "stats.json"), load(merged_dir, "stats.json")
for key in ("counts", "dimensions", "formats", "bytes", "downloads", "similar"):
    same(f"stats {key}", ms[key], ss[key])
dup = [i for i in mi if i["status"] == "duplicate"]
home = {i["id"]: s["shard"]["index"] for s in shards for i in s["items"]}
cross = [i for i in dup if home[i["id"]] != home[i["duplicateOf"]]]
alike = [i for i in mi if i.get("similarTo")]
cross_alike = [i for i in alike if home[i["id"]] != home[i["similarTo"]["id"]]]
print(f"{len(mi)} items, {ms['counts']['ok']} ok, {len(dup)} duplicate ({len(cross)} across shards), "
      f"{len(alike)} look-alike ({len(cross_alike)} across shards), "
      f"{ms['counts']['failed']} failed; per shard {[len(s['items']) for s in shards]}")
if not cross:
    problems.append("no duplicate across shards: the test does not show the merge's duplicate rule")
if not cross_alike:
    problems.append("no look-alike across shards: the test does not show the merge's grouping")
if problems:
    print("\n".join(problems))
    sys.exit(1)
print("merged == one run: items, order, statuses, duplicates, look-alikes, outputs, statistics")
PY
[[ -s $work/merged/report.html ]] || fail "no merged report"
step "PASS: a 4-task Slurm job array of thumbs shards merged into what one run writes"
