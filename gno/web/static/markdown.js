// Markdown → DOM for the document page. Safe by construction: nodes and text nodes only, never
// innerHTML, so raw HTML in a document (<script>, onerror=, <svg>) is shown as text and runs
// nothing; link and image targets go through safeUrl (no javascript:, no data:). Every scan is
// linear or bounded (LOOKAHEAD), so a hostile document cannot stall the page.

import { h, safeUrl } from "./dom.js";
import { highlightCode } from "./highlight.js";

const LOOKAHEAD = 2000; // how far an inline construct may look for its closing delimiter
const MAX_DEPTH = 8; // nested blockquotes/lists/emphasis beyond this render as text
const MAX_MISSES = 64; // failed lookaheads per paragraph before the rest is read as plain text

/**
 * render(text, ctx) → {fragment, headings}
 * ctx.link(target) → href for a relative link or null; ctx.image(target) → src or null;
 * ctx.wiki(target) → href for [[target]].
 */
export function renderMarkdown(text, ctx) {
  const state = { ctx, headings: [], ids: new Map() };
  const lines = text.replace(/\r\n?/g, "\n").split("\n");
  const fragment = document.createDocumentFragment();
  const start = frontmatterEnd(lines);
  if (start > 0) {
    const yaml = lines.slice(1, start - 1).join("\n");
    fragment.append(h("details", { class: "frontmatter" }, h("summary", {}, "Frontmatter"), h("pre", {}, yaml)));
  }
  fragment.append(...blocks(lines.slice(start), state, 0, start));
  return { fragment, headings: state.headings };
}

function frontmatterEnd(lines) {
  if (lines[0] !== "---") return 0;
  for (let i = 1; i < Math.min(lines.length, 500); i += 1) {
    if (lines[i] === "---" || lines[i] === "...") return i + 1;
  }
  return 0;
}

function indentOf(line) {
  let i = 0;
  while (i < line.length && line[i] === " ") i += 1;
  return i;
}

function fenceOpen(line) {
  const indent = indentOf(line);
  if (indent > 3) return null;
  const char = line[indent];
  if (char !== "`" && char !== "~") return null;
  let j = indent;
  while (line[j] === char) j += 1;
  const length = j - indent;
  const info = line.slice(j).trim();
  if (length < 3 || (char === "`" && info.includes("`"))) return null;
  return { char, length, lang: info.split(/\s+/)[0] ?? "" };
}

function fenceCloses(line, fence) {
  const indent = indentOf(line);
  if (indent > 3) return false;
  let j = indent;
  while (line[j] === fence.char) j += 1;
  return j - indent >= fence.length && line.slice(j).trim() === "";
}

function atxHeading(line) {
  const indent = indentOf(line);
  if (indent > 3 || line[indent] !== "#") return null;
  let j = indent;
  while (line[j] === "#") j += 1;
  const level = j - indent;
  if (level > 6 || (j < line.length && line[j] !== " " && line[j] !== "\t")) return null;
  let body = line.slice(j).trim();
  let k = body.length;
  while (k > 0 && body[k - 1] === "#") k -= 1;
  if (k === 0 || body[k - 1] === " ") body = body.slice(0, k).trim();
  return { level, body };
}

function isRule(line) {
  const compact = line.replace(/[ \t]/g, "");
  if (indentOf(line) > 3 || compact.length < 3) return false;
  const c = compact[0];
  return (c === "-" || c === "*" || c === "_") && [...compact].every((x) => x === c);
}

function listMarker(line) {
  const indent = indentOf(line);
  if (indent > 3 + 8) return null;
  const rest = line.slice(indent);
  const bullet = /^([-*+])([ \t]+|$)/.exec(rest);
  if (bullet) return { ordered: false, indent, width: indent + bullet[0].length, start: 1 };
  const ordered = /^(\d{1,9})([.)])([ \t]+|$)/.exec(rest);
  if (ordered) return { ordered: true, indent, width: indent + ordered[0].length, start: Number(ordered[1]) };
  return null;
}

function tableCells(line) {
  let text = line.trim();
  if (text.startsWith("|")) text = text.slice(1);
  if (text.endsWith("|") && !text.endsWith("\\|")) text = text.slice(0, -1);
  return text.split("|").map((cell) => cell.trim());
}

function isTableSeparator(line) {
  if (!line.includes("-")) return false;
  const cells = tableCells(line);
  return cells.length > 0 && cells.every((cell) => /^:?-+:?$/.test(cell));
}

function startsBlock(line) {
  return (
    fenceOpen(line) !== null || atxHeading(line) !== null || isRule(line) ||
    /^ {0,3}>/.test(line) || listMarker(line) !== null
  );
}

function blocks(lines, state, depth, firstLine) {
  const out = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    const lineNo = firstLine + i + 1;
    if (line.trim() === "") {
      i += 1;
      continue;
    }
    const fence = fenceOpen(line);
    if (fence) {
      let j = i + 1;
      while (j < lines.length && !fenceCloses(lines[j], fence)) j += 1;
      const code = lines.slice(i + 1, j).join("\n");
      const lang = fence.lang.replace(/[^A-Za-z0-9_+-]/g, "");
      out.push(h("pre", { class: "code", "data-lang": lang || null }, h("code", {}, highlightCode(code, lang))));
      i = j + 1;
      continue;
    }
    const heading = atxHeading(line);
    if (heading) {
      out.push(headingNode(heading.level, heading.body, lineNo, state, depth));
      i += 1;
      continue;
    }
    if (isRule(line)) {
      out.push(h("hr"));
      i += 1;
      continue;
    }
    if (/^ {0,3}>/.test(line)) {
      let j = i;
      const inner = [];
      while (j < lines.length && lines[j].trim() !== "" && /^ {0,3}>/.test(lines[j])) {
        inner.push(lines[j].replace(/^ {0,3}> ?/, ""));
        j += 1;
      }
      const children = depth < MAX_DEPTH ? blocks(inner, state, depth + 1, firstLine + i) : [inner.join("\n")];
      out.push(h("blockquote", {}, children));
      i = j;
      continue;
    }
    const marker = listMarker(line);
    if (marker) {
      const [node, next] = list(lines, i, marker, state, depth, firstLine);
      out.push(node);
      i = next;
      continue;
    }
    if (line.includes("|") && i + 1 < lines.length && isTableSeparator(lines[i + 1])) {
      let j = i + 2;
      while (j < lines.length && lines[j].includes("|") && lines[j].trim() !== "") j += 1;
      out.push(table(lines[i], lines.slice(i + 2, j), state, depth));
      i = j;
      continue;
    }
    let j = i + 1;
    while (j < lines.length && lines[j].trim() !== "" && !startsBlock(lines[j])) {
      if (/^ {0,3}(=+|-+)[ \t]*$/.test(lines[j])) break;
      j += 1;
    }
    const text = lines.slice(i, j).map((l) => l.trim()).join("\n");
    if (j < lines.length && /^ {0,3}(=+|-+)[ \t]*$/.test(lines[j]) && lines[j].trim() !== "") {
      out.push(headingNode(lines[j].trim()[0] === "=" ? 1 : 2, text, lineNo, state, depth));
      i = j + 1;
      continue;
    }
    out.push(h("p", { "data-line": lineNo }, inline(text, state, depth)));
    i = j;
  }
  return out;
}

function headingNode(level, body, lineNo, state, depth) {
  const plain = body.replace(/[`*_~[\]]/g, "");
  let id = plain.toLowerCase().replace(/[^\p{L}\p{N}\s-]/gu, "").trim().replace(/\s+/g, "-") || "section";
  const seen = state.ids.get(id) ?? 0;
  state.ids.set(id, seen + 1);
  if (seen > 0) id = `${id}-${seen}`;
  state.headings.push({ level, text: plain, id, line: lineNo });
  return h(`h${level}`, { id, "data-line": lineNo }, inline(body, state, depth));
}

function list(lines, start, first, state, depth, firstLine) {
  const items = [];
  let i = start;
  while (i < lines.length) {
    const marker = listMarker(lines[i]);
    if (!marker || marker.ordered !== first.ordered || marker.indent > first.indent + 1) break;
    const body = [lines[i].slice(marker.width)];
    let j = i + 1;
    while (j < lines.length) {
      const next = lines[j];
      if (next.trim() === "") {
        if (j + 1 < lines.length && indentOf(lines[j + 1]) >= marker.width) {
          body.push("");
          j += 1;
          continue;
        }
        break;
      }
      const nested = listMarker(next);
      if (nested && nested.indent <= first.indent + 1) break;
      if (indentOf(next) < marker.width && startsBlock(next) && !nested) break;
      body.push(next.slice(Math.min(indentOf(next), marker.width)));
      j += 1;
    }
    let task = null;
    const check = /^\[([ xX])\][ \t]/.exec(body[0]);
    if (check) {
      task = check[1] !== " ";
      body[0] = body[0].slice(check[0].length);
    }
    const content =
      depth < MAX_DEPTH ? blocks(body, state, depth + 1, firstLine + i) : [body.join("\n")];
    // A tight item's single paragraph shows inline, as Markdown renderers do.
    const children = content.length === 1 && content[0].tagName === "P" ? [...content[0].childNodes] : content;
    const box = task === null ? null : h("input", { type: "checkbox", disabled: true, checked: task });
    items.push(h("li", { "data-line": firstLine + i + 1 }, box, children));
    i = j;
    while (i < lines.length && lines[i].trim() === "" && i + 1 < lines.length && listMarker(lines[i + 1])) i += 1;
  }
  const attrs = first.ordered && first.start !== 1 ? { start: first.start } : {};
  return [h(first.ordered ? "ol" : "ul", attrs, items), i];
}

function table(headerLine, rows, state, depth) {
  const head = h("tr", {}, tableCells(headerLine).map((cell) => h("th", {}, inline(cell, state, depth))));
  const body = rows.map((row) => h("tr", {}, tableCells(row).map((cell) => h("td", {}, inline(cell, state, depth)))));
  return h("div", { class: "table-wrap" }, h("table", {}, h("thead", {}, head), h("tbody", {}, body)));
}

// --- inline ------------------------------------------------------------------------------------

function inline(text, state, depth) {
  const out = [];
  let plain = "";
  const flush = () => {
    if (plain) out.push(plain);
    plain = "";
  };
  const emit = (node) => {
    flush();
    out.push(node);
  };
  let misses = 0; // each failed lookahead costs up to LOOKAHEAD steps: cap how many
  const tries = () => misses < MAX_MISSES;
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (c === "\\" && i + 1 < text.length && /[!-/:-@[-`{-~]/.test(text[i + 1])) {
      plain += text[i + 1];
      i += 2;
      continue;
    }
    if (c === "\n") {
      plain += " ";
      i += 1;
      continue;
    }
    if (c === "`" && tries()) {
      let run = i;
      while (text[run] === "`") run += 1;
      const ticks = text.slice(i, run);
      const close = findRun(text, run, ticks);
      if (close === -1) {
        misses += 1;
        plain += ticks;
        i = run;
        continue;
      }
      let code = text.slice(run, close).replace(/\n/g, " ");
      if (code.length > 2 && code.startsWith(" ") && code.endsWith(" ") && code.trim()) code = code.slice(1, -1);
      emit(h("code", {}, code));
      i = close + ticks.length;
      continue;
    }
    if (c === "[" && text[i + 1] === "[" && tries()) {
      const close = text.indexOf("]]", i + 2);
      if (close !== -1 && close - i < LOOKAHEAD && !text.slice(i + 2, close).includes("\n")) {
        const inner = text.slice(i + 2, close);
        const bar = inner.indexOf("|");
        const target = (bar === -1 ? inner : inner.slice(0, bar)).trim();
        const label = bar === -1 ? target : inner.slice(bar + 1).trim();
        const href = state.ctx.wiki?.(target);
        emit(href ? h("a", { href, class: "wiki" }, label) : h("span", { class: "wiki unresolved" }, label));
        i = close + 2;
        continue;
      }
      misses += 1;
    }
    if ((c === "[" || (c === "!" && text[i + 1] === "[")) && tries()) {
      const image = c === "!";
      const link = linkAt(text, image ? i + 1 : i);
      if (link) {
        if (image) emit(imageNode(link.target, link.label, state));
        else emit(linkNode(link.target, depth < MAX_DEPTH ? inline(link.label, state, depth + 1) : link.label, state));
        i = link.end;
        continue;
      }
      misses += 1;
    }
    if (c === "<" && tries()) {
      const close = text.indexOf(">", i + 1);
      const inner = close === -1 ? "" : text.slice(i + 1, close);
      if (close !== -1 && /^(https?:\/\/|mailto:)[^\s<>]+$/i.test(inner)) {
        emit(linkNode(inner, inner, state));
        i = close + 1;
        continue;
      }
      misses += 1;
    }
    if ((c === "h" || c === "H") && /^https?:\/\//i.test(text.slice(i, i + 8)) && (i === 0 || /[\s(]/.test(text[i - 1]))) {
      let j = i;
      while (j < text.length && !/[\s<>"]/.test(text[j])) j += 1;
      while (j > i && /[.,;:!?)]/.test(text[j - 1])) j -= 1;
      const url = text.slice(i, j);
      emit(linkNode(url, url, state));
      i = j;
      continue;
    }
    const delim = c === "~" && text[i + 1] === "~" ? "~~" : (c === "*" || c === "_") ? (text[i + 1] === c ? c + c : c) : null;
    if (delim && depth < MAX_DEPTH && tries() && text[i + delim.length] && text[i + delim.length] !== " ") {
      const close = findDelimiter(text, i + delim.length, delim);
      if (close !== -1) {
        const tag = delim === "~~" ? "del" : delim.length === 2 ? "strong" : "em";
        emit(h(tag, {}, inline(text.slice(i + delim.length, close), state, depth + 1)));
        i = close + delim.length;
        continue;
      }
      misses += 1;
    }
    plain += c;
    i += 1;
  }
  flush();
  return out;
}

function findRun(text, from, ticks) {
  let at = text.indexOf(ticks, from);
  const limit = from + LOOKAHEAD * 10;
  while (at !== -1 && at < limit) {
    const before = text[at - 1];
    const after = text[at + ticks.length];
    if (before !== "`" && after !== "`") return at;
    let end = at;
    while (text[end] === "`") end += 1;
    at = text.indexOf(ticks, end);
  }
  return -1;
}

function findDelimiter(text, from, delim) {
  const limit = Math.min(text.length, from + LOOKAHEAD);
  let at = text.indexOf(delim, from);
  while (at !== -1 && at < limit) {
    const single = delim.length === 1;
    const doubled = single && (text[at + 1] === delim || text[at - 1] === delim);
    if (text[at - 1] !== " " && !doubled && at > from) return at;
    at = text.indexOf(delim, at + delim.length);
  }
  return -1;
}

/** [label](target "title") starting at `open` (the "["), or null. Bounded by LOOKAHEAD. */
function linkAt(text, open) {
  let depth = 0;
  let close = -1;
  const limit = Math.min(text.length, open + LOOKAHEAD);
  for (let j = open; j < limit; j += 1) {
    const c = text[j];
    if (c === "\\") j += 1;
    else if (c === "[") depth += 1;
    else if (c === "]") {
      depth -= 1;
      if (depth === 0) {
        close = j;
        break;
      }
    }
  }
  if (close === -1 || text[close + 1] !== "(") return null;
  let parens = 0;
  let end = -1;
  for (let j = close + 1; j < limit; j += 1) {
    const c = text[j];
    if (c === "\\") j += 1;
    else if (c === "(") parens += 1;
    else if (c === ")") {
      parens -= 1;
      if (parens === 0) {
        end = j;
        break;
      }
    }
  }
  if (end === -1) return null;
  let target = text.slice(close + 2, end).trim();
  if (target.startsWith("<") && target.includes(">")) target = target.slice(1, target.indexOf(">"));
  else target = target.split(/\s+/)[0] ?? "";
  return { label: text.slice(open + 1, close), target, end: end + 1 };
}

function linkNode(target, label, state) {
  let href = null;
  if (/^[a-z][a-z0-9+.-]*:/i.test(target)) href = safeUrl(target);
  else if (target.startsWith("#")) href = target;
  else href = state.ctx.link?.(target) ?? null;
  if (href === null) return h("span", { class: "link-dropped", title: "Link not opened here" }, label);
  const external = /^(https?:|mailto:)/i.test(href);
  return h("a", { href, rel: external ? "noopener noreferrer" : null, target: external ? "_blank" : null }, label);
}

function imageNode(target, alt, state) {
  const src = /^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith("//") ? null : state.ctx.image?.(target);
  // Remote images are not fetched (the page's CSP allows this origin only): a link instead.
  if (!src) return linkNode(target, `[image: ${alt || target}]`, state);
  return h("img", { src, alt, loading: "lazy" });
}
