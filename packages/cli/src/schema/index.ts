/**
 * Gatehouse's tables without a dialect, and their DDL for PostgreSQL, MySQL/MariaDB and SQLite.
 * No Node-only imports: adapters' tests and browsers' bundlers can load it.
 * @module
 */

export { type DrizzleOptions, drizzleSchema } from "./drizzle.js";
export {
  ALL_FEATURES,
  FEATURE_NAMES,
  resolveFeatures,
  type SchemaFeatures,
} from "./features.js";
export {
  type Column,
  type ColumnType,
  type Index,
  isKeyed,
  TABLES,
  type Table,
  tablesFor,
} from "./model.js";
export { type PrismaOptions, prismaSchema } from "./prisma.js";
export {
  addColumnSql,
  columnSql,
  createIndexSql,
  createTableSql,
  DIALECTS,
  type Dialect,
  MYSQL_EMAIL_KEY,
  mysqlEmailKeySql,
  qualifier,
  quoteIdent,
  type SqlOptions,
  sqlScript,
  sqlStatements,
  tableStatements,
} from "./sql.js";
