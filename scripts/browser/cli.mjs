// The command line's answers for the browser tests: the pipelab binary
// (PIPELAB, built by test.sh) run with the flags the page was given.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";

const bin = process.env.PIPELAB;

export function cli(...args) { return execFileSync(bin, args, { encoding: "utf8", maxBuffer: 1 << 28 }); }
export function cliJSON(...args) { return JSON.parse(cli(...args, "--format", "json")); }
// cliError is the first line the command line prints for bad input, and its exit status 2.
export function cliError(...args) {
  try { execFileSync(bin, args, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }); } catch (e) {
    assert.equal(e.status, 2, `${args.join(" ")} exits with 2`);
    return e.stderr.split("\n")[0];
  }
  assert.fail(`${args.join(" ")} succeeded`);
}
// line returns the value after "label:" in the command line's text output.
export function line(text, label) {
  const m = text.match(new RegExp("^" + label + ":\\s+(.*)$", "m"));
  assert.ok(m, `no "${label}:" line in\n${text}`);
  return m[1].trim();
}
// sameDigits says that the page's text is value to six significant digits.
export function sameDigits(pageText, value, what) {
  const x = Number(pageText);
  assert.ok(Math.abs(x - value) <= 5e-6 * Math.abs(value), `${what}: page ${pageText}, command line ${value}`);
}
