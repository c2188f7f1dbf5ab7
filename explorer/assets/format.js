// Number formats as pipelab's command line prints them (Go's fmt), so that
// the page shows the same digits.
"use strict";

// fmtG is Go's %.{p}g: p significant digits, trailing zeros dropped, an
// exponent (two digits at least) when it is below -4 or at least p.
function fmtG(x, p) {
  if (x === null || x === undefined) return "n/a";
  if (x === 0) return "0";
  if (!isFinite(x)) return x > 0 ? "+Inf" : (x < 0 ? "-Inf" : "NaN");
  const e = x.toExponential(p - 1);
  let [mant, exp] = e.split("e");
  const n = parseInt(exp, 10);
  if (n < -4 || n >= p) {
    if (mant.includes(".")) mant = mant.replace(/0+$/, "").replace(/\.$/, "");
    const sign = n < 0 ? "-" : "+";
    const digits = String(Math.abs(n)).padStart(2, "0");
    return mant + "e" + sign + digits;
  }
  let s = x.toFixed(Math.max(0, p - 1 - n));
  if (s.includes(".")) s = s.replace(/0+$/, "").replace(/\.$/, "");
  return s;
}

// fmtF is Go's %.{p}f.
function fmtF(x, p) { return x.toFixed(p); }

// gb is the command line's memory column: "-" for none, else GB (10⁹ bytes) to two
// decimals.
function gb(bytes) { return !bytes ? "-" : (bytes / 1e9).toFixed(2) + " GB"; }

function esc(s) {
  return String(s).replace(/[&<>"']/g, c => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c]));
}
