/**
 * `gatehouse migrate`: brings the database to the schema of the configured features, adding
 * what it lacks. Never drops anything without `--allow-destructive`.
 */
import { redactUrl } from "../db/connect.js";
import { CliError } from "../errors.js";
import { migrateDatabase } from "../migrate/apply.js";
import { type DatabaseOptions, databaseOf, withDatabase } from "./database.js";
import { type FeatureOptions, featuresFor } from "./features.js";
import type { Io } from "./io.js";

/** Options of {@link migrateCommand}. */
export interface MigrateCommandOptions extends FeatureOptions, DatabaseOptions {
  dryRun?: boolean;
  allowDestructive?: boolean;
}

/** Applies (or, with `--dry-run`, prints) the pending statements. */
export async function migrateCommand(options: MigrateCommandOptions, io: Io): Promise<void> {
  const features = await featuresFor(options, io);
  const db = databaseOf(options, io);
  if (!db) throw new CliError("no database: pass --url or set DATABASE_URL");
  io.err(`Database: ${redactUrl(db.url)} (${db.dialect}).`);
  const plan = await withDatabase(db, (conn) =>
    migrateDatabase(conn, {
      features,
      ...(options.schema ? { schema: options.schema } : {}),
      ...(options.dryRun ? { dryRun: true } : {}),
      ...(options.allowDestructive ? { allowDestructive: true } : {}),
      onStep: (step) => {
        if (options.dryRun)
          io.out(`-- ${step.does}${step.destructive ? " (destructive)" : ""}\n${step.sql};\n`);
        else io.err(`  ${step.does}`);
      },
    }),
  );
  for (const extra of plan.extraColumns) {
    io.err(`Kept ${extra.table}.${extra.column}: not a Gatehouse column (never dropped).`);
  }
  const destructive = plan.steps.filter((s) => s.destructive).length;
  if (options.dryRun && destructive > 0 && !options.allowDestructive) {
    io.err(`${destructive} destructive statement(s) above would need --allow-destructive.`);
  }
  const count = plan.steps.length;
  if (count === 0) io.err("The database is up to date.");
  else if (options.dryRun) io.err(`${count} statement(s) pending (dry run: nothing was changed).`);
  else io.err(`Applied ${count} statement(s).`);
}
