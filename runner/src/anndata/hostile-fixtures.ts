/**
 * Hostile .h5ad fixtures for tests (engineering.md C.2, R9). Most are made with h5wasm at test
 * time; four kinds cannot be, because h5wasm's writer has no API for them: a virtual dataset,
 * raw data stored in an external file (EFL), a dataset with an unregistered filter (blosc,
 * id 32001), and fixed-length strings with invalid UTF-8. Those four were written once with
 * h5py 3.7 (Debian python3-h5py) and are embedded here gzip+base64 (~1 KB each); the script:
 *
 *   skeleton(f): root/obs/var with encoding attributes and a 2-entry `_index`
 *   vds:     h5py.VirtualLayout (2,2) f8 <- VirtualSource("/etc/secret_counts.h5", "X")
 *   efl:     f.create_dataset("X", (2,2), "f8", external=[("/etc/hostname", 0, UNLIMITED)])
 *   blosc:   dcpl.set_filter(32001, FLAG_OPTIONAL, (0,0,0,0,5,1,0)); X (2,2) f8 chunked
 *   nonutf8: obs/_index as S6 UTF-8 holding b"\xff\xfeab", b"c\xc3\x28d"; X = ones((2,2), f4)
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import h5wasm from "h5wasm/node";
import type { File as H5File, Group } from "h5wasm/node";
import { writeTestH5ad, type TestH5ad } from "./write-test-h5ad.ts";

const EMBEDDED = {
  vds: [
    "H4sICKf2AWsCA3Zkcy5oNWFkAO2ZwWsTQRTG3+xuNpvNJiQhhaqXFPSg0HSrLRUPVmypgRZSegqIhDTZaqjdlU0aErz2oF5zUcRb",
    "QepJpLeCd/8AQagnPenNi4igdWZ3Jp1uklokQlvmB5vszM6+efO9b3Zp+jg3OxfTz+qypgFjj5LN+G2T9l/43N7M52aXpMzL72iV",
    "P3YSCYBn6OBwXQLcQ65sKAevGNMAMsQhDfiCZZedStW+O1pvPbDgDEKA7/AOP54GEv4M+6cepN+4SUIkAyEallurOnbfKCEuikST",
    "aZvbT3qvqklyf0dX9aVrVW9lv+cKW9VVklLYT6lYtStWs28iKpeIF0YHjvbQj838TG6ezAK0CFl6TY2TSLKzXFMRGz819TVPxksp",
    "vnyMf1A7wqWnDERtcm5cJ1FiOEoaoOzcX1+zRx23YrmQzEzTgTdgIgoTe1gTCSEEAV7VPhS8WiFAKO2PYXVk33IaUK+MQrhwsqRh",
    "iRQEw/7YDAv8Gk4c86mfy6ToQylSlGDR1SRZuerb8A3V5r22UDzE6ttKP6tvqYOxutZl9YfqRv6QVfhmb5Tcb3SzLa7unPtvVo8M",
    "xOr6QKw+9+haaxBWz5wCqxeXLu4e0eovQv4tn3abK558I0GrYznPYwmlbjl7ydurXKE4lveSxiWoYZ8qMjNAjHw8Pb5yTo78vs3O",
    "b83kFzzbJPbfrcDet5iSbVdK9VJHEyovmNnxrMleXmyXQ+dhAPRR4m8vDAmy4pbWrECc/XiXvXgsDrsfv+fG+Xy4fpPbc13zR/4y",
    "v95n/mhgHvzo8eY3uvvNTq0xd5igTMAxq14eq1ll16oXy866Xa9l701CwROM3+wS1x4OtFk8crTbzxtc92IcBAKBQCAQCAQCgUAg",
    "ODIK90d0ONBWA20j0I4K+QQCgUAgOJH0/1+aapAfnlHhI/1p/VdrS/oDBmui+i4gAAA=",
  ].join(""),
  efl: [
    "H4sICKf2AWsCA2VmbC5oNWFkAOv0cHHj5ZLiYubgYICB/1CQpgDhG0DFtwcsU/L3cAliUlj+jTEbGe8WEGBgmMmIqpyLiQEoApJp",
    "YUGV4bFnYGBm4GMQYQBKpOYl56dk5qXrllQWpDJIMjIyAHWAMcQ8DgYmIMkOYYIBSJzHCWSEIJoRZalFxZn5eThNYUUyhQnqmMkG",
    "W7qw+6oC5PaTUF+9xPDVPmaIiDHMVxYgJ7FDnBSfmZeSWoHTIWxIDgEbw8WABCaL/lji7+zhDbLFAhoJelA5Nj6QScz5ScVsjDD1",
    "q64zTwOpZxJCjj4YICO0OZGcx0KV0AaxeexApvACTRFhYEjOzynNzdPNL0pJLWIQVLCHKnRgMOFmMPkPDBMmRkZGBjSwqvhGBDiu",
    "GBkYGUUgamDxCKOZRRgYsbmIFRhxzEwcwCBiYWSQgKhVgBm8gWHIAW+hX0mgSBcVAkUKeqSzCYJ8zgZJhpugYXOVwyceT1LfwoIr",
    "qa9ko05S58BI6tVsLf54fAFJ7GWJRR+hmS0ge7c0zZI6J1WSOhdVkrpbh1UlNZK6wjBI6vFBmreJTOpzWSFaHt2uSIMHnwowyJgw",
    "gw9bcGKLHnBwcrFrMIBjiREUzApI6RkJwJwECXoYDx70JQMTfKylyUdwybk7+/uAk40Aom5lgNW3QJCYl5eSWJIIDyNo8DIY6Bnq",
    "GcAqL1guZ4AXBgzQogSSvYAAZEhaUWJuKpo5CPOMwObBzIHpB9ZzhsjuQRI3QI4BdPs5CdjPhcN+bjR7gEUP2H4eTHED5HA8wMcw",
    "CkbBKBgFo2AUjIJRMApGwSgYBaNgFAxawILUiWZH47Oh8XnQ+NyjwTcKRsEoGAWjYBQMSeDh6hgAoqGzRPDxfwUFVHX6qSXJ+hn5",
    "xSV5kDF03HNwbDzgOZKIO9Ah+b+VK5kAFm1hrWYgAAA=",
  ].join(""),
  blosc: [
    "H4sICKf2AWsCA2Jsb3NjLmg1YWQA7ZlNaBNBFMffzCabzWYbkpCCnxBBBQ8NWy1UPJhiSw20EOmpt5A22xJiN5LUkiDeelCvOQl6",
    "K0g9ifRWEK+ePAlCBUFPetKLiCB1Zmcmne4mUSQtVeYHm9352P97896bXZLcz09ND5knTM0wQLDLyWZY2+b95z62Nwr5qTmcefIN",
    "VeVjO5EAeIj2TzcxkB46sh7aP2LlADSIQxrIgOMu1soVd3lktXXLgeMIAbnDO5ieAZh8RtilB+23rlGJpE9izak3KjW3p0pYUsHc",
    "mba99aD7qprU91d8VZ8Cq3qhsZ5LYlWXqUsR5lKx4padZk9HdMkRT8YEifbw943CZH6GWgGehCwf0+NUSastNHQk5o+Pfy7Q+Tgl",
    "p0/wF9GOSu6FBhJtem1dpSpDRCUNsFi7eXvFHanVy04dkpkcnzgBYzEY2yUxwQgh8PG08XbeyxUChNJsjsijOGtpQN08CpPEadgg",
    "IQohOMbmZoTwM/jnmEn9WKBJH07RpPiTrifpynVWhs95bN4Ys8U+pb4V6lXqm/pgSt0IlPodfb3QZxWs2NdK9a98s92obp88sFKP",
    "DqTUzYGU+vS9K61BlHrmPyj14tyFnT8s9cdhdsuHneaSF74z/lIn4TxLQoiD4ewW3m7p8sIbi50HRETuUuORgMvhTjpIQk6TRGCs",
    "IYwNJPJAByd4bqB6qOF89PrUe3F9fbIw6/mZ2HMLxPuWUHLdcmm11IkJDy/Y2dGsLV5eYpdD52EA/FHCtheBiizVSyuOT2dP76Kn",
    "J3TE/eQ9Nyr7I/Xb0p4L2I/+xr7Zw37MZ4c8ejz7VrDflmP6Mg4KhUKhUCgUCoVCoVAcWULSl+iIr6372pavHeuofMn1PysUCoVC",
    "oThK9P4vTbfovwFo/h3/af1naxP/AkSIWj4uIAAA",
  ].join(""),
  nonutf8: [
    "H4sICKf2AWsCA25vbnV0ZjguaDVhZADr9HBx4+WS4mLm4GCAgf9QoKcA4RtAxVUfT17i7+ESxKSw/BtjNjLeLSDAwDCTEVU5FxMD",
    "UAQk08KCKsNjz8DAzMDHIMIAlEjNS85PycxL1y2pLEhlkGRkZADqAGOIeRwMTECSHcIEA5A4jxPICEE0I8pSi4oz8/NwmsKKZAoT",
    "1DGTDbZ0YfdVBcjtJ6G+eonhq33MEBFjmK8sQE5ihzgpPjMvJbUCp0PYkBwCNoaLAQlMFv2xxN/ZwxtkCwM0EvSgcmx8IJOY85OK",
    "2Rhh6s3NX/mD1DMJIUcfDJAR2pxIzmOhSmiD2Dx2IFN4gaaIMDAk5+eU5ubp5helpBYxCCrYQxU6MJhwM5j8B4YJEyMjIwMaWFV8",
    "IwIcV4wMjIwqQDVARbB4xEUzizAwCirIM0DSoAKDOAeDeD3IRcCIZObiAAYZCyOPBEStAMyiBQyDHqw5ElMGinRRIZDX0COdTRAU",
    "F2yQZHiHDaLlQrf9CzxJfQsLrqS+ko06SZ0DI6lXs7X44/EFJLGXJRZ9hGa2gOzd0jRL6pxUSepcVEnqbh1WlfCkLgJRgy1pY3MR",
    "OGkzQZK2AjRpK8AM3sAw5EB8kOZtIpP6XFaIlke3K9LAwaeIntTxBCcHA6OwACTFIpcODNAg5IG5Zw/DkAa/ZWaugbHdnf19GJGK",
    "Plg6ZIfSiXl5KYklifAwggYvg4GeoZ4BrPKC5XIGeGEALW2h2QsIQIakFSXmpqKZgzDPCGwezByYfmA9Z4jsHiRxA6Q8h2E/JwH7",
    "uXDYz41mD7DoMUSOeyRxA+QwPcDHMApGwSgYBaNgFIyCUTAKRsEoGAWjYBQMWvD/X2ISA0PyYY0UEK/BHhmzwfq70E42DxqfezT4",
    "RsEoGAWjYBSMgiEJcM+lsfGAZgMYIzZBh/5j75qGAwAMYJofLiAAAA==",
  ].join(""),
};

/** A small valid merged-shape AnnData spec (2 arms × 2 samples × 3 cells, 4 genes). */
export function validSpec(nObs = 12): TestH5ad {
  const X = Array.from({ length: nObs }, (_, i) => [1 + (i % 3), 0, 2, i % 2]);
  return {
    X,
    obs: {
      condition: Array.from({ length: nObs }, (_, i) => (i < nObs / 2 ? "ctrl" : "stim")),
      sample: Array.from({ length: nObs }, (_, i) => `s${Math.floor((i * 4) / nObs)}`),
    },
    varNames: ["ISG15", "MX1", "IFIT1", "STAT1"],
  };
}

/** Names of the generated hostile fixtures and the code each must get. */
export const HOSTILE_EXPECTED = {
  notHdf5: "invalid_h5ad",
  truncated: "invalid_h5ad",
  externalLinkInObs: "invalid_h5ad",
  softLinkOutside: "invalid_h5ad",
  virtualDataset: "invalid_h5ad",
  externalRawData: "invalid_h5ad",
  unknownFilter: "invalid_h5ad",
  nonUtf8: "invalid_h5ad",
  declaredSparse2e31: "invalid_h5ad",
  declaredDense2e31: "invalid_h5ad",
  declaredDenseGzipOverLimit: "invalid_h5ad",
  nObs1001: "too_many_observations",
  xOfStrings: "invalid_h5ad",
  obsColumnMissing: "invalid_h5ad",
  obsGroupMissing: "invalid_h5ad",
  manyAttributes: "invalid_h5ad",
  manyObjects: "invalid_h5ad",
  hardLinkCycle: "invalid_h5ad",
  deepNesting: "invalid_h5ad",
} as const;

export type HostileName = keyof typeof HOSTILE_EXPECTED;

function edit(path: string, fn: (f: H5File) => void): void {
  const f = new h5wasm.File(path, "a");
  try {
    fn(f);
  } finally {
    f.close();
  }
}

/**
 * Writes every hostile fixture into `dir` and returns their paths. `kangFile` is a real .h5ad
 * to truncate; `secretFile` is a host file the links point at (it must never be read).
 */
export async function writeHostileFixtures(
  dir: string,
  kangFile: string,
  secretFile: string,
): Promise<Record<HostileName, string>> {
  await h5wasm.ready;
  const p = (name: HostileName): string => join(dir, `${name}.h5ad`);
  writeFileSync(p("notHdf5"), "index,condition\ncell1,ctrl\n".repeat(200));
  const kang = readFileSync(kangFile);
  writeFileSync(p("truncated"), kang.subarray(0, Math.floor(kang.length / 2)));
  for (const [name, key] of [
    ["virtualDataset", "vds"],
    ["externalRawData", "efl"],
    ["unknownFilter", "blosc"],
    ["nonUtf8", "nonutf8"],
  ] as const) {
    writeFileSync(p(name), gunzipSync(Buffer.from(EMBEDDED[key], "base64")));
  }

  await writeTestH5ad(p("externalLinkInObs"), validSpec());
  edit(p("externalLinkInObs"), (f) =>
    (f.get("obs") as Group).create_external_link(secretFile, "/secret", "leak"),
  );

  await writeTestH5ad(p("softLinkOutside"), validSpec());
  edit(p("softLinkOutside"), (f) =>
    (f.get("obs") as Group).create_soft_link("/elsewhere/obs_index", "alias"),
  );

  await writeTestH5ad(p("declaredSparse2e31"), validSpec());
  edit(p("declaredSparse2e31"), (f) => {
    const x = f.get("X") as Group;
    x.delete_attribute("shape");
    x.create_attribute("shape", BigInt64Array.from([2n ** 31n, 2n ** 31n]));
  });

  for (const [name, shape, gzip] of [
    ["declaredDense2e31", [2 ** 31, 2 ** 31], false],
    ["declaredDenseGzipOverLimit", [1000, 100_000], true],
  ] as const) {
    const spec = validSpec();
    delete spec.X;
    await writeTestH5ad(p(name), spec);
    edit(p(name), (f) => {
      const d = f.create_dataset({
        name: "X",
        data: new Float64Array(1),
        shape: [1, 1],
        maxshape: [null, null],
        chunks: [1, 1000],
        ...(gzip ? { compression: "gzip" as const } : {}),
      });
      d.resize([...shape]);
    });
  }

  await writeTestH5ad(p("nObs1001"), validSpec(1001));
  await writeTestH5ad(p("xOfStrings"), { ...validSpec(), xStrings: true });
  await writeTestH5ad(p("obsColumnMissing"), { ...validSpec(), phantomObsColumns: ["cell_type"] });

  {
    // X and var but no obs group at all.
    const f = new h5wasm.File(p("obsGroupMissing"), "w");
    try {
      f.create_attribute("encoding-type", "anndata");
      f.create_dataset({ name: "X", data: new Float64Array(4), shape: [2, 2] });
      const v = f.create_group("var");
      v.create_attribute("_index", "_index");
      v.create_dataset({ name: "_index", data: ["A", "B"] });
    } finally {
      f.close();
    }
  }

  await writeTestH5ad(p("manyAttributes"), validSpec());
  edit(p("manyAttributes"), (f) => {
    const uns = f.create_group("uns");
    // 2,000 attributes (the walk accepts 256 per object); 10^5 would take h5wasm ~11 s to write.
    for (let i = 0; i < 2000; i++) uns.create_attribute(`a${i}`, i);
  });

  await writeTestH5ad(p("manyObjects"), validSpec());
  edit(p("manyObjects"), (f) => {
    const uns = f.create_group("uns");
    for (let i = 0; i < 4100; i++) uns.create_group(`g${i}`);
  });

  await writeTestH5ad(p("hardLinkCycle"), validSpec());
  edit(p("hardLinkCycle"), (f) => {
    const a = f.create_group("uns").create_group("a");
    a.create_hard_link("/uns", "loop");
  });

  await writeTestH5ad(p("deepNesting"), validSpec());
  edit(p("deepNesting"), (f) => {
    let g = f.create_group("uns");
    for (let i = 0; i < 40; i++) g = g.create_group(`d${i}`);
  });
  return Object.fromEntries(Object.keys(HOSTILE_EXPECTED).map((n) => [n, p(n as HostileName)])) as Record<
    HostileName,
    string
  >;
}
