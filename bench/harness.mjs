/**
 * A small, honest timing loop. Each operation is awaited one after the other (no overlap), so
 * ops/s is one over the latency of one call on one core. The two libraries of a scenario run in
 * alternating slices, so slow drift (CPU clock, GC pressure, a noisy neighbour) lands on both
 * rather than on whichever ran second.
 */

const BATCH = 8;

/**
 * Runs `op` back to back until about `ms` milliseconds of it have been timed. An op is a function,
 * or `{ prepare, run }`: `prepare()` builds one call's input (a fresh `Request`, say) outside the
 * clock, a batch at a time, and only `run(input)` is timed. `prepare` may return a promise (an
 * OAuth sign-in that the timed callback completes, say); it is awaited outside the clock too.
 * Beside the wall time it sums the process's CPU time (all its threads: the libuv pool that runs
 * WebCrypto included) over the same batches, read outside the wall clock: on a loaded machine the
 * wall time of an op that waits on a socket is mostly waiting to be scheduled again.
 */
async function runFor(op, ms) {
  const run = typeof op === "function" ? op : op.run;
  const prepare = typeof op === "function" ? () => undefined : op.prepare;
  let ops = 0;
  let timed = 0;
  let cpuUs = 0;
  const inputs = new Array(BATCH);
  while (timed < ms) {
    for (let i = 0; i < BATCH; i++) {
      const input = prepare();
      inputs[i] = input instanceof Promise ? await input : input;
    }
    const cpu = process.cpuUsage();
    const start = performance.now();
    for (let i = 0; i < BATCH; i++) await run(inputs[i]);
    timed += performance.now() - start;
    const used = process.cpuUsage(cpu);
    cpuUs += used.user + used.system;
    ops += BATCH;
  }
  return { ops, ms: timed, cpuUs };
}

export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/**
 * Runs every op in turn, `sliceMs` at a time, until `totalMs` have passed. V8 keeps optimising a
 * library's request path for seconds (@auth/core's no-cookie session answer went from about
 * 2,000 to 6,000 a second over its first few seconds here), so every library is warmed
 * on all its paths before any timing.
 */
export async function warmUp(ops, { totalMs, sliceMs = 250 }) {
  const end = performance.now() + totalMs;
  while (performance.now() < end) for (const op of ops) await runFor(op, sliceMs);
}

/**
 * ops/s is the median of the per-slice rates: on a shared machine a burst of outside load
 * spoils a slice or two, and the median ignores them where a mean would not.
 */
function summarize(slices) {
  const rates = slices.map((s) => (s.ops * 1000) / s.ms);
  const mean = rates.reduce((a, b) => a + b, 0) / rates.length;
  const variance = rates.reduce((a, r) => a + (r - mean) ** 2, 0) / Math.max(1, rates.length - 1);
  return {
    ops: slices.reduce((n, s) => n + s.ops, 0),
    rates,
    opsPerSec: median(rates),
    // CPU microseconds per op, the median slice.
    cpuUsPerOp: median(slices.map((s) => s.cpuUs / s.ops)),
    // Relative standard deviation of the per-slice rates, as a fraction.
    rsd: mean > 0 ? Math.sqrt(variance) / mean : 0,
  };
}

/**
 * Times contenders (`{ name: op }`) for `budgetMs` each, in `slices` interleaved slices, after
 * `warmupMs` of warm-up each; the order alternates every slice. With two contenders `ratio` is
 * the median, over the slices, of first-contender rate / second-contender rate: slice i of each ran back to
 * back, so load from outside the process that hits both cancels out of their quotient. With a
 * `baseline` (one of the names), `ratios[name]` is that median for every other contender
 * against the baseline, so several contenders can be timed against one in a single run.
 */
export async function compare(contenders, { budgetMs, slices, warmupMs, baseline }) {
  const names = Object.keys(contenders);
  for (const name of names) await runFor(contenders[name], warmupMs);
  const taken = Object.fromEntries(names.map((n) => [n, []]));
  const sliceMs = budgetMs / slices;
  for (let i = 0; i < slices; i++) {
    const order = i % 2 === 0 ? names : [...names].reverse();
    for (const name of order) taken[name].push(await runFor(contenders[name], sliceMs));
  }
  const result = Object.fromEntries(names.map((n) => [n, summarize(taken[n])]));
  const quotient = (a, b) => median(result[a].rates.map((rate, i) => rate / result[b].rates[i]));
  if (names.length === 2) result.ratio = quotient(names[0], names[1]);
  if (baseline !== undefined) {
    result.ratios = {};
    for (const name of names) if (name !== baseline) result.ratios[name] = quotient(name, baseline);
  }
  return result;
}
