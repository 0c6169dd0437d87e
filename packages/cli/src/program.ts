/**
 * The `gatehouse` command line, on commander: one subcommand per task, each with `--help`.
 */
import { Command, Option } from "commander";
import { doctorCommand } from "./commands/doctor.js";
import { featureList } from "./commands/features.js";
import { GENERATORS, generateCommand } from "./commands/generate.js";
import type { Io } from "./commands/io.js";
import { migrateCommand } from "./commands/migrate.js";
import { secretCommand } from "./commands/secret.js";
import { DIALECTS, FEATURE_NAMES } from "./schema/index.js";

const FEATURES = FEATURE_NAMES.join(", ");

function featureOptions(command: Command): Command {
  return command
    .option(
      "-c, --config <file>",
      "the app's Gatehouse configuration (default: auth.config.ts, auth.ts or gatehouse.config.ts)",
    )
    .option("--all", "every Gatehouse table, without reading a configuration")
    .option(
      "--features <features>",
      `exactly these features, without reading a configuration (comma-separated: ${FEATURES})`,
      featureList,
    )
    .option("--with <features>", `add features (comma-separated: ${FEATURES})`, featureList)
    .option(
      "--without <features>",
      "leave features out (a revocation store on Redis, say)",
      featureList,
    );
}

const positiveInt = (value: string) => {
  const n = Number(value);
  return Number.isInteger(n) ? n : Number.NaN;
};

/**
 * The program. `onFailure` receives the exit code a command asks for (doctor's 1 on errors);
 * thrown errors end the run with code 1 in the binary.
 */
export function createProgram(io: Io, onFailure: (code: number) => void = () => {}): Command {
  const program = new Command("gatehouse")
    .description("Gatehouse's command line: a secret, your schema, migrations and a check-up.")
    .showHelpAfterError("(run with --help for usage)")
    .configureOutput({
      writeOut: (s) => io.out(s.replace(/\n$/, "")),
      writeErr: (s) => io.err(s.replace(/\n$/, "")),
    });

  program
    .command("secret")
    .description("print a strong random AUTH_SECRET, or append it to .env")
    .option("-w, --write", "append AUTH_SECRET=… to .env in this folder instead of printing it")
    .option("-f, --force", "with --write, replace an AUTH_SECRET .env already sets")
    .option("--bytes <n>", "random bytes (at least 32)", positiveInt)
    .addHelpText("after", "\nExamples:\n  npx gatehouse secret\n  npx gatehouse secret --write")
    .action((options) => secretCommand(options, io));

  featureOptions(
    program
      .command("generate")
      .description(
        "write the schema (Drizzle, Prisma or SQL) for the features your configuration uses",
      )
      .addOption(
        new Option("-a, --adapter <adapter>", "what to write")
          .choices(GENERATORS)
          .makeOptionMandatory(),
      )
      .addOption(
        new Option("-d, --dialect <dialect>", "the database")
          .choices(DIALECTS)
          .makeOptionMandatory(),
      )
      .option("-o, --out <file>", "write to this file (default: standard output)")
      .option(
        "--schema <name>",
        "with --adapter sql: the PostgreSQL schema (or MySQL database) of the tables",
      ),
  )
    .addHelpText(
      "after",
      "\nExamples:\n  npx gatehouse generate --adapter drizzle --dialect postgresql --out src/db/auth-schema.ts\n  npx gatehouse generate --adapter prisma --dialect sqlite --out prisma/gatehouse.prisma\n  npx gatehouse generate --adapter sql --dialect mysql --all",
    )
    .action((options) => generateCommand(options, io));

  featureOptions(
    program
      .command("migrate")
      .description("create the tables, columns and indexes the database lacks (never drops any)")
      .option("--url <url>", "the database (default: DATABASE_URL)")
      .addOption(
        new Option(
          "-d, --dialect <dialect>",
          "the database's dialect (default: from the URL)",
        ).choices(DIALECTS),
      )
      .option(
        "--schema <name>",
        "PostgreSQL: the schema holding the tables (default: the current one)",
      )
      .option("--dry-run", "print the statements without running them")
      .option(
        "--allow-destructive",
        "allow statements that drop a column Gatehouse no longer uses",
      ),
  )
    .addHelpText(
      "after",
      "\nExamples:\n  npx gatehouse migrate --dry-run\n  DATABASE_URL=postgres://localhost/app npx gatehouse migrate\n  npx gatehouse migrate --url file:./app.db --all",
    )
    .action((options) => migrateCommand(options, io));

  program
    .command("doctor")
    .description(
      "check the configuration, its environment and the database schema; print what to fix",
    )
    .option(
      "-c, --config <file>",
      "the app's Gatehouse configuration (default: auth.config.ts, auth.ts or gatehouse.config.ts)",
    )
    .option("--url <url>", "also compare this database with the schema (default: DATABASE_URL)")
    .addOption(
      new Option(
        "-d, --dialect <dialect>",
        "the database's dialect (default: from the URL)",
      ).choices(DIALECTS),
    )
    .option(
      "--schema <name>",
      "PostgreSQL: the schema holding the tables (default: the current one)",
    )
    .addHelpText("after", "\nExit code 1 when there is an error, 0 when there are only warnings.")
    .action(async (options) => {
      if (await doctorCommand(options, io)) onFailure(1);
    });

  return program;
}
