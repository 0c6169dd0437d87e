/**
 * Runs a migration: looks at the database and applies the plan, under a lock so that two
 * deploys at once do not both add a column. PostgreSQL and SQLite apply it in one transaction;
 * MySQL commits each DDL statement by itself, so a failed run is finished by running it again.
 */

import { type Connection, describe } from "../db/connect.js";
import { currentSchema, introspect } from "../db/introspect.js";
import { CliError } from "../errors.js";
import type { SchemaFeatures } from "../schema/index.js";
import { type Plan, planMigration, type RetiredColumn, type Step } from "./plan.js";

/** Options of {@link migrateDatabase}. */
export interface MigrateOptions {
  features?: Partial<SchemaFeatures>;
  /** PostgreSQL schema; default the connection's current schema. */
  schema?: string;
  /** Look and plan only. */
  dryRun?: boolean;
  /** Allow statements that drop something. Without it a plan that has one is refused. */
  allowDestructive?: boolean;
  /** Retired columns (tests); default the package's list. */
  retired?: readonly RetiredColumn[];
  /** Called before each statement runs (or, dry, instead of it). */
  onStep?: (step: Step) => void;
}

async function schemaExists(conn: Connection, schema: string): Promise<boolean> {
  const rows = await conn.query("SELECT 1 AS x FROM pg_catalog.pg_namespace WHERE nspname = $1", [
    schema,
  ]);
  return rows.length > 0;
}

/** The plan, after it ran (or, with `dryRun`, without running it). */
export async function migrateDatabase(
  conn: Connection,
  options: MigrateOptions = {},
): Promise<Plan> {
  const schema =
    conn.dialect === "postgresql" ? (options.schema ?? (await currentSchema(conn))) : undefined;
  const plan = async () =>
    planMigration(conn.dialect, await introspect(conn, schema), {
      ...(schema && !(await schemaExists(conn, schema)) ? { createSchema: true } : {}),
      ...(options.features ? { features: options.features } : {}),
      ...(schema && schema !== "public" ? { schema } : {}),
      ...(options.retired ? { retired: options.retired } : {}),
    });
  const refuse = (p: Plan) => {
    const destructive = p.steps.filter((s) => s.destructive);
    if (destructive.length > 0 && !options.allowDestructive && !options.dryRun) {
      throw new CliError(
        `refusing to ${destructive.map((s) => s.does).join(", ")} without --allow-destructive`,
      );
    }
  };
  if (options.dryRun) {
    const p = await plan();
    for (const step of p.steps) options.onStep?.(step);
    return p;
  }
  const run = async (p: Plan) => {
    refuse(p);
    for (const step of p.steps) {
      options.onStep?.(step);
      try {
        await conn.query(step.sql);
      } catch (cause) {
        throw new CliError(`could not ${step.does}: ${describe(cause)}`);
      }
    }
    return p;
  };
  if (conn.dialect === "postgresql") {
    await conn.query("BEGIN");
    try {
      // The lock pg-adapter's migrate() takes: the CLI and an app starting up never interleave.
      await conn.query("SELECT pg_advisory_xact_lock(hashtext('@gatehousejs/pg-adapter migrate'))");
      const done = await run(await plan());
      await conn.query("COMMIT");
      return done;
    } catch (error) {
      await conn.query("ROLLBACK").catch(() => {});
      throw error;
    }
  }
  if (conn.dialect === "sqlite") {
    await conn.query("BEGIN IMMEDIATE");
    try {
      const done = await run(await plan());
      await conn.query("COMMIT");
      return done;
    } catch (error) {
      await conn.query("ROLLBACK").catch(() => {});
      throw error;
    }
  }
  const [lock] = await conn.query("SELECT GET_LOCK('gatehouse_migrate', 60) AS got");
  if (Number(lock?.got) !== 1) {
    throw new CliError(
      "another migration holds the lock gatehouse_migrate: try again when it ends",
    );
  }
  try {
    return await run(await plan());
  } finally {
    await conn.query("SELECT RELEASE_LOCK('gatehouse_migrate')").catch(() => {});
  }
}
