import type { TrustedBrowser } from "@gatehousejs/nextjs/client";
import { When } from "@/components/When";

/**
 * The browsers that skip the challenge (ticked "Don't ask again on this browser" on it), each
 * with "Forget"; "Forget every browser" also voids trust cookies no list shows.
 */
export function TrustedBrowsers(props: {
  browsers: TrustedBrowser[];
  busy: boolean;
  onForget: (target: { id: string } | { all: true }) => void;
}) {
  return (
    <section data-testid="trusted-browsers">
      <h2>Trusted browsers</h2>
      {props.browsers.length === 0 ? (
        <p className="muted" data-testid="trusted-browsers-none">
          No browser skips the code.
        </p>
      ) : (
        <ul className="sessions">
          {props.browsers.map((browser) => (
            <li className="row" key={browser.id} data-testid="trusted-browser-row">
              <div className="details">
                <strong>{browser.client}</strong>
                {browser.current ? (
                  <>
                    {" "}
                    <span className="tag" data-testid="trusted-browser-current">
                      this browser
                    </span>
                  </>
                ) : null}
                <br />
                <span className="muted">
                  Trusted since <When at={browser.createdAt} />, until{" "}
                  <When at={browser.expiresAt} />
                </span>
              </div>
              <button
                type="button"
                className="secondary"
                disabled={props.busy}
                onClick={() => props.onForget({ id: browser.id })}
                data-testid="trusted-browser-forget"
              >
                Forget
              </button>
            </li>
          ))}
        </ul>
      )}
      <button
        type="button"
        className="secondary"
        disabled={props.busy}
        onClick={() => props.onForget({ all: true })}
        data-testid="trusted-browsers-forget-all"
      >
        Forget every browser
      </button>
    </section>
  );
}
