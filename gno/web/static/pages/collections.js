// Collections: list with counts (GET /api/collections + /api/status), add a folder
// (POST /api/collections → job), remove (DELETE), sync and embed (jobs), each job followed live.

import { api, followJob } from "../api.js";
import { errorBox, h } from "../dom.js";

export async function collectionsPage(main, _params, signal) {
  const list = h("div", { class: "collections", "data-testid": "collections" });
  const jobs = h("div", { class: "job-log", role: "status", "aria-live": "polite", "data-testid": "job-log" });
  const reload = () => load(list, jobs, signal);
  const toolbar = h(
    "p",
    { class: "toolbar" },
    h("button", { type: "button", onclick: () => startJob(jobs, "Sync all", () => api("/api/sync", { method: "POST", body: {} }), reload) }, "Sync all"),
    h("button", { type: "button", onclick: () => startJob(jobs, "Embed", () => api("/api/embed", { method: "POST", body: {} }), reload) }, "Embed what waits"),
  );
  main.append(h("h1", {}, "Collections"), addForm(list, jobs, signal), toolbar, jobs, list);
  await load(list, jobs, signal);
}

async function load(list, jobs, signal) {
  let collections;
  let status;
  try {
    [collections, status] = await Promise.all([api("/api/collections", { signal }), api("/api/status", { signal })]);
  } catch (error) {
    if (error?.name === "AbortError") return;
    list.replaceChildren(errorBox(error));
    return;
  }
  const counts = new Map((status.collections ?? []).map((c) => [c.name, c]));
  if (!collections?.length) {
    list.replaceChildren(h("p", { class: "muted" }, "No collection yet: add a folder above."));
    return;
  }
  list.replaceChildren(
    h(
      "table",
      {},
      h("thead", {}, h("tr", {}, ["Name", "Folder", "Documents", "Embedded", "", ""].map((c) => h("th", {}, c)))),
      h(
        "tbody",
        {},
        collections.map((c) => {
          const stat = counts.get(c.name) ?? {};
          return h(
            "tr",
            { "data-collection": c.name },
            h("td", {}, h("a", { href: `/browse?${new URLSearchParams({ collection: c.name })}` }, c.name)),
            h("td", { class: "path" }, c.path ?? "", stat.rootError ? h("div", { class: "error" }, stat.rootError.message) : null),
            h("td", {}, String(stat.documentCount ?? 0)),
            h("td", {}, `${stat.embeddedCount ?? 0} / ${stat.chunkCount ?? 0}`),
            h(
              "td",
              { class: "actions" },
              h("button", { type: "button", onclick: () => startJob(jobs, `Sync ${c.name}`, () => api("/api/sync", { method: "POST", body: { collection: c.name } }), () => load(list, jobs, signal)) }, "Sync"),
            ),
            h(
              "td",
              {},
              h(
                "button",
                {
                  type: "button",
                  class: "danger",
                  onclick: async () => {
                    if (!confirm(`Remove collection "${c.name}"? Its files stay on disk.`)) return;
                    try {
                      await api(`/api/collections/${encodeURIComponent(c.name)}`, { method: "DELETE" });
                      log(jobs, `Removed ${c.name}.`);
                    } catch (error) {
                      jobs.prepend(errorBox(error));
                    }
                    load(list, jobs, signal);
                  },
                },
                "Remove",
              ),
            ),
          );
        }),
      ),
    ),
  );
}

function addForm(list, jobs, signal) {
  const path = h("input", { type: "text", name: "path", required: true, placeholder: "Folder path, e.g. ~/notes", "aria-label": "Folder path" });
  const name = h("input", { type: "text", name: "name", placeholder: "Name (optional)", "aria-label": "Name" });
  const pattern = h("input", { type: "text", name: "pattern", placeholder: "Pattern, e.g. **/*.md", "aria-label": "Pattern" });
  const exclude = h("input", { type: "text", name: "exclude", placeholder: "Exclude (comma separated)", "aria-label": "Exclude" });
  return h(
    "form",
    {
      class: "add-collection",
      onsubmit: (event) => {
        event.preventDefault();
        const body = { path: path.value.trim() };
        if (name.value.trim()) body.name = name.value.trim();
        if (pattern.value.trim()) body.pattern = pattern.value.trim();
        if (exclude.value.trim()) body.exclude = exclude.value.trim();
        startJob(jobs, `Add ${body.name ?? body.path}`, () => api("/api/collections", { method: "POST", body }), () => load(list, jobs, signal));
        load(list, jobs, signal);
      },
    },
    h("h2", {}, "Add a folder"),
    h("div", { class: "row" }, path, name, pattern, exclude, h("button", { type: "submit" }, "Add")),
  );
}

function log(jobs, text) {
  const entry = h("p", {}, text);
  jobs.prepend(entry);
  return entry;
}

/** Start a job route and follow /api/jobs/:id until it ends, showing each state. */
async function startJob(jobs, label, start, done) {
  const entry = log(jobs, `${label}: starting…`);
  try {
    const receipt = await start();
    if (!receipt?.jobId) {
      entry.textContent = `${label}: ${JSON.stringify(receipt)}`;
      done();
      return;
    }
    const job = await followJob(receipt.jobId, (state) => {
      entry.textContent = `${label}: ${state.status}`;
    });
    entry.className = job.status === "failed" ? "error" : "ok";
    entry.textContent = `${label}: ${job.status}${job.error ? ` — ${job.error}` : ""}${summary(job.result)}`;
  } catch (error) {
    entry.replaceWith(errorBox(error));
  }
  done();
}

function summary(result) {
  if (!result) return "";
  if (typeof result.totalFilesProcessed === "number") {
    return ` (${result.totalFilesAdded ?? 0} added, ${result.totalFilesUpdated ?? 0} updated, ${result.totalFilesErrored ?? 0} errors)`;
  }
  if (typeof result.embedded === "number") return ` (${result.embedded} embedded, ${result.errors ?? 0} errors)`;
  return "";
}
