import { A, Router } from "@solidjs/router";
import { FileRoutes } from "@solidjs/start/router";
import { onMount, type ParentProps, Suspense } from "solid-js";
import "./app.css";

function Layout(props: ParentProps) {
  // The page's buttons work from here on: the browser tests wait for this mark before clicking.
  onMount(() => document.documentElement.setAttribute("data-hydrated", ""));
  return (
    <>
      <header class="bar">
        <A href="/" class="brand" end data-testid="nav-home">
          <img src="/logo.svg" alt="" width="28" height="28" />
          Gatehouse Demo
        </A>
        <nav>
          <A href="/protected" data-testid="nav-protected">
            SSR-protected
          </A>
          {/* A full page load: the middleware sees server requests, never client navigation. */}
          <A href="/middleware-protected" rel="external" data-testid="nav-middleware-protected">
            Middleware-protected
          </A>
          <A href="/profile" data-testid="nav-profile">
            Profile
          </A>
          <A href="/sessions" data-testid="nav-sessions">
            Sessions
          </A>
          <A href="/activity" data-testid="nav-activity">
            Activity
          </A>
        </nav>
      </header>
      <main>
        <Suspense fallback={<p class="muted">Loading…</p>}>{props.children}</Suspense>
      </main>
    </>
  );
}

export default function App() {
  return (
    <Router root={Layout}>
      <FileRoutes />
    </Router>
  );
}
