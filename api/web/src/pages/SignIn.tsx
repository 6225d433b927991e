/** Sign in with an API key; a wrong key gets the service's message. */
import { useState } from "preact/hooks";
import { checkKey } from "../client.ts";
import { explain } from "../explain.ts";
import { session } from "../session.ts";

export function SignIn({ onSignedIn }: { onSignedIn: () => void }) {
  const [key, setKey] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await checkKey(key.trim());
      session.signIn(key.trim());
      setKey("");
      onSignedIn();
    } catch (err) {
      setError(explain(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <section class="narrow">
      <h1>Sign in</h1>
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
        <button type="submit" class="primary" disabled={busy || key.trim() === ""}>
          {busy ? "Checking…" : "Sign in"}
        </button>
      </form>
      <p class="muted">
        No key yet? An administrator creates one with <code>npm run admin -- accounts create</code>.
      </p>
    </section>
  );
}
