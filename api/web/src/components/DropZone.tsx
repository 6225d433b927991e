/** A file picker that also takes a file dropped on it. */
import { useState } from "preact/hooks";

export function DropZone(props: {
  name: string;
  label: string;
  hint: string;
  accept: string;
  file: File | null;
  /** Why the chosen file cannot be sent, said under it (checked in the page before upload). */
  problem?: string | null | undefined;
  onFile: (f: File | null) => void;
}) {
  const [over, setOver] = useState(false);
  const id = `file-${props.name}`;
  return (
    <div
      class={`drop${over ? " over" : ""}${props.file ? " has-file" : ""}`}
      data-testid={`drop-${props.name}`}
      onDragOver={(e) => {
        e.preventDefault();
        setOver(true);
      }}
      onDragLeave={() => setOver(false)}
      onDrop={(e) => {
        e.preventDefault();
        setOver(false);
        const f = e.dataTransfer?.files[0];
        if (f) props.onFile(f);
      }}
    >
      <label for={id} class="drop-label">
        <strong>{props.label}</strong>
        <span class="muted small">
          {props.file ? `${props.file.name} · ${(props.file.size / 1e6).toFixed(1)} MB` : props.hint}
        </span>
      </label>
      <input
        id={id}
        name={props.name}
        type="file"
        accept={props.accept}
        aria-invalid={props.problem ? "true" : "false"}
        aria-describedby={props.problem ? `${id}-problem` : undefined}
        onChange={(e) => props.onFile((e.target as HTMLInputElement).files?.[0] ?? null)}
      />
      {props.problem && (
        <p class="error small" id={`${id}-problem`} role="alert" data-testid={`problem-${props.name}`}>
          {props.problem}
        </p>
      )}
    </div>
  );
}
