/**
 * A job's result files, each with a line saying what it holds when the contract describes it.
 * A click saves the file under a name that carries the prediction's identity
 * (`<label>_<short id>_target_scores.tsv`, download-name.ts): the service's own links name the
 * bare file (their Content-Disposition wins over a link's download attribute), so the page
 * fetches the file and saves it itself. The link stays a real link (open in a new tab, copy).
 */
import { useState } from "preact/hooks";
import { artifact, sameOriginLink } from "../../client.ts";
import { saveBlob } from "../../components/graph-export.ts";
import { explain } from "../../explain.ts";
import type { Artifacts } from "./artifacts.ts";
import { artifactDescription } from "./artifact-descriptions.ts";
import { downloadName } from "./download-name.ts";

export function Downloads({
  artifacts,
  owner,
  testid = "downloads",
}: {
  artifacts: Artifacts;
  /** Whose files these are: their names start with its label (or the target) and short id. */
  owner?: { prediction_id: string; label?: string | null | undefined } | undefined;
  testid?: string;
}) {
  const [saving, setSaving] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const save = (e: MouseEvent, a: Artifacts[number], name: string) => {
    if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    e.preventDefault();
    if (saving) return;
    setSaving(a.name);
    setError(null);
    artifact(a.url)
      .then((res) => res.blob())
      .then(
        (blob) => saveBlob(name, blob),
        (err: unknown) => setError(`${a.name} could not be downloaded: ${explain(err)}`),
      )
      .finally(() => setSaving(null));
  };
  return (
    <>
      <ul class="downloads card" data-testid={testid}>
        {artifacts.map((a) => {
          const what = artifactDescription(a.name);
          const name = owner ? downloadName(a.name, owner) : a.name;
          return (
            <li key={a.name}>
              <a
                href={sameOriginLink(a.url)}
                download={name}
                onClick={(e) => save(e, a, name)}
                aria-busy={saving === a.name}
                title={`Saved as ${name}`}
              >
                {a.name}
              </a>
              {saving === a.name && <span class="muted small"> downloading…</span>}
              {what && <span class="muted small download-what">{what}</span>}
            </li>
          );
        })}
      </ul>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
    </>
  );
}
