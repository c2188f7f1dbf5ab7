#!/usr/bin/env bash
# make claims DIR=FOLDER [ROWS=holds|all]: a reproduce folder's claims as Markdown
# (claims.mjs says what it prints). Needs node and npm; DuckDB comes from the npm
# registry, pinned by package-lock.json (npm ci), into scripts/duckdb/node_modules.
set -euo pipefail
if [ $# -lt 1 ] || [ $# -gt 2 ]; then
	echo "usage: make claims DIR=FOLDER [ROWS=summary|holds|all] (or: bash scripts/duckdb/claims.sh FOLDER [ROWS])" >&2
	exit 2
fi
for tool in node npm; do
	command -v "$tool" >/dev/null || { echo "claims: $tool is not installed (apt-get install nodejs npm)"; exit 1; }
done
d="$(cd "$1" && pwd)" || { echo "claims: DIR=$1 is not a folder" >&2; exit 2; }
cd "$(dirname "$0")"
if [ ! -d node_modules/@duckdb/node-api ]; then
	npm ci --no-audit --no-fund --loglevel=error
fi
node claims.mjs "$d" "${2:-summary}"
