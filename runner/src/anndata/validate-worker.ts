/**
 * Worker-thread side of `validateUpload`: structural checks of one uploaded file per message.
 * h5wasm's heap is capped here by refusing WebAssembly memory growth beyond WASM_HEAP_CAP,
 * so a hostile file (a gzip bomb, say) fails an allocation instead of growing this process
 * to h5wasm's 2 GiB ceiling. The cap is installed before h5wasm is loaded.
 */
import fs from "node:fs";
import { parentPort, workerData } from "node:worker_threads";

interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(delta: number): number;
}
const wasmMemoryPrototype = (globalThis as unknown as { WebAssembly: { Memory: { prototype: WasmMemory } } })
  .WebAssembly.Memory.prototype;

const cap =
  typeof workerData === "object" && workerData !== null
    ? Number((workerData as { wasmHeapBytes?: unknown }).wasmHeapBytes)
    : NaN;
const WASM_HEAP_CAP = Number.isFinite(cap) && cap > 0 ? cap : 192 * 1024 * 1024;
const realGrow = wasmMemoryPrototype.grow;
wasmMemoryPrototype.grow = function grow(this: WasmMemory, delta: number): number {
  if (this.buffer.byteLength + delta * 65536 > WASM_HEAP_CAP)
    throw new RangeError("upload validator heap cap reached");
  return realGrow.call(this, delta);
};

// HDF5 prints its error stacks straight to fd 2; for hostile uploads that is only noise.
const realWriteSync = fs.writeSync;
fs.writeSync = ((fd: number, ...rest: unknown[]) => {
  if (fd === 1 || fd === 2) {
    // Report everything as written: writeSync(fd, string) or writeSync(fd, buffer, offset, length).
    const [first, offset, length] = rest;
    if (typeof first === "string") return Buffer.byteLength(first);
    if (typeof length === "number") return length;
    if (ArrayBuffer.isView(first)) return first.byteLength - (typeof offset === "number" ? offset : 0);
    return 0;
  }
  return (realWriteSync as (...a: unknown[]) => number)(fd, ...rest);
}) as typeof fs.writeSync;

const { checkUpload } = await import("./check-upload.ts");
const { h5Module } = await import("./h5-file.ts");
await h5Module();

parentPort!.on("message", (msg: { id: number; path: string; maxObs: number | null }) => {
  void checkUpload(msg.path, msg.maxObs).then((result) => parentPort!.postMessage({ id: msg.id, ...result }));
});
parentPort!.postMessage({ ready: true });
