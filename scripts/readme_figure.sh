#!/usr/bin/env bash
# The README's picture: the top of figure 2 of `robostats report` (what each
# crawler may fetch: the legend and the AI crawlers) on the samples, as
# docs/img/restriction.png, drawn by headless Chromium (Debian's chromium).
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
# The SVG on a white page at twice the pixel density, cut below the AI crawlers.
cat > "$work/figure.html" <<HTML
<!DOCTYPE html><html><head><meta charset="utf-8"><style>
body { margin: 0; padding: 12px; background: #fff; }
</style></head><body>$(cat "$work/figures/02-restriction.svg")</body></html>
HTML
"$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars --force-device-scale-factor=2 \
    --user-data-dir="$work/profile" --window-size=584,560 \
    --screenshot="$PWD/docs/img/restriction.png" "file://$work/figure.html" 2>/dev/null
echo "docs/img/restriction.png: $(wc -c < docs/img/restriction.png) bytes"
