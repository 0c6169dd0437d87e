/**
 * The features a schema command works with: the app's configuration's (read from its file),
 * every one (`--all`), or exactly those named (`--features`, for a configuration that cannot be
 * loaded yet: one importing a Prisma client not generated yet), adjusted with `--with` and
 * `--without`.
 */
import { detectFeatures } from "../config/features.js";
import { findConfigFile, loadConfig, loadEnvFiles } from "../config/load.js";
import { CliError } from "../errors.js";
import { ALL_FEATURES, FEATURE_NAMES, type SchemaFeatures } from "../schema/index.js";
import type { Io } from "./io.js";

/** The options every schema command has. */
export interface FeatureOptions {
  config?: string;
  all?: boolean;
  features?: string[];
  with?: string[];
  without?: string[];
}

/** Parses a comma-separated list of feature names (for commander). */
export function featureList(value: string, previous: string[] = []): string[] {
  const names = value
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  for (const name of names) {
    if (!FEATURE_NAMES.includes(name as keyof SchemaFeatures)) {
      throw new CliError(`unknown feature "${name}": one of ${FEATURE_NAMES.join(", ")}`);
    }
  }
  return [...previous, ...names];
}

/** The features to write or apply, told on standard error. */
export async function featuresFor(options: FeatureOptions, io: Io): Promise<SchemaFeatures> {
  let features: SchemaFeatures;
  if (options.all && options.features) {
    throw new CliError("--all and --features name the features twice: give one of them");
  }
  if (options.all) {
    features = { ...ALL_FEATURES };
    io.err("Features: all (--all).");
  } else if (options.features) {
    features = { ...ALL_FEATURES };
    for (const name of FEATURE_NAMES) features[name] = options.features.includes(name);
    io.err(`Features: ${options.features.join(", ")} (--features).`);
  } else {
    loadEnvFiles(io.cwd, io.env);
    const file = findConfigFile(io.cwd, options.config);
    const loaded = await loadConfig(file);
    const detected = detectFeatures(loaded.config);
    features = detected.features;
    const list = FEATURE_NAMES.filter((n) => features[n]).map((n) => `${n} (${detected.why[n]})`);
    io.err(`Configuration: ${file} (export ${loaded.exportName}).`);
    io.err(`Features: ${list.length > 0 ? list.join(", ") : "none"}.`);
  }
  for (const name of options.with ?? []) features[name as keyof SchemaFeatures] = true;
  for (const name of options.without ?? []) features[name as keyof SchemaFeatures] = false;
  if (!FEATURE_NAMES.some((n) => features[n])) {
    throw new CliError(
      "this configuration stores nothing in a database (no adapter, no SQL store): nothing to write",
    );
  }
  return features;
}
