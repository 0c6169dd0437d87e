/**
 * A Prisma 7 client for the bench, generated from a schema text as an app would (the
 * `prisma-client` generator) into bench/.generated/<name>, then bundled by esbuild into one ES
 * module that plain Node runs (the generator writes TypeScript).
 *
 * `prisma generate` needs no database and no Rust query engine, but the CLI asks for its
 * schema-engine binary, which it would download from binaries.prisma.sh (not reachable here):
 * PRISMA_SCHEMA_ENGINE_BINARY points at a stub that fails if it is ever called.
 */
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { chmod, mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { build } from "esbuild";

const run = promisify(execFile);
const generated = fileURLToPath(new URL("../.generated/", import.meta.url));

/** Generates (unless the same schema was generated before) and imports `PrismaClient`. */
export async function prismaClient(name, models, provider = "postgresql") {
  const dir = join(generated, name);
  const schema = `generator client {
  provider = "prisma-client"
  output   = "./client"
}

datasource db {
  provider = "${provider}"
}

${models}`;
  const stamp = createHash("sha256").update(schema).digest("hex");
  const stampFile = join(dir, "schema.sha256");
  const bundle = join(dir, "client.mjs");
  if ((await readFile(stampFile, "utf8").catch(() => "")) !== stamp) {
    await rm(dir, { recursive: true, force: true });
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, "schema.prisma"), schema);
    const stub = join(dir, "schema-engine-stub.sh");
    await writeFile(stub, '#!/bin/sh\necho "no schema engine in the bench" >&2\nexit 1\n');
    await chmod(stub, 0o755);
    const cli = createRequire(import.meta.url).resolve("prisma/build/index.js");
    await run(process.execPath, [cli, "generate", "--schema", join(dir, "schema.prisma")], {
      env: {
        ...process.env,
        PRISMA_SCHEMA_ENGINE_BINARY: stub,
        PRISMA_HIDE_UPDATE_MESSAGE: "1",
        CHECKPOINT_DISABLE: "1",
      },
      timeout: 120_000,
    });
    await build({
      entryPoints: [join(dir, "client", "client.ts")],
      outfile: bundle,
      bundle: true,
      format: "esm",
      platform: "node",
      packages: "external",
      logLevel: "error",
    });
    await writeFile(stampFile, stamp);
  }
  return (await import(pathToFileURL(bundle).href)).PrismaClient;
}
