#!/usr/bin/env bash
# make explorer-static: the explorer as a static folder that any static HTTP server serves, with no
# pipelab server (docs/explorer.md): the page's files (explorer/assets), the explorer's server compiled to
# WebAssembly (cmd/explorer-wasm, as pipelab.wasm), its replay build with train (-tags replay, as
# pipelab-replay.wasm, which links Arrow; the page loads it on the first replay only) and Go's
# wasm_exec.js, the glue of that Go version.
#
#   scripts/explorer-static.sh [DIR]     (default out/explorer)
#
# The folder is built beside DIR and renamed into place, so DIR is either the old folder or the whole new one.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
dest="${1:-out/explorer}"
case "$dest" in /*) ;; *) dest="$PWD/$dest" ;; esac
go="${GO:-go}"
goroot="$("$go" env GOROOT)"
glue=""
for f in "$goroot/lib/wasm/wasm_exec.js" "$goroot/misc/wasm/wasm_exec.js"; do
	if [ -f "$f" ]; then glue="$f"; break; fi
done
if [ -z "$glue" ]; then
	echo "explorer-static: no wasm_exec.js under $goroot/lib/wasm or $goroot/misc/wasm (Go's js/wasm glue)" >&2
	exit 1
fi
mkdir -p "$(dirname "$dest")"
tmp="$(mktemp -d "$(dirname "$dest")/.explorer-static.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
cp "$root"/explorer/assets/* "$tmp/"
cp "$glue" "$tmp/wasm_exec.js"
(
	cd "$root"
	export GOOS=js GOARCH=wasm
	"$go" vet ./cmd/explorer-wasm
	"$go" vet -tags replay ./cmd/explorer-wasm
	"$go" build -trimpath -ldflags=-s -o "$tmp/pipelab.wasm" ./cmd/explorer-wasm
	"$go" build -tags replay -trimpath -ldflags=-s -o "$tmp/pipelab-replay.wasm" ./cmd/explorer-wasm
)
chmod 755 "$tmp"
old=""
if [ -e "$dest" ]; then old="$dest.old.$$"; mv "$dest" "$old"; fi
mv "$tmp" "$dest"
[ -z "$old" ] || rm -rf "$old"
sizes=""
for m in pipelab.wasm pipelab-replay.wasm; do
	sizes="$sizes; $m $(wc -c <"$dest/$m") bytes, $(gzip -9c "$dest/$m" | wc -c) gzipped"
done
echo "explorer-static: $dest ($(du -sh "$dest" | cut -f1)$sizes)"
