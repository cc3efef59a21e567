// A small code highlighter: one left-to-right pass (comments, strings, numbers, keywords), so
// its time is linear in the code's length. Above MAX_CHARS the code is shown plain.

import { h } from "./dom.js";

const MAX_CHARS = 200_000;
const HASH_COMMENTS = new Set([
  "python", "py", "sh", "bash", "shell", "zsh", "yaml", "yml", "toml", "ruby", "rb", "r",
  "perl", "make", "makefile", "dockerfile", "conf", "ini", "properties",
]);
const KEYWORDS = new Set(
  (
    "and as async await break case catch class const continue def default defer del do elif " +
    "else enum export extends false final finally fn for from func function go if impl import " +
    "in interface is lambda let loop match mod module new nil none not null or package pass " +
    "private protected pub public raise return self static struct super switch this throw " +
    "true try type typeof use var void while with yield True False None"
  ).split(" "),
);

function isIdentStart(c) {
  return /[A-Za-z_$]/.test(c);
}

function isIdent(c) {
  return /[A-Za-z0-9_$]/.test(c);
}

export function highlightCode(code, lang) {
  if (code.length > MAX_CHARS) return [code];
  const language = (lang || "").toLowerCase();
  const hashComments = HASH_COMMENTS.has(language);
  const out = [];
  let plain = "";
  const flush = () => {
    if (plain) out.push(plain);
    plain = "";
  };
  const token = (cls, text) => {
    flush();
    out.push(h("span", { class: `tok-${cls}` }, text));
  };
  let i = 0;
  const n = code.length;
  while (i < n) {
    const c = code[i];
    const next = code[i + 1];
    if ((c === "/" && next === "/") || (c === "#" && hashComments) || (c === "-" && next === "-" && language === "sql")) {
      let end = code.indexOf("\n", i);
      if (end === -1) end = n;
      token("comment", code.slice(i, end));
      i = end;
    } else if (c === "/" && next === "*") {
      let end = code.indexOf("*/", i + 2);
      end = end === -1 ? n : end + 2;
      token("comment", code.slice(i, end));
      i = end;
    } else if (c === '"' || c === "'" || c === "`") {
      let j = i + 1;
      while (j < n && code[j] !== c && (c === "`" || code[j] !== "\n")) j += code[j] === "\\" ? 2 : 1;
      j = Math.min(n, j + 1);
      token("string", code.slice(i, j));
      i = j;
    } else if (/[0-9]/.test(c) && (i === 0 || !isIdent(code[i - 1]))) {
      let j = i + 1;
      while (j < n && /[0-9A-Fa-fxX._]/.test(code[j])) j += 1;
      token("number", code.slice(i, j));
      i = j;
    } else if (isIdentStart(c) && (i === 0 || !isIdent(code[i - 1]))) {
      let j = i + 1;
      while (j < n && isIdent(code[j])) j += 1;
      const word = code.slice(i, j);
      if (KEYWORDS.has(word)) token("keyword", word);
      else plain += word;
      i = j;
    } else {
      plain += c;
      i += 1;
    }
  }
  flush();
  return out;
}
