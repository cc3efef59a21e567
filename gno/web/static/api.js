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
