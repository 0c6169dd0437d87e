/**
 * The model as a Prisma schema fragment: one model per table, mapped (`@@map`, `map:`) to the
 * canonical table, index and constraint names, with the native types of {@link sqlStatements}'s
 * DDL. What Prisma cannot declare (a partial or generated unique index) is a comment, and
 * `gatehouse migrate` creates it.
 */
import { resolveFeatures, type SchemaFeatures } from "./features.js";
import { type Column, type Index, isKeyed, type Table, tablesFor } from "./model.js";
import type { Dialect } from "./sql.js";

/** Options of {@link prismaSchema}. */
export interface PrismaOptions {
  /** The features whose models to write; omitted, every model. */
  features?: Partial<SchemaFeatures>;
}

const SCALAR: Record<Column["type"], string> = {
  string: "String",
  timestamp: "DateTime",
  bigint: "BigInt",
  integer: "Int",
  boolean: "Boolean",
  json: "Json",
};

function nativeType(dialect: Dialect, table: Table, column: Column): string | undefined {
  if (dialect === "postgresql")
    return column.type === "timestamp" ? "@db.Timestamptz(6)" : undefined;
  if (dialect === "mysql") {
    if (column.type === "timestamp") return "@db.DateTime(3)";
    if (column.type === "string") return isKeyed(table, column) ? "@db.VarChar(255)" : "@db.Text";
  }
  return undefined;
}

const fieldList = (index: Index) =>
  index.columns.map((c) => (c.desc ? `${c.name}(sort: Desc)` : c.name)).join(", ");

/** One field: name, type and attributes, as cells for alignment. */
type Row = [name: string, type: string, attributes: string];

function fields(dialect: Dialect, table: Table, all: readonly Table[]): Row[] {
  const rows: Row[] = [];
  for (const column of table.columns) {
    const attrs: string[] = [];
    if (table.primaryKey.length === 1 && table.primaryKey[0] === column.name) attrs.push("@id");
    if (column.generatedId) attrs.push("@default(uuid())");
    if (column.default !== undefined) attrs.push(`@default(${JSON.stringify(column.default)})`);
    const single = table.indexes.find(
      (i) => i.constraint && i.columns.length === 1 && i.columns[0]?.name === column.name,
    );
    if (single) attrs.push(`@unique(map: ${JSON.stringify(single.name)})`);
    const native = nativeType(dialect, table, column);
    if (native) attrs.push(native);
    rows.push([
      column.name,
      `${SCALAR[column.type]}${column.nullable ? "?" : ""}`,
      attrs.join(" "),
    ]);
  }
  if (table.columns.some((c) => c.referencesUser)) {
    rows.push(["user", "User", "@relation(fields: [userId], references: [id], onDelete: Cascade)"]);
  }
  if (table.name === "users") {
    for (const child of all.filter((t) => t.columns.some((c) => c.referencesUser))) {
      rows.push([child.exportName, `${child.model}[]`, ""]);
    }
  }
  return rows;
}

function blockAttributes(dialect: Dialect, table: Table): string[] {
  const out: string[] = [];
  if (table.primaryKey.length > 1) out.push(`@@id([${table.primaryKey.join(", ")}])`);
  for (const index of table.indexes) {
    const map = `map: ${JSON.stringify(index.name)}`;
    if (index.emailPartial) {
      out.push(
        dialect === "mysql"
          ? `// ${index.name}: UNIQUE on the generated column email_key = NULLIF(email, ''), which Prisma cannot declare; \`gatehouse migrate\` creates both.`
          : `// ${index.name}: UNIQUE (email) WHERE email <> '' (a partial index Prisma cannot declare); \`gatehouse migrate\` creates it.`,
      );
    } else if (index.constraint && index.columns.length === 1) {
      // Declared on the field (@unique).
    } else if (index.constraint || index.unique) {
      out.push(`@@unique([${fieldList(index)}], ${map})`);
    } else {
      out.push(`@@index([${fieldList(index)}], ${map})`);
    }
  }
  out.push(`@@map(${JSON.stringify(table.name)})`);
  return out;
}

function modelCode(dialect: Dialect, table: Table, all: readonly Table[]): string {
  const rows = fields(dialect, table, all);
  const w0 = Math.max(...rows.map((r) => r[0].length));
  const w1 = Math.max(...rows.map((r) => r[1].length));
  const lines = rows.map(([name, type, attrs]) =>
    attrs ? `  ${name.padEnd(w0)} ${type.padEnd(w1)} ${attrs}` : `  ${name.padEnd(w0)} ${type}`,
  );
  const attrs = blockAttributes(dialect, table).map((a) => `  ${a}`);
  return [`/// ${table.description}`, `model ${table.model} {`, ...lines, "", ...attrs, "}"].join(
    "\n",
  );
}

const NOTES: Record<Dialect, string[]> = {
  postgresql: [
    "// PostgreSQL: the same tables as @gatehousejs/pg-adapter. Apply them with `npx gatehouse migrate`",
    "// (not `prisma db push`, which would leave out the partial unique index on users.email).",
  ],
  mysql: [
    "// MySQL/MariaDB: apply them with `npx gatehouse migrate`, which also creates users.email_key (a",
    "// generated column with the unique index on real addresses) and sets utf8mb4_bin on every table.",
  ],
  sqlite: [
    "// SQLite: timestamps are INTEGER Unix epoch milliseconds: give the driver adapter",
    '// `timestampFormat: "unixepoch-ms"`. Apply the tables with `npx gatehouse migrate` (`prisma db push`',
    "// would make DATETIME columns and leave out the partial unique index on users.email).",
  ],
};

/**
 * A Prisma schema fragment (models only; your `schema.prisma` keeps its generator and datasource)
 * for `dialect` with the models `features` need: `User`, `Account`, `AccountLock`, `Session`,
 * `VerificationToken`, `Authenticator`, `RevokedSession`, `RevocationEpoch`, `JwtSession`,
 * `SecurityEvent`, `RateLimit`, mapped to Gatehouse's table names.
 *
 * @example
 * ```ts
 * import { writeFileSync } from "node:fs"
 * import { prismaSchema } from "@gatehousejs/cli/schema"
 *
 * writeFileSync("prisma/gatehouse.prisma", prismaSchema("postgresql"))
 * ```
 */
export function prismaSchema(dialect: Dialect, options: PrismaOptions = {}): string {
  const notes = NOTES[dialect];
  if (!notes) throw new TypeError("prismaSchema: dialect must be postgresql, mysql or sqlite");
  const tables = tablesFor(resolveFeatures(options.features));
  const head = [
    "// Gatehouse models for Prisma. Generated by `gatehouse generate`; table and column names are",
    "// Gatehouse's canonical ones, shared with every Gatehouse adapter.",
    ...notes,
  ];
  return `${[...head, "", tables.map((t) => modelCode(dialect, t, tables)).join("\n\n")].join("\n")}\n`;
}
