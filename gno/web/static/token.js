// The token form, shown when the server runs with GNO_API_TOKEN and this browser has no
// session. The token goes once to POST /api/session as X-GNO-Token; the answer sets an
// HttpOnly session cookie (derived from the token, never the token itself) that every later
// request, the /api/events stream and the /api/doc-asset links carry. The page keeps no copy
// of the token: it is only in the field until the page reloads.

import { h } from "./dom.js";

/** Replace `main` with the form; on success the page reloads with the session. */
export function tokenForm(main) {
  const input = h("input", {
    type: "password",
    id: "gno-token",
    name: "token",
    autocomplete: "current-password",
    required: true,
    "data-testid": "token-input",
  });
  const problem = h("p", { class: "error", role: "alert", "data-testid": "token-error" });
  const button = h("button", { type: "submit" }, "Unlock");
  const form = h(
    "form",
    { class: "card token-form", "data-testid": "token-form", onsubmit: submit },
    h("label", { for: "gno-token" }, "API token"),
    input,
    button,
    problem,
  );

  async function submit(event) {
    event.preventDefault();
    problem.textContent = "";
    button.disabled = true;
    try {
      const response = await fetch("/api/session", {
        method: "POST",
        headers: { "X-GNO-Token": input.value },
      });
      if (response.ok) {
        location.reload();
        return;
      }
      problem.textContent =
        response.status === 401 ? "Wrong token." : `The server answered HTTP ${response.status}.`;
    } catch {
      // fetch refuses a header value with characters outside Latin-1 or a line break
      problem.textContent = "This token cannot be sent (a header takes Latin-1 characters only).";
    } finally {
      button.disabled = false;
    }
    input.select();
  }

  document.title = "Token · gno";
  main.replaceChildren(
    h("h1", {}, "API token"),
    h(
      "p",
      { class: "muted" },
      "This server runs with GNO_API_TOKEN. Enter that token to open a session in this browser.",
    ),
    form,
  );
  input.focus();
}
