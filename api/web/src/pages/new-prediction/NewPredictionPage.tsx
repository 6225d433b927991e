/**
 * /app/new, and /app/new?from={id} from a failed prediction: the form filled in with what was
 * sent (when this tab sent it) and with the fields the failure asked for.
 */
import { client } from "../../client.ts";
import { Pending } from "../../components/Pending.tsx";
import { useLoad } from "../../use-load.ts";
import { COLUMN_FIELDS } from "./cli-fields.ts";
import { emptyForm, fieldsAskedFor, type FormState } from "./form-state.ts";
import { lastSubmission } from "./last-submission.ts";
import { NewPrediction } from "./NewPrediction.tsx";

const COLUMN_NAMES = new Set<string>(COLUMN_FIELDS.map((f) => f.name));

async function refilled(id: string): Promise<FormState> {
  const p = await client().getPrediction(id, { max_rows: 1, max_source_influence_rows: 1, max_columns: 1 });
  const base: FormState = lastSubmission.of(id) ?? {
    ...emptyForm,
    jobType: p.job_type === "target_validation" ? "target_validation" : "target_id",
    target: p.target ?? "",
    label: p.label ?? "",
  };
  const asked = fieldsAskedFor(p.error_message ?? "");
  const columns = { ...base.columns };
  for (const [k, v] of Object.entries(asked)) if (COLUMN_NAMES.has(k)) columns[k as keyof typeof columns] = v;
  const species = asked.species === "mouse" || asked.species === "human" ? asked.species : base.species;
  return {
    ...base,
    columns,
    species,
    shape: Object.keys(columns).length > 0 && !lastSubmission.of(id) ? "merged" : base.shape,
  };
}

export function NewPredictionPage() {
  const from = new URLSearchParams(location.search).get("from");
  const initial = useLoad(() => refilled(from ?? ""), [from], from !== null);
  if (from === null) return <NewPrediction />;
  if (initial.state === "loading") return <Pending what="the failed prediction's fields" />;
  return <NewPrediction key={from} initial={initial.state === "ok" ? initial.value : undefined} />;
}
