#!/usr/bin/env bash
# Regenerates Samples/: a small set made by the project itself with the vips
# command-line tool (Debian package libvips-tools). Nothing is copied from
# elsewhere. Run from the repository root: bash scripts/make-samples.sh
set -euo pipefail
command -v vips >/dev/null || { echo "needs the vips tool (apt-get install libvips-tools)" >&2; exit 2; }
out=Samples
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
mkdir -p "$out/nested"

# A photo-like picture: smooth colour fields plus some detail.
photo() { # photo OUT.v WIDTH HEIGHT SEED
  local w=$2 h=$3 seed=$4
  for b in 0 1 2; do
    vips gaussnoise "$tmp/l$b.v" $((w / 50)) $((h / 50)) --sigma 60 --mean 128 --seed $((seed * 7 + b))
    vips resize "$tmp/l$b.v" "$tmp/L$b.v" 50 --kernel cubic
  done
  vips bandjoin "$tmp/L0.v $tmp/L1.v $tmp/L2.v" "$tmp/low.v"
  vips gaussnoise "$tmp/f.v" "$w" "$h" --sigma 3 --mean 0 --seed $((seed * 7 + 3))
  vips add "$tmp/low.v" "$tmp/f.v" "$tmp/sum.v"
  vips cast "$tmp/sum.v" "$tmp/u.v" uchar
  vips copy "$tmp/u.v" "$1" --interpretation srgb
}

photo "$tmp/a.v" 1600 1200 1
vips copy "$tmp/a.v" "$out/landscape.jpg[Q=85,strip]"

# Stored landscape, EXIF orientation 6: displayed as a 900x1200 portrait.
photo "$tmp/b.v" 1200 900 2
vips copy "$tmp/b.v" "$tmp/rotated.jpg[Q=85,strip]"
python3 scripts/set-exif-orientation.py "$tmp/rotated.jpg" "$out/portrait-exif-rotated.jpg" 6

# PNG with alpha: a disc on a transparent background.
photo "$tmp/c.v" 400 400 3
vips black "$tmp/blank.v" 400 400
vips draw_circle "$tmp/blank.v" 255 200 200 190 --fill
vips bandjoin "$tmp/c.v $tmp/blank.v" "$tmp/rgba.v"
vips copy "$tmp/rgba.v" "$out/disc-alpha.png"

# Greyscale.
photo "$tmp/d.v" 1000 700 4
vips colourspace "$tmp/d.v" "$out/greyscale.jpg[Q=85,strip]" b-w

# CMYK JPEG with its profile.
photo "$tmp/e.v" 900 600 5
vips icc_export "$tmp/e.v" "$tmp/cmyk.v" --output-profile cmyk
vips copy "$tmp/cmyk.v" "$out/cmyk.jpg[Q=85,strip]"  # no profile: the CMYK fallback applies

# WebP, a 16-bit PNG, and a TIFF in a subfolder.
photo "$tmp/f.v" 1400 800 6
vips copy "$tmp/f.v" "$out/wide.webp[Q=80]"
photo "$tmp/g.v" 400 300 7
vips cast "$tmp/g.v" "$tmp/g16.v" ushort
vips linear "$tmp/g16.v" "$tmp/g16s.v" 257 0
vips cast "$tmp/g16s.v" "$tmp/g16c.v" ushort
vips copy "$tmp/g16c.v" "$out/nested/deep-16bit.png" --interpretation rgb16
photo "$tmp/h.v" 800 800 8
vips copy "$tmp/h.v" "$out/nested/square.tif[compression=jpeg,Q=85]"

# One broken file: the first half of a JPEG. The demo shows one clear failure.
photo "$tmp/i.v" 800 600 9
vips copy "$tmp/i.v" "$tmp/whole.jpg[Q=85,strip]"
head -c $(( $(stat -c %s "$tmp/whole.jpg") / 2 )) "$tmp/whole.jpg" > "$out/broken-truncated.jpg"

# A file that is not an image: ignored and counted.
printf 'Samples made by scripts/make-samples.sh\n' > "$out/README.txt"
ls -l "$out" "$out/nested"
