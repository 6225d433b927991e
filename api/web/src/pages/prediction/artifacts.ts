/** A job's result files by name, read through the page's client. */
import { artifact } from "../../client.ts";

export type Artifacts = { name: string; url: string }[];

/** The artifact of the first result set: `name`, or `<prefix>.name` for a job with several. */
export function artifactNamed(artifacts: Artifacts | null | undefined, name: string) {
  return artifacts?.find((x) => x.name === name) ?? artifacts?.find((x) => x.name.endsWith(`.${name}`));
}

/** The artifact's JSON, or undefined when the job has no such file. */
export async function artifactJson(artifacts: Artifacts | null | undefined, name: string): Promise<unknown> {
  const a = artifactNamed(artifacts, name);
  if (!a) return undefined;
  return (await artifact(a.url)).json();
}

/** The artifact's text, or undefined when the job has no such file. */
export async function artifactText(
  artifacts: Artifacts | null | undefined,
  name: string,
): Promise<string | undefined> {
  const a = artifactNamed(artifacts, name);
  if (!a) return undefined;
  return (await artifact(a.url)).text();
}
