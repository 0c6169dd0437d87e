/** One bar of the chart: one contender's figures in one group. */
export interface ChartContender {
  id?: string;
  library?: string | null;
  label: string;
  info?: boolean;
  opsPerSec: number;
  rsd?: number;
  cpuUsPerOp?: number;
  vsAuthjs?: number;
  vsBetterAuth?: number;
}

/** One panel of the chart. */
export interface ChartGroup {
  id?: string;
  title: string;
  contenders: ChartContender[];
}

/** What `bench/results.json` holds. */
export interface ChartResults {
  meta?: {
    generated?: string;
    command?: string;
    node?: string;
    cpu?: string;
    cpus?: number;
    loadavg?: { before: number[]; after: number[] };
    [key: string]: unknown;
  };
  groups: ChartGroup[];
}

export function escapeXml(value: unknown): string;
export function validateResults(results: unknown): asserts results is ChartResults;
export function renderChart(results: unknown): string;
export function writeChart(resultsPath: string, chartPath: string): void;
