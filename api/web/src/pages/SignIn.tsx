/**
 * Sign in with an API key; a wrong key gets the service's message. While the check waits on the
 * request limit (the edge's 403 for the address, a 429 with Retry-After, or this tab's own
 * pacing), the page says which and when it tries again instead of "Checking…" alone. Opened
 * because the service refused the key mid-session, it says so (`reason`).
 */
import { useEffect, useState } from "preact/hooks";
import { CausewayClient } from "@causeway/api/client/sdk";
import { explain } from "../explain.ts";
import { session } from "../session.ts";
import { takeShared } from "../shared-budget.ts";

export type WaitReason = "budget" | "edge_blocked" | "rate_limited";

/** What a wait of `seconds` for `reason` means, in a sentence. */
export function waitText(reason: WaitReason, seconds: number): string {
  const when = `Trying again in about ${seconds} s; there is nothing to do meanwhile.`;
  switch (reason) {
    case "edge_blocked":
      return `The service's edge is refusing requests from this address for a while: more than 30 came from it in the last minute (other tabs, or other people or scripts behind the same network address). ${when}`;
    case "rate_limited":
      return `The service asked this client to slow down (too many requests). ${when}`;
    case "budget":
      return `This page keeps under the service's limit of 30 requests a minute per address, and has used it up. ${when}`;
  }
}

/** Checks a key with the quota route (401 for a wrong one), telling `onWait` of each pause. */
async function checkKey(key: string, onWait: (ms: number, reason: WaitReason) => void): Promise<void> {
  const c = new CausewayClient({
    baseUrl: location.origin,
    apiKey: key,
    // The page's pace (the tabs' shared budget below governs): a budget of one a minute would
    // hold the retry after an edge block for a whole minute.
    requestsPerMinute: 24,
    maxBackoffMs: 30_000,
    fetch: async (input, init) => {
      await takeShared(24, 60_000, (ms) => {
        if (ms >= 500) onWait(ms, "budget");
      });
      return fetch(input, { ...init, credentials: "omit" });
    },
    onWait: (ms, reason) => {
      if (ms >= 500) onWait(ms, reason);
    },
  });
  await c.getQuota();
}

export function SignIn({ onSignedIn, reason }: { onSignedIn: () => void; reason?: string | null }) {
  const [key, setKey] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [wait, setWait] = useState<{ until: number; reason: WaitReason } | null>(null);
  const [, tick] = useState(0);
  useEffect(() => {
    if (!wait) return;
    const t = setInterval(() => {
      if (Date.now() >= wait.until) setWait(null);
      else tick((n) => n + 1);
    }, 1000);
    return () => clearInterval(t);
  }, [wait]);
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await checkKey(key.trim(), (ms, why) => setWait({ until: Date.now() + ms, reason: why }));
      session.signIn(key.trim());
      setKey("");
      onSignedIn();
    } catch (err) {
      setError(explain(err));
    } finally {
      setWait(null);
      setBusy(false);
    }
  };
  return (
    <section class="narrow">
      <h1>Sign in</h1>
      {reason && (
        <p class="warn-line" role="alert" data-testid="signed-out-reason">
          {reason}
        </p>
      )}
      <p class="lead">
        Enter the API key of your causeway account. It is kept in this tab only and forgotten when you sign
        out or close the tab.
      </p>
      <form class="card form" onSubmit={(e) => void submit(e)}>
        <label for="api_key">API key</label>
        <input
          id="api_key"
          name="api_key"
          type="password"
          autoComplete="off"
          spellcheck={false}
          required
          value={key}
          onInput={(e) => setKey((e.target as HTMLInputElement).value)}
        />
        {error && (
          <p class="error" role="alert">
            {error}
          </p>
        )}
        {busy && wait && (
          <p class="muted small" role="status" data-testid="sign-in-wait">
            {waitText(wait.reason, Math.max(1, Math.ceil((wait.until - Date.now()) / 1000)))}
          </p>
        )}
        <button type="submit" class="primary" disabled={busy || key.trim() === ""}>
          {busy ? (wait ? "Waiting for the limit…" : "Checking…") : "Sign in"}
        </button>
      </form>
      <p class="muted">
        No key yet? An administrator creates one with <code>npm run admin -- accounts create</code>.
      </p>
    </section>
  );
}
