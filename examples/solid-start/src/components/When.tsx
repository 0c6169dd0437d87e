import { createSignal, onMount } from "solid-js";

const utc = new Intl.DateTimeFormat("en-GB", {
  dateStyle: "medium",
  timeStyle: "short",
  timeZone: "UTC",
});
const local = () => new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" });

/**
 * A moment, readable: in UTC as the server renders it (so that the browser's first render
 * matches), then in the reader's own time zone and language once the page runs in the browser.
 */
export default function When(props: { at: string }) {
  const [inBrowser, setInBrowser] = createSignal(false);
  onMount(() => setInBrowser(true));
  const text = () => {
    const date = new Date(props.at);
    return inBrowser() ? local().format(date) : `${utc.format(date)} UTC`;
  };
  return <time datetime={props.at}>{text()}</time>;
}
