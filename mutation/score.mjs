#!/usr/bin/env node
/**
 * Per-file mutation scores from Stryker's JSON report, with the reviewed survivors of
 * mutation/equivalent-mutants.md applied: an "equivalent" mutant leaves the denominator, a
 * "killed by hand" one (a test kills it, but Stryker cannot see it) counts as killed, and an
 * "open" one (a real gap, explained, not yet closed) still counts as survived. Lists every
 * surviving mutant that is not on the reviewed list, so a new survivor cannot hide behind an old
 * review, and every reviewed entry that no longer matches a survivor.
 *
 * Usage: node mutation/score.mjs [report.json] [equivalent-mutants.md]
 * Exit code 1 when a file scores under 90 %.
 */
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const reportPath = process.argv[2] ?? join(here, "reports/mutation.json");
const reviewPath = process.argv[3] ?? join(here, "equivalent-mutants.md");
const THRESHOLD = 90;

/** `| file | line | mutator | mutant | kind | why |` rows; `\|` stands for a pipe inside a cell. */
function reviewed(markdown) {
  const rows = [];
  for (const line of markdown.split("\n")) {
    if (!line.startsWith("| packages/")) continue;
    const cells = line
      .slice(1, -1)
      .split(/(?<!\\)\|/)
      .map((cell) => cell.trim().replace(/\\\|/g, "|"));
    const [file, at, mutator, mutant, kind] = cells;
    // A code span: one or more backticks, and a space inside them when the code touches one.
    const text = mutant.replace(/^(`+) ?([\s\S]*?) ?\1$/, "$2").replace(/\s+/g, " ");
    rows.push({
      file,
      line: Number(at),
      mutator,
      mutant: text,
      kind,
      used: 0,
    });
  }
  return rows;
}

const report = JSON.parse(readFileSync(reportPath, "utf8"));
const review = reviewed(readFileSync(reviewPath, "utf8"));
const detected = new Set(["Killed", "Timeout"]);
const missed = new Set(["Survived", "NoCoverage"]);

const table = [];
const unreviewed = [];
for (const [path, { mutants }] of Object.entries(report.files)) {
  const file = path.replace(/^.*?(packages\/)/, "$1");
  let killed = 0;
  let survived = 0;
  let equivalent = 0;
  let byHand = 0;
  for (const m of mutants) {
    if (detected.has(m.status)) killed++;
    else if (missed.has(m.status)) {
      const line = m.location.start.line;
      const same = (r) =>
        r.file === file &&
        r.line === line &&
        r.mutator === m.mutatorName &&
        r.mutant === String(m.replacement ?? "").replace(/\s+/g, " ");
      // Identical mutants at one line (two operands both made `true`) each have their own row.
      const match = review.find((r) => same(r) && r.used === 0) ?? review.find(same);
      if (match) {
        match.used++;
        if (match.kind === "killed by hand") {
          killed++;
          byHand++;
        } else if (match.kind === "open") survived++;
        else equivalent++;
      } else {
        survived++;
        unreviewed.push(`${file}:${line} ${m.status} ${m.mutatorName} \`${m.replacement}\``);
      }
    }
  }
  const counted = killed + survived;
  const score = counted === 0 ? 100 : (100 * killed) / counted;
  const raw = (100 * (killed - byHand)) / (killed + survived + equivalent || 1);
  table.push({ file, killed, survived, equivalent, raw, score });
}

table.sort((a, b) => a.file.localeCompare(b.file));
console.log("| File | Killed | Survived | Equivalent | Stryker score | Score, reviewed |");
console.log("|---|---:|---:|---:|---:|---:|");
for (const t of table) {
  const mark = t.score >= THRESHOLD ? "" : " ✗";
  console.log(
    `| ${t.file} | ${t.killed} | ${t.survived} | ${t.equivalent} | ${t.raw.toFixed(1)} % | ${t.score.toFixed(1)} %${mark} |`,
  );
}
if (unreviewed.length > 0) {
  console.log(`\nSurvivors not on the reviewed list (${unreviewed.length}):`);
  for (const line of unreviewed) console.log(`- ${line}`);
}
const files = new Set(table.map((t) => t.file));
const stale = review.filter((r) => r.used === 0 && files.has(r.file));
if (stale.length > 0) {
  console.log(`\nReviewed entries that match no survivor in this report (${stale.length}):`);
  for (const r of stale) console.log(`- ${r.file}:${r.line} ${r.mutator} \`${r.mutant}\``);
}
process.exitCode = table.some((t) => t.score < THRESHOLD) ? 1 : 0;
