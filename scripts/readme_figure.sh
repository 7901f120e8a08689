#!/usr/bin/env bash
# The README's picture: figure 2 of `robostats report` (which crawlers the
# hosts shut out, named or by *, above the hosts' facts every crawler
# shares) on the samples, as docs/img/restriction.png, drawn by headless
# Chromium (Debian's chromium).
#
#   scripts/readme_figure.sh
set -euo pipefail
cd "$(dirname "$0")/.."
browser=$(command -v chromium || command -v chromium-browser || command -v google-chrome) || {
    echo "readme_figure.sh needs chromium (apt-get install chromium)" >&2
    exit 1
}
cargo build --release --quiet --bin robostats
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
target/release/robostats ingest -q samples/ --out "$work/out"
target/release/robostats report -q "$work/out" -o "$work/report.html" --figures "$work/figures"
# The SVG on a white page at twice the pixel density, whole.
cat > "$work/figure.html" <<HTML
<!DOCTYPE html><html><head><meta charset="utf-8"><style>
body { margin: 0; padding: 12px; background: #fff; }
</style></head><body>$(cat "$work/figures/02-restriction.svg")</body></html>
HTML
height=$(sed -n 's/.*<svg [^>]*height="\([0-9]*\)".*/\1/p' "$work/figures/02-restriction.svg" | head -1)
"$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars --force-device-scale-factor=2 \
    --user-data-dir="$work/profile" --window-size=584,$((height + 24)) \
    --screenshot="$PWD/docs/img/restriction.png" "file://$work/figure.html" 2>/dev/null
echo "docs/img/restriction.png: $(wc -c < docs/img/restriction.png) bytes"
