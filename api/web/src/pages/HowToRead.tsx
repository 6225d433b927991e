/** How to read the results: every column, field and parameter in plain words (field-docs.ts). */
import { useEffect } from "preact/hooks";
import {
  DATASET_SUMMARY_FIELDS,
  PARAMETERS,
  QUERY_PARAMS,
  STATUS_FIELDS,
  TARGET_COLUMNS,
  type FieldDoc,
} from "@causeway/api/schemas/field-docs.ts";
import { HOW_TO_READ_INTRO } from "@causeway/api/schemas/how-to-read.ts";
import { ARTIFACT_DESCRIPTIONS } from "@causeway/contract";

function Fields({ docs, prefix }: { docs: Record<string, FieldDoc>; prefix: string }) {
  return (
    <dl class="docs">
      {Object.entries(docs).map(([name, doc]) => (
        <div key={name} id={`${prefix}-${name}`} class="doc-item">
          <dt>
            <code>{name}</code>
          </dt>
          <dd>
            {doc.summary}
            {doc.detail && <span class="muted"> {doc.detail}</span>}
          </dd>
        </div>
      ))}
    </dl>
  );
}

export function HowToRead({ anchor }: { anchor?: string | undefined }) {
  useEffect(() => {
    if (anchor) document.getElementById(anchor)?.scrollIntoView();
  }, [anchor]);
  return (
    <section class="how-to-read">
      <h1>How to read the results</h1>
      {HOW_TO_READ_INTRO.map((s) => (
        <div key={s.id} id={s.id}>
          <h2>{s.title}</h2>
          {s.paragraphs.map((text, i) => (
            <p key={i}>{text}</p>
          ))}
        </div>
      ))}
      <h2 id="targets">The ranked target table</h2>
      <p>
        One row per candidate protein, best first. Columns present depend on the model version of the
        prediction.
      </p>
      <Fields docs={TARGET_COLUMNS} prefix="col" />
      <h2 id="files">The result files</h2>
      <p>
        What each download holds. A job with several result sets (one per perturbation level) prefixes them
        with the level, as <code>IFN-beta.target_scores.tsv</code>.
      </p>
      <dl class="docs">
        {Object.entries(ARTIFACT_DESCRIPTIONS).map(([name, what]) => (
          <div key={name} id={`file-${name}`} class="doc-item">
            <dt>
              <code>{name}</code>
            </dt>
            <dd>{what}</dd>
          </div>
        ))}
      </dl>
      <h2 id="status">The status record</h2>
      <Fields docs={STATUS_FIELDS} prefix="status" />
      <h3 id="dataset">Dataset summary</h3>
      <Fields docs={DATASET_SUMMARY_FIELDS} prefix="dataset" />
      <h2 id="parameters">Submission parameters</h2>
      <Fields docs={PARAMETERS} prefix="param" />
      <h2 id="query">Query parameters of the read routes</h2>
      <Fields docs={QUERY_PARAMS} prefix="query" />
    </section>
  );
}
