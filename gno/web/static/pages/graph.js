// Graph: the link graph of the index (GET /api/graph) or the neighbourhood of one document
// (POST /api/graph/query, `?uri=`), drawn on a canvas: drag to pan, wheel to zoom, click a node
// to open it. The report beside it (hubs, bridges, isolated, unresolved) is plain links, so the
// page works from the keyboard too.

import { api } from "../api.js";
import { docHref, errorBox, go, h } from "../dom.js";

const NODE_LIMIT = 600; // what a canvas layout stays smooth with; the report covers the rest
const LAYOUT_BUDGET_MS = 12; // per animation frame, so the page keeps answering while it settles
const LAYOUT_STEPS = 220;

export async function graphPage(main, params, signal) {
  const uri = params.get("uri");
  const collection = params.get("collection") ?? "";
  main.append(h("h1", {}, uri ? "Neighbourhood" : "Graph"));
  let graph;
  try {
    graph = uri ? await neighbourhood(uri, signal) : await wholeGraph(collection, signal);
  } catch (error) {
    if (error?.name === "AbortError") throw error;
    main.append(errorBox(error));
    return;
  }
  const view = new GraphView(graph.nodes, graph.edges, signal);
  main.append(
    uri
      ? h("p", { class: "muted" }, "Documents within two links of ", h("a", { href: docHref(uri) }, graph.rootTitle || uri), ". ", h("a", { href: "/graph" }, "Whole graph"))
      : await collectionPicker(collection, signal),
    h(
      "div",
      { class: "graph-layout" },
      h("div", { class: "graph-stage" }, view.canvas, h("p", { class: "muted small" }, `${graph.nodes.length} documents, ${graph.edges.length} links. Drag to pan, scroll to zoom, click a node to open it.`)),
      h("aside", { class: "doc-side", "data-testid": "graph-report" }, graph.report),
    ),
  );
  view.start();
}

async function wholeGraph(collection, signal) {
  const query = new URLSearchParams({ limit: String(NODE_LIMIT) });
  if (collection) query.set("collection", collection);
  const data = await api(`/api/graph?${query}`, { signal });
  const nodes = data.nodes.map((n) => ({ id: n.id, uri: n.uri, title: n.title || n.relPath, group: n.communityId ?? n.collection, degree: n.degree ?? 0 }));
  const edges = data.links.map((l) => ({ source: l.source, target: l.target, type: l.type }));
  return { nodes, edges, report: report(data) };
}

async function neighbourhood(uri, signal) {
  const data = await api("/api/graph/query", { method: "POST", body: { doc: uri, direction: "both", maxDepth: 2 }, signal });
  const degree = new Map();
  for (const e of data.edges) {
    degree.set(e.source, (degree.get(e.source) ?? 0) + 1);
    degree.set(e.target, (degree.get(e.target) ?? 0) + 1);
  }
  const nodes = data.nodes.map((n) => ({ id: n.id, uri: n.uri, title: n.title || n.relPath, group: `depth ${n.depth}`, degree: degree.get(n.id) ?? 0, root: n.depth === 0 }));
  const edges = data.edges.map((e) => ({ source: e.source, target: e.target, type: e.edgeType }));
  const list = h("ul", { class: "doc-list" }, data.nodes.filter((n) => n.depth > 0).map((n) => h("li", {}, h("a", { href: docHref(n.uri) }, n.title || n.relPath), h("span", { class: "muted" }, ` · ${n.depth} link${n.depth > 1 ? "s" : ""} away`))));
  return { nodes, edges, rootTitle: data.root?.title, report: [h("h2", {}, "Nearby"), list] };
}

async function collectionPicker(current, signal) {
  let names = [];
  try {
    names = (await api("/api/collections", { signal })).map((c) => c.name);
  } catch (error) {
    if (error?.name === "AbortError") throw error;
  }
  const select = h(
    "select",
    { "aria-label": "Collection", onchange: () => go(select.value ? `/graph?${new URLSearchParams({ collection: select.value })}` : "/graph") },
    h("option", { value: "" }, "All collections"),
    names.map((n) => h("option", { value: n, selected: n === current }, n)),
  );
  return h("div", { class: "filters" }, select);
}

function report(data) {
  const r = data.report ?? {};
  const nodeList = (items) => h("ul", { class: "doc-list" }, (items ?? []).map((n) => h("li", {}, h("a", { href: docHref(n.uri) }, n.title || n.relPath), h("span", { class: "muted" }, ` · ${n.degree}`))));
  const counts = Object.entries(r.edgeTypes ?? {}).filter(([, v]) => v > 0).map(([k, v]) => `${k} ${v}`).join(", ");
  const meta = data.meta ?? {};
  return [
    h("h2", {}, "Hubs"),
    nodeList(r.hubs?.slice(0, 10)),
    r.bridgeCandidates?.length ? [h("h2", {}, "Bridges"), nodeList(r.bridgeCandidates.slice(0, 8))] : null,
    h("h2", {}, "Health"),
    h(
      "dl",
      { class: "facts" },
      h("dt", {}, "Documents"), h("dd", {}, `${meta.returnedNodes ?? data.nodes.length} of ${meta.totalNodes ?? data.nodes.length}`),
      h("dt", {}, "Links"), h("dd", {}, counts || "none"),
      h("dt", {}, "Isolated"), h("dd", {}, String(r.isolated?.total ?? 0)),
      h("dt", {}, "Unresolved"), h("dd", {}, String(r.unresolvedLinks?.total ?? 0)),
      h("dt", {}, "Communities"), h("dd", {}, String(r.communities?.total ?? 0)),
    ),
    meta.truncated ? h("p", { class: "muted" }, `Showing the ${meta.returnedNodes} best-linked documents.`) : null,
  ];
}

/** A canvas with a force layout that settles a few steps per frame; deterministic start. */
class GraphView {
  constructor(nodes, edges, signal) {
    this.nodes = nodes.map((n, i) => ({ ...n, ...seed(n.id, i, nodes.length), vx: 0, vy: 0 }));
    const index = new Map(this.nodes.map((n, i) => [n.id, i]));
    this.edges = edges.map((e) => [index.get(e.source), index.get(e.target), e.type]).filter(([a, b]) => a !== undefined && b !== undefined && a !== b);
    this.signal = signal;
    this.scale = 1;
    this.offset = { x: 0, y: 0 };
    this.hover = null;
    this.step = 0;
    this.canvas = h("canvas", { class: "graph", "data-testid": "graph-canvas", "data-nodes": String(this.nodes.length), tabindex: "0", "aria-label": `Graph of ${this.nodes.length} documents` });
    this.labels = new Set([...this.nodes].sort((a, b) => b.degree - a.degree).slice(0, 12).map((n) => n.id));
    this.bindPointer();
  }

  start() {
    const resize = () => {
      const ratio = window.devicePixelRatio || 1;
      const width = this.canvas.clientWidth || 800;
      const height = this.canvas.clientHeight || 520;
      this.canvas.width = Math.round(width * ratio);
      this.canvas.height = Math.round(height * ratio);
      this.ratio = ratio;
      this.draw();
    };
    const observer = new ResizeObserver(resize);
    observer.observe(this.canvas);
    this.signal.addEventListener("abort", () => observer.disconnect());
    resize();
    const tick = () => {
      if (this.signal.aborted) return;
      const until = performance.now() + LAYOUT_BUDGET_MS;
      while (this.step < LAYOUT_STEPS && performance.now() < until) this.relax();
      this.draw();
      if (this.step < LAYOUT_STEPS) requestAnimationFrame(tick);
      else this.canvas.dataset.settled = "true";
    };
    requestAnimationFrame(tick);
  }

  relax() {
    const nodes = this.nodes;
    const cooling = 1 - this.step / LAYOUT_STEPS;
    const k = 40;
    for (let i = 0; i < nodes.length; i++) {
      const a = nodes[i];
      for (let j = i + 1; j < nodes.length; j++) {
        const b = nodes[j];
        const dx = a.x - b.x;
        const dy = a.y - b.y;
        const d2 = dx * dx + dy * dy + 0.01;
        if (d2 > 250_000) continue; // far apart: no meaningful push
        const force = (k * k) / d2;
        a.vx += dx * force; a.vy += dy * force;
        b.vx -= dx * force; b.vy -= dy * force;
      }
    }
    for (const [s, t] of this.edges) {
      const a = nodes[s];
      const b = nodes[t];
      const dx = b.x - a.x;
      const dy = b.y - a.y;
      const d = Math.sqrt(dx * dx + dy * dy) + 0.01;
      const pull = (d - k) / d * 0.05;
      a.vx += dx * pull; a.vy += dy * pull;
      b.vx -= dx * pull; b.vy -= dy * pull;
    }
    for (const n of nodes) {
      n.vx -= n.x * 0.01; n.vy -= n.y * 0.01; // gravity keeps islands on screen
      const speed = Math.sqrt(n.vx * n.vx + n.vy * n.vy);
      const limit = 30 * cooling + 0.5;
      if (speed > limit) { n.vx *= limit / speed; n.vy *= limit / speed; }
      n.x += n.vx; n.y += n.vy;
      n.vx *= 0.5; n.vy *= 0.5;
    }
    this.step += 1;
  }

  toScreen(n) {
    const w = this.canvas.width / this.ratio;
    const hgt = this.canvas.height / this.ratio;
    return { x: w / 2 + (n.x + this.offset.x) * this.scale, y: hgt / 2 + (n.y + this.offset.y) * this.scale };
  }

  draw() {
    const ctx = this.canvas.getContext("2d");
    if (!ctx || !this.ratio) return;
    const style = getComputedStyle(this.canvas);
    ctx.setTransform(this.ratio, 0, 0, this.ratio, 0, 0);
    ctx.clearRect(0, 0, this.canvas.width, this.canvas.height);
    ctx.lineWidth = 1;
    ctx.strokeStyle = style.getPropertyValue("--line") || "#ccc";
    ctx.beginPath();
    for (const [s, t] of this.edges) {
      const a = this.toScreen(this.nodes[s]);
      const b = this.toScreen(this.nodes[t]);
      ctx.moveTo(a.x, a.y);
      ctx.lineTo(b.x, b.y);
    }
    ctx.stroke();
    ctx.font = "12px system-ui, sans-serif";
    for (const n of this.nodes) {
      const p = this.toScreen(n);
      ctx.fillStyle = n.root ? style.getPropertyValue("--error") : colour(n.group);
      ctx.beginPath();
      ctx.arc(p.x, p.y, radius(n) * Math.sqrt(this.scale), 0, Math.PI * 2);
      ctx.fill();
    }
    ctx.fillStyle = style.getPropertyValue("--fg") || "#222";
    for (const n of this.nodes) {
      if (!this.labels.has(n.id) && n !== this.hover && !n.root) continue;
      const p = this.toScreen(n);
      ctx.fillText(n.title, p.x + radius(n) + 3, p.y + 4);
    }
  }

  nodeAt(x, y) {
    let best = null;
    let bestD = 14 * 14;
    for (const n of this.nodes) {
      const p = this.toScreen(n);
      const d = (p.x - x) ** 2 + (p.y - y) ** 2;
      if (d < bestD) { best = n; bestD = d; }
    }
    return best;
  }

  bindPointer() {
    let drag = null;
    const local = (event) => {
      const rect = this.canvas.getBoundingClientRect();
      return { x: event.clientX - rect.left, y: event.clientY - rect.top };
    };
    this.canvas.addEventListener("pointerdown", (event) => {
      drag = { ...local(event), moved: 0 };
      this.canvas.setPointerCapture(event.pointerId);
    });
    this.canvas.addEventListener("pointermove", (event) => {
      const p = local(event);
      if (drag) {
        this.offset.x += (p.x - drag.x) / this.scale;
        this.offset.y += (p.y - drag.y) / this.scale;
        drag.moved += Math.abs(p.x - drag.x) + Math.abs(p.y - drag.y);
        drag.x = p.x; drag.y = p.y;
        this.draw();
        return;
      }
      const hover = this.nodeAt(p.x, p.y);
      if (hover !== this.hover) {
        this.hover = hover;
        this.canvas.style.cursor = hover ? "pointer" : "grab";
        this.canvas.title = hover ? hover.title : "";
        this.draw();
      }
    });
    this.canvas.addEventListener("pointerup", (event) => {
      const wasClick = drag && drag.moved < 4;
      drag = null;
      if (!wasClick) return;
      const p = local(event);
      const node = this.nodeAt(p.x, p.y);
      if (node) go(docHref(node.uri));
    });
    this.canvas.addEventListener("wheel", (event) => {
      event.preventDefault();
      const factor = Math.exp(-event.deltaY * 0.001);
      this.scale = Math.min(8, Math.max(0.1, this.scale * factor));
      this.draw();
    }, { passive: false });
  }
}

function seed(id, i, count) {
  // A golden-angle spiral ordered by a hash of the id: the same graph always starts alike.
  let hash = 2166136261;
  for (const c of id) hash = Math.imul(hash ^ c.charCodeAt(0), 16777619);
  const angle = ((hash >>> 0) % 3600) / 3600 * Math.PI * 2 + i * 2.39996;
  const r = 12 * Math.sqrt(i + 1) * Math.min(1, 200 / Math.max(count, 1)) + 8;
  return { x: Math.cos(angle) * r, y: Math.sin(angle) * r };
}

function radius(n) {
  return 3 + Math.min(9, Math.sqrt(n.degree ?? 0) * 1.5);
}

function colour(group) {
  let hash = 0;
  for (const c of String(group ?? "")) hash = (hash * 31 + c.charCodeAt(0)) >>> 0;
  return `hsl(${hash % 360} 55% 50%)`;
}
