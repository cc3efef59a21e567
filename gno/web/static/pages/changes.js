// Changes: the knowledge-delta feed (GET /api/changes), newest first, a page at a time, with
// the structural diff of one change on demand (GET /api/diff): headings, links, typed edges
// and dates added or removed. The journal never stores bodies, so neither does this page.

import { api } from "../api.js";
import { append, docHref, errorBox, formatDate, go, h } from "../dom.js";

const FETCH = 1000; // the journal's page maximum
const MAX_PAGES = 5; // at most 5,000 changes in the browser; narrow the window for more
const SCREEN = 100;
const SINCE = [
  ["1h", "Last hour"],
  ["24h", "Last day"],
  ["7d", "Last week"],
  ["30d", "Last 30 days"],
];
const KIND = { create: "created", update: "updated", rename: "renamed", inactivate: "removed", reactivate: "restored" };

export async function changesPage(main, params, signal) {
  const since = params.get("since") ?? "7d";
  const collection = params.get("collection") ?? "";
  const select = h(
    "select",
    { "aria-label": "Since", onchange: () => go(`/changes?${new URLSearchParams({ since: select.value, ...(collection ? { collection } : {}) })}`) },
    SINCE.map(([value, label]) => h("option", { value, selected: value === since }, label)),
  );
  const list = h("ol", { class: "changes", "data-testid": "changes" });
  const more = h("button", { type: "button", hidden: true }, "Older changes");
  const status = h("p", { class: "muted" });
  main.append(h("h1", {}, "Changes"), h("div", { class: "filters" }, select), status, list, more);

  // The journal pages forward in time (oldest first, by cursor); a feed reads newest first,
  // so fetch the window (bounded) and show it from the end, a screenful at a time.
  const query = new URLSearchParams({ since, limit: String(FETCH) });
  if (collection) query.set("collection", collection);
  const changes = [];
  let cursor = null;
  let expired = false;
  const warnings = new Set();
  for (let page = 0; page < MAX_PAGES; page++) {
    const q = new URLSearchParams(query);
    if (cursor) q.set("since", cursor);
    let answer;
    try {
      answer = await api(`/api/changes?${q}`, { signal });
    } catch (error) {
      if (error?.name === "AbortError") throw error;
      main.append(errorBox(error));
      return;
    }
    changes.push(...answer.changes);
    expired ||= Boolean(answer.page?.cursorExpired || answer.page?.retentionTruncated);
    for (const warning of answer.warnings ?? []) warnings.add(warning);
    cursor = answer.page?.nextCursor;
    if (!cursor) break;
  }
  changes.reverse();
  let shown = 0;
  const showMore = () => {
    list.append(...changes.slice(shown, shown + SCREEN).map((change) => entry(change, signal)));
    shown = Math.min(changes.length, shown + SCREEN);
    more.hidden = shown >= changes.length;
  };
  more.onclick = showMore;
  showMore();
  status.textContent = changes.length ? `${changes.length}${cursor ? "+" : ""} change${changes.length === 1 ? "" : "s"}, newest first.` : "No changes in this window.";
  if (expired) status.textContent += " Older history has expired.";
  for (const warning of warnings) status.append(" ", h("span", { class: "badge warn" }, warning));
}

function entry(change, signal) {
  const doc = change.current ?? change.previous ?? {};
  const renamed = change.kind === "rename" && change.previous ? ` (was ${change.previous.relPath})` : "";
  const details = h("div", { class: "diff", hidden: true });
  const toggle = h(
    "button",
    {
      type: "button",
      class: "link",
      "aria-expanded": "false",
      onclick: async () => {
        const open = details.hidden;
        details.hidden = !open;
        toggle.setAttribute("aria-expanded", String(open));
        if (open && !details.childElementCount) append(details, await diffOf(doc.uri, change, signal));
      },
    },
    "What changed",
  );
  return h(
    "li",
    { class: "change", "data-kind": change.kind },
    h("span", { class: `badge ${change.kind === "inactivate" ? "error" : "ok"}` }, KIND[change.kind] ?? change.kind),
    " ",
    doc.uri && doc.active !== false ? h("a", { href: docHref(doc.uri) }, doc.relPath) : h("span", {}, doc.relPath ?? "?"),
    h("span", { class: "muted" }, `${renamed} · ${change.collection} · ${formatDate(change.observedAt)}`),
    " ",
    toggle,
    details,
  );
}

async function diffOf(uri, change, signal) {
  const delta = change.structureDelta;
  if (!uri) return [deltaView(delta)];
  try {
    const diff = await api(`/api/diff?${new URLSearchParams({ ref: uri, change: change.id })}`, { signal });
    const note = diff.status === "available" ? null : h("p", { class: "muted" }, `History ${diff.status}.`);
    return [note, deltaView(diff.change?.structureDelta ?? delta)];
  } catch (error) {
    if (error?.name === "AbortError") throw error;
    // A document removed since keeps its journal entry: show what the feed already carries.
    return [deltaView(delta)];
  }
}

function deltaView(delta) {
  if (!delta) return h("p", { class: "muted" }, "No structural change recorded.");
  const rows = [];
  for (const [name, label] of [["headings", "Headings"], ["links", "Links"], ["typedEdges", "Typed edges"], ["dates", "Dates"]]) {
    const part = delta[name] ?? {};
    const added = part.added ?? [];
    const removed = part.removed ?? [];
    const changed = part.changed ?? [];
    if (!added.length && !removed.length && !changed.length) continue;
    rows.push(
      h("dt", {}, label),
      h(
        "dd",
        {},
        added.map((x) => h("div", { class: "add" }, `+ ${typeof x === "string" ? x : JSON.stringify(x)}`)),
        removed.map((x) => h("div", { class: "del" }, `− ${typeof x === "string" ? x : JSON.stringify(x)}`)),
        changed.map((x) => h("div", { class: "chg" }, `~ ${typeof x === "string" ? x : JSON.stringify(x)}`)),
      ),
    );
  }
  if (!rows.length) return h("p", { class: "muted" }, "Content changed; structure (headings, links, dates) did not.");
  return h("dl", { class: "facts delta" }, rows, delta.truncated ? [h("dt", {}, ""), h("dd", { class: "muted" }, "(truncated)")] : null);
}
