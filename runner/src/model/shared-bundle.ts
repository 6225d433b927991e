/**
 * One read-only copy of each model version for all the threads of a runner host
 * (runner/src/jobs/pool-host.ts). The host reads a version's checked files once into
 * SharedArrayBuffers; a thread asks for them by message and assembles its own Model around them
 * (its JS parts: symbol table, the layers' gene dictionaries, index maps), so the influence
 * matrix, the baseline, P and the evidence layers' sets (views of the shared resolved file)
 * exist once per host however many threads run jobs. Node has no mmap; a
 * SharedArrayBuffer posted to a worker thread is shared, not copied.
 */
import type { MessagePort, Worker } from "node:worker_threads";
import { JobFailure, type FailureCode } from "@causeway/contract";
import type { ObjectStore } from "../storage/index.ts";
import type { Model } from "./model.ts";
import { assembleModel, readModelFiles, type LoadModelOptions, type StoredModelFiles } from "./model-load.ts";

/** Bytes on a SharedArrayBuffer of their own (a typed view of the whole buffer needs no copy). */
export const sharedBytes = (bytes: number): Uint8Array => new Uint8Array(new SharedArrayBuffer(bytes));

/** A thread asks its host for a version's files. */
export interface BundleRequest {
  type: "bundle";
  id: number;
  version: string;
}

/** The host's answer: the shared files, or why they could not be loaded. */
export type BundleReply =
  | { type: "bundle"; id: number; files: StoredModelFiles }
  | {
      type: "bundle";
      id: number;
      failure: { code: FailureCode; message: string; detail: string | null } | null;
      error: string;
    };

/** A bundle request (host side) or reply (thread side): both carry `type: "bundle"`. */
export const isBundleMessage = (m: unknown): boolean =>
  typeof m === "object" && m !== null && (m as { type?: unknown }).type === "bundle";

/** The host's versions: each loaded once into shared memory; concurrent asks join one load. */
export class SharedBundles {
  private readonly loads = new Map<string, Promise<StoredModelFiles>>();

  private readonly store: ObjectStore | Promise<ObjectStore>;
  private readonly options: LoadModelOptions;

  /** `store` may still be opening (the host listens before its store is open). */
  constructor(store: ObjectStore | Promise<ObjectStore>, options: LoadModelOptions = {}) {
    this.store = store;
    this.options = options;
  }

  get(version: string): Promise<StoredModelFiles> {
    let load = this.loads.get(version);
    if (!load) {
      load = Promise.resolve(this.store).then((store) =>
        readModelFiles(store, version, { ...this.options, alloc: sharedBytes }),
      );
      this.loads.set(version, load);
      // A failed load is not remembered (the version may still be importing, or storage failed).
      load.catch(() => this.loads.delete(version));
    }
    return load;
  }

  /** Answers a thread's requests for versions. */
  serve(worker: Pick<Worker, "on" | "postMessage">): void {
    worker.on("message", (m: unknown) => {
      if (!isBundleMessage(m)) return;
      const { id, version } = m as BundleRequest;
      this.get(version).then(
        (files) => worker.postMessage({ type: "bundle", id, files } satisfies BundleReply),
        (err: unknown) =>
          worker.postMessage({
            type: "bundle",
            id,
            failure:
              err instanceof JobFailure
                ? { code: err.code, message: err.message, detail: err.detail ?? null }
                : null,
            error: err instanceof Error ? err.message : String(err),
          } satisfies BundleReply),
      );
    });
  }
}

/**
 * A thread's model loader: each version's Model is assembled once per thread around the files
 * its host shares (`port` is the thread's parentPort). A failure is not remembered.
 */
export function sharedModelLoader(
  port: Pick<MessagePort, "on" | "postMessage">,
): (version: string) => Promise<Model> {
  const models = new Map<string, Promise<Model>>();
  const waiting = new Map<number, { resolve: (f: StoredModelFiles) => void; reject: (e: Error) => void }>();
  let next = 0;
  port.on("message", (m: unknown) => {
    if (!isBundleMessage(m)) return;
    const reply = m as BundleReply;
    const w = waiting.get(reply.id);
    if (!w) return;
    waiting.delete(reply.id);
    if ("files" in reply) return w.resolve(reply.files);
    w.reject(
      reply.failure
        ? new JobFailure(reply.failure.code, reply.failure.message, reply.failure.detail ?? undefined)
        : new Error(reply.error),
    );
  });
  return (version) => {
    let model = models.get(version);
    if (!model) {
      const id = next++;
      model = new Promise<StoredModelFiles>((resolve, reject) => {
        waiting.set(id, { resolve, reject });
        port.postMessage({ type: "bundle", id, version } satisfies BundleRequest);
      }).then(assembleModel);
      models.set(version, model);
      model.catch(() => models.delete(version));
    }
    return model;
  };
}
