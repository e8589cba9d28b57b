#!/usr/bin/env bash
# Off CI. Regenerates the committed test fixtures Tests/Fixtures/jpeg (read by
# Tests/ThumbsKitTests/Imaging/ProgressiveJPEGFixtureTests.swift): the files
# of make_jpegs.sh that need cjpeg or jpegtran, which CI does not have.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
dest=$(dirname "$here")/Tests/Fixtures/jpeg
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
"$here/make_jpegs.sh" "$tmp" 123 85 >/dev/null
rm -rf "$dest"; mkdir -p "$dest"
for name in vips-420 tran-dc-per-component tran-dc-refine-per-component tran-dc-two-refinements \
            tran-dc-only tran-prog-restart-1 tran-prog-grey-restart-5 tran-missing-dc-refinement \
            cjpeg-prog-422 cjpeg-prog-440-restart cjpeg-prog-luma-below-chroma cjpeg-sequential-3-scans; do
  cp "$tmp/$name.jpg" "$dest/"
done
ls -l "$dest"
