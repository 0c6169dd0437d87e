/**
 * Generates a Prisma 7 client for one dialect from this package's schema fragment, as an app
 * would (the `prisma-client` generator), into test/.output/<dialect> (git-ignored; Biome skips .output folders).
 *
 * `prisma generate` needs no database and no Rust query engine (Prisma 7 clients run on driver
 * adapters), but the CLI still wants its schema-engine binary, which it downloads from
 * binaries.prisma.sh. PRISMA_SCHEMA_ENGINE_BINARY pointing at a stub skips the download; the stub
 * fails loudly if anything calls it, so a generation that needed the engine would fail here.
 */
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { chmod, mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { promisify } from "node:util";

export type Dialect = "postgresql" | "mysql" | "sqlite";

const run = promisify(execFile);
const packageDir = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

/** The schema file an app would have: a generator, a datasource and the fragment's models. */
async function schemaFor(dialect: Dialect): Promise<string> {
  const fragment = await readFile(join(packageDir, "prisma", `${dialect}.prisma`), "utf8");
  return `generator client {
  provider = "prisma-client"
  output   = "./client"
}

datasource db {
  provider = "${dialect}"
}

${fragment}`;
}

/** A constructor of the generated client, typed loosely: the tests pass it driver adapters. */
export type GeneratedClient = new (options: {
  adapter: unknown;
  log?: { emit: "event"; level: "query" }[];
}) => GeneratedPrisma;

/** What the tests call on a generated client besides the adapter's own use. */
export interface GeneratedPrisma {
  $queryRawUnsafe(sql: string, ...values: unknown[]): Promise<Record<string, unknown>[]>;
  $executeRawUnsafe(sql: string, ...values: unknown[]): Promise<number>;
  $on(event: "query", listener: (event: { query: string }) => void): void;
  $disconnect(): Promise<void>;
  // biome-ignore lint/suspicious/noExplicitAny: model delegates are called by the tests freely.
  [model: string]: any;
}

/**
 * Generates the client for `dialect` unless the same schema was generated already, and imports
 * it. One generation per dialect: each dialect has its own test file.
 */
export async function generatedClient(dialect: Dialect): Promise<GeneratedClient> {
  const dir = join(packageDir, "test", ".output", dialect);
  const schema = await schemaFor(dialect);
  const stamp = createHash("sha256").update(schema).digest("hex");
  const stampFile = join(dir, "schema.sha256");
  const current = await readFile(stampFile, "utf8").catch(() => "");
  if (current !== stamp) {
    await rm(dir, { recursive: true, force: true });
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, "schema.prisma"), schema);
    const stub = join(dir, "schema-engine-stub.sh");
    await writeFile(
      stub,
      '#!/bin/sh\necho "the schema engine was called, but the tests have none" >&2\nexit 1\n',
    );
    await chmod(stub, 0o755);
    const cli = createRequire(import.meta.url).resolve("prisma/build/index.js");
    await run(process.execPath, [cli, "generate", "--schema", join(dir, "schema.prisma")], {
      cwd: packageDir,
      env: {
        ...process.env,
        PRISMA_SCHEMA_ENGINE_BINARY: stub,
        PRISMA_HIDE_UPDATE_MESSAGE: "1",
        CHECKPOINT_DISABLE: "1",
      },
      timeout: 120_000,
    });
    await writeFile(stampFile, stamp);
  }
  const module = (await import(pathToFileURL(join(dir, "client", "client.ts")).href)) as {
    PrismaClient: GeneratedClient;
  };
  return module.PrismaClient;
}
