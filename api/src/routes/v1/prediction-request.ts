/**
 * What the POST /v1/predictions handler reads from its request for the submission service. The
 * multipart body: files stream to the submission's temp directory under a size cap (never into
 * memory), text fields are collected under a field cap; limit breaches are 413, malformed
 * bodies and unexpected or repeated fields 422. And whether the client is still there.
 *
 * A part named like a file field is a file whether or not it carries a filename (generated
 * clients send `format: binary` parts without one). `degs` is one part holding a JSON array,
 * or several parts of one symbol each, the way form encoders send an array.
 */
import { createWriteStream } from "node:fs";
import { join } from "node:path";
import { pipeline } from "node:stream/promises";
import type { FastifyReply, FastifyRequest } from "fastify";
import { Writable } from "node:stream";
import { PayloadTooLarge, RequestValidationError, invalid } from "../../errors.ts";
import type { IdempotentRequest } from "../../services/submission/idempotency.ts";
import { MAX_DEGS, PredictionForm } from "../../schemas/predictions.ts";
import {
  FILE_FIELDS,
  type FileField,
  type ReceivedUpload,
} from "../../services/submission/submission-plan.ts";
import { MultipartFingerprint, pathOf } from "./request-fingerprint.ts";
import { assertCleanFormText, textProblem } from "../../plugins/text-guard.ts";
import { assertNumberSpelling } from "../../plugins/number-spelling.ts";

/** The text fields the form schema reads (anything else is ignored, like any form handler). */
const TEXT_FIELDS = new Set(Object.keys(PredictionForm.shape));

export interface UploadLimits {
  maxFileBytes: number;
  maxFieldBytes: number;
  /**
   * All text parts together. Text is held in memory (busboy buffers a field whole), files are
   * not: without this cap 20,000 `degs` parts of one field cap each were gigabytes of strings.
   */
  maxTextBytes: number;
}

const isFileField = (name: string): name is FileField => (FILE_FIELDS as readonly string[]).includes(name);

/** Text parts allowed: one per field, plus one per DEG symbol when they come as separate parts. */
const MAX_TEXT_PARTS = TEXT_FIELDS.size + MAX_DEGS;

function tooLarge(what: string): Error {
  return new PayloadTooLarge(what);
}

/** Drops what it is given: the body of a retry is read only for its fingerprint. */
const discard = (): Writable =>
  new Writable({
    write(_chunk, _enc, done) {
      done();
    },
  });

/**
 * Reads the whole multipart body into `dir` (or, with no `dir`, only through the fingerprint),
 * feeding `fingerprint` as it goes; throws 413/422 errors of errors.ts.
 */
export async function receiveUpload(
  request: FastifyRequest,
  dir: string | null,
  limits: UploadLimits,
  fingerprint: MultipartFingerprint = new MultipartFingerprint(request.method, pathOf(request.url)),
): Promise<ReceivedUpload> {
  if (!request.isMultipart())
    throw invalid(["body"], "the request body must be multipart/form-data", "content_type");
  const out: ReceivedUpload = { fields: {}, files: {} };
  const parts = request.parts({
    limits: {
      fileSize: limits.maxFileBytes,
      fieldSize: limits.maxFieldBytes,
      files: FILE_FIELDS.length,
      fields: MAX_TEXT_PARTS,
      parts: FILE_FIELDS.length + MAX_TEXT_PARTS,
      headerPairs: 100,
    },
    isPartAFile: (name: string | undefined, _type: string | undefined, filename: string | undefined) =>
      (name !== undefined && isFileField(name)) || filename !== undefined,
  });
  // Parts sent as application/json arrive parsed (@fastify/multipart); others as text.
  const degParts: unknown[] = [];
  let otherTextParts = 0;
  let textBytes = 0;
  try {
    for await (const part of parts) {
      if (part.type === "file") {
        if (!isFileField(part.fieldname)) {
          part.file.resume();
          throw invalid(["body", part.fieldname], "unexpected file field", "extra_forbidden");
        }
        if (out.files[part.fieldname]) {
          part.file.resume();
          throw invalid(["body", part.fieldname], "field given more than once", "value_error");
        }
        const nameProblem = part.filename === undefined ? null : textProblem(part.filename);
        if (nameProblem) {
          part.file.resume();
          throw invalid(["body", part.fieldname], `the file name ${nameProblem}`, "string_invalid_text");
        }
        const path = dir === null ? "" : join(dir, `${part.fieldname}.h5ad`);
        await pipeline(
          part.file,
          fingerprint.file(part.fieldname),
          dir === null ? discard() : createWriteStream(path),
        );
        if (part.file.truncated)
          throw tooLarge(`The file ${part.fieldname} exceeds ${limits.maxFileBytes} bytes.`);
        out.files[part.fieldname] = {
          path,
          filename: part.filename ?? part.fieldname,
          bytes: part.file.bytesRead,
        };
      } else {
        if (part.valueTruncated)
          throw tooLarge(`The field ${part.fieldname} exceeds ${limits.maxFieldBytes} bytes.`);
        // Before anything serializes it: a part sent as application/json may be nested too deep.
        assertCleanFormText(part.value, ["body", part.fieldname]);
        textBytes += rawBytes(part.value);
        if (textBytes > limits.maxTextBytes)
          throw tooLarge(`The text fields of the form exceed ${limits.maxTextBytes} bytes together.`);
        const value = typeof part.value === "string" ? part.value : JSON.stringify(part.value);
        if (part.fieldname === "degs") {
          fingerprint.field(part.fieldname, value);
          degParts.push(part.value);
          continue;
        }
        if (++otherTextParts > TEXT_FIELDS.size) throw tooLarge("The form has too many fields.");
        if (!TEXT_FIELDS.has(part.fieldname)) continue; // unknown text fields are ignored, like any form handler
        if (part.fieldname in out.fields)
          throw invalid(["body", part.fieldname], "field given more than once", "value_error");
        assertNumberSpelling(PredictionForm, { [part.fieldname]: part.value }, "body");
        fingerprint.field(part.fieldname, value);
        out.fields[part.fieldname] = value;
      }
    }
  } catch (err) {
    throw mapMultipartError(err, limits);
  }
  const [single] = degParts;
  if (degParts.length === 1) out.fields.degs = typeof single === "string" ? single : JSON.stringify(single);
  else if (degParts.length > 1) out.fields.degs = JSON.stringify(degParts);
  fingerprint.finish();
  return out;
}

/**
 * The Idempotency-Key side of a multipart submission: the fingerprint is taken while the upload
 * is received; a retry answered from the stored response reads the body only to hash it.
 */
export function idempotentUpload(
  request: FastifyRequest,
  key: string | undefined,
  limits: UploadLimits,
): { fingerprint: MultipartFingerprint; idempotency: IdempotentRequest | null } {
  const fingerprint = new MultipartFingerprint(request.method, pathOf(request.url));
  if (key === undefined) return { fingerprint, idempotency: null };
  return {
    fingerprint,
    idempotency: {
      key,
      fingerprint: async () => {
        if (!fingerprint.complete) await receiveUpload(request, null, limits, fingerprint);
        return fingerprint.finish();
      },
    },
  };
}

/**
 * Bytes a text part took: a string's UTF-8 length; a part sent as application/json arrives
 * parsed, and its serialization is a close measure of what was sent.
 */
function rawBytes(value: unknown): number {
  return Buffer.byteLength(typeof value === "string" ? value : (JSON.stringify(value) ?? ""), "utf8");
}

function mapMultipartError(err: unknown, limits: UploadLimits): unknown {
  if (err instanceof RequestValidationError) return err;
  const code = (err as { code?: unknown }).code;
  if (typeof code === "string" && code.toLowerCase() === "payload_too_large") return err;
  switch (code) {
    case "FST_REQ_FILE_TOO_LARGE":
      return tooLarge(`An uploaded file exceeds ${limits.maxFileBytes} bytes.`);
    case "FST_FILES_LIMIT":
      return tooLarge(`At most ${FILE_FIELDS.length} files may be uploaded.`);
    case "FST_FIELDS_LIMIT":
    case "FST_PARTS_LIMIT":
      return tooLarge("The form has too many fields.");
    case "FST_INVALID_MULTIPART_CONTENT_TYPE":
      return invalid(["body"], "the request body must be multipart/form-data", "content_type");
    case "FST_INVALID_JSON_FIELD_ERROR":
      return invalid(["body"], "a part sent as application/json is not valid JSON", "json_invalid");
    case "FST_PROTO_VIOLATION":
      return invalid(["body"], "invalid field name", "value_error");
    default:
      // busboy parse errors (truncated or malformed body) and client aborts.
      return invalid(["body"], "malformed multipart body", "value_error");
  }
}

/** Aborted when the client disconnects before the response is written. */
export function clientGoneSignal(reply: FastifyReply): AbortSignal {
  const gone = new AbortController();
  reply.raw.once("close", () => {
    if (!reply.raw.writableFinished) gone.abort();
  });
  return gone.signal;
}
