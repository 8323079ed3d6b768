/**
 * Test-only control routes under /__admin/ (DESIGN section 7): reset, state dump, request log,
 * edits and deletes as another user (silent ones too: acts_as_list renumbering, no event),
 * runtime faults, token expiry. No auth, no faults, no log.
 */
import type { Reply, RouteRequest } from "./api-routes.js";
import { checkFaultPatch, type Faults } from "./faults.js";
import type { ResourceName } from "./records.js";
import type { EmulatorState } from "./state.js";

/** The prefix of every control route. */
export const ADMIN_ROOT = "/__admin";

/** What the control routes act on. */
export interface AdminContext {
  state: EmulatorState;
  faults: Faults;
}

/** One control route as `GET /__admin/` lists it: method, path, what it takes and does. */
export interface AdminRoute {
  method: "GET" | "POST" | "DELETE";
  path: string;
  /** The JSON body it takes, in words; absent for none. */
  body?: string;
  does: string;
}

function route(method: AdminRoute["method"], path: string, does: string, body?: string): AdminRoute {
  return { method, path: `${ADMIN_ROOT}${path}`, ...(body === undefined ? {} : { body }), does };
}

const TARGET = '{resource: "courses"|"chapters", id: number';

/** Every control route, in the order `GET /__admin/` lists them. */
const ADMIN_ROUTES: readonly AdminRoute[] = [
  route("GET", "/", "lists these routes"),
  route(
    "POST",
    "/reset",
    "replaces the store; answers the counts of each",
    "optional {courses: [...], chapters: [...], events: [...]} (a GET /__admin/state dump); none: the seed",
  ),
  route("GET", "/state", "the store: {courses, chapters, events}"),
  route("GET", "/requests", "the request log, oldest first"),
  route("DELETE", "/requests", "empties the request log"),
  route(
    "POST",
    "/edit",
    "changes a record as another user of the site would, updated_at bumped; answers the record; silent: true records no event",
    `${TARGET}, fields: {...}, silent?: boolean}`,
  ),
  route(
    "POST",
    "/renumber",
    "renumbers a course's chapters 1, 2, 3… as acts_as_list does (those in order first, the rest by ordinal): updated_at bumped on each one moved, no event; answers the course's chapters in order",
    "{course_id: number, order?: [chapter ids]}",
  ),
  route(
    "POST",
    "/delete",
    "deletes a record as another user would (a course with its chapters)",
    `${TARGET}}`,
  ),
  route("GET", "/faults", "the fault settings and the one-shot faults pending"),
  route(
    "POST",
    "/faults",
    "changes the faults; the *Next counts apply to the next requests that match",
    "any of {latencyMs, rate (null: none), failRate, resetRate, lostWriteRate, failNext, failStatus, resetNext, loseNextWrites, match: {method?, path?, page?}}",
  ),
  route("POST", "/expire-tokens", "expires every token issued (401 until a new login)"),
];

const notFound: Reply = { status: 404, body: { error: "Not found" } };

function invalid(errors: Record<string, string[]>): Reply {
  return { status: 422, body: { errors } };
}

function readJson(text: string): { ok: true; value: unknown } | { ok: false; reply: Reply } {
  if (text.trim() === "") return { ok: true, value: undefined };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false, reply: invalid({ body: ["is not valid JSON"] }) };
  }
}

/** Read `{resource, id}` (plus `fields` and `silent` when asked) from a control request body. */
function readTarget(
  value: unknown,
  withFields: boolean,
):
  | { ok: true; resource: ResourceName; id: number; fields: Record<string, unknown>; silent: boolean }
  | { ok: false; reply: Reply } {
  const input = (value ?? {}) as Record<string, unknown>;
  const errors: Record<string, string[]> = {};
  if (input.resource !== "courses" && input.resource !== "chapters")
    errors.resource = ['must be "courses" or "chapters"'];
  if (!(typeof input.id === "number" && Number.isSafeInteger(input.id))) errors.id = ["must be an integer"];
  const fields = input.fields;
  if (withFields && (fields === null || typeof fields !== "object" || Array.isArray(fields))) {
    errors.fields = ["must be an object of field values"];
  }
  if (withFields && !(input.silent === undefined || typeof input.silent === "boolean"))
    errors.silent = ["must be true or false"];
  if (Object.keys(errors).length > 0) return { ok: false, reply: invalid(errors) };
  return {
    ok: true,
    resource: input.resource as ResourceName,
    id: input.id as number,
    fields: (fields ?? {}) as Record<string, unknown>,
    silent: input.silent === true,
  };
}

/** POST /renumber: `{course_id, order?}` checked, then the course's chapters renumbered silently. */
function renumber(state: EmulatorState, value: unknown): Reply {
  const input = (value ?? {}) as Record<string, unknown>;
  const errors: Record<string, string[]> = {};
  const whole = (n: unknown) => typeof n === "number" && Number.isSafeInteger(n);
  if (!whole(input.course_id)) errors.course_id = ["must be an integer"];
  const order = input.order ?? [];
  if (!(Array.isArray(order) && order.every(whole))) errors.order = ["must be an array of chapter ids"];
  if (Object.keys(errors).length > 0) return invalid(errors);
  const outcome = state.renumber(input.course_id as number, order as number[]);
  if (outcome.kind === "not-found") return notFound;
  if (outcome.kind === "invalid") return invalid(outcome.errors);
  return { status: 200, body: outcome.value };
}

function faultReport(faults: Faults): Reply {
  return { status: 200, body: { ...faults.settings, rate: faults.settings.rate ?? null, ...faults.pending } };
}

/** Answer one request under /__admin. */
export function routeAdmin(context: AdminContext, request: RouteRequest): Reply {
  const { state, faults } = context;
  const route = `${request.method} ${request.path.slice(ADMIN_ROOT.length)}`;
  const body = readJson(request.body);
  if (!body.ok) return body.reply;
  switch (route) {
    case "GET ":
    case "GET /":
      return { status: 200, body: { routes: ADMIN_ROUTES } };
    case "POST /reset": {
      const result = state.reset(body.value ?? undefined);
      if (!result.ok) return invalid(result.errors);
      const { courses, chapters, events } = result.value;
      return {
        status: 200,
        body: { courses: courses.length, chapters: chapters.length, events: events.length },
      };
    }
    case "GET /state":
      return { status: 200, body: state.dump() };
    case "GET /requests":
      return { status: 200, body: state.requests };
    case "DELETE /requests":
      state.clearRequests();
      return { status: 204 };
    case "POST /edit": {
      const target = readTarget(body.value, true);
      if (!target.ok) return target.reply;
      const outcome = state.edit(target.resource, target.id, target.fields, { silent: target.silent });
      if (outcome.kind === "not-found") return notFound;
      if (outcome.kind === "invalid") return invalid(outcome.errors);
      return { status: 200, body: outcome.value };
    }
    case "POST /renumber":
      return renumber(state, body.value);
    case "POST /delete": {
      const target = readTarget(body.value, false);
      if (!target.ok) return target.reply;
      return state.remove(target.resource, target.id) ? { status: 204 } : notFound;
    }
    case "GET /faults":
      return faultReport(faults);
    case "POST /faults": {
      const patch = checkFaultPatch(body.value ?? {});
      if (!patch.ok) return invalid(patch.errors);
      faults.update(patch.value);
      return faultReport(faults);
    }
    case "POST /expire-tokens":
      state.expireTokens();
      return { status: 204 };
    default:
      return notFound;
  }
}
