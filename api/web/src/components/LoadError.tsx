/** What a read failed with, and a "Try again" beside it when trying again may help. */
export function LoadError({
  error,
  retry,
  alert = false,
}: {
  error: string;
  retry?: (() => void) | undefined;
  /** Said at once by screen readers (the page's own first read), not only found in reading. */
  alert?: boolean;
}) {
  return (
    <p class="error load-error" role={alert ? "alert" : undefined} data-testid="load-error">
      {error}{" "}
      {retry && (
        <button type="button" class="small-button" onClick={retry} data-testid="try-again">
          Try again
        </button>
      )}
    </p>
  );
}
