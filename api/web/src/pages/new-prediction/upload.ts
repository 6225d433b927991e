/**
 * The form's upload: the SDK's createPrediction (its checks of the fields, the same form data
 * as `causeway submit`), sent through XMLHttpRequest instead of fetch, because only XHR reports
 * the upload's progress in a browser, and with a handle to cancel it. Like the page's own fetch
 * (client.ts): no cookies, within the request budget the origin's tabs share, and a refused key
 * signs the page out.
 */
import { CausewayClient } from "@causeway/api/client/sdk";
import { session } from "../../session.ts";
import { takeShared } from "../../shared-budget.ts";
import type { PredictionSubmission } from "../../client.ts";

export interface UploadProgress {
  loaded: number;
  total: number;
}

/** Response headers as XHR gives them ("name: value\r\n" lines). */
export function parseHeaders(raw: string): Headers {
  const headers = new Headers();
  for (const line of raw.trim().split(/[\r\n]+/)) {
    const colon = line.indexOf(":");
    if (colon > 0) headers.append(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
  }
  return headers;
}

const NULL_BODY = new Set([101, 204, 205, 304]);

/** A fetch made of XMLHttpRequest that reports the request body's progress. */
export function xhrFetch(onProgress: (p: UploadProgress) => void, cancel: AbortSignal): typeof fetch {
  return async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input), location.origin);
    if (url.origin === location.origin) await takeShared(24, 60_000, () => undefined);
    if (cancel.aborted) throw new DOMException("The upload was cancelled.", "AbortError");
    return new Promise<Response>((resolve, reject) => {
      const xhr = new XMLHttpRequest();
      xhr.open(init?.method ?? "GET", url.toString());
      xhr.withCredentials = false;
      xhr.responseType = "blob";
      for (const [k, v] of new Headers(init?.headers).entries()) xhr.setRequestHeader(k, v);
      xhr.upload.onprogress = (e) => {
        if (e.lengthComputable) onProgress({ loaded: e.loaded, total: e.total });
      };
      xhr.onload = () => {
        const headers = parseHeaders(xhr.getAllResponseHeaders());
        if (xhr.status === 401 && headers.get("x-service-error-code") === "unauthorized")
          window.dispatchEvent(new Event("causeway:unauthorized"));
        resolve(
          new Response(NULL_BODY.has(xhr.status) ? null : (xhr.response as Blob), {
            status: xhr.status,
            statusText: xhr.statusText,
            headers,
          }),
        );
      };
      xhr.onerror = () => reject(new TypeError("Failed to fetch"));
      xhr.onabort = () => reject(new DOMException("The upload was cancelled.", "AbortError"));
      cancel.addEventListener("abort", () => xhr.abort(), { once: true });
      xhr.send((init?.body ?? null) as XMLHttpRequestBodyInit | null);
    });
  };
}

/** Sends the submission with progress; `cancel` aborts it (the SDK then throws network_error). */
export function uploadPrediction(
  submission: PredictionSubmission,
  onProgress: (p: UploadProgress) => void,
  cancel: AbortSignal,
): Promise<{ prediction_id: string }> {
  const client = new CausewayClient({
    baseUrl: location.origin,
    apiKey: session.key() ?? "",
    fetch: xhrFetch(onProgress, cancel),
  });
  return client.createPrediction(submission);
}
