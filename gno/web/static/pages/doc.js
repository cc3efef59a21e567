// Document: GET /api/doc?uri=… rendered (Markdown, safely) or as numbered source lines, with a
// heading outline, source facts, the original file through /api/doc-asset, and a banner when
// the file changes on disk while it is open (/api/events).

import { api } from "../api.js";
import { append, docHref, errorBox, formatBytes, formatDate, h } from "../dom.js";
import { hasFeature } from "../features.js";
import { highlightCode } from "../highlight.js";
import { renderMarkdown } from "../markdown.js";

const MARKDOWN = new Set(["text/markdown", "text/x-markdown"]);

export async function docPage(main, params, signal) {
  const uri = params.get("uri");
  if (!uri) {
    main.append(h("h1", {}, "Document"), h("p", {}, "No document given. ", h("a", { href: "/browse" }, "Browse")));
    return;
  }
  let doc;
  try {
    doc = await api(`/api/doc?${new URLSearchParams({ uri })}`, { signal });
  } catch (error) {
    if (error?.name === "AbortError") throw error;
    main.append(h("h1", {}, "Document"), errorBox(error));
    return;
  }
  const line = Number(params.get("line")) || null;
  const source = doc.source ?? {};
  const mime = source.mime ?? "";
  const isMarkdown = MARKDOWN.has(mime) || /\.(md|markdown|mdx)$/i.test(doc.relPath ?? "");
  const asset = `/api/doc-asset?${new URLSearchParams({ uri: doc.uri })}`;
  const content = doc.content ?? "";

  const rendered = h("article", { class: "markdown", "data-testid": "doc-body" });
  const outline = h("nav", { class: "outline", "aria-label": "Outline" });
  let headings = [];
  if (isMarkdown) {
    const result = renderMarkdown(content, linkContext(doc));
    rendered.append(result.fragment);
    headings = result.headings;
  } else {
    rendered.append(h("pre", { class: "code" }, h("code", {}, highlightCode(content, (source.ext ?? "").slice(1)))));
  }
  if (headings.length) {
    outline.append(
      h("h2", {}, "Outline"),
      h("ul", {}, headings.map((x) => h("li", { class: `lvl${x.level}` }, h("a", { href: `#${x.id}` }, x.text)))),
    );
  }
  const sourceView = h("pre", { class: "source", hidden: true, "data-testid": "doc-source" }, numberedLines(content, line));
  const toggle = h(
    "button",
    {
      type: "button",
      "aria-pressed": "false",
      onclick: () => {
        const showSource = sourceView.hidden;
        sourceView.hidden = !showSource;
        rendered.hidden = showSource;
        toggle.setAttribute("aria-pressed", String(showSource));
        toggle.textContent = showSource ? "Rendered" : "Line numbers";
      },
    },
    "Line numbers",
  );
  const changed = h("p", { class: "banner warn", hidden: true, role: "status", "data-testid": "changed-banner" });
  const onChange = (event) => {
    if (event.detail?.uri !== doc.uri) return;
    changed.hidden = false;
    changed.replaceChildren(
      event.detail.change === "removed" ? "This document was removed on disk. " : "This document changed on disk. ",
      h("a", { href: docHref(doc.uri, line) , "data-reload": true }, "Reload"),
    );
  };
  window.addEventListener("gno:document-changed", onChange);
  signal.addEventListener("abort", () => window.removeEventListener("gno:document-changed", onChange));

  const related = h("section", { class: "related", "data-testid": "doc-related" });
  const facts = [
    ["Collection", doc.collection],
    ["Path", doc.relPath],
    ["Type", mime],
    ["Size", formatBytes(source.sizeBytes)],
    ["Modified", formatDate(source.modifiedAt)],
    ["Lines", doc.totalLines],
    ["Language", doc.language],
    ["On disk", source.absPath], // same-host callers only: the server leaves it out for others
  ].filter(([, v]) => v !== undefined && v !== null && v !== "");

  append(main, [
    h(
      "header",
      { class: "doc-head" },
      h("h1", {}, doc.title || doc.relPath || doc.uri),
      h("div", { class: "uri" }, doc.uri, " ", h("span", { class: "muted" }, doc.docid ?? "")),
      doc.tags?.length ? h("div", { class: "tags" }, doc.tags.map((t) => h("a", { class: "tag", href: `/search?${new URLSearchParams({ q: t, tags: t })}` }, t))) : null,
      h("div", { class: "doc-actions" }, toggle, hasFeature("edit") && (doc.capabilities?.editable || doc.capabilities?.tagsEditable) ? h("a", { class: "button", href: `/edit?${new URLSearchParams({ uri: doc.uri })}`, "data-testid": "edit-link" }, "Edit") : null, h("a", { href: asset, class: "button", "data-external": true, target: "_blank", rel: "noopener" }, "Original file")),
    ),
    changed,
    doc.capabilities?.reason ? h("p", { class: "muted" }, doc.capabilities.reason) : null,
    h(
      "div",
      { class: "doc-layout" },
      h("div", { class: "doc-main" }, preview(mime, asset), rendered, sourceView),
      h("aside", { class: "doc-side" }, outline, related, h("h2", {}, "Source"), h("dl", { class: "facts" }, facts.flatMap(([k, v]) => [h("dt", {}, k), h("dd", {}, String(v))]))),
    ),
  ]);
  await fillRelated(related, doc, signal);
  if (line) {
    const target = rendered.querySelector(`[data-line="${line}"]`) ?? null;
    if (target) target.scrollIntoView({ block: "center" });
    else toggle.click();
    sourceView.querySelector(".line.target")?.scrollIntoView({ block: "center" });
  } else if (location.hash) {
    document.getElementById(decodeURIComponent(location.hash.slice(1)))?.scrollIntoView();
  }
}

/** Links, backlinks and similar documents beside the text, where this server has them. */
async function fillRelated(section, doc, signal) {
  if (!doc.docid) return;
  const base = `/api/doc/${encodeURIComponent(doc.docid)}`;
  const load = async (path) => {
    try {
      return await api(`${base}/${path}`, { signal });
    } catch (error) {
      if (error?.name === "AbortError") throw error;
      return { error };
    }
  };
  // Similar documents need vectors: without them the route answers 503, so do not ask.
  const vectors = hasFeature("similar") && (await hasVectors());
  const [links, backlinks, similar] = await Promise.all([
    hasFeature("links") ? load("links") : null,
    hasFeature("links") ? load("backlinks") : null,
    vectors ? load("similar") : null,
  ]);
  const list = (title, testid, items) =>
    items?.length ? [h("h2", {}, title), h("ul", { class: "doc-list", "data-testid": testid }, items)] : null;
  if (links && !links.error) {
    const items = links.links.map((l) =>
      l.resolved && l.resolvedUri
        ? h("li", {}, h("a", { href: docHref(l.resolvedUri) }, l.resolvedTitle || l.targetRef))
        : h("li", { class: "muted", title: "Not found in the index" }, l.targetRef),
    );
    append(section, [list("Links", "doc-links", items)]);
  }
  if (backlinks && !backlinks.error) {
    const items = backlinks.backlinks.map((b) => h("li", {}, h("a", { href: docHref(b.sourceUri, b.startLine) }, b.sourceTitle || b.sourceUri)));
    append(section, [list("Backlinks", "doc-backlinks", items)]);
  }
  if (similar && !similar.error) {
    const items = similar.similar.map((d) => h("li", {}, h("a", { href: docHref(d.uri) }, d.title || d.relPath), h("span", { class: "muted" }, ` ${d.score.toFixed(2)}`)));
    append(section, [list("Similar", "doc-similar", items)]);
  }
  if (hasFeature("graph")) {
    section.append(h("p", {}, h("a", { href: `/graph?${new URLSearchParams({ uri: doc.uri })}` }, "Neighbourhood graph")));
  }
}

let vectorState = null; // GET /api/capabilities once per app load (never aborted: it is shared)

async function hasVectors() {
  vectorState ??= api("/api/capabilities").then((c) => Boolean(c.vector)).catch(() => false);
  return vectorState;
}

/** Images show inline and PDFs embed, both through /api/doc-asset (same origin). */
function preview(mime, asset) {
  if (mime.startsWith("image/") && mime !== "image/svg+xml") return h("img", { class: "preview", src: asset, alt: "" });
  if (mime === "application/pdf") return h("p", {}, h("a", { href: asset, "data-external": true, target: "_blank", rel: "noopener" }, "Open the PDF"));
  return null;
}

function numberedLines(text, target) {
  const lines = text.split("\n");
  const width = String(lines.length).length;
  return lines.map((value, index) =>
    h(
      "span",
      { class: `line${index + 1 === target ? " target" : ""}`, id: `L${index + 1}` },
      h("span", { class: "ln" }, String(index + 1).padStart(width, " ")),
      value,
      "\n",
    ),
  );
}

/** Relative links and images resolve inside the document's collection, never above its root. */
function linkContext(doc) {
  const collection = doc.collection;
  const base = (doc.relPath ?? "").split("/").slice(0, -1);
  const resolve = (target) => {
    const [pathPart, anchor] = target.split("#", 2);
    let path;
    try {
      path = decodeURIComponent(pathPart);
    } catch {
      return null;
    }
    const parts = path.startsWith("/") ? [] : [...base];
    for (const piece of path.split("/")) {
      if (piece === "" || piece === ".") continue;
      if (piece === "..") {
        if (!parts.length) return null; // would leave the collection root
        parts.pop();
      } else parts.push(piece);
    }
    if (!parts.length || !collection) return null;
    return { uri: `gno://${collection}/${parts.map(encodeURIComponent).join("/")}`, anchor };
  };
  return {
    link(target) {
      const found = resolve(target);
      if (!found) return null;
      return `/doc?${new URLSearchParams({ uri: found.uri })}${found.anchor ? `#${found.anchor}` : ""}`;
    },
    image(target) {
      // An asset referenced by the document: /api/doc-asset resolves `path` against it and
      // refuses anything outside the collection root.
      if (!resolve(target)) return null;
      return `/api/doc-asset?${new URLSearchParams({ uri: doc.uri, path: target.split("#")[0] })}`;
    },
    wiki(target) {
      const name = target.split("#")[0].trim();
      return name ? `/search?${new URLSearchParams({ q: name })}` : null;
    },
  };
}
