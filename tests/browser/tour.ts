/**
 * The browser tests use the demo as a person does: after the first address, every page is
 * reached by clicking what the page shows. A tour records every link and button the demo's own
 * pages showed (by `data-testid`) and every one a test clicked, so that a test can check that
 * nothing the demo shows goes untried. The built-in pages under /api/auth and the OpenID
 * provider's pages are not the demo's: they are clicked by their own selectors.
 */
import type { Page } from "playwright-core";

/** What a page showed: a test id, or a description of a link or button that has none. */
export type Shown = string;

export class Tour {
  /** Every link and button seen on the demo's pages, with the first path it was seen on. */
  readonly seen = new Map<Shown, string>();
  /** Every test id clicked. */
  readonly clicked = new Set<string>();

  constructor(private readonly origin: string) {}

  /** Whether the page shows one of the demo's own pages (not an auth page, not the provider). */
  private isDemoPage(page: Page): boolean {
    const url = new URL(page.url());
    return url.origin === this.origin && !url.pathname.startsWith("/api/auth");
  }

  /** Waits for the demo's page to hydrate (its buttons work), then notes its links and buttons. */
  async look(page: Page): Promise<void> {
    if (!this.isDemoPage(page)) return;
    await page.waitForSelector("html[data-hydrated]", { state: "attached" });
    const shown = await page.evaluate(() =>
      [...document.querySelectorAll("#app a, #app button")].map(
        (element) =>
          element.getAttribute("data-testid") ??
          `(no data-testid) ${element.tagName.toLowerCase()} "${element.textContent?.trim()}"`,
      ),
    );
    const path = new URL(page.url()).pathname;
    for (const item of shown) if (!this.seen.has(item)) this.seen.set(item, path);
  }

  /** Notes what the page shows, then clicks the element with this test id. */
  async click(page: Page, testId: string): Promise<void> {
    await this.look(page);
    await page.getByTestId(testId).first().click();
    this.clicked.add(testId);
  }

  /** What was shown on the demo's pages and never clicked, with where it was seen. */
  unclicked(): string[] {
    return [...this.seen]
      .filter(([item]) => !this.clicked.has(item))
      .map(([item, path]) => `${item} on ${path}`);
  }
}
