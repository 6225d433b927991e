/**
 * Causal-graph inputs for tests, the benchmark and sample images: the toy network of model.md
 * §17.2, an interferon-shaped STAT1 graph whose paths are enumerated with the rules of §10.3–10.5,
 * and a synthetic graph large enough to hit the node cap.
 */
import { proteinId, rnaId } from "@causeway/contract";
import type { CausalGraphInputs, EdgeSign } from "./inputs.ts";

const OPTIONS = { min_path_probability: 1e-4, min_path_fraction: 0.1, max_path_length: 6 };

/** §17.2, target A: D_t = (y, x, z) and the four kept paths, with made-up fold changes (z unmeasured). */
export function toyInputs(): CausalGraphInputs {
  const path = (
    mid: string,
    deg: string,
    signs: [EdgeSign, EdgeSign],
  ): CausalGraphInputs["paths"][number] => ({
    deg: rnaId(deg),
    nodes: [proteinId("A"), proteinId(mid), rnaId(deg)],
    score_path_given_target: 0.0625,
    edge_signs: signs,
    edge_types: ["signaling", "transcriptional"],
  });
  return {
    version: 1,
    target: proteinId("A"),
    model_version: "toy",
    options: OPTIONS,
    degs: [
      { id: rnaId("y"), score_deg_given_target: 0.125 },
      { id: rnaId("x"), score_deg_given_target: 0.0625 },
      { id: rnaId("z"), score_deg_given_target: 0.0625 },
    ],
    paths: [
      path("B", "y", [1, 1]),
      path("C", "y", [-1, -1]),
      path("B", "x", [1, 1]),
      path("C", "z", [-1, 1]),
    ],
    log2fc: { A: -0.6, B: 1.2, C: -0.9, x: 2.4, y: -1.7, z: null },
  };
}

type Edge = readonly [string, string, EdgeSign];

/** Signaling edges around STAT1 (signs as in the interferon response, simplified). */
const SIGNALING: readonly Edge[] = [
  ["STAT1", "IRF1", 1],
  ["STAT1", "STAT2", 1],
  ["STAT1", "IRF9", 1],
  ["STAT1", "PIAS1", 0],
  ["STAT2", "IRF9", 1],
  ["IRF9", "IRF7", 1],
  ["IRF1", "IRF8", 1],
  ["IRF1", "PRDM1", 1],
  ["PIAS1", "IRF1", -1],
];

/** Transcriptional edges to the DEGs. */
const TRANSCRIPTIONAL: readonly Edge[] = [
  ["STAT1", "GBP1", 1],
  ["STAT1", "IRF1", 1],
  ["STAT1", "SOCS1", 1],
  ["STAT1", "CXCL10", 1],
  ["STAT1", "MYC", -1],
  ["IRF1", "GBP1", 1],
  ["IRF1", "GBP5", 1],
  ["IRF1", "CXCL10", 1],
  ["IRF1", "TAP1", 1],
  ["IRF1", "PSMB9", 1],
  ["IRF1", "IDO1", 1],
  ["IRF1", "CCND1", -1],
  ["IRF9", "ISG15", 1],
  ["IRF9", "MX1", 1],
  ["IRF9", "IFIT1", 1],
  ["IRF9", "IFIT3", 1],
  ["IRF9", "OAS1", 1],
  ["IRF9", "IFI6", 1],
  ["STAT2", "ISG15", 1],
  ["STAT2", "MX1", 1],
  ["STAT2", "OAS2", 1],
  ["IRF7", "IFIT1", 1],
  ["IRF7", "RSAD2", 1],
  ["IRF7", "ISG15", 1],
  ["IRF8", "CIITA", 1],
  ["IRF8", "MYC", -1],
  ["PRDM1", "MYC", -1],
  ["PRDM1", "CIITA", -1],
  ["PRDM1", "SERPING1", 0],
  ["PIAS1", "SOCS1", 0],
];

/** Non-DEG targets per TF, so transition probabilities look like the default network's. */
const OTHER_TARGETS = 12;

const FOLD_CHANGES: Record<string, number | null> = {
  STAT1: 2.1,
  STAT2: 1.8,
  IRF1: 3.1,
  IRF9: 1.3,
  IRF7: 4.4,
  IRF8: 0.5,
  PRDM1: -0.4,
  PIAS1: null,
  GBP1: 5.2,
  GBP5: 4.8,
  SOCS1: 2.6,
  CXCL10: 6.3,
  MYC: -1.9,
  TAP1: 2.2,
  PSMB9: 2.5,
  IDO1: 3.7,
  CCND1: -1.3,
  ISG15: 5.9,
  MX1: 4.6,
  IFIT1: 5.5,
  IFIT3: 5.1,
  OAS1: 3.3,
  IFI6: 3.9,
  OAS2: 3.4,
  RSAD2: 5.6,
  CIITA: 1.6,
  SERPING1: 4.1,
};

/**
 * STAT1 → IRF1/IRF9/STAT2/… → interferon genes: 23 DEGs and their kept paths, enumerated with
 * the depth-first search of §10.4 (α = ρ = 0.5), `I(t,d)` approximated by the simple paths' sum.
 */
export function interferonInputs(): CausalGraphInputs {
  const out = new Map<string, { to: string; sign: EdgeSign; rna: boolean }[]>();
  for (const [s, t, sign] of SIGNALING) out.set(s, [...(out.get(s) ?? []), { to: t, sign, rna: false }]);
  for (const [s, t, sign] of TRANSCRIPTIONAL) out.set(s, [...(out.get(s) ?? []), { to: t, sign, rna: true }]);
  const probability = (from: string, rna: boolean): number => {
    const edges = out.get(from)!;
    const nP = edges.filter((e) => !e.rna).length;
    const nR = edges.filter((e) => e.rna).length + OTHER_TARGETS;
    return rna ? (nP > 0 ? 0.5 : 1) / nR : (nR > 0 ? 0.5 : 1) / nP;
  };

  interface Found {
    nodes: string[];
    signs: EdgeSign[];
    probability: number;
  }
  const found: Found[] = [];
  const search = (at: string, nodes: string[], signs: EdgeSign[], p: number): void => {
    for (const e of [...(out.get(at) ?? [])].sort((a, b) => (a.to < b.to ? -1 : 1))) {
      const q = p * probability(at, e.rna);
      if (q < OPTIONS.min_path_probability || nodes.length + 1 > 5) continue;
      if (e.rna) found.push({ nodes: [...nodes, rnaId(e.to)], signs: [...signs, e.sign], probability: q });
      else if (!nodes.includes(proteinId(e.to)))
        search(e.to, [...nodes, proteinId(e.to)], [...signs, e.sign], q);
    }
  };
  search("STAT1", [proteinId("STAT1")], [], 1);

  const scoreOf = (f: Found): number => 0.5 ** (f.nodes.length - 1) * f.probability;
  const influence = new Map<string, number>();
  for (const f of found) influence.set(f.nodes.at(-1)!, (influence.get(f.nodes.at(-1)!) ?? 0) + scoreOf(f));
  const kept = found.filter((f) => scoreOf(f) / influence.get(f.nodes.at(-1)!)! >= OPTIONS.min_path_fraction);
  const degs = [...influence.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  const order = new Map(degs.map(([id], i) => [id, i]));
  const path = (f: Found): string => f.nodes.join(">");
  kept.sort(
    (a, b) =>
      order.get(a.nodes.at(-1)!)! - order.get(b.nodes.at(-1)!)! ||
      scoreOf(b) - scoreOf(a) ||
      (path(a) < path(b) ? -1 : 1),
  );
  return {
    version: 1,
    target: proteinId("STAT1"),
    model_version: "v1",
    options: OPTIONS,
    degs: degs.map(([id, score]) => ({ id, score_deg_given_target: score })),
    paths: kept.map((f) => ({
      deg: f.nodes.at(-1)!,
      nodes: f.nodes,
      score_path_given_target: scoreOf(f),
      edge_signs: f.signs,
      edge_types: f.signs.map((_, k) => (k === f.signs.length - 1 ? "transcriptional" : "signaling")),
    })),
    log2fc: FOLD_CHANGES,
  };
}

/**
 * `nDegs` DEGs behind 2 layers of `relays` intermediaries each, one or two paths per DEG:
 * large enough to exceed the 250-node cap.
 */
export function largeInputs(nDegs: number, relays = 20): CausalGraphInputs {
  const pad = (i: number): string => String(i).padStart(3, "0");
  const degs = Array.from({ length: nDegs }, (_, i) => ({
    id: rnaId(`D${pad(i)}`),
    score_deg_given_target: 0.01 / (1 + i),
  }));
  const paths: CausalGraphInputs["paths"] = [];
  const log2fc: Record<string, number | null> = { T: 1 };
  for (let r = 0; r < relays; r++) {
    log2fc[`P${pad(r)}`] = (r % 5) - 2;
    log2fc[`Q${pad(r)}`] = null;
  }
  degs.forEach((d, i) => {
    const [ra, rb] = [i % relays, (i * 7) % relays];
    const a = proteinId(`P${pad(ra)}`);
    const b = proteinId(`Q${pad(rb)}`);
    log2fc[`D${pad(i)}`] = ((i % 13) - 6) / 2;
    paths.push({
      deg: d.id,
      nodes: [proteinId("T"), a, b, d.id],
      score_path_given_target: d.score_deg_given_target * 0.6,
      edge_signs: [1, (ra + rb) % 3 === 0 ? -1 : 1, 1],
      edge_types: ["signaling", "signaling", "transcriptional"],
    });
    if (i % 2 === 0) {
      paths.push({
        deg: d.id,
        nodes: [proteinId("T"), a, d.id],
        score_path_given_target: d.score_deg_given_target * 0.3,
        edge_signs: [1, 0],
        edge_types: ["signaling", "transcriptional"],
      });
    }
  });
  return { version: 1, target: proteinId("T"), model_version: "v1", options: OPTIONS, degs, paths, log2fc };
}

/**
 * Layout corner cases: a backward edge (IKBKB→TNFAIP3, TNFAIP3 being closer to the target), a same-layer edge
 * (TNFAIP3→NFKBIA), an unknown sign, a long label, and an unmeasured gene.
 */
export function edgeCaseInputs(): CausalGraphInputs {
  const path = (nodes: string[], signs: EdgeSign[], score: number): CausalGraphInputs["paths"][number] => ({
    deg: nodes[nodes.length - 1]!,
    nodes,
    score_path_given_target: score,
    edge_signs: signs,
    edge_types: signs.map((_, k) => (k === signs.length - 1 ? "transcriptional" : "signaling")),
  });
  const [A, B, C, D, E, L] = ["MAP3K7", "NFKBIA", "RELA", "TNFAIP3", "IKBKB", "ARHGEF10L"].map(proteinId) as [
    string,
    string,
    string,
    string,
    string,
    string,
  ];
  return {
    version: 1,
    target: A,
    model_version: "v1",
    options: OPTIONS,
    degs: ["CXCL8", "SERPINB2", "IL6", "PTGS2"].map((s, i) => ({
      id: rnaId(s),
      score_deg_given_target: 0.02 / (i + 1),
    })),
    paths: [
      path([A, B, E, D, rnaId("CXCL8")], [-1, -1, 1, -1], 0.004),
      path([A, B, E, C, rnaId("PTGS2")], [-1, -1, 1, 1], 0.001),
      path([A, D, B, rnaId("SERPINB2")], [1, 0, 1], 0.002),
      path([A, L, rnaId("SERPINB2")], [1, 1], 0.003),
      path([A, C, rnaId("IL6")], [1, 1], 0.006),
    ],
    log2fc: { MAP3K7: 0.3, NFKBIA: 1.4, RELA: 0.2, TNFAIP3: 2.2, CXCL8: 4.5, SERPINB2: -2.1, IL6: 3.3 },
  };
}
