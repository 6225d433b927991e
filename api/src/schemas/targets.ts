/** Schemas of GET /v1/predictions/{id}/targets: pages of target_scores.tsv. */
import { z } from "zod";
import { QUERY_PARAMS, TARGET_COLUMNS, describe, described } from "./field-docs.ts";
import { Uuid } from "./common.ts";

export const TargetTier = z.enum(["measured", "not_measured", "not_expressed"]);
export type TargetTier = z.infer<typeof TargetTier>;
export const TargetDirection = z.enum(["activated", "inhibited", "undetermined"]);
export type TargetDirection = z.infer<typeof TargetDirection>;

/** Query strings carry booleans as text. */
const queryBoolean = z.enum(["true", "false"]).transform((v) => v === "true");

export const TargetsQuery = z.object(
  described(
    {
      offset: z.coerce.number().int().min(0).max(1_000_000).default(0),
      limit: z.coerce.number().int().min(1).max(500).default(50),
      sort: z
        .string()
        .regex(/^[A-Za-z0-9_.-]{1,64}$/)
        .default("rank"),
      order: z.enum(["asc", "desc"]).default("asc"),
      q: z.string().max(128).optional(),
      tier: TargetTier.optional(),
      direction: TargetDirection.optional(),
      fold_proxies: queryBoolean.default(false),
      result_set: z.string().max(256).optional(),
    },
    QUERY_PARAMS,
  ),
);
export type TargetsQuery = z.output<typeof TargetsQuery>;

export const TargetCell = z.union([z.string(), z.number(), z.boolean(), z.null()]);

const cellsDescription =
  "The row's cells by column name: numbers, booleans (true/false), text, or null for an empty (NA) cell. Columns: " +
  Object.entries(TARGET_COLUMNS)
    .filter(([name]) => name !== "tier" && name !== "direction")
    .map(([name, doc]) => `${name}: ${describe(doc)}`)
    .join(" | ");

export const TargetRow = z
  .object({
    cells: z.record(z.string(), TargetCell).meta({ description: cellsDescription }),
    tier: TargetTier.nullable()
      .optional()
      .meta({ description: describe(TARGET_COLUMNS.tier) }),
    direction: TargetDirection.nullable()
      .optional()
      .meta({ description: describe(TARGET_COLUMNS.direction) }),
    proxies: z.array(z.string()).optional().meta({
      description: "Ids of the single-edge proxies of this candidate (see proxy_of), in rank order.",
    }),
  })
  .meta({ id: "TargetRow" });
export type TargetRow = z.infer<typeof TargetRow>;

export const TargetsPage = z
  .object({
    prediction_id: Uuid.meta({ description: "The prediction paged." }),
    result_set: z
      .string()
      .meta({ description: "The result-set prefix paged (empty for a single result set)." }),
    columns: z.array(z.string()).meta({
      description: "The columns every row carries, in the file's order (external accounts: the public five).",
    }),
    total_rows: z.number().int().meta({ description: "Rows in the whole table (one per candidate)." }),
    matched_rows: z
      .number()
      .int()
      .meta({ description: "Rows left after q, tier, direction and fold_proxies." }),
    offset: z
      .number()
      .int()
      .meta({ description: describe(QUERY_PARAMS.offset) }),
    limit: z
      .number()
      .int()
      .meta({ description: describe(QUERY_PARAMS.limit) }),
    sort: z.string().meta({ description: describe(QUERY_PARAMS.sort) }),
    order: z.enum(["asc", "desc"]).meta({ description: describe(QUERY_PARAMS.order) }),
    rows: z.array(TargetRow).meta({ description: "The page's rows, sorted and filtered as asked." }),
    facets: z
      .object({
        tier: z.partialRecord(TargetTier, z.number().int()),
        direction: z.partialRecord(TargetDirection, z.number().int()),
      })
      .optional()
      .meta({
        description:
          "Rows of the whole table by tier and by direction, counting only values some row has (the filters worth offering). " +
          "Absent for external accounts, and on a first page answered before the whole table is read.",
      }),
    pinned: TargetRow.nullable().meta({
      description:
        "For target_validation: the validated target's own row, whatever the page or filter; else null.",
    }),
  })
  .meta({ id: "TargetsPage" });
export type TargetsPage = z.infer<typeof TargetsPage>;
