/**
 * The page's client of the API: the SDK's (`@causeway/api/client/sdk`), so the page keeps the
 * same contract rules as the command line (answers validated with the API's schemas, GET
 * retried after rate_limited and edge blocks, POST never, a request budget under the edge limit).
 * What the page adds: the signed-in key, no cookies, a lost key signs out, and a store of the
 * pause the budget or the edge limit imposes, so that every section can say it is waiting.
 */
import { CausewayClient } from "@causeway/api/client/sdk";
import { session } from "./session.ts";
import { recordPageLoads, takeShared } from "./shared-budget.ts";

export { CausewayError } from "@causeway/api/client/errors";
export type {
  GraphExportFormat,
  CausalAnalysisStatus,
  CausalPaths,
  DegsImpacted,
  IntermediaryProteins,
  PredictionStatus,
  PredictionSubmission,
  PredictionsPage,
  Quota,
  ResolvedGenes,
  TargetsPageQuery,
  TargetsPageResult,
} from "@causeway/api/client/sdk";

// The edge limit is 30 a minute per address, for all the tabs of one person together. The pages'
// own HTML and files count too and cannot wait for a slot (they load before this script runs):
// 6 are kept in hand, two tabs' worth, opened while the others have spent the budget.
const REQUESTS_PER_MINUTE = 24;

type Listener = (until: number | null) => void;
const listeners = new Set<Listener>();
let waitingUntil: number | null = null;
let clearTimer: ReturnType<typeof setTimeout> | undefined;

/** When the page's requests may go again, while they wait on the limit; null otherwise. */
export const limitWait = {
  get until(): number | null {
    return waitingUntil;
  },
  subscribe(fn: Listener): () => void {
    listeners.add(fn);
    return () => listeners.delete(fn);
  },
};

function noteWait(ms: number): void {
  const until = Date.now() + ms;
  waitingUntil = Math.max(waitingUntil ?? 0, until);
  for (const fn of listeners) fn(waitingUntil);
  clearTimeout(clearTimer);
  clearTimer = setTimeout(() => {
    waitingUntil = null;
    for (const fn of listeners) fn(null);
  }, waitingUntil - Date.now());
}

// The page's own HTML and files count against the same limit (see recordPageLoads).
recordPageLoads(60_000);

/**
 * fetch without cookies, within the budget the origin's tabs share (shared-budget.ts; requests
 * to another origin, such as S3 links, do not count against this service's limit); a refused
 * key signs the page out.
 */
const pageFetch: typeof fetch = async (input, init) => {
  const url = new URL(input instanceof Request ? input.url : String(input), location.origin);
  if (url.origin === location.origin)
    await takeShared(REQUESTS_PER_MINUTE, 60_000, (ms) => {
      if (ms >= 500) noteWait(ms);
    });
  const res = await fetch(input, { ...init, credentials: "omit" });
  if (res.status === 401 && res.headers.get("x-service-error-code") === "unauthorized")
    window.dispatchEvent(new Event("causeway:unauthorized"));
  return res;
};

function clientWith(apiKey: string, requestsPerMinute = REQUESTS_PER_MINUTE): CausewayClient {
  return new CausewayClient({
    baseUrl: location.origin,
    apiKey,
    fetch: pageFetch,
    requestsPerMinute,
    maxBackoffMs: 30_000,
    onWait: (ms) => {
      if (ms >= 500) noteWait(ms);
    },
  });
}

let current: { key: string; client: CausewayClient } | null = null;

/** The client of the signed-in key (one per key, so its budget spans every page of the tab). */
export function client(): CausewayClient {
  const key = session.key() ?? "";
  if (current?.key !== key) current = { key, client: clientWith(key) };
  return current.client;
}

/** Checks a key before keeping it: the quota route answers 401 for a wrong one. */
export async function checkKey(key: string): Promise<void> {
  await clientWith(key, 1).getQuota();
}

/** A download link made relative when it is one of this service's own /files/ links. */
export function sameOriginLink(link: string): string {
  const u = new URL(link, location.origin);
  return u.pathname.startsWith("/files/") ? u.pathname + u.search : u.toString();
}

/**
 * An artifact by its download link. Links of the filesystem store (/files/<token>) are fetched
 * from this origin whatever host they name (the page may be opened as localhost while links say
 * 127.0.0.1); S3 links are fetched as they are, without the key.
 */
export function artifact(link: string): Promise<Response> {
  return client().download(sameOriginLink(link));
}
