/**
 * X-API-Key authentication for the data-plane routes. Missing, malformed, unknown and revoked
 * keys get the same 401 body and `X-Service-Error-Code: unauthorized`, so a caller learns
 * nothing about which keys exist. Only the key's SHA-256 is looked up.
 */
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { AppContext } from "../context.ts";
import { findAccountByKey, type Account } from "../db/accounts.ts";
import { Unauthorized } from "../errors.ts";

declare module "fastify" {
  interface FastifyRequest {
    /** The authenticated account (set by the auth hook on /v1 routes). */
    account: Account | null;
  }
}

// Anything longer cannot be one of our keys; it is refused without touching the database.
const MAX_KEY_LENGTH = 128;

/** Adds the auth hook to every route of `scope` (an encapsulated plugin). */
export function requireApiKey(scope: FastifyInstance, ctx: AppContext): void {
  scope.addHook("onRequest", async (request: FastifyRequest) => {
    const header = request.headers["x-api-key"];
    const key = typeof header === "string" ? header.trim() : "";
    if (key === "" || key.length > MAX_KEY_LENGTH) throw new Unauthorized();
    const account = await findAccountByKey(ctx.db, key);
    if (!account) throw new Unauthorized();
    request.account = account;
  });
}
