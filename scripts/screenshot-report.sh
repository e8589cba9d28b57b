#!/usr/bin/env bash
# Renders a thumbs report in headless Chromium to a PNG screenshot.
#   bash scripts/screenshot-report.sh REPORT.html OUT.png [WIDTHxHEIGHT]
# Installs the Debian package `chromium` when no Chromium is found.
# The page is opened from disk (file://), so it must stand on its own: the
# screenshot shows what a person sees without any network.
set -euo pipefail

if [ $# -lt 2 ]; then
  echo "usage: $0 REPORT.html OUT.png [WIDTHxHEIGHT (default 1280x2400)]" >&2
  exit 2
fi
report=$1
png=$2
size=${3:-1280x2400}
if [ ! -f "$report" ]; then
  echo "$0: no report at $report (run thumbs first, e.g. make run)" >&2
  exit 2
fi

find_chromium() {
  for name in chromium chromium-browser google-chrome-stable google-chrome; do
    if command -v "$name" >/dev/null 2>&1; then command -v "$name"; return 0; fi
  done
  return 1
}

if ! browser=$(find_chromium); then
  echo "installing chromium (headless browser for the screenshot)" >&2
  SUDO=$( [ "$(id -u)" = 0 ] || echo sudo )
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends chromium >/dev/null
  browser=$(find_chromium)
fi

abs_report=$(cd "$(dirname "$report")" && pwd)/$(basename "$report")
mkdir -p "$(dirname "$png")"
abs_png=$(cd "$(dirname "$png")" && pwd)/$(basename "$png")
# A throwaway profile: nothing from a user's browser, nothing left behind.
# Headless Chromium turns lazy image loading off (it loads every <img> of the
# page at once); lazyLoadEnabled=true makes it behave like a desktop browser,
# which matters for a report of 100,000 thumbnails.
profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT

start=$(date +%s.%N)
"$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars --mute-audio \
  --no-first-run --no-default-browser-check --disable-extensions \
  --user-data-dir="$profile" --window-size="${size/x/,}" --blink-settings=lazyLoadEnabled=true \
  --virtual-time-budget=10000 \
  --screenshot="$abs_png" "file://$abs_report" >/dev/null 2>&1 || true
end=$(date +%s.%N)

if [ ! -s "$abs_png" ]; then
  echo "$0: chromium did not write $png" >&2
  exit 1
fi
awk -v s="$start" -v e="$end" -v p="$png" -v z="$size" 'BEGIN { printf "screenshot %s (%s) in %.1f s\n", p, z, e - s }'
