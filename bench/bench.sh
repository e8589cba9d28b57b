#!/usr/bin/env bash
# thumbs benchmark harness (see bench/README.md).
#
#   bash bench/bench.sh [all|speed|quality|memory|list|rerun|scale]...
#
# Default: all = speed quality memory list rerun (+ scale when BENCH_SCALE=1).
# Environment:
#   THUMBS_BIN   use this thumbs binary instead of `swift build -c release`
#   ROUNDS       timed rounds per measurement [3]; medians are reported
#   WARMUP       untimed warm-up rounds before them [1]
#   PEER_BATCH   files per process for the xargs-driven peers [8]
#   BENCH_SCALE  1 = include the slow 100,000-image section in `all`
#   BENCH_STRICT 1 = exit 1 when a target is missed (default: report only)
#   RERUN_N, SCALE_N  image counts of the rerun / scale sections [10000, 100000]
#   MAKE_CORPUS  corpus script [../shared/bench/make-corpus.sh]
# Work files and caches live in bench-out/ (git-ignored); corpora are kept.
set -euo pipefail
export LC_ALL=C

ORIG_PWD=$PWD
cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$PWD
BENCH=$ROOT/bench
OUT=$ROOT/bench-out
mkdir -p "$OUT"

ROUNDS=${ROUNDS:-3}
WARMUP=${WARMUP:-1}
PEER_BATCH=${PEER_BATCH:-8}
NPROC=$(nproc)
MAKE_CORPUS=${MAKE_CORPUS:-$ROOT/../shared/bench/make-corpus.sh}
CORPUS=$OUT/corpus
CORPUS_N=120 CORPUS_W=4000 CORPUS_H=3000 CORPUS_Q=90
CORPUS_X10=$OUT/corpus-x10
SIZE=256 QUALITY=80
VERDICTS=$OUT/verdicts.txt
PY=python3
TOOL=("$PY" "$BENCH/benchtool.py")

usage() {
  echo "usage: bash bench/bench.sh [all|speed|quality|memory|list|rerun|scale]..." >&2
  exit 2
}

# ---------------------------------------------------------------- helpers

say() { printf '%s\n' "$*"; }
header() { printf '\n== %s\n' "$*"; }
calc() { "${TOOL[@]}" calc "$@"; }
median() { "${TOOL[@]}" median "$1"; }
is_num() { [[ ${1:-} =~ ^-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?$ ]]; }

# timed LOG CMD... : run CMD with its output in LOG; print wall seconds;
# write the CPU seconds it used (user + system, all its processes) to LOG.cpu;
# return CMD's exit status.
timed() {
  local log=$1 t0 t1 rc=0 d c0 c1 hz f
  shift
  hz=$(getconf CLK_TCK)
  read -r -a f <"/proc/$BASHPID/stat" # fields 16, 17: CPU time of waited-for children
  c0=$((f[15] + f[16]))
  t0=${EPOCHREALTIME/./}
  "$@" >"$log" 2>&1 || rc=$?
  t1=${EPOCHREALTIME/./}
  read -r -a f <"/proc/$BASHPID/stat"
  c1=$((f[15] + f[16]))
  d=$((t1 - t0))
  printf '%d.%02d\n' $(((c1 - c0) / hz)) $(((c1 - c0) % hz * 100 / hz)) >"$log.cpu"
  printf '%d.%06d\n' $((d / 1000000)) $((d % 1000000))
  return "$rc"
}

# verdict LABEL VALUE ge|le TARGET : print and record PASS / FAIL / n/a.
verdict() {
  local label=$1 value=$2 op=$3 target=$4 res
  if ! is_num "$value"; then
    res="n/a"
  elif [[ $(calc "1 if $value $([[ $op == ge ]] && echo '>=' || echo '<=') $target else 0") == 1 ]]; then
    res=PASS
  else
    res=FAIL
  fi
  local sign; [[ $op == ge ]] && sign='>=' || sign='<='
  printf '  %-46s %10s   target %s %-8s %s\n' "$label" "$value" "$sign" "$target" "$res"
  printf '%-6s %s = %s (target %s %s)\n' "$res" "$label" "$value" "$sign" "$target" >>"$VERDICTS"
}

# cpu_busy : percent of all CPU time that was busy over the next second.
cpu_busy() {
  local c u n s i w q sq st a1 i1 a2 i2
  read -r c u n s i w q sq st _ </proc/stat
  a1=$((u + n + s + i + w + q + sq + st)) i1=$((i + w))
  sleep 1
  read -r c u n s i w q sq st _ </proc/stat
  a2=$((u + n + s + i + w + q + sq + st)) i2=$((i + w))
  echo $(((100 * ((a2 - a1) - (i2 - i1))) / ((a2 - a1) > 0 ? (a2 - a1) : 1)))
}

# cpu_snapshot : "busy total ours" clock ticks: busy and total of the whole
# machine (/proc/stat), and CPU time of this script's finished descendants.
cpu_snapshot() {
  local c u n s i w q sq st f
  read -r c u n s i w q sq st _ </proc/stat
  read -r -a f <"/proc/$$/stat"
  echo "$((u + n + s + q + sq + st)) $((u + n + s + i + w + q + sq + st)) $((f[15] + f[16]))"
}

# other_load BEFORE AFTER : percent of the machine's CPU capacity used by
# processes that are not this bench between two snapshots.
other_load() {
  local b1 t1 o1 b2 t2 o2
  read -r b1 t1 o1 <<<"$1"
  read -r b2 t2 o2 <<<"$2"
  local other=$(((b2 - b1) - (o2 - o1)))
  ((other < 0)) && other=0
  echo $(((100 * other) / ((t2 - t1) > 0 ? (t2 - t1) : 1)))
}

count_jpegs() { { find "$1" -type f \( -name '*.jpg' -o -name '*.jpeg' \) 2>/dev/null || true; } | wc -l; }

# rotate K ITEMS... : print ITEMS rotated left by K, one per line.
rotate() {
  local k=$1; shift
  local n=$#
  ((n)) || return 0
  local items=("$@") i
  k=$(((k % n + n) % n))
  for ((i = 0; i < n; i++)); do printf '%s\n' "${items[(i + k) % n]}"; done
}

show_log_tail() { [[ -s $1 ]] && sed -n '1,5p' "$1" | sed 's/^/      | /' || true; }

ensure_time() {
  if [[ ! -x /usr/bin/time ]]; then
    say "  (installing the 'time' package for /usr/bin/time)"
    apt-get install -y time >/dev/null 2>&1 || { apt-get update >/dev/null 2>&1 && apt-get install -y time >/dev/null 2>&1; } || true
  fi
  [[ -x /usr/bin/time ]]
}

# ---------------------------------------------------------------- thumbs

THUMBS=""
THUMBS_NOTE=""
resolve_thumbs() {
  if [[ -n ${THUMBS_BIN:-} ]]; then
    local b=$THUMBS_BIN
    [[ $b == /* ]] || { [[ $b == */* ]] && b=$ORIG_PWD/$b || b=$(command -v "$b" || echo "$ORIG_PWD/$b"); }
    if [[ -x $b ]]; then THUMBS=$b; THUMBS_NOTE="THUMBS_BIN"; else THUMBS_NOTE="THUMBS_BIN=$THUMBS_BIN is not executable"; fi
    return 0
  fi
  if ! command -v swift >/dev/null; then
    THUMBS_NOTE="no swift toolchain and no THUMBS_BIN"; return 0
  fi
  say "building: swift build -c release (log: bench-out/build.log)"
  if swift build -c release >"$OUT/build.log" 2>&1 && [[ -x $ROOT/.build/release/thumbs ]]; then
    THUMBS=$ROOT/.build/release/thumbs; THUMBS_NOTE="swift build -c release"
  else
    THUMBS_NOTE="release build failed (bench-out/build.log)"
    tail -n 15 "$OUT/build.log" | sed 's/^/  | /'
  fi
}
have_thumbs() { [[ -n $THUMBS ]]; }

# ---------------------------------------------------------------- corpora

ensure_corpus() {
  local have
  have=$(count_jpegs "$CORPUS")
  if ((have < CORPUS_N)); then
    [[ -r $MAKE_CORPUS ]] || { say "corpus script not found: $MAKE_CORPUS"; return 1; }
    say "  making corpus: $CORPUS_N images ${CORPUS_W}x${CORPUS_H} in bench-out/corpus (slow, kept between runs)"
    bash "$MAKE_CORPUS" "$CORPUS" "$CORPUS_N" "$CORPUS_W" "$CORPUS_H" "$CORPUS_Q" >/dev/null
  fi
  have=$(count_jpegs "$CORPUS")
  ((have == CORPUS_N)) || { say "corpus has $have images, expected $CORPUS_N"; return 1; }
  cat "$CORPUS"/*.jpg >/dev/null # page cache warm: we time decoding, not the disk
}

ensure_corpus_x10() {
  ensure_corpus
  if (($(count_jpegs "$CORPUS_X10") != CORPUS_N * 10)); then
    say "  making the 10x corpus: $((CORPUS_N * 10)) distinct files (each corpus image 10 times, a distinct tag after EOI)"
    "${TOOL[@]}" variants "$CORPUS" "$CORPUS_X10" 10 >/dev/null
  fi
  (($(count_jpegs "$CORPUS_X10") == CORPUS_N * 10))
}

# tiny_corpus DIR COUNT : COUNT distinct 64x48 JPEGs, 1000 per folder, cached.
tiny_corpus() {
  local dir=$1 count=$2 base=$OUT/tiny-base.jpg
  if [[ -f $dir/.complete && $(cat "$dir/.complete") == "$count" ]]; then return 0; fi
  if [[ ! -s $base ]]; then
    local t; t=$(mktemp -d)
    vips gaussnoise "$t/g.v" 64 48 --mean 128 --sigma 40
    vips bandjoin "$t/g.v $t/g.v $t/g.v" "$t/c.v"
    vips cast "$t/c.v" "$t/u.v" uchar
    vips copy "$t/u.v" "$t/s.v" --interpretation srgb
    vips copy "$t/s.v" "$base[Q=90,strip]"
    rm -rf "$t"
  fi
  say "  making $count distinct 64x48 JPEGs in ${dir#"$ROOT"/} (one image, distinct bytes after EOI)"
  "${TOOL[@]}" multiply "$base" "$dir" "$count" --per-dir 1000 >/dev/null
  echo "$count" >"$dir/.complete"
}

# ---------------------------------------------------------------- speed

speed_cmd_thumbs() {
  "$THUMBS" run "$CORPUS" --out "$1" --size "$SIZE" --format jpeg --quality "$QUALITY" \
    --force --no-report --progress never --quiet
}
speed_cmd_vipsthumbnail() {
  printf '%s\0' "$CORPUS"/*.jpg |
    xargs -0 -P "$NPROC" -n "$PEER_BATCH" vipsthumbnail --vips-concurrency=1 -s "$SIZE" -o "$1/%s.jpg[Q=$QUALITY,strip]"
}
speed_cmd_imagemagick() {
  printf '%s\0' "$CORPUS"/*.jpg |
    MAGICK_THREAD_LIMIT=1 xargs -0 -P "$NPROC" -n "$PEER_BATCH" /usr/bin/mogrify -path "$1" \
      -define jpeg:size=$((SIZE * 2))x$((SIZE * 2)) -thumbnail "${SIZE}x${SIZE}" -sampling-factor 2x2 -quality "$QUALITY"
}
speed_cmd_pillow() {
  "$PY" "$BENCH/pillow_thumbs.py" "$CORPUS" "$1" --size "$SIZE" --quality "$QUALITY" --jobs "$NPROC"
}
speed_cmd_floor() {
  printf '%s\0' "$CORPUS"/*.jpg | xargs -0 -P "$NPROC" -n 1 djpeg -scale 1/8 -outfile /dev/null
}

speed_label() {
  case $1 in
  thumbs) echo "thumbs (--jobs default = $NPROC)" ;;
  vipsthumbnail) echo "vipsthumbnail, xargs -P$NPROC -n$PEER_BATCH" ;;
  imagemagick) echo "ImageMagick mogrify, xargs -P$NPROC -n$PEER_BATCH" ;;
  pillow) echo "Pillow draft+LANCZOS, Pool($NPROC)" ;;
  floor) echo "decode floor: djpeg -scale 1/8 -P$NPROC" ;;
  esac
}

speed_available() {
  case $1 in
  thumbs) have_thumbs ;;
  vipsthumbnail) command -v vipsthumbnail >/dev/null ;;
  imagemagick) [[ -x /usr/bin/mogrify ]] ;;
  pillow) "$PY" -c 'import PIL' 2>/dev/null ;;
  floor) command -v djpeg >/dev/null ;;
  esac
}

section_speed() {
  header "speed: $CORPUS_N JPEGs ${CORPUS_W}x${CORPUS_H} -> ${SIZE} px JPEG Q$QUALITY; $ROUNDS timed rounds after $WARMUP warm-up, tool order rotates each round; medians"
  ensure_corpus
  local d=$OUT/speed tools=(thumbs vipsthumbnail imagemagick pillow floor) avail=() t r
  rm -rf "$d"; mkdir -p "$d"
  for t in "${tools[@]}"; do
    if speed_available "$t"; then avail+=("$t"); else echo missing >"$d/status.$t"; fi
  done
  for ((r = 1 - WARMUP; r <= ROUNDS; r++)); do
    local order; mapfile -t order < <(rotate "$r" "${avail[@]}")
    for t in "${order[@]}"; do
      [[ -f $d/status.$t ]] && continue # failed before: do not retry
      local o=$d/out-$t s n
      rm -rf "$o"; mkdir -p "$o"
      if s=$(timed "$d/log.$t" "speed_cmd_$t" "$o"); then
        if [[ $t != floor ]] && n=$(count_jpegs "$o") && ((n != CORPUS_N)); then
          say "  $t: made $n of $CORPUS_N thumbnails"; show_log_tail "$d/log.$t"
          echo "error" >"$d/status.$t"; continue
        fi
        if ((r >= 1)); then echo "$s" >>"$d/times.$t"; cat "$d/log.$t.cpu" >>"$d/cpu.$t"; fi
      else
        say "  $t: failed (exit status $?)"; show_log_tail "$d/log.$t"
        echo "error" >"$d/status.$t"
      fi
    done
    ((r >= 1)) && say "  round $r/$ROUNDS done"
  done
  rm -rf "$d"/out-*

  declare -A sec ips
  printf '\n  %-46s %10s %10s %12s\n' "tool" "images/s" "seconds" "CPU ms/image"
  for t in "${tools[@]}"; do
    local cpu="n/a"
    if [[ -f $d/status.$t ]]; then
      sec[$t]=$(cat "$d/status.$t"); ips[$t]=${sec[$t]}
      [[ $t == thumbs ]] && ! have_thumbs && { sec[$t]="n/a"; ips[$t]="n/a"; }
    else
      sec[$t]=$(median "$d/times.$t")
      is_num "${sec[$t]}" && ips[$t]=$(calc "$CORPUS_N / ${sec[$t]}") || ips[$t]=${sec[$t]}
      cpu=$(median "$d/cpu.$t")
      is_num "$cpu" && cpu=$(calc "1000 * $cpu / $CORPUS_N")
    fi
    printf '  %-46s %10s %10s %12s\n' "$(speed_label "$t")" "${ips[$t]}" "${sec[$t]}" "$cpu"
  done
  say "  (images/s and seconds: wall clock, medians; CPU ms/image: user+system time of all the tool's processes, median)"

  say ""
  say "  ratios (images/s of thumbs / images/s of the other)"
  local fastest="" fs=""
  for t in vipsthumbnail imagemagick pillow; do
    local ratio="n/a"
    if is_num "${sec[$t]}"; then
      if [[ -z $fs ]] || [[ $(calc "1 if ${sec[$t]} < $fs else 0") == 1 ]]; then fastest=$t fs=${sec[$t]}; fi
      is_num "${sec[thumbs]}" && ratio=$(calc "${sec[$t]} / ${sec[thumbs]}")
    fi
    printf '  %-46s %10s\n' "thumbs / $t" "$ratio"
  done
  local rf="n/a" rfl="n/a"
  if [[ -n $fastest ]] && is_num "${sec[thumbs]}"; then rf=$(calc "$fs / ${sec[thumbs]}"); fi
  if is_num "${sec[floor]}" && is_num "${sec[thumbs]}"; then rfl=$(calc "${sec[floor]} / ${sec[thumbs]}"); fi
  verdict "thumbs / fastest peer (${fastest:-none})" "$rf" ge 1.15
  verdict "thumbs / decode floor" "$rfl" ge 0.85
}

# ---------------------------------------------------------------- quality

# quality_variant SRC STEM OUTBASE K TW TH : decode at 1/K with shrink-on-load,
# Lanczos3 to exactly TW x TH, write OUTBASE.jpg (Q80) and OUTBASE.png.
quality_variant() {
  local src=$1 out=$3 k=$4 tw=$5 th=$6 tmp=$OUT/quality/shrunk.v sw sh
  vips jpegload "$src" "$tmp" --shrink "$k"
  sw=$(vipsheader -f width "$tmp") sh=$(vipsheader -f height "$tmp")
  vips resize "$tmp" "$out.v" "$("$PY" -c "print(repr($tw / $sw))")" --vscale "$("$PY" -c "print(repr($th / $sh))")" --kernel lanczos3
  vips copy "$out.v" "$out.jpg[Q=$QUALITY,strip]"
  vips copy "$out.v" "$out.png"
  rm -f "$tmp" "$out.v"
}

section_quality() {
  local n=${QUALITY_N:-12}
  header "quality: PSNR of ${SIZE} px thumbnails vs a Lanczos3 reference made from the full-resolution image ($n images)"
  ensure_corpus
  local d=$OUT/quality f stem i step files
  rm -rf "$d/src" "$d/names.txt" "$d"/out-*; mkdir -p "$d/src"
  files=("$CORPUS"/*.jpg)
  step=$((${#files[@]} / n))
  ((step >= 1)) || step=1
  for ((i = step / 2; i < ${#files[@]} && i / step < n; i += step)); do
    f=${files[i]}
    ln -f "$f" "$d/src/" 2>/dev/null || cp "$f" "$d/src/"
    basename "$f" >>"$d/names.txt"
  done

  local jpg=() png=() fmt
  # thumbs, as JPEG Q80 (the target) and as PNG (the resampling alone)
  for fmt in jpeg png; do
    local dir=$d/out-thumbs-$fmt
    if have_thumbs && timed "$d/log.thumbs-$fmt" "$THUMBS" run "$d/src" --out "$dir" --size "$SIZE" \
      --format "$fmt" --quality "$QUALITY" --force --no-report --progress never --quiet >/dev/null; then
      :
    else
      have_thumbs && { say "  thumbs --format $fmt failed -- n/a"; show_log_tail "$d/log.thumbs-$fmt"; }
    fi
    [[ $fmt == jpeg ]] && jpg+=("thumbs=$dir/$SIZE") || png+=("thumbs=$dir/$SIZE")
  done
  # vips thumbnail, and the two shrink-on-load choices done by hand
  mkdir -p "$d/out-vips" "$d/out-shrink8" "$d/out-shrink4"
  while read -r -u 3 f; do
    stem=${f%.*}
    vips thumbnail "$d/src/$f" "$d/out-vips/$stem.v" "$SIZE"
    vips copy "$d/out-vips/$stem.v" "$d/out-vips/$stem.jpg[Q=$QUALITY,strip]"
    vips copy "$d/out-vips/$stem.v" "$d/out-vips/$stem.png"
    local tw th
    tw=$(vipsheader -f width "$d/out-vips/$stem.v") th=$(vipsheader -f height "$d/out-vips/$stem.v")
    rm -f "$d/out-vips/$stem.v"
    quality_variant "$d/src/$f" "$stem" "$d/out-shrink8/$stem" 8 "$tw" "$th"
    quality_variant "$d/src/$f" "$stem" "$d/out-shrink4/$stem" 4 "$tw" "$th"
  done 3<"$d/names.txt"
  local L8="1/8 decode + lanczos3" L4="1/4 decode + lanczos3"
  jpg+=("vips thumbnail=$d/out-vips" "$L8=$d/out-shrink8" "$L4=$d/out-shrink4")
  png+=("vips thumbnail=$d/out-vips/png" "$L8=$d/out-shrink8/png" "$L4=$d/out-shrink4/png")
  for f in out-vips out-shrink8 out-shrink4; do mkdir -p "$d/$f/png"; mv "$d/$f"/*.png "$d/$f/png/"; done
  local LP="Pillow draft 1/8 + LANCZOS" LM="ImageMagick jpeg:size 512, -thumbnail"
  if speed_available pillow; then
    "$PY" "$BENCH/pillow_thumbs.py" "$d/src" "$d/out-pillow" --size "$SIZE" --quality "$QUALITY" >/dev/null 2>&1 &&
      jpg+=("$LP=$d/out-pillow")
    "$PY" "$BENCH/pillow_thumbs.py" "$d/src" "$d/out-pillow-png" --size "$SIZE" --format png >/dev/null 2>&1 &&
      png+=("$LP=$d/out-pillow-png")
  fi
  if [[ -x /usr/bin/mogrify ]]; then
    mkdir -p "$d/out-magick" "$d/out-magick-png"
    MAGICK_THREAD_LIMIT=1 /usr/bin/mogrify -path "$d/out-magick" -define jpeg:size=$((SIZE * 2))x$((SIZE * 2)) \
      -thumbnail "${SIZE}x${SIZE}" -sampling-factor 2x2 -quality "$QUALITY" "$d/src"/*.jpg >/dev/null 2>&1 &&
      jpg+=("$LM=$d/out-magick")
    MAGICK_THREAD_LIMIT=1 /usr/bin/mogrify -path "$d/out-magick-png" -format png -define jpeg:size=$((SIZE * 2))x$((SIZE * 2)) \
      -thumbnail "${SIZE}x${SIZE}" "$d/src"/*.jpg >/dev/null 2>&1 &&
      png+=("$LM=$d/out-magick-png")
  fi

  "${TOOL[@]}" psnr "$d/ref" "$d/src" "$d/names.txt" "${jpg[@]}" --ext jpg >"$d/psnr-jpeg.tsv"
  "${TOOL[@]}" psnr "$d/ref" "$d/src" "$d/names.txt" "${png[@]}" --ext png >"$d/psnr-png.tsv"
  declare -A mj mp kb dims
  local label m mn cnt dm b
  while IFS=$'\t' read -r label m mn cnt dm b; do mj[$label]=$m kb[$label]=$b dims[$label]=$dm; done <"$d/psnr-jpeg.tsv"
  while IFS=$'\t' read -r label m mn cnt dm b; do mp[$label]=$m; done <"$d/psnr-png.tsv"
  printf '\n  %-46s %10s %10s %10s  %s\n' "mean PSNR, dB (higher is closer)" "JPEG Q$QUALITY" "lossless" "JPEG KiB" "size"
  for label in thumbs "vips thumbnail" "$L8" "$L4" "$LP" "$LM"; do
    [[ -n ${mj[$label]:-} || -n ${mp[$label]:-} ]] || continue
    printf '  %-46s %10s %10s %10s  %s\n' "$label" "${mj[$label]:-n/a}" "${mp[$label]:-n/a}" "${kb[$label]:-n/a}" "${dims[$label]:-}"
  done
  say ""
  local diff="n/a" dl="n/a" dd="n/a" ddl="n/a"
  is_num "${mj[thumbs]:-}" && is_num "${mj[vips thumbnail]:-}" && diff=$(calc "${mj[thumbs]} - ${mj[vips thumbnail]}")
  is_num "${mp[thumbs]:-}" && is_num "${mp[vips thumbnail]:-}" && dl=$(calc "${mp[thumbs]} - ${mp[vips thumbnail]}")
  is_num "${mj[$L8]:-}" && is_num "${mj[$L4]:-}" && dd=$(calc "${mj[$L8]} - ${mj[$L4]}")
  is_num "${mp[$L8]:-}" && is_num "${mp[$L4]:-}" && ddl=$(calc "${mp[$L8]} - ${mp[$L4]}")
  printf '  %-46s %10s\n' "1/8 decode - 1/4 decode, JPEG Q$QUALITY (dB)" "$dd"
  printf '  %-46s %10s\n' "1/8 decode - 1/4 decode, lossless (dB)" "$ddl"
  printf '  %-46s %10s\n' "thumbs - vips thumbnail, lossless (dB)" "$dl"
  verdict "thumbs - vips thumbnail, JPEG Q$QUALITY (dB)" "$diff" ge -0.5
}

# ---------------------------------------------------------------- memory

rss_run() { # rss_run LOG RSSFILE SRC OUT
  /usr/bin/time -f %M -o "$2" "$THUMBS" run "$3" --out "$4" --jobs 2 --size "$SIZE" --format jpeg \
    --quality "$QUALITY" --force --progress never --quiet >"$1" 2>&1
}

section_memory() {
  header "memory: thumbs peak RSS at --jobs 2 (report on), $CORPUS_N images vs the same images x10"
  ensure_time || { say "  /usr/bin/time missing: n/a"; verdict "peak RSS, $CORPUS_N images (MiB)" n/a le 120; verdict "peak RSS x10 / x1" n/a le 1.15; return 0; }
  if ! have_thumbs; then
    verdict "peak RSS, $CORPUS_N images (MiB)" n/a le 120
    verdict "peak RSS x10 / x1" n/a le 1.15
    return 0
  fi
  ensure_corpus_x10
  cat "$CORPUS_X10"/*.jpg >/dev/null
  local d=$OUT/memory s1 s2 r1="n/a" r2="n/a" ratio="n/a"
  rm -rf "$d"; mkdir -p "$d"
  if s1=$(timed "$d/t1" rss_run "$d/log1" "$d/rss1" "$CORPUS" "$d/out1"); then
    r1=$(calc "$(tail -n1 "$d/rss1") / 1024")
  else say "  x1 run failed"; show_log_tail "$d/log1"; fi
  rm -rf "$d/out1"
  if ! is_num "$r1"; then
    say "  (x10 run skipped)"
  elif s2=$(timed "$d/t2" rss_run "$d/log2" "$d/rss2" "$CORPUS_X10" "$d/out2"); then
    r2=$(calc "$(tail -n1 "$d/rss2") / 1024")
  else say "  x10 run failed"; show_log_tail "$d/log2"; fi
  rm -rf "$d/out2"
  is_num "$r1" && is_num "$r2" && ratio=$(calc "$r2 / $r1")
  printf '\n  %-46s %10s %10s\n' "run" "peak MiB" "images/s"
  printf '  %-46s %10s %10s\n' "$CORPUS_N images" "$r1" "$(is_num "$r1" && calc "$CORPUS_N / $s1" || echo n/a)"
  printf '  %-46s %10s %10s\n' "$((CORPUS_N * 10)) images (x10)" "$r2" "$(is_num "$r2" && calc "$CORPUS_N * 10 / $s2" || echo n/a)"
  say ""
  verdict "peak RSS, $CORPUS_N images (MiB)" "$r1" le 120
  verdict "peak RSS x10 / x1" "$ratio" le 1.15
}

# ---------------------------------------------------------------- list

SERVER_PID=""
start_server() { # start_server IMAGEDIR PORTFILE LOG -> sets PORT
  rm -f "$2"
  "$PY" "$BENCH/slow_server.py" "$1" --port-file "$2" --delay "${LIST_DELAY:-0.05}" >"$3" 2>&1 &
  SERVER_PID=$!
  local i
  for ((i = 0; i < 100; i++)); do
    [[ -s $2 ]] && { PORT=$(cat "$2"); return 0; }
    kill -0 "$SERVER_PID" 2>/dev/null || break
    sleep 0.1
  done
  say "  the slow server did not start:"; show_log_tail "$3"; return 1
}
stop_server() {
  if [[ -n $SERVER_PID ]]; then
    kill "$SERVER_PID" 2>/dev/null || true
    wait "$SERVER_PID" 2>/dev/null || true
  fi
  SERVER_PID=""
}

list_cmd_url() {
  "$THUMBS" run "$LIST_URL" --download-jobs 16 --out "$1" --size "$SIZE" --format jpeg \
    --quality "$QUALITY" --force --no-report --progress never --quiet
}
list_cmd_local() {
  "$THUMBS" run "$LIST_SRC" --out "$1" --size "$SIZE" --format jpeg \
    --quality "$QUALITY" --force --no-report --progress never --quiet
}
list_cmd_curl() { # one curl, 16 transfers at once, connections reused (curl >= 7.66)
  if curl --help all 2>/dev/null | grep -q -- --parallel-max; then
    curl --parallel --parallel-max 16 --silent --fail --config "$LIST_PAIRS.curl"
  else
    xargs -P 16 -n 2 curl -s -f -o <"$LIST_PAIRS"
  fi
}

section_list() {
  local n=300 d=$OUT/list
  LIST_SRC=$OUT/list-src
  header "photo list over loopback: $n JPEGs 640x480 from a Picsum-style list, 50 ms per response, pages of 100; $ROUNDS rounds, medians"
  rm -rf "$d"; mkdir -p "$d"
  if (($(count_jpegs "$LIST_SRC") != n)); then
    say "  making $n distinct 640x480 JPEGs in bench-out/list-src"
    "${TOOL[@]}" genlist "$LIST_SRC" "$n" 640 480 >/dev/null
  fi
  command -v curl >/dev/null || { say "  curl missing: n/a"; verdict "thumbs run / max(download, local)" n/a le 1.15; return 0; }
  local PORT
  start_server "$LIST_SRC" "$d/port" "$d/server.log"
  trap stop_server EXIT
  LIST_URL="http://127.0.0.1:$PORT/v2/list?limit=100"
  LIST_PAIRS=$d/pairs
  local f
  for f in "$LIST_SRC"/*.jpg; do printf '%s http://127.0.0.1:%s/img/%s\n' "$d/dl/${f##*/}" "$PORT" "${f##*/}"; done >"$LIST_PAIRS"
  for f in "$LIST_SRC"/*.jpg; do
    printf 'url = "http://127.0.0.1:%s/img/%s"\noutput = "%s"\n' "$PORT" "${f##*/}" "$d/dl/${f##*/}"
  done >"$LIST_PAIRS.curl"

  local tools=(curl) t r
  if have_thumbs; then tools=(url curl local); else echo "n/a" >"$d/status.url"; echo "n/a" >"$d/status.local"; fi
  for ((r = 1 - WARMUP; r <= ROUNDS; r++)); do
    local order; mapfile -t order < <(rotate "$r" "${tools[@]}")
    for t in "${order[@]}"; do
      [[ -f $d/status.$t ]] && continue
      local o=$d/out-$t s cnt
      [[ $t == curl ]] && o=$d/dl
      rm -rf "$o"; mkdir -p "$o"
      curl -s -o /dev/null "http://127.0.0.1:$PORT/stats?reset=1" || true
      if s=$(timed "$d/log.$t" "list_cmd_$t" "$o"); then
        curl -s -o "$d/stats.$t" "http://127.0.0.1:$PORT/stats" || true
        cnt=$(count_jpegs "$o")
        if ((cnt != n)); then
          say "  $t: made $cnt of $n files"; show_log_tail "$d/log.$t"; echo "n/a" >"$d/status.$t"; continue
        fi
        ((r >= 1)) && echo "$s" >>"$d/times.$t"
      else
        say "  $t: failed (exit status $?) -- reported as n/a"; show_log_tail "$d/log.$t"
        echo "n/a" >"$d/status.$t"
      fi
    done
  done
  stop_server
  rm -rf "$d"/out-* "$d/dl"

  declare -A sec
  printf '\n  %-46s %10s %10s\n' "run" "images/s" "seconds"
  for t in url curl local; do
    if [[ -f $d/status.$t ]]; then sec[$t]=$(cat "$d/status.$t"); else sec[$t]=$(median "$d/times.$t"); fi
    local label
    case $t in
    url) label="(a) thumbs run URL --download-jobs 16" ;;
    curl) label="(b) download only: curl --parallel-max 16" ;;
    local) label="(c) thumbs run on the same files, local" ;;
    esac
    printf '  %-46s %10s %10s\n' "$label" "$(is_num "${sec[$t]}" && calc "$n / ${sec[$t]}" || echo "${sec[$t]}")" "${sec[$t]}"
  done
  say "  server side, last round: requests and the most in flight at once"
  for t in url curl local; do
    [[ -s $d/stats.$t ]] && printf '  %-46s %s\n' "  $t" "$(cat "$d/stats.$t")"
  done
  say ""
  local ratio="n/a"
  if is_num "${sec[url]}" && is_num "${sec[curl]}" && is_num "${sec[local]}"; then
    ratio=$(calc "${sec[url]} / max(${sec[curl]}, ${sec[local]})")
  fi
  verdict "thumbs run / max(download, local)" "$ratio" le 1.15
}

# ---------------------------------------------------------------- rerun

rerun_cmd() {
  "$THUMBS" run "$RERUN_SRC" --out "$RERUN_OUT" --size "$SIZE" --format jpeg --quality "$QUALITY" \
    --progress never --quiet
}

section_rerun() {
  local n=${RERUN_N:-10000} d=$OUT/rerun
  RERUN_SRC=$OUT/tiny-$n RERUN_OUT=$d/out
  header "no-op re-run: $n JPEGs 64x48 (1000 per folder), a first run, then the same command again without --force ($ROUNDS times, median)"
  tiny_corpus "$RERUN_SRC" "$n"
  if ! have_thumbs; then
    verdict "second run (s)" n/a le 2; verdict "second / first" n/a le 0.05; return 0
  fi
  rm -rf "$d"; mkdir -p "$d"
  local first="n/a" second="n/a" s r unchanged="n/a"
  if s=$(timed "$d/log.first" rerun_cmd); then
    first=$(calc "$s")
    for ((r = 1; r <= ROUNDS; r++)); do
      if s=$(timed "$d/log.second" rerun_cmd); then echo "$s" >>"$d/times.second"
      else say "  second run failed"; show_log_tail "$d/log.second"; break; fi
    done
    [[ -s $d/times.second ]] && second=$(median "$d/times.second")
    unchanged=$("${TOOL[@]}" stat "$RERUN_OUT" unchanged)
  else
    say "  first run failed -- reported as n/a"; show_log_tail "$d/log.first"
  fi
  local outs; outs=$(count_jpegs "$RERUN_OUT")
  rm -rf "$RERUN_OUT"
  printf '\n  %-46s %10s\n' "first run (s)" "$first"
  printf '  %-46s %10s\n' "second run, median (s)" "$second"
  printf '  %-46s %10s\n' "thumbnails present after the runs" "$outs"
  printf '  %-46s %10s\n' "stats.json counts.unchanged (second run)" "$unchanged"
  say ""
  local ratio="n/a"
  is_num "$first" && is_num "$second" && ratio=$(calc "$second / $first")
  verdict "second run (s)" "$second" le 2
  verdict "second / first" "$ratio" le 0.05
}

# ---------------------------------------------------------------- scale

scale_cmd() {
  /usr/bin/time -f %M -o "$SCALE_DIR/rss" "$THUMBS" run "$SCALE_SRC" --out "$SCALE_DIR/out" --size "$SIZE" \
    --format jpeg --quality "$QUALITY" --force --progress never --log-format json
}

section_scale() {
  local n=${SCALE_N:-100000}
  SCALE_SRC=$OUT/tiny-$n SCALE_DIR=$OUT/scale
  header "scale: $n JPEGs 64x48 (1000 per folder), one run with the report on"
  tiny_corpus "$SCALE_SRC" "$n"
  if ! have_thumbs || ! ensure_time; then
    verdict "peak RSS (MiB)" n/a le 300; verdict "manifest+stats+report writing (% of run)" n/a le 10; return 0
  fi
  rm -rf "$SCALE_DIR"; mkdir -p "$SCALE_DIR"
  local s rss="n/a" share="n/a" wall="n/a" line
  if s=$(timed "$SCALE_DIR/log" scale_cmd); then
    wall=$(calc "$s")
    rss=$(calc "$(tail -n1 "$SCALE_DIR/rss") / 1024")
    line=$("${TOOL[@]}" finish "$SCALE_DIR/log" "$wall")
    local secs pct keys
    IFS=$'\t' read -r secs pct keys <<<"$line"
    if is_num "$secs"; then share=$pct; say "  writing time from the finish event: $secs s ($keys)"; else say "  writing time: n/a ($pct)"; fi
  else
    say "  run failed -- reported as n/a"; show_log_tail "$SCALE_DIR/log"
  fi
  local outs; outs=$(count_jpegs "$SCALE_DIR/out")
  rm -rf "$SCALE_DIR/out"
  printf '\n  %-46s %10s\n' "wall (s)" "$wall"
  printf '  %-46s %10s\n' "images/s" "$(is_num "$wall" && calc "$n / $wall" || echo n/a)"
  printf '  %-46s %10s\n' "thumbnails written" "$outs"
  say ""
  verdict "peak RSS (MiB)" "$rss" le 300
  verdict "manifest+stats+report writing (% of run)" "$share" le 10
}

# ---------------------------------------------------------------- main

SECTIONS=()
(($#)) || set -- all
for a in "$@"; do
  case $a in
  all) SECTIONS+=(speed quality memory list rerun); [[ ${BENCH_SCALE:-0} == 1 ]] && SECTIONS+=(scale) ;;
  speed | quality | memory | list | rerun | scale) SECTIONS+=("$a") ;;
  -h | --help) usage ;;
  *) echo "unknown section: $a" >&2; usage ;;
  esac
done
is_num "$ROUNDS" && ((ROUNDS >= 1)) || { echo "ROUNDS must be a positive integer" >&2; exit 2; }

exec > >(tee "$OUT/bench-last.txt") 2>&1
: >"$VERDICTS"

header "machine"
say "  cores (nproc):   $NPROC"
say "  cpu:             $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
say "  memory:          $(awk '/MemTotal/ {printf "%.1f GiB", $2 / 1048576}' /proc/meminfo)"
say "  libvips:         $(vips --version 2>/dev/null || echo missing)"
say "  vipsthumbnail:   $(command -v vipsthumbnail >/dev/null && echo present || echo missing)"
say "  ImageMagick:     $(/usr/bin/mogrify -version 2>/dev/null | sed -n '1s/^Version: //p' || echo missing)"
say "  Pillow:          $("$PY" -c 'import PIL; print(PIL.__version__)' 2>/dev/null || echo missing)"
say "  djpeg:           $(djpeg -version 2>&1 | head -n1 || echo missing)"
say "  sections:        ${SECTIONS[*]}   rounds: $ROUNDS (+$WARMUP warm-up)"
say "  CPU busy now:    $(cpu_busy)% (other processes; should be near 0 for quotable timings)"
resolve_thumbs
if have_thumbs; then
  say "  thumbs:          $THUMBS ($THUMBS_NOTE) $("$THUMBS" --version 2>/dev/null | head -n1 || true)"
else
  say "  thumbs:          n/a -- $THUMBS_NOTE"
fi

BROKEN=()
for s in "${SECTIONS[@]}"; do
  snap=$(cpu_snapshot)
  set +e
  (
    set -e
    "section_$s"
  )
  rc=$?
  set -e
  load=$(other_load "$snap" "$(cpu_snapshot)")
  if [[ $s == quality ]]; then
    : # no timings in this section
  elif ((load >= 5)); then
    say "  WARNING: other processes used $load% of the CPUs during this section: its timings are not quotable"
    printf 'WARN   %s: other processes used %s%% of the CPUs (timings not quotable)\n' "$s" "$load" >>"$VERDICTS"
  else
    say "  (other processes used $load% of the CPUs during this section)"
  fi
  if ((rc != 0)); then
    say "  !! section $s stopped on a harness error (exit status $rc)"
    BROKEN+=("$s")
  fi
done

header "summary"
if [[ -s $VERDICTS ]]; then sed 's/^/  /' "$VERDICTS"; fi
((${#BROKEN[@]})) && say "  harness errors in: ${BROKEN[*]}"
say "  (full output: bench-out/bench-last.txt)"
if ((${#BROKEN[@]})); then exit 1; fi
if [[ ${BENCH_STRICT:-0} == 1 ]] && grep -q '^FAIL' "$VERDICTS"; then exit 1; fi
exit 0
