/**
 * Gatehouse's command line as a library: the program behind the `gatehouse` binary, and the
 * pieces it is made of (feature detection, migration planning, the doctor's checks). The schema
 * model and its renderers are at `@gatehousejs/cli/schema`.
 * @module
 */
export type { Io } from "./commands/io.js";
export { newSecret } from "./commands/secret.js";
export { type Detected, detectFeatures } from "./config/features.js";
export {
  CONFIG_FILES,
  findConfigFile,
  type Loaded,
  type LoadedConfig,
  loadConfig,
} from "./config/load.js";
export { type Connection, connect, dialectOfUrl } from "./db/connect.js";
export { type Found, type FoundTable, introspect } from "./db/introspect.js";
export { checkConfig, type Finding } from "./doctor/checks.js";
export { CliError } from "./errors.js";
export { type MigrateOptions, migrateDatabase } from "./migrate/apply.js";
export {
  type Plan,
  type PlanOptions,
  planMigration,
  RETIRED_COLUMNS,
  type RetiredColumn,
  type Step,
} from "./migrate/plan.js";
export { createProgram } from "./program.js";
