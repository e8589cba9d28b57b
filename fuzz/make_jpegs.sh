#!/usr/bin/env bash
# Off CI. Writes small JPEGs in every layout the DC decode takes (and a few it
# must refuse), made with libvips (vips) and libjpeg-turbo's tools (cjpeg,
# jpegtran: apt-get install libjpeg-turbo-progs libvips-tools):
#
#   make_jpegs.sh DIR [WIDTH=131] [HEIGHT=97]
#
# Used for the fuzzer's seeds (fuzz/seeds, small) and for the test fixtures
# (Tests/Fixtures/jpeg, committed: the tests cannot count on jpegtran).
# Deterministic: the same arguments give the same bytes.
set -euo pipefail
dir=${1:?usage: make_jpegs.sh DIR [WIDTH] [HEIGHT]}
width=${2:-131} height=${3:-97}
for tool in vips cjpeg jpegtran; do
  command -v $tool >/dev/null || { echo "make_jpegs.sh: needs $tool" >&2; exit 2; }
done
mkdir -p "$dir"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

# Photo-like pixels: smooth colour fields plus fine noise (many AC codes).
for b in 0 1 2; do
  vips gaussnoise "$tmp/l$b.v" $(( width / 32 + 2 )) $(( height / 32 + 2 )) --sigma 30 --mean 128 --seed $((b + 1))
  vips resize "$tmp/l$b.v" "$tmp/L$b.v" 32 --kernel cubic
  vips crop "$tmp/L$b.v" "$tmp/C$b.v" 0 0 "$width" "$height"
done
vips bandjoin "$tmp/C0.v $tmp/C1.v $tmp/C2.v" "$tmp/low.v"
vips gaussnoise "$tmp/f.v" "$width" "$height" --sigma 18 --mean 0 --seed 9
vips add "$tmp/low.v" "$tmp/f.v" "$tmp/sum.v"
vips cast "$tmp/sum.v" "$tmp/u.v" uchar
vips copy "$tmp/u.v" "$tmp/rgb.v" --interpretation srgb
vips colourspace "$tmp/rgb.v" "$tmp/grey.v" b-w
vips copy "$tmp/rgb.v" "$tmp/rgb.ppm"
vips copy "$tmp/grey.v" "$tmp/grey.pgm"

# libvips: baseline, and progressive through libjpeg's jpeg_simple_progression
# (DC Al=1 interleaved, AC scans, DC refinement).
vips copy "$tmp/rgb.v" "$dir/vips-420.jpg[Q=85,strip]"
vips copy "$tmp/rgb.v" "$dir/vips-444.jpg[Q=90,subsample-mode=off,strip]"
vips copy "$tmp/rgb.v" "$dir/vips-restart.jpg[Q=85,restart-interval=2,strip]"
vips copy "$tmp/grey.v" "$dir/vips-grey.jpg[Q=85,strip]"
vips copy "$tmp/rgb.v" "$dir/vips-prog-420.jpg[Q=85,interlace,strip]"
vips copy "$tmp/rgb.v" "$dir/vips-prog-444.jpg[Q=90,interlace,subsample-mode=off,strip]"
vips copy "$tmp/rgb.v" "$dir/vips-prog-restart.jpg[Q=85,interlace,restart-interval=3,strip]"
vips copy "$tmp/grey.v" "$dir/vips-prog-grey.jpg[Q=85,interlace,strip]"

# cjpeg: sampling libvips cannot write.
cjpeg -quality 85 -sample 2x1 "$tmp/rgb.ppm" > "$dir/cjpeg-422.jpg"
cjpeg -quality 85 -sample 2x1 -progressive "$tmp/rgb.ppm" > "$dir/cjpeg-prog-422.jpg"
cjpeg -quality 85 -sample 1x2 -progressive -restart 1 "$tmp/rgb.ppm" > "$dir/cjpeg-prog-440-restart.jpg"
# Luma sampled below chroma: libjpeg's 1/8 luma is not its DC (refused).
cjpeg -quality 85 -sample 1x1,2x2,1x1 "$tmp/rgb.ppm" > "$dir/cjpeg-luma-below-chroma.jpg"
cjpeg -quality 85 -sample 1x1,2x2,1x1 -progressive "$tmp/rgb.ppm" > "$dir/cjpeg-prog-luma-below-chroma.jpg"
# Sequential, one scan per component (libjpeg buffers the whole image).
printf '0;\n1;\n2;\n' > "$tmp/seq3.txt"
cjpeg -quality 85 -scans "$tmp/seq3.txt" "$tmp/rgb.ppm" > "$dir/cjpeg-sequential-3-scans.jpg"
# RGB components (no YCbCr conversion): the DC decode's RGB colour path.
cjpeg -quality 85 -rgb "$tmp/rgb.ppm" > "$dir/cjpeg-rgb.jpg"
cjpeg -quality 85 -rgb -progressive "$tmp/rgb.ppm" > "$dir/cjpeg-prog-rgb.jpg"

# jpegtran scan scripts (lossless: the same coefficients as vips-420.jpg).
base="$dir/vips-420.jpg"
# mozjpeg's shape: one DC scan per component, then AC, no successive approximation.
cat > "$tmp/dc-per-component.txt" <<'S'
0: 0 0 0 0;
1: 0 0 0 0;
2: 0 0 0 0;
0: 1 8 0 0;
0: 9 63 0 0;
1: 1 63 0 0;
2: 1 63 0 0;
S
jpegtran -scans "$tmp/dc-per-component.txt" "$base" > "$dir/tran-dc-per-component.jpg"
# Per-component DC first passes with Al=1, AC, then per-component refinements.
cat > "$tmp/dc-refine-per-component.txt" <<'S'
0: 0 0 0 1;
1: 0 0 0 1;
2: 0 0 0 1;
0: 1 5 0 2;
2: 1 63 0 1;
1: 1 63 0 1;
0: 6 63 0 2;
0: 1 63 2 1;
0: 0 0 1 0;
1: 0 0 1 0;
2: 0 0 1 0;
2: 1 63 1 0;
1: 1 63 1 0;
0: 1 63 1 0;
S
jpegtran -scans "$tmp/dc-refine-per-component.txt" "$base" > "$dir/tran-dc-refine-per-component.jpg"
# Luma DC alone, chroma DC interleaved; DC refined twice (Al 2 -> 1 -> 0).
cat > "$tmp/dc-two-refinements.txt" <<'S'
0: 0 0 0 2;
1 2: 0 0 0 2;
0: 1 63 0 0;
0 1 2: 0 0 2 1;
1: 1 63 0 0;
2: 1 63 0 0;
0 1 2: 0 0 1 0;
S
jpegtran -scans "$tmp/dc-two-refinements.txt" "$base" > "$dir/tran-dc-two-refinements.jpg"
# Only DC scans (no AC at all): still a complete 1/8 image.
printf '0 1 2: 0 0 0 0;\n' > "$tmp/dc-only.txt"
jpegtran -scans "$tmp/dc-only.txt" "$base" > "$dir/tran-dc-only.jpg"
# Standard progression with restarts every MCU, and a grey one with restarts.
jpegtran -progressive -restart 1 "$base" > "$dir/tran-prog-restart-1.jpg"
jpegtran -progressive -restart 5 "$dir/vips-grey.jpg" > "$dir/tran-prog-grey-restart-5.jpg"
# DC first pass without its refinement: incomplete DC (refused).
printf '0 1 2: 0 0 0 1;\n0: 1 63 0 0;\n1: 1 63 0 0;\n2: 1 63 0 0;\n' > "$tmp/no-refine.txt"
jpegtran -scans "$tmp/no-refine.txt" "$base" > "$dir/tran-missing-dc-refinement.jpg"
ls -l "$dir"
