/**
 * A type check with the real generated client: `PrismaAdapter` and the stores take the app's own
 * client (and an `$extends`-ed one) as it is, with no cast, while a client without a model they
 * need is refused. It writes a small TypeScript file beside the generated client and runs `tsc`.
 */
import { execFile } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import type { Dialect } from "./generate.js";

const run = promisify(execFile);
const packageDir = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const rootDir = join(packageDir, "..", "..");

const DRIVER: Record<Dialect, { module: string; name: string; make: string }> = {
  postgresql: {
    module: "@prisma/adapter-pg",
    name: "PrismaPg",
    make: 'new PrismaPg({ connectionString: "postgres://127.0.0.1/app" })',
  },
  mysql: {
    module: "@prisma/adapter-mariadb",
    name: "PrismaMariaDb",
    make: 'new PrismaMariaDb("mariadb://root@127.0.0.1/app")',
  },
  sqlite: {
    module: "@prisma/adapter-better-sqlite3",
    name: "PrismaBetterSqlite3",
    make: 'new PrismaBetterSqlite3({ url: "file:./app.db" }, { timestampFormat: "unixepoch-ms" })',
  },
};

/**
 * The TypeScript errors of the check for `dialect` (empty when it holds). Only the errors in the
 * check's own file count: `tsc` also reads the workspace's sources, which other work may leave
 * with errors of their own for a while (the repository's typecheck reports those).
 */
export async function typeErrors(dialect: Dialect): Promise<string> {
  const dir = join(packageDir, "test", ".output", dialect);
  const src = relative(dir, join(packageDir, "src", "index.js")).replaceAll("\\", "/");
  const driver = DRIVER[dialect];
  await writeFile(
    join(dir, "fits.ts"),
    `import { ${driver.name} } from "${driver.module}";
import {
  PrismaAdapter,
  PrismaRateLimitStore,
  PrismaRevocationStore,
  PrismaSecurityEventStore,
} from "${src}";
import { PrismaClient } from "./client/client.js";

const prisma = new PrismaClient({ adapter: ${driver.make} });
export const adapter = PrismaAdapter(prisma);
export const stores = [
  PrismaRevocationStore(prisma),
  PrismaSecurityEventStore(prisma),
  PrismaRateLimitStore(prisma, { dialect: "${dialect}" }),
];
const extended = prisma.$extends({ query: {} });
export const onExtended = PrismaAdapter(extended);

// A client of an app without database sessions, email or passkeys (gatehouse generate writes
// only the models a configuration uses) fits; one without a model the adapter always needs
// is refused at compile time.
declare const jwtOnly: Omit<
  typeof prisma,
  "session" | "verificationToken" | "authenticator" | "accountLock"
>;
export const onJwtOnly = PrismaAdapter(jwtOnly);
declare const withoutAccounts: Omit<typeof prisma, "account">;
// @ts-expect-error the adapter needs the Account model
PrismaAdapter(withoutAccounts);
declare const withoutEvents: Omit<typeof prisma, "securityEvent">;
// @ts-expect-error the security-event store needs the SecurityEvent model
PrismaSecurityEventStore(withoutEvents);
`,
  );
  await writeFile(
    join(dir, "tsconfig.json"),
    JSON.stringify({
      extends: relative(dir, join(rootDir, "tsconfig.base.json")),
      compilerOptions: { noEmit: true, customConditions: ["gatehouse-source"] },
      files: ["fits.ts"],
    }),
  );
  const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
  try {
    await run(process.execPath, [tsc, "-p", join(dir, "tsconfig.json")], { timeout: 120_000 });
    return "";
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    const output = `${stdout ?? ""}${stderr ?? ""}`;
    if (!output) return String(error);
    // An error line names its file; the lines after it, indented, belong to it.
    const kept: string[] = [];
    let ours = false;
    for (const line of output.split("\n")) {
      if (!/^\s/.test(line)) ours = line.includes("fits.ts(");
      if (ours && line.trim()) kept.push(line);
    }
    // A failure that names no file (a bad configuration) is not someone else's: it counts.
    if (kept.length === 0 && !/\.ts\(\d+,\d+\): error TS/.test(output)) return output;
    return kept.join("\n");
  }
}
