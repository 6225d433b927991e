import { describe, expect, it } from "vitest";
import { GeneListFormatError, parseGeneList } from "./gene-list.ts";

describe("parseGeneList", () => {
  it.each([
    ["a JSON array", '["STAT1", " IRF9 ", "STAT1"]', ["STAT1", "IRF9"]],
    ["one gene per line with a BOM and CRLF", "\uFEFFSTAT1\r\nIRF9\r\n\r\n", ["STAT1", "IRF9"]],
    ["R's writeLines(dQuote()) / write.table quoting", '"STAT1"\n"IRF9"\n', ["STAT1", "IRF9"]],
    ["commas, semicolons and tabs", "STAT1, IRF9;MX1\tISG15", ["STAT1", "IRF9", "MX1", "ISG15"]],
    ["R's print()", '[1] "STAT1" "IRF9"\n[3] "MX1"', ["STAT1", "IRF9", "MX1"]],
    ["Ensembl ids", "ENSG00000115415.20\nENSG00000213928", ["ENSG00000115415.20", "ENSG00000213928"]],
  ])("reads %s", (_, text, genes) => {
    expect(parseGeneList(text)).toEqual({ genes, signed: null, header: null });
  });

  it.each([
    ['"x"\n"STAT1"\n"IRF9"', '"x"'],
    ["gene\nSTAT1\nIRF9", "gene"],
    ["hgnc_symbol,STAT1,IRF9", "hgnc_symbol"],
  ])("leaves out a header word and says so: %j", (text) => {
    const list = parseGeneList(text);
    expect(list.genes).toEqual(["STAT1", "IRF9"]);
    expect(list.header?.toLowerCase()).toMatch(/^(x|gene|hgnc_symbol)$/);
  });

  it("keeps a one-word list whatever the word", () => {
    expect(parseGeneList("ID\n").genes).toEqual(["ID"]);
  });

  it("reads a signed list: every gene once, and each half", () => {
    const list = parseGeneList('{"up": ["ISG15", "MX1"], "down": ["CD14", "MX1"]}');
    expect(list.genes).toEqual(["ISG15", "MX1", "CD14"]);
    expect(list.signed).toEqual({ up: ["ISG15", "MX1"], down: ["CD14", "MX1"] });
  });

  it.each([['{"genes": ["STAT1"]}'], ["[1, 2, 3]"], ['{"up": "STAT1"}']])(
    "refuses JSON that is not a gene list: %s",
    (text) => {
      expect(() => parseGeneList(text)).toThrow(GeneListFormatError);
    },
  );
});
