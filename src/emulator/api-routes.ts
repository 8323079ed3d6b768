/**
 * The API of API.md as request-in, reply-out functions over the store: routing, login, bearer
 * auth, paging, response shapes and status codes. No sockets here; server.ts sends the replies.
 */
import { bodyKey, type ResourceName } from "./records.js";
import type { EmulatorState, Outcome, Page } from "./state.js";

/** How show, create and update bodies look (lists are always a bare array). */
export type ResponseShape = "bare" | "wrapped" | "empty";

/** Which paging headers list responses carry. */
export type PagingHeaders = "none" | "link" | "total";

/** A request as the routes see it: the body is read, the path has no trailing slash. */
export interface RouteRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: { authorization?: string | undefined; contentType?: string | undefined };
  body: string;
}

/** What to send: status, JSON body (none when undefined), extra headers. */
export interface Reply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
  /** True when the request changed the store (a lost write may then drop the response). */
  applied?: boolean;
}

/** What the API routes need besides the request. */
export interface ApiContext {
  state: EmulatorState;
  /** `http://127.0.0.1:PORT/api/v1`, for Location and Link headers. */
  baseUrl: string;
  responseShape: ResponseShape;
  pagingHeaders: PagingHeaders;
  pastLastPage: "empty" | "404";
  /** Whether served events carry their ids (false: a site whose events have none). */
  eventIds: boolean;
  /** Lists leave out chapters' content and courses' excerpt (summary lists); a show has them. */
  summaryLists: boolean;
}

/** The fields a summary list leaves out, by resource. */
const SUMMARY_OMITS: Record<ResourceName, string> = { courses: "excerpt", chapters: "content" };

/** The versioned root and the login path (API.md section 9). */
export const API_ROOT = "/api/v1";
export const LOGIN_PATH = "/api/login";

const notFound: Reply = { status: 404, body: { error: "Not found" } };

function unprocessable(errors: Record<string, string[]>): Reply {
  return { status: 422, body: { errors } };
}

type Route =
  | { kind: "login" }
  | { kind: "collection"; resource: ResourceName }
  | { kind: "member"; resource: ResourceName; id: number }
  | { kind: "events" };

function matchRoute(method: string, path: string): Route | undefined {
  if (path === LOGIN_PATH) return method === "POST" ? { kind: "login" } : undefined;
  if (!path.startsWith(`${API_ROOT}/`)) return undefined;
  const parts = path.slice(API_ROOT.length + 1).split("/");
  const [name, id, ...rest] = parts;
  if (rest.length > 0) return undefined;
  if (name === "events") return id === undefined && method === "GET" ? { kind: "events" } : undefined;
  if (name !== "courses" && name !== "chapters") return undefined;
  if (id === undefined)
    return method === "GET" || method === "POST" ? { kind: "collection", resource: name } : undefined;
  if (!/^\d{1,15}$/.test(id)) return undefined;
  return ["GET", "PATCH", "DELETE"].includes(method)
    ? { kind: "member", resource: name, id: Number(id) }
    : undefined;
}

/** Whether a request is a write to a resource (the only kind a lost write can hit). */
export function isResourceWrite(method: string, path: string): boolean {
  return path.startsWith(`${API_ROOT}/`) && ["POST", "PATCH", "DELETE"].includes(method);
}

/** Answer one request under /api. */
export function routeApi(context: ApiContext, request: RouteRequest): Reply {
  const route = matchRoute(request.method, request.path);
  if (route === undefined) return notFound;
  if (route.kind === "login") return login(context.state, request);
  const denied = authenticate(context.state, request.headers.authorization);
  if (denied) return denied;
  const page = () => parsePage(request.query.get("page"));
  switch (route.kind) {
    case "events": {
      if (!context.state.eventsServed) return notFound;
      const n = page();
      if (n === undefined) return badPage();
      const events = context.state.listEvents(n);
      const items = context.eventIds ? events.items : events.items.map(({ id: _id, ...rest }) => rest);
      return listReply(context, request.path, n, { ...events, items });
    }
    case "collection": {
      if (request.method === "GET") {
        const n = page();
        if (n === undefined) return badPage();
        const listed = context.state.list(route.resource, n);
        const omit = SUMMARY_OMITS[route.resource];
        const items = context.summaryLists
          ? listed.items.map((item) =>
              Object.fromEntries(Object.entries(item).filter(([key]) => key !== omit)),
            )
          : listed.items;
        return listReply(context, request.path, n, { ...listed, items });
      }
      const body = parseJson(request.body);
      if (!body.ok) return unprocessable({ body: ["is not valid JSON"] });
      const outcome =
        route.resource === "courses"
          ? context.state.createCourse(body.value)
          : context.state.createChapter(body.value);
      return recordReply(context, route.resource, "create", outcome);
    }
    case "member": {
      const { resource, id } = route;
      if (request.method === "GET") {
        const record = context.state.get(resource, id);
        return recordReply(
          context,
          resource,
          "show",
          record ? { kind: "ok", value: record } : { kind: "not-found" },
        );
      }
      if (request.method === "DELETE") {
        return context.state.remove(resource, id) ? { status: 204, applied: true } : notFound;
      }
      const body = parseJson(request.body);
      if (!body.ok)
        return context.state.get(resource, id) ? unprocessable({ body: ["is not valid JSON"] }) : notFound;
      const outcome =
        resource === "courses"
          ? context.state.updateCourse(id, body.value)
          : context.state.updateChapter(id, body.value);
      return recordReply(context, resource, "update", outcome);
    }
  }
}

function login(state: EmulatorState, request: RouteRequest): Reply {
  let email = request.query.get("email") ?? undefined;
  let password = request.query.get("password") ?? undefined;
  if (email === undefined || password === undefined) {
    const fields = bodyFields(request);
    email ??= fields.email;
    password ??= fields.password;
  }
  const token = state.login(email, password);
  return token === undefined
    ? { status: 401, body: { error: "Invalid email or password" } }
    : { status: 200, body: { auth_token: token } };
}

/** Read `email` and `password` from a JSON or form body. */
function bodyFields(request: RouteRequest): { email?: string; password?: string } {
  const text = request.body.trim();
  if (text === "") return {};
  const pick = (value: unknown) => (typeof value === "string" ? value : undefined);
  if (text.startsWith("{")) {
    const parsed = parseJson(text);
    if (!parsed.ok || parsed.value === null || typeof parsed.value !== "object") return {};
    const fields = parsed.value as Record<string, unknown>;
    return { email: pick(fields.email), password: pick(fields.password) };
  }
  const form = new URLSearchParams(text);
  return { email: form.get("email") ?? undefined, password: form.get("password") ?? undefined };
}

function authenticate(state: EmulatorState, header: string | undefined): Reply | undefined {
  const deny = (error: string): Reply => ({
    status: 401,
    body: { error },
    headers: { "WWW-Authenticate": 'Bearer realm="api"' },
  });
  if (header === undefined || header.trim() === "") {
    return deny("Missing Authorization header: send Authorization: Bearer <auth_token>");
  }
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header.trim());
  if (!match?.[1]) return deny("The Authorization header must be: Bearer <auth_token>");
  const check = state.checkToken(match[1]);
  if (check === "unknown") return deny("Invalid token");
  if (check === "expired") return deny("Token expired: log in again");
  return undefined;
}

/** The page number of `?page=`: 1 when absent, undefined when not a positive integer. */
function parsePage(raw: string | null): number | undefined {
  if (raw === null) return 1;
  if (!/^\d{1,9}$/.test(raw)) return undefined;
  const page = Number(raw);
  return page >= 1 ? page : undefined;
}

function badPage(): Reply {
  return unprocessable({ page: ["must be a positive integer"] });
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  if (text.trim() === "") return { ok: true, value: undefined };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

function listReply(context: ApiContext, path: string, page: number, result: Page<unknown>): Reply {
  if (context.pastLastPage === "404" && page > Math.max(1, result.pageCount)) return notFound;
  const headers: Record<string, string> = {};
  if (context.pagingHeaders === "total") {
    headers["X-Total-Count"] = String(result.total);
    headers["X-Total-Pages"] = String(result.pageCount);
  } else if (context.pagingHeaders === "link") {
    const origin = new URL(context.baseUrl).origin;
    const url = (n: number) => `<${origin}${path}?page=${n}>`;
    const last = Math.max(1, result.pageCount);
    const links = page < last ? [`${url(page + 1)}; rel="next"`] : [];
    links.push(`${url(last)}; rel="last"`);
    headers.Link = links.join(", ");
  }
  return { status: 200, body: result.items, headers };
}

function recordReply(
  context: ApiContext,
  resource: ResourceName,
  action: "show" | "create" | "update",
  outcome: Outcome<{ id: number }>,
): Reply {
  if (outcome.kind === "not-found") return notFound;
  if (outcome.kind === "invalid") return unprocessable(outcome.errors);
  const record = outcome.value;
  const status = action === "create" ? 201 : 200;
  const headers: Record<string, string> =
    action === "create" ? { Location: `${context.baseUrl}/${resource}/${record.id}` } : {};
  const applied = action !== "show";
  switch (context.responseShape) {
    case "wrapped":
      return { status, body: { [bodyKey[resource]]: record }, headers, applied };
    case "empty":
      if (action === "show") return { status, body: record, headers };
      return { status: action === "create" ? 201 : 204, headers, applied };
    default:
      return { status, body: record, headers, applied };
  }
}
