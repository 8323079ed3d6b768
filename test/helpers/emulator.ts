import { afterEach } from "vitest";
import { type EmulatorOptions, type RunningEmulator, startEmulator } from "../../src/emulator/server.js";

/** A response read whole: status, headers, the text, and the JSON when the text is JSON. */
export interface ApiResponse {
  status: number;
  headers: Headers;
  text: string;
  body: unknown;
}

/** What a request sends besides method and path. */
export interface RequestOptions {
  /** Sent as JSON. */
  json?: unknown;
  /** Sent as is (takes precedence over json). */
  raw?: string;
  /** The bearer token; default the emulator's test token; null sends no Authorization header. */
  token?: string | null;
  headers?: Record<string, string>;
}

/** A running emulator plus a logged-in token and fetch shortcuts. */
export interface TestEmulator extends RunningEmulator {
  /** A token issued in-process (no request logged, no fault consumed). */
  token: string;
  /** Call the API: `path` is below the base URL (`/courses/1`) or a full URL. */
  api(method: string, path: string, options?: RequestOptions): Promise<ApiResponse>;
  /** Call a control route: `path` is below /__admin (`/state`). */
  admin(method: string, path: string, json?: unknown): Promise<ApiResponse>;
}

async function readResponse(response: Response): Promise<ApiResponse> {
  const text = await response.text();
  let body: unknown;
  try {
    body = text === "" ? undefined : JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: response.status, headers: response.headers, text, body };
}

/** Send one request with Node's fetch and read the whole response. */
export async function call(url: string, method: string, options: RequestOptions = {}): Promise<ApiResponse> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) headers.Authorization = `Bearer ${options.token}`;
  let body: string | undefined;
  if (options.raw !== undefined) body = options.raw;
  else if (options.json !== undefined) {
    body = JSON.stringify(options.json);
    headers["Content-Type"] ??= "application/json";
  }
  return readResponse(await fetch(url, { method, headers, body }));
}

/** Wrap a running emulator with a token and request shortcuts. */
export function withClient(
  emulator: RunningEmulator,
  email = "demo@example.com",
  password = "coursesync",
): TestEmulator {
  const token = emulator.state.login(email, password);
  if (token === undefined) throw new Error("the test emulator refused its own credentials");
  const origin = new URL(emulator.baseUrl).origin;
  return {
    ...emulator,
    token,
    api: (method: string, path: string, options: RequestOptions = {}) =>
      call(path.startsWith("http") ? path : `${emulator.baseUrl}${path}`, method, {
        ...options,
        token: options.token === undefined ? token : options.token,
      }),
    admin: (method: string, path: string, json?: unknown) =>
      call(`${origin}/__admin${path}`, method, json === undefined ? {} : { json }),
  };
}

/**
 * Register an afterEach that closes every emulator the returned function started in the test;
 * call it once per describe block (or file).
 */
export function useEmulators(): (options?: EmulatorOptions) => Promise<TestEmulator> {
  const running: RunningEmulator[] = [];
  afterEach(async () => {
    await Promise.all(running.splice(0).map((emulator) => emulator.close()));
  });
  return async (options = {}) => {
    const emulator = await startEmulator(options);
    running.push(emulator);
    return withClient(emulator, options.email, options.password);
  };
}

/** A clock for the emulator that stands still until the test moves it. */
export function manualClock(start = "2026-03-01T09:30:00.000Z"): {
  now: () => Date;
  advance(ms: number): void;
} {
  let ms = Date.parse(start);
  return {
    now: () => new Date(ms),
    advance(by: number) {
      ms += by;
    },
  };
}
