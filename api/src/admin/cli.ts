/**
 * The admin command line: `npm run admin -- <command>`. Works in both modes: with DATABASE_URL
 * it talks to PostgreSQL; in embedded mode it connects to the running server's PGlite socket
 * (address in the data directory) or, when no server runs, opens the data directory itself.
 * Keys are printed once; only their SHA-256 is stored.
 */
import { Command, InvalidArgumentError } from "commander";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { loadConfig, ConfigError, type Config, type LoadConfigOptions } from "../config.ts";
import { resolveCallbackSecret } from "../context/callback-secret.ts";
import { openDatabase } from "../context/open-database.ts";
import {
  createAccount,
  createKey,
  getAccount,
  listAccounts,
  listKeys,
  revokeKey,
  setQuota,
  type Tier,
} from "../db/accounts.ts";
import { Database } from "../db/database.ts";
import { EMBEDDED_PGDATA, findRunningServer, listRunningServers } from "../db/embedded.ts";
import { START_WAIT_MS, waitForStartingServer } from "../db/embedded-starting.ts";
import { setTimeout as sleep } from "node:timers/promises";
import { migrate, pendingMigrations } from "../db/migrate.ts";
import { listModels, setDefaultModel } from "../db/models.ts";
import { ScoringVersion, UNNAMED_MANIFEST_SCORING } from "@causeway/contract";
import { runnerPieces } from "../runner-pieces.ts";
import { importAndRegisterModel } from "../services/models/models.ts";
import { DownloadTokens } from "../storage/download-tokens.ts";
import { openObjectStore } from "../context/open-object-store.ts";
import { rotateWebhookSecret, WebhookSecretBox } from "../webhooks/secrets.ts";

const out = (line: string) => process.stdout.write(line + "\n");
const err = (line: string) => process.stderr.write(line + "\n");

/**
 * Opens the database the server uses, whichever mode it is in, and says which on standard
 * error. In embedded mode it goes through the running server's socket; without a server it
 * opens the data directory itself, but never creates a new database there unless `--init`
 * asks for it: a mistyped CAUSEWAY_DATA_DIR would otherwise split the accounts silently into
 * a database no server reads. Pointed at an empty directory while one embedded server runs
 * elsewhere, it uses that server's database and says so.
 */
async function connect(config: Config, init: boolean): Promise<Database> {
  if (config.database.kind === "postgres") {
    const u = new URL(config.database.url);
    err(`admin: database PostgreSQL ${u.hostname}${u.port ? `:${u.port}` : ""}${u.pathname} (DATABASE_URL)`);
    return openDatabase(config);
  }
  // In the first seconds of `npm start` the server has not published its socket yet: wait for it.
  const running =
    (await findRunningServer(config.dataDir)) ??
    (await waitForStartingServer(config.dataDir, findRunningServer, {
      onWait: (s) =>
        err(`admin: a server is starting on ${config.dataDir} (pid ${s.pid}); waiting for its database`),
    }));
  if (running) {
    err(
      `admin: database embedded in ${config.dataDir}, through the running server (pid ${running.pid}, ${running.host}:${running.port})`,
    );
    const db = new Database({
      host: running.host,
      port: running.port,
      user: "postgres",
      // The socket's password, from the data directory's pglite.json (mode 0600).
      password: running.password ?? "",
      database: "postgres",
      max: 1,
    });
    // A server publishes its socket, then applies its migrations: wait for the tables.
    await waitForMigrations(db);
    return db;
  }
  const exists = existsSync(join(config.dataDir, EMBEDDED_PGDATA, "PG_VERSION"));
  if (!exists && !init) {
    // The usual cause is a data directory other than the server's: find the server that runs.
    const others = await listRunningServers();
    if (others.length === 1) {
      const [other] = others;
      err(
        `admin: no database in ${config.dataDir} (CAUSEWAY_DATA_DIR); using the running server's in ${other!.dataDir} (pid ${other!.pid})`,
      );
      // Its password is in its own data directory.
      const withPassword = await findRunningServer(other!.dataDir);
      return new Database({
        host: other!.host,
        port: other!.port,
        user: "postgres",
        password: withPassword?.password ?? "",
        database: "postgres",
        max: 1,
      });
    }
    if (others.length > 1)
      throw new AdminError(
        `no causeway database in ${config.dataDir} (CAUSEWAY_DATA_DIR), and several servers run: ` +
          others.map((o) => `${o.dataDir} (pid ${o.pid})`).join(", ") +
          ". Set CAUSEWAY_DATA_DIR to one of them, or pass --init to create a new, empty database.",
      );
    throw new AdminError(
      `no causeway database in ${config.dataDir} (CAUSEWAY_DATA_DIR) and no server running on it. ` +
        "Set CAUSEWAY_DATA_DIR to the server's data directory (or DATABASE_URL to its PostgreSQL), " +
        "or pass --init to create a new, empty database there.",
    );
  }
  err(
    `admin: database embedded in ${config.dataDir}, opened directly (no server running on it)${exists ? "" : "; created by --init"}`,
  );
  const db = await openDatabase(config);
  await migrate(db);
  return db;
}

/** Waits until a starting server has applied its migrations (bounded like the wait for its start). */
async function waitForMigrations(db: Database): Promise<void> {
  const deadline = Date.now() + START_WAIT_MS;
  let said = false;
  for (;;) {
    const pending = await pendingMigrations(db);
    if (pending === 0) return;
    if (Date.now() > deadline)
      throw new AdminError(
        `the server's database still lacks ${pending} migrations; is the server stuck starting?`,
      );
    if (!said) err("admin: waiting for the server to finish setting up its database");
    said = true;
    await sleep(200);
  }
}

/** A refusal the user can act on: printed as one line, exit status 1. */
class AdminError extends Error {}

async function withDb<T>(
  fn: (db: Database, config: Config) => Promise<T>,
  options: LoadConfigOptions = {},
): Promise<T> {
  const config = loadConfig(process.env, options);
  const db = await connect(config, program.opts<{ init?: boolean }>().init === true);
  try {
    return await fn(db, config);
  } finally {
    await db.close();
  }
}

const positiveInt = (v: string): number => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError("expected a non-negative integer");
  return n;
};
const tier = (v: string): Tier => {
  if (v !== "external" && v !== "internal") throw new InvalidArgumentError("expected external or internal");
  return v;
};
const uuid = (v: string): string => {
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(v))
    throw new InvalidArgumentError("expected a uuid");
  return v.toLowerCase();
};

const program = new Command("admin")
  .description("causeway administration")
  .option("--init", "embedded mode: create the database when the data directory has none")
  .showHelpAfterError();

const accounts = program.command("accounts").description("accounts and their first key");
accounts
  .command("create")
  .requiredOption("--name <name>", "account name")
  .requiredOption("--tier <tier>", "external or internal", tier)
  .option("--quota <n>", "lifetime billable predictions (default: CAUSEWAY_DEFAULT_QUOTA)", positiveInt)
  .option("--json", "print {account_id, api_key} as the last line")
  .action(async (o: { name: string; tier: Tier; quota?: number; json?: boolean }) => {
    await withDb(async (db) => {
      const { account, apiKey } = await createAccount(db, {
        name: o.name,
        tier: o.tier,
        quota: o.quota ?? null,
      });
      if (o.json) out(`{"account_id": ${JSON.stringify(account.id)}, "api_key": ${JSON.stringify(apiKey)}}`);
      else {
        out(`account ${account.id} (${account.tier}) created`);
        out(`API key (shown once): ${apiKey}`);
      }
    });
  });
accounts
  .command("list")
  .option("--json", "JSON output")
  .action(async (o: { json?: boolean }) => {
    await withDb(async (db, config) => {
      const rows = await listAccounts(db);
      const view = rows.map((a) => ({
        account_id: a.id,
        name: a.name,
        tier: a.tier,
        quota_total: a.quota_total ?? config.limits.defaultQuota,
        quota_consumed: a.quota_consumed,
        created_at: a.created_at.toISOString(),
      }));
      if (o.json) out(JSON.stringify(view));
      else
        for (const a of view)
          out(`${a.account_id}  ${a.tier.padEnd(8)}  ${a.quota_consumed}/${a.quota_total}  ${a.name}`);
    });
  });

const keys = program.command("keys").description("API keys");
keys
  .command("create")
  .requiredOption("--account <id>", "account id", uuid)
  .option("--json", "print {key_id, api_key} as the last line")
  .action(async (o: { account: string; json?: boolean }) => {
    await withDb(async (db) => {
      if (!(await getAccount(db, o.account))) throw new Error("no such account");
      const { apiKey, keyId } = await createKey(db, o.account);
      if (o.json) out(`{"key_id": ${JSON.stringify(keyId)}, "api_key": ${JSON.stringify(apiKey)}}`);
      else out(`key ${keyId} created; API key (shown once): ${apiKey}`);
    });
  });
keys
  .command("list")
  .requiredOption("--account <id>", "account id", uuid)
  .option("--json", "JSON output")
  .action(async (o: { account: string; json?: boolean }) => {
    await withDb(async (db) => {
      const rows = (await listKeys(db, o.account)).map((k) => ({
        key_id: k.id,
        prefix: k.display_prefix,
        created_at: k.created_at.toISOString(),
        revoked_at: k.revoked_at?.toISOString() ?? null,
      }));
      if (o.json) out(JSON.stringify(rows));
      else
        for (const k of rows)
          out(`${k.key_id}  ${k.prefix}…  ${k.revoked_at ? `revoked ${k.revoked_at}` : "active"}`);
    });
  });
keys
  .command("revoke")
  .requiredOption("--key <id>", "key id (from keys list)", uuid)
  .action(async (o: { key: string }) => {
    await withDb(async (db) => {
      if (!(await revokeKey(db, o.key))) throw new Error("no such active key");
      out(`key ${o.key} revoked`);
    });
  });

program
  .command("quota")
  .description("quota overrides")
  .command("set")
  .requiredOption("--account <id>", "account id", uuid)
  .requiredOption("--total <n|default>", "lifetime billable predictions, or 'default' to clear the override")
  .action(async (o: { account: string; total: string }) => {
    const total = o.total === "default" ? null : positiveInt(o.total);
    await withDb(async (db) => {
      if (!(await setQuota(db, o.account, total))) throw new Error("no such account");
      out(`quota of ${o.account} set to ${total ?? "the default"}`);
    });
  });

const models = program.command("models").description("model versions");

/** The scoring a stored manifest names (v1 when it names none: manifests from before v2). */
function scoringOf(manifest: unknown): string {
  const parsed = ScoringVersion.safeParse(
    (manifest as { scoring?: unknown } | null)?.scoring ?? UNNAMED_MANIFEST_SCORING,
  );
  return parsed.success ? parsed.data : "unknown";
}
models
  .command("import")
  .requiredOption("--network <path>", "network TSV (.tsv.gz)")
  .requiredOption("--hgnc <dir>", "directory of the HGNC tables")
  .requiredOption("--version <version>", "model version name")
  .option(
    "--scoring <scoring>",
    "the version's scoring: v1 to v4 (default: the version's name when it is one, else v1)",
  )
  .option(
    "--libraries <dir>",
    "gene-set libraries stored with a v3 or v4 version as evidence layers (ChEA3/KEA3 layout; pair files in a ppi*/ folder are v4's PPI layers)",
  )
  .option(
    "--ppi <file...>",
    "protein–protein interaction pair files (two tab-separated genes per line, e.g. HuRI) stored with a v4 version: it ranks their proteins too",
  )
  .option("--default", "make it the default version")
  .action(
    async (o: {
      network: string;
      hgnc: string;
      version: string;
      scoring?: string;
      default?: boolean;
      libraries?: string;
      ppi?: string[];
    }) => {
      const named = ScoringVersion.safeParse(o.version);
      const scoring = ScoringVersion.safeParse(
        o.scoring ?? (named.success ? named.data : UNNAMED_MANIFEST_SCORING),
      );
      if (!scoring.success) throw new Error(`--scoring must be one of ${ScoringVersion.options.join(", ")}`);
      await withDb(async (db, config) => {
        const store = await openObjectStore(config, new DownloadTokens(await resolveCallbackSecret(config)));
        const result = await importAndRegisterModel(
          { db, store, runner: runnerPieces },
          {
            networkPath: o.network,
            hgncDir: o.hgnc,
            version: o.version,
            scoring: scoring.data,
            makeDefault: o.default === true,
            librariesDir: o.libraries,
            ppiFiles: o.ppi,
          },
          err,
        );
        out(
          result === "exists"
            ? `model ${o.version} already exists (versions are immutable)`
            : `model ${o.version} imported`,
        );
      });
    },
  );
models
  .command("set-default")
  .description("make a registered version the default of new submissions")
  .argument("<version>", "model version name")
  .action(async (version: string) => {
    await withDb(async (db) => {
      if (!(await setDefaultModel(db, version))) throw new Error(`no model version ${version}`);
      out(`model ${version} is the default`);
    });
  });
models
  .command("list")
  .option("--json", "JSON output")
  .action(async (o: { json?: boolean }) => {
    await withDb(async (db) => {
      const rows = (await listModels(db)).map((m) => ({
        version: m.version,
        scoring: scoringOf(m.manifest),
        default: m.is_default,
        created_at: m.created_at.toISOString(),
      }));
      if (o.json) out(JSON.stringify(rows));
      else
        for (const m of rows)
          out(`${m.version}  scoring ${m.scoring}${m.default ? "  (default)" : ""}  ${m.created_at}`);
    });
  });

program
  .command("webhooks")
  .description("completion webhooks")
  .command("secret")
  .description("create or rotate the account's webhook signing secret (printed once)")
  .requiredOption("--account <id>", "account id", uuid)
  .action(async (o: { account: string }) => {
    await withDb(async (db, config) => {
      const box = new WebhookSecretBox(await resolveCallbackSecret(config));
      const secret = await rotateWebhookSecret(db, box, o.account);
      if (!secret) throw new Error("no such account");
      out(secret);
    });
  });

program
  .command("migrate")
  .description("apply pending database migrations")
  .action(async () => {
    // The chart runs this as a pre-install hook, before its callback Secret exists: not needed here.
    await withDb(
      async (db) => {
        const applied = await migrate(db, () => {});
        out(applied.length === 0 ? "database is up to date" : `applied: ${applied.join(", ")}`);
      },
      { forCallbacks: false },
    );
  });

try {
  await program.parseAsync(process.argv);
} catch (e) {
  err(e instanceof ConfigError ? e.message : `error: ${e instanceof Error ? e.message : String(e)}`);
  process.exitCode = 1;
}
