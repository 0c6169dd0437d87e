import { Router } from "@solidjs/router";
import { FileRoutes } from "@solidjs/start/router";
import { Suspense } from "solid-js";

export default function App() {
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
