// Ask: a question answered from the index (POST /api/ask) with numbered citations that open the
// cited lines, the sources it used, and with "Verify" the state of every claim (an answer is
// shown only when every claim is backed by fresh evidence; otherwise the abstention says why).

import { api } from "../api.js";
import { docHref, errorBox, go, h } from "../dom.js";

export async function askPage(main, params, signal) {
  const query = params.get("q") ?? "";
  const verify = params.get("verify") === "1";
  const input = h("input", { type: "search", name: "q", value: query, placeholder: "Ask a question about your notes", "aria-label": "Question", autofocus: true });
  const check = h("input", { type: "checkbox", name: "verify", checked: verify });
  const form = h(
    "form",
    {
      class: "search-row",
      onsubmit: (event) => {
        event.preventDefault();
        const next = new URLSearchParams({ q: input.value.trim() });
        if (check.checked) next.set("verify", "1");
        if (input.value.trim()) go(`/ask?${next}`);
      },
    },
    input,
    h("label", { class: "muted" }, check, " Verify claims"),
    h("button", { type: "submit" }, "Ask"),
  );
  main.append(h("h1", {}, "Ask"), form);
  if (!query.trim()) return;
  const out = h("section", { "data-testid": "ask-result" }, h("p", { class: "muted" }, "Thinking…"));
  main.append(out);
  let answer;
  try {
    answer = await api("/api/ask", { method: "POST", body: verify ? { query, verify: true } : { query }, signal });
  } catch (error) {
    if (error?.name === "AbortError") throw error;
    out.replaceChildren(errorBox(error));
    if (error.code === "UNAVAILABLE") out.append(h("p", { class: "muted" }, "Answers need a generation model. ", h("a", { href: `/search?${new URLSearchParams({ q: query })}` }, "Search instead")));
    return;
  }
  out.replaceChildren(...render(answer));
}

function render(answer) {
  const citations = answer.citations ?? [];
  const verification = answer.verification?.claims;
  const parts = [];
  if (answer.answer) {
    parts.push(h("div", { class: "card answer", "data-testid": "answer" }, withCitations(answer.answer, citations)));
  } else if (verification?.abstained || answer.meta?.abstained) {
    parts.push(h("p", { class: "banner warn", "data-testid": "abstained" }, verification?.abstentionText || "Not enough supported evidence to answer."));
  } else {
    parts.push(h("p", { class: "muted" }, "No answer was generated; the sources below matched."));
  }
  if (verification?.claims?.length) {
    parts.push(
      h("h2", {}, `Claims: ${verification.coverage?.supportedClaims ?? 0}/${verification.coverage?.totalClaims ?? verification.claims.length} supported`),
      h("ul", { class: "claims", "data-testid": "claims" }, verification.claims.map((c) => h("li", { class: `claim ${c.status}` }, h("span", { class: `badge ${c.status === "supported" ? "ok" : "warn"}` }, c.status), " ", c.text))),
    );
  }
  if (citations.length) {
    parts.push(h("h2", {}, "Cited"), h("ol", { class: "doc-list" }, citations.map((c) => h("li", {}, h("a", { href: docHref(c.uri, c.startLine) }, lines(c))))));
  }
  const results = answer.results ?? [];
  if (results.length) {
    parts.push(h("h2", {}, "Sources"), h("ol", { class: "doc-list" }, results.map((r) => h("li", {}, h("a", { href: docHref(r.uri, r.snippetRange?.startLine) }, r.title || r.source?.relPath || r.uri), h("span", { class: "muted" }, ` ${r.score.toFixed(2)}`)))));
  }
  return parts;
}

/** "[n]" markers become links to the cited lines; the rest stays text. */
function withCitations(text, citations) {
  const out = [];
  let last = 0;
  for (const match of text.matchAll(/\[(\d{1,3})\]/g)) {
    const cite = citations[Number(match[1]) - 1];
    if (!cite) continue;
    out.push(text.slice(last, match.index), h("a", { href: docHref(cite.uri, cite.startLine), class: "cite", title: lines(cite) }, match[0]));
    last = match.index + match[0].length;
  }
  out.push(text.slice(last));
  return out;
}

function lines(c) {
  const range = c.startLine ? `:${c.startLine}${c.endLine && c.endLine !== c.startLine ? `-${c.endLine}` : ""}` : "";
  return `${c.uri}${range}`;
}
