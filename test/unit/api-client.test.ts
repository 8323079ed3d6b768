import nock from "nock";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { ApiClient, type ApiClientOptions } from "../../src/api/client.js";
import { ApiError, NetworkError, WriteOutcomeUnknownError } from "../../src/api/errors.js";
import { backoffCeiling } from "../../src/api/retry.js";
import type { WireRecord } from "../../src/api/wire.js";
import { UserError } from "../../src/errors.js";

const ORIGIN = "https://academy.test";
const BASE = `${ORIGIN}/school/api/v1`;
const API = "/school/api/v1";
const TOKEN = "tok-SECRET-1234";
const PASSWORD = "hunter2-Passw0rd";
const EMAIL = "owner@academy.test";

function deferred<T = void>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

async function settle(rounds = 10): Promise<void> {
  for (let i = 0; i < rounds; i++) await new Promise((r) => setImmediate(r));
}

/** A node error as the socket layer raises it (nock needs an Error object, not a plain one). */
function netError(code: string, message = code): Error {
  return Object.assign(new Error(message), { code });
}

/**
 * A site whose logins hand out t1, t2, ... and whose every token works for `usesEach` requests,
 * then is answered 401. `uses` counts each token's requests.
 */
function expiringTokens(usesEach: number) {
  let logins = 0;
  const uses = new Map<string, number>();
  const scope = nock(ORIGIN)
    .persist()
    .post("/school/api/login")
    .query(true)
    .reply(() => [200, { auth_token: `t${++logins}` }])
    .get(/\/school\/api\/v1\/courses\/\d+/)
    .reply(function () {
      const token = String(this.req.headers.authorization).replace("Bearer ", "");
      const used = (uses.get(token) ?? 0) + 1;
      uses.set(token, used);
      return used > usesEach ? [401, { error: "Token expired" }] : [200, { id: 1 }];
    });
  return { uses, scope };
}

const clients: ApiClient[] = [];

/** A client with injected sleep (recorded, instant), clock, random and log. */
function makeClient(overrides: Partial<ApiClientOptions> = {}) {
  const sleeps: number[] = [];
  const lines: string[] = [];
  let clock = 1_000_000;
  const client = new ApiClient({
    baseUrl: BASE,
    credentials: { token: TOKEN },
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    now: () => {
      clock += 5;
      return clock;
    },
    random: () => 0.5,
    log: (line) => lines.push(line),
    ...overrides,
  });
  clients.push(client);
  return { client, sleeps, lines };
}

beforeAll(() => {
  nock.disableNetConnect();
});

afterEach(() => {
  nock.cleanAll();
  for (const client of clients.splice(0)) client.close();
  vi.useRealTimers();
});

afterAll(() => {
  nock.enableNetConnect();
});

describe("records: the three response shapes", () => {
  it("get accepts a bare record and sends the Bearer token", async () => {
    const scope = nock(ORIGIN, { reqheaders: { authorization: `Bearer ${TOKEN}` } })
      .get(`${API}/courses/7`)
      .reply(200, { id: 7, title: "Intro", extra: { kept: true } });
    const { client } = makeClient();
    expect(await client.get("courses", 7)).toEqual({ id: 7, title: "Intro", extra: { kept: true } });
    scope.done();
  });

  it("get accepts a wrapped record, and 404 is undefined", async () => {
    const scope = nock(ORIGIN)
      .get(`${API}/chapters/3`)
      .reply(200, { chapter: { id: 3, title: "One" } })
      .get(`${API}/chapters/4`)
      .reply(404, { error: "Not found" });
    const { client } = makeClient();
    expect(await client.get("chapters", 3)).toEqual({ id: 3, title: "One" });
    expect(await client.get("chapters", 4)).toBeUndefined();
    scope.done();
  });

  it("create nests the body under the resource key and reads the answer", async () => {
    const scope = nock(ORIGIN)
      .post(`${API}/courses`, { course: { title: "New", status: 0 } })
      .reply(201, { course: { id: 11, title: "New", status: "draft" } });
    const { client } = makeClient();
    expect(await client.create("courses", { title: "New", status: 0 })).toEqual({
      id: 11,
      title: "New",
      status: "draft",
    });
    scope.done();
  });

  it("create with an empty answer returns undefined (the caller looks the record up)", async () => {
    const scope = nock(ORIGIN).post(`${API}/chapters`).reply(201, "");
    const { client } = makeClient();
    expect(await client.create("chapters", { title: "x", course_id: 1 })).toBeUndefined();
    scope.done();
  });

  it("create with an empty answer and a Location header re-reads the record", async () => {
    const scope = nock(ORIGIN)
      .post(`${API}/chapters`)
      .reply(201, "", { Location: `${BASE}/chapters/77` })
      .get(`${API}/chapters/77`)
      .reply(200, { id: 77, title: "x" });
    const { client } = makeClient();
    expect(await client.create("chapters", { title: "x" })).toEqual({ id: 77, title: "x" });
    scope.done();
  });

  it("create refuses an answer its check rejects, naming the request, the status and the id the site named; the POST goes once", async () => {
    const scope = nock(ORIGIN)
      .post(`${API}/chapters`)
      .once()
      .reply(201, { id: 5001, title: "Known", course_id: 1 });
    const { client } = makeClient();
    const check = vi.fn((record: { id: number }) =>
      record.id === 5001 ? { reason: "which the last sync already knows", hint: "Push again." } : undefined,
    );
    const error = await client
      .create("chapters", { title: "New", course_id: 1 }, { check })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UserError);
    expect(error).not.toBeInstanceOf(WriteOutcomeUnknownError);
    expect((error as UserError).message).toBe(
      `POST ${API}/chapters answered 201 Created with chapter 5001, which the last sync already knows`,
    );
    expect((error as UserError).hint).toBe("Push again.");
    expect(check).toHaveBeenCalledWith({ id: 5001, title: "Known", course_id: 1 });
    scope.done();
    expect(client.stats.requests.POST).toBe(1);
  });

  it("create checks the record a Location header points to, and takes one its check accepts", async () => {
    const scope = nock(ORIGIN)
      .post(`${API}/courses`)
      .reply(201, "", { Location: `${BASE}/courses/7` })
      .get(`${API}/courses/7`)
      .reply(200, { id: 7, title: "Other" })
      .post(`${API}/courses`)
      .reply(201, { course: { id: 8, title: "Mine" } });
    const { client } = makeClient();
    const check = (record: WireRecord) =>
      record.title === "Mine" ? undefined : { reason: `whose title is ${record.title}`, hint: "Check." };
    await expect(client.create("courses", { title: "Mine" }, { check })).rejects.toThrow(
      `POST ${API}/courses answered 201 Created pointing (Location) to course 7, whose title is Other`,
    );
    expect(await client.create("courses", { title: "Mine" }, { check })).toEqual({ id: 8, title: "Mine" });
    scope.done();
  });

  it("update with an empty answer re-reads the record", async () => {
    const scope = nock(ORIGIN)
      .patch(`${API}/chapters/12`, { chapter: { title: "Renamed" } })
      .reply(204)
      .get(`${API}/chapters/12`)
      .reply(200, { id: 12, title: "Renamed" });
    const { client } = makeClient();
    expect(await client.update("chapters", 12, { title: "Renamed" })).toEqual({ id: 12, title: "Renamed" });
    scope.done();
  });

  it("update shows the server's message on 422, with the field map", async () => {
    const scope = nock(ORIGIN)
      .patch(`${API}/chapters/12`)
      .reply(422, { errors: { title: ["can't be blank"] } });
    const { client } = makeClient();
    const error = await client.update("chapters", 12, { title: "" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).message).toBe(
      "PATCH /school/api/v1/chapters/12 failed: 422 Unprocessable Entity: title can't be blank",
    );
    expect((error as ApiError).fieldErrors).toEqual({ title: ["can't be blank"] });
    scope.done();
  });

  it("remove: 404 counts as done", async () => {
    const scope = nock(ORIGIN).delete(`${API}/courses/5`).reply(204).delete(`${API}/courses/6`).reply(404);
    const { client } = makeClient();
    await client.remove("courses", 5);
    await client.remove("courses", 6);
    scope.done();
  });
});

describe("retries", () => {
  it.each([
    ["a connection reset", "ECONNRESET", "socket hang up"],
    ["a lookup that failed for now", "EAI_AGAIN", "getaddrinfo EAI_AGAIN academy.test"],
  ])("%s on GET is retried and succeeds", async (_what, code, message) => {
    const scope = nock(ORIGIN)
      .get(`${API}/courses/1`)
      .replyWithError(netError(code, message))
      .get(`${API}/courses/1`)
      .reply(200, { id: 1 });
    const { client, sleeps } = makeClient();
    expect(await client.get("courses", 1)).toEqual({ id: 1 });
    expect(sleeps).toHaveLength(1);
    expect(client.stats.requests.GET).toBe(2);
    expect(client.stats.retries).toBe(1);
    scope.done();
  });

  it("backs off exponentially with jitter on 503, then succeeds", async () => {
    const scope = nock(ORIGIN)
      .get(`${API}/courses/1`)
      .times(5)
      .reply(503)
      .get(`${API}/courses/1`)
      .reply(200, { id: 1 });
    const { client, sleeps } = makeClient({ random: () => 0.9 });
    expect(await client.get("courses", 1)).toEqual({ id: 1 });
    expect(sleeps).toHaveLength(5);
    sleeps.forEach((ms, attempt) => {
      expect(ms).toBeGreaterThanOrEqual(0);
      expect(ms).toBeLessThan(backoffCeiling(attempt));
      if (attempt > 0) expect(ms).toBeGreaterThan(sleeps[attempt - 1] ?? 0);
    });
    scope.done();
  });

  it("gives up after `retries` with the server's message", async () => {
    const scope = nock(ORIGIN).get(`${API}/courses/1`).times(3).reply(500, { error: "database down" });
    const { client } = makeClient({ retries: 2 });
    const error = await client.get("courses", 1).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).message).toBe(
      "GET /school/api/v1/courses/1 failed: 500 Internal Server Error: database down",
    );
    expect(client.stats.requests.GET).toBe(3);
    scope.done();
  });

  it("a 503 with Retry-After waits what the server asked", async () => {
    const scope = nock(ORIGIN)
      .get(`${API}/courses/1`)
      .reply(503, "busy", { "Retry-After": "4" })
      .get(`${API}/courses/1`)
      .reply(200, { id: 1 });
    const { client, sleeps } = makeClient();
    await client.get("courses", 1);
    expect(sleeps).toEqual([4000]);
    scope.done();
  });

  it("sends no retry once closed: a request reset by the close (a run that failed beside it) ends there", async () => {
    const first = nock(ORIGIN)
      .get(`${API}/courses/7`)
      .replyWithError(netError("ECONNRESET", "socket hang up"));
    const retry = nock(ORIGIN).get(`${API}/courses/7`).reply(200, { id: 7 });
    // The command closes the client while the request waits to be tried again.
    let client!: ApiClient;
    ({ client } = makeClient({ sleep: async () => client.close() }));
    await expect(client.get("courses", 7)).rejects.toThrow();
    expect(client.stats.requests.GET).toBe(1);
    first.done();
    expect(retry.isDone()).toBe(false);
  });

  it("never retries a POST blindly: a reset throws WriteOutcomeUnknownError after one POST", async () => {
    const scope = nock(ORIGIN)
      .post(`${API}/courses`)
      .replyWithError(netError("ECONNRESET", "socket hang up"));
    const { client, sleeps } = makeClient();
    const error = await client.create("courses", { title: "Intro" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WriteOutcomeUnknownError);
    expect((error as WriteOutcomeUnknownError).resource).toBe("courses");
    expect((error as WriteOutcomeUnknownError).fields).toEqual({ title: "Intro" });
    expect(client.stats.requests.POST).toBe(1);
    expect(sleeps).toEqual([]);
    scope.done();
  });

  it("a 502 on POST is a WriteOutcomeUnknownError too", async () => {
    const scope = nock(ORIGIN).post(`${API}/chapters`).reply(502, "<html><title>Bad Gateway</title></html>");
    const { client } = makeClient();
    const error = await client.create("chapters", { title: "x" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WriteOutcomeUnknownError);
    expect((error as WriteOutcomeUnknownError).status).toBe(502);
    expect(client.stats.requests.POST).toBe(1);
    scope.done();
  });

  it("a POST refused before anything was sent is retried, once the site has answered in this run", async () => {
    const scope = nock(ORIGIN)
      .get(`${API}/courses/1`)
      .reply(200, { id: 1 })
      .post(`${API}/courses`)
      .replyWithError(netError("ECONNREFUSED", "connect ECONNREFUSED 10.0.0.1:443"))
      .post(`${API}/courses`)
      .reply(201, { id: 9, title: "Intro" });
    const { client } = makeClient();
    await client.get("courses", 1);
    expect(await client.create("courses", { title: "Intro" })).toEqual({ id: 9, title: "Intro" });
    expect(client.stats.requests.POST).toBe(2);
    scope.done();
  });

  it("a refused connection on the first request of a run fails at once, naming the host", async () => {
    const scope = nock(ORIGIN)
      .get(`${API}/courses`)
      .query({ page: 1 })
      .replyWithError(netError("ECONNREFUSED", "connect ECONNREFUSED 10.0.0.1:443"));
    const { client, sleeps } = makeClient();
    const error = await client.listAll("courses").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NetworkError);
    expect((error as NetworkError).attempts).toBe(1);
    expect(sleeps).toEqual([]);
    expect((error as NetworkError).hint).toMatch(/Nothing answers at academy\.test.*running/);
    scope.done();
  });

  it("an unknown host fails at once, naming the URL and what to check", async () => {
    const scope = nock(ORIGIN)
      .get(`${API}/courses`)
      .query({ page: 1 })
      .replyWithError(netError("ENOTFOUND", "getaddrinfo ENOTFOUND academy.test"));
    const { client, sleeps } = makeClient({ retries: 2 });
    const error = await client.listAll("courses").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NetworkError);
    expect((error as NetworkError).message).toBe(
      `GET ${BASE}/courses?page=1 failed: host not found (ENOTFOUND)`,
    );
    expect(sleeps).toEqual([]);
    expect((error as NetworkError).exitCode).toBe(1);
    expect((error as NetworkError).hint).toMatch(/host name academy\.test is not known.*site URL.*network/);
    scope.done();
  });
});

describe("429", () => {
  it("pauses the whole queue for Retry-After, then retries; queued requests wait", async () => {
    const pause = deferred();
    const sleeps: number[] = [];
    const hits: string[] = [];
    const scope = nock(ORIGIN)
      .get(`${API}/courses/1`)
      .reply(() => {
        hits.push("1");
        return [429, { error: "slow down" }, { "Retry-After": "3" }];
      })
      .get(/\/school\/api\/v1\/courses\/\d/)
      .times(3)
      .reply((uri) => {
        hits.push(uri.slice(-1));
        return [200, { id: Number(uri.slice(-1)) }];
      });
    const { client } = makeClient({
      concurrency: 1,
      sleep: (ms) => {
        sleeps.push(ms);
        return pause.promise;
      },
    });
    const results = Promise.all([
      client.get("courses", 1),
      client.get("courses", 2),
      client.get("courses", 3),
    ]);
    await vi.waitFor(() => expect(sleeps).toEqual([3000]));
    await settle();
    expect(hits).toEqual(["1"]);
    expect(client.gate.isPaused).toBe(true);
    pause.resolve();
    expect(await results).toEqual([{ id: 1 }, { id: 2 }, { id: 3 }]);
    expect(hits.sort()).toEqual(["1", "1", "2", "3"]);
    expect(client.stats.rateLimited).toBe(1);
    scope.done();
  });

  it("reads Retry-After as an HTTP date against the injected clock, and lowers the pace", async () => {
    const now = Date.parse("2025-03-01T12:00:00Z");
    const scope = nock(ORIGIN)
      .get(`${API}/courses/1`)
      .reply(429, "", { "Retry-After": "Sat, 01 Mar 2025 12:00:05 GMT" })
      .get(`${API}/courses/1`)
      .reply(200, { id: 1 });
    const { client, sleeps } = makeClient({ now: () => now, concurrency: 4 });
    await client.get("courses", 1);
    expect(sleeps).toEqual([5000]);
    expect(client.gate.concurrency).toBe(2);
    scope.done();
  });

  it("without Retry-After, waits a backoff", async () => {
    const scope = nock(ORIGIN)
      .get(`${API}/courses/1`)
      .reply(429)
      .get(`${API}/courses/1`)
      .reply(200, { id: 1 });
    const { client, sleeps } = makeClient();
    await client.get("courses", 1);
    expect(sleeps).toEqual([250]);
    scope.done();
  });

  it("a 429 on POST is retried: the server refused it without processing", async () => {
    const scope = nock(ORIGIN)
      .post(`${API}/courses`)
      .reply(429, "", { "Retry-After": "1" })
      .post(`${API}/courses`)
      .reply(201, { id: 3 });
    const { client, sleeps } = makeClient();
    expect(await client.create("courses", { title: "t" })).toEqual({ id: 3 });
    expect(sleeps).toEqual([1000]);
    scope.done();
  });
});

describe("auth", () => {
  it("logs in first when there is no token, with email and password as query parameters", async () => {
    const tokens: string[] = [];
    const scope = nock(ORIGIN)
      .post("/school/api/login")
      .query({ email: EMAIL, password: PASSWORD })
      .reply(200, { auth_token: "fresh-token" })
      .get(`${API}/courses/1`)
      .matchHeader("authorization", "Bearer fresh-token")
      .reply(200, { id: 1 });
    const { client } = makeClient({
      credentials: { email: EMAIL, password: PASSWORD },
      onToken: (token) => {
        tokens.push(token);
      },
    });
    await client.get("courses", 1);
    expect(tokens).toEqual(["fresh-token"]);
    expect(client.stats.logins).toBe(1);
    scope.done();
  });

  it("concurrent first requests share one login", async () => {
    const scope = nock(ORIGIN)
      .post("/school/api/login")
      .query(true)
      .once()
      .reply(200, { auth_token: "t1" })
      .get(/\/school\/api\/v1\/courses\/\d/)
      .times(3)
      .reply(200, { id: 1 });
    const { client } = makeClient({ credentials: { email: EMAIL, password: PASSWORD } });
    await Promise.all([client.get("courses", 1), client.get("courses", 2), client.get("courses", 3)]);
    expect(client.stats.logins).toBe(1);
    scope.done();
  });

  it("on a 401 logs in again once and repeats the request", async () => {
    const tokens: string[] = [];
    const scope = nock(ORIGIN)
      .get(`${API}/courses/1`)
      .matchHeader("authorization", "Bearer old-token")
      .reply(401, { error: "Token expired" })
      .post("/school/api/login")
      .query({ email: EMAIL, password: PASSWORD })
      .reply(200, { auth_token: "new-token" })
      .get(`${API}/courses/1`)
      .matchHeader("authorization", "Bearer new-token")
      .reply(200, { id: 1 });
    const { client } = makeClient({
      credentials: { token: "old-token", email: EMAIL, password: PASSWORD },
      onToken: (token) => {
        tokens.push(token);
      },
    });
    expect(await client.get("courses", 1)).toEqual({ id: 1 });
    expect(tokens).toEqual(["new-token"]);
    scope.done();
  });

  it("a fresh login's token refused twice in a row fails with the hint", async () => {
    const scope = nock(ORIGIN)
      .get(`${API}/courses/1`)
      .reply(401, { error: "Unauthorized" })
      .post("/school/api/login")
      .query(true)
      .reply(200, { auth_token: "new-token" })
      .get(`${API}/courses/1`)
      .reply(401, { error: "Unauthorized" })
      .post("/school/api/login")
      .query(true)
      .reply(200, { auth_token: "newer-token" })
      .get(`${API}/courses/1`)
      .reply(401, { error: "Unauthorized" });
    const { client } = makeClient({ credentials: { token: "old", email: EMAIL, password: PASSWORD } });
    const error = await client.get("courses", 1).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(401);
    expect((error as ApiError).exitCode).toBe(1);
    expect((error as ApiError).hint).toContain("The site refused a fresh login too.");
    expect((error as ApiError).hint).toContain("coursesync login");
    expect((error as ApiError).hint).toContain("COURSESYNC_TOKEN");
    expect((error as ApiError).hint).toContain("COURSESYNC_EMAIL");
    expect(client.stats.logins).toBe(2);
    scope.done();
  });

  it("renews a token as often as it expires, each renewal once for all requests waiting on it", async () => {
    // Each token works for two requests, then the site answers 401 for it.
    const { uses, scope } = expiringTokens(2);
    const { client } = makeClient({ credentials: { email: EMAIL, password: PASSWORD } });
    for (let i = 1; i <= 7; i++) expect(await client.get("courses", i)).toEqual({ id: 1 });
    // Requests 1-2 on t1, 3-4 on t2 (after t1's 401), 5-6 on t3, 7 on t4: one login per expiry.
    expect(client.stats.logins).toBe(4);
    expect(Object.fromEntries(uses)).toEqual({ t1: 3, t2: 3, t3: 3, t4: 1 });
    scope.persist(false);
    nock.cleanAll();
  });

  it("renews again for a request whose token another request renewed and that expired since", async () => {
    // Four requests at once on t1, which expires after its first use; every later token too.
    const { uses, scope } = expiringTokens(1);
    const { client } = makeClient({ credentials: { email: EMAIL, password: PASSWORD } });
    const all = await Promise.all([1, 2, 3, 4].map((id) => client.get("courses", id)));
    expect(all).toEqual([{ id: 1 }, { id: 1 }, { id: 1 }, { id: 1 }]);
    // t1 serves one of the four; the three refused share the login of t2, which serves one;
    // the two refused then share t3, and the last gets t4. Nobody is told "refused a fresh login".
    expect(client.stats.logins).toBe(4);
    expect(Object.fromEntries(uses)).toEqual({ t1: 4, t2: 3, t3: 2, t4: 1 });
    scope.persist(false);
    nock.cleanAll();
  });

  it("on a 401 takes up a token stored since, once for all requests waiting, before any login", async () => {
    // t1 works once; the store then holds s1, renewed by another process, which works on.
    const uses = new Map<string, number>();
    const scope = nock(ORIGIN)
      .persist()
      .get(/\/school\/api\/v1\/courses\/\d+/)
      .reply(function () {
        const token = String(this.req.headers.authorization).replace("Bearer ", "");
        uses.set(token, (uses.get(token) ?? 0) + 1);
        return token === "s1" || uses.get(token) === 1 ? [200, { id: 1 }] : [401, { error: "Token expired" }];
      });
    let stored = "t1";
    let reads = 0;
    const { client } = makeClient({
      credentials: { token: "t1", email: EMAIL, password: PASSWORD, source: "stored token" },
      storedToken: async () => {
        reads += 1;
        return stored;
      },
    });
    expect(await client.get("courses", 1)).toEqual({ id: 1 });
    stored = "s1";
    const all = await Promise.all([2, 3, 4].map((id) => client.get("courses", id)));
    expect(all).toEqual([{ id: 1 }, { id: 1 }, { id: 1 }]);
    expect(client.stats.logins).toBe(0);
    expect(Object.fromEntries(uses)).toEqual({ t1: 4, s1: 3 });
    // Read once, by the first refused request: the others found the token already replaced.
    expect(reads).toBe(1);
    scope.persist(false);
    nock.cleanAll();
  });

  it("on a 401 with the refused token still stored, logs in; without e-mail and password, says what to run", async () => {
    const scope = nock(ORIGIN)
      .get(`${API}/courses/1`)
      .reply(401, { error: "Token expired" })
      .get(`${API}/courses/1`)
      .reply(401, { error: "Token expired" });
    const { client } = makeClient({
      credentials: { token: TOKEN, source: "stored token" },
      storedToken: async () => TOKEN,
    });
    const error = await client.get("courses", 1).catch((e: unknown) => e);
    expect((error as ApiError).status).toBe(401);
    expect((error as UserError).hint).toMatch(/refused the stored token: run `coursesync login`/);
    // A token the site refused once is never taken up again, even when the store still holds it.
    const again = await client.get("courses", 1).catch((e: unknown) => e);
    expect((again as ApiError).status).toBe(401);
    expect(String((again as Error).message)).not.toContain(TOKEN);
    scope.done();
  });

  it("a 401 with only a token says how to fix it", async () => {
    const scope = nock(ORIGIN).get(`${API}/courses/1`).reply(401, "");
    const { client } = makeClient();
    const error = await client.get("courses", 1).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UserError);
    expect((error as UserError).hint).toMatch(/coursesync login.*COURSESYNC_TOKEN.*COURSESYNC_EMAIL/);
    scope.done();
  });

  it("no credentials at all is a UserError before any request", async () => {
    const { client } = makeClient({ credentials: {} });
    await expect(client.get("courses", 1)).rejects.toThrow(/No credentials/);
  });

  it("a refused login shows the server's words and never the password", async () => {
    const scope = nock(ORIGIN)
      .post("/school/api/login")
      .query(true)
      .reply(401, { error: `Invalid email or password (got ${PASSWORD})` });
    const { client, lines } = makeClient({ credentials: { email: EMAIL, password: PASSWORD } });
    const error = await client.login().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    const shown = `${(error as ApiError).message}\n${(error as ApiError).hint}\n${JSON.stringify(error)}\n${lines.join("\n")}`;
    expect(shown).not.toContain(PASSWORD);
    expect(shown).not.toContain(encodeURIComponent(PASSWORD));
    expect((error as ApiError).message).toBe(
      "POST /school/api/login failed: 401 Unauthorized: Invalid email or password (got [redacted])",
    );
    expect((error as ApiError).exitCode).toBe(1);
    expect(lines).toEqual(["POST /school/api/login?email=[redacted]&password=[redacted] 401 5ms"]);
    scope.done();
  });

  it("a login answer without auth_token is an error", async () => {
    const scope = nock(ORIGIN).post("/school/api/login").query(true).reply(200, { ok: true });
    const { client } = makeClient({ credentials: { email: EMAIL, password: PASSWORD } });
    await expect(client.login()).rejects.toThrow(/without an auth_token/);
    scope.done();
  });
});

describe("secrets and logging", () => {
  it("logs one line per attempt with method, path, status and ms; never the token", async () => {
    const scope = nock(ORIGIN)
      .get(`${API}/courses`)
      .query({ page: 1 })
      .replyWithError(netError("ECONNRESET"))
      .get(`${API}/courses`)
      .query({ page: 1 })
      .reply(200, []);
    const { client, lines } = makeClient();
    await client.listAll("courses");
    expect(lines).toEqual([
      "GET /school/api/v1/courses?page=1 ECONNRESET 5ms",
      "GET /school/api/v1/courses?page=1 200 5ms",
    ]);
    expect(lines.join("\n")).not.toContain(TOKEN);
    scope.done();
  });

  it("a token the server echoes in an error body is redacted", async () => {
    const scope = nock(ORIGIN)
      .get(`${API}/courses/1`)
      .reply(403, { error: `token ${TOKEN} may not read this` });
    const { client } = makeClient();
    const error = await client.get("courses", 1).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).message).not.toContain(TOKEN);
    expect((error as ApiError).message).toContain("token [redacted] may not read this");
    scope.done();
  });

  it("a redirect to another host does not carry the token", async () => {
    const site = nock(ORIGIN, { reqheaders: { authorization: `Bearer ${TOKEN}` } })
      .get(`${API}/courses/1`)
      .reply(302, "", { Location: "https://elsewhere.test/courses/1" });
    const elsewhere = nock("https://elsewhere.test", { badheaders: ["authorization"] })
      .get("/courses/1")
      .reply(200, { id: 1 });
    const { client } = makeClient();
    expect(await client.get("courses", 1)).toEqual({ id: 1 });
    site.done();
    elsewhere.done();
  });

  it("a network error's cause carries no headers or token", async () => {
    const scope = nock(ORIGIN)
      .get(`${API}/courses/1`)
      .replyWithError(netError("EWEIRD", `bad thing with ${TOKEN}`));
    const { client } = makeClient();
    const error = await client.get("courses", 1).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NetworkError);
    const cause = (error as NetworkError).cause as Error;
    expect(cause.message).not.toContain(TOKEN);
    expect(JSON.stringify(cause)).not.toContain(TOKEN);
    scope.done();
  });
});

describe("listAll", () => {
  const page = (from: number, count: number) => Array.from({ length: count }, (_, i) => ({ id: from + i }));
  /** Courses: page 1 holds two records; page 2 answers `second`, and any later page `later`. */
  const pages = (
    second: { status: number; body: unknown; times?: number },
    later: { status: number; body: unknown },
  ) =>
    nock(ORIGIN)
      .get(`${API}/courses`)
      .query({ page: 1 })
      .reply(200, page(1, 2))
      .get(`${API}/courses`)
      .query({ page: 2 })
      .times(second.times ?? 1)
      .reply(second.status, second.body as nock.Body)
      .get(`${API}/courses`)
      .query((q) => Number(q.page) >= 3)
      .times(5)
      .optionally()
      .reply(later.status, later.body as nock.Body);

  it("with a Link rel=last header, fetches exactly the pages needed", async () => {
    const link = `<${BASE}/courses?page=2>; rel="next", <${BASE}/courses?page=3>; rel="last"`;
    const scope = nock(ORIGIN)
      .get(`${API}/courses`)
      .query({ page: 1 })
      .reply(200, page(1, 2), { Link: link })
      .get(`${API}/courses`)
      .query({ page: 2 })
      .reply(200, page(3, 2), { Link: link })
      .get(`${API}/courses`)
      .query({ page: 3 })
      .reply(200, page(5, 2), { Link: link });
    const { client } = makeClient();
    const listing = await client.listAll("courses");
    expect(listing.records.map((r) => r.id)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(listing.requests).toBe(3);
    expect(listing.pages).toBe(3);
    scope.done();
  });

  it("with X-Total-Count, fetches exactly the pages needed", async () => {
    const headers = { "X-Total-Count": "5" };
    const scope = nock(ORIGIN)
      .get(`${API}/chapters`)
      .query({ page: 1 })
      .reply(200, page(1, 2), headers)
      .get(`${API}/chapters`)
      .query({ page: 2 })
      .reply(200, page(3, 2), headers)
      .get(`${API}/chapters`)
      .query({ page: 3 })
      .reply(200, page(5, 1), headers);
    const { client } = makeClient();
    const listing = await client.listAll("chapters");
    expect(listing.records.map((r) => r.id)).toEqual([1, 2, 3, 4, 5]);
    expect(listing.requests).toBe(3);
    scope.done();
  });

  it("without headers: 40 pages, concurrency 4, at most 44 requests and never more than 4 in flight", async () => {
    let inFlight = 0;
    let most = 0;
    const asked: number[] = [];
    const scope = nock(ORIGIN)
      .get(`${API}/courses`)
      .query(true)
      .times(44)
      .optionally()
      .reply((uri, _body, callback) => {
        const n = Number(new URL(uri, ORIGIN).searchParams.get("page"));
        asked.push(n);
        inFlight += 1;
        most = Math.max(most, inFlight);
        setImmediate(() => {
          inFlight -= 1;
          callback(null, [200, n <= 40 ? page((n - 1) * 3 + 1, 3) : []]);
        });
      });
    const { client } = makeClient({ concurrency: 4 });
    const listing = await client.listAll("courses");
    expect(listing.records).toHaveLength(120);
    expect(listing.records.map((r) => r.id)).toEqual(Array.from({ length: 120 }, (_, i) => i + 1));
    expect(listing.requests).toBeLessThanOrEqual(44);
    expect(asked.length).toBe(listing.requests);
    expect(asked).toContain(41);
    expect(most).toBeLessThanOrEqual(4);
    expect(most).toBeGreaterThan(1);
    expect(scope.isDone()).toBe(true);
  });

  it("dedupes by id across pages", async () => {
    const scope = nock(ORIGIN)
      .get(`${API}/courses`)
      .query({ page: 1 })
      .reply(200, [
        { id: 1, v: "p1" },
        { id: 2, v: "p1" },
      ])
      .get(`${API}/courses`)
      .query({ page: 2 })
      .reply(200, [
        { id: 2, v: "p2" },
        { id: 3, v: "p2" },
      ])
      .get(`${API}/courses`)
      .query({ page: 3 })
      .reply(200, []);
    const { client } = makeClient({ concurrency: 1 });
    const listing = await client.listAll("courses");
    expect(listing.records).toEqual([
      { id: 1, v: "p1" },
      { id: 2, v: "p1" },
      { id: 3, v: "p2" },
    ]);
    scope.done();
  });

  it("a page that is not a JSON array is an error naming the URL", async () => {
    const scope = nock(ORIGIN).get(`${API}/courses`).query({ page: 1 }).reply(200, { courses: [] });
    const { client } = makeClient();
    await expect(client.listAll("courses")).rejects.toThrow(
      `GET ${BASE}/courses?page=1 answered an object, not a JSON array of records`,
    );
    scope.done();
  });

  it("items without ids are an error", async () => {
    const scope = nock(ORIGIN)
      .get(`${API}/courses`)
      .query({ page: 1 })
      .reply(200, [{ title: "no id" }]);
    const { client } = makeClient();
    await expect(client.listAll("courses")).rejects.toThrow(/item 0 of the list is not an object with an id/);
    scope.done();
  });

  it("a page that fails after retries rejects the whole listing", async () => {
    const scope = pages(
      { status: 500, body: { error: "boom" }, times: 2 },
      { status: 200, body: page(10, 2) },
    );
    const { client } = makeClient({ retries: 1, concurrency: 2 });
    await expect(client.listAll("courses")).rejects.toThrow("GET /school/api/v1/courses?page=2 failed: 500");
    scope.done();
  });

  it("reads Not Found past a full last page as the end, once the page after it is past the end too", async () => {
    const scope = pages(
      { status: 200, body: page(3, 2) },
      { status: 404, body: { detail: "Invalid page." } },
    );
    const { client } = makeClient({ concurrency: 1 });
    const listing = await client.listAll("courses");
    expect(listing.records.map((r) => r.id)).toEqual([1, 2, 3, 4]);
    expect(listing.pages).toBe(2);
    // Pages 1 and 2, the Not Found page 3, page 4 that confirms it, and page 3 asked once more
    // (a Not Found that goes away was a hole): nothing more.
    expect(listing.requests).toBe(5);
    scope.done();
  });

  it("fails on a Not Found page when the page after it has records: a hole, not the end", async () => {
    const scope = pages({ status: 404, body: { error: "Not found" } }, { status: 200, body: page(9, 2) });
    const { client } = makeClient({ concurrency: 1 });
    await expect(client.listAll("courses")).rejects.toThrow("GET /school/api/v1/courses?page=2 failed: 404");
    scope.done();
  });

  it("stopAfter stops early and pages one at a time", async () => {
    const scope = nock(ORIGIN)
      .get(`${API}/events`)
      .query({ page: 1 })
      .reply(200, page(100, 2))
      .get(`${API}/events`)
      .query({ page: 2 })
      .reply(200, page(98, 2));
    const { client } = makeClient();
    const listing = await client.listAll("events", { stopAfter: (_records, n) => n === 2 });
    expect(listing.records.map((r) => r.id)).toEqual([100, 101, 98, 99]);
    expect(listing.requests).toBe(2);
    scope.done();
  });
});

describe("the gate in the client", () => {
  it("never has more than `concurrency` requests in flight", async () => {
    let inFlight = 0;
    let most = 0;
    const scope = nock(ORIGIN)
      .get(/\/school\/api\/v1\/courses\/\d+/)
      .times(8)
      .reply((uri, _body, callback) => {
        inFlight += 1;
        most = Math.max(most, inFlight);
        setImmediate(() => {
          inFlight -= 1;
          callback(null, [200, { id: Number(uri.split("/").pop()) }]);
        });
      });
    const { client } = makeClient({ concurrency: 2 });
    await Promise.all(Array.from({ length: 8 }, (_, i) => client.get("courses", i + 1)));
    expect(most).toBe(2);
    scope.done();
  });

  it("requestsPerSecond: never more than N requests start in one second", async () => {
    vi.useFakeTimers({ now: 0, toFake: ["Date", "setTimeout", "clearTimeout"] });
    const starts: number[] = [];
    const scope = nock(ORIGIN)
      .get(/\/school\/api\/v1\/courses\/\d+/)
      .times(7)
      .reply((uri) => {
        starts.push(Date.now());
        return [200, { id: Number(uri.split("/").pop()) }];
      });
    const { client } = makeClient({ concurrency: 10, requestsPerSecond: 3, now: () => Date.now() });
    const all = Promise.all(Array.from({ length: 7 }, (_, i) => client.get("courses", i + 1)));
    for (let i = 0; i < 10 && starts.length < 7; i++) {
      await settle();
      await vi.advanceTimersByTimeAsync(500);
    }
    await all;
    expect(starts).toHaveLength(7);
    for (const t of starts)
      expect(starts.filter((s) => s >= t && s < t + 1000).length).toBeLessThanOrEqual(3);
    expect(Math.max(...starts)).toBeGreaterThanOrEqual(2000);
    scope.done();
  });
});
