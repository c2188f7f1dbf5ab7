// Two result folders hold the same tables (make tables-equal A=DIR B=DIR).
//
//   node scripts/duckdb/tables-equal.mjs A B
//
// A and B are outputs of "pipelab reproduce" (one folder per figure), of
// "pipelab sweep" or of "pipelab merge". Every .parquet file under either
// folder must be under the other at the same relative path, with the same
// columns in the same order and types, and hold the same rows as a
// multiset: in DuckDB, SELECT * FROM a EXCEPT ALL SELECT * FROM b and the
// same with a and b swapped both return 0 rows (EXCEPT ALL counts
// duplicates; DuckDB's set operations treat NULL as equal to NULL and NaN
// to NaN). The one column left out is runs.parquet's wall_seconds, the
// wall-clock time a run took, which differs between executions by design
// (docs/results.md); every other column is compared, floats bit for bit.
// Run records (runs/*.gob), plots and dataset.json are not compared.
//
// It prints one line per file and "tables-equal: N equal, M differ", and
// exits 1 when a file differs or is missing, 2 on bad arguments.

import { readdirSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';

// ignored names, by table file, the columns that differ between two runs
// of the same spec by design.
const ignored = { 'runs.parquet': ['wall_seconds'] };

const [aArg, bArg] = process.argv.slice(2);
if (!aArg || !bArg) {
  console.error('usage: node tables-equal.mjs A B');
  process.exit(2);
}
const [a, b] = [resolve(aArg), resolve(bArg)];
for (const d of [a, b]) {
  if (!statSync(d, { throwIfNoEntry: false })?.isDirectory()) {
    console.error(`tables-equal: ${d} is not a folder`);
    process.exit(2);
  }
}

// parquetFiles lists the .parquet files under dir, as paths relative to it.
function parquetFiles(dir, root = dir, out = []) {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) parquetFiles(p, root, out);
    else if (e.name.endsWith('.parquet')) out.push(relative(root, p));
  }
  return out;
}

const filesA = new Set(parquetFiles(a));
const filesB = new Set(parquetFiles(b));
const all = [...new Set([...filesA, ...filesB])].sort();
if (all.length === 0) {
  console.error(`tables-equal: no .parquet files under ${a} or ${b}`);
  process.exit(2);
}

const db = await DuckDBInstance.create(':memory:');
const con = await db.connect();
const quote = (s) => `'${s.replaceAll("'", "''")}'`;
const ident = (s) => `"${s.replaceAll('"', '""')}"`;

async function rows(sql) {
  const reader = await con.runAndReadAll(sql);
  return reader.getRowObjects();
}

// columns returns the file's columns as "name type", in order.
async function columns(path) {
  const r = await rows(`DESCRIBE SELECT * FROM read_parquet(${quote(path)})`);
  return r.map((c) => `${c.column_name} ${c.column_type}`);
}

let equal = 0;
let differ = 0;
for (const rel of all) {
  const base = rel.split(/[\\/]/).pop();
  if (!filesA.has(rel) || !filesB.has(rel)) {
    differ++;
    console.log(`DIFF  ${rel}: only in ${filesA.has(rel) ? 'A' : 'B'}`);
    continue;
  }
  const [pa, pb] = [join(a, rel), join(b, rel)];
  const [ca, cb] = [await columns(pa), await columns(pb)];
  if (ca.join(', ') !== cb.join(', ')) {
    differ++;
    console.log(`DIFF  ${rel}: columns differ:\n      A: ${ca.join(', ')}\n      B: ${cb.join(', ')}`);
    continue;
  }
  const skip = ignored[base] ?? [];
  const cols = ca.map((c) => c.split(' ')[0]).filter((c) => !skip.includes(c));
  const list = cols.map(ident).join(', ');
  const count = async (x, y) =>
    Number((await rows(`SELECT count(*) AS n FROM (SELECT ${list} FROM read_parquet(${quote(x)}) EXCEPT ALL SELECT ${list} FROM read_parquet(${quote(y)}))`))[0].n);
  const n = Number((await rows(`SELECT count(*) AS n FROM read_parquet(${quote(pa)})`))[0].n);
  const m = Number((await rows(`SELECT count(*) AS n FROM read_parquet(${quote(pb)})`))[0].n);
  const [ab, ba] = [await count(pa, pb), await count(pb, pa)];
  const what = `${rel}: ${n} and ${m} rows, A EXCEPT ALL B ${ab} rows, B EXCEPT ALL A ${ba} rows` +
    (skip.length ? ` (${skip.join(', ')} left out)` : '');
  if (ab === 0 && ba === 0 && n === m) {
    equal++;
    console.log(`ok    ${what}`);
  } else {
    differ++;
    console.log(`DIFF  ${what}`);
  }
}
console.log(`tables-equal: ${equal} equal, ${differ} differ`);
process.exit(differ > 0 ? 1 : 0);
