// Building the page without HTML strings: every node is created with createElement and every
// text with a text node, so nothing a document or the server says can become markup.

const SAFE_SCHEMES = new Set(["http:", "https:", "mailto:"]);

/** h("a", {href, class, onclick}, "text", child, …) → an element. */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith("on") && typeof value === "function") {
      el.addEventListener(key.slice(2), value);
    } else if (key === "href" || key === "src") {
      const safe = safeUrl(value);
      if (safe !== null) el.setAttribute(key, safe);
    } else if (key === "dataset") {
      Object.assign(el.dataset, value);
    } else {
      el.setAttribute(key, value === true ? "" : String(value));
    }
  }
  append(el, children);
  return el;
}

export function append(el, children) {
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

/** A URL that may be put in href/src: same-origin paths and http(s)/mailto only. */
export function safeUrl(value) {
  const text = String(value).trim();
  if (text.startsWith("/") && !text.startsWith("//")) return text;
  if (text.startsWith("#") || text.startsWith("?")) return text;
  try {
    const url = new URL(text, location.origin);
    return SAFE_SCHEMES.has(url.protocol) ? url.href : null;
  } catch {
    return null;
  }
}

/** Text with the query's terms wrapped in <mark> (case-insensitive, no regex from input).
 * At each point the earliest hit wins, the longest term on a tie. Each term's next hit is
 * remembered and searched again only once the scan has passed it, so every term walks the
 * text once: linear in the text's length (searching every term from each hit again was
 * quadratic on a long line with many hits and terms that never occur). */
export function highlight(text, terms) {
  const lower = text.toLowerCase();
  const wanted = [...new Set(terms.map((t) => t.toLowerCase()).filter((t) => t.length > 1))];
  const next = wanted.map((term) => lower.indexOf(term));
  const out = [];
  let i = 0;
  while (i < text.length) {
    let hit = null;
    for (const [k, term] of wanted.entries()) {
      if (next[k] !== -1 && next[k] < i) next[k] = lower.indexOf(term, i);
      const at = next[k];
      if (at !== -1 && (hit === null || at < hit.at || (at === hit.at && term.length > hit.len))) {
        hit = { at, len: term.length };
      }
    }
    if (hit === null) break;
    if (hit.at > i) out.push(text.slice(i, hit.at));
    out.push(h("mark", {}, text.slice(hit.at, hit.at + hit.len)));
    i = hit.at + hit.len;
  }
  if (i < text.length) out.push(text.slice(i));
  return out;
}

/** A snippet the server already marked with <mark>…</mark>: only those two tags count. */
export function markedSnippet(snippet, terms) {
  if (!snippet.includes("<mark>")) return highlight(snippet, terms);
  const out = [];
  for (const [index, part] of snippet.split(/<\/?mark>/).entries()) {
    if (part) out.push(index % 2 === 1 ? h("mark", {}, part) : part);
  }
  return out;
}

export function queryTerms(query) {
  return query.split(/[\s"',.;:!?()]+/).filter(Boolean);
}

export function formatBytes(n) {
  if (n === undefined || n === null) return "";
  const units = ["B", "KB", "MB", "GB"];
  let value = n;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value.toFixed(unit === 0 ? 0 : 1)} ${units[unit]}`;
}

export function formatDate(value) {
  if (value === undefined || value === null || value === "") return "";
  const date = typeof value === "number" ? new Date(value) : new Date(String(value));
  return Number.isNaN(date.getTime()) ? String(value) : date.toLocaleString();
}

export function docHref(uri, line) {
  const query = new URLSearchParams({ uri });
  if (line) query.set("line", String(line));
  return `/doc?${query}`;
}

export function errorBox(error) {
  const code = error?.code ?? "ERROR";
  return h("p", { class: "banner error", role: "alert" }, `${code}: ${error?.message ?? error}`);
}

/** Open a page of the app without reloading (the router listens to popstate). */
export function go(href) {
  history.pushState(null, "", href);
  window.dispatchEvent(new PopStateEvent("popstate"));
}
