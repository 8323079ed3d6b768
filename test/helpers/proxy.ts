import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach } from "vitest";

/** A request as the proxy saw it, before it is forwarded. */
export interface ProxiedRequest {
  method: string;
  /** Path and query, e.g. `/api/v1/chapters?page=2`. */
  url: URL;
  body: string;
}

/** An answer the proxy sends instead of (or after rewriting) the upstream one. */
export interface ProxiedAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * What the proxy does with one request: `forward` it untouched, answer it itself, or forward it
 * and rewrite the upstream answer. A hostile or broken site, made from the emulator. A rule
 * and a rewrite may take their time (a promise): the request, or its answer, waits for them.
 */
export type ProxyRule = (request: ProxiedRequest) => ProxyDecision | Promise<ProxyDecision>;

/** A rule's verdict on one request. */
export type ProxyDecision =
  | { answer: ProxiedAnswer }
  | { rewrite: (upstream: ProxiedAnswer) => ProxiedAnswer | Promise<ProxiedAnswer> }
  | "forward";

/** A running proxy: its base URL (same path as the upstream's) and the rule it applies. */
export interface TestProxy {
  baseUrl: string;
  rule: ProxyRule;
}

/** JSON as a proxy answer. */
export function jsonAnswer(
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): ProxiedAnswer {
  return { status, headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) };
}

/** Hop-by-hop headers, and those fetch has already acted on (it decompresses). */
const SKIPPED_HEADERS = [
  "content-length",
  "transfer-encoding",
  "connection",
  "keep-alive",
  "host",
  "content-encoding",
];

function plainHeaders(headers: Headers | IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  const entries = headers instanceof Headers ? [...headers.entries()] : Object.entries(headers);
  for (const [key, value] of entries) {
    if (value === undefined || SKIPPED_HEADERS.includes(key)) continue;
    out[key] = Array.isArray(value) ? value.join(", ") : value;
  }
  return out;
}

/**
 * Register an afterEach that closes every proxy the returned function started; the function
 * starts a proxy on 127.0.0.1, port 0, in front of `upstream` (an API base URL).
 */
export function useProxies(): (upstream: string, rule?: ProxyRule) => Promise<TestProxy> {
  const running: Server[] = [];
  afterEach(async () => {
    await Promise.all(
      running.splice(0).map(
        (server) =>
          new Promise<void>((resolve) => {
            server.closeAllConnections();
            server.close(() => resolve());
          }),
      ),
    );
  });
  return async (upstream, rule = () => "forward") => {
    const target = new URL(upstream);
    const proxy: TestProxy = { baseUrl: "", rule };
    const server = createServer(async (incoming, response) => {
      const chunks: Buffer[] = [];
      for await (const chunk of incoming) chunks.push(chunk as Buffer);
      const request: ProxiedRequest = {
        method: incoming.method ?? "GET",
        url: new URL(incoming.url ?? "/", target.origin),
        body: Buffer.concat(chunks).toString("utf8"),
      };
      const decision = await proxy.rule(request);
      let answer: ProxiedAnswer;
      if (decision !== "forward" && "answer" in decision) answer = decision.answer;
      else {
        const upstreamResponse = await fetch(request.url, {
          method: request.method,
          headers: plainHeaders(incoming.headers),
          body: request.body === "" ? undefined : request.body,
        });
        const forwarded: ProxiedAnswer = {
          status: upstreamResponse.status,
          headers: plainHeaders(upstreamResponse.headers),
          body: await upstreamResponse.text(),
        };
        answer = decision === "forward" ? forwarded : await decision.rewrite(forwarded);
      }
      response.writeHead(answer.status, answer.headers);
      response.end(answer.body);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    running.push(server);
    const { port } = server.address() as AddressInfo;
    proxy.baseUrl = `http://127.0.0.1:${port}${target.pathname}`;
    return proxy;
  };
}
