/** The download of a causal graph as a network file (the two export routes share it). */
import type { FastifyReply } from "fastify";
import { symbolOf } from "@causeway/contract";
import { isInvalidGraphInputs } from "../runner-pieces.ts";

/**
 * Sends the file `build` makes as an attachment named after the target (causal_graph_STAT1.cx2);
 * stored inputs that fail validation become `onInvalid()` (the PNG route's 422, or a 500 where the
 * job itself validated them).
 */
export function sendGraphExport(
  reply: FastifyReply,
  target: string | null,
  build: () => { body: string; contentType: string; extension: string },
  onInvalid: () => Error,
): FastifyReply {
  let file: ReturnType<typeof build>;
  try {
    file = build();
  } catch (err) {
    if (isInvalidGraphInputs(err)) throw onInvalid();
    throw err;
  }
  const name = `causal_graph_${symbolOf(target ?? "graph").replace(/[^A-Za-z0-9._-]/g, "_")}.${file.extension}`;
  return reply
    .type(file.contentType)
    .header("content-disposition", `attachment; filename="${name}"`)
    .send(file.body);
}
