/**
 * The causal graph of a target: interactive from its inputs file, or the service's PNG when the
 * account receives no result files.
 */
import type { CausalGraphInputs } from "@causeway/runner/graph/inputs";
import { client } from "../../client.ts";
import { CausalGraph, type NetworkExport } from "../../components/CausalGraph.tsx";
import { LoadError } from "../../components/LoadError.tsx";
import { Pending } from "../../components/Pending.tsx";
import { useLoad, type Loaded } from "../../use-load.ts";

export function PredictionGraphPng({ id, target }: { id: string; target: string }) {
  const png = useLoad(async () => {
    const bytes = await client().getCausalGraph(id, { top_n_degs: 20 });
    return URL.createObjectURL(new Blob([bytes as BlobPart], { type: "image/png" }));
  }, [id]);
  if (png.state === "loading") return <Pending what="the causal graph" class="graph placeholder" />;
  if (png.state === "error") return <LoadError error={png.error} retry={png.retry} />;
  return (
    <img class="graph-png" data-testid="causal-graph" src={png.value} alt={`Causal graph of ${target}`} />
  );
}

/** The graph of loaded inputs; `fallback` when the job has no inputs file. */
export function GraphOf({
  inputs,
  title,
  fallback,
  networkExport,
}: {
  inputs: Loaded<CausalGraphInputs | null>;
  title: string;
  fallback: preact.ComponentChildren;
  networkExport?: NetworkExport;
}) {
  if (inputs.state === "loading") return <Pending what="the causal graph" class="graph placeholder" />;
  if (inputs.state === "error") return <LoadError error={inputs.error} retry={inputs.retry} />;
  return inputs.value ? (
    <CausalGraph inputs={inputs.value} title={title} networkExport={networkExport} />
  ) : (
    <>{fallback}</>
  );
}
