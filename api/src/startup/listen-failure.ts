/**
 * A port the server cannot listen on is a set-up problem a person fixes (another server holds
 * it, or it needs privileges): say which port, which setting moves it, and exit, rather than
 * end with Node's stack trace.
 */
const REASONS: Record<string, string> = {
  EADDRINUSE: "is in use by another process",
  EACCES: "needs privileges this process does not have",
  EADDRNOTAVAIL: "names an address this machine does not have",
};

/** One line for a listen failure a person can act on; null for any other error. */
export function listenFailureMessage(
  err: unknown,
  what: string,
  where: { host: string; port: number },
  setting: string,
): string | null {
  const code = err instanceof Error && "code" in err && typeof err.code === "string" ? err.code : null;
  const reason = code === null ? undefined : REASONS[code];
  if (reason === undefined) return null;
  return `cannot listen: the ${what} ${where.host}:${where.port} ${reason}; stop that process or choose another with ${setting}`;
}
