// @refresh reload
import { mount, StartClient } from "@solidjs/start/client";

// vinxi's client handler imports this module's default export: give it the mounted app.
export default mount(() => <StartClient />, document.getElementById("app")!);
