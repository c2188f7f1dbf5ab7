// The DuckDB check of pipelab's result tables (make duckdb-check).
//
//   node scripts/duckdb/check.mjs RESULTS_DIR docs/results.md
//
// RESULTS_DIR is the output of "pipelab reproduce ... --out RESULTS_DIR":
// one folder of Parquet tables per figure (or the tables themselves). Every
// rule is read from docs/results.md itself, so that the page cannot drift
// from the files:
//   - the DuckDB version the page names is the one installed;
//   - each table's columns, in order, with the page's types, and no null
//     in a column the page does not mark nullable;
//   - each table's documented key is unique (GROUP BY key HAVING count(*) > 1
//     finds nothing);
//   - every SQL query of "## Figure queries (DuckDB)" runs in every folder
//     holding the tables it reads, returns rows in at least one, and where
//     this script knows a closed form for its answer, matches it.
// It prints one line per check and "duckdb-check: N passed, M failed", and
// exits 1 when a check failed, 2 on bad arguments.

import { readFileSync, readdirSync, statSync, existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';

const [dirArg, docArg] = process.argv.slice(2);
if (!dirArg || !docArg) {
  console.error('usage: node check.mjs RESULTS_DIR docs/results.md');
  process.exit(2);
}
const doc = readFileSync(docArg, 'utf8');

let passed = 0;
let failed = 0;
function pass(what) {
  passed++;
  console.log(`ok    ${what}`);
}
function fail(what, why) {
  failed++;
  console.log(`FAIL  ${what}: ${why}`);
}

// sections splits the page at its "## " headings.
function sections(text) {
  const out = [];
  for (const part of text.split(/^## /m).slice(1)) {
    const nl = part.indexOf('\n');
    out.push({ title: part.slice(0, nl).trim(), body: part.slice(nl + 1) });
  }
  return out;
}

// docTables reads each "## NAME (key: A, B)" section: the key and the
// columns of its table, with type and nullability.
function docTables(text) {
  const tables = [];
  for (const s of sections(text)) {
    const m = s.title.match(/^([a-z_]+) \(key: ([^)]*)\)$/);
    if (!m) continue;
    const key = m[2].replace(/, unique$/, '').split(',').map((k) => k.trim());
    const columns = [];
    for (const line of s.body.split('\n')) {
      const c = line.match(/^\| ([a-z_0-9]+) \| ([^|]+) \|/);
      if (!c || c[1] === 'column') continue;
      const [type, ...flags] = c[2].split(',').map((t) => t.trim());
      columns.push({ name: c[1], type, nullable: flags.includes('nullable') });
    }
    tables.push({ name: m[1], file: `${m[1]}.parquet`, key, columns });
  }
  return tables;
}

// optionalFiles are the files the page's "## Files" table marks optional.
function optionalFiles(text) {
  const files = sections(text).find((s) => s.title === 'Files');
  const out = new Set();
  for (const m of (files ? files.body : '').matchAll(/^\| `([a-z_]+\.parquet)` \|[^\n]*\(optional\)/gm)) out.add(m[1]);
  return out;
}

// docQueries reads the SQL blocks of "## Figure queries (DuckDB)", each
// with its caption, the paragraph before it.
function docQueries(text) {
  const s = sections(text).find((x) => x.title === 'Figure queries (DuckDB)');
  if (!s) return [];
  const out = [];
  const re = /([^\n]+(?:\n[^\n]+)*)\n```sql\n([\s\S]*?)```/g;
  for (const m of s.body.matchAll(re)) {
    out.push({ caption: m[1].trim().replace(/\s+/g, ' '), sql: m[2].trim() });
  }
  return out;
}

// duckdbType is the type DuckDB reads for a type name of the page.
const duckdbType = {
  string: 'VARCHAR',
  int32: 'INTEGER',
  int64: 'BIGINT',
  uint64: 'UBIGINT',
  float64: 'DOUBLE',
  bool: 'BOOLEAN',
};

// tableDirs lists the folders of RESULTS_DIR (itself included) that hold
// Parquet files.
function tableDirs(root) {
  const dirs = [root, ...readdirSync(root).map((d) => join(root, d)).filter((d) => statSync(d).isDirectory())];
  return dirs.filter((d) => readdirSync(d).some((f) => f.endsWith('.parquet')));
}

// num turns DuckDB's BIGINTs into numbers.
const num = (v) => (typeof v === 'bigint' ? Number(v) : v);

// expectations check the answers of the queries whose caption starts with
// the key, against closed forms (docs/reference.md §1.2, §1.3); each
// returns "" or what is wrong.
const expectations = {
  delays(rows) {
    // The steady-state maximum delay is ⌊S² − S/2⌋.
    for (const r of rows) {
      const s = num(r.stages);
      if (num(r.max) !== Math.floor(s * s - s / 2)) return `S = ${s}: max ${r.max}, want ⌊S² − S/2⌋ = ${Math.floor(s * s - s / 2)}`;
    }
    return '';
  },
  'pd-vs-rpd'(rows) {
    // pipedream has no δ (null); RPD's δ are values, 0 among them.
    if (rows.some((r) => r.method === 'pipedream' && r.delta !== null)) return 'a pipedream row has a delta';
    if (!rows.some((r) => r.method === 'rpd' && r.delta !== null)) return 'no rpd row with a delta';
    return '';
  },
  'pd-vs-localsgd'(rows) {
    // RPD has no timeline: its null sim_time drops out of a time axis.
    if (rows.some((r) => r.method === 'rpd' || r.sim_time === null)) return 'an rpd row or a null sim_time on the time axis';
    if (!rows.some((r) => r.method === 'localsgd')) return 'no localsgd row';
    return '';
  },
  scaling(rows) {
    if (rows.some((r) => !Number.isFinite(r.mean_final_loss) || num(r.replicates) < 1)) return 'a group with a non-finite mean or no replicate';
    return '';
  },
  Seeds(rows) {
    // Each pipedream run meets each RPD run of its replicate, S, step size
    // and clock once.
    const seen = new Set();
    for (const r of rows) {
      const k = [r.experiment, r.cost_model, r.replicate, r.stages, r.step_size, r.delta].join('/');
      if (seen.has(k)) return `pair ${k} twice`;
      seen.add(k);
    }
    return '';
  },
  schedules(rows) {
    // P = 4, M = 8 under unit time: GPipe and 1F1B take 2(M + P − 1) = 22
    // steps with bubble ratio (P − 1)/(M + P − 1) = 3/11 at the formula
    // and simulated levels, and so share a rank.
    for (const level of ['formula', 'simulated']) {
      const pair = rows.filter((r) => r.level === level && (r.kind === 'gpipe' || r.kind === '1f1b'));
      if (pair.length !== 2) return `${pair.length} gpipe and 1f1b rows at the ${level} level, want 2`;
      for (const r of pair) {
        if (r.makespan !== 22 || Math.abs(r.bubble_ratio - 3 / 11) > 1e-12) return `${r.kind} ${level}: makespan ${r.makespan}, bubble ${r.bubble_ratio}; want 22 and 3/11`;
      }
      if (num(pair[0].kind_rank) !== num(pair[1].kind_rank)) return `${level}: gpipe and 1f1b tie at 22 steps but rank ${pair[0].kind_rank} and ${pair[1].kind_rank}`;
    }
    return '';
  },
  Gantt(rows) {
    // 1F1B at P = 4, M = 8: the last action ends at the makespan, 22.
    const end = Math.max(...rows.map((r) => r.end_time));
    if (end !== rows[0].makespan || end !== 22) return `last action ends at ${end}, makespan ${rows[0].makespan}; want both 2(M + P − 1) = 22`;
    return '';
  },
};

const instance = await DuckDBInstance.create(':memory:');
const db = await instance.connect();
async function rowsOf(sql) {
  return (await db.runAndReadAll(sql)).getRowObjectsJS();
}
async function inDir(dir, sql) {
  await db.run(`SET file_search_path = '${resolve(dir).replaceAll("'", "''")}'`);
  return rowsOf(sql);
}

// The version the page names.
const version = (await rowsOf('SELECT version() AS v'))[0].v;
const named = doc.match(/DuckDB (v\d+\.\d+\.\d+)/);
if (!named) fail('DuckDB version', 'docs/results.md names none ("DuckDB v1.2.3")');
else if (named[1] !== version) fail('DuckDB version', `docs/results.md names ${named[1]}, installed ${version}`);
else pass(`DuckDB ${version}, as docs/results.md says`);

const dirs = tableDirs(dirArg);
if (dirs.length === 0) fail(dirArg, 'no Parquet tables');
const tables = docTables(doc);
const optional = optionalFiles(doc);
if (tables.length === 0) fail(docArg, 'no "## NAME (key: ...)" table sections');

for (const t of tables) {
  const where = dirs.filter((d) => existsSync(join(d, t.file)));
  if (where.length === 0) {
    if (optional.has(t.file)) console.log(`skip  ${t.file}: optional, not written by this reproduce`);
    else fail(t.file, `in none of ${dirs.join(', ')}`);
    continue;
  }
  for (const d of where) {
    const what = `${join(d, t.file)}`;
    try {
      const got = await inDir(d, `DESCRIBE SELECT * FROM '${t.file}'`);
      const want = t.columns.map((c) => `${c.name} ${duckdbType[c.type] ?? `unknown type "${c.type}"`}`).join(', ');
      const have = got.map((c) => `${c.column_name} ${c.column_type}`).join(', ');
      if (have !== want) fail(`${what} columns`, `DuckDB reads\n      ${have}\n    docs/results.md says\n      ${want}`);
      else pass(`${what}: ${got.length} columns as documented`);

      const required = t.columns.filter((c) => !c.nullable);
      const nulls = (await inDir(d, `SELECT ${required.map((c) => `count(*) FILTER (WHERE ${c.name} IS NULL) AS ${c.name}`).join(', ')} FROM '${t.file}'`))[0];
      const withNulls = required.filter((c) => num(nulls[c.name]) > 0).map((c) => `${c.name} (${nulls[c.name]})`);
      if (withNulls.length > 0) fail(`${what} nulls`, `columns not marked nullable hold nulls: ${withNulls.join(', ')}`);
      else pass(`${what}: no null outside the nullable columns`);

      const key = t.key.join(', ');
      const dup = await inDir(d, `SELECT ${key}, count(*) AS n FROM '${t.file}' GROUP BY ${key} HAVING count(*) > 1 ORDER BY n DESC LIMIT 3`);
      const total = num((await inDir(d, `SELECT count(*) AS n FROM '${t.file}'`))[0].n);
      if (total === 0) fail(`${what} key`, 'no rows');
      else if (dup.length > 0) fail(`${what} key (${key})`, `not unique: ${JSON.stringify(dup, (_, v) => (typeof v === 'bigint' ? Number(v) : v))}`);
      else pass(`${what}: key (${key}) unique over ${total} rows`);
    } catch (e) {
      fail(what, e.message);
    }
  }
}

const queries = docQueries(doc);
if (queries.length === 0) fail(docArg, 'no SQL under "## Figure queries (DuckDB)"');
for (const q of queries) {
  const label = q.caption.split(/[ (]/)[0];
  const files = [...new Set([...q.sql.matchAll(/'([a-z_]+\.parquet)'/g)].map((m) => m[1]))];
  const where = dirs.filter((d) => files.every((f) => existsSync(join(d, f))));
  if (where.length === 0) {
    fail(`query "${label}"`, `no folder holds ${files.join(' and ')}`);
    continue;
  }
  let rows = [];
  let ok = true;
  for (const d of where) {
    try {
      rows = rows.concat(await inDir(d, q.sql));
    } catch (e) {
      fail(`query "${label}" in ${d}`, e.message);
      ok = false;
    }
  }
  if (!ok) continue;
  if (rows.length === 0) {
    fail(`query "${label}"`, `no rows in ${where.join(', ')}`);
    continue;
  }
  const check = expectations[label];
  const wrong = check ? check(rows) : '';
  if (wrong) fail(`query "${label}"`, wrong);
  else pass(`query "${label}": ${rows.length} rows from ${where.length} folder(s)${check ? ', answer checked' : ''}`);
}

// An expectation whose query the page no longer has would check nothing.
const labels = new Set(queries.map((q) => q.caption.split(/[ (]/)[0]));
for (const key of Object.keys(expectations)) {
  if (!labels.has(key)) fail(`expectation "${key}"`, 'no query of docs/results.md has a caption starting with it');
}

console.log(`duckdb-check: ${passed} passed, ${failed} failed`);
process.exit(failed > 0 ? 1 : 0);
