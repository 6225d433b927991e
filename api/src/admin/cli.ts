/**
 * The admin command line: `npm run admin -- <command>`. Works in both modes: with DATABASE_URL
 * it talks to PostgreSQL; in embedded mode it connects to the running server's PGlite socket
 * (address in the data directory) or, when no server runs, opens the data directory itself.
 * Keys are printed once; only their SHA-256 is stored.
 */
import { Command, InvalidArgumentError } from "commander";
import { loadConfig, ConfigError, type Config, type LoadConfigOptions } from "../config.ts";
import { openDatabase, resolveCallbackSecret } from "../plugins/db.ts";
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
import { findRunningServer } from "../db/embedded.ts";
import { migrate } from "../db/migrate.ts";
import { listModels } from "../db/models.ts";
import { runnerPieces } from "../runner-pieces.ts";
import { importAndRegisterModel } from "../services/models.ts";
import { DownloadTokens } from "../storage/download-tokens.ts";
import { openObjectStore } from "../plugins/storage.ts";

const out = (line: string) => process.stdout.write(line + "\n");
const err = (line: string) => process.stderr.write(line + "\n");

/** Opens the database the server uses, whichever mode it is in. */
async function connect(config: Config): Promise<Database> {
  if (config.database.kind === "embedded") {
    const running = await findRunningServer(config.dataDir);
    if (running) {
      return new Database({
        host: running.host,
        port: running.port,
        user: "postgres",
        database: "postgres",
        max: 1,
      });
    }
    const db = await openDatabase(config);
    await migrate(db);
    return db;
  }
  return openDatabase(config);
}

async function withDb<T>(
  fn: (db: Database, config: Config) => Promise<T>,
  options: LoadConfigOptions = {},
): Promise<T> {
  const config = loadConfig(process.env, options);
  const db = await connect(config);
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

const program = new Command("admin").description("causeway administration").showHelpAfterError();

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
models
  .command("import")
  .requiredOption("--network <path>", "network TSV (.tsv.gz)")
  .requiredOption("--hgnc <dir>", "directory of the HGNC tables")
  .requiredOption("--version <version>", "model version name")
  .option("--default", "make it the default version")
  .action(async (o: { network: string; hgnc: string; version: string; default?: boolean }) => {
    await withDb(async (db, config) => {
      const store = openObjectStore(config, new DownloadTokens(await resolveCallbackSecret(config)));
      const result = await importAndRegisterModel(
        { db, store, runner: runnerPieces },
        { networkPath: o.network, hgncDir: o.hgnc, version: o.version, makeDefault: o.default === true },
        err,
      );
      out(
        result === "exists"
          ? `model ${o.version} already exists (versions are immutable)`
          : `model ${o.version} imported`,
      );
    });
  });
models
  .command("list")
  .option("--json", "JSON output")
  .action(async (o: { json?: boolean }) => {
    await withDb(async (db) => {
      const rows = (await listModels(db)).map((m) => ({
        version: m.version,
        default: m.is_default,
        created_at: m.created_at.toISOString(),
      }));
      if (o.json) out(JSON.stringify(rows));
      else for (const m of rows) out(`${m.version}${m.default ? "  (default)" : ""}  ${m.created_at}`);
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
