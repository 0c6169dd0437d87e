/**
 * `gatehouse doctor`: checks the configuration and its environment, and the database's schema
 * when one is given, and prints what to fix. Exit code 1 when anything is an error.
 */
import { detectFeatures } from "../config/features.js";
import { findConfigFile, loadConfig, loadEnvFiles } from "../config/load.js";
import { describe, redactUrl } from "../db/connect.js";
import { currentSchema, introspect } from "../db/introspect.js";
import { checkConfig, type Finding } from "../doctor/checks.js";
import { CliError } from "../errors.js";
import { planMigration } from "../migrate/plan.js";
import { type SchemaFeatures, TABLES } from "../schema/index.js";
import { type DatabaseOptions, databaseOf, withDatabase } from "./database.js";
import type { Io } from "./io.js";

/** Options of {@link doctorCommand}. */
export interface DoctorOptions extends DatabaseOptions {
  config?: string;
}

/** The features that are a store of their own, with the option that configures each. */
const STORE_FEATURES = [
  { name: "revocation", option: "session.revocation.store" },
  { name: "securityLog", option: "securityLog.store" },
  { name: "rateLimit", option: "rateLimit.store" },
] as const;

const MARK: Record<Finding["level"], string> = {
  error: "✖ error",
  warning: "! warning",
  info: "· info",
};

/** Checks, prints, and returns whether there was an error (the exit code is 1 then). */
export async function doctorCommand(options: DoctorOptions, io: Io): Promise<boolean> {
  const envFiles = loadEnvFiles(io.cwd, io.env);
  const file = findConfigFile(io.cwd, options.config);
  const loaded = await loadConfig(file);
  io.out(`Configuration: ${file} (export ${loaded.exportName})`);
  if (envFiles.length > 0) io.out(`Environment files: ${envFiles.join(", ")}`);
  const findings = checkConfig(loaded.config, io.env);
  const db = databaseOf(options, io);
  if (db) {
    io.out(`Database: ${redactUrl(db.url)} (${db.dialect})`);
    findings.push(...(await schemaFindings(db, options, detectFeatures(loaded.config).features)));
  } else {
    findings.push({
      level: "info",
      topic: "schema",
      message: "no database given (--url or DATABASE_URL): schema not checked",
    });
  }
  for (const f of findings) io.out(`${MARK[f.level]} [${f.topic}] ${f.message}`);
  const errors = findings.filter((f) => f.level === "error").length;
  const warnings = findings.filter((f) => f.level === "warning").length;
  io.out(
    errors > 0
      ? `${errors} error(s), ${warnings} warning(s): fix the errors above.`
      : warnings > 0
        ? `No errors, ${warnings} warning(s).`
        : "No problems found.",
  );
  return errors > 0;
}

async function schemaFindings(
  db: { url: string; dialect: "postgresql" | "mysql" | "sqlite" },
  options: DoctorOptions,
  features: SchemaFeatures,
): Promise<Finding[]> {
  let plan: ReturnType<typeof planMigration>;
  try {
    plan = await withDatabase(
      db,
      async (conn) => {
        const schema =
          conn.dialect === "postgresql"
            ? (options.schema ?? (await currentSchema(conn)))
            : undefined;
        return planMigration(conn.dialect, await introspect(conn, schema), {
          features,
          ...(schema && schema !== "public" ? { schema } : {}),
        });
      },
      { existing: true },
    );
  } catch (cause) {
    const message = cause instanceof CliError ? cause.message : describe(cause);
    return [{ level: "error", topic: "schema", message }];
  }
  const findings: Finding[] = [];
  // A store's tables all missing most likely means the store lives elsewhere (Redis, memory),
  // which the configuration's object does not always tell: a warning, not an error.
  const elsewhere = new Set<string>();
  for (const feature of STORE_FEATURES) {
    const tables = TABLES.filter((t) => t.feature === feature.name).map((t) => t.name);
    if (tables.every((t) => plan.missingTables.includes(t))) {
      for (const t of tables) elsewhere.add(t);
      if (features[feature.name]) {
        findings.push({
          level: "warning",
          topic: "schema",
          message: `no ${tables.join(", ")} table: fine if ${feature.option} keeps its data elsewhere (Redis, memory); if it is a SQL store, run \`npx gatehouse migrate\``,
        });
      }
    }
  }
  for (const t of plan.missingTables.filter((name) => !elsewhere.has(name))) {
    findings.push({ level: "error", topic: "schema", message: `missing table ${t}` });
  }
  for (const c of plan.missingColumns) {
    findings.push({
      level: "error",
      topic: "schema",
      message: `missing column ${c.table}.${c.column}`,
    });
  }
  for (const i of plan.missingIndexes) {
    findings.push({
      level: "error",
      topic: "schema",
      message: `missing index ${i.index} on ${i.table}`,
    });
  }
  for (const p of plan.problems) findings.push({ level: "error", topic: "schema", message: p });
  for (const c of plan.extraColumns) {
    findings.push({
      level: "info",
      topic: "schema",
      message: `${c.table}.${c.column} is not a Gatehouse column (fine; never dropped)`,
    });
  }
  if (plan.steps.length > 0) {
    findings.push({
      level: "info",
      topic: "schema",
      message: "`npx gatehouse migrate` adds what is missing",
    });
  }
  return findings;
}
