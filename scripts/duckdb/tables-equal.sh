#!/usr/bin/env bash
# make tables-equal A=DIR B=DIR: the Parquet tables of two result folders hold the same rows
# (tables-equal.mjs says how they are compared). Needs node and npm; DuckDB comes from the npm
# registry, pinned by package-lock.json (npm ci), into scripts/duckdb/node_modules.
set -euo pipefail
if [ $# -ne 2 ]; then
	echo "usage: make tables-equal A=DIR B=DIR (or: bash scripts/duckdb/tables-equal.sh A B)" >&2
	exit 2
fi
for tool in node npm; do
	command -v "$tool" >/dev/null || { echo "tables-equal: $tool is not installed (apt-get install nodejs npm)"; exit 1; }
done
a="$(cd "$1" && pwd)" || { echo "tables-equal: A=$1 is not a folder" >&2; exit 2; }
b="$(cd "$2" && pwd)" || { echo "tables-equal: B=$2 is not a folder" >&2; exit 2; }
cd "$(dirname "$0")"
if [ ! -d node_modules/@duckdb/node-api ]; then
	npm ci --no-audit --no-fund --loglevel=error
fi
node tables-equal.mjs "$a" "$b"
