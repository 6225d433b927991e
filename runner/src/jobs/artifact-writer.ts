/**
 * Writes a job's artifacts through the object store under one attempt-scoped prefix and
 * remembers what it wrote, so the final callback can list every stored file.
 */
import { createHash } from "node:crypto";
import { mediaTypeOf, type ResultFile } from "@causeway/contract";
import type { ObjectStore } from "../storage/index.ts";

export class ArtifactWriter {
  private readonly store: ObjectStore;
  private readonly prefix: string;
  private readonly written = new Map<string, ResultFile>();
  /** SHA-256 of each file as stored, for the run's provenance record (ro-crate.ts). */
  private readonly digests = new Map<string, { sha256: string; bytes: number }>();

  /** `prefix` is joined with "/" unless empty (the command line writes straight into a folder). */
  constructor(store: ObjectStore, prefix: string) {
    this.store = store;
    this.prefix = prefix.replace(/\/+$/, "");
  }

  keyOf(name: string): string {
    return this.prefix === "" ? name : `${this.prefix}/${name}`;
  }

  async write(name: string, body: Buffer | string): Promise<void> {
    const key = this.keyOf(name);
    await this.store.put(key, body, mediaTypeOf(name));
    this.written.set(name, { name, key, size_bytes: Buffer.byteLength(body) });
    this.digests.set(name, {
      sha256: createHash("sha256").update(body).digest("hex"),
      bytes: Buffer.byteLength(body),
    });
  }

  /** The SHA-256 and size of a file written under `name`, or undefined. */
  digestOf(name: string): { sha256: string; bytes: number } | undefined {
    return this.digests.get(name);
  }

  async writeJson(name: string, value: unknown): Promise<void> {
    await this.write(name, JSON.stringify(value, null, 2) + "\n");
  }

  files(): ResultFile[] {
    return [...this.written.values()];
  }
}
