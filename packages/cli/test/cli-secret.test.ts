import { readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { appFolder, buildCli, gatehouse } from "./support/cli.js";

beforeAll(buildCli, 180_000);

describe("gatehouse secret", () => {
  const app = appFolder({});
  afterAll(app.remove);

  it("prints 32 random bytes as base64url, different each time", async () => {
    const a = await gatehouse(["secret"]);
    const b = await gatehouse(["secret"]);
    expect(a.status).toBe(0);
    const secret = a.stdout.trim();
    expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(secret, "base64url")).toHaveLength(32);
    expect(b.stdout.trim()).not.toBe(secret);
  });

  it("makes a longer secret with --bytes and refuses fewer than 32", async () => {
    const long = await gatehouse(["secret", "--bytes", "48"]);
    expect(Buffer.from(long.stdout.trim(), "base64url")).toHaveLength(48);
    const short = await gatehouse(["secret", "--bytes", "16"]);
    expect(short.status).toBe(1);
    expect(short.stdout).toBe("");
    expect(short.stderr).toMatch(/--bytes must be a whole number from 32/);
  });

  it("--write appends AUTH_SECRET to .env, keeps the rest, and never prints the secret", async () => {
    const env = join(app.dir, ".env");
    writeFileSync(env, "DATABASE_URL=postgres://localhost/app");
    const run = await gatehouse(["secret", "--write"], { cwd: app.dir });
    expect(run.status).toBe(0);
    const lines = readFileSync(env, "utf8").split("\n");
    expect(lines[0]).toBe("DATABASE_URL=postgres://localhost/app");
    const secret = lines[1]?.replace("AUTH_SECRET=", "") ?? "";
    expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(run.stdout).toBe("");
    expect(run.stderr).not.toContain(secret);
    expect(run.stderr).toMatch(/Added AUTH_SECRET/);
    expect(statSync(env).mode & 0o777).toBeLessThanOrEqual(0o644);
  });

  it("refuses to replace an existing AUTH_SECRET without --force, and replaces it with it", async () => {
    const env = join(app.dir, ".env");
    writeFileSync(env, "AUTH_SECRET=old-value-kept\nOTHER=1\n");
    const refused = await gatehouse(["secret", "--write"], { cwd: app.dir });
    expect(refused.status).toBe(1);
    expect(refused.stderr).toMatch(/already sets AUTH_SECRET: pass --force/);
    expect(readFileSync(env, "utf8")).toBe("AUTH_SECRET=old-value-kept\nOTHER=1\n");

    const forced = await gatehouse(["secret", "--write", "--force"], { cwd: app.dir });
    expect(forced.status).toBe(0);
    const text = readFileSync(env, "utf8");
    expect(text).toMatch(/^AUTH_SECRET=[A-Za-z0-9_-]{43}\nOTHER=1\n$/);
    expect(text).not.toContain("old-value-kept");
    expect(forced.stdout + forced.stderr).not.toContain(text.split("\n")[0]?.slice(12));
  });

  it("creates .env when there is none", async () => {
    const fresh = appFolder({});
    try {
      const run = await gatehouse(["secret", "-w"], { cwd: fresh.dir });
      expect(run.status).toBe(0);
      expect(readFileSync(join(fresh.dir, ".env"), "utf8")).toMatch(
        /^AUTH_SECRET=[A-Za-z0-9_-]{43}\n$/,
      );
    } finally {
      fresh.remove();
    }
  });
});

describe("gatehouse --help", () => {
  it("documents every command and each command's options", async () => {
    const top = await gatehouse(["--help"]);
    expect(top.status).toBe(0);
    for (const command of ["secret", "generate", "migrate", "doctor"]) {
      expect(top.stdout).toContain(command);
      const help = await gatehouse([command, "--help"]);
      expect(help.status, command).toBe(0);
      expect(help.stdout).toContain(`Usage: gatehouse ${command}`);
    }
    expect((await gatehouse(["generate", "--help"])).stdout).toMatch(
      /--adapter <adapter>.*drizzle.*prisma.*sql/s,
    );
    expect((await gatehouse(["migrate", "--help"])).stdout).toMatch(
      /--dry-run[\s\S]*--allow-destructive/,
    );
    expect((await gatehouse(["secret", "--help"])).stdout).toMatch(/--write[\s\S]*--force/);
    expect((await gatehouse(["doctor", "--help"])).stdout).toMatch(
      /Exit code 1 when there is an error/,
    );
  });

  it("exits non-zero on an unknown command, a missing option or a bad choice", async () => {
    const unknown = await gatehouse(["frobnicate"]);
    expect(unknown.status).toBe(1);
    expect(unknown.stderr).toMatch(/unknown command/);
    const missing = await gatehouse(["generate", "--adapter", "sql"]);
    expect(missing.status).toBe(1);
    expect(missing.stderr).toMatch(/--dialect/);
    const bad = await gatehouse(["generate", "--adapter", "typeorm", "--dialect", "sqlite"]);
    expect(bad.status).toBe(1);
    expect(bad.stderr).toMatch(/Allowed choices are drizzle, prisma, sql/);
  });
});
