// The Web UI's entry: a router over location.pathname, links that navigate without reloading,
// and the live connection to /api/events that pages listen to ("gno:document-changed"). With
// GNO_API_TOKEN set and no session yet, the token form (token.js) stands in for every page.

import { askPage } from "./pages/ask.js";
import { browsePage } from "./pages/browse.js";
import { changesPage } from "./pages/changes.js";
import { collectionsPage } from "./pages/collections.js";
import { docPage } from "./pages/doc.js";
import { editPage } from "./pages/edit.js";
import { graphPage } from "./pages/graph.js";
import { homePage } from "./pages/home.js";
import { searchPage } from "./pages/search.js";
import { tracesPage } from "./pages/traces.js";
import { api } from "./api.js";
import { h } from "./dom.js";
import { hasFeature } from "./features.js";
import { tokenForm } from "./token.js";

const PAGES = {
  "/": { render: homePage, title: "Home" },
  "/search": { render: searchPage, title: "Search" },
  "/browse": { render: browsePage, title: "Browse" },
  "/doc": { render: docPage, title: "Document" },
  "/collections": { render: collectionsPage, title: "Collections" },
};
// Pages whose operations this server has (features.js); the others are neither routed nor shown.
const OPTIONAL = [
  { features: ["graph"], path: "/graph", render: graphPage, title: "Graph" },
  { features: ["changes"], path: "/changes", render: changesPage, title: "Changes" },
  { features: ["edit", "capture"], path: "/edit", render: editPage, title: "Edit" },
  { features: ["ask"], path: "/ask", render: askPage, title: "Ask" },
  { features: ["traces"], path: "/traces", render: tracesPage, title: "Traces" },
];
for (const page of OPTIONAL) {
  if (page.features.some(hasFeature)) PAGES[page.path] = page;
}
for (const link of document.querySelectorAll("[data-feature]")) {
  link.hidden = !hasFeature(link.dataset.feature);
}

let current = null; // {controller} of the page on screen: aborted when the user leaves it
let locked = false; // the server asked for its token (401 UNAUTHORIZED): the form shows

/** Any API call answered 401 UNAUTHORIZED (api.js): the page gives way to the token form. */
function lock() {
  locked = true;
  current?.controller.abort();
  tokenForm(document.getElementById("app"));
  document.body.dataset.rendered = "token";
}

async function render() {
  current?.controller.abort();
  const controller = new AbortController();
  current = { controller };
  const page = PAGES[location.pathname];
  const main = document.getElementById("app");
  delete document.body.dataset.rendered; // set again once this page finished rendering
  for (const link of document.querySelectorAll("nav a[data-page]")) {
    link.toggleAttribute("aria-current", link.dataset.page === location.pathname);
  }
  if (locked) {
    lock();
    return;
  }
  main.replaceChildren();
  if (!page) {
    document.title = "Not found · gno";
    main.append(h("h1", {}, "Not found"), h("p", {}, "No page here. ", h("a", { href: "/" }, "Home")));
    return;
  }
  document.title = `${page.title} · gno`;
  try {
    await page.render(main, new URLSearchParams(location.search), controller.signal);
  } catch (error) {
    if (error?.name === "AbortError" || controller.signal.aborted) return;
    main.append(h("p", { class: "banner error", role: "alert" }, `${error?.code ?? "ERROR"}: ${error?.message ?? error}`));
  } finally {
    if (!controller.signal.aborted) document.body.dataset.rendered = location.pathname;
  }
}

export function navigate(href, { replace = false } = {}) {
  if (replace) history.replaceState(null, "", href);
  else history.pushState(null, "", href);
  render();
}

document.addEventListener("click", (event) => {
  const link = event.target.closest?.("a[href]");
  if (!link || event.defaultPrevented || event.button !== 0) return;
  if (event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
  if (link.target || link.hasAttribute("data-external") || link.hasAttribute("download")) return;
  const url = new URL(link.href, location.href);
  if (url.origin !== location.origin || !(url.pathname in PAGES)) return;
  event.preventDefault();
  if (url.pathname === location.pathname && url.search === location.search && url.hash) {
    document.getElementById(decodeURIComponent(url.hash.slice(1)))?.scrollIntoView();
    return;
  }
  navigate(url.pathname + url.search + url.hash);
});

window.addEventListener("popstate", render);
window.addEventListener("gno:unauthorized", () => {
  if (!locked) lock(); // once: later refusals must not wipe what the user is typing
});

// Live updates: one EventSource for the whole app; the browser reconnects by itself.
function connectEvents() {
  const live = document.getElementById("live");
  const source = new EventSource("/api/events");
  source.addEventListener("open", () => {
    live.textContent = "live";
    live.className = "live on";
  });
  source.addEventListener("error", () => {
    live.textContent = "offline";
    live.className = "live off";
  });
  for (const type of ["document-changed", "collection-changed"]) {
    source.addEventListener(type, (event) => {
      let detail = null;
      try {
        detail = JSON.parse(event.data);
      } catch {
        return;
      }
      window.dispatchEvent(new CustomEvent(`gno:${type}`, { detail }));
    });
  }
}

// Whether this browser may call the API (no token set, or a session): asked first, so a page
// that calls nothing until the user types still shows the token form at once.
async function start() {
  try {
    await api("/api/session");
  } catch (error) {
    if (error?.status === 401) return; // lock() has shown the form
  }
  connectEvents();
  render();
}

start();
