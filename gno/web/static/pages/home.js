// Home: the health center. Everything comes from GET /api/status (onboarding, health,
// background, bootstrap blocks) plus the running jobs and the model download state.

import { api } from "../api.js";
import { append, errorBox, formatBytes, formatDate, h } from "../dom.js";

const ACTIONS = {
  "open-collections": "/collections",
  "open-search": "/search",
};

export async function homePage(main, _params, signal) {
  main.append(h("h1", {}, "Home"));
  const body = h("div", { class: "home" });
  main.append(body);
  await refresh(body, signal);
  // Background state changes by itself: refresh while the page is open, stop when it is left.
  const timer = setInterval(() => refresh(body, signal).catch(() => {}), 5000);
  signal.addEventListener("abort", () => clearInterval(timer));
}

async function refresh(body, signal) {
  let status;
  let jobs = [];
  try {
    [status, jobs] = await Promise.all([
      api("/api/status", { signal }),
      api("/api/jobs/active", { signal }).then((r) => (r?.activeJob ? [r.activeJob] : [])).catch(() => []),
    ]);
  } catch (error) {
    if (error?.name === "AbortError") return;
    body.replaceChildren(errorBox(error));
    return;
  }
  body.replaceChildren();
  append(body, [
    onboarding(status.onboarding),
    summary(status),
    health(status.health),
    background(status.background, jobs),
    models(status.bootstrap, signal, body),
  ]);
}

function card(title, ...children) {
  return h("section", { class: "card" }, h("h2", {}, title), children);
}

function onboarding(block) {
  if (!block) return null;
  const steps = (block.steps ?? []).map((step) =>
    h("li", { class: `step ${step.status}` }, h("strong", {}, step.title), step.detail ? ` — ${step.detail}` : ""),
  );
  return h(
    "section",
    { class: `card onboarding ${block.ready ? "ready" : ""}`, "data-testid": "onboarding" },
    h("h2", {}, block.headline ?? "Getting started"),
    block.detail ? h("p", {}, block.detail) : null,
    steps.length ? h("ol", { class: "steps" }, steps) : null,
    (block.steps ?? []).some((s) => s.id === "add" && s.status !== "complete")
      ? h("p", {}, h("a", { href: "/collections", class: "button" }, "Add a folder"))
      : null,
  );
}

function summary(status) {
  const caps = status.capabilities ?? {};
  const flags = ["bm25", "vector", "hybrid", "answer"].map((name) =>
    h("span", { class: `pill ${caps[name] ? "ok" : "off"}` }, `${name} ${caps[name] ? "on" : "off"}`),
  );
  return card(
    "Index",
    h(
      "dl",
      { class: "facts" },
      h("dt", {}, "Documents"),
      h("dd", { "data-testid": "total-documents" }, String(status.totalDocuments ?? 0)),
      h("dt", {}, "Chunks"),
      h("dd", {}, String(status.totalChunks ?? 0)),
      h("dt", {}, "Embedding backlog"),
      h("dd", {}, String(status.embeddingBacklog ?? 0)),
      h("dt", {}, "Last updated"),
      h("dd", {}, formatDate(status.lastUpdated) || "never"),
      h("dt", {}, "Preset"),
      h("dd", {}, status.activePreset?.name ?? status.activePreset?.id ?? "—"),
    ),
    h("p", { class: "pills" }, flags),
  );
}

function health(block) {
  if (!block) return null;
  const checks = (block.checks ?? []).map((check) => {
    const href = ACTIONS[check.actionKind];
    return h(
      "li",
      { class: `check ${check.status}` },
      h("span", { class: `badge ${check.status}` }, check.status),
      h("strong", {}, check.title),
      ` ${check.summary ?? ""}`,
      check.detail ? h("div", { class: "muted" }, check.detail) : null,
      href && check.actionLabel ? h("a", { href, class: "action" }, check.actionLabel) : null,
    );
  });
  return card(`Health: ${block.summary ?? block.state}`, h("ul", { class: "checks" }, checks));
}

function background(block, jobs) {
  if (!block) return null;
  const watcher = block.watcher ?? {};
  const embedding = block.embedding ?? {};
  const rows = [
    ["Watching", (watcher.activeCollections ?? []).join(", ") || "nothing"],
    ["Syncing", (watcher.syncingCollections ?? []).join(", ") || "—"],
    ["Embedding", embedding.running ? "running" : embedding.available ? "idle" : "no embedding model on disk"],
    ["Waiting to embed", String(embedding.pendingDocCount ?? 0)],
  ];
  for (const failed of watcher.failedCollections ?? []) rows.push([`Not watched: ${failed.collection}`, failed.reason]);
  const jobList = jobs.length
    ? h("ul", { class: "jobs" }, jobs.map((job) => h("li", {}, `${job.type} ${job.status}`, job.scope?.collection ? ` (${job.scope.collection})` : "")))
    : h("p", { class: "muted" }, "No job running.");
  return card(
    "Background",
    h("dl", { class: "facts" }, rows.flatMap(([k, v]) => [h("dt", {}, k), h("dd", {}, v)])),
    h("h3", {}, "Jobs"),
    jobList,
  );
}

function models(block, signal, body) {
  const entries = block?.models?.entries ?? [];
  if (!block?.models) return null;
  const list = entries.map((entry) =>
    h(
      "li",
      {},
      h("span", { class: `badge ${entry.cached ? "ok" : "warn"}` }, entry.statusLabel ?? (entry.cached ? "Cached" : "Missing")),
      h("strong", {}, entry.role),
      ` ${entry.uri}`,
      entry.sizeBytes ? h("span", { class: "muted" }, ` ${formatBytes(entry.sizeBytes)}`) : null,
    ),
  );
  const progress = h("p", { class: "muted", "data-testid": "pull-progress" });
  const offline = block.policy && block.policy.allowDownload === false;
  const pull = h(
    "button",
    {
      type: "button",
      disabled: offline || block.models.downloading || entries.every((e) => e.cached),
      title: offline ? block.policy.summary : null,
      onclick: async () => {
        pull.disabled = true;
        try {
          await api("/api/models/pull", { method: "POST", body: {} });
          await followPull(progress, signal);
        } catch (error) {
          progress.replaceChildren(errorBox(error));
        }
        pull.disabled = false;
        refresh(body, signal).catch(() => {});
      },
    },
    "Download models",
  );
  return card(
    `Models: ${block.models.summary ?? ""}`,
    h("p", { class: "muted" }, block.policy?.summary ?? ""),
    h("ul", { class: "models" }, list),
    h("p", {}, pull),
    progress,
  );
}

async function followPull(progress, signal) {
  for (;;) {
    const state = await api("/api/models/status", { signal });
    const pct = state.progress?.percent;
    progress.textContent = state.active
      ? `Downloading ${state.currentType ?? ""}${pct !== undefined ? ` ${pct.toFixed(1)} %` : ""}`
      : `Done: ${(state.completed ?? []).join(", ") || "nothing"}${state.failed?.length ? `; failed: ${state.failed.map((f) => f.role ?? f).join(", ")}` : ""}`;
    if (!state.active) return;
    await new Promise((resolve) => setTimeout(resolve, 700));
  }
}
