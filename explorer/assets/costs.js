// Per-stage times typed in the page: a row per stage of the table with
// T_F, T_B, T_W and the transfer to the next stage, in milliseconds. The
// page writes them as the costs file "pipelab simulate --costs" reads
// (docs/presets.md, "Measured costs") and sends it as that upload, so the
// server prices them as it prices a measured file.
"use strict";

const TYPED_COLUMNS = ["fwd_ms", "bwd_ms", "wgrad_ms", "comm_ms"];
const TYPED_DEFAULT = ["1", "1", "1", "0"];

// typedRows sets the table to n stages, keeping the times typed so far;
// a new stage starts with the times of the stage before it.
function typedRows(n) {
  const body = $("typed-costs").tBodies[0];
  n = Math.max(1, Math.min(256, Math.floor(Number(n)) || 1));
  while (body.rows.length > n) body.deleteRow(-1);
  while (body.rows.length < n) {
    const s = body.rows.length, prev = s > 0 ? typedRow(s - 1) : TYPED_DEFAULT;
    const tr = body.insertRow();
    tr.innerHTML = `<th>${s}</th>` + TYPED_COLUMNS.map((c, j) => `<td><input data-col="${c}" aria-label="stage ${s} ${c}" value="${esc(prev[j])}" inputmode="decimal"></td>`).join("");
  }
  // The last stage sends nothing on: its transfer is empty.
  [...body.rows].forEach((tr, s) => { const comm = tr.querySelector('[data-col="comm_ms"]'); comm.disabled = s === n - 1; });
}

function typedRow(s) {
  return [...$("typed-costs").tBodies[0].rows[s].querySelectorAll("input")].map(i => i.value.trim());
}

// typedCostsCSV is the table as a costs file.
function typedCostsCSV() {
  const rows = $("typed-costs").tBodies[0].rows;
  let csv = "stage," + TYPED_COLUMNS.join(",") + "\n";
  for (let s = 0; s < rows.length; s++) {
    const v = typedRow(s);
    if (s === rows.length - 1) v[3] = "";
    csv += s + "," + v.join(",") + "\n";
  }
  return csv;
}

function initTypedCosts() {
  typedRows($("typed-stages").value);
  $("typed-stages").addEventListener("input", () => typedRows($("typed-stages").value));
}
