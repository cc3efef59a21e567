// Traces: the retrieval traces of this index (spec/traces.md). The list (GET /api/traces,
// newest first, a page at a time by cursor) shows metadata only; one trace
// (/traces?id=trc_…, GET /api/traces/:id) shows what was asked (replay mode only), what came
// back at which rank and what was opened, with buttons that judge a hit (POST
// …/judgments), export the trace (POST /api/traces/export) or delete it (DELETE). "Purge all"
// empties the trace file (DELETE /api/traces?confirm=true). Traces never hold document text,
// so nothing here shows any: only URIs, ranks, scores, lines and hashes.

import { api } from "../api.js";
import { docHref, errorBox, formatBytes, formatDate, go, h } from "../dom.js";

const PAGE = 50;

export async function tracesPage(main, params, signal) {
  const id = params.get("id");
  if (id) return traceDetail(main, id, signal);
  main.append(h("h1", {}, "Retrieval traces"));
  const status = h("div", { role: "status", "aria-live": "polite", "data-testid": "trace-status" });
  const body = h("tbody", {});
  const more = h("p", {});
  const purge = h("button", { type: "button", class: "danger", onclick: () => purgeAll(status) }, "Purge all traces");
  main.append(
    h("p", { class: "muted" }, "What searches, queries, answers and opened documents returned, when tracing is on (retrievalTraces in index.yml). Metadata only: no document text is kept."),
    h("p", { class: "toolbar" }, purge),
    status,
    h("div", { class: "table-wrap traces" }, h("table", { "data-testid": "trace-list" }, h("thead", {}, h("tr", {}, ["Trace", "Created", "Status", "Mode", "Query", "Size"].map((c) => h("th", {}, c)))), body)),
    more,
  );
  await loadPage(body, more, null, signal);
}

async function loadPage(body, more, cursor, signal) {
  const query = new URLSearchParams({ limit: String(PAGE) });
  if (cursor) query.set("cursor", cursor);
  let page;
  try {
    page = await api(`/api/traces?${query}`, { signal });
  } catch (error) {
    if (error?.name === "AbortError") throw error;
    more.replaceChildren(errorBox(error));
    return;
  }
  const traces = page.traces ?? [];
  if (!cursor && !traces.length) body.append(h("tr", {}, h("td", { colspan: "6", class: "muted" }, "No traces.")));
  for (const t of traces) {
    const shape = t.queryShape?.terms ? `${t.queryShape.terms} term(s)` : t.goalShape?.terms ? `goal, ${t.goalShape.terms} term(s)` : "—";
    body.append(
      h(
        "tr",
        { "data-trace": t.traceId },
        h("td", {}, h("a", { href: `/traces?${new URLSearchParams({ id: t.traceId })}` }, t.traceId)),
        h("td", {}, formatDate(t.createdAtMs)),
        h("td", {}, t.status),
        h("td", {}, t.redactionMode),
        h("td", {}, shape),
        h("td", {}, formatBytes(t.byteSize)),
      ),
    );
  }
  more.replaceChildren(
    page.nextCursor ? h("button", { type: "button", onclick: () => loadPage(body, more, page.nextCursor, signal) }, "More") : null,
  );
}

async function purgeAll(status) {
  if (!window.confirm("Delete every retrieval trace of this index?")) return;
  try {
    const done = await api("/api/traces?confirm=true", { method: "DELETE" });
    status.replaceChildren(h("p", { class: "banner" }, `Purged ${done.traces} trace(s).`));
    go("/traces");
  } catch (error) {
    status.replaceChildren(errorBox(error));
  }
}

async function traceDetail(main, id, signal) {
  main.append(h("p", {}, h("a", { href: "/traces" }, "← All traces")), h("h1", {}, "Trace"));
  let shown;
  try {
    shown = await api(`/api/traces/${encodeURIComponent(id)}`, { signal });
  } catch (error) {
    if (error?.name === "AbortError") throw error;
    main.append(errorBox(error));
    return;
  }
  const t = shown.trace;
  const status = h("div", { role: "status", "aria-live": "polite", "data-testid": "trace-status" });
  const reload = () => go(`/traces?${new URLSearchParams({ id })}`);
  main.append(
    h(
      "dl",
      { class: "facts", "data-testid": "trace-facts" },
      fact("Id", t.traceId),
      fact("Created", formatDate(t.createdAtMs)),
      fact("Status", t.status),
      fact("Mode", t.redactionMode),
      t.queryText ? fact("Query", t.queryText) : null,
      t.goalText ? fact("Goal", t.goalText) : null,
      fact("Expires", formatDate(t.expiresAtMs)),
    ),
    h(
      "p",
      { class: "toolbar" },
      h("button", { type: "button", onclick: () => exportTrace(id, "agentic-receipt", status, reload) }, "Export receipt"),
      t.replayCapable ? h("button", { type: "button", onclick: () => exportTrace(id, "qrels", status, reload) }, "Export qrels") : null,
      h("button", { type: "button", class: "danger", onclick: () => deleteTrace(id, status) }, "Delete trace"),
    ),
    status,
  );
  for (const run of shown.runs ?? []) main.append(runSection(id, run, status, reload));
  const opened = (shown.events ?? []).filter((e) => e.kind === "open").flatMap((e) => e.payload?.evidence ?? []);
  if (opened.length) {
    main.append(
      h("h2", {}, "Opened"),
      h("ul", { "data-testid": "trace-opened" }, opened.map((item) => h("li", {}, spanLink(item)))),
    );
  }
  const judgments = shown.judgments ?? [];
  main.append(
    h("h2", {}, "Judgments"),
    judgments.length
      ? h("ul", { "data-testid": "trace-judgments" }, judgments.map((j) => h("li", { "data-label": j.label }, `${j.label}: `, j.targetRef.startsWith("gno://") ? h("a", { href: docHref(j.targetRef) }, j.targetRef) : j.targetRef)))
      : h("p", { class: "muted" }, "None yet."),
  );
  const exports = shown.exports ?? [];
  if (exports.length) {
    main.append(
      h("h2", {}, "Exports"),
      h("ul", { "data-testid": "trace-exports" }, exports.map((x) => h("li", {}, `${x.exportId} (${x.format}) ${formatDate(x.createdAtMs)}`))),
    );
  }
}

function fact(name, value) {
  return [h("dt", {}, name), h("dd", {}, value ?? "")];
}

function spanLink(item) {
  const uri = item.uri ?? "";
  const lines = item.startLine ? ` lines ${item.startLine}–${item.endLine ?? item.startLine}` : "";
  return [h("a", { href: docHref(uri, item.startLine) }, uri), h("span", { class: "muted" }, lines)];
}

function runSection(id, run, status, reload) {
  const items = run.payload?.ranked ?? run.payload?.evidence ?? [];
  const judge = (item, label) => async () => {
    try {
      const body = { label, targetRef: item.uri ?? item.docid };
      const done = await api(`/api/traces/${encodeURIComponent(id)}/judgments`, { method: "POST", body });
      status.replaceChildren(h("p", { class: "banner" }, `Judged ${label} (${done.result}).`));
      reload();
    } catch (error) {
      status.replaceChildren(errorBox(error));
    }
  };
  return h(
    "section",
    { "data-run": run.kind },
    h("h2", {}, `Run: ${run.kind}`),
    items.length
      ? h(
          "ol",
          { class: "trace-hits", "data-testid": "trace-hits" },
          items.map((item) =>
            h(
              "li",
              {},
              spanLink(item),
              item.score !== undefined ? h("span", { class: "muted" }, ` score ${Number(item.score).toFixed(3)}`) : null,
              " ",
              h("button", { type: "button", class: "link", onclick: judge(item, "relevant") }, "relevant"),
              " · ",
              h("button", { type: "button", class: "link", onclick: judge(item, "irrelevant") }, "irrelevant"),
            ),
          ),
        )
      : h("p", { class: "muted" }, "Nothing came back."),
  );
}

async function exportTrace(id, format, status, reload) {
  try {
    const done = await api("/api/traces/export", { method: "POST", body: { traceIds: [id], format } });
    status.replaceChildren(h("p", { class: "banner" }, `Exported ${done.manifest?.exportId ?? ""} (${done.result}).`));
    reload();
  } catch (error) {
    status.replaceChildren(errorBox(error));
  }
}

async function deleteTrace(id, status) {
  if (!window.confirm("Delete this trace?")) return;
  try {
    await api(`/api/traces/${encodeURIComponent(id)}`, { method: "DELETE" });
    go("/traces");
  } catch (error) {
    status.replaceChildren(errorBox(error));
  }
}
