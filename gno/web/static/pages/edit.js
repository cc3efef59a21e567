// Editor: `/edit?uri=…` edits one document (PUT /api/docs/:id with the hash it was loaded at,
// so a change made on disk meanwhile answers 409 and both versions are shown side by side),
// its tags, and renames or moves it through the refactor preview (the links that will be
// rewritten are listed before anything is applied). `/edit?collection=…` captures a new note
// (POST /api/capture) from a preset.

import { api } from "../api.js";
import { docHref, errorBox, go, h } from "../dom.js";
import { hasFeature } from "../features.js";

export async function editPage(main, params, signal) {
  const uri = params.get("uri");
  if (!uri) return captureForm(main, params, signal);
  let doc;
  try {
    doc = await api(`/api/doc?${new URLSearchParams({ uri })}`, { signal });
  } catch (error) {
    if (error?.name === "AbortError") throw error;
    main.append(h("h1", {}, "Edit"), errorBox(error));
    return;
  }
  main.append(h("h1", {}, `Edit ${doc.title || doc.relPath}`), h("div", { class: "uri" }, doc.uri, " ", h("a", { href: docHref(doc.uri) }, "View")));
  const caps = doc.capabilities ?? {};
  if (!caps.editable && !caps.tagsEditable) {
    main.append(h("p", { class: "banner" }, caps.reason || "This document cannot be edited here."));
    return;
  }
  let loaded = { hash: doc.source?.sourceHash, modifiedAt: doc.source?.modifiedAt };
  const text = h("textarea", { class: "editor", name: "content", spellcheck: "false", "aria-label": "Content", disabled: !caps.editable });
  text.value = doc.content ?? "";
  const tags = h("input", { name: "tags", value: (doc.tags ?? []).join(", "), "aria-label": "Tags (comma-separated)", disabled: !caps.tagsEditable });
  const status = h("p", { role: "status", class: "muted", "data-testid": "save-status" });
  const conflict = h("section", { class: "conflict", hidden: true, "data-testid": "conflict" });
  const original = { content: text.value, tags: tags.value };

  const save = async (expected) => {
    const body = { uri: doc.uri };
    if (caps.editable && text.value !== original.content) body.content = text.value;
    if (caps.tagsEditable && tags.value !== original.tags) body.tags = splitTags(tags.value);
    if (body.content === undefined && body.tags === undefined) {
      status.textContent = "Nothing changed.";
      return;
    }
    if (expected.hash) body.expectedSourceHash = expected.hash;
    else if (expected.modifiedAt) body.expectedModifiedAt = expected.modifiedAt;
    status.textContent = "Saving…";
    try {
      await api(`/api/docs/${encodeURIComponent(doc.docid)}`, { method: "PUT", body, signal });
    } catch (error) {
      if (error?.name === "AbortError") throw error;
      if (error.code === "CONFLICT") return showConflict(error);
      status.replaceChildren(errorBox(error));
      return;
    }
    const fresh = await api(`/api/doc?${new URLSearchParams({ uri: doc.uri })}`, { signal }).catch(() => null);
    loaded = { hash: fresh?.source?.sourceHash, modifiedAt: fresh?.source?.modifiedAt };
    original.content = text.value;
    original.tags = tags.value;
    conflict.hidden = true;
    status.replaceChildren("Saved. ", h("a", { href: docHref(doc.uri) }, "View the document"));
  };

  const showConflict = async (error) => {
    // The 409 carries the file's current hash; its text is read from disk (doc-asset), since
    // the index may not have synced the outside edit yet.
    const current = error.details?.current ?? {};
    const asset = `/api/doc-asset?${new URLSearchParams({ uri: doc.uri })}`;
    const theirs = await fetch(asset, { signal }).then((r) => (r.ok ? r.text() : "")).catch(() => "");
    const state = { hash: current.sourceHash, modifiedAt: current.modifiedAt };
    conflict.hidden = false;
    conflict.replaceChildren(
      h("h2", {}, "The file changed on disk while you edited it"),
      h("p", { class: "muted" }, "Nothing was written. Compare, then keep yours or take the version on disk."),
      h(
        "div",
        { class: "side-by-side" },
        h("div", {}, h("h3", {}, "Yours"), h("pre", { class: "source", "data-testid": "conflict-mine" }, text.value)),
        h("div", {}, h("h3", {}, "On disk"), h("pre", { class: "source", "data-testid": "conflict-theirs" }, theirs)),
      ),
      h(
        "div",
        { class: "toolbar" },
        h("button", { type: "button", onclick: () => save(state) }, "Keep mine"),
        h(
          "button",
          {
            type: "button",
            onclick: () => {
              text.value = theirs;
              original.content = theirs;
              loaded = state;
              conflict.hidden = true;
              status.textContent = "Loaded the version on disk.";
            },
          },
          "Take theirs",
        ),
      ),
    );
    status.textContent = "Conflict: not saved.";
  };

  main.append(
    h(
      "form",
      { class: "edit-form", onsubmit: (event) => { event.preventDefault(); save(loaded); } },
      text,
      h("label", {}, "Tags ", tags),
      h("div", { class: "toolbar" }, h("button", { type: "submit" }, "Save"), h("a", { class: "button", href: docHref(doc.uri) }, "Cancel")),
    ),
    status,
    conflict,
  );
  if (hasFeature("refactor")) main.append(refactorForm(doc, signal));
}

/** Rename or move: preview first (which links change), apply only that plan. */
function refactorForm(doc, signal) {
  const name = h("input", { name: "name", value: (doc.relPath ?? "").split("/").pop(), "aria-label": "New name" });
  const folder = h("input", { name: "folderPath", value: (doc.relPath ?? "").split("/").slice(0, -1).join("/"), "aria-label": "Folder" });
  const out = h("div", { "data-testid": "refactor-preview" });
  const id = encodeURIComponent(doc.docid);
  const preview = async () => {
    const sameFolder = folder.value === (doc.relPath ?? "").split("/").slice(0, -1).join("/");
    const operation = sameFolder ? "rename" : "move";
    const body = operation === "rename" ? { operation, name: name.value, uri: doc.uri } : { operation, folderPath: folder.value, name: name.value, uri: doc.uri };
    let plan;
    try {
      plan = await api(`/api/docs/${id}/refactor-plan`, { method: "POST", body, signal });
    } catch (error) {
      if (error?.name === "AbortError") throw error;
      out.replaceChildren(errorBox(error));
      return;
    }
    const edits = plan.affectedDocuments ?? [];
    out.replaceChildren(
      h("p", {}, `${doc.relPath} → ${plan.target?.relPath ?? plan.nextRelPath}`),
      h("p", { class: "muted" }, edits.length ? `${edits.reduce((n, d) => n + d.edits.length, 0)} link(s) in ${edits.length} document(s) will be rewritten:` : "No other document links here."),
      h("ul", { class: "doc-list" }, edits.map((d) => h("li", {}, d.relPath, h("span", { class: "muted" }, ` · ${d.edits.map((e) => `${e.originalDestination} → ${e.replacementDestination}`).join(", ")}`)))),
      (plan.safety?.warnings ?? []).map((w) => h("p", { class: "banner warn" }, w)),
      plan.canApply
        ? h("button", { type: "button", onclick: () => apply(operation, plan) }, operation === "rename" ? "Rename" : "Move")
        : h("p", { class: "banner error" }, `Cannot apply: ${(plan.safety?.blockingReasonCodes ?? []).join(", ") || "blocked"}`),
    );
  };
  const apply = async (operation, plan) => {
    const body = { schemaVersion: "1.0", planDigest: plan.planDigest, confirmation: "apply", uri: doc.uri, name: name.value };
    if (operation === "move") body.folderPath = folder.value;
    try {
      const result = await api(`/api/docs/${id}/${operation}`, { method: "POST", body, signal });
      const target = result.apply?.target ?? result.target ?? plan.target;
      go(docHref(target.uri));
    } catch (error) {
      if (error?.name === "AbortError") throw error;
      out.append(errorBox(error));
    }
  };
  return h(
    "section",
    { class: "card refactor" },
    h("h2", {}, "Rename or move"),
    h("div", { class: "row" }, h("label", {}, "Folder ", folder), h("label", {}, "Name ", name), h("button", { type: "button", onclick: preview }, "Preview")),
    out,
  );
}

/** A new note: title, folder, tags, preset; the capture is searchable when it returns. */
async function captureForm(main, params, signal) {
  main.append(h("h1", {}, "New note"));
  if (!hasFeature("capture")) {
    main.append(h("p", { class: "muted" }, "This server does not take notes."));
    return;
  }
  const [collections, presets] = await Promise.all([
    api("/api/collections", { signal }).catch(() => []),
    hasFeature("presets") ? api("/api/note-presets", { signal }).catch(() => null) : null,
  ]);
  const wanted = params.get("collection") ?? collections[0]?.name ?? "";
  const collection = h("select", { name: "collection", "aria-label": "Collection" }, collections.map((c) => h("option", { value: c.name, selected: c.name === wanted }, c.name)));
  const list = presets?.presets ?? (Array.isArray(presets) ? presets : []);
  const preset = h("select", { name: "presetId", "aria-label": "Preset" }, h("option", { value: "" }, "Blank note"), list.map((p) => h("option", { value: p.id }, p.label ?? p.name ?? p.id)));
  const title = h("input", { name: "title", "aria-label": "Title", placeholder: "Title" });
  const folder = h("input", { name: "folderPath", "aria-label": "Folder", placeholder: "Folder (optional)" });
  const tags = h("input", { name: "tags", "aria-label": "Tags", placeholder: "Tags, comma-separated" });
  const text = h("textarea", { class: "editor", name: "content", "aria-label": "Content" });
  const status = h("p", { role: "status", class: "muted", "data-testid": "capture-status" });
  const submit = async (event) => {
    event.preventDefault();
    const body = { collection: collection.value, content: text.value };
    if (title.value.trim()) body.title = title.value.trim();
    if (folder.value.trim()) body.folderPath = folder.value.trim();
    if (tags.value.trim()) body.tags = splitTags(tags.value);
    if (preset.value) body.presetId = preset.value;
    status.textContent = "Saving…";
    try {
      const receipt = await api("/api/capture", { method: "POST", body, signal });
      go(docHref(receipt.uri));
    } catch (error) {
      if (error?.name === "AbortError") throw error;
      status.replaceChildren(errorBox(error));
    }
  };
  main.append(
    h(
      "form",
      { class: "edit-form", onsubmit: submit },
      h("div", { class: "row" }, collection, preset, folder),
      title,
      text,
      tags,
      h("div", { class: "toolbar" }, h("button", { type: "submit" }, "Save note")),
    ),
    status,
  );
}

function splitTags(value) {
  return value.split(",").map((t) => t.trim()).filter(Boolean);
}
