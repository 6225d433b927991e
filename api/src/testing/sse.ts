/** A Server-Sent Events reader for tests: real HTTP, frames parsed as a browser's EventSource would. */
export interface SseFrame {
  id?: string;
  event?: string;
  data?: string;
  /** Comment lines (": heartbeat"), without the colon. */
  comments: string[];
  retry?: string;
}

export interface SseStream {
  status: number;
  headers: Headers;
  /** The next frame; null once the server closed the stream. */
  next(): Promise<SseFrame | null>;
  /** Frames until (and including) one that matches, or the end of the stream. */
  until(match: (f: SseFrame) => boolean): Promise<SseFrame[]>;
  close(): void;
}

function parseFrame(block: string): SseFrame {
  const frame: SseFrame = { comments: [] };
  for (const line of block.split("\n")) {
    if (line.startsWith(":")) frame.comments.push(line.slice(1).trim());
    else {
      const at = line.indexOf(":");
      const field = at === -1 ? line : line.slice(0, at);
      const value = at === -1 ? "" : line.slice(at + 1).replace(/^ /, "");
      if (field === "id" || field === "event" || field === "retry") frame[field] = value;
      else if (field === "data") frame.data = frame.data === undefined ? value : `${frame.data}\n${value}`;
    }
  }
  return frame;
}

export async function openSse(url: string, headers: Record<string, string>): Promise<SseStream> {
  const abort = new AbortController();
  const res = await fetch(url, {
    headers: { accept: "text/event-stream", ...headers },
    signal: abort.signal,
  });
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  let done = false;
  const next = async (): Promise<SseFrame | null> => {
    for (;;) {
      const end = buffer.indexOf("\n\n");
      if (end !== -1) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        return parseFrame(block);
      }
      if (done) return null;
      const chunk = await reader.read().catch(() => ({ done: true, value: undefined }));
      if (chunk.done) done = true;
      else buffer += decoder.decode(chunk.value, { stream: true });
    }
  };
  return {
    status: res.status,
    headers: res.headers,
    next,
    async until(match) {
      const frames: SseFrame[] = [];
      for (;;) {
        const f = await next();
        if (!f) return frames;
        frames.push(f);
        if (match(f)) return frames;
      }
    },
    close: () => abort.abort(),
  };
}
