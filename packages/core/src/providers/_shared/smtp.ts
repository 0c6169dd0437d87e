/**
 * Sending mail over SMTP for the providers that do (Nodemailer, Password): the environment read
 * when the first email is sent, and one nodemailer transport per server. The only import of the
 * optional peer `nodemailer`, so only apps with such a provider bundle it.
 */

/** An environment variable, where there is a `process` (not on every edge runtime). */
export function env(name: string): string | undefined {
  return (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env?.[
    name
  ];
}

export type Transporter = {
  sendMail(message: Record<string, unknown>): Promise<{ rejected?: unknown[] }>;
};

const transports = new Map<string, Transporter>();

/** A nodemailer transport per server, made on first use. */
export async function transport(server: string | Record<string, unknown>): Promise<Transporter> {
  const key = typeof server === "string" ? server : JSON.stringify(server);
  let found = transports.get(key);
  if (!found) {
    const nodemailer = (await import("nodemailer")) as unknown as {
      default?: { createTransport(options: unknown): Transporter };
      createTransport?(options: unknown): Transporter;
    };
    const create = nodemailer.default?.createTransport ?? nodemailer.createTransport;
    if (!create) throw new Error("nodemailer is not installed");
    found = create(server);
    transports.set(key, found);
  }
  return found;
}
