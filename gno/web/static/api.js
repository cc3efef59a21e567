// gno's REST API, same origin. Errors come back as {error: {code, message}} (spec/rest.md).

export class ApiError extends Error {
  constructor(status, code, message, details) {
    super(message);
    this.status = status;
    this.code = code;
    this.details = details;
  }
}

/** One JSON call; `signal` aborts it (search-as-you-type drops stale requests this way). */
export async function api(path, { method = "GET", body, signal } = {}) {
  const init = { method, signal, headers: { Accept: "application/json" } };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  const response = await fetch(path, init);
  const text = await response.text();
  let data = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    data = null;
  }
  if (!response.ok) {
    const error = data?.error ?? {};
    // GNO_API_TOKEN is set and this browser has no (or an outdated) session: the app shows
    // the token form (app.js), whichever page or panel asked.
    if (response.status === 401 && error.code === "UNAUTHORIZED") {
      window.dispatchEvent(new CustomEvent("gno:unauthorized"));
    }
    throw new ApiError(
      response.status,
      error.code ?? `HTTP_${response.status}`,
      error.message ?? response.statusText,
      error.details,
    );
  }
  return data;
}

/** Poll a background job until it ends; `onUpdate` sees every state. */
export async function followJob(jobId, onUpdate, { intervalMs = 400, signal } = {}) {
  for (;;) {
    const job = await api(`/api/jobs/${encodeURIComponent(jobId)}`, { signal });
    onUpdate(job);
    if (job.status === "completed" || job.status === "failed" || job.status === "cancelled") {
      return job;
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
    if (signal?.aborted) return job;
  }
}
