/**
 * The form as it was sent, kept in this tab's memory by prediction id, so that a failed
 * prediction's "fix and resubmit" opens the form filled in (files included). Nothing is stored
 * beyond the tab.
 */
import type { FormState } from "./form-state.ts";

const sent = new Map<string, FormState>();

export const lastSubmission = {
  remember(predictionId: string, state: FormState): void {
    sent.set(predictionId, state);
  },
  of(predictionId: string): FormState | undefined {
    return sent.get(predictionId);
  },
};
