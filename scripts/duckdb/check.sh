#!/usr/bin/env bash
# make duckdb-check: the tables of a quick reproduce, read in DuckDB, against docs/results.md
# (check.mjs says what it checks). Needs node and npm; DuckDB comes from the npm registry,
# pinned by package-lock.json (npm ci), into scripts/duckdb/node_modules.
set -euo pipefail
for tool in node npm; do
	command -v "$tool" >/dev/null || { echo "duckdb-check: $tool is not installed (apt-get install nodejs npm)"; exit 1; }
done
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root/scripts/duckdb"
npm ci --no-audit --no-fund --loglevel=error
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
cd "$root"
# The figures whose tables docs/results.md's queries read: delays, runs and curves, schedules
# and timeline, and staleness-law's gaps and fits.
if ! ${GO:-go} run ./cmd/pipelab reproduce delays pd-vs-rpd pd-vs-localsgd scaling schedules staleness-law --quick --out "$out/tables" >"$out/reproduce.log" 2>&1; then
	cat "$out/reproduce.log"
	echo "duckdb-check: the reproduce failed"
	exit 1
fi
# The raw delays (delay_rows), which no figure writes: the example spec that asks for them.
if ! ${GO:-go} run ./cmd/pipelab sweep examples/delay-rows.yaml --out "$out/tables/delay-rows" >"$out/sweep.log" 2>&1; then
	cat "$out/sweep.log"
	echo "duckdb-check: the delay-rows sweep failed"
	exit 1
fi
node scripts/duckdb/check.mjs "$out/tables" docs/results.md
# make claims reads the same tables: every figure with a claims table prints its summary.
node scripts/duckdb/claims.mjs "$out/tables" all >"$out/claims.md"
for fig in pd-vs-rpd pd-vs-localsgd scaling staleness-law; do
	grep -q "^### $fig\$" "$out/claims.md" || { echo "duckdb-check: make claims printed no section for $fig"; exit 1; }
done
