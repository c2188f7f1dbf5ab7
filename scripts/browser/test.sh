#!/usr/bin/env bash
# make test-browser: the explorer (pipelab serve) in a real browser. Installs Debian's chromium
# (apt-get) and npm's playwright-core (pinned by package-lock.json) when missing, builds pipelab,
# starts "pipelab serve" on a free loopback port and runs explorer.test.mjs with node's test
# runner: it clicks through every view, drops a CSV, compares the numbers the page shows with the
# command line's, and prints the 64 × 1024 schedule's first paint and hover latencies.
# layout.test.mjs checks the first picture and the 1280 px and 390 px layouts; cli.mjs runs the binary.
# SCREENSHOTS=DIR writes the views' screenshots (explorer-*.png) there (docs/img for the docs).
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
here="$root/scripts/browser"
for tool in node npm; do
	command -v "$tool" >/dev/null || { echo "test-browser: $tool is not installed (apt-get install nodejs npm)"; exit 1; }
done
chromium="${CHROMIUM:-/usr/bin/chromium}"
if [ ! -x "$chromium" ]; then
	if ! command -v apt-get >/dev/null; then
		echo "test-browser: $chromium is missing and apt-get is not available to install Debian's chromium"
		exit 1
	fi
	sudo=""
	[ "$(id -u)" -eq 0 ] || sudo="sudo -n"
	if ! { $sudo apt-get update -qq && $sudo apt-get install -y -qq chromium >/dev/null; }; then
		echo "test-browser: could not install chromium with apt-get (needs root and the Debian archive); install it and run again"
		exit 1
	fi
fi
cd "$here"
if [ ! -d node_modules/playwright-core ]; then
	npm ci --no-audit --no-fund --loglevel=error
fi
work="$(mktemp -d)"
pid=""
cleanup() {
	if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; fi
	rm -rf "$work"
}
trap cleanup EXIT
(cd "$root" && ${GO:-go} build -o "$work/pipelab" ./cmd/pipelab)
# Port 0: the system picks a free port; serve prints the address it listens on.
"$work/pipelab" serve --addr 127.0.0.1:0 >"$work/serve.log" 2>&1 &
pid=$!
for _ in $(seq 100); do
	grep -q 'http://' "$work/serve.log" 2>/dev/null && break
	sleep 0.1
done
url="$(grep -o 'http://[0-9.:]*/' "$work/serve.log" || true)"
if [ -z "$url" ]; then
	cat "$work/serve.log"
	echo "test-browser: pipelab serve did not start"
	exit 1
fi
shots="${SCREENSHOTS:-$work/shots}"
case "$shots" in /*) ;; *) shots="$root/$shots" ;; esac
mkdir -p "$shots"
EXPLORER_URL="$url" PIPELAB="$work/pipelab" CHROMIUM="$chromium" SCREENSHOTS="$shots" WORK="$work" \
	node --test --test-concurrency=1 --test-reporter=spec ${TEST_NAME:+--test-name-pattern="$TEST_NAME"} layout.test.mjs explorer.test.mjs
