#!/usr/bin/env bash
# thumbs benchmark harness (see bench/README.md).
#
#   bash bench/bench.sh [all|SECTION]...
#
# Sections: speed outside progressive progdc quarter progmem srgb p3 rotated sizes placeholders
# quality memory tiff list lists rerun heic video raw camera, and scale lookalikes listmem;
# mergescale is scale's merge part alone (it also ends scale).
# Default: all = every section but the last three (+ scale when BENCH_SCALE=1);
# BENCH_SECTIONS=heic,video,raw names sections when the command line does not.
# Environment:
#   THUMBS_BIN   use this thumbs binary instead of `make build`'s
#   THUMBS_BEFORE_BIN  another thumbs binary (an earlier commit's release
#                build): every timed section runs it too, as `before`, in the
#                same rounds and the same rotation, so before and after are
#                compared in one run on one machine
#   ROUNDS       timed rounds per measurement [3]; medians are reported
#   WARMUP       untimed warm-up rounds before them [1]
#   PEER_BATCH   files per process for the xargs-driven peers [8]
#   CORPUS_N     images in the baseline speed corpus [120]
#   VARIANT_N    images in each derived corpus (progressive, progdc, srgb, p3,
#                rotated) and in the sizes section [60, at most CORPUS_N]
#   QUALITY_N    images per corpus in the quality section [12]
#   SRGB_ICC     sRGB profile to embed [libvips' built-in sRGB]
#   BENCH_SCALE  1 = include the slow 100,000-image section in `all`
#   BENCH_STRICT 1 = exit 1 when a target is missed (default: report only)
#   BENCH_NO_INSTALL 1 = never apt-get install a missing tool
#   RERUN_N, SCALE_N  image counts of the rerun / scale sections [10000, 100000]
#   SCALE_SMALL_N the scale section's small run, compared with SCALE_N [10000]
#   SCALE_CORPORA folder of the scale section's tiny-N corpora [bench-out]
#   MERGE_N, MERGE_SMALL_N, MERGE_SHARDS  the merge part of scale: items in the
#                two merges and shards [10000000, 1000000, 100]; needs numpy
#                and about 1.4 KB of disk per item while a merge runs
#   SCALE_MERGE  0 = the scale section leaves out its merge part [1]
#   MERGE_CACHE, MERGE_KEEP  where the shard sets are made [bench-out]; 1 =
#                keep them for the next bench [0]
#   MAKE_CORPUS  corpus script [../shared/bench/make-corpus.sh]
#   HEIC_N, VIDEO_N, RAW_N  files in the archive corpora [12, 9, 12]
#   HEIC_DIR     a folder of real phone HEICs (*.heic, *.HEIC; kept out of the
#                repository) the heic section also times at SIZE and BIG px
#                (heic-real, heic-real-big); unset, bench/heic-real.txt's 12
#                iPhone HEICs, fetched into bench-out/heic-real-src []
#   QUARTER_N    photos at 2000x1500 in the quarter section [30]
#   CAMERA_MIRRORS  git copies the camera section fetches its files from
#                before it tries GitHub [/work/.mirror]
#   CAMERA_COPIES  copies of each preview-carrying camera file in the camera
#                section's timed corpus [10]
# Work files and caches live in bench-out/ (git-ignored); corpora are kept.
# Results: bench-out/bench-last.txt (the console), results.md (the Markdown
# tables and the verdicts), results.json (every figure).
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
CORPUS=$OUT/corpus # make-corpus.sh output: at least CORPUS_N photos
CORPUS_N=${CORPUS_N:-120} CORPUS_W=4000 CORPUS_H=3000 CORPUS_Q=90
VARIANT_N=${VARIANT_N:-60}
((VARIANT_N <= CORPUS_N)) || VARIANT_N=$CORPUS_N
CORPUS_X10=$OUT/corpus-x10
((CORPUS_N == 120)) || CORPUS_X10=$OUT/corpus-x10-$CORPUS_N
SRGB_ICC=${SRGB_ICC:-$OUT/srgb-libvips.icc}
SIZE=256 QUALITY=80 BIG=1024
VERDICTS=$OUT/verdicts.txt
RESULTS=$OUT/results.tsv
RESULTS_MD=$OUT/results.md
CUR_SECTION=main
PY=python3
# a python3 with Pillow and numpy (pyenv's python3 may lack them; Debian's has them)
pick_python() {
  local p
  for p in python3 /usr/bin/python3; do
    if command -v "$p" >/dev/null && "$p" -c 'import PIL, numpy' 2>/dev/null; then PY=$p; return 0; fi
  done
  return 1
}
pick_python || true
TOOL=("$PY" "$BENCH/benchtool.py")

ALL_SECTIONS=(speed outside progressive progdc quarter progmem srgb p3 rotated sizes placeholders quality memory tiff list lists rerun heic video raw camera)
# Sections that run only when named (scale also with BENCH_SCALE=1 in all).
NAMED_SECTIONS=(scale lookalikes listmem)
usage() {
  local IFS='|'
  echo "usage: bash bench/bench.sh [all|${ALL_SECTIONS[*]}|${NAMED_SECTIONS[*]}|mergescale]..." >&2
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

# record SECTION KEY VALUE : one figure for results.json.
record() { printf '%s\t%s\t%s\n' "$1" "$2" "$3" >>"$RESULTS"; }
# md LINE : a Markdown line, printed (indented) and kept in results.md.
md() { printf '  %s\n' "$1"; printf '%s\n' "$1" >>"$RESULTS_MD"; }
md_title() { printf '\n### %s\n\n%s.\n' "$1" "$2" >>"$RESULTS_MD"; }
section_title_short() {
  case $1 in
  speed) echo "baseline, no profile" ;;
  progressive) echo "progressive, standard script" ;;
  progdc) echo "progressive, DC per component" ;;
  srgb) echo "baseline, sRGB profile" ;;
  p3) echo "Display P3, profile embedded" ;;
  rotated) echo "EXIF orientation 6" ;;
  sizes) echo "two sizes" ;;
  heic-thumb) echo "HEIC with a 320 px thumbnail" ;;
  heic) echo "HEIC without a thumbnail" ;;
  video) echo "video 1080p, H.264 and HEVC" ;;
  raw) echo "DNG with 1620 px and full-size JPEG previews" ;;
  raw-preview) echo "DNG, thumbs vs djpeg of its chosen preview" ;;
  *) echo "$1" ;;
  esac
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
  record verdicts "$label" "$res $value (target $sign $target)"
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
# count_outputs DIR : a tool's outputs: JPEGs, and the PPMs of dcraw_emu
count_outputs() { { find "$1" -type f \( -name '*.jpg' -o -name '*.jpeg' -o -name '*.ppm' \) 2>/dev/null || true; } | wc -l; }

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

# apt_install PKG... : install through apt (as root, or with sudo -n), quietly;
# one apt-get update and a retry when the first try fails.
apt_install() {
  [[ ${BENCH_NO_INSTALL:-0} == 1 ]] && return 1
  local sudo=()
  if [[ $(id -u) != 0 ]]; then sudo -n true 2>/dev/null && sudo=(sudo -n) || return 1; fi
  say "  (installing through apt: $*)"
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >/dev/null 2>&1 ||
    { "${sudo[@]}" apt-get update -qq >/dev/null 2>&1 &&
      "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >/dev/null 2>&1; }
}

# ensure_tools : the peers, the corpus tools and the python modules, installed
# through apt when missing (libvips-tools, libjpeg-turbo-progs, imagemagick,
# python3-pil, python3-numpy, time). What stays missing shows as n/a.
ensure_tools() {
  local pkgs=()
  command -v vips >/dev/null && command -v vipsthumbnail >/dev/null || pkgs+=(libvips-tools)
  command -v jpegtran >/dev/null && command -v djpeg >/dev/null || pkgs+=(libjpeg-turbo-progs)
  [[ -x /usr/bin/mogrify ]] || pkgs+=(imagemagick)
  pick_python || pkgs+=(python3-pil python3-numpy)
  [[ -x /usr/bin/time ]] || pkgs+=(time)
  if ((${#pkgs[@]})); then apt_install "${pkgs[@]}" || say "  (could not install: ${pkgs[*]})"; fi
  pick_python || true
  TOOL=("$PY" "$BENCH/benchtool.py")
}

ensure_time() { [[ -x /usr/bin/time ]] || apt_install time || true; [[ -x /usr/bin/time ]]; }

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
  say "building: make build (log: bench-out/build.log)"
  if make -C "$ROOT" build >"$OUT/build.log" 2>&1 && [[ -x $ROOT/.build/release/thumbs ]]; then
    THUMBS=$ROOT/.build/release/thumbs; THUMBS_NOTE="make build"
  else
    THUMBS_NOTE="release build failed (bench-out/build.log)"
    tail -n 15 "$OUT/build.log" | sed 's/^/  | /'
  fi
}
have_thumbs() { [[ -n $THUMBS ]]; }

# ---------------------------------------------------------------- corpora

# ensure_corpus : at least CORPUS_N make-corpus.sh photos in bench-out/corpus;
# sets BASE to a folder of exactly the first CORPUS_N (the corpus itself, or
# hard links in bench-out/corpus-firstN).
ensure_corpus() {
  local have
  have=$(count_jpegs "$CORPUS")
  if ((have < CORPUS_N)); then
    [[ -r $MAKE_CORPUS ]] || { say "corpus script not found: $MAKE_CORPUS"; return 1; }
    command -v vips >/dev/null || { say "the vips tool is missing (libvips-tools)"; return 1; }
    say "  making corpus: $CORPUS_N images ${CORPUS_W}x${CORPUS_H} in bench-out/corpus (slow, kept between runs)"
    bash "$MAKE_CORPUS" "$CORPUS" "$CORPUS_N" "$CORPUS_W" "$CORPUS_H" "$CORPUS_Q" >/dev/null
  fi
  have=$(count_jpegs "$CORPUS")
  ((have >= CORPUS_N)) || { say "corpus has $have images, expected $CORPUS_N"; return 1; }
  if ((have == CORPUS_N)); then BASE=$CORPUS; else BASE=$(ensure_first "$CORPUS_N"); fi
  cat "$BASE"/*.jpg >/dev/null # page cache warm: we time decoding, not the disk
}

# ensure_first N : print a folder holding the corpus' first N photos (hard links).
ensure_first() {
  local n=$1 dir=$OUT/corpus-first$1 files=("$CORPUS"/*.jpg) f
  if (($(count_jpegs "$dir") != n)); then
    rm -rf "$dir"; mkdir -p "$dir"
    for f in "${files[@]:0:n}"; do
      ln -f "$f" "$dir/" 2>/dev/null || cp "$f" "$dir/"
    done
  fi
  echo "$dir"
}

# make_variant KIND SRC DST : one file of a derived corpus.
make_variant() {
  case $1 in
  progressive) jpegtran -copy all -progressive -outfile "$3" "$2" ;;
  progdc) jpegtran -copy all -scans "$BENCH/scans-dc-per-component.txt" -outfile "$3" "$2" ;;
  srgb) "${TOOL[@]}" embed-icc "$2" "$3" "$SRGB_ICC" ;;
  p3) vips icc_transform "$2" "$3[Q=$CORPUS_Q]" p3 --input-profile srgb ;;
  rotated) "${TOOL[@]}" orient "$2" "$3" 6 ;;
  esac
}

# ensure_srgb_icc : the sRGB profile to embed (SRGB_ICC, or libvips' built-in
# one, taken from a small image transformed to it).
ensure_srgb_icc() {
  [[ -s $SRGB_ICC ]] && return 0
  local t; t=$(mktemp -d)
  vips crop "$CORPUS/photo_0001.jpg" "$t/c.v" 0 0 16 16
  vips icc_transform "$t/c.v" "$t/s.jpg" srgb --input-profile srgb
  "${TOOL[@]}" icc-extract "$t/s.jpg" "$SRGB_ICC"
  rm -rf "$t"
}

# ensure_variant KIND : print bench-out/corpus-KIND-N, made from the corpus'
# first VARIANT_N photos and kept (progressive / progdc / srgb / rotated are
# lossless rewrites of the same JPEG data; p3 is re-encoded after the colour
# conversion). Progress goes to stderr.
ensure_variant() {
  local kind=$1 src dir=$OUT/corpus-$1-$VARIANT_N f out
  ensure_corpus >&2
  src=$(ensure_first "$VARIANT_N")
  if [[ ! -f $dir/.complete ]]; then
    [[ $kind == srgb ]] && ensure_srgb_icc
    say "  making bench-out/corpus-$kind-$VARIANT_N ($VARIANT_N files, kept between runs)" >&2
    mkdir -p "$dir"
    for f in "$src"/*.jpg; do
      out=$dir/${f##*/}
      [[ -s $out ]] && continue
      make_variant "$kind" "$f" "$out.tmp.jpg" >&2 && mv "$out.tmp.jpg" "$out"
    done
    (($(count_jpegs "$dir") == VARIANT_N)) || { say "  corpus-$kind: made $(count_jpegs "$dir") of $VARIANT_N" >&2; return 1; }
    touch "$dir/.complete"
  fi
  echo "$dir"
}

ensure_corpus_x10() {
  ensure_corpus
  if (($(count_jpegs "$CORPUS_X10") != CORPUS_N * 10)); then
    say "  making the 10x corpus: $((CORPUS_N * 10)) distinct files (each corpus image 10 times, a distinct tag after EOI)"
    "${TOOL[@]}" variants "$BASE" "$CORPUS_X10" 10 >/dev/null
  fi
  (($(count_jpegs "$CORPUS_X10") == CORPUS_N * 10))
}

# tiny_corpus DIR COUNT : COUNT distinct 64x48 JPEGs, 1000 per folder, cached.
# A folder that already holds COUNT JPEGs (someone else's corpus, e.g. under
# SCALE_CORPORA) is used as it is, nothing written into it; a base.jpg next to
# the folder is the image copied, else bench-out/tiny-base.jpg.
tiny_corpus() {
  local dir=$1 count=$2 base=$OUT/tiny-base.jpg
  if [[ -f $dir/.complete && $(cat "$dir/.complete") == "$count" ]]; then return 0; fi
  if [[ -d $dir && $(count_jpegs "$dir") == "$count" ]]; then return 0; fi
  [[ -s ${dir%/*}/base.jpg ]] && base=${dir%/*}/base.jpg
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

# ---------------------------------------------------------------- speed machinery
#
# One runner for every speed-like section: speed_run times a set of tools over
# one corpus (rounds, warm-up, rotation, medians, CPU time, thumbs' peak RSS)
# and prints a Markdown table. The tools read these globals:
#   SP_SRC      the corpus folder          SP_REF  the untagged/plain twin (thumbs_ref)
#   SP_VT_OPTS  extra vipsthumbnail options   SP_IM_OPTS  extra mogrify options
#   SP_PIL_OPTS extra pillow_thumbs.py options
#   SP_BASE     the thumbs row the last column compares every other row with
# Results land in the associative arrays SEC IPS CPUMS RSS (per tool) of the
# calling section.

SP_SRC="" SP_REF="" SP_VT_OPTS="" SP_IM_OPTS="" SP_PIL_OPTS="" SP_BASE=thumbs
# SP_EXT: the extension of the files the peers are given (the archive
# sections' HEICs, clips and DNGs); SP_PAR: processes the xargs peers run at
# once (the archive sections: two, on any machine).
SP_EXT=jpg SP_PAR=$NPROC SP_THUMBS_OPTS=""

# with_rss RSSFILE CMD... : CMD, with its peak RSS (KiB) in RSSFILE when
# /usr/bin/time is there. For xargs and Pool(N) that is the largest single
# process (getrusage's ru_maxrss of the waited-for children), not their sum.
with_rss() {
  local rf=$1; shift
  if [[ -x /usr/bin/time ]]; then /usr/bin/time -f %M -o "$rf" "$@"; else "$@"; fi
}
thumbs_rss() { local rf=$1; shift; with_rss "$rf" "$THUMBS" "$@"; }
thumbs_common() { echo --format jpeg --quality "$QUALITY" --force --no-report --progress never --quiet; }
# speed_cmd_TOOL OUTDIR RSSFILE
# shellcheck disable=SC2086
speed_cmd_thumbs() { thumbs_rss "$2" run "$SP_SRC" --out "$1" --size "$SIZE" $SP_THUMBS_OPTS $(thumbs_common); }
speed_cmd_thumbs_ref() { thumbs_rss "$2" run "$SP_REF" --out "$1" --size "$SIZE" $(thumbs_common); }
speed_cmd_thumbs_two() { thumbs_rss "$2" run "$SP_SRC" --out "$1" --size "$SIZE" --size "$BIG" $(thumbs_common); }
speed_cmd_thumbs_big() { thumbs_rss "$2" run "$SP_SRC" --out "$1" --size "$BIG" $(thumbs_common); }
# `before` runs the same command as the section's own thumbs row with the
# earlier binary (THUMBS_BEFORE_BIN): bash's dynamic scope hands the local
# THUMBS to thumbs_rss.
speed_cmd_before() { local THUMBS=$THUMBS_BEFORE_BIN; "speed_cmd_${SP_BEFORE_OF:-thumbs}" "$@"; }
speed_cmd_thumbs_noph() { thumbs_rss "$2" run "$SP_SRC" --out "$1" --size "$SIZE" --no-placeholders $(thumbs_common); }
speed_cmd_vipsthumbnail() {
  # shellcheck disable=SC2086
  printf '%s\0' "$SP_SRC"/*.$SP_EXT |
    with_rss "$2" xargs -0 -P "$SP_PAR" -n "$PEER_BATCH" vipsthumbnail --vips-concurrency=1 -s "$SIZE" $SP_VT_OPTS -o "$1/%s.jpg[Q=$QUALITY,strip]"
}
speed_cmd_imagemagick() {
  # shellcheck disable=SC2086
  printf '%s\0' "$SP_SRC"/*.jpg |
    MAGICK_THREAD_LIMIT=1 with_rss "$2" xargs -0 -P "$NPROC" -n "$PEER_BATCH" /usr/bin/mogrify -path "$1" $SP_IM_OPTS \
      -define jpeg:size=$((SIZE * 2))x$((SIZE * 2)) -thumbnail "${SIZE}x${SIZE}" -sampling-factor 2x2 -quality "$QUALITY"
}
speed_cmd_pillow() {
  # shellcheck disable=SC2086
  with_rss "$2" "$PY" "$BENCH/pillow_thumbs.py" "$SP_SRC" "$1" --size "$SIZE" --quality "$QUALITY" --jobs "$NPROC" $SP_PIL_OPTS
}
speed_cmd_pillow_two() {
  with_rss "$2" "$PY" "$BENCH/pillow_thumbs.py" "$SP_SRC" "$1" --sizes "$BIG,$SIZE" --quality "$QUALITY" --jobs "$NPROC"
}
# The video peer: a poster frame as a user would take it by hand, FFmpeg
# seeking to 1 s (to the keyframe before it, then decoding up to 1 s; the
# decoder on one thread, as two run at once) and writing the frame upright
# as a PPM, then vipsthumbnail making the thumbnail of that.
speed_cmd_ffmpeg_vt() {
  printf '%s\0' "$SP_SRC"/*.$SP_EXT |
    with_rss "$2" xargs -0 -P "$SP_PAR" -n "$PEER_BATCH" sh -c '
      out=$1 size=$2 q=$3; shift 3
      for f; do
        p=$out/${f##*/}.ppm
        ffmpeg -nostdin -v error -threads 1 -ss 1 -i "$f" -frames:v 1 -y "$p" &&
          vipsthumbnail --vips-concurrency=1 -s "$size" -o "$out/%s.jpg[Q=$q,strip]" "$p" && rm -f "$p" || exit 255
      done' sh "$1" "$SIZE" "$QUALITY"
}
# The RAW peer: LibRaw's half-size development (no demosaicing: each 2x2
# CFA block is one RGB pixel), written as a PPM.
speed_cmd_dcraw() {
  printf '%s\0' "$SP_SRC"/*.$SP_EXT |
    with_rss "$2" xargs -0 -P "$SP_PAR" -n "$PEER_BATCH" sh -c '
      out=$1; shift
      for f; do dcraw_emu -h -Z "$out/${f##*/}.ppm" "$f" || exit 255; done' sh "$1"
}
speed_cmd_floor() {
  printf '%s\0' "$SP_SRC"/*.jpg | xargs -0 -P "$NPROC" -n 1 djpeg -scale 1/8 -outfile /dev/null
}
# The RAW section's preview floor: djpeg decoding, at the scale thumbs
# decodes it at, the JPEG preview thumbs chose in each RAW (RAW_PREVIEWS/scales,
# "S FILE" lines, written by benchtool.py raw-previews), SP_PAR at once.
speed_cmd_raw_djpeg() {
  local s
  for s in $(cut -d' ' -f1 "$RAW_PREVIEWS/scales" | sort -u); do
    awk -v s="$s" '$1 == s { sub(/^[0-9]+ /, ""); printf "%s%c", $0, 0 }' "$RAW_PREVIEWS/scales" |
      xargs -0 -P "$SP_PAR" -n 1 djpeg -scale "1/$s" -outfile /dev/null
  done
}

speed_label() {
  case $1 in
  thumbs) [[ -n $SP_THUMBS_OPTS ]] && echo "thumbs $SP_THUMBS_OPTS" || echo "thumbs (--jobs default = $NPROC)" ;;
  thumbs_ref) echo "${SP_REF_LABEL:-thumbs, the same photos untagged}" ;;
  before) echo "before: $(speed_label "${SP_BEFORE_OF:-thumbs}") with ${THUMBS_BEFORE_BIN##*/.build/}" ;;
  thumbs_two) echo "thumbs --size $SIZE --size $BIG" ;;
  thumbs_big) echo "thumbs --size $BIG alone" ;;
  thumbs_noph) echo "thumbs --no-placeholders" ;;
  vipsthumbnail) echo "vipsthumbnail${SP_VT_OPTS:+ $SP_VT_OPTS}, xargs -P$SP_PAR -n$PEER_BATCH" ;;
  imagemagick) echo "ImageMagick mogrify${SP_IM_OPTS:+ $SP_IM_OPTS}, xargs -P$NPROC -n$PEER_BATCH" ;;
  pillow) echo "Pillow draft+LANCZOS${SP_PIL_OPTS:+ $SP_PIL_OPTS}, Pool($NPROC)" ;;
  pillow_two) echo "Pillow $BIG (draft) then $SIZE from it, Pool($NPROC)" ;;
  floor) echo "decode floor: djpeg -scale 1/8 -P$NPROC" ;;
  ffmpeg_vt) echo "ffmpeg -ss 1 -i F -frames:v 1 (PPM), then vipsthumbnail, xargs -P$SP_PAR -n$PEER_BATCH" ;;
  dcraw) echo "LibRaw dcraw_emu -h (half-size PPM), xargs -P$SP_PAR -n$PEER_BATCH" ;;
  raw_djpeg) echo "djpeg -scale 1/S of each file's chosen preview (${RAW_PREVIEW_DESC:-}), xargs -P$SP_PAR -n1" ;;
  esac
}

speed_short() { [[ $1 == thumbs_two ]] && echo "thumbs two sizes" || echo thumbs; }

speed_available() {
  case $1 in
  thumbs*) have_thumbs ;;
  before) [[ -x ${THUMBS_BEFORE_BIN:-} ]] ;;
  vipsthumbnail) command -v vipsthumbnail >/dev/null ;;
  imagemagick) [[ -x /usr/bin/mogrify ]] ;;
  pillow*) "$PY" -c 'import PIL' 2>/dev/null ;;
  floor) command -v djpeg >/dev/null ;;
  ffmpeg_vt) command -v ffmpeg >/dev/null && command -v vipsthumbnail >/dev/null ;;
  dcraw) command -v dcraw_emu >/dev/null ;;
  raw_djpeg) command -v djpeg >/dev/null && [[ -s ${RAW_PREVIEWS:-}/scales ]] ;;
  esac
}

# images each tool must write (0: nothing checked)
speed_expect() {
  case $1 in
  floor | raw_djpeg) echo 0 ;;
  thumbs_two | pillow_two) echo $((2 * $2)) ;;
  before) speed_expect "${SP_BEFORE_OF:-thumbs}" "$2" ;;
  *) echo "$2" ;;
  esac
}

is_peer() { [[ $1 == vipsthumbnail || $1 == imagemagick || $1 == pillow || $1 == ffmpeg_vt || $1 == dcraw ]]; }

# speed_run KEY DIR N TOOLS... : time TOOLS over SP_SRC (N images) into DIR.
# The last timed round's outputs stay in DIR/out-TOOL (the caller removes them).
speed_run() {
  local key=$1 d=$2 n=$3 t r
  shift 3
  local tools=("$@") avail=()
  # With THUMBS_BEFORE_BIN, the earlier build runs beside the first thumbs row.
  if [[ -n ${THUMBS_BEFORE_BIN:-} ]]; then
    for t in "${tools[@]}"; do [[ $t == thumbs* ]] && { SP_BEFORE_OF=$t; tools+=(before); break; }; done
  fi
  declare -gA SEC=() IPS=() CPUMS=() RSS=()
  rm -rf "$d"; mkdir -p "$d"
  for t in "${tools[@]}"; do
    if speed_available "$t"; then avail+=("$t"); else echo missing >"$d/status.$t"; fi
  done
  for ((r = 1 - WARMUP; r <= ROUNDS; r++)); do
    local order; mapfile -t order < <(rotate "$r" "${avail[@]}")
    for t in "${order[@]}"; do
      [[ -f $d/status.$t ]] && continue # failed before: do not retry
      local o=$d/out-$t s got want
      rm -rf "$o" "$d/rss.$t.now"; mkdir -p "$o"
      if s=$(timed "$d/log.$t" "speed_cmd_$t" "$o" "$d/rss.$t.now"); then
        want=$(speed_expect "$t" "$n")
        if ((want)) && got=$(count_outputs "$o") && ((got != want)); then
          say "  $t: made $got of $want thumbnails"; show_log_tail "$d/log.$t"
          echo "error" >"$d/status.$t"; continue
        fi
        if ((r >= 1)); then
          echo "$s" >>"$d/times.$t"; cat "$d/log.$t.cpu" >>"$d/cpu.$t"
          [[ -s $d/rss.$t.now ]] && tail -n1 "$d/rss.$t.now" >>"$d/rss.$t"
        fi
      else
        say "  $t: failed (exit status $?)"; show_log_tail "$d/log.$t"
        echo "error" >"$d/status.$t"
      fi
    done
    ((r >= 1)) && say "  round $r/$ROUNDS done"
  done

  for t in "${tools[@]}"; do
    CPUMS[$t]="n/a" RSS[$t]="n/a"
    if [[ -f $d/status.$t ]]; then
      SEC[$t]=$(cat "$d/status.$t"); IPS[$t]=${SEC[$t]}
      [[ $t == thumbs* ]] && ! have_thumbs && { SEC[$t]="n/a"; IPS[$t]="n/a"; }
    else
      SEC[$t]=$(median "$d/times.$t")
      is_num "${SEC[$t]}" && IPS[$t]=$(calc "$n / ${SEC[$t]}") || IPS[$t]=${SEC[$t]}
      CPUMS[$t]=$(median "$d/cpu.$t")
      is_num "${CPUMS[$t]}" && CPUMS[$t]=$(calc "1000 * ${CPUMS[$t]} / $n")
      [[ -s $d/rss.$t ]] && RSS[$t]=$(calc "$(sort -n "$d/rss.$t" | tail -n1) / 1024")
    fi
    record "$key" "$t.label" "$(speed_label "$t")"
    record "$key" "$t.images_per_s" "${IPS[$t]}"
    record "$key" "$t.seconds" "${SEC[$t]}"
    record "$key" "$t.cpu_ms_per_image" "${CPUMS[$t]}"
    [[ $t == floor ]] || record "$key" "$t.peak_rss_mib" "${RSS[$t]}"
  done
  record "$key" images "$n"

  # the fastest peer (by wall clock) and thumbs' ratio to each
  FASTEST="" FASTEST_SEC=""
  for t in "${tools[@]}"; do
    is_peer "$t" && is_num "${SEC[$t]}" || continue
    if [[ -z $FASTEST_SEC ]] || [[ $(calc "1 if ${SEC[$t]} < $FASTEST_SEC else 0") == 1 ]]; then FASTEST=$t FASTEST_SEC=${SEC[$t]}; fi
  done
  md ""
  md "| $(section_title_short "$key") | images/s | seconds | CPU ms/image | peak RSS MiB | $(speed_short "$SP_BASE") / this (images/s) |"
  md "|---|---:|---:|---:|---:|---:|"
  for t in "${tools[@]}"; do
    local ratio="" base=$SP_BASE
    if [[ $t != "$base" ]] && is_num "${SEC[$t]}" && is_num "${SEC[$base]:-}"; then ratio=$(calc "${SEC[$t]} / ${SEC[$base]}"); fi
    [[ -n $ratio ]] && record "$key" "$t.thumbs_ratio" "$ratio"
    md "| $(speed_label "$t") | ${IPS[$t]} | ${SEC[$t]} | ${CPUMS[$t]} | $([[ $t == floor ]] || echo "${RSS[$t]}") | $ratio |"
  done
  md ""
  say "  (images/s and seconds: wall clock, medians of $ROUNDS; CPU ms/image: user+system time of all the tool's processes, median;"
  say "   peak RSS: largest over the rounds, /usr/bin/time; for xargs and Pool peers their largest single process; last column: images/s of $(speed_short "$SP_BASE") / of this tool)"
}

# speed_section KEY TITLE SRC N TOOLS... : header, corpus into the page cache,
# speed_run into bench-out/KEY.
speed_section() {
  local key=$1 title=$2 src=$3 n=$4
  shift 4
  header "$key: $title; $ROUNDS timed rounds after $WARMUP warm-up, tool order rotates each round; medians"
  md_title "$key" "$title"
  SP_SRC=$src
  cat "$src"/*.$SP_EXT >/dev/null # page cache warm: we time decoding, not the disk
  [[ -n $SP_REF ]] && cat "$SP_REF"/*.jpg >/dev/null
  speed_run "$key" "$OUT/$key" "$n" "$@"
}

# verdict_fastest KEY TARGET : thumbs / fastest peer, images/s.
verdict_fastest() {
  local rf="n/a"
  [[ -n $FASTEST ]] && is_num "${SEC[thumbs]}" && rf=$(calc "$FASTEST_SEC / ${SEC[thumbs]}")
  verdict "$1: thumbs / fastest peer (${FASTEST:-none})" "$rf" ge "$2"
}
info_floor() {
  local rfl="n/a"
  is_num "${SEC[floor]:-}" && is_num "${SEC[thumbs]}" && rfl=$(calc "${SEC[floor]} / ${SEC[thumbs]}")
  printf '  %-46s %10s\n' "thumbs / decode floor (no target here)" "$rfl"
}
verdict_floor() {
  local rfl="n/a"
  is_num "${SEC[floor]:-}" && is_num "${SEC[thumbs]}" && rfl=$(calc "${SEC[floor]} / ${SEC[thumbs]}")
  verdict "$1: thumbs / decode floor" "$rfl" "$2" "$3"
}

# ---------------------------------------------------------------- speed sections

section_speed() {
  ensure_corpus
  speed_section speed "$CORPUS_N JPEGs ${CORPUS_W}x${CORPUS_H} baseline 4:4:4 Q$CORPUS_Q, no profile -> ${SIZE} px JPEG Q$QUALITY" \
    "$BASE" "$CORPUS_N" thumbs vipsthumbnail imagemagick pillow floor
  rm -rf "$OUT/speed"/out-*
  verdict_fastest speed 1.15
  verdict_floor speed ge 0.85
}

# Placeholders, colour and perceptual hash (issue 11): thumbs as it runs by
# default against --no-placeholders on the baseline corpus. The perceptual
# hash is made in both (there is no switch for it): the ratio is the cost of
# ThumbHash, BlurHash and the average colour; the hash is one 32x32 resize
# and a 32x32 DCT of the rendition already in memory.
section_placeholders() {
  ensure_corpus
  speed_section placeholders "$CORPUS_N JPEGs baseline -> ${SIZE} px, placeholders and colour on (default) vs --no-placeholders" \
    "$BASE" "$CORPUS_N" thumbs thumbs_noph
  rm -rf "$OUT/placeholders"/out-*
  local ratio="n/a"
  is_num "${CPUMS[thumbs]}" && is_num "${CPUMS[thumbs_noph]}" && ratio=$(calc "${CPUMS[thumbs]} / ${CPUMS[thumbs_noph]}")
  record placeholders cpu_ratio "$ratio"
  verdict "placeholders: thumbs CPU/img default / --no-placeholders" "$ratio" le 1.03
}

# The work around the decoder (issue 38 part 1): the share of thumbs' CPU
# outside its JPEG decode, on OUTSIDE_N photos of the baseline corpus [60, the
# issue's count]. perf samples the whole process (start-up, reading, SHA-256,
# resizing, placeholders, writing, the manifest) on cpu-clock with call
# graphs; the decode is jpeg_dc_decode with all it calls (the DC scans, the
# pixels, the colour conversion). SHA-256 runs in libcrypto's assembly, which
# perf cannot unwind: its samples count as outside, as they are. OUTSIDE_ROUNDS
# profiles [5] alternate with the before binary's; the median is the figure.
# Needs perf (linux-perf) and perf_event_paranoid letting it sample.
section_outside() {
  local n=${OUTSIDE_N:-60} rounds=${OUTSIDE_ROUNDS:-5} d=$OUT/outside r b share
  header "outside: share of thumbs' CPU outside its JPEG decoder, $n baseline photos"
  md_title outside "$n JPEGs ${CORPUS_W}x${CORPUS_H} baseline -> ${SIZE} px: the share of thumbs' CPU outside its JPEG decoder (perf record -e cpu-clock -g; the decoder is jpeg_dc_decode with all it calls; median of $rounds profiles)"
  if ! command -v perf >/dev/null; then
    say "  perf not found (linux-perf): not measured"; md "perf not found: not measured"
    verdict "outside: CPU share outside the decoder (%)" "n/a" le 33.3
    return 0
  fi
  ((CORPUS_N >= n)) || n=$CORPUS_N
  ensure_corpus
  local dir; dir=$(ensure_first "$n")
  local bins=(thumbs)
  [[ -x ${THUMBS_BEFORE_BIN:-} ]] && bins+=(before)
  declare -A SHARES=()
  mkdir -p "$d"
  for ((r = 1; r <= rounds; r++)); do
    for b in "${bins[@]}"; do
      local bin=$THUMBS; [[ $b == before ]] && bin=$THUMBS_BEFORE_BIN
      rm -rf "$d/out"
      share="n/a"
      if perf record -q -e cpu-clock -F 4000 -g -o "$d/perf.data" "$bin" run "$dir" --out "$d/out" --size "$SIZE" $(thumbs_common) >"$d/perf.log" 2>&1; then
        share=$(perf report -i "$d/perf.data" --children --sort symbol --stdio -g none 2>/dev/null |
          awk '$3 == "[.]" && $4 == "jpeg_dc_decode" && !done { sub("%", "", $1); print 100 - $1; done = 1 }')
      fi
      is_num "$share" || { say "  perf failed -- see $d/perf.log"; show_log_tail "$d/perf.log"; share="n/a"; }
      SHARES[$b]+="$share "
    done
  done
  rm -rf "$d/out" "$d/perf.data"
  local outside="n/a" before="n/a"
  for b in "${bins[@]}"; do printf '%s\n' ${SHARES[$b]} >"$d/shares.$b"; done
  [[ ${SHARES[thumbs]} != *n/a* ]] && outside=$(median "$d/shares.thumbs")
  [[ -n ${SHARES[before]:-} && ${SHARES[before]} != *n/a* ]] && before=$(median "$d/shares.before")
  say "  thumbs, % of CPU outside the decoder, each profile: ${SHARES[thumbs]}"
  md "thumbs: **$outside%** of its CPU outside the decoder (target <= 33.3); each profile: ${SHARES[thumbs]}"
  if [[ -n ${SHARES[before]:-} ]]; then
    say "  before (${THUMBS_BEFORE_BIN##*/.build/}), each profile: ${SHARES[before]}"
    md "before (${THUMBS_BEFORE_BIN##*/.build/}): $before%; each profile: ${SHARES[before]}"
    record outside before_pct "$before"
  fi
  record outside pct "$outside"
  verdict "outside: CPU share outside the decoder (%)" "$outside" le 33.3
}

# Look-alike recall and false pairs (issue 11): bench/lookalikes.py makes
# variants of 20 photos and 1,000 distinct ones and reports per D.
section_lookalikes() {
  header "lookalikes: pHash recall per variant kind and false pairs among 1,000 distinct photos, per --similar D"
  md_title lookalikes "pHash recall per variant kind and false pairs among 1,000 distinct photos at 640x480 and at 600x400 (bench/lookalikes.py)"
  "$PY" -c 'import imagehash, pyvips' 2>/dev/null || "$PY" -m pip install -q imagehash pyvips >/dev/null 2>&1 || true
  local thumbs_arg=(); have_thumbs && thumbs_arg=(--thumbs "$THUMBS")
  # 640x480 is the size issue 11 names. make-corpus.sh draws its colour
  # field in 100-px cells, so there every photo has the same dark band along
  # its right and bottom edges (40 and 80 px), which pulls all the hashes
  # together; 600x400, the same recipe without the band, shows distinct
  # photos as a photo archive has them.
  local size log
  for size in 640x480 600x400; do
    log=$OUT/lookalikes-$size.log
    md ""
    md "#### $size"
    md ""
    if "${LOOKALIKES_PY:-$PY}" "$BENCH/lookalikes.py" --dir "$OUT/lookalikes-$size" --size "$size" "${thumbs_arg[@]}" >"$log" 2>&1; then
      while IFS= read -r line; do md "$line"; done <"$log"
    else
      say "  lookalikes.py --size $size failed -- see $log"; show_log_tail "$log"
    fi
  done
  # Real photographs (issue 22): bench/lookalikes-real.txt's photos from the
  # public test suites (git copies under LOOKALIKES_MIRRORS), thumbs' pHash,
  # and the D the rule chooses over them and the 600x400 set. The whole text
  # is bench-out/lookalikes-results.md (bench/ with BENCH_PUBLISH=1).
  local res=$OUT/lookalikes-results.md
  [[ ${BENCH_PUBLISH:-0} == 1 ]] && res=$BENCH/lookalikes-results.md
  log=$OUT/lookalikes-real.log
  md ""
  md "#### real photographs"
  md ""
  if ! have_thumbs; then
    say "  real photographs: no thumbs binary -- n/a"
  elif "${LOOKALIKES_PY:-$PY}" "$BENCH/lookalikes_real.py" --thumbs "$THUMBS" --mirrors "${LOOKALIKES_MIRRORS:-/work/.mirror}" \
    --dir "$OUT/lookalikes-real" --synthetic-log "$OUT/lookalikes-600x400.log" --out "$res" >"$log" 2>&1; then
    sed -n '1,/^## Synthetic set/p' "$log" | grep -v '^## Synthetic set' | while IFS= read -r line; do md "$line"; done
    say "  (written: ${res#"$ROOT"/})"
  else
    say "  lookalikes_real.py failed -- see $log"; show_log_tail "$log"
  fi
}

# Memory of a huge photo list (issue 14): bench/list_memory.sh.
section_listmem() {
  header "listmem: peak RSS of a ${LIST_N:-1000000}-entry photo list (--dry-run), local file and loopback URL"
  md_title listmem "peak RSS of a ${LIST_N:-1000000}-entry photo list (bench/list_memory.sh)"
  local log=$OUT/listmem.log
  THUMBS_BIN=$THUMBS bash "$BENCH/list_memory.sh" >"$log" 2>&1 || say "  list_memory.sh exited non-zero"
  while IFS= read -r line; do md "$line"; done <"$log"
}

# progressive_section KEY DESCRIPTION : a progressive corpus against the
# peers; targets: 5x the fastest peer, peak RSS <= 120 MiB.
progressive_section() {
  local key=$1 dir; dir=$(ensure_variant "$key")
  speed_section "$key" "$VARIANT_N JPEGs progressive, $2 -> ${SIZE} px" \
    "$dir" "$VARIANT_N" thumbs vipsthumbnail imagemagick pillow floor
  rm -rf "$OUT/$key"/out-*
  verdict_fastest "$key" 5
  verdict "$key: thumbs peak RSS (MiB)" "${RSS[thumbs]}" le 120
  info_floor
}

section_progressive() { progressive_section progressive "libjpeg's standard script (jpegtran -progressive, same pixels)"; }
section_progdc() { progressive_section progdc "one DC scan per component (jpegtran -scans bench/scans-dc-per-component.txt)"; }

# Photos of about 2000 px (issue 38, part 3): 1/8 would give 250 px, so a
# ${SIZE} px box needs the 1/4 scale. QUARTER_N make-corpus.sh photos at
# 2000x1500, baseline and the same progressive (jpegtran -progressive), each
# against vipsthumbnail and Pillow; target: 1.5x Pillow (images/s).
section_quarter() {
  local n=${QUARTER_N:-30} base prog f kind dir ratio
  base=$OUT/corpus-quarter-$n prog=$OUT/corpus-quarter-progressive-$n
  if (($(count_jpegs "$base") != n)); then
    [[ -r $MAKE_CORPUS ]] || { say "corpus script not found: $MAKE_CORPUS"; return 1; }
    say "  making bench-out/corpus-quarter-$n ($n photos 2000x1500, kept between runs)"
    bash "$MAKE_CORPUS" "$base" "$n" 2000 1500 "$CORPUS_Q" >/dev/null
  fi
  if [[ ! -f $prog/.complete ]]; then
    mkdir -p "$prog"
    for f in "$base"/*.jpg; do
      [[ -s $prog/${f##*/} ]] || { make_variant progressive "$f" "$prog/${f##*/}.tmp.jpg" && mv "$prog/${f##*/}.tmp.jpg" "$prog/${f##*/}"; }
    done
    touch "$prog/.complete"
  fi
  for kind in baseline progressive; do
    dir=$base; [[ $kind == progressive ]] && dir=$prog
    speed_section "quarter-$kind" "$n JPEGs 2000x1500 $kind, decoded at 1/4 -> ${SIZE} px" \
      "$dir" "$n" thumbs vipsthumbnail pillow
    rm -rf "$OUT/quarter-$kind"/out-*
    ratio="n/a"
    is_num "${SEC[pillow]}" && is_num "${SEC[thumbs]}" && ratio=$(calc "${SEC[pillow]} / ${SEC[thumbs]}")
    verdict "quarter-$kind: thumbs / Pillow (images/s)" "$ratio" ge 1.5
  done
}

# tagged_ratio KEY TARGET : thumbs' CPU per image on the tagged corpus / on the
# same photos untagged.
tagged_ratio() {
  local ratio="n/a"
  is_num "${CPUMS[thumbs]}" && is_num "${CPUMS[thumbs_ref]}" && ratio=$(calc "${CPUMS[thumbs]} / ${CPUMS[thumbs_ref]}")
  verdict "$1: thumbs CPU/img tagged / untagged" "$ratio" le "$2"
}

section_srgb() {
  local dir; dir=$(ensure_variant srgb)
  SP_REF=$(ensure_first "$VARIANT_N")
  SP_VT_OPTS="--export-profile srgb" SP_PIL_OPTS="--color-manage"
  speed_section srgb "$VARIANT_N JPEGs baseline with an sRGB profile embedded ($("${TOOL[@]}" icc-name "$SRGB_ICC"), APP2 added losslessly), vs the same files untagged -> ${SIZE} px" \
    "$dir" "$VARIANT_N" thumbs thumbs_ref vipsthumbnail imagemagick pillow floor
  rm -rf "$OUT/srgb"/out-*
  tagged_ratio srgb 1.03
}

section_p3() {
  local dir; dir=$(ensure_variant p3)
  SP_REF=$(ensure_first "$VARIANT_N")
  SP_VT_OPTS="--export-profile srgb" SP_PIL_OPTS="--color-manage"
  speed_section p3 "$VARIANT_N JPEGs converted to Display P3 (vips icc_transform p3, Q$CORPUS_Q 4:4:4, profile embedded), vs the sRGB originals untagged -> ${SIZE} px" \
    "$dir" "$VARIANT_N" thumbs thumbs_ref vipsthumbnail imagemagick pillow floor
  tagged_ratio p3 1.10
  # colour. The target: thumbs' P3 thumbnails against its thumbnails of the
  # sRGB originals, both lossless (PNG), so JPEG Q80 noise does not count.
  # Every tool's JPEG outputs against thumbs' JPEGs of the originals show
  # which tools manage colour (about 2-3 levels is resampling and encoder
  # noise; an unmanaged path is well above).
  local t line m mx c mad="n/a" pd=$OUT/p3/png
  if have_thumbs; then
    for t in p3 ref; do
      local from=$dir; [[ $t == ref ]] && from=$SP_REF
      "$THUMBS" run "$from" --out "$pd/$t" --size "$SIZE" --format png --force --no-report --progress never --quiet \
        >"$OUT/p3/log.png-$t" 2>&1 || { say "  thumbs --format png failed"; show_log_tail "$OUT/p3/log.png-$t"; }
    done
    IFS=$'\t' read -r mad mx c _ <<<"$("${TOOL[@]}" mad "$pd/p3" "$pd/ref")"
    record p3 thumbs.mad_png_vs_srgb_original "$mad"
  fi
  say ""
  md "| mean absolute difference from the sRGB originals' thumbnails (levels) | mean | worst image | images |"
  md "|---|---:|---:|---:|"
  md "| thumbs, lossless PNG vs PNG (the target) | $mad | ${mx:-n/a} | ${c:-n/a} |"
  for t in thumbs vipsthumbnail imagemagick pillow; do
    [[ -d $OUT/p3/out-$t && -d $OUT/p3/out-thumbs_ref ]] || continue
    line=$("${TOOL[@]}" mad "$OUT/p3/out-$t" "$OUT/p3/out-thumbs_ref")
    IFS=$'\t' read -r m mx c _ <<<"$line"
    md "| $(speed_label "$t"): JPEG Q$QUALITY vs thumbs' JPEG of the originals | $m | $mx | $c |"
    record p3 "$t.mad_jpeg_vs_thumbs_srgb_original" "$m"
  done
  md ""
  say "  (JPEG rows include resampling and encoder differences, ~2-3 levels; ImageMagick -thumbnail drops the profile"
  say "   unmanaged; Pillow --color-manage and vipsthumbnail --export-profile srgb transform to sRGB)"
  rm -rf "$OUT/p3"/out-* "$pd"
  verdict "p3: thumbs MAD vs sRGB original's thumbnail (levels)" "$mad" le 2
}

section_rotated() {
  local dir; dir=$(ensure_variant rotated)
  SP_IM_OPTS="-auto-orient" SP_PIL_OPTS="--exif-transpose"
  speed_section rotated "$VARIANT_N JPEGs baseline with EXIF Orientation 6 (the tag rewritten, same pixels) -> ${SIZE} px, upright" \
    "$dir" "$VARIANT_N" thumbs vipsthumbnail imagemagick pillow floor
  local portrait="n/a"
  [[ -d $OUT/rotated/out-thumbs ]] && portrait=$(find "$OUT/rotated/out-thumbs" -name '*.jpg' -exec vipsheader -f height {} + 2>/dev/null | awk -v s="$SIZE" '$1 == s {n++} END {print n + 0}')
  say "  thumbs outputs that came out upright (height $SIZE): $portrait of $VARIANT_N"
  record rotated thumbs.upright_outputs "$portrait"
  rm -rf "$OUT/rotated"/out-*
  local rf="n/a"
  [[ -n $FASTEST ]] && is_num "${SEC[thumbs]}" && rf=$(calc "$FASTEST_SEC / ${SEC[thumbs]}")
  printf '  %-46s %10s\n' "thumbs / fastest peer, ${FASTEST:-none} (no target)" "$rf"
  info_floor
}

section_sizes() {
  ensure_corpus
  local src; src=$(ensure_first "$VARIANT_N")
  SP_BASE=thumbs_two
  speed_section sizes "$VARIANT_N JPEGs baseline -> ${SIZE} and ${BIG} px in one run, vs Pillow making both from one decode, vs --size $BIG alone" \
    "$src" "$VARIANT_N" thumbs_two pillow_two thumbs_big thumbs
  rm -rf "$OUT/sizes"/out-*
  local r1="n/a" r2="n/a" r3="n/a"
  is_num "${SEC[thumbs_two]}" && is_num "${SEC[pillow_two]}" && r1=$(calc "${SEC[pillow_two]} / ${SEC[thumbs_two]}")
  is_num "${SEC[thumbs_two]}" && is_num "${SEC[thumbs_big]}" && r2=$(calc "${SEC[thumbs_two]} / ${SEC[thumbs_big]}")
  is_num "${CPUMS[thumbs_two]}" && is_num "${CPUMS[thumbs_big]}" && r3=$(calc "${CPUMS[thumbs_two]} / ${CPUMS[thumbs_big]}")
  printf '  %-46s %10s\n' "CPU: two sizes / --size $BIG alone" "$r3"
  record sizes cpu_two_over_big "$r3"
  verdict "sizes: thumbs two sizes / Pillow two sizes" "$r1" ge 1.15
  verdict "sizes: two sizes / --size $BIG alone (wall)" "$r2" le 1.15
}

# ---------------------------------------------------------------- archive files: HEIC, video, RAW
#
# Issue 22: an archive is not JPEG-only. Each of these sections makes its own
# corpus from the first photos of the bench corpus (kept in bench-out/) and
# times thumbs against the peer a user would reach for, two at a time on two
# cores (thumbs --jobs 2, the peers xargs -P2), at --size 256.

HEIC_N=${HEIC_N:-12} VIDEO_N=${VIDEO_N:-9} RAW_N=${RAW_N:-12}
ARCH_JOBS=2

# need_cmds SECTION CMD:PACKAGE... : every CMD present (installed through apt
# when it can be); otherwise one line naming what is missing, and status 1.
need_cmds() {
  local sec=$1 pair cmd pkg missing=()
  shift
  for pair in "$@"; do
    cmd=${pair%%:*} pkg=${pair#*:}
    command -v "$cmd" >/dev/null || apt_install "$pkg" || true
    command -v "$cmd" >/dev/null || missing+=("$cmd (Debian $pkg)")
  done
  ((${#missing[@]} == 0)) && return 0
  say "  $sec: ${missing[*]} missing: section skipped"
  return 1
}

# make_archive_file KIND INDEX SRC OUT : one file of an archive corpus from the
# corpus photo SRC (4000x3000 JPEG).
make_archive_file() {
  local kind=$1 i=$2 src=$3 out=$4
  case $kind in
  heic-thumb) heif-enc -q 50 -p preset=veryfast -t 320 -o "$out" "$src" ;;
  heic) heif-enc -q 50 -p preset=veryfast -o "$out" "$src" ;;
  raw) "${TOOL[@]}" dng "$src" "$out" "$(((i % 4 == 2)) && echo 6 || echo 1)" ;;
  video)
    # 3 s at 30 fps, 1080p: a slow pan across the photo with temporal grain
    # (every frame differs, as in a real clip), a keyframe every second.
    local vf="scale=2400:-2,crop=1920:1080:x='t*120':y='t*60',noise=alls=6:allf=t,format=yuv420p" tmp=$out.enc.${out##*.}
    local codec=(-c:v libx264 -preset veryfast -crf 20)
    [[ $out == *.mov ]] && codec=(-c:v libx265 -preset veryfast -crf 24 -tag:v hvc1 -x265-params log-level=error)
    ffmpeg -nostdin -v error -y -loop 1 -framerate 30 -i "$src" -t 3 -vf "$vf" "${codec[@]}" -g 30 -an "$tmp" || return 1
    if ((i % 3 == 2)); then # rotated by metadata (a phone held upright): a display matrix of 90 degrees
      if ffmpeg -hide_banner -h full 2>/dev/null | grep -q display_rotation; then
        ffmpeg -nostdin -v error -y -display_rotation 90 -i "$tmp" -c copy "$out" # FFmpeg >= 6
      else
        ffmpeg -nostdin -v error -y -i "$tmp" -c copy -metadata:s:v:0 rotate=90 "$out" # FFmpeg 5.1
      fi
      rm -f "$tmp"
    else
      mv "$tmp" "$out"
    fi
    ;;
  esac
}

# archive_name KIND INDEX : the file name of corpus file INDEX (1-based)
archive_name() {
  local n; n=$(printf %02d "$2")
  case $1 in
  heic*) echo "photo_$n.heic" ;;
  raw) echo "photo_$n.dng" ;;
  video) ((${2} % 3 == 0)) && echo "clip_${n}_hevc.mov" || echo "clip_${n}_h264.mp4" ;; # every third clip HEVC
  esac
}

# ensure_archive KIND N : print bench-out/corpus-KIND-N, made once and kept.
# Progress goes to stderr.
ensure_archive() {
  local kind=$1 n=$2 dir=$OUT/corpus-$1-$2 i f out made=0
  ((n <= CORPUS_N)) || { say "  $kind: $n files wanted, the corpus has $CORPUS_N (raise CORPUS_N)" >&2; return 1; }
  ensure_corpus >&2
  if [[ ! -f $dir/.complete ]]; then
    say "  making bench-out/corpus-$kind-$n ($n files, kept between runs; slow the first time)" >&2
    mkdir -p "$dir"
    local files=("$CORPUS"/*.jpg)
    for ((i = 1; i <= n; i++)); do
      out=$dir/$(archive_name "$kind" "$i")
      [[ -s $out ]] && { made=$((made + 1)); continue; }
      if make_archive_file "$kind" "$i" "${files[i - 1]}" "$out.tmp.${out##*.}" >&2 && [[ -s $out.tmp.${out##*.} ]]; then
        mv "$out.tmp.${out##*.}" "$out"; made=$((made + 1))
      else
        rm -f "$out".tmp.*; say "  $kind: could not make ${out##*/}" >&2
      fi
    done
    ((made == n)) || { say "  corpus-$kind: made $made of $n" >&2; return 1; }
    touch "$dir/.complete"
  fi
  echo "$dir"
}

# archive_section KEY KIND N EXT PEER TARGET TITLE : thumbs --jobs 2 against
# PEER over the corpus of KIND; verdicts: thumbs / PEER (wall clock) >= TARGET,
# thumbs' peak RSS <= 120 MiB. CPU ms per item of both sides beside the ratio.
archive_section() {
  local key=$1 kind=$2 n=$3 ext=$4 peer=$5 target=$6 title=$7 dir
  if ! dir=$(ensure_archive "$kind" "$n"); then
    say "  $key: no corpus -- n/a"
    verdict "$key: thumbs / $peer" n/a ge "$target"; verdict "$key: thumbs peak RSS at --jobs $ARCH_JOBS (MiB)" n/a le "$ARCH_RSS"
    return 0
  fi
  archive_dir_section "$key" "$dir" "$n" "$ext" "$peer" "$target" "$title"
}

# ARCH_RSS: the peak RSS (MiB) archive_dir_section holds thumbs to.
ARCH_RSS=120

# archive_dir_section KEY DIR N EXT PEER TARGET TITLE : archive_section's
# timing and verdicts over the N files *.EXT of the folder DIR.
archive_dir_section() {
  local key=$1 dir=$2 n=$3 ext=$4 peer=$5 target=$6 title=$7
  SP_EXT=$ext SP_PAR=$ARCH_JOBS SP_THUMBS_OPTS="--jobs $ARCH_JOBS"
  # The peer's files split evenly over its processes: with PEER_BATCH=8 and
  # 8 files, xargs -P2 gave all of them to one process, which then ran on one
  # core and made thumbs look twice as fast as it is.
  local PEER_BATCH=$(((n + ARCH_JOBS - 1) / ARCH_JOBS))
  speed_section "$key" "$title" "$dir" "$n" thumbs "$peer"
  local ratio="n/a" cpu="n/a" decoders
  is_num "${SEC[thumbs]}" && is_num "${SEC[$peer]}" && ratio=$(calc "${SEC[$peer]} / ${SEC[thumbs]}")
  is_num "${CPUMS[thumbs]}" && is_num "${CPUMS[$peer]}" && cpu=$(calc "${CPUMS[$peer]} / ${CPUMS[thumbs]}")
  # which decode paths thumbs took (the last round's stats.json; also after a
  # run that made too few thumbnails: files it ignored or failed show there)
  decoders=$(have_thumbs && "${TOOL[@]}" decoders "$OUT/$key/out-thumbs" || echo n/a)
  md "thumbs / $(speed_label "$peer" | cut -d, -f1): **$ratio** (wall clock; target >= $target); CPU ms per item: thumbs ${CPUMS[thumbs]}, peer ${CPUMS[$peer]} (peer / thumbs $cpu); thumbs peak RSS at --jobs $ARCH_JOBS: ${RSS[thumbs]} MiB (target <= $ARCH_RSS); thumbs decoded by: $decoders"
  md ""
  record "$key" thumbs_over_peer "$ratio"; record "$key" cpu_peer_over_thumbs "$cpu"; record "$key" thumbs.decoders "$decoders"
  rm -rf "$OUT/$key"/out-*
  verdict "$key: thumbs / $peer" "$ratio" ge "$target"
  printf '  %-46s %10s\n' "  CPU ms/item thumbs | $peer" "${CPUMS[thumbs]} | ${CPUMS[$peer]}"
  verdict "$key: thumbs peak RSS at --jobs $ARCH_JOBS (MiB)" "${RSS[thumbs]}" le "$ARCH_RSS"
}

section_heic() {
  need_cmds heic heif-enc:libheif-examples vipsthumbnail:libvips-tools || {
    verdict "heic-thumb: thumbs / vipsthumbnail" n/a ge 1.15; verdict "heic: thumbs / vipsthumbnail" n/a ge 1.0; return 0
  }
  archive_section heic-thumb heic-thumb "$HEIC_N" heic vipsthumbnail 1.15 \
    "$HEIC_N HEICs 4000x3000 with a 320 px thumbnail (heif-enc -q 50 -t 320, x265 preset veryfast) -> ${SIZE} px, two at a time"
  archive_section heic heic "$HEIC_N" heic vipsthumbnail 1.0 \
    "$HEIC_N HEICs 4000x3000 without a thumbnail (heif-enc -q 50) -> ${SIZE} px, two at a time"
  heic_real_sections
  return 0
}

# heic_real_sections: the phone HEICs of HEIC_DIR (else of
# bench/heic-real.txt, fetched), copied once to
# bench-out/corpus-heic-real (as photo_NN.heic: the peers' glob is one
# extension), at SIZE px (their embedded thumbnail serves) and at BIG px
# (the primary image: issue 38, part 5, asks >= 1.15x vipsthumbnail within
# 200 MiB at --jobs 2).
heic_real_sections() {
  local dir=$OUT/corpus-heic-real f i=0 from=${HEIC_DIR:-} label="HEIC_DIR"
  local files=()
  if [[ -z $from ]]; then
    # No HEIC_DIR: bench/heic-real.txt's iPhone HEICs, fetched once (from
    # CAMERA_MIRRORS' git copies, else GitHub) and checked by sha256.
    from=$OUT/heic-real-src label="bench/heic-real.txt"
    FETCH_EXT=heic bash "$BENCH/fetch_camera_previews.sh" "$from" "$BENCH/heic-real.txt" >/dev/null 2>"$OUT/heic-real-fetch.log" ||
      say "  heic-real: some of bench/heic-real.txt could not be had (bench-out/heic-real-fetch.log)"
  fi
  for f in "$from"/*; do [[ $f == *.[hH][eE][iI][cCfF] ]] && files+=("$f"); done
  if ((${#files[@]} == 0)); then
    say "  heic-real: no *.heic in $from -- n/a"
    verdict "heic-real-big: thumbs / vipsthumbnail" n/a ge 1.15; return 0
  fi
  rm -rf "$dir"; mkdir -p "$dir"
  for f in "${files[@]}"; do i=$((i + 1)); cp "$f" "$dir/$(printf photo_%02d.heic "$i")"; done
  archive_dir_section heic-real "$dir" "$i" heic vipsthumbnail 1.15 \
    "$i phone HEICs of $label (their embedded thumbnails) -> ${SIZE} px, two at a time"
  local SIZE=$BIG ARCH_RSS=200
  archive_dir_section heic-real-big "$dir" "$i" heic vipsthumbnail 1.15 \
    "$i phone HEICs of $label (the primary image) -> ${BIG} px, two at a time"
}

section_video() {
  need_cmds video ffmpeg:ffmpeg vipsthumbnail:libvips-tools || { verdict "video: thumbs / ffmpeg_vt" n/a ge 3; return 0; }
  archive_section video video "$VIDEO_N" "*" ffmpeg_vt 3 \
    "$VIDEO_N clips 1080p30, 3 s, a keyframe a second: H.264 .mp4 (x264) and every third HEVC .mov (x265), clips 2, 5, 8... rotated 90 by metadata -> ${SIZE} px poster, two at a time"
}

# What the raw corpus' files hold (its .complete says it): a corpus an
# earlier benchtool.py dng made, with other pictures, is made again.
RAW_CORPUS="benchtool.py dng: 256 px RGB IFD0; 1620 px and full-size JPEG previews"

# raw_corpus : print bench-out/corpus-raw-RAW_N, made as RAW_CORPUS says.
raw_corpus() {
  local dir=$OUT/corpus-raw-$RAW_N
  [[ -f $dir/.complete && $(cat "$dir/.complete") != "$RAW_CORPUS" ]] && rm -rf "$dir"
  dir=$(ensure_archive raw "$RAW_N") || return 1
  echo "$RAW_CORPUS" >"$dir/.complete"
  echo "$dir"
}

# The RAW section's verdicts (issue 35, section 3), in the order they print.
RAW_VERDICTS=("raw: thumbs / dcraw|ge|20" "raw: thumbs peak RSS at --jobs $ARCH_JOBS (MiB)|le|$ARCH_RSS"
  "raw: CPU per item, thumbs / djpeg of its preview|le|1.3" "raw: bytes read / file bytes|le|0.15"
  "raw: --whole-files thumbnails that differ|le|0" "raw: peak RSS, 100 DNGs at --jobs $ARCH_JOBS (MiB)|le|$ARCH_RSS"
  "raw: peak RSS, 100 DNGs / 10|le|1.15")
# raw_na FIRST : the verdicts from the FIRST-th on (0-based) as n/a.
raw_na() {
  local v a b c
  for v in "${RAW_VERDICTS[@]:$1}"; do IFS='|' read -r a b c <<<"$v"; verdict "$a" n/a "$b" "$c"; done
}

section_raw() {
  local dir
  need_cmds raw dcraw_emu:libraw-bin || { raw_na 0; return 0; }
  "$PY" -c 'import numpy, PIL' 2>/dev/null || { say "  raw: python3 with numpy and Pillow missing: section skipped"; raw_na 0; return 0; }
  dir=$(raw_corpus) || { say "  raw: no corpus -- n/a"; raw_na 0; return 0; }
  archive_dir_section raw "$dir" "$RAW_N" dng dcraw 20 \
    "$RAW_N DNGs 4000x3000 (benchtool.py dng: 12-bit RGGB raw, lossless JPEG; a 1620x1215 JPEG preview, Q90 4:2:2, and a full-size one, the photo's JPEG; a 256 px IFD0 RGB preview; every fourth orientation 6) -> ${SIZE} px, two at a time"
  raw_preview_section "$dir"
}

# raw_preview_section DIR : the RAW targets beside the speed against LibRaw
# (the thumbs row of the last speed_run is archive_dir_section's, over DIR).
# Untimed, thumbs runs over DIR as it does by default and with --whole-files:
# the share of the files' bytes it read, and whether --whole-files makes the
# same thumbnails (cmp). Then its peak RSS over 10 of the files and over 100
# (raw_copies), and the preview each of the 100 read shows it chose
# (benchtool.py raw-previews). Timed over the 100, as the camera section
# spreads thumbs' process start as over a card's hundreds of files: thumbs
# against djpeg decoding those previews at the scale thumbs decodes them at
# (CPU per item; djpeg's process start per file included).
raw_preview_section() {
  local dir=$1 n=$RAW_N d=$OUT/raw-read t files bytes_read bytes share chosen unmatched cpu12=${CPUMS[thumbs]}
  have_thumbs || { raw_na 2; return 0; }
  rm -rf "$d" "$OUT/raw-previews"; mkdir -p "$d"
  for t in partial whole; do
    # shellcheck disable=SC2046
    "$THUMBS" run "$dir" --out "$d/$t" --size "$SIZE" --jobs "$ARCH_JOBS" $([[ $t == whole ]] && echo --whole-files) \
      $(thumbs_common) >"$d/$t.log" 2>&1 || { say "  thumbs failed ($t)"; show_log_tail "$d/$t.log"; }
  done
  IFS=$'\t' read -r files bytes_read bytes share chosen unmatched < <(raw_previews "$d/partial" "$dir" "$d/previews")
  # --whole-files: the same thumbnails, byte for byte, and every one there
  local differ=0 f whole_decoders
  if (($(count_outputs "$d/partial/$SIZE") != n || $(count_outputs "$d/whole/$SIZE") != n)); then
    differ="n/a"
  else
    for f in "$d/partial/$SIZE"/*; do cmp -s "$f" "$d/whole/$SIZE/${f##*/}" || differ=$((differ + 1)); done
  fi
  whole_decoders=$("${TOOL[@]}" decoders "$d/whole")
  say "  thumbs read: $bytes_read of $bytes bytes ($share); the previews it chose: $chosen; files read whole: $unmatched; --whole-files decoded by: $whole_decoders"
  record raw bytes_read "$bytes_read"; record raw bytes "$bytes"; record raw read_share "$share"
  record raw previews "$chosen"; record raw whole_files_differ "$differ"
  rm -rf "$d"

  # Memory: 10 files, then 100 (rss_run: --jobs 2, report on); the 100's
  # manifest names the previews the timed rows decode.
  local x10 m=$OUT/raw-memory r10="n/a" r100="n/a" rr="n/a" chosen100="n/a"
  rm -rf "$m"; mkdir -p "$m"
  if ensure_time && x10=$(raw_copies "$dir"); then
    rss_run "$m/log10" "$m/rss10" "$dir-first10" "$m/out10" && r10=$(calc "$(tail -n1 "$m/rss10") / 1024") || show_log_tail "$m/log10"
    rss_run "$m/log100" "$m/rss100" "$x10" "$m/out100" && r100=$(calc "$(tail -n1 "$m/rss100") / 1024") || show_log_tail "$m/log100"
    is_num "$r10" && is_num "$r100" && rr=$(calc "$r100 / $r10")
    IFS=$'\t' read -r _ _ _ _ chosen100 _ < <(raw_previews "$m/out100" "$x10" "$OUT/raw-previews")
  fi
  record raw peak_rss_10_mib "$r10"; record raw peak_rss_100_mib "$r100"; record raw peak_rss_100_over_10 "$rr"
  rm -rf "$m"

  local SP_PAR=$ARCH_JOBS SP_THUMBS_OPTS="--jobs $ARCH_JOBS" SP_EXT=dng RAW_PREVIEWS=$OUT/raw-previews RAW_PREVIEW_DESC=$chosen100
  local cpu="n/a" over12="n/a"
  if [[ -n ${x10:-} ]]; then
    speed_section raw-preview "the 100 DNGs of raw_copies (each of the first 10 ten times, distinct bytes after its data): thumbs --jobs $ARCH_JOBS against djpeg decoding the preview thumbs chose in each at thumbs' scale ($chosen100) -> ${SIZE} px" \
      "$x10" 100 thumbs raw_djpeg
    rm -rf "$OUT/raw-preview"/out-*
    is_num "${CPUMS[thumbs]}" && is_num "${CPUMS[raw_djpeg]}" && cpu=$(calc "${CPUMS[thumbs]} / ${CPUMS[raw_djpeg]}")
    is_num "$cpu12" && is_num "${CPUMS[raw_djpeg]}" && over12=$(calc "$cpu12 / ${CPUMS[raw_djpeg]}")
  fi
  rm -rf "$OUT/raw-previews"
  record raw-preview cpu_thumbs_over_djpeg "$cpu"; record raw-preview cpu_thumbs12_over_djpeg "$over12"
  md "CPU per item, thumbs / djpeg of its chosen preview, 100 files: **$cpu** (target <= 1.3; thumbs ${CPUMS[thumbs]} ms, djpeg ${CPUMS[raw_djpeg]} ms; thumbs over the $n files alone, its process start spread over $n: $cpu12 ms, $over12); previews chosen: $chosen; bytes read: $bytes_read of $bytes (**$share**, target <= 0.15); --whole-files: thumbnails that differ **$differ** of $n (target 0; decoded by: $whole_decoders); thumbs peak RSS at --jobs $ARCH_JOBS, report on: 10 DNGs $r10 MiB, 100 DNGs **$r100** MiB (target <= $ARCH_RSS), 100 / 10 **$rr** (target <= 1.15)"
  md ""
  verdict "raw: CPU per item, thumbs / djpeg of its preview" "$cpu" le 1.3
  printf '  %-46s %10s\n' "  CPU ms/item thumbs | djpeg | thumbs, $n files" "${CPUMS[thumbs]} | ${CPUMS[raw_djpeg]} | $cpu12"
  verdict "raw: bytes read / file bytes" "$share" le 0.15
  verdict "raw: --whole-files thumbnails that differ" "$differ" le 0
  verdict "raw: peak RSS, 100 DNGs at --jobs $ARCH_JOBS (MiB)" "$r100" le "$ARCH_RSS"
  verdict "raw: peak RSS, 100 DNGs / 10" "$rr" le 1.15
}

# raw_previews OUT SRCDIR DST : benchtool.py raw-previews' line (files, bytes
# read, bytes, share, previews, unmatched; n/a when it fails).
raw_previews() {
  "${TOOL[@]}" raw-previews "$1" "$2" "$3" 2>"$3.err" || printf 'n/a\tn/a\tn/a\tn/a\tn/a\tn/a\n'
  [[ -s $3.err ]] && { say "  benchtool.py raw-previews:" >&2; show_log_tail "$3.err" >&2; }
  rm -f "$3.err"
}

# raw_copies DIR : print DIR-x10, 100 DNGs: each of DIR's first 10 ten times
# (a newline and a tag of its own length after the TIFF data: no two are
# duplicates), made once and kept (2 GB), again when those files change;
# and make DIR-first10, those 10 (hard links, each time).
raw_copies() {
  local dir=$1 ten=$1-first10 x10=$1-x10 files f k stamp
  files=("$dir"/*.dng)
  ((${#files[@]} >= 10)) || return 1
  files=("${files[@]:0:10}")
  rm -rf "$ten"; mkdir -p "$ten"
  for f in "${files[@]}"; do ln "$f" "$ten/" 2>/dev/null || cp "$f" "$ten/"; done
  stamp=$(stat -c '%n %s %Y' "${files[@]}" | cksum) # not ls -l: the links in DIR-first10 change its count
  if [[ ! -f $x10/.complete || $(cat "$x10/.complete") != "$stamp" ]]; then
    say "  making ${x10#"$ROOT"/} (100 DNGs, kept between runs)" >&2
    rm -rf "$x10"; mkdir -p "$x10"
    for f in "${files[@]}"; do
      for ((k = 0; k < 10; k++)); do
        { cat "$f"; printf '\nthumbs-bench-copy-%0*d\n' $((k + 1)) 0; } >"$x10/$(printf '%s_c%02d.dng' "$(basename "$f" .dng)" "$k")"
      done
    done
    echo "$stamp" >"$x10/.complete"
  fi
  echo "$x10"
}

# ---------------------------------------------------------------- camera JPEGs

# Issue 35, section 3, for camera JPEGs: real cameras' and phones' files (the
# lists bench/camera-previews.txt and bench/camera-folder.txt, public test
# images fetched by bench/fetch_camera_previews.sh into bench-out/, never into
# git). CAM_PREVIEW: the files that carry a preview covering the box (the
# list's `yes` lines); CAM_STRIPPED: the same files with every preview removed
# by exiftool (PreviewImage, ThumbnailImage, the MPF images), the same scan
# data: their thumbnails are the photos' own DC decode; CAM_FOLDER: a camera
# card's worth of files, with and without previews. Status 1, with a line,
# when the files cannot be had (offline, no git copy).
CAM_PREVIEW=$OUT/corpus-camera-preview CAM_STRIPPED=$OUT/corpus-camera-stripped CAM_FOLDER=$OUT/corpus-camera-folder
ensure_camera() {
  local log=$OUT/camera-fetch.log names=$OUT/camera-preview.names n f
  if ! bash "$BENCH/fetch_camera_previews.sh" "$CAM_PREVIEW" "$BENCH/camera-previews.txt" yes >"$names" 2>"$log" ||
    ! bash "$BENCH/fetch_camera_previews.sh" "$CAM_FOLDER" "$BENCH/camera-folder.txt" >/dev/null 2>>"$log"; then
    say "  camera: the camera files could not be had (offline? see bench-out/camera-fetch.log):"
    grep -v '^fetched' "$log" | sed -n '1,3s/^/      | /p'
    return 1
  fi
  # only the listed files: a name dropped from a list leaves the corpus
  for f in "$CAM_PREVIEW"/*.jpg; do grep -qxF "${f##*/}" "$names" || rm -f "$f"; done
  mkdir -p "$CAM_STRIPPED"
  while read -r n; do
    [[ -s $CAM_STRIPPED/$n && $CAM_STRIPPED/$n -nt $CAM_PREVIEW/$n ]] && continue
    rm -f "$CAM_STRIPPED/$n"
    exiftool -q -q -o "$CAM_STRIPPED/$n" -PreviewImage= -ThumbnailImage= -MPF:all= -trailer:all= "$CAM_PREVIEW/$n" ||
      { say "  camera: exiftool could not remove the previews of $n"; return 1; }
  done <"$names"
  for f in "$CAM_STRIPPED"/*.jpg; do grep -qxF "${f##*/}" "$names" || rm -f "$f"; done
}

# camera_cpu_ratio KEY : CPU ms per image of the stripped copies over thumbs'.
camera_cpu_ratio() {
  local r="n/a"
  is_num "${CPUMS[thumbs]}" && is_num "${CPUMS[thumbs_ref]}" && r=$(calc "${CPUMS[thumbs_ref]} / ${CPUMS[thumbs]}")
  record "$1" cpu_dc_over_preview "$r"
  echo "$r"
}

# camera_copies DIR C : print DIR-xC, a folder of C copies of each JPEG of
# DIR (NAME_cKK.jpg: the file, then a newline and a tag of KK + 1 zeros: no
# two copies have the same size, so thumbs does not take them for
# duplicates). Made again when DIR's files change.
CAMERA_COPIES=${CAMERA_COPIES:-10}
camera_copies() {
  local src=$1 c=$2 dst=$1-x$2 stamp f k
  stamp=$(cd "$src" && ls -l -- *.jpg | cksum)
  if [[ ! -f $dst/.complete || $(cat "$dst/.complete") != "$stamp" ]]; then
    rm -rf "$dst"; mkdir -p "$dst"
    for f in "$src"/*.jpg; do
      for ((k = 0; k < c; k++)); do
        { cat "$f"; printf '\nthumbs-bench-copy-%0*d\n' $((k + 1)) 0; } >"$dst/$(printf '%s_c%02d.jpg' "$(basename "$f" .jpg)" "$k")"
      done
    done
    echo "$stamp" >"$dst/.complete"
  fi
  echo "$dst"
}

# camera_copies_of DIR NAME : print the files of DIR that are NAME (a .jpg):
# NAME itself, or its copies NAME_cKK.jpg (camera_copies).
camera_copies_of() {
  local x
  for x in "$1/${2%.jpg}"{,_c[0-9][0-9]}.jpg; do [[ -f $x ]] && echo "$x"; done
  return 0
}

section_camera() {
  local v
  if ! need_cmds camera exiftool:libimage-exiftool-perl || ! ensure_camera; then
    for v in "camera-preview: CPU per image, DC / preview|ge|5" "camera-preview: bytes read / file bytes|le|0.20" \
      "camera-preview: PSNR vs Lanczos3 of full decode, worst (dB)|ge|25" "camera-preview: PSNR, median (dB)|ge|28" \
      "camera-folder: thumbs / pillow|ge|2" "camera-folder: thumbs peak RSS at --jobs 2 (MiB)|le|120"; do
      IFS='|' read -r a b c <<<"$v"; verdict "$a" n/a "$b" "$c"
    done
    return 0
  fi
  local n m ratio share q d=$OUT/camera-preview c=$CAMERA_COPIES t
  n=$(count_jpegs "$CAM_PREVIEW") m=$(count_jpegs "$CAM_FOLDER")
  # Bytes read and PSNR per file: one untimed run of thumbs over the files and
  # one over their stripped copies (JPEG Q80, the product's output), against
  # a Lanczos3 resize of the full decode.
  q=$OUT/camera-preview.quality
  : >"$q"
  if have_thumbs; then
    for t in preview stripped; do
      "$THUMBS" run "$([[ $t == preview ]] && echo "$CAM_PREVIEW" || echo "$CAM_STRIPPED")" --out "$d-quality/$t" --size "$SIZE" \
        $(thumbs_common) >"$d-quality.$t.log" 2>&1 || { say "  thumbs failed on the $t files"; show_log_tail "$d-quality.$t.log"; }
    done
    say "  thumbs decoded by: $("${TOOL[@]}" decoders "$d-quality/preview"); previews removed: $("${TOOL[@]}" decoders "$d-quality/stripped")"
    if "$PY" "$BENCH/camera_quality.py" "$CAM_PREVIEW" "$d-quality/preview" "$d-quality/stripped" "$OUT/camera-refs" >"$q" 2>"$q.err"; then
      md_title camera-preview-files "$n camera JPEGs that carry a covering preview: bytes read and PSNR per file"
      md ""
      grep '^|' "$q" | while IFS= read -r line; do md "$line"; done
    else
      say "  camera_quality.py failed"; show_log_tail "$q.err"; : >"$q"
    fi
  fi
  camera_fig() { local v; v=$(awk -v k="$1" '$1 == k {print $2}' "$q"); echo "${v:-n/a}"; }
  share=$(camera_fig share)
  for v in files served bytes bytes_read share preview_min preview_median dc_min dc_median dc_max served_share served_min served_median; do record camera-preview "$v" "$(camera_fig $v)"; done
  # The files a preview served (the manifest's partial reads).
  local names=()
  [[ -f $d-quality/preview/manifest.json ]] && mapfile -t names < <("$PY" -c 'import json, os, sys
for it in json.load(open(sys.argv[1]))["items"]:
    if (it.get("read") or {}).get("partial"): print(os.path.basename(it["source"]))' "$d-quality/preview/manifest.json")
  rm -rf "$d-quality"
  # Timed: CAMERA_COPIES copies of each file (distinct trailing bytes of
  # distinct lengths, so that no two are duplicates), so that thumbs' process
  # start is spread as over a card's hundreds of files.
  local pre=$CAM_PREVIEW ref=$CAM_STRIPPED each=""
  if ((c > 1)); then
    pre=$(camera_copies "$CAM_PREVIEW" "$c") ref=$(camera_copies "$CAM_STRIPPED" "$c") each=", each file $c times (distinct bytes after its EOI)"
  fi
  SP_REF=$ref SP_REF_LABEL="thumbs, the same files with their previews removed (the photo's DC decode)"
  speed_section camera-preview "$n real camera and phone JPEGs (2-13 MP) that carry a preview covering ${SIZE} px (maker note, MPF, Exif thumbnail; bench/camera-previews.txt)$each, vs the same with the previews removed (exiftool) -> ${SIZE} px" \
    "$pre" "$((n * c))" thumbs thumbs_ref
  ratio=$(camera_cpu_ratio camera-preview)
  rm -rf "$d"/out-*
  md "CPU per image with the previews removed / as the cameras wrote them: **$ratio** (target >= 5); served from a preview: $(camera_fig served) of $(camera_fig files); bytes read: $(camera_fig bytes_read) of $(camera_fig bytes) (**$share**, target <= 0.20); PSNR against a Lanczos3 resize of the full decode, thumbs as run: worst **$(camera_fig preview_min)** dB (target >= 25), median **$(camera_fig preview_median)** dB (target >= 28); thumbs' thumbnails of the photos' own decode (previews removed): $(camera_fig dc_min)-$(camera_fig dc_max) dB, median $(camera_fig dc_median); the files a preview served, alone: bytes read $(camera_fig served_share), PSNR worst $(camera_fig served_min) dB, median $(camera_fig served_median) dB"
  md ""
  # The files a preview served, alone: what the preview path gains where it
  # applies (no target; the row above counts every file that carries one).
  local served=$OUT/corpus-camera-served served_ref=$OUT/corpus-camera-served-stripped k=${#names[@]} f x
  local sratio="n/a"
  if ((k > 0 && k < n)); then
    rm -rf "$served" "$served_ref"; mkdir -p "$served" "$served_ref"
    for f in "${names[@]}"; do
      while IFS= read -r x; do ln "$x" "$served/${x##*/}" && ln "$ref/${x##*/}" "$served_ref/${x##*/}"; done < <(camera_copies_of "$pre" "$f")
    done
    SP_REF=$served_ref
    speed_section camera-preview-served "the $k of those $n files a preview served$each, vs the same with the previews removed -> ${SIZE} px (no target)" \
      "$served" "$((k * c))" thumbs thumbs_ref
    sratio=$(camera_cpu_ratio camera-preview-served)
    rm -rf "$OUT/camera-preview-served"/out-* "$served" "$served_ref"
  fi
  # What the worst-case PSNR target would cost (no target): the same files,
  # with those whose preview scored under 25 dB above taken without their
  # previews (so thumbs decodes their photos, as a rule refusing those
  # previews would), against the DC decode of all of them in the same rounds.
  local floor=$OUT/corpus-camera-floor25 floor_ratio="n/a" low=()
  mapfile -t low < <(awk '$1 == "file_psnr" && $3 ~ /^[0-9.]+$/ && $3 + 0 < 25 { print $2 }' "$q")
  if ((${#low[@]} > 0)); then
    rm -rf "$floor"; mkdir -p "$floor"
    for x in "$pre"/*.jpg; do ln "$x" "$floor/${x##*/}"; done
    for f in "${low[@]}"; do
      while IFS= read -r x; do ln -f "$x" "$floor/${x##*/}"; done < <(camera_copies_of "$ref" "$f")
    done
    SP_REF=$ref
    speed_section camera-preview-floor25 "the same $n files$each, with the ${#low[@]} whose preview scored under 25 dB (${low[*]}) decoded without it, vs all of them with the previews removed -> ${SIZE} px (no target: what the worst-case PSNR target would cost)" \
      "$floor" "$((n * c))" thumbs thumbs_ref
    floor_ratio=$(camera_cpu_ratio camera-preview-floor25)
    md "CPU per image with the previews removed / with only the previews under 25 dB removed: **$floor_ratio** (the row above's $ratio, had those previews been refused)"
    md ""
    rm -rf "$OUT/camera-preview-floor25"/out-* "$floor"
  fi
  SP_REF="" SP_REF_LABEL=""
  verdict "camera-preview: CPU per image, DC / preview" "$ratio" ge 5
  printf '  %-46s %10s\n' "  the $k files a preview served, alone (no target)" "$sratio"
  printf '  %-46s %10s\n' "  previews under 25 dB refused (no target)" "$floor_ratio"
  verdict "camera-preview: bytes read / file bytes" "$share" le 0.20
  verdict "camera-preview: PSNR vs Lanczos3 of full decode, worst (dB)" "$(camera_fig preview_min)" ge 25
  verdict "camera-preview: PSNR, median (dB)" "$(camera_fig preview_median)" ge 28
  printf '  %-46s %10s\n' "  DC decode's PSNR, worst | median | best (dB)" "$(camera_fig dc_min) | $(camera_fig dc_median) | $(camera_fig dc_max)"
  printf '  %-46s %10s\n' "  served alone: bytes read | PSNR worst | median" "$(camera_fig served_share) | $(camera_fig served_min) | $(camera_fig served_median)"

  # A camera card: thumbs --jobs 2 against Pillow (Pool(2)) and vipsthumbnail
  # (xargs -P2), the speed section's commands.
  local SP_PAR=$ARCH_JOBS SP_THUMBS_OPTS="--jobs $ARCH_JOBS" decoders pr="n/a" cr="n/a"
  speed_section camera-folder "$m real camera and phone JPEGs of $m models (bench/camera-folder.txt: 1-18 MP, with and without previews, as the cameras wrote them) -> ${SIZE} px" \
    "$CAM_FOLDER" "$m" thumbs pillow vipsthumbnail
  decoders=$(have_thumbs && "${TOOL[@]}" decoders "$OUT/camera-folder/out-thumbs" || echo n/a)
  is_num "${SEC[thumbs]}" && is_num "${SEC[pillow]}" && pr=$(calc "${SEC[pillow]} / ${SEC[thumbs]}")
  is_num "${CPUMS[thumbs]}" && is_num "${CPUMS[pillow]}" && cr=$(calc "${CPUMS[pillow]} / ${CPUMS[thumbs]}")
  md "thumbs / Pillow: **$pr** (images/s; target >= 2); CPU ms per image: thumbs ${CPUMS[thumbs]}, Pillow ${CPUMS[pillow]} (Pillow / thumbs $cr); thumbs peak RSS at --jobs $ARCH_JOBS: ${RSS[thumbs]} MiB (target <= 120); thumbs decoded by: $decoders"
  md ""
  record camera-folder thumbs_over_pillow "$pr"; record camera-folder cpu_pillow_over_thumbs "$cr"; record camera-folder thumbs.decoders "$decoders"
  rm -rf "$OUT/camera-folder"/out-*
  verdict "camera-folder: thumbs / pillow" "$pr" ge 2
  printf '  %-46s %10s\n' "  CPU ms/image thumbs | pillow" "${CPUMS[thumbs]} | ${CPUMS[pillow]}"
  verdict "camera-folder: thumbs peak RSS at --jobs $ARCH_JOBS (MiB)" "${RSS[thumbs]}" le 120
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
  local d=$OUT/quality f stem
  md_title quality "PSNR of ${SIZE} px thumbnails vs a Lanczos3 reference made from the full-resolution image ($n images per corpus)"
  rm -rf "$d/src" "$d/names.txt" "$d"/out-*; mkdir -p "$d"
  pick_names "$BASE" "$d" "$n"

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
  md ""
  md "| baseline corpus, mean PSNR, dB (higher is closer) | JPEG Q$QUALITY | lossless | JPEG KiB | size |"
  md "|---|---:|---:|---:|---|"
  for label in thumbs "vips thumbnail" "$L8" "$L4" "$LP" "$LM"; do
    [[ -n ${mj[$label]:-} || -n ${mp[$label]:-} ]] || continue
    md "| $label | ${mj[$label]:-n/a} | ${mp[$label]:-n/a} | ${kb[$label]:-n/a} | ${dims[$label]:-} |"
    record quality "speed.$label.jpeg_db" "${mj[$label]:-n/a}"
    record quality "speed.$label.lossless_db" "${mp[$label]:-n/a}"
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
  record quality speed.thumbs_db "${mj[thumbs]:-n/a}"
  record quality "speed.vips_thumbnail_db" "${mj[vips thumbnail]:-n/a}"
  verdict "thumbs - vips thumbnail, JPEG Q$QUALITY (dB)" "$diff" ge -0.5
  quality_variants "$n" "${mj[thumbs]:-n/a}" "${mj[vips thumbnail]:-n/a}" "$diff"
}

# pick_names SRCDIR D N : N photos spread evenly over SRCDIR, linked into
# D/src, their names in D/names.txt.
pick_names() {
  local files=("$1"/*.jpg) d=$2 n=$3 step i f
  rm -rf "$d/src" "$d/names.txt"; mkdir -p "$d/src"; : >"$d/names.txt"
  step=$((${#files[@]} / n))
  ((step >= 1)) || step=1
  for ((i = step / 2; i < ${#files[@]} && i / step < n; i += step)); do
    f=${files[i]}
    ln -f "$f" "$d/src/" 2>/dev/null || cp "$f" "$d/src/"
    basename "$f" >>"$d/names.txt"
  done
}

# quality_variants N : thumbs and `vips thumbnail` (JPEG Q80) on N photos of
# every derived corpus, against references made from the full-resolution
# file, turned upright and transformed to sRGB first (benchtool reference()).
# The progressive corpora share the baseline references (same pixels).
quality_variants() { # N BASELINE_THUMBS_DB BASELINE_VIPS_DB BASELINE_DIFF
  local n=$1 kind q=$OUT/quality VQ=()
  declare -A vdir=()
  for kind in progressive progdc srgb p3 rotated; do # made first: their progress lines stay out of the table
    vdir[$kind]=$(ensure_variant "$kind") || vdir[$kind]=""
  done
  say ""
  md "| corpus (JPEG Q$QUALITY, mean PSNR) | thumbs, dB | vips thumbnail, dB | thumbs - vips thumbnail, dB |"
  md "|---|---:|---:|---:|"
  md "| $(section_title_short speed) | $2 | $3 | $4 |"
  for kind in progressive progdc srgb p3 rotated; do
    local dir vd=$q/$kind ref=$q/ref-$kind vopts=() f stem label m rest
    [[ $kind == prog* ]] && ref=$q/ref
    [[ $kind == srgb || $kind == p3 ]] && vopts=(--export-profile srgb)
    dir=${vdir[$kind]}
    if [[ -z $dir ]]; then
      verdict "$kind: thumbs - vips thumbnail, JPEG Q$QUALITY (dB)" n/a ge -0.5; continue
    fi
    rm -rf "$vd"; mkdir -p "$vd/out-vips"
    pick_names "$dir" "$vd" "$n"
    local cands=()
    if have_thumbs && timed "$vd/log.thumbs" "$THUMBS" run "$vd/src" --out "$vd/out-thumbs" --size "$SIZE" \
      $(thumbs_common) >/dev/null; then
      cands+=("thumbs=$vd/out-thumbs/$SIZE")
    else
      have_thumbs && { say "  $kind: thumbs failed -- n/a"; show_log_tail "$vd/log.thumbs"; }
    fi
    while read -r -u 3 f; do
      stem=${f%.*}
      vips thumbnail "$vd/src/$f" "$vd/out-vips/$stem.jpg[Q=$QUALITY,strip]" "$SIZE" "${vopts[@]}"
    done 3<"$vd/names.txt"
    cands+=("vips thumbnail=$vd/out-vips")
    "${TOOL[@]}" psnr "$ref" "$vd/src" "$vd/names.txt" "${cands[@]}" --ext jpg >"$vd/psnr.tsv"
    local mt="n/a" mv="n/a" diff="n/a"
    while IFS=$'\t' read -r label m rest; do
      [[ $label == thumbs ]] && mt=$m
      [[ $label == "vips thumbnail" ]] && mv=$m
    done <"$vd/psnr.tsv"
    is_num "$mt" && is_num "$mv" && diff=$(calc "$mt - $mv")
    md "| $(section_title_short "$kind") | $mt | $mv | $diff |"
    record quality "$kind.thumbs_db" "$mt"
    record quality "$kind.vips_thumbnail_db" "$mv"
    rm -rf "$vd/out-thumbs" "$vd/out-vips"
    VQ+=("$kind|$diff")
  done
  md ""
  local e
  for e in "${VQ[@]}"; do verdict "${e%%|*}: thumbs - vips thumbnail, JPEG Q$QUALITY (dB)" "${e#*|}" ge -0.5; done
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
  if s1=$(timed "$d/t1" rss_run "$d/log1" "$d/rss1" "$BASE" "$d/out1"); then
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
  md_title memory "thumbs peak RSS at --jobs 2 (report on), $CORPUS_N images vs the same images x10"
  local i1 i2
  i1=$(is_num "$r1" && calc "$CORPUS_N / $s1" || echo n/a) i2=$(is_num "$r2" && calc "$CORPUS_N * 10 / $s2" || echo n/a)
  md ""
  md "| run | peak RSS MiB | images/s |"
  md "|---|---:|---:|"
  md "| $CORPUS_N images | $r1 | $i1 |"
  md "| $((CORPUS_N * 10)) images (x10) | $r2 | $i2 |"
  record memory x1.peak_rss_mib "$r1"; record memory x1.images_per_s "$i1"
  record memory x10.peak_rss_mib "$r2"; record memory x10.images_per_s "$i2"
  say ""
  verdict "peak RSS, $CORPUS_N images (MiB)" "$r1" le 120
  verdict "peak RSS x10 / x1" "$ratio" le 1.15
}

# ---------------------------------------------------------------- tiff

# A scan's memory (issue 34): 16-bit RGB TIFFs, uncompressed in strips, of
# about 100 MB and 2 GB, made once with libvips (noise around mid-grey, so no
# loader can take a shortcut over constant pixels). A source costs the memory
# of its decode, not of its size: thumbs streams the strips through libvips,
# as vipsthumbnail does. With THUMBS_BEFORE_BIN the earlier build runs too.
TIFF_SIZES=${TIFF_SIZES:-"5000x3340 23100x15480"}
# The 2 GB scan is 358 MP, past the default --max-pixels (16383 x 16383): a
# user with scans raises it, as this section does for both builds.
TIFF_MAX_PIXELS=${TIFF_MAX_PIXELS:-400000000}
section_tiff() {
  header "tiff: peak RSS and CPU of one 16-bit RGB TIFF scan -> ${SIZE} px, ~100 MB and ~2 GB"
  md_title tiff "one 16-bit RGB TIFF scan (uncompressed strips) -> ${SIZE} px: status, peak RSS and CPU per tool"
  need_cmds tiff vips:libvips-tools vipsthumbnail:libvips-tools || { verdict "tiff: thumbs peak RSS, 2 GB scan (MiB)" n/a le 250; return 0; }
  ensure_time || { verdict "tiff: thumbs peak RSS, 2 GB scan (MiB)" n/a le 250; return 0; }
  local d=$OUT/tiff dims w h src mb tool bin rss cpu st big_rss="n/a"
  md ""
  md "| scan | tool | result | peak RSS MiB | CPU s |"
  md "|---|---|---|---:|---:|"
  for dims in $TIFF_SIZES; do
    # each scan alone in its folder, which thumbs is given
    w=${dims%x*} h=${dims#*x} src=$d/src-$dims/scan-$dims.tif
    mkdir -p "$d/src-$dims"
    if [[ ! -s $src ]]; then
      say "  making $src (${w}x${h}, 16-bit RGB)"
      vips gaussnoise "$d/noise.v" "$w" "$h" --mean 32768 --sigma 12000 &&
        vips cast "$d/noise.v" "$d/grey.v" ushort &&
        vips bandjoin "$d/grey.v $d/grey.v $d/grey.v" "$d/rgb.v" &&
        vips copy "$d/rgb.v" "$src[compression=none,strip]" --interpretation rgb16 ||
        { say "  could not make $src"; rm -f "$src"; }
      rm -f "$d/noise.v" "$d/grey.v" "$d/rgb.v"
    fi
    [[ -s $src ]] || continue
    mb=$(calc "$(stat -c %s "$src") / 1048576")
    for tool in thumbs before vipsthumbnail; do
      case $tool in
      thumbs) have_thumbs || continue; bin=$THUMBS ;;
      before) [[ -x ${THUMBS_BEFORE_BIN:-} ]] || continue; bin=$THUMBS_BEFORE_BIN ;;
      esac
      rm -rf "$d/out"; mkdir -p "$d/out"
      if [[ $tool == vipsthumbnail ]]; then
        /usr/bin/time -f "%M %U %S" -o "$d/rss" vipsthumbnail --vips-concurrency=1 -s "$SIZE" -o "$d/out/%s.jpg[Q=$QUALITY,strip]" "$src" >"$d/log" 2>&1 && st=ok || st=failed
      else
        /usr/bin/time -f "%M %U %S" -o "$d/rss" "$bin" run "$d/src-$dims" --out "$d/out" --size "$SIZE" --format jpeg --quality "$QUALITY" \
          --max-pixels "$TIFF_MAX_PIXELS" --force --no-report --progress never --quiet >"$d/log" 2>&1 || true
        st=$("$PY" -c 'import json,sys; m=json.load(open(sys.argv[1])); print(" ".join(i.get("status","?") + ((": " + i["error"]["code"]) if i.get("error") else "") for i in m.get("items",[])) or "none")' "$d/out/manifest.json" 2>/dev/null || echo "no manifest")
      fi
      read -r rss u sy < <(tail -n1 "$d/rss")
      rss=$(calc "$rss / 1024"); cpu=$(calc "$u + $sy")
      md "| ${dims}, $mb MB | $tool | $st | $rss | $cpu |"
      record tiff "$dims.$tool.status" "$st"; record tiff "$dims.$tool.peak_rss_mib" "$rss"; record tiff "$dims.$tool.cpu_s" "$cpu"
      [[ $tool == thumbs && $dims == "${TIFF_SIZES##* }" && $st == ok ]] && big_rss=$rss
    done
    rm -rf "$d/out"
  done
  verdict "tiff: thumbs peak RSS, the largest scan (MiB)" "$big_rss" le 250
}

# ---------------------------------------------------------------- progmem

# Progressive JPEGs at every scale a box can ask for: 1/8 (DC scans), 1/4 and
# 1/2 (jpeg_prog.c keeps only the coefficients the reduced IDCT needs) and 1/1
# (libjpeg, every coefficient: more than the target can hold today).
section_progmem() {
  local dir; dir=$(ensure_variant progressive)
  header "progressive memory: thumbs peak RSS at --jobs 2 on $VARIANT_N progressive 12 MP JPEGs, one run per box size"
  if ! ensure_time || ! have_thumbs; then
    local size; for size in 256 512 1024 2048; do verdict "progressive --size $size: peak RSS (MiB)" n/a le 120; done
    return 0
  fi
  local d=$OUT/progmem size rss user sys mib cpu decoders
  rm -rf "$d"; mkdir -p "$d"
  cat "$dir"/*.jpg >/dev/null
  md_title progmem "thumbs peak RSS at --jobs 2 on $VARIANT_N progressive 12 MP JPEGs (4:4:4, libjpeg's standard script), one run per box size"
  md ""
  md "| --size | peak RSS MiB | CPU ms/img | decoded by |"
  md "|---:|---:|---:|---|"
  declare -A peak
  for size in 256 512 1024 2048; do
    if /usr/bin/time -f "%M %U %S" -o "$d/rss.$size" "$THUMBS" run "$dir" --out "$d/out" --jobs 2 --size "$size" --format jpeg \
      --quality "$QUALITY" --force --progress never --quiet >"$d/log.$size" 2>&1; then
      read -r rss user sys <"$d/rss.$size"
      mib=$(calc "$rss / 1024"); cpu=$(calc "($user + $sys) * 1000 / $VARIANT_N")
      decoders=$("${TOOL[@]}" decoders "$d/out")
    else
      say "  --size $size: run failed"; show_log_tail "$d/log.$size"; mib=n/a cpu=n/a decoders=n/a
    fi
    rm -rf "$d/out"
    peak[$size]=$mib
    md "| $size | $mib | $cpu | $decoders |"
    record progmem "size_$size.peak_rss_mib" "$mib"; record progmem "size_$size.cpu_ms_per_image" "$cpu"
  done
  say ""
  for size in 256 512 1024 2048; do verdict "progressive --size $size: peak RSS (MiB)" "${peak[$size]}" le 120; done
  say "  info: --size 2048 decodes at 1/1, where libjpeg holds every coefficient of the image (72 MB for 12 MP 4:4:4) before the first pixel"
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
  md_title list "$n JPEGs 640x480 from a Picsum-style list over loopback, 50 ms per response, pages of 100"
  md ""
  md "| run | images/s | seconds |"
  md "|---|---:|---:|"
  for t in url curl local; do
    if [[ -f $d/status.$t ]]; then sec[$t]=$(cat "$d/status.$t"); else sec[$t]=$(median "$d/times.$t"); fi
    local label
    case $t in
    url) label="(a) thumbs run URL --download-jobs 16" ;;
    curl) label="(b) download only: curl --parallel-max 16" ;;
    local) label="(c) thumbs run on the same files, local" ;;
    esac
    local ips; ips=$(is_num "${sec[$t]}" && calc "$n / ${sec[$t]}" || echo "${sec[$t]}")
    md "| $label | $ips | ${sec[$t]} |"
    record list "$t.images_per_s" "$ips"; record list "$t.seconds" "${sec[$t]}"
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

# ---------------------------------------------------------------- lists

# Photo lists of 12 MP JPEGs over a slow line (issue 24): a loopback server
# that paces every connection together through one LISTS_MBIT link, with
# Range honoured (as CDNs do) and ignored. Per corpus (libjpeg's standard
# progressive script, one DC scan per component as mozjpeg writes, and
# baseline): thumbs --whole-files (the reference thumbnails, and the time of
# downloading everything), then thumbs with partial downloads on each server.
LISTS_PIDS=()
start_paced_server() { # start_paced_server IMAGEDIR PORTFILE LOG [ARGS...] -> sets PORT
  local dir=$1 portfile=$2 log=$3 i
  shift 3
  rm -f "$portfile"
  "$PY" "$BENCH/slow_server.py" "$dir" --port-file "$portfile" --delay "${LIST_DELAY:-0.05}" \
    --rate-mbit "${LISTS_MBIT:-100}" "$@" >"$log" 2>&1 &
  LISTS_PIDS+=($!)
  for ((i = 0; i < 100; i++)); do
    [[ -s $portfile ]] && { PORT=$(cat "$portfile"); return 0; }
    sleep 0.1
  done
  say "  the paced server did not start:"; show_log_tail "$log"; return 1
}
stop_paced_servers() {
  local pid
  for pid in "${LISTS_PIDS[@]}"; do kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; done
  LISTS_PIDS=()
}
lists_cmd() { # lists_cmd OUT URL [ARGS...]
  local out=$1 url=$2
  shift 2
  "$THUMBS" run "$url" --out "$out" --size "$SIZE" --format png --download-jobs 8 \
    --force --no-report --progress never --quiet "$@"
}

section_lists() {
  local n=$VARIANT_N d=$OUT/lists mbit=${LISTS_MBIT:-100} kind
  header "photo lists over one ${mbit} Mbit/s link shared by all connections: $n 12 MP JPEGs per corpus, --size $SIZE, Range honoured and ignored; $ROUNDS rounds, medians"
  if ! have_thumbs; then
    for kind in progressive progdc; do
      verdict "lists $kind, Range: share of bytes" n/a le 0.25; verdict "lists $kind, no Range: share of bytes" n/a le 0.40
    done
    return 0
  fi
  rm -rf "$d"; mkdir -p "$d"
  ensure_corpus >/dev/null || { say "  no corpus"; return 0; }
  local base; base=$(ensure_first "$n")
  md_title lists "Photo lists of $n 12 MP JPEGs per corpus over one ${mbit} Mbit/s loopback link shared by all connections (bench/slow_server.py --rate-mbit), 50 ms per response, --size $SIZE, --download-jobs 8; link s = the whole files' bytes at ${mbit} Mbit/s"
  md ""
  md "| corpus | server | share of bytes | wall s | link s / wall s | requests per image | partial | worst PSNR dB (median) |"
  md "|---|---|---:|---:|---:|---:|---:|---|"
  trap stop_paced_servers EXIT
  for kind in progressive progdc baseline; do
    local dir
    case $kind in
    baseline) dir=$base ;;
    *) dir=$(ensure_variant "$kind") || { say "  no $kind corpus"; continue; } ;;
    esac
    local PORT ranged plain
    start_paced_server "$dir" "$d/port.$kind.r" "$d/server.$kind.r.log" --ranges || continue
    ranged=$PORT
    start_paced_server "$dir" "$d/port.$kind.n" "$d/server.$kind.n.log" || continue
    plain=$PORT
    local whole_bytes="" t label url s r
    for t in whole range norange; do
      case $t in
      whole) url="http://127.0.0.1:$ranged/v2/list?limit=100"; label="--whole-files (Range on)" ;;
      range) url="http://127.0.0.1:$ranged/v2/list?limit=100"; label="Range honoured" ;;
      norange) url="http://127.0.0.1:$plain/v2/list?limit=100"; label="Range ignored" ;;
      esac
      local o=$d/out-$kind-$t extra=()
      [[ $t == whole ]] && extra=(--whole-files)
      : >"$d/times.$kind.$t"
      for ((r = 1 - WARMUP; r <= ROUNDS; r++)); do
        rm -rf "$o"; mkdir -p "$o"
        if s=$(timed "$d/log.$kind.$t" lists_cmd "$o" "$url" "${extra[@]}"); then
          ((r >= 1)) && echo "$s" >>"$d/times.$kind.$t"
        else
          say "  $kind $t: failed"; show_log_tail "$d/log.$kind.$t"; break
        fi
      done
      local wall="n/a" share="n/a" linkratio="n/a" per="n/a" partial="n/a" quality="n/a"
      [[ -s $d/times.$kind.$t ]] && wall=$(median "$d/times.$kind.$t")
      if [[ -s $o/manifest.json ]]; then
        local received whole parts requests items
        read -r received whole parts requests items < <("${TOOL[@]}" downloads "$o")
        [[ $t == whole ]] && whole_bytes=$whole
        share=$(calc "$received / $whole")
        per=$(calc "$requests / $items")
        partial="$parts/$items"
        if is_num "$wall"; then linkratio=$(calc "$whole * 8 / ($mbit * 1e6) / $wall"); fi
        if [[ $t != whole ]]; then
          local worst median_psnr cnt
          read -r worst median_psnr cnt < <("${TOOL[@]}" psnr-dirs "$o" "$d/out-$kind-whole")
          quality="$worst ($median_psnr)"
          record lists "$kind.$t.worst_psnr" "$worst"
        fi
      fi
      md "| $kind | $label | $share | $wall | $linkratio | $per | $partial | $quality |"
      record lists "$kind.$t.share" "$share"; record lists "$kind.$t.seconds" "$wall"
      record lists "$kind.$t.link_over_wall" "$linkratio"; record lists "$kind.$t.requests_per_image" "$per"
      declare -g "LISTS_${kind}_${t}_share=$share" "LISTS_${kind}_${t}_wall=$wall" "LISTS_${kind}_${t}_ratio=$linkratio" \
        "LISTS_${kind}_${t}_psnr=${quality%% *}"
    done
    stop_paced_servers
  done
  trap - EXIT
  rm -rf "$d"/out-*
  say ""
  for kind in progressive progdc; do
    local v
    v="LISTS_${kind}_range_share"; verdict "lists $kind, Range: share of bytes" "${!v:-n/a}" le 0.25
    v="LISTS_${kind}_norange_share"; verdict "lists $kind, no Range: share of bytes" "${!v:-n/a}" le 0.40
    v="LISTS_${kind}_range_ratio"; verdict "lists $kind, Range: link s (whole) / wall s" "${!v:-n/a}" ge 3
    v="LISTS_${kind}_norange_ratio"; verdict "lists $kind, no Range: link s (whole) / wall s" "${!v:-n/a}" ge 3
    v="LISTS_${kind}_range_psnr"; verdict "lists $kind, Range: worst PSNR vs whole (dB)" "${!v:-n/a}" ge 40
    v="LISTS_${kind}_norange_psnr"; verdict "lists $kind, no Range: worst PSNR vs whole (dB)" "${!v:-n/a}" ge 40
  done
  local slower="n/a"
  if is_num "${LISTS_baseline_range_wall:-}" && is_num "${LISTS_baseline_whole_wall:-}"; then
    slower=$(calc "${LISTS_baseline_range_wall} / ${LISTS_baseline_whole_wall}")
  fi
  verdict "lists baseline: wall / --whole-files wall" "$slower" le 1.05
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
  md_title rerun "no-op re-run of $n JPEGs 64x48 without --force"
  md ""
  md "| no-op re-run, $n images | value |"
  md "|---|---:|"
  md "| first run (s) | $first |"
  md "| second run, median (s) | $second |"
  md "| thumbnails present after the runs | $outs |"
  md "| stats.json counts.unchanged (second run) | $unchanged |"
  record rerun first_seconds "$first"; record rerun second_seconds "$second"; record rerun unchanged "$unchanged"
  say ""
  local ratio="n/a"
  is_num "$first" && is_num "$second" && ratio=$(calc "$second / $first")
  verdict "second run (s)" "$second" le 2
  verdict "second / first" "$ratio" le 0.05
}

# ---------------------------------------------------------------- scale
#
# Issue 23: memory that does not grow with the number of photos. Two first
# runs (SCALE_SMALL_N and SCALE_N tiny distinct JPEGs, report on, JSON log),
# then the no-op re-run of each (the same command without --force). Every
# run is traced by bench/scale_probe.py (peak RSS as wait4 reports it, RSS,
# CPU and I/O each second); images/s at the start and the end of a first run
# come from its thumbnails' modification times (the first and the last 10 %).
# The corpora live in SCALE_CORPORA (default bench-out) as tiny-N.

SCALE_CORPORA=${SCALE_CORPORA:-$OUT}
probe() { "$PY" "$BENCH/scale_probe.py" "$@"; }

# scale_cmd DIR SRC [OPTION]... : one traced thumbs run over SRC into DIR/out.
scale_cmd() {
  local dir=$1 src=$2; shift 2
  probe trace "$dir/trace" -- "$THUMBS" run "$src" --out "$dir/out" --size "$SIZE" \
    --format jpeg --quality "$QUALITY" --progress never --log-format json "$@"
}

# judge VALUE le|ge TARGET : PASS, FAIL or n/a (for a table's result column;
# verdict records the same for the summary).
judge() {
  if ! is_num "$1" || ! is_num "$3"; then echo "n/a"; return 0; fi
  [[ $(calc "1 if $1 $([[ $2 == ge ]] && echo '>=' || echo '<=') $3 else 0") == 1 ]] && echo PASS || echo FAIL
}

# scale_size N LABEL : the first run and the no-op re-run over tiny-N; sets
# the globals R_<LABEL>_<figure> (n/a when a run failed).
scale_size() {
  local n=$1 tag=$2 src=$SCALE_CORPORA/tiny-$1 dir=$OUT/scale/$2 s t0 t1
  local wall=n/a cpu=n/a rss=n/a cpums=n/a ips=n/a ips0=n/a ips1=n/a before=n/a after=n/a outs=0
  local share=n/a group=n/a rwall=n/a rcpu=n/a rrss=n/a rshare=n/a rcshare=n/a unchanged=n/a rss10=n/a rss50=n/a rss90=n/a
  rm -rf "$dir"; mkdir -p "$dir"
  say "  $n images: reading the corpus once (page cache), then the first run"
  find "$src" -type f -name '*.jpg' -print0 | xargs -0 -n 4096 cat >/dev/null
  t0=$EPOCHREALTIME
  if s=$(timed "$dir/log.first" scale_cmd "$dir" "$src" --force); then
    t1=$EPOCHREALTIME
    cp "$dir/trace" "$dir/trace.first"
    # wall and CPU of thumbs itself, from the probe (wait4), not of the probe
    wall=$(probe end "$dir/trace" wall_s); cpu=$(probe end "$dir/trace" cpu_s)
    rss=$(probe peak "$dir/trace")
    read -r rss10 rss50 rss90 < <(probe rss-at "$dir/trace" 0.1 0.5 0.9) || true
    cpums=$(calc "$cpu * 1000 / $n"); ips=$(calc "$n / $wall")
    read -r outs before ips0 ips1 after < <(probe rates "$dir/out/$SIZE" "$t0" "$t1") || true
    group=$("${TOOL[@]}" field "$dir/log.first" groupSeconds)
    local line secs pct keys
    line=$("${TOOL[@]}" finish "$dir/log.first" "$wall")
    IFS=$'\t' read -r secs pct keys <<<"$line"
    is_num "$secs" && share=$pct
    say "    $wall s wall, $cpu s CPU ($cpums ms an image), peak $rss MiB (RSS at 10/50/90 % of the run: $rss10 / $rss50 / $rss90 MiB)"
    say "    $outs thumbnails; first after $before s, images/s over the first 10 %: $ips0, over the last 10 %: $ips1; $after s after the last one"
    local k v phases=""
    for k in discoverSeconds loadSeconds processSeconds groupSeconds writeSeconds; do
      v=$("${TOOL[@]}" field "$dir/log.first" "$k"); phases+=" ${k%Seconds} $v"
    done
    say "    finish event (s):$phases"
    cp "$dir/trace" "$OUT/scale-$n.trace"
    if [[ $tag == big ]]; then say "    where the time went (scale_probe.py timeline):"; probe timeline "$dir/trace" 10 | sed 's/^/  /'; fi
    say "  $n images: the no-op re-run (same command, no --force)"
    if s=$(timed "$dir/log.rerun" scale_cmd "$dir" "$src"); then
      rwall=$(probe end "$dir/trace" wall_s); rcpu=$(probe end "$dir/trace" cpu_s)
      rrss=$(probe peak "$dir/trace")
      rshare=$(calc "100 * $rwall / $wall"); rcshare=$(calc "100 * $rcpu / $cpu")
      unchanged=$("${TOOL[@]}" stat "$dir/out" unchanged)
      say "    $rwall s wall ($rshare % of the first run), $rcpu s CPU ($rcshare %), peak $rrss MiB, counts.unchanged $unchanged"
    else
      say "    re-run failed -- reported as n/a"; show_log_tail "$dir/log.rerun"
    fi
  else
    say "    run failed -- reported as n/a"; show_log_tail "$dir/log.first"
  fi
  say "    (removing the $n thumbnails)"
  rm -rf "$dir/out"
  local f
  for f in wall cpu rss cpums ips ips0 ips1 before after outs share group rwall rcpu rrss rshare rcshare unchanged rss10 rss50 rss90; do
    printf -v "R_${tag}_$f" '%s' "${!f}"
  done
}

section_scale() {
  local n=${SCALE_N:-100000} small=${SCALE_SMALL_N:-10000}
  header "scale: $small and $n JPEGs 64x48 (1000 per folder): a first run with the report on, then its no-op re-run"
  say "  ($NPROC cores; wall-clock figures swing by ~20 % between runs on this kind of machine, CPU seconds less)"
  tiny_corpus "$SCALE_CORPORA/tiny-$small" "$small"
  tiny_corpus "$SCALE_CORPORA/tiny-$n" "$n"
  if ! have_thumbs; then
    verdict "run peak RSS at $n images (MiB)" n/a le 150; verdict "no-op re-run / first run at $n images (%)" n/a le 5
    [[ ${SCALE_MERGE:-1} == 0 ]] || section_merge_scale
    return 0
  fi
  scale_size "$small" small
  scale_size "$n" big
  local growth=n/a ratio=n/a
  is_num "$R_big_rss" && is_num "$R_small_rss" && growth=$(calc "$R_big_rss - $R_small_rss")
  is_num "$R_big_ips0" && is_num "$R_big_ips1" && ratio=$(calc "$R_big_ips1 / $R_big_ips0")
  local group_res
  # the look-alike target (issue 13) is 1 s for 100,000 hashes; at another
  # size the figure is shown, not judged
  group_res=$( ((n == 100000)) && judge "$R_big_group" le 1 || echo "shown")
  md_title scale "thumbs run over $small and $n distinct JPEGs 64x48 (1000 per folder), report on, --log-format json; then the same command without --force (no-op re-run). $NPROC cores; wall clock swings ~20 % between runs"
  md ""
  md "| scale | $small images | $n images | target | result |"
  md "|---|---:|---:|---|---|"
  md "| first run: wall (s) | $R_small_wall | $R_big_wall | | |"
  md "| first run: CPU (s) | $R_small_cpu | $R_big_cpu | | |"
  md "| first run: CPU ms per image | $R_small_cpums | $R_big_cpums | | |"
  md "| first run: images/s | $R_small_ips | $R_big_ips | | |"
  md "| images/s over the first 10 % of thumbnails | $R_small_ips0 | $R_big_ips0 | | |"
  md "| images/s over the last 10 % of thumbnails | $R_small_ips1 | $R_big_ips1 | not slower at the end: last / first $ratio | shown |"
  md "| s before the first thumbnail (walk, previous run) | $R_small_before | $R_big_before | | |"
  md "| s after the last thumbnail (look-alikes, manifest, stats, report) | $R_small_after | $R_big_after | | |"
  md "| manifest + stats + report writing (% of the run, finish event) | $R_small_share | $R_big_share | ≤ 10 % | $(judge "$R_big_share" le 10) |"
  md "| look-alike grouping (s, finish event) | $R_small_group | $R_big_group | ≤ 1 s at 100000 | $group_res |"
  md "| thumbnails written | $R_small_outs | $R_big_outs | all | $([[ $R_big_outs == "$n" ]] && echo PASS || echo FAIL) |"
  md "| first run: peak RSS MiB | $R_small_rss | $R_big_rss | ≤ 150 | $(judge "$R_big_rss" le 150) |"
  md "| first run: RSS at 10 / 50 / 90 % of its time (MiB) | $R_small_rss10 / $R_small_rss50 / $R_small_rss90 | $R_big_rss10 / $R_big_rss50 / $R_big_rss90 | | |"
  md "| peak RSS, $n minus $small images (MiB) | | $growth | ≤ 30 | $(judge "$growth" le 30) |"
  md "| no-op re-run: wall (s) | $R_small_rwall | $R_big_rwall | | |"
  md "| no-op re-run: CPU (s) | $R_small_rcpu | $R_big_rcpu | | |"
  md "| no-op re-run: peak RSS MiB | $R_small_rrss | $R_big_rrss | | |"
  md "| no-op re-run: % of the first run, wall | $R_small_rshare | $R_big_rshare | ≤ 5 % | $(judge "$R_big_rshare" le 5) |"
  md "| no-op re-run: % of the first run, CPU | $R_small_rcshare | $R_big_rcshare | ≤ 5 % | $(judge "$R_big_rcshare" le 5) |"
  md "| no-op re-run: stats.json counts.unchanged | $R_small_unchanged | $R_big_unchanged | all | $([[ $R_big_unchanged == "$n" ]] && echo PASS || echo FAIL) |"
  local f
  for f in wall cpu rss cpums ips ips0 ips1 before after outs share group rwall rcpu rrss rshare rcshare unchanged; do
    local a="R_small_$f" b="R_big_$f"
    record scale "${f}_small" "${!a}"; record scale "$f" "${!b}"
  done
  record scale n "$n"; record scale small_n "$small"; record scale peak_rss_growth_mib "$growth"
  say ""
  verdict "run peak RSS at $n images (MiB)" "$R_big_rss" le 150
  verdict "run peak RSS, $n minus $small images (MiB)" "$growth" le 30
  verdict "no-op re-run / first run at $n images (%)" "$R_big_rshare" le 5
  # wall time is what the user waits for, but a first run slowed by other
  # work flatters it: the CPU share must hold too
  verdict "no-op re-run / first run at $n images, CPU (%)" "$R_big_rcshare" le 5
  verdict "manifest+stats+report writing (% of run)" "$R_big_share" le 10
  ((n == 100000)) && verdict "look-alike grouping of $n hashes (s)" "$R_big_group" le 1
  scale_paged_list
  [[ ${SCALE_MERGE:-1} == 0 ]] || section_merge_scale
}

# The list half of the scale section (issue 39, §3): a paginated photo list of
# 10,000 and of 1,000,000 entries over loopback, --dry-run, under
# /usr/bin/time (bench/paged_list_memory.sh): what ListReader keeps of the
# pages before must not grow with the list.
scale_paged_list() {
  local log=$OUT/scale-paged-list.log growth
  THUMBS_BIN=$THUMBS bash "$BENCH/paged_list_memory.sh" >"$log" 2>&1 || say "  paged_list_memory.sh exited non-zero"
  while IFS= read -r line; do say "$line"; done <"$log"
  md ""
  md "A paginated photo list over loopback, --dry-run (bench/paged_list_memory.sh):"
  md ""
  md '```'
  while IFS= read -r line; do md "$line"; done <"$log"
  md '```'
  growth=$(sed -n 's/^ *growth: +*\(-*[0-9.]*\) MiB.*/\1/p' "$log")
  record scale paged_list_growth_mib "${growth:-n/a}"
  verdict "paged list peak RSS, 1000000 minus 10000 entries (MiB)" "${growth:-n/a}" le 30
}

# Merge of synthetic shards (issue 23): MERGE_SHARDS shard manifests of
# MERGE_N items in all, and of MERGE_SMALL_N, made by bench/merge_shards.py
# (items shaped like a run's, run.shardOrder recorded, outputs hard links to
# a few real thumbnails), each merged once, traced by scale_probe.py: wall,
# CPU, peak RSS. Two sizes show whether the peak grows with the items (it
# must not) and whether the time is linear. Disk: about 1.3 KB per item while
# a size is on disk (the shards' manifests and links, the merged manifest,
# the merge's index). A shard set is made in MERGE_CACHE (default bench-out)
# as merge-shards-N-K and removed after its merge, unless MERGE_KEEP=1: then
# it stays and the next bench reuses it (making 10 million items takes
# about 15 minutes).
MERGE_CACHE=${MERGE_CACHE:-$OUT}

merge_cmd() {
  probe trace "$MERGE_DIR/trace" --watch "$MERGE_DIR/merged/.thumbs" --watch "$MERGE_DIR/merged/manifest.json" \
    --watch "$MERGE_DIR/merged/report.html" -- \
    "$THUMBS" merge "$MERGE_SHARDS_DIR"/shard-*/manifest.json --out "$MERGE_DIR/merged" --log-format json
}

# merge_size N K : MERGE_RESULT="wall rss cpu" (n/a when it failed).
merge_size() {
  local n=$1 shards=$2 s
  MERGE_DIR=$OUT/merge-$n MERGE_SHARDS_DIR=$MERGE_CACHE/merge-shards-$n-$shards
  rm -rf "$MERGE_DIR"; mkdir -p "$MERGE_DIR"
  if [[ ! -s $OUT/merge-template/manifest.json ]]; then
    rm -rf "$OUT/merge-template"; mkdir -p "$OUT/merge-template-src"
    cp "$OUT/tiny-base.jpg" "$OUT/merge-template-src/one.jpg" 2>/dev/null \
      || vips black "$OUT/merge-template-src/one.jpg" 64 48 --bands 3
    "$THUMBS" run "$OUT/merge-template-src" --out "$OUT/merge-template" --shard 0/1 --size "$SIZE" --progress never >/dev/null 2>&1
  fi
  if [[ -f $MERGE_SHARDS_DIR/.complete ]]; then
    say "  reusing the $shards shard manifests of $n items in ${MERGE_SHARDS_DIR#"$ROOT"/}"
  else
    say "  making $shards shard manifests of $n items in all (bench/merge_shards.py)"
    rm -rf "$MERGE_SHARDS_DIR"
    local g0=$SECONDS
    if ! "$PY" "$ROOT/bench/merge_shards.py" "$OUT/merge-template" "$MERGE_SHARDS_DIR" --items "$n" --shards "$shards" >"$MERGE_DIR/gen.log" 2>&1; then
      say "  generator failed -- reported as n/a"; tail -n 5 "$MERGE_DIR/gen.log"; MERGE_RESULT="n/a n/a n/a"
      rm -rf "$MERGE_DIR" "$MERGE_SHARDS_DIR"; return 0
    fi
    touch "$MERGE_SHARDS_DIR/.complete"
    say "    made in $((SECONDS - g0)) s"
  fi
  local input; input=$(du -cm "$MERGE_SHARDS_DIR"/shard-*/manifest.json | tail -n1 | cut -f1)
  if s=$(timed "$MERGE_DIR/log" merge_cmd); then
    local rss cpu wall out
    wall=$(probe end "$MERGE_DIR/trace" wall_s); cpu=$(probe end "$MERGE_DIR/trace" cpu_s)
    rss=$(probe peak "$MERGE_DIR/trace"); out=$(du -sm "$MERGE_DIR/merged" | cut -f1)
    say "  merged $n items from $shards shards ($input MB of shard manifests, $out MB written): $wall s wall, $cpu s CPU, peak $rss MiB"
    say "    where the time went (scale_probe.py timeline; .thumbs = the merge's index and spills):"
    probe timeline "$MERGE_DIR/trace" 12 | sed 's/^/  /'
    MERGE_RESULT="$wall $rss $cpu"
    cp "$MERGE_DIR/trace" "$OUT/merge-$n.trace"
    say "    (the whole trace: ${OUT#"$ROOT"/}/merge-$n.trace)"
  else
    say "  merge failed -- reported as n/a"; show_log_tail "$MERGE_DIR/log"; MERGE_RESULT="n/a n/a n/a"
  fi
  rm -rf "$MERGE_DIR"
  if [[ ${MERGE_KEEP:-0} != 1 ]]; then rm -rf "$MERGE_SHARDS_DIR"; fi
}

section_merge_scale() {
  local big=${MERGE_N:-10000000} small=${MERGE_SMALL_N:-1000000} shards=${MERGE_SHARDS:-100}
  header "scale: merge of $shards synthetic shards, $small and $big items"
  if ! have_thumbs || ! "$PY" -c 'import numpy' 2>/dev/null; then
    verdict "merge peak RSS at $big items (MiB)" n/a le 200; return 0
  fi
  local free_gb; free_gb=$(df -Pk "$OUT" | awk 'NR==2 {print int($4 / 1048576)}')
  if [[ ! -f $MERGE_CACHE/merge-shards-$big-$shards/.complete ]] && ((free_gb * 1000000000 < big * 1400 + 5000000000)); then
    say "  only $free_gb GB free under $OUT: the $big-item merge needs about $((big * 1400 / 1000000000 + 1)) GB -- skipped"
    verdict "merge peak RSS at $big items (MiB)" n/a le 200; return 0
  fi
  local ws rs cs wb rb cb
  merge_size "$small" "$shards"; read -r ws rs cs <<<"$MERGE_RESULT"
  merge_size "$big" "$shards"; read -r wb rb cb <<<"$MERGE_RESULT"
  local per_small="n/a" per_big="n/a" ratio="n/a" growth="n/a" cpu_small="n/a" cpu_big="n/a"
  is_num "$ws" && per_small=$(calc "$ws * 1e6 / $small")
  is_num "$wb" && per_big=$(calc "$wb * 1e6 / $big")
  is_num "$cs" && cpu_small=$(calc "$cs * 1e6 / $small")
  is_num "$cb" && cpu_big=$(calc "$cb * 1e6 / $big")
  is_num "$per_small" && is_num "$per_big" && ratio=$(calc "$per_big / $per_small")
  is_num "$rs" && is_num "$rb" && growth=$(calc "$rb - $rs")
  md_title merge-scale "thumbs merge of $shards synthetic shard manifests (run.shardOrder recorded, outputs hard links), $small and $big items. $NPROC cores; wall clock swings ~20 % between runs"
  md ""
  md "| merge of $shards shards | $small items | $big items | target | result |"
  md "|---|---:|---:|---|---|"
  md "| wall (s) | $ws | $wb | | |"
  md "| CPU (s) | $cs | $cb | | |"
  md "| wall per item (µs) | $per_small | $per_big | linear: $big / $small per item ≤ 1.3 (is $ratio) | $(judge "$ratio" le 1.3) |"
  md "| CPU per item (µs) | $cpu_small | $cpu_big | | |"
  md "| peak RSS MiB | $rs | $rb | ≤ 200 | $(judge "$rb" le 200) |"
  md "| peak RSS, $big minus $small items (MiB) | | $growth | ≤ 20 | $(judge "$growth" le 20) |"
  record merge_scale wall_seconds_small "$ws"; record merge_scale wall_seconds_big "$wb"
  record merge_scale cpu_seconds_small "$cs"; record merge_scale cpu_seconds_big "$cb"
  record merge_scale peak_rss_mib_small "$rs"; record merge_scale peak_rss_mib_big "$rb"
  record merge_scale items_small "$small"; record merge_scale items_big "$big"; record merge_scale shards "$shards"
  say ""
  verdict "merge peak RSS at $big items (MiB)" "$rb" le 200
  verdict "merge peak RSS growth from $small to $big items (MiB)" "$growth" le 20
  verdict "merge time per item, $big vs $small items (ratio)" "$ratio" le 1.3
}

# ---------------------------------------------------------------- main

SECTIONS=()
# BENCH_SECTIONS=heic,video,raw make bench: the sections, when none are named
# on the command line (make bench names none).
named=${BENCH_SECTIONS:-}
(($#)) || set -- ${named//,/ }
(($#)) || set -- all
for a in "$@"; do
  case $a in
  all) SECTIONS+=("${ALL_SECTIONS[@]}"); [[ ${BENCH_SCALE:-0} == 1 ]] && SECTIONS+=(scale) ;;
  mergescale) SECTIONS+=(merge_scale) ;;
  -h | --help) usage ;;
  *)
    # One list of the sections: ALL_SECTIONS and NAMED_SECTIONS.
    known=0
    for listed in "${ALL_SECTIONS[@]}" "${NAMED_SECTIONS[@]}"; do [[ $a == "$listed" ]] && known=1; done
    ((known)) || { echo "unknown section: $a" >&2; usage; }
    SECTIONS+=("$a") ;;
  esac
done
is_num "$ROUNDS" && ((ROUNDS >= 1)) || { echo "ROUNDS must be a positive integer" >&2; exit 2; }
is_num "$VARIANT_N" && ((VARIANT_N >= 1)) || { echo "VARIANT_N must be a positive integer" >&2; exit 2; }

exec > >(tee "$OUT/bench-last.txt") 2>&1
: >"$VERDICTS"
: >"$RESULTS"
: >"$RESULTS_MD"
BENCH_T0=$SECONDS

header "machine"
ensure_tools
busy=$(cpu_busy)
say "  cores (nproc):   $NPROC"
say "  cpu:             $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
say "  memory:          $(awk '/MemTotal/ {printf "%.1f GiB", $2 / 1048576}' /proc/meminfo)"
say "  libvips:         $(vips --version 2>/dev/null || echo missing)"
say "  vipsthumbnail:   $(command -v vipsthumbnail >/dev/null && echo present || echo missing)"
say "  ImageMagick:     $(/usr/bin/mogrify -version 2>/dev/null | sed -n '1s/^Version: //p' || echo missing)"
say "  Pillow:          $("$PY" -c 'import PIL; print(PIL.__version__)' 2>/dev/null || echo missing) ($PY)"
say "  djpeg:           $(djpeg -version 2>&1 | head -n1 || echo missing)"
say "  sections:        ${SECTIONS[*]}   rounds: $ROUNDS (+$WARMUP warm-up)   CORPUS_N=$CORPUS_N VARIANT_N=$VARIANT_N"
say "  CPU busy now:    $busy% (other processes; should be near 0 for quotable timings)"
resolve_thumbs
thumbs_version=""
if have_thumbs; then
  thumbs_version=$("$THUMBS" --version 2>/dev/null | head -n1 || true)
  say "  thumbs:          $THUMBS ($THUMBS_NOTE) $thumbs_version"
else
  say "  thumbs:          n/a -- $THUMBS_NOTE"
fi
{
  printf '# thumbs bench results\n\n'
  printf -- '- date: %s\n' "$(date -u '+%Y-%m-%d %H:%M UTC')"
  printf -- '- machine: %s cores, %s, CPU busy at start %s%%\n' "$NPROC" "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')" "$busy"
  printf -- '- libvips %s; %s; Pillow %s; %s\n' "$(vips --version 2>/dev/null | sed 's/^vips-//')" \
    "$(/usr/bin/mogrify -version 2>/dev/null | sed -n '1s/^Version: //p' | cut -d' ' -f1-2)" \
    "$("$PY" -c 'import PIL; print(PIL.__version__)' 2>/dev/null)" "$(djpeg -version 2>&1 | head -n1)"
  printf -- '- thumbs: %s %s\n' "${THUMBS:-n/a}" "$thumbs_version"
  printf -- '- %s timed rounds after %s warm-up, medians; CPU = user+system time of all the tool'"'"'s processes; %s JPEGs %sx%s -> %s px JPEG Q%s\n' \
    "$ROUNDS" "$WARMUP" "$CORPUS_N" "$CORPUS_W" "$CORPUS_H" "$SIZE" "$QUALITY"
} >>"$RESULTS_MD"
record machine cores "$NPROC"
record machine cpu_busy_at_start_pct "$busy"
record machine libvips "$(vips --version 2>/dev/null)"
record machine thumbs "${THUMBS:-n/a} $thumbs_version"
record machine rounds "$ROUNDS"
record machine warmup "$WARMUP"

BROKEN=()
for s in "${SECTIONS[@]}"; do
  snap=$(cpu_snapshot)
  t0=$SECONDS
  CUR_SECTION=$s
  set +e
  (
    set -e
    "section_$s"
  )
  rc=$?
  set -e
  load=$(other_load "$snap" "$(cpu_snapshot)")
  record "$s" section_seconds $((SECONDS - t0))
  record "$s" other_load_pct "$load"
  if [[ $s == quality ]]; then
    : # no timings in this section
  elif ((load >= 5)); then
    say "  WARNING: other processes used $load% of the CPUs during this section: its timings are not quotable"
    printf 'WARN   %s: other processes used %s%% of the CPUs (timings not quotable)\n' "$s" "$load" >>"$VERDICTS"
  else
    say "  (other processes used $load% of the CPUs during this section)"
  fi
  say "  (section $s took $((SECONDS - t0)) s)"
  if ((rc != 0)); then
    say "  !! section $s stopped on a harness error (exit status $rc)"
    BROKEN+=("$s")
  fi
done

header "summary"
if [[ -s $VERDICTS ]]; then sed 's/^/  /' "$VERDICTS"; fi
((${#BROKEN[@]})) && say "  harness errors in: ${BROKEN[*]}"
say "  whole run: $((SECONDS - BENCH_T0)) s"
{
  printf '\n### summary\n\n```\n'
  cat "$VERDICTS"
  ((${#BROKEN[@]})) && printf 'harness errors in: %s\n' "${BROKEN[*]}"
  printf 'whole run: %s s\n```\n' "$((SECONDS - BENCH_T0))"
} >>"$RESULTS_MD"
record machine run_seconds $((SECONDS - BENCH_T0))
"${TOOL[@]}" tojson "$RESULTS" "$OUT/results.json" || true
# BENCH_PUBLISH=1: the run's tables become bench/RESULTS.md, the one place
# the README takes its figures from.
if [[ ${BENCH_PUBLISH:-0} == 1 ]]; then
  {
    cat "$RESULTS_MD"
    printf '\n_Written by `BENCH_PUBLISH=1 make bench` (bench/bench.sh); not edited by hand._\n'
  } >"$BENCH/RESULTS.md"
  say "  published: bench/RESULTS.md"
fi
say "  (full output: bench-out/bench-last.txt; tables: bench-out/results.md; figures: bench-out/results.json)"
if ((${#BROKEN[@]})); then exit 1; fi
if [[ ${BENCH_STRICT:-0} == 1 ]] && grep -q '^FAIL' "$VERDICTS"; then exit 1; fi
exit 0
