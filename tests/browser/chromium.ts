/**
 * Debian's Chromium, driven by playwright-core (never a browser downloaded by a tool). Outside
 * CI a missing Chromium skips the browser suites with a printed reason; with CI=true it fails.
 */
import { existsSync } from "node:fs";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";

const candidates = ["/usr/lib/chromium/chromium", "/usr/bin/chromium"];
export const chromiumPath = candidates.find((path) => existsSync(path));

if (!chromiumPath) {
  const reason = "Chromium is not installed (apt-get install chromium)";
  if (process.env.CI === "true") throw new Error(`Browser tests cannot run: ${reason}`);
  console.warn(`[browser tests] skipped: ${reason}`);
}

/** A headless Chromium with the flags this machine's closed network needs. */
export function launch(): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath!,
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}

/**
 * Gives the page a virtual passkey authenticator (CTAP2, resident keys, user verification,
 * presence simulated) over the Chrome DevTools Protocol.
 */
export async function addVirtualAuthenticator(context: BrowserContext, page: Page): Promise<void> {
  const cdp = await context.newCDPSession(page);
  await cdp.send("WebAuthn.enable");
  await cdp.send("WebAuthn.addVirtualAuthenticator", {
    options: {
      protocol: "ctap2",
      transport: "internal",
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
}
