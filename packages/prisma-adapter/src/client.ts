/**
 * What the adapter needs from a Prisma client, typed by shape so that the app's own generated
 * client fits without this package importing it, and the few things every store shares: the
 * dialect, raw SQL identifiers and Prisma's error codes.
 */

/** The SQL dialects the adapter speaks: Prisma's `provider` names. */
export type PrismaDialect = "postgresql" | "mysql" | "sqlite";

/**
 * One model's delegate (`prisma.user`, `prisma.session`, …), by shape. The parameters are typed
 * `never` so that every generated delegate fits, whatever its argument types; the adapter passes
 * arguments that match the models of its schema fragment.
 */
export interface PrismaModelDelegate {
  findUnique(args: never): PromiseLike<unknown>;
  findFirst(args: never): PromiseLike<unknown>;
  findMany(args: never): PromiseLike<unknown>;
  create(args: never): PromiseLike<unknown>;
  update(args: never): PromiseLike<unknown>;
  updateMany(args: never): PromiseLike<unknown>;
  delete(args: never): PromiseLike<unknown>;
  deleteMany(args: never): PromiseLike<unknown>;
}

/** The raw-SQL and transaction methods of a Prisma client, by shape. */
export interface PrismaRawClient {
  $queryRawUnsafe(query: string, ...values: never[]): PromiseLike<unknown>;
  $executeRawUnsafe(query: string, ...values: never[]): PromiseLike<unknown>;
  /** The interactive form, `$transaction(async (tx) => …, options)`, is the one called. */
  $transaction(arg: never, options?: never): PromiseLike<unknown>;
}

/**
 * A Prisma 7 client generated from a schema that holds the models of this package's fragment
 * (`prisma/<dialect>.prisma`), with a driver adapter: only the delegates `models` name are
 * required. A client extended with `$extends` fits too.
 */
export type PrismaClientLike<Models extends string> = PrismaRawClient & {
  [M in Models]: PrismaModelDelegate;
};

/** Where the adapter's and the stores' warnings go. */
export interface PrismaAdapterLogger {
  /** One line, naming a table and a column, never a value. */
  warn(message: string): void;
}

/** Options shared by {@link PrismaAdapter} and the stores. */
export interface PrismaAdapterOptions {
  /**
   * The client's SQL dialect. Read from the client when not given (its `provider`); give it if
   * detection fails (a wrapped client).
   */
  dialect?: PrismaDialect;
  /**
   * PostgreSQL only: the schema that holds the tables, when it is not on the connection's
   * `search_path` (give the same name as `PrismaPg`'s `schema` option). Used by the few
   * statements the adapter writes in SQL (the session check, rate-limit hits and revocation
   * checks). Letters, digits and underscores.
   */
  schema?: string;
  /**
   * Where a warning about an older schema goes (default: `console`): once per missing optional
   * column, naming the table and the column and `npx gatehouse migrate` (docs/prisma.md).
   */
  logger?: PrismaAdapterLogger;
}

/** A row as Prisma returns it. */
export type Row = Record<string, unknown>;

type Args = Record<string, unknown>;

/** How the adapter calls a delegate inside this package. */
export interface Delegate {
  findUnique(args: Args): Promise<Row | null>;
  findFirst(args: Args): Promise<Row | null>;
  findMany(args: Args): Promise<Row[]>;
  create(args: Args): Promise<Row>;
  update(args: Args): Promise<Row>;
  updateMany(args: Args): Promise<{ count: number }>;
  delete(args: Args): Promise<Row>;
  deleteMany(args: Args): Promise<{ count: number }>;
}

/** How the adapter calls a client (or a transaction's client) inside this package. */
export interface Db {
  [model: string]: unknown;
  $queryRawUnsafe(query: string, ...values: unknown[]): Promise<Row[]>;
  $executeRawUnsafe(query: string, ...values: unknown[]): Promise<number>;
  $transaction<T>(
    fn: (tx: Db) => Promise<T>,
    options?: { maxWait?: number; timeout?: number },
  ): Promise<T>;
}

/** The delegate of `model` on `db`. */
export const model = (db: Db, name: string): Delegate => db[name] as Delegate;

/**
 * An interactive transaction's limits: a store's transactions are a few statements long, but
 * may queue behind many others for a connection (or, on SQLite, for the one writer).
 */
export const TX_OPTIONS = { maxWait: 15_000, timeout: 15_000 } as const;

const PROVIDERS: Record<string, PrismaDialect> = {
  postgresql: "postgresql",
  postgres: "postgresql",
  mysql: "mysql",
  sqlite: "sqlite",
};

/**
 * The client's dialect: `options.dialect`, or the `provider` the generated client was made for.
 * Prisma keeps it on the client as `_activeProvider` (not a public API, so it is only a
 * fallback) and on its driver adapter as `provider`.
 */
export function dialectOf(client: object, given: PrismaDialect | undefined, who: string) {
  if (given !== undefined) {
    if (!Object.values(PROVIDERS).includes(given)) {
      throw new TypeError(`${who}: options.dialect must be "postgresql", "mysql" or "sqlite"`);
    }
    return given;
  }
  const c = client as {
    _activeProvider?: unknown;
    _engineConfig?: { activeProvider?: unknown; adapter?: { provider?: unknown } };
  };
  for (const candidate of [
    c._activeProvider,
    c._engineConfig?.activeProvider,
    c._engineConfig?.adapter?.provider,
  ]) {
    if (typeof candidate === "string" && PROVIDERS[candidate]) return PROVIDERS[candidate];
  }
  throw new TypeError(
    `${who}: cannot tell the client's database; pass options.dialect ("postgresql", "mysql" or "sqlite")`,
  );
}

const SCHEMA_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

/** Quotes table names for raw SQL in the dialect, qualified by the PostgreSQL schema if any. */
export function tableNamer(
  dialect: PrismaDialect,
  schema: string | undefined,
  who: string,
): (table: string) => string {
  if (schema !== undefined) {
    if (dialect !== "postgresql") {
      throw new TypeError(`${who}: options.schema is for PostgreSQL only`);
    }
    if (typeof schema !== "string" || !SCHEMA_NAME.test(schema)) {
      throw new TypeError(
        `${who}: options.schema must be 1 to 63 letters, digits or underscores, not starting with a digit`,
      );
    }
  }
  const prefix = schema === undefined ? "" : `"${schema}".`;
  return (table) => (dialect === "mysql" ? `\`${table}\`` : `${prefix}"${table}"`);
}

/** Quotes a column name (a constant of this package, never user input) for the dialect. */
export const quoter =
  (dialect: PrismaDialect) =>
  (column: string): string =>
    dialect === "mysql" ? `\`${column}\`` : `"${column}"`;

/** The `n`-th (1-based) parameter placeholder of a raw statement. */
export const placeholder = (dialect: PrismaDialect, n: number): string =>
  dialect === "postgresql" ? `$${n}` : "?";

/** The longest key MySQL's `varchar(255)` key columns take as it is. */
const MYSQL_KEY_LENGTH = 255;

/**
 * A key as stored in a `varchar(255)` key column (MySQL's; PostgreSQL and SQLite store any key as
 * it is): a longer key, or one starting with `#`, is stored as `#` and its SHA-256 in hex. So
 * every key fits, and no two keys share a row: a key stored as it is never starts with `#`.
 */
export async function storedKey(dialect: PrismaDialect, key: string): Promise<string> {
  if (dialect !== "mysql" || (key.length <= MYSQL_KEY_LENGTH && !key.startsWith("#"))) return key;
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(key));
  const hex = Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0"));
  return `#${hex.join("")}`;
}

/** Whether `error` is Prisma's answer to a unique-constraint violation (P2002). */
export function isUniqueViolation(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === "P2002";
}

/** Whether `error` is Prisma's "record to update or delete was not found" (P2025). */
export function isNotFound(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === "P2025";
}

/** `null` for a Prisma "not found" error; any other error is thrown as it is. */
export async function orNull<T>(run: Promise<T>): Promise<T | null> {
  try {
    return await run;
  } catch (error) {
    if (isNotFound(error)) return null;
    throw error;
  }
}

/** The fields of `patch` among `fields` that are not `undefined` (an update leaves those alone). */
export function given(
  patch: Record<string, unknown>,
  fields: readonly string[],
  convert: (field: string, value: unknown) => unknown = (_, v) => v,
): Row {
  const data: Row = {};
  for (const field of fields) {
    if (patch[field] !== undefined) data[field] = convert(field, patch[field]);
  }
  return data;
}
