/**
 * Loads the app's Gatehouse configuration the way the app runs it: its own file, TypeScript
 * included (through jiti), with the app's `.env` files for the variables it reads.
 */
import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseEnv } from "node:util";
import { createJiti } from "jiti";
import { CliError } from "../errors.js";

/** The files looked for, in order, in the working folder and then in `src/`. */
export const CONFIG_FILES = [
  "auth.config.ts",
  "auth.config.mts",
  "auth.config.js",
  "auth.config.mjs",
  "auth.ts",
  "auth.js",
  "gatehouse.config.ts",
  "gatehouse.config.mts",
  "gatehouse.config.js",
  "gatehouse.config.mjs",
];

/** The export names tried, in order, after the default export. */
const NAMES = ["config", "authConfig"] as const;

/** A configuration as the app wrote it: only the parts the command line reads are typed. */
export interface LoadedConfig {
  providers?: unknown[];
  adapter?: Record<string, unknown>;
  session?: { strategy?: string; revocation?: { store?: unknown } };
  securityLog?: { store?: unknown } | false;
  rateLimit?: { store?: unknown } | false;
  secret?: string | string[];
  url?: string | URL;
  trustHost?: boolean;
  basePath?: string;
  trustedProxies?: unknown;
  clientAddress?: unknown;
  experimental?: { enableWebAuthn?: boolean };
  [key: string | symbol]: unknown;
}

/** Where the configuration was found, and what it is. */
export interface Loaded {
  file: string;
  exportName: string;
  config: LoadedConfig;
}

/** The configuration file: `given` (relative to `cwd`), or the first of {@link CONFIG_FILES}. */
export function findConfigFile(cwd: string, given?: string): string {
  if (given) {
    const file = resolve(cwd, given);
    if (!existsSync(file)) throw new CliError(`no configuration file at ${given}`);
    return file;
  }
  for (const dir of [cwd, join(cwd, "src")]) {
    for (const name of CONFIG_FILES) {
      const file = join(dir, name);
      if (existsSync(file)) return file;
    }
  }
  throw new CliError(
    `no Gatehouse configuration found in ${cwd} (looked for ${CONFIG_FILES.filter((f) => f.endsWith(".ts")).join(", ")}, also in src/): pass --config <file>`,
  );
}

/**
 * Reads `.env.local` and `.env` from `cwd` into `env`, without replacing variables already set
 * (as the app's framework does). Returns the files read.
 */
export function loadEnvFiles(cwd: string, env: NodeJS.ProcessEnv = process.env): string[] {
  const read: string[] = [];
  for (const name of [".env.local", ".env"]) {
    const file = join(cwd, name);
    if (!existsSync(file)) continue;
    const values = parseEnv(readFileSync(file, "utf8"));
    for (const [key, value] of Object.entries(values)) {
      if (env[key] === undefined) env[key] = value;
    }
    read.push(name);
  }
  return read;
}

const isConfig = (value: unknown): value is LoadedConfig =>
  typeof value === "object" && value !== null && Array.isArray((value as LoadedConfig).providers);

/**
 * Imports the configuration file and returns its configuration: the default export, else the
 * export named `config` or `authConfig`. A function export is called (a lazy configuration).
 */
export async function loadConfig(file: string): Promise<Loaded> {
  const jiti = createJiti(import.meta.url, { fsCache: false, moduleCache: false });
  let mod: Record<string, unknown>;
  try {
    mod = (await jiti.import(file)) as Record<string, unknown>;
  } catch (cause) {
    const message = String((cause as Error)?.message ?? cause).split("\n")[0];
    throw new CliError(`could not load ${file}: ${message}`);
  }
  for (const name of ["default", ...NAMES]) {
    let value = mod[name];
    if (typeof value === "function" && name !== "default") value = await value();
    if (typeof value === "function" && name === "default" && value.length === 0) {
      value = await value();
    }
    if (isConfig(value)) return { file, exportName: name, config: value };
  }
  throw new CliError(
    `${file} exports no Gatehouse configuration: export it as default, or as "config" or "authConfig" (an object with providers)`,
  );
}
