import { useLocation } from "@solidjs/router";
import type { JSX } from "solid-js";

/**
 * A link to the built-in sign-in page that comes back to the page it is on. `rel="external"`
 * makes the Solid router leave it alone: `/api/auth/signin` is a server route, not one of the
 * app's pages, so the browser must load it (a router-handled click would answer "Not found").
 */
export default function SignInLink(props: { testId: string; children?: JSX.Element }) {
  const location = useLocation();
  const href = () =>
    `/api/auth/signin?${new URLSearchParams({ callbackUrl: location.pathname + location.search })}`;
  return (
    <a class="button" href={href()} rel="external" data-testid={props.testId}>
      {props.children ?? "Sign in"}
    </a>
  );
}
