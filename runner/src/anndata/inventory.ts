/**
 * The structural walk: every link of the file is classified without following it, before any
 * data is read. Files that point outside themselves (external links, soft links to paths that
 * are not hard-linked objects of the file, virtual datasets) or that use filters other than
 * gzip/shuffle/fletcher32 are rejected, and the tree's size and depth are bounded.
 */
import type { File as H5File, Metadata } from "h5wasm/node";
import type { h5Module } from "./h5-file.ts";
import { invalidH5ad } from "./errors.ts";
import type { TreeLimits } from "./limits.ts";

type H5Module = Awaited<ReturnType<typeof h5Module>>;

/** One hard-linked object of the file. */
export type H5Node =
  | { kind: "group"; path: string; attributes: string[]; children: string[] }
  | { kind: "dataset"; path: string; attributes: string[]; meta: Metadata };

/** All hard-linked objects by path, and soft links resolved to the paths they name. */
export interface H5Inventory {
  nodes: Map<string, H5Node>;
  /** The object a path names after resolving soft links, or undefined. */
  resolve(path: string): H5Node | undefined;
}

/** gzip, shuffle, fletcher32: the filters of every HDF5 build; anything else needs plugins. */
const ACCEPTED_FILTERS = new Set([1, 2, 3]);

const join = (parent: string, name: string): string => (parent === "/" ? `/${name}` : `${parent}/${name}`);

/** Resolves `.`/`..` and relative soft-link targets against the link's parent group. */
function normalizeTarget(parent: string, target: string): string {
  const parts = (target.startsWith("/") ? target : `${parent}/${target}`).split("/");
  const out: string[] = [];
  for (const p of parts) {
    if (p === "" || p === ".") continue;
    if (p === "..") out.pop();
    else out.push(p);
  }
  return `/${out.join("/")}`;
}

/** Walks the whole file; throws `invalid_h5ad` on anything hostile or beyond `limits`. */
export function takeInventory(module: H5Module, file: H5File, limits: TreeLimits): H5Inventory {
  const fid = file.file_id;
  const nodes = new Map<string, H5Node>();
  const softLinks = new Map<string, string>();
  const attributesOf = (path: string): string[] => {
    const names = module.get_attribute_names(fid, path);
    if (names.length > limits.maxAttributesPerObject) {
      throw invalidH5ad(
        `The object ${path} carries ${names.length} attributes (at most ${limits.maxAttributesPerObject} are accepted); this is not an AnnData file.`,
      );
    }
    return names;
  };
  const stack: { path: string; depth: number }[] = [{ path: "/", depth: 0 }];
  nodes.set("/", { kind: "group", path: "/", attributes: attributesOf("/"), children: [] });
  while (stack.length > 0) {
    const { path, depth } = stack.pop()!;
    const group = nodes.get(path);
    if (group?.kind !== "group") continue;
    const names = module.get_names(fid, path, false);
    if (nodes.size + softLinks.size + names.length > limits.maxObjects) {
      throw invalidH5ad(
        `The file holds more than ${limits.maxObjects} objects; this is not a plausible AnnData file.`,
      );
    }
    for (const name of names) {
      const child = join(path, name);
      if (nodes.size + softLinks.size >= limits.maxObjects) {
        throw invalidH5ad(
          `The file holds more than ${limits.maxObjects} objects; this is not a plausible AnnData file.`,
        );
      }
      // Link kinds are read with H5Lget_info (no traversal); get_type would follow the link.
      const external = module.get_external_link(fid, child);
      if (external.filename !== undefined) {
        throw invalidH5ad(
          `The file links ${child} to another file (HDF5 external link); uploads must be self-contained.`,
          `external link to ${external.filename}:${external.obj_path}`,
        );
      }
      const soft = module.get_symbolic_link(fid, child);
      if (soft !== null) {
        softLinks.set(child, normalizeTarget(path, soft));
        group.children.push(name);
        continue;
      }
      const type = module.get_type(fid, child);
      if (type === module.H5G_GROUP) {
        if (depth + 1 > limits.maxDepth) {
          throw invalidH5ad(
            `The file nests groups deeper than ${limits.maxDepth} levels; this is not an AnnData file.`,
          );
        }
        nodes.set(child, { kind: "group", path: child, attributes: attributesOf(child), children: [] });
        stack.push({ path: child, depth: depth + 1 });
      } else if (type === module.H5G_DATASET) {
        const meta = module.get_dataset_metadata(fid, child);
        if (meta.virtual_sources !== undefined) {
          throw invalidH5ad(
            `The dataset ${child} is an HDF5 virtual dataset that reads other files; uploads must be self-contained.`,
          );
        }
        const chunkBytes = (meta.chunks ?? []).reduce((a, b) => a * b, meta.size);
        if (meta.chunks && chunkBytes > limits.maxChunkBytes) {
          throw invalidH5ad(
            `The dataset ${child} uses chunks of ${chunkBytes} bytes; re-save the file with anndata's defaults.`,
          );
        }
        const filters = module.get_dataset_filters(fid, child);
        const unknown = filters.filter((f) => !ACCEPTED_FILTERS.has(f.id));
        if (unknown.length > 0) {
          throw invalidH5ad(
            `The dataset ${child} uses the compression filter ${unknown.map((f) => f.name || f.id).join(", ")}; re-save the file with gzip compression or none.`,
          );
        }
        nodes.set(child, { kind: "dataset", path: child, attributes: attributesOf(child), meta });
      } else if (type === module.H5G_TYPE) {
        // A committed datatype: harmless, never read.
      } else {
        throw invalidH5ad(`The file contains a link of an unsupported kind at ${child}.`, `H5G type ${type}`);
      }
      group.children.push(name);
    }
  }
  for (const [link, target] of softLinks) {
    if (!nodes.has(target)) {
      throw invalidH5ad(
        `The soft link ${link} points to ${target}, which is not an object of this file; uploads must be self-contained.`,
      );
    }
  }
  return {
    nodes,
    resolve(path: string): H5Node | undefined {
      const direct = nodes.get(path);
      if (direct) return direct;
      // A path may pass through a soft link at any level; soft-link targets are hard objects.
      const parts = path.split("/").filter((p) => p !== "");
      let current = "/";
      for (const part of parts) {
        const next = join(current, part);
        current = softLinks.get(next) ?? next;
      }
      return nodes.get(current);
    },
  };
}
