/** The part of jsfive (a pure-JavaScript HDF5 reader, no WebAssembly) the page uses. */
declare module "jsfive" {
  export class Dataset {
    readonly value: unknown;
    readonly shape: number[];
    readonly attrs: Record<string, unknown>;
  }
  export class Group {
    readonly keys: string[];
    readonly attrs: Record<string, unknown>;
    get(path: string): Group | Dataset;
  }
  export class File extends Group {
    constructor(buffer: ArrayBuffer, filename: string);
  }
}
