/**
 * An older schema keeps signing people in (docs/upgrading.md): the columns added after a table
 * first shipped may be missing from the database while the app's generated client still has
 * them. On the database's "no such column" error, the field is remembered as missing, one warning
 * names it, and the work runs again without it: reads omit it, writes drop it. What cannot be
 * done without its column (storing a password hash, counting a sign-in code's tries) fails with
 * an error that names the column, never a value.
 */
import type { PrismaAdapterLogger, Row } from "./client.js";
import { SESSION_METADATA } from "./rows.js";

/**
 * The fields added after their table first shipped, by model: each is nullable or has a default,
 * so a database without it keeps working. Every other field is required, and its absence is an
 * error as the database reports it.
 */
export const LATE_FIELDS = {
  account: ["error", "passwordHash"],
  session: SESSION_METADATA,
  verificationToken: ["tries"],
  jwtSession: ["providerSid"],
} as const;

/** A model with fields that may be missing. */
export type LateModel = keyof typeof LATE_FIELDS;

const TABLE_OF: Record<LateModel, string> = {
  account: "accounts",
  session: "sessions",
  verificationToken: "verification_tokens",
  jwtSession: "jwt_sessions",
};

const MIGRATE = "npx gatehouse migrate";

interface ColumnNotFound {
  code?: unknown;
  message?: unknown;
  meta?: { column?: unknown; driverAdapterError?: { cause?: DriverCause } };
  cause?: DriverCause;
}
interface DriverCause {
  kind?: unknown;
  column?: unknown;
  originalMessage?: unknown;
}

/**
 * What the database named as missing, when `error` is a "no such column": Prisma's P2022 from a
 * model query, or a raw query's P2010, both carrying the driver adapter's `ColumnNotFound`
 * (PostgreSQL 42703, MySQL/MariaDB 1054, SQLite "no such column" / "has no column named"). The
 * name comes as the database wrote it: `sessions.lastSeenAt`, `lastSeenAt of relation sessions`,
 * `main.sessions.lastSeenAt`, `db.sessions.lastSeenAt`. `undefined` for any other error.
 */
export function missingColumnText(error: unknown): string | undefined {
  const e = error as ColumnNotFound | null;
  if (!e || typeof e !== "object") return undefined;
  const cause = e.meta?.driverAdapterError?.cause ?? e.cause;
  if (cause && cause.kind === "ColumnNotFound") {
    return String(cause.column ?? cause.originalMessage ?? "");
  }
  if (e.code !== "P2022") return undefined;
  if (typeof e.meta?.column === "string") return e.meta.column;
  const said = typeof e.message === "string" ? /The column `([^`]+)`/.exec(e.message) : null;
  return said?.[1] ?? "";
}

/** The field among `candidates` that `error` says is missing, or `undefined`. */
export function missingField(error: unknown, candidates: readonly string[]): string | undefined {
  const text = missingColumnText(error);
  if (text === undefined) return undefined;
  const words = new Set(text.match(/[A-Za-z_][A-Za-z0-9_]*/g) ?? []);
  return candidates.find((field) => words.has(field));
}

/** Runs work against a database that may lack the late fields, remembering what it lacks. */
export interface Tolerance {
  /**
   * Runs `work` with the fields of `model` known to be missing. When the database says that one
   * of the model's late fields is missing, it is remembered (one warning, the first time) and
   * `work` runs again without it. Any other error, a required column's included, is thrown.
   */
  run<T>(model: LateModel, work: (missing: ReadonlySet<string>) => Promise<T>): Promise<T>;
  /**
   * `data` without the fields known to be missing. A missing field of `needed` that holds a value
   * throws instead (its value could not be kept): the message names the column, never the value.
   */
  writable(
    model: LateModel,
    data: Row,
    missing: ReadonlySet<string>,
    needed?: readonly string[],
  ): Row;
  /** An error for a feature that cannot work without `field` of `model`. */
  needs(model: LateModel, field: string, feature: string): Error;
}

/** Prisma's `omit` for the missing fields: `{}` when none are missing. */
export function omitted(missing: ReadonlySet<string>): { omit?: Record<string, true> } {
  if (missing.size === 0) return {};
  return { omit: Object.fromEntries([...missing].map((field) => [field, true as const])) };
}

export function tolerance(who: string, logger: PrismaAdapterLogger = console): Tolerance {
  const known = new Map<LateModel, Set<string>>();
  const missingOf = (model: LateModel) => {
    const set = known.get(model) ?? new Set<string>();
    known.set(model, set);
    return set;
  };
  const column = (model: LateModel, field: string) =>
    `the table "${TABLE_OF[model]}" has no column "${field}"`;
  return {
    async run(model, work) {
      const missing = missingOf(model);
      for (;;) {
        // The fields this attempt leaves out: a field it left out that is named again is not a
        // missing optional column of this model (a table of the same name elsewhere, say).
        const tried: ReadonlySet<string> = new Set(missing);
        try {
          return await work(tried);
        } catch (error) {
          const late: readonly string[] = LATE_FIELDS[model];
          const field = missingField(
            error,
            late.filter((f) => !tried.has(f)),
          );
          if (field === undefined) throw error;
          // Concurrent calls may all fail on the same column: one of them warns.
          if (!missing.has(field)) {
            missing.add(field);
            logger.warn(
              `[gatehouse] ${who}: ${column(model, field)}; continuing without it (run \`${MIGRATE}\` to add it)`,
            );
          }
        }
      }
    },
    writable(model, data, missing, needed = []) {
      const out: Row = {};
      for (const [field, value] of Object.entries(data)) {
        if (!missing.has(field)) out[field] = value;
        else if (needed.includes(field) && value !== null && value !== undefined) {
          throw new Error(`${who}: ${column(model, field)} to store this in; run \`${MIGRATE}\``);
        }
      }
      return out;
    },
    needs(model, field, feature) {
      return new Error(
        `${who}: ${feature} needs a column: ${column(model, field)}; run \`${MIGRATE}\``,
      );
    },
  };
}
