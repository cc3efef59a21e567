// Browse: the documents of the index, a page at a time (GET /api/docs), by collection and path.

import { api } from "../api.js";
import { docHref, errorBox, h } from "../dom.js";

const PAGE = 50;

export async function browsePage(main, params, signal) {
  const collection = params.get("collection") ?? "";
  const prefix = params.get("prefix") ?? "";
  const offset = Math.max(0, Number(params.get("offset")) || 0);
  const query = new URLSearchParams({ limit: String(PAGE), offset: String(offset) });
  if (collection) query.set("collection", collection);
  if (prefix) query.set("pathPrefix", prefix);
  main.append(h("h1", {}, collection ? `Browse ${collection}` : "Browse"));
  let page;
  try {
    page = await api(`/api/docs?${query}`, { signal });
  } catch (error) {
    if (error?.name === "AbortError") throw error;
    main.append(errorBox(error));
    return;
  }
  const docs = page.documents ?? [];
  const link = (at) => {
    const next = new URLSearchParams();
    if (collection) next.set("collection", collection);
    if (prefix) next.set("prefix", prefix);
    if (at) next.set("offset", String(at));
    return `/browse${next.size ? `?${next}` : ""}`;
  };
  main.append(
    h("p", { class: "muted" }, docs.length ? `${offset + 1}–${offset + docs.length} of ${page.total}` : "No documents."),
    h(
      "ul",
      { class: "doc-list", "data-testid": "doc-list" },
      docs.map((d) =>
        h("li", {}, h("a", { href: docHref(d.uri) }, d.title || d.relPath), " ", h("span", { class: "muted" }, `${d.collection}/${d.relPath}`)),
      ),
    ),
    h(
      "nav",
      { class: "pager", "aria-label": "Pages" },
      offset > 0 ? h("a", { href: link(Math.max(0, offset - PAGE)) }, "← Previous") : null,
      offset + docs.length < page.total ? h("a", { href: link(offset + PAGE) }, "Next →") : null,
    ),
  );
}
