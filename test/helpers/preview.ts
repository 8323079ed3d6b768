import { request } from "node:http";
import { afterEach } from "vitest";
import { type PreviewOptions, type RunningPreview, startPreview } from "../../src/preview/server.js";

/** One answer of the preview, read whole. */
export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A request to the preview over real HTTP, with the Host header given (default: the one served). */
export function get(
  url: string,
  options: { method?: string; host?: string; path?: string } = {},
): Promise<Answer> {
  const target = new URL(options.path ?? "/", url);
  return new Promise((resolve, reject) => {
    const req = request(
      target,
      {
        agent: false,
        method: options.method ?? "GET",
        headers: options.host === undefined ? {} : { host: options.host },
      },
      (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => {
          body += chunk;
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on("error", reject);
    req.end();
  });
}

/**
 * Register an afterEach that closes every preview the returned function started in the test;
 * previews listen on port 0.
 */
export function usePreviews(): (
  options: Omit<PreviewOptions, "port"> & { port?: number },
) => Promise<RunningPreview> {
  const running: RunningPreview[] = [];
  afterEach(async () => {
    await Promise.all(running.splice(0).map((preview) => preview.close()));
  });
  return async (options) => {
    const preview = await startPreview({ port: 0, ...options });
    running.push(preview);
    return preview;
  };
}

/** The text an attribute holds, as the browser reads it (the five escapes of `esc` undone). */
export function unescapeAttribute(value: string): string {
  return value
    .replaceAll("&quot;", '"')
    .replaceAll("&#39;", "'")
    .replaceAll("&lt;", "<")
    .replaceAll("&gt;", ">")
    .replaceAll("&amp;", "&");
}

/** The document of the chapter frame on a chapter page. */
export function frameDocument(page: string): string | undefined {
  const srcdoc = /<iframe class="chapter"[^>]*\ssrcdoc="([^"]*)"/.exec(page)?.[1];
  return srcdoc === undefined ? undefined : unescapeAttribute(srcdoc);
}

/** One Server-Sent Event as the preview sends it. */
export interface StreamEvent {
  event: string;
  data: string;
}

/** A reader of `/events`: each event in order, waited for (never on a timer). */
export interface EventStream {
  /** The next event not taken yet. */
  next(): Promise<StreamEvent>;
  close(): void;
}

/** Open `/events` and resolve once the server said the stream is open. */
export function openEvents(url: string): Promise<EventStream> {
  return new Promise((resolve, reject) => {
    const events: StreamEvent[] = [];
    const waiting: Array<(event: StreamEvent) => void> = [];
    let buffer = "";
    const req = request(new URL("/events", url), { agent: false }, (res) => {
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        buffer += chunk;
        for (let end = buffer.indexOf("\n\n"); end >= 0; end = buffer.indexOf("\n\n")) {
          const frame = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          if (frame.includes(": connected")) resolve(stream);
          const event = /^event: (.*)$/m.exec(frame)?.[1];
          const data = /^data: (.*)$/m.exec(frame)?.[1];
          if (event === undefined || data === undefined) continue;
          const waiter = waiting.shift();
          if (waiter) waiter({ event, data });
          else events.push({ event, data });
        }
      });
    });
    req.on("error", reject);
    req.end();
    const stream: EventStream = {
      next: () => {
        const event = events.shift();
        return event ? Promise.resolve(event) : new Promise((take) => waiting.push(take));
      },
      close: () => req.destroy(),
    };
  });
}

/**
 * Take events until one names `path` and the page part at `page` then passes `check` (an
 * editor's save may come as several events): the part's HTML.
 */
export async function shownAfter(
  stream: EventStream,
  url: string,
  path: string,
  page: string,
  check: (html: string) => boolean,
): Promise<string> {
  for (;;) {
    const event = await stream.next();
    if (event.event !== "change" || (JSON.parse(event.data) as { path: string }).path !== path) continue;
    const part = await get(url, { path: `${page}?fragment=live` });
    if (check(part.body)) return part.body;
  }
}
