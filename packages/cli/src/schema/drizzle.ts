/**
 * The model as a Drizzle schema file (TypeScript) for `drizzle-orm/pg-core`, `mysql-core` or
 * `sqlite-core`. Table and column names and types match {@link sqlStatements}'s DDL, so the
 * file can sit on tables `gatehouse migrate` made, and `drizzle-kit` sees no difference.
 */
import { resolveFeatures, type SchemaFeatures } from "./features.js";
import { type Column, isKeyed, type Table, tablesFor } from "./model.js";
import type { Dialect } from "./sql.js";

/** Options of {@link drizzleSchema}. */
export interface DrizzleOptions {
  /** The features whose tables to write; omitted, every table. */
  features?: Partial<SchemaFeatures>;
}

const CORE: Record<Dialect, { module: string; table: string }> = {
  postgresql: { module: "drizzle-orm/pg-core", table: "pgTable" },
  mysql: { module: "drizzle-orm/mysql-core", table: "mysqlTable" },
  sqlite: { module: "drizzle-orm/sqlite-core", table: "sqliteTable" },
};

/** The helpers every file declares (they keep the column lines short), by the builder they use. */
const HELPERS: Record<Dialect, Record<string, { builder: string; code: string }>> = {
  postgresql: {
    at: {
      builder: "timestamp",
      code: 'const at = (name: string) => timestamp(name, { withTimezone: true, mode: "date" });',
    },
  },
  mysql: {
    at: {
      builder: "datetime",
      code: 'const at = (name: string) => datetime(name, { mode: "date", fsp: 3 });',
    },
    key: {
      builder: "varchar",
      code: "const key = (name: string) => varchar(name, { length: 255 });",
    },
  },
  sqlite: {
    at: {
      builder: "integer",
      code: 'const at = (name: string) => integer(name, { mode: "timestamp_ms" });',
    },
  },
};

/** The builder call for a column, and the imports and helpers it needs. */
function builderOf(
  dialect: Dialect,
  table: Table,
  column: Column,
): { call: string; uses: string[]; helper?: string } {
  const n = JSON.stringify(column.name);
  switch (column.type) {
    case "string":
      if (dialect === "mysql" && isKeyed(table, column)) {
        return { call: `key(${n})`, uses: [], helper: "key" };
      }
      return { call: `text(${n})`, uses: ["text"] };
    case "timestamp":
      return { call: `at(${n})`, uses: [], helper: "at" };
    case "bigint":
      return dialect === "sqlite"
        ? { call: `integer(${n}, { mode: "number" })`, uses: ["integer"] }
        : { call: `bigint(${n}, { mode: "number" })`, uses: ["bigint"] };
    case "integer":
      return dialect === "mysql"
        ? { call: `int(${n})`, uses: ["int"] }
        : { call: `integer(${n})`, uses: ["integer"] };
    case "boolean":
      return dialect === "sqlite"
        ? { call: `integer(${n}, { mode: "boolean" })`, uses: ["integer"] }
        : { call: `boolean(${n})`, uses: ["boolean"] };
    case "json":
      if (dialect === "sqlite") return { call: `text(${n}, { mode: "json" })`, uses: ["text"] };
      return dialect === "mysql"
        ? { call: `json(${n})`, uses: ["json"] }
        : { call: `jsonb(${n})`, uses: ["jsonb"] };
  }
}

interface Needs {
  imports: Set<string>;
  helpers: Set<string>;
  sql: boolean;
}

function columnLine(dialect: Dialect, table: Table, column: Column, needs: Needs): string {
  const built = builderOf(dialect, table, column);
  for (const use of built.uses) needs.imports.add(use);
  if (built.helper) needs.helpers.add(built.helper);
  let line = built.call;
  const singlePk = table.primaryKey.length === 1 && table.primaryKey[0] === column.name;
  if (singlePk) line += ".primaryKey()";
  else if (!column.nullable) line += ".notNull()";
  if (column.generatedId) {
    if (dialect === "postgresql") {
      needs.sql = true;
      line += ".default(sql`gen_random_uuid()::text`)";
    } else {
      line += ".$defaultFn(() => crypto.randomUUID())";
    }
  }
  if (column.default !== undefined) line += `.default(${JSON.stringify(column.default)})`;
  // SQLite's references are unnamed; elsewhere the named foreignKey() in the table's extras.
  if (column.referencesUser && dialect === "sqlite") {
    line += '.references(() => users.id, { onDelete: "cascade" })';
  }
  return `${column.name}: ${line},`;
}

function extras(dialect: Dialect, table: Table, needs: Needs): string[] {
  const out: string[] = [];
  if (table.primaryKey.length > 1) {
    needs.imports.add("primaryKey");
    out.push(`primaryKey({ columns: [${table.primaryKey.map((c) => `t.${c}`).join(", ")}] })`);
  }
  if (dialect !== "sqlite") {
    for (const column of table.columns.filter((c) => c.referencesUser)) {
      needs.imports.add("foreignKey");
      const name = JSON.stringify(`${table.name}_${column.name}_fkey`);
      out.push(
        `foreignKey({ name: ${name}, columns: [t.${column.name}], foreignColumns: [users.id] }).onDelete("cascade")`,
      );
    }
  }
  for (const index of table.indexes) {
    const desc = (c: { desc?: true }) => (c.desc && dialect === "postgresql" ? ".desc()" : "");
    const on = index.columns.map((c) => `t.${c.name}${desc(c)}`).join(", ");
    const name = JSON.stringify(index.name);
    if (index.emailPartial) {
      needs.imports.add("uniqueIndex");
      if (dialect === "mysql") {
        out.push(`uniqueIndex(${name}).on(t.emailKey)`);
      } else {
        needs.sql = true;
        out.push(`uniqueIndex(${name}).on(t.email).where(sql\`\${t.email} <> ''\`)`);
      }
    } else if (index.constraint) {
      needs.imports.add("unique");
      out.push(`unique(${name}).on(${on})`);
    } else {
      const kind = index.unique ? "uniqueIndex" : "index";
      needs.imports.add(kind);
      out.push(`${kind}(${name}).on(${on})`);
    }
  }
  return out;
}

function tableCode(dialect: Dialect, table: Table, needs: Needs): string {
  const lines = table.columns.map((c) => columnLine(dialect, table, c, needs));
  if (dialect === "mysql" && table.name === "users") {
    needs.sql = true;
    needs.helpers.add("key");
    const at = lines.findIndex((l) => l.startsWith("email:"));
    lines.splice(
      at + 1,
      0,
      "// Written by MySQL, never by Gatehouse: NULL for '' so any number of users can have no email.",
      'emailKey: key("email_key").generatedAlwaysAs(sql`NULLIF(\\`email\\`, \'\')`, { mode: "stored" }),',
    );
  }
  const more = extras(dialect, table, needs);
  const call = `export const ${table.exportName} = ${CORE[dialect].table}(`;
  const name = JSON.stringify(table.name);
  const doc = `/** ${table.description} */`;
  if (more.length === 0) {
    return `${doc}\n${call}${name}, {\n${lines.map((l) => `  ${l}`).join("\n")}\n});`;
  }
  const columns = lines.map((l) => `    ${l}`).join("\n");
  const rest = more.map((m) => `    ${m},`).join("\n");
  return `${doc}\n${call}\n  ${name},\n  {\n${columns}\n  },\n  (t) => [\n${rest}\n  ],\n);`;
}

/**
 * A Drizzle schema file for `dialect` with the tables `features` need: one exported table per
 * Gatehouse table (`users`, `accounts`, `accountLocks`, `sessions`, `verificationTokens`,
 * `authenticators`, `revokedSessions`, `revocationEpochs`, `jwtSessions`, `securityEvents`,
 * `rateLimits`), keyed by the adapter's field names.
 *
 * @example
 * ```ts
 * import { writeFileSync } from "node:fs"
 * import { drizzleSchema } from "@gatehousejs/cli/schema"
 *
 * writeFileSync("src/db/auth-schema.ts", drizzleSchema("sqlite", { features: { databaseSessions: true } }))
 * ```
 */
export function drizzleSchema(dialect: Dialect, options: DrizzleOptions = {}): string {
  const core = CORE[dialect];
  if (!core) throw new TypeError("drizzleSchema: dialect must be postgresql, mysql or sqlite");
  const needs: Needs = { imports: new Set([core.table]), helpers: new Set(), sql: false };
  const tables = tablesFor(resolveFeatures(options.features)).map((t) =>
    tableCode(dialect, t, needs),
  );
  const helpers = [...needs.helpers].sort().map((h) => HELPERS[dialect][h]);
  for (const helper of helpers) if (helper) needs.imports.add(helper.builder);
  const imports = [...needs.imports].sort();
  const head = [
    "// Gatehouse tables for Drizzle. Generated by `gatehouse generate`; names and types match the SQL",
    "// `gatehouse migrate` applies. Columns are keyed by Gatehouse's field names.",
    ...(needs.sql ? ['import { sql } from "drizzle-orm";'] : []),
    `import { ${imports.join(", ")} } from "${core.module}";`,
    "",
    ...helpers.map((h) => h?.code ?? ""),
  ];
  return `${[...head, "", tables.join("\n\n")].join("\n")}\n`;
}
