"use client";
import { useEffect, useState } from "react";

const utc = new Intl.DateTimeFormat("en-GB", {
  dateStyle: "medium",
  timeStyle: "short",
  timeZone: "UTC",
});

/**
 * A moment, readable: in UTC as the server renders it (so that the browser's first render
 * matches), then in the reader's own time zone and language once the page runs in the browser.
 */
export function When({ at }: { at: string }) {
  const [inBrowser, setInBrowser] = useState(false);
  useEffect(() => setInBrowser(true), []);
  const date = new Date(at);
  const text = inBrowser
    ? new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" }).format(date)
    : `${utc.format(date)} UTC`;
  return <time dateTime={at}>{text}</time>;
}
