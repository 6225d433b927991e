/**
 * Saving a completed prediction into a folder: the status record and the derived results of a
 * target_validation job as JSON at the top, every artifact under `artifacts/`, and the SHA-256
 * of each file in a `SHA256SUMS` file that `sha256sum -c` reads.
 */
import { createHash } from "node:crypto";
import { createWriteStream } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { dirname, isAbsolute, join, normalize, sep } from "node:path";
import { Readable, Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { ReadableStream as WebReadableStream } from "node:stream/web";
import { CausewayError } from "./errors.ts";
import type { CausewayClient, PredictionStatus } from "./sdk.ts";

export interface SavedFile {
  name: string;
  bytes: number;
  sha256: string;
}

export interface SavedResults {
  prediction_id: string;
  status: string;
  out: string;
  files: SavedFile[];
}

/** A file name from the service, kept inside the folder. */
function safeName(name: string): string {
  const n = normalize(name);
  if (n === "" || isAbsolute(n) || n.split(sep).includes("..") || n.startsWith("."))
    throw new CausewayError("invalid_response", `refusing artifact name ${JSON.stringify(name)}`, 0);
  return n;
}

async function saveBytes(dir: string, name: string, data: Uint8Array | string): Promise<SavedFile> {
  const path = join(dir, safeName(name));
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, data);
  const buf = typeof data === "string" ? Buffer.from(data) : data;
  return { name, bytes: buf.byteLength, sha256: createHash("sha256").update(buf).digest("hex") };
}

const json = (value: unknown) => JSON.stringify(value, null, 2) + "\n";

export async function saveResults(
  client: CausewayClient,
  id: string,
  dir: string,
  onFile: (f: SavedFile) => void = () => {},
): Promise<SavedResults> {
  const status: PredictionStatus = await client.getPrediction(id);
  if (status.status !== "completed")
    throw new CausewayError("not_completed", `prediction ${id} is ${status.status}, not completed`, 0);
  await mkdir(dir, { recursive: true });
  const files: SavedFile[] = [];
  const keep = (f: SavedFile) => {
    files.push(f);
    onFile(f);
  };
  keep(await saveBytes(dir, "status.json", json(status)));
  if (status.job_type === "target_validation") {
    keep(await saveBytes(dir, "mapped_degs.json", json(await client.getMappedDegs(id))));
    keep(await saveBytes(dir, "degs_impacted.json", json(await client.getDegsImpacted(id))));
    keep(await saveBytes(dir, "causal_paths.json", json(await client.getCausalPaths(id))));
  }
  for (const artifact of status.artifacts ?? []) {
    const name = join("artifacts", safeName(artifact.name));
    const path = join(dir, name);
    await mkdir(dirname(path), { recursive: true });
    const res = await client.download(artifact.url);
    if (!res.body) throw new CausewayError("invalid_response", `empty download of ${name}`, res.status);
    const hash = createHash("sha256");
    let bytes = 0;
    const tap = new Transform({
      transform(chunk: Buffer, _enc, done) {
        hash.update(chunk);
        bytes += chunk.length;
        done(null, chunk);
      },
    });
    await pipeline(Readable.fromWeb(res.body as WebReadableStream<Uint8Array>), tap, createWriteStream(path));
    const expected = res.headers.get("content-length");
    if (expected !== null && Number(expected) !== bytes)
      throw new CausewayError("download_incomplete", `${name}: ${bytes} of ${expected} bytes`, res.status);
    keep({ name, bytes, sha256: hash.digest("hex") });
  }
  await writeFile(join(dir, "SHA256SUMS"), files.map((f) => `${f.sha256}  ${f.name}\n`).join(""));
  return { prediction_id: id, status: status.status, out: dir, files };
}
