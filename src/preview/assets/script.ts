// The page script, served as /assets/preview.js (the page's Content-Security-Policy allows no
// inline script). It listens to /events and swaps in the part of the page a saved file changed:
// the element `[data-watch]` whose tree path the change lies in (or that lies in the change),
// fetched again with `?fragment=<its id>`, the scroll position kept. Hooks for tests and
// assistive technology: `html[data-live]` (connecting, connected, lost), `#live-status`, and a
// `preview:updated` event on document after each swap. An empty `data-watch` is never refreshed
// (a comparison with the site is made once, when asked).

/** The script's text. */
export const PREVIEW_SCRIPT = `"use strict";
(() => {
  const root = document.documentElement;
  const say = (text) => {
    const status = document.getElementById("live-status");
    if (status) status.textContent = text;
  };
  const concerns = (watch, changed) =>
    watch !== "" &&
    (changed === watch || changed.startsWith(watch + "/") || watch.startsWith(changed + "/"));
  const refresh = async (element, changed) => {
    const url = new URL(location.href);
    url.searchParams.set("fragment", element.id);
    const response = await fetch(url, { headers: { accept: "text/html" } });
    const template = document.createElement("template");
    template.innerHTML = await response.text();
    const next = template.content.getElementById(element.id);
    if (!next || !element.isConnected) return;
    const x = window.scrollX;
    const y = window.scrollY;
    element.replaceWith(next);
    window.scrollTo(x, y);
    say("Updated: " + changed);
    document.dispatchEvent(new CustomEvent("preview:updated", { detail: { id: element.id, path: changed } }));
  };
  root.dataset.live = "connecting";
  const events = new EventSource("/events");
  events.addEventListener("open", () => {
    root.dataset.live = "connected";
  });
  events.addEventListener("error", () => {
    root.dataset.live = "lost";
  });
  events.addEventListener("change", (event) => {
    const changed = JSON.parse(event.data).path;
    for (const element of document.querySelectorAll("[data-watch]")) {
      if (concerns(element.dataset.watch, changed)) {
        refresh(element, changed).catch((error) => say("Could not update: " + error));
      }
    }
  });
})();
`;
