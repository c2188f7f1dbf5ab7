// A reproduce folder's claims as Markdown (make claims DIR=...).
//
//   node scripts/duckdb/claims.mjs DIR [summary|holds|all]
//
// DIR is the output of "pipelab reproduce" (one folder per figure). For
// each figure with a claims.parquet it prints, read in DuckDB from the
// tables alone:
//   - per experiment and baseline, the comparisons the figure reports
//     (metric = selected_on) that hold with the method lower, hold with
//     it higher, and hold neither way (docs/results.md, "claims");
//   - with "holds", those that hold; with "all", every reported row:
//     the mean difference with its 95 % t interval and k of n seeds;
//   - the final held-out loss of every selected run of the character LM
//     (runs.parquet, objective charlm), mean, min and max over seeds.
// docs/figures.md's section "Under the one rule" is this output.

import { readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';

const [dirArg, mode = 'summary'] = process.argv.slice(2);
if (!dirArg || !['summary', 'holds', 'all'].includes(mode)) {
  console.error('usage: node claims.mjs DIR [summary|holds|all]');
  process.exit(2);
}
const dir = resolve(dirArg);
if (!statSync(dir, { throwIfNoEntry: false })?.isDirectory()) {
  console.error(`claims: ${dir} is not a folder`);
  process.exit(2);
}
const db = await DuckDBInstance.create(':memory:');
const con = await db.connect();
const quote = (s) => `'${s.replaceAll("'", "''")}'`;
const rows = async (sql) => (await con.runAndReadAll(sql)).getRowObjects();

// num prints a difference with four significant figures and its sign.
function num(v) {
  if (v === null || v === undefined) return '—';
  const a = Math.abs(v);
  if (a === 0) return '0';
  const s = a >= 1e-3 && a < 1e4 ? a.toPrecision(4) : a.toExponential(2);
  return (v < 0 ? '−' : '+') + s;
}

const figures = readdirSync(dir, { withFileTypes: true })
  .filter((e) => e.isDirectory())
  .map((e) => e.name)
  .sort();
let found = 0;
for (const fig of figures) {
  const claims = join(dir, fig, 'claims.parquet');
  if (!statSync(claims, { throwIfNoEntry: false })) continue;
  found++;
  const c = quote(claims);
  const sum = await rows(`SELECT experiment, split_part(baseline, ' ', 1) AS baseline, count(*) AS n,
      count(*) FILTER (holds AND diff_mean < 0) AS lower, count(*) FILTER (holds AND diff_mean > 0) AS higher,
      count(*) FILTER (NOT holds) AS none, min(replicates) AS seeds_min, max(replicates) AS seeds_max
    FROM read_parquet(${c}) WHERE metric = selected_on GROUP BY ALL ORDER BY ALL`);
  console.log(`### ${fig}\n`);
  console.log('| experiment | baseline | reported | hold, method lower | hold, method higher | no claim | seeds |');
  console.log('|---|---|---|---|---|---|---|');
  for (const r of sum) {
    const seeds = r.seeds_min === r.seeds_max ? `${r.seeds_min}` : `${r.seeds_min}–${r.seeds_max}`;
    console.log(`| ${r.experiment} | ${r.baseline} | ${r.n} | ${r.lower} | ${r.higher} | ${r.none} | ${seeds} |`);
  }
  console.log('');
  if (mode !== 'summary') {
    const list = await rows(`SELECT experiment, objective, split_part(optimizer, ' ', 1) AS opt, stages,
        total_microbatches AS k, n, noise, method, baseline, metric, diff_mean, diff_low, diff_high,
        seeds_agree, replicates, holds
      FROM read_parquet(${c}) WHERE metric = selected_on ${mode === 'holds' ? 'AND holds' : ''}
      ORDER BY experiment, objective, opt, stages, k, n, noise, baseline, method`);
    if (list.length > 0) {
      console.log('| experiment | objective | optimizer | S | K | n | σ | method | baseline | metric | method − baseline [95 % t] | k of n | holds |');
      console.log('|---|---|---|---|---|---|---|---|---|---|---|---|---|');
      for (const r of list) {
        console.log(`| ${r.experiment} | ${r.objective} | ${r.opt} | ${r.stages} | ${r.k || '—'} | ${r.n || '—'} | ${r.noise} | ${r.method} | ${r.baseline} | ${r.metric} | ${num(r.diff_mean)} [${num(r.diff_low)}, ${num(r.diff_high)}] | ${r.seeds_agree} of ${r.replicates} | ${r.holds ? 'yes' : 'no'} |`);
      }
      console.log('');
    }
  }
  const runs = join(dir, fig, 'runs.parquet');
  if (!statSync(runs, { throwIfNoEntry: false })) continue;
  const lm = await rows(`SELECT experiment, method, concat_ws(' ', method_settings,
        CASE WHEN method = 'localsgd' THEN 'H=' || local_steps END, delay_model) AS settings,
      split_part(optimizer, ' ', 1) AS opt, stages, min(total_microbatches) AS kmin, max(total_microbatches) AS kmax,
      count(*) AS seeds, avg(held_out_loss) AS mean, min(held_out_loss) AS lo, max(held_out_loss) AS hi
    FROM read_parquet(${quote(runs)}) WHERE objective = 'charlm' AND selected GROUP BY ALL ORDER BY ALL`);
  if (lm.length > 0) {
    console.log('| LM runs (selected) | method | settings | optimizer | S | microbatches | seeds | held-out loss, mean [min, max] |');
    console.log('|---|---|---|---|---|---|---|---|');
    for (const r of lm) {
      const k = r.kmin === r.kmax ? `${r.kmin}` : `${r.kmin}–${r.kmax}`;
      console.log(`| ${r.experiment} | ${r.method} | ${r.settings} | ${r.opt} | ${r.stages} | ${k} | ${r.seeds} | ${r.mean.toFixed(4)} [${r.lo.toFixed(4)}, ${r.hi.toFixed(4)}] |`);
    }
    console.log('');
  }
}
if (found === 0) {
  console.error(`claims: no FIGURE/claims.parquet under ${dir}`);
  process.exit(2);
}
