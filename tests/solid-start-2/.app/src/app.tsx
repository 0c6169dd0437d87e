import { Router } from "@solidjs/router";
import { FileRoutes } from "@solidjs/start/router";
import { onMount, Suspense } from "solid-js";

export default function App() {
  // Tells the browser test that the page is hydrated (onMount runs in the browser only).
  onMount(() => {
    document.documentElement.dataset["hydrated"] = "true";
  });
  return (
    <Router
      root={(props) => (
        <main>
          <nav>
            <a href="/">Home</a> <a href="/protected">Protected</a> <a href="/members">Members</a>{" "}
            <a href="/signin">Sign in</a>
          </nav>
          <Suspense>{props.children}</Suspense>
        </main>
      )}
    >
      <FileRoutes />
    </Router>
  );
}
