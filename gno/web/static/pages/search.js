// Search: one box, keyword / semantic / hybrid (fast, balanced, thorough), filters, highlighted
// snippets, keyboard navigation and "why this result" (POST /api/query/diagnose) on demand.
// Keyword search runs as you type, debounced, and every newer keystroke aborts the request
// before it, so the server sees at most one search in flight per page.

import { api } from "../api.js";
import { docHref, errorBox, h, markedSnippet, queryTerms } from "../dom.js";

const TYPE_DELAY_MS = 180;
const MODES = {
  keyword: { label: "Keyword", path: "/api/search" },
  semantic: { label: "Semantic", path: "/api/vsearch" },
  hybrid: { label: "Hybrid", path: "/api/query" },
};
// REST has no depth flags: fast = no expansion, rerank or graph; thorough = 40 candidates.
const DEPTHS = {
  fast: { noExpand: true, noRerank: true, noGraph: true },
  balanced: {},
  thorough: { candidateLimit: 40 },
};

export async function searchPage(main, params, signal) {
  const state = {
    q: params.get("q") ?? "",
    mode: MODES[params.get("mode")] ? params.get("mode") : "keyword",
    depth: DEPTHS[params.get("depth")] ? params.get("depth") : "balanced",
    collection: params.get("collection") ?? "",
    tags: params.get("tags") ?? "",
    since: params.get("since") ?? "",
    until: params.get("until") ?? "",
  };
  let inflight = null;
  let timer = null;
  let selected = -1;

  const input = h("input", {
    type: "search",
    name: "q",
    value: state.q,
    placeholder: "Search your documents…  ( / to focus )",
    autocomplete: "off",
    "aria-label": "Search",
  });
  const mode = select("mode", Object.entries(MODES).map(([k, v]) => [k, v.label]), state.mode);
  const depth = select("depth", Object.keys(DEPTHS).map((k) => [k, k]), state.depth);
  const collection = select("collection", [["", "All collections"]], state.collection);
  const tags = h("input", { type: "text", name: "tags", value: state.tags, placeholder: "tags (any, comma separated)" });
  const since = h("input", { type: "date", name: "since", value: state.since, "aria-label": "Modified since" });
  const until = h("input", { type: "date", name: "until", value: state.until, "aria-label": "Modified until" });
  const meta = h("p", { class: "muted", role: "status", "data-testid": "search-meta" });
  const results = h("ol", { class: "results", "data-testid": "results" });

  const form = h(
    "form",
    { class: "search-form", role: "search", onsubmit: (e) => (e.preventDefault(), run(true)) },
    h("div", { class: "search-row" }, input, h("button", { type: "submit" }, "Search")),
    h("div", { class: "filters" }, mode, depth, collection, tags, since, until),
  );
  main.append(h("h1", {}, "Search"), form, meta, results);

  api("/api/collections", { signal })
    .then((list) => {
      for (const c of list ?? []) collection.append(h("option", { value: c.name, selected: c.name === state.collection }, c.name));
    })
    .catch(() => {});

  const syncDepth = () => depth.toggleAttribute("hidden", mode.value !== "hybrid");
  syncDepth();
  input.addEventListener("input", () => {
    clearTimeout(timer);
    if (mode.value === "keyword") timer = setTimeout(() => run(false), TYPE_DELAY_MS);
  });
  for (const control of [mode, depth, collection, since, until]) {
    control.addEventListener("change", () => (syncDepth(), run(true)));
  }
  tags.addEventListener("change", () => run(true));

  const onKey = (event) => {
    const typing = event.target === input || event.target.matches?.("input, select, textarea");
    if (event.key === "/" && !typing) {
      event.preventDefault();
      input.focus();
      return;
    }
    const items = [...results.querySelectorAll("li.result")];
    if (!items.length) return;
    if (event.key === "ArrowDown" || (event.key === "j" && !typing)) move(items, 1, event);
    else if (event.key === "ArrowUp" || (event.key === "k" && !typing)) move(items, -1, event);
    else if (event.key === "Enter" && selected >= 0 && event.target !== input) {
      event.preventDefault();
      items[selected].querySelector("a.title")?.click();
    }
  };
  document.addEventListener("keydown", onKey);
  signal.addEventListener("abort", () => (document.removeEventListener("keydown", onKey), inflight?.abort()));

  function move(items, step, event) {
    event.preventDefault();
    selected = Math.max(0, Math.min(items.length - 1, selected + step));
    items.forEach((item, index) => item.classList.toggle("selected", index === selected));
    items[selected].focus();
  }

  function body(query) {
    const request = { query, limit: 20 };
    if (collection.value) request.collection = collection.value;
    if (tags.value.trim()) request.tagsAny = tags.value.trim();
    if (since.value) request.since = since.value;
    if (until.value) request.until = until.value;
    if (mode.value === "hybrid") Object.assign(request, DEPTHS[depth.value]);
    return request;
  }

  async function run(pushUrl) {
    const query = input.value.trim();
    const url = new URLSearchParams();
    if (query) url.set("q", query);
    if (mode.value !== "keyword") url.set("mode", mode.value);
    if (mode.value === "hybrid" && depth.value !== "balanced") url.set("depth", depth.value);
    for (const [key, control] of [["collection", collection], ["tags", tags], ["since", since], ["until", until]]) {
      if (control.value.trim()) url.set(key, control.value.trim());
    }
    history[pushUrl ? "pushState" : "replaceState"](null, "", `/search${url.size ? `?${url}` : ""}`);
    inflight?.abort();
    selected = -1;
    if (query.length < 2) {
      results.replaceChildren();
      meta.textContent = query ? "Type at least two characters." : "";
      return;
    }
    inflight = new AbortController();
    const started = performance.now();
    meta.textContent = "Searching…";
    try {
      const data = await api(MODES[mode.value].path, { method: "POST", body: body(query), signal: inflight.signal });
      const ms = Math.round(performance.now() - started);
      show(query, data, ms);
    } catch (error) {
      if (error?.name === "AbortError") return;
      meta.textContent = "";
      results.replaceChildren(h("li", {}, errorBox(error)));
    }
  }

  function show(query, data, ms) {
    const list = data?.results ?? [];
    const how = data?.meta?.mode ? ` · ${data.meta.mode}` : "";
    meta.textContent = `${list.length} result${list.length === 1 ? "" : "s"} in ${ms} ms${how}`;
    const terms = queryTerms(query);
    results.replaceChildren(
      ...list.map((hit) => {
        const why = h("div", { class: "why", hidden: true });
        const line = hit.snippetRange?.startLine ?? hit.line;
        return h(
          "li",
          { class: "result", tabindex: "-1" },
          h("a", { class: "title", href: docHref(hit.uri, line) }, hit.title || hit.uri),
          h("span", { class: "score", title: "score" }, (hit.score ?? 0).toFixed(2)),
          h("div", { class: "uri" }, hit.uri, line ? `:${line}` : ""),
          hit.snippet ? h("pre", { class: "snippet" }, numbered(hit.snippet, hit.snippetRange?.startLine, terms)) : null,
          hit.tags?.length ? h("div", { class: "tags" }, hit.tags.map((t) => h("span", { class: "tag" }, t))) : null,
          h("button", { type: "button", class: "link", onclick: () => explain(query, hit.uri, why) }, "Why this result?"),
          why,
        );
      }),
    );
  }

  async function explain(query, uri, box) {
    box.hidden = false;
    box.textContent = "Diagnosing…";
    try {
      const report = await api("/api/query/diagnose", { method: "POST", body: { ...body(query), target: uri }, signal });
      const rows = (report.stages ?? []).map((stage) =>
        h(
          "tr",
          {},
          h("td", {}, stage.id),
          h("td", {}, stage.status),
          h("td", {}, stage.present ? `#${stage.rank ?? "—"}` : "absent"),
          h("td", {}, stage.score === null || stage.score === undefined ? "" : Number(stage.score).toFixed(4)),
          h("td", {}, stage.dropReason ?? (stage.survived ? "kept" : "")),
        ),
      );
      box.replaceChildren(
        h("table", { class: "stages" }, h("thead", {}, h("tr", {}, ["stage", "status", "rank", "score", "outcome"].map((c) => h("th", {}, c)))), h("tbody", {}, rows)),
      );
    } catch (error) {
      box.replaceChildren(errorBox(error));
    }
  }

  if (state.q) await run(false);
  else input.focus();
}

function select(name, options, value) {
  return h(
    "select",
    { name, "aria-label": name },
    options.map(([v, label]) => h("option", { value: v, selected: v === value }, label)),
  );
}

/** The snippet with its line numbers (from snippetRange) and the query's terms marked. */
function numbered(snippet, startLine, terms) {
  const lines = snippet.split("\n");
  return lines.map((text, index) =>
    h(
      "span",
      { class: "line" },
      startLine ? h("span", { class: "ln" }, String(startLine + index)) : null,
      markedSnippet(text, terms),
      index < lines.length - 1 ? "\n" : "",
    ),
  );
}
