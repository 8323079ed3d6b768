import { once } from "node:events";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach } from "vitest";

/** A web server that is not the API: every path answers `status` with an HTML page. */
export interface HtmlServer {
  /** A URL of the API's form on that server (`http://127.0.0.1:<port>/api/v1`). */
  url: string;
  /** Paths asked, in order, with their query. */
  asked: string[];
}

/**
 * Register an afterEach that closes the servers the returned function started; call it once
 * per file. The function starts a plain web server on port 0.
 */
export function useHtmlServers(): (status?: number) => Promise<HtmlServer> {
  const running: Server[] = [];
  afterEach(async () => {
    await Promise.all(
      running.splice(0).map((server) => {
        server.closeAllConnections();
        return new Promise((resolve) => server.close(resolve));
      }),
    );
  });
  return async (status = 404) => {
    const asked: string[] = [];
    const server = createServer((request, response) => {
      asked.push(request.url ?? "");
      response.writeHead(status, { "content-type": "text/html; charset=utf-8" });
      response.end(
        "<!doctype html><html><head><title>Welcome to nginx!</title></head><body>hi</body></html>",
      );
    });
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    running.push(server);
    const { port } = server.address() as AddressInfo;
    return { url: `http://127.0.0.1:${port}/api/v1`, asked };
  };
}

/** A URL of the API's form on a port nothing listens on: a server bound to port 0, then closed. */
export async function closedPortUrl(): Promise<string> {
  const server = createServer();
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return `http://127.0.0.1:${port}/api/v1`;
}
