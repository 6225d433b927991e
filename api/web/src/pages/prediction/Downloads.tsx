/** A job's result files, each with a line saying what it holds when the contract describes it. */
import { sameOriginLink } from "../../client.ts";
import type { Artifacts } from "./artifacts.ts";
import { artifactDescription } from "./artifact-descriptions.ts";

export function Downloads({ artifacts, testid = "downloads" }: { artifacts: Artifacts; testid?: string }) {
  return (
    <ul class="downloads card" data-testid={testid}>
      {artifacts.map((a) => {
        const what = artifactDescription(a.name);
        return (
          <li key={a.name}>
            <a href={sameOriginLink(a.url)} download={a.name}>
              {a.name}
            </a>
            {what && <span class="muted small download-what">{what}</span>}
          </li>
        );
      })}
    </ul>
  );
}
