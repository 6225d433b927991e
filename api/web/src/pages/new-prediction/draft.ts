/**
 * The form's text kept in this tab's sessionStorage when the service refuses the key mid-form
 * (revoked or expired), so that signing in again brings it back. Files cannot be kept: a page
 * cannot store a chosen file, nor choose it again by itself; nor is a DE table read from a file.
 */
import { emptyDegs } from "./DegsField.tsx";
import type { FormState } from "./form-state.ts";

const KEY = "causeway.new-prediction-draft";

type Draft = Omit<FormState, "control" | "perturbed" | "merged">;

export const draft = {
  save(s: FormState): void {
    const { control: _c, perturbed: _p, merged: _m, ...text } = s;
    const kept: Draft = { ...text, degs: { ...text.degs, table: null, tableName: "", tableError: "" } };
    try {
      sessionStorage.setItem(KEY, JSON.stringify(kept));
    } catch {
      // Storage full or refused: the form is lost as before, and the sign-in page says nothing of it.
    }
  },
  has(): boolean {
    return sessionStorage.getItem(KEY) !== null;
  },
  /** The kept form (once: it is forgotten as it is taken), or null. */
  take(): FormState | null {
    const raw = sessionStorage.getItem(KEY);
    if (raw === null) return null;
    sessionStorage.removeItem(KEY);
    try {
      const d = JSON.parse(raw) as Draft;
      return { ...d, degs: { ...emptyDegs, ...d.degs }, control: null, perturbed: null, merged: null };
    } catch {
      return null;
    }
  },
};
