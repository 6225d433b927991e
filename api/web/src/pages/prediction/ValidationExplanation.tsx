/**
 * How the validated target explains the DEGs: from the graph's inputs when the account has the
 * result files (no further request), else from the API's derived routes.
 */
import type { CausalGraphInputs } from "@causeway/runner/graph/inputs";
import { client } from "../../client.ts";
import { LoadError } from "../../components/LoadError.tsx";
import { Pending } from "../../components/Pending.tsx";
import { useLoad, type Loaded } from "../../use-load.ts";
import { explanationFromInputs, explanationFromRoutes, INTERMEDIARY_TOP_DEGS } from "./explanation.ts";
import { ExplanationView } from "./ExplanationView.tsx";

export function ValidationExplanation({
  id,
  inputs,
}: {
  id: string;
  inputs: Loaded<CausalGraphInputs | null>;
}) {
  const withoutFiles = inputs.state === "ok" && inputs.value === null;
  const fromRoutes = useLoad(
    async () => {
      const paths = await client().getCausalPaths(id);
      const inter = await client().getIntermediaryProteins(id, { top_n_degs: INTERMEDIARY_TOP_DEGS });
      return explanationFromRoutes(paths, inter.proteins);
    },
    [id],
    withoutFiles,
  );
  if (inputs.state === "error") return <LoadError error={inputs.error} retry={inputs.retry} />;
  if (inputs.state === "ok" && inputs.value)
    return <ExplanationView explanation={explanationFromInputs(inputs.value)} />;
  if (withoutFiles && fromRoutes.state === "ok") return <ExplanationView explanation={fromRoutes.value} />;
  if (withoutFiles && fromRoutes.state === "error")
    return <LoadError error={fromRoutes.error} retry={fromRoutes.retry} />;
  return <Pending what="the impacted DEGs, paths and intermediary proteins" />;
}
