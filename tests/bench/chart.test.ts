import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { type ChartResults, renderChart, writeChart } from "../../bench/chart.mjs";

const bench = (name: string) => fileURLToPath(new URL(`../../bench/${name}`, import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "gatehouse-chart-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function results(): ChartResults {
  return {
    meta: {
      generated: "2026-01-02T03:04:05.000Z",
      command: "node bench/three-way.mjs",
      node: "v20.0.0",
      cpus: 2,
      cpu: "Test CPU",
      loadavg: { before: [1.25, 1, 1], after: [2.5, 1, 1] },
    },
    groups: [
      {
        id: "in-process-cookie",
        title: "In process, session in the cookie",
        contenders: [
          {
            id: "gatehouse",
            library: "Gatehouse",
            label: "Gatehouse getSession(), JWT",
            opsPerSec: 40000,
            cpuUsPerOp: 12.5,
            vsAuthjs: 50,
            vsBetterAuth: 8,
          },
          { id: "authjs", library: "@auth/core", label: "@auth/core, JWT", opsPerSec: 800 },
          {
            id: "better-auth",
            library: "Better Auth",
            label: "Better Auth, cookie cache",
            opsPerSec: 5000,
          },
        ],
      },
      {
        id: "http-cookie",
        title: "Over node:http",
        contenders: [
          { id: "gatehouse", library: "Gatehouse", label: "Gatehouse over HTTP", opsPerSec: 3000 },
          { id: "floor", library: null, label: "node:http alone", info: true, opsPerSec: 12000 },
        ],
      },
    ],
  };
}

/** The widths of the bars, in document order (the background is the only other rect). */
const barWidths = (svg: string) =>
  [...svg.matchAll(/<rect x="[\d.]+" y="[\d.]+" width="([\d.]+)" height="16"/g)].map((m) =>
    Number(m[1]),
  );

describe("bench/chart.mjs", () => {
  it("draws one bar per contender, to one linear scale per panel, with its figures as text", () => {
    const svg = renderChart(results());
    expect(svg.startsWith("<svg ")).toBe(true);
    expect(svg).toContain('role="img" aria-labelledby="chart-title chart-desc"');
    expect(svg).toMatch(/<title id="chart-title">[^<]+<\/title>/);
    const widths = barWidths(svg);
    expect(widths).toHaveLength(5);
    const [gatehouse, authjs, betterAuth, http, floor] = widths as [
      number,
      number,
      number,
      number,
      number,
    ];
    expect(authjs / gatehouse).toBeCloseTo(800 / 40000, 2);
    expect(betterAuth / gatehouse).toBeCloseTo(5000 / 40000, 2);
    // The second panel has its own scale: its longest bar is as long as the first panel's.
    expect(floor).toBeCloseTo(gatehouse, 5);
    expect(http / floor).toBeCloseTo(3000 / 12000, 2);
    for (const figure of [
      "40,000/s · 25.0 µs (CPU 12.5 µs)",
      "800/s · 1,250 µs",
      "5,000/s · 200 µs",
    ]) {
      expect(svg).toContain(figure);
    }
    expect(svg).toContain("Gatehouse&apos;s rate: 50× @auth/core, 8.0× Better Auth");
    expect(svg).toContain(
      "Measured 2026-01-02, Node v20.0.0, 2 × Test CPU, load average 1.3 → 2.5",
    );
  });

  it("says every figure in the description, for a reader who cannot see the bars", () => {
    const svg = renderChart(results());
    const desc = svg.match(/<desc id="chart-desc">([^<]*)<\/desc>/)?.[1] ?? "";
    for (const figure of ["40,000 per second", "800 per second", "5,000 per second", "3,000"]) {
      expect(desc).toContain(figure);
    }
    expect(desc).toContain("node:http alone (for information): 12,000 per second");
    expect(desc).toContain("40,000 per second, 25.0 microseconds each, 12.5 of them on the CPU");
  });

  it("escapes the labels it is given", () => {
    const input = results();
    input.groups[0]!.title = 'A <b>&"panel"';
    input.groups[0]!.contenders[0]!.label = "<script>alert(1)</script>";
    const svg = renderChart(input);
    expect(svg).not.toContain("<script>");
    expect(svg).not.toContain("<b>");
    expect(svg).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
    expect(svg).toContain("A &lt;b&gt;&amp;&quot;panel&quot;");
  });

  it("refuses results without a figure rather than drawing an empty bar", () => {
    const missing = results() as unknown as { groups: { contenders: object[] }[] };
    missing.groups[1]!.contenders[0] = { label: "Gatehouse over HTTP" };
    expect(() => renderChart(missing)).toThrow(
      "results.json: group 2, bar 1 (Gatehouse over HTTP) has no positive opsPerSec",
    );
    expect(() => renderChart({ groups: [] })).toThrow("results.json: no groups to draw");
    expect(() => renderChart(null)).toThrow("results.json: no groups to draw");
  });

  it("renders a results file from the command line, and exits 1 on a broken one", () => {
    const input = join(dir, "results.json");
    const output = join(dir, "chart.svg");
    writeFileSync(input, JSON.stringify(results()));
    execFileSync(process.execPath, [bench("chart.mjs"), input, output]);
    expect(readFileSync(output, "utf8")).toBe(renderChart(results()));

    writeFileSync(input, "{ not json");
    let status = 0;
    let stderr = "";
    try {
      execFileSync(process.execPath, [bench("chart.mjs"), input, join(dir, "other.svg")], {
        stdio: "pipe",
      });
    } catch (error) {
      status = (error as { status: number }).status;
      stderr = String((error as { stderr: Buffer }).stderr);
    }
    expect(status).toBe(1);
    expect(stderr).toContain(`bench/chart.mjs: cannot read ${input}`);
  });

  it("the committed chart is the one the committed results draw", () => {
    const redrawn = join(dir, "committed.svg");
    writeChart(bench("results.json"), redrawn);
    expect(readFileSync(bench("chart.svg"), "utf8")).toBe(readFileSync(redrawn, "utf8"));
  });
});
