/**
 * NumPy `.npy` format 1.0 for float32 C-order little-endian matrices, the format of
 * source_influence_matrix.npy (model.md §13). Hand-written because it is a 10-line header
 * and no maintained npm package writes it without pulling in a tensor library.
 */
export interface Float32Matrix {
  rows: number;
  cols: number;
  data: Float32Array;
}

const MAGIC = Buffer.from([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59]);

export function encodeNpyFloat32(matrix: Float32Matrix): Buffer {
  if (matrix.data.length !== matrix.rows * matrix.cols)
    throw new Error("matrix size does not match its shape");
  let header = `{'descr': '<f4', 'fortran_order': False, 'shape': (${matrix.rows}, ${matrix.cols}), }`;
  // The header (magic + version + length field + text + newline) is padded to a multiple of 64.
  const unpadded = MAGIC.length + 2 + 2 + header.length + 1;
  header += " ".repeat((64 - (unpadded % 64)) % 64) + "\n";
  const prefix = Buffer.alloc(MAGIC.length + 4);
  MAGIC.copy(prefix, 0);
  prefix[6] = 1;
  prefix[7] = 0;
  prefix.writeUInt16LE(header.length, 8);
  const body = Buffer.from(matrix.data.buffer, matrix.data.byteOffset, matrix.data.byteLength);
  return Buffer.concat([prefix, Buffer.from(header, "latin1"), body]);
}

/** Shape and data offset of a float32 C-order `.npy`, from its first bytes. */
export interface NpyFloat32Header {
  rows: number;
  cols: number;
  /** Byte offset of the first value. */
  offset: number;
}

/**
 * Parses the header at the start of `buf`, which must hold at least the whole header;
 * rejects every other dtype or layout. Lets a reader fetch only the rows it needs.
 */
export function parseNpyFloat32Header(buf: Buffer): NpyFloat32Header {
  if (buf.length < 10 || !buf.subarray(0, 6).equals(MAGIC)) throw new Error("not a .npy file");
  const major = buf[6];
  const headerLen = major === 1 ? buf.readUInt16LE(8) : buf.readUInt32LE(8);
  const start = major === 1 ? 10 : 12;
  if (buf.length < start + headerLen) throw new Error("truncated .npy header");
  const header = buf.subarray(start, start + headerLen).toString("latin1");
  if (!/'descr':\s*'<f4'/.test(header) || !/'fortran_order':\s*False/.test(header)) {
    throw new Error("only little-endian float32 C-order .npy is supported");
  }
  const shape = /'shape':\s*\((\d+),\s*(\d+)\s*,?\)/.exec(header);
  if (!shape) throw new Error("only two-dimensional .npy is supported");
  return { rows: Number(shape[1]), cols: Number(shape[2]), offset: start + headerLen };
}

/** Reads a float32 C-order matrix; rejects every other dtype or layout. */
export function decodeNpyFloat32(buf: Buffer): Float32Matrix {
  const { rows, cols, offset } = parseNpyFloat32Header(buf);
  if (buf.length - offset !== rows * cols * 4) throw new Error(".npy data length does not match its shape");
  // Copy so the result is aligned regardless of the buffer's offset.
  const data = new Float32Array(rows * cols);
  Buffer.from(data.buffer).set(buf.subarray(offset));
  return { rows, cols, data };
}
