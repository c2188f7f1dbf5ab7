#!/usr/bin/env bash
# make test-browser: the explorer in a real browser, served and static. Installs Debian's chromium
# (apt-get) and npm's playwright-core (pinned by package-lock.json) when missing, builds pipelab,
# starts "pipelab serve" on a free loopback port and runs node's test runner on it: layout.test.mjs
# (the first picture, the 1280 px and 390 px layouts), features.test.mjs (schedules side by side,
# typed per-stage times, the progress sign) and explorer.test.mjs (every view clicked through, a
# CSV dropped, the numbers compared with the command line's, the 64 × 1024 schedule's first paint
# and hover latencies). Then it serves the static folder (STATIC, default out/explorer, from make
# explorer-static) with a plain static server (static-server.mjs) and runs layout.test.mjs,
# features.test.mjs, static.test.mjs and replay.test.mjs (replays in the browser, from
# pipelab-replay.wasm) on it. cli.mjs runs the binary. SCREENSHOTS=DIR writes the
# screenshots (explorer-*.png, explorer-*-static.png) there (docs/img for the docs).
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
spid=""
cleanup() {
	if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; fi
	if [ -n "$spid" ]; then kill "$spid" 2>/dev/null || true; fi
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
run() { # run BUILD URL FILE...: the test files against one build of the page
	local build="$1" at="$2"
	shift 2
	echo "test-browser: the $build page at $at"
	BUILD="$build" EXPLORER_URL="$at" PIPELAB="$work/pipelab" CHROMIUM="$chromium" SCREENSHOTS="$shots" WORK="$work" STATIC="$static" \
		node --test --test-concurrency=1 --test-reporter=spec ${TEST_NAME:+--test-name-pattern="$TEST_NAME"} "$@"
}
static="${STATIC:-$root/out/explorer}"
status=0
run served "$url" layout.test.mjs features.test.mjs explorer.test.mjs || status=$?
# The static folder (make explorer-static builds it; STATIC names it) from a plain static server.
if [ ! -f "$static/pipelab.wasm" ]; then
	echo "test-browser: $static/pipelab.wasm is missing: run make explorer-static (make test-browser does)"
	exit 1
fi
node static-server.mjs "$static" >"$work/static.log" 2>&1 &
spid=$!
for _ in $(seq 100); do
	grep -q 'http://' "$work/static.log" 2>/dev/null && break
	sleep 0.1
done
surl="$(grep -o 'http://[0-9.:]*/' "$work/static.log" || true)"
if [ -z "$surl" ]; then
	cat "$work/static.log"
	kill "$spid" 2>/dev/null || true
	echo "test-browser: the static server did not start"
	exit 1
fi
run static "$surl" layout.test.mjs features.test.mjs static.test.mjs replay.test.mjs || status=$?
kill "$spid" 2>/dev/null || true
exit "$status"
