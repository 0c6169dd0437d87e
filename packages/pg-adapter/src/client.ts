/**
 * What the adapter needs from a driver, and how it names things in SQL.
 */

/**
 * Any PostgreSQL client with a promise-returning `query(text, params)` whose result has `rows`:
 * a `pg` `Pool` or `Client`, or a PGlite instance. Parameters are positional (`$1`, `$2`, …).
 */
export interface Queryable {
  query(text: string, params?: unknown[]): Promise<{ rows: unknown[] }>;
}

/** Options shared by {@link PostgresAdapter} and {@link migrate}. */
export interface PostgresOptions {
  /**
   * The PostgreSQL schema that holds the tables. Default `"public"`. Must match
   * `/^[A-Za-z_][A-Za-z0-9_]*$/`; it is always quoted in SQL, so it is case-sensitive.
   */
  schema?: string;
}

const SCHEMA_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Validates a schema name and returns it quoted, ready to prefix table names. */
export function quoteSchema(schema = "public"): string {
  if (typeof schema !== "string" || !SCHEMA_NAME.test(schema) || schema.length > 63) {
    // The name is not echoed: it came from configuration and is shown as such.
    throw new TypeError(
      "PostgresAdapter: options.schema must be 1 to 63 letters, digits or underscores, not starting with a digit",
    );
  }
  return `"${schema}"`;
}

/** A row as the driver returns it. */
export type Row = Record<string, unknown>;

/** Runs `text` and returns its rows. Errors from the driver are passed on untouched. */
export async function rowsOf(client: Queryable, text: string, params?: unknown[]): Promise<Row[]> {
  const result = await client.query(text, params);
  return result.rows as Row[];
}
