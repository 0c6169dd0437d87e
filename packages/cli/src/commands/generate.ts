/**
 * `gatehouse generate`: the schema for the app's ORM and dialect, for exactly the features its
 * configuration uses.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { CliError } from "../errors.js";
import { type Dialect, drizzleSchema, prismaSchema, sqlScript } from "../schema/index.js";
import { checkSchemaName } from "./database.js";
import { type FeatureOptions, featuresFor } from "./features.js";
import type { Io } from "./io.js";

/** The kinds of schema `generate` writes. */
export const GENERATORS = ["drizzle", "prisma", "sql"] as const;

/** Options of {@link generateCommand}. */
export interface GenerateOptions extends FeatureOptions {
  adapter: (typeof GENERATORS)[number];
  dialect: Dialect;
  out?: string;
  schema?: string;
}

/** Writes the schema to `--out`, or to standard output. */
export async function generateCommand(options: GenerateOptions, io: Io): Promise<void> {
  checkSchemaName(options.schema);
  if (options.schema !== undefined && (options.adapter !== "sql" || options.dialect === "sqlite")) {
    throw new CliError("--schema is for --adapter sql on postgresql or mysql");
  }
  const features = await featuresFor(options, io);
  const text =
    options.adapter === "drizzle"
      ? drizzleSchema(options.dialect, { features })
      : options.adapter === "prisma"
        ? prismaSchema(options.dialect, { features })
        : sqlScript(options.dialect, {
            features,
            ...(options.schema ? { schema: options.schema } : {}),
          });
  if (!options.out) {
    io.out(text.replace(/\n$/, ""));
    return;
  }
  const file = resolve(io.cwd, options.out);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
  io.err(`Wrote ${file}.`);
}
