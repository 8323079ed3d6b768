import { randomBytes } from "node:crypto";
import { EventLog } from "./event-log.js";
import {
  type ChapterRecord,
  type Checked,
  type CourseRecord,
  checkChapterInput,
  checkCourseInput,
  checkStateDump,
  type EventRecord,
  type FieldErrors,
  formatTimestamp,
  nextTimestamp,
  type ResourceName,
  type StateDump,
  slugify,
  uniqueSlug,
} from "./records.js";
import { checkEdit, placeChapters } from "./site-edits.js";
import type { Outcome, Page, RequestLogEntry, StateOptions, TokenCheck } from "./store-types.js";

export type {
  FaultKind,
  ListOrder,
  Normalise,
  Outcome,
  Page,
  RequestLogEntry,
  StateOptions,
  TokenCheck,
} from "./store-types.js";

type AnyRecord = CourseRecord | ChapterRecord;

const singular = { courses: "course", chapters: "chapter" } as const;

/**
 * The emulated site in memory: courses, chapters, events, id counters, tokens and the request
 * log. Every method is synchronous; the HTTP layer maps outcomes to status codes.
 */
export class EmulatorState {
  /** Every /api request in arrival order; tests count them, GET /__admin/requests serves them. */
  readonly requests: RequestLogEntry[] = [];
  private initial: StateDump;
  private readonly tables = {
    courses: new Map<number, CourseRecord>(),
    chapters: new Map<number, ChapterRecord>(),
  };
  private sortedIds: { courses?: number[]; chapters?: number[] } = {};
  private readonly events: EventLog;
  private nextId = { courses: 1, chapters: 1 };
  /** Each token's expiry (by the injected clock) and the requests it has made. */
  private readonly tokens = new Map<string, { expiresAt: number; uses: number }>();

  constructor(private readonly options: StateOptions) {
    this.initial = structuredClone(options.initial);
    this.events = new EventLog(options.events ?? {});
    this.load(this.initial);
  }

  // --- authentication -------------------------------------------------------------------

  /** Issue a new token for the right e-mail (any case) and password; undefined otherwise. */
  login(email: string | undefined, password: string | undefined): string | undefined {
    if (email === undefined || password === undefined) return undefined;
    if (
      email.trim().toLowerCase() !== this.options.email.toLowerCase() ||
      password !== this.options.password
    ) {
      return undefined;
    }
    const token = randomBytes(24).toString("base64url");
    const ttl = this.options.tokenTtlMs;
    const expiresAt = ttl === undefined ? Number.POSITIVE_INFINITY : this.nowMs() + ttl;
    this.tokens.set(token, { expiresAt, uses: 0 });
    return token;
  }

  /**
   * Whether a token was issued and is still valid by the injected clock and its count of uses;
   * an "ok" counts as one use.
   */
  checkToken(token: string): TokenCheck {
    const entry = this.tokens.get(token);
    if (entry === undefined) return "unknown";
    const usedUp = this.options.tokenUses !== undefined && entry.uses >= this.options.tokenUses;
    if (usedUp || this.nowMs() >= entry.expiresAt) return "expired";
    entry.uses += 1;
    return "ok";
  }

  /** Make every token issued so far expired (401 from now on); new logins still work. */
  expireTokens(): void {
    for (const entry of this.tokens.values()) entry.expiresAt = Number.NEGATIVE_INFINITY;
  }

  // --- reads ----------------------------------------------------------------------------

  /** Page `page` (from 1) of a resource, in the list order (id ascending by default); empty past the end. */
  list(resource: "courses", page: number): Page<CourseRecord>;
  list(resource: "chapters", page: number): Page<ChapterRecord>;
  list(resource: ResourceName, page: number): Page<AnyRecord>;
  list(resource: ResourceName, page: number): Page<AnyRecord> {
    const ids = this.idsInOrder(resource);
    const table = this.tables[resource] as Map<number, AnyRecord>;
    const slice = this.pageSlice(ids, page);
    return { ...slice, items: slice.items.map((id) => structuredClone(table.get(id)!)) };
  }

  /** Page `page` (from 1) of the events kept, newest first. */
  listEvents(page: number): Page<EventRecord> {
    return this.pageSlice(this.events.newestFirst(), page);
  }

  /** Whether the site records and serves events (the `events` option). */
  get eventsServed(): boolean {
    return this.events.enabled;
  }

  /** One course by id, or undefined. */
  get(resource: "courses", id: number): CourseRecord | undefined;
  /** One chapter by id, or undefined. */
  get(resource: "chapters", id: number): ChapterRecord | undefined;
  get(resource: ResourceName, id: number): AnyRecord | undefined;
  get(resource: ResourceName, id: number): AnyRecord | undefined {
    const record = this.tables[resource].get(id);
    return record === undefined ? undefined : structuredClone(record);
  }

  // --- API writes -----------------------------------------------------------------------

  /** POST /courses: `body` is the whole parsed request body. */
  createCourse(body: unknown): Outcome<CourseRecord> {
    const checked = checkCourseInput(body, "create");
    if (!checked.ok) return invalid(checked);
    const stamp = formatTimestamp(this.nowMs());
    const { title, ...rest } = this.normalised(checked.value);
    const course: CourseRecord = {
      id: this.nextId.courses++,
      title: title!,
      slug: this.freeSlug(slugify(title!)),
      status: "draft",
      created_at: stamp,
      updated_at: stamp,
      scheduled_at: null,
      published_at: null,
      excerpt: "",
      free: false,
      questions_enabled: false,
      ...rest,
    };
    this.insert("courses", course);
    this.record("courses", "created", course, stamp);
    return { kind: "ok", value: structuredClone(course) };
  }

  /** PATCH /courses/:id: any subset of the create fields; the slug stays as it was. */
  updateCourse(id: number, body: unknown): Outcome<CourseRecord> {
    const course = this.tables.courses.get(id);
    if (course === undefined) return { kind: "not-found" };
    const checked = checkCourseInput(body, "update");
    if (!checked.ok) return invalid(checked);
    Object.assign(course, this.normalised(checked.value));
    this.touch("courses", course);
    return { kind: "ok", value: structuredClone(course) };
  }

  /** POST /chapters: without an ordinal the chapter goes after the last one of its course. */
  createChapter(body: unknown): Outcome<ChapterRecord> {
    const checked = checkChapterInput(body, "create", (id) => this.tables.courses.has(id));
    if (!checked.ok) return invalid(checked);
    const { course_id, title, content, ordinal: sent } = this.normalised(checked.value);
    const stamp = formatTimestamp(this.nowMs());
    const ordinal = this.options.normalise?.ordinals === "place" ? undefined : sent;
    const chapter: ChapterRecord = {
      id: this.nextId.chapters++,
      course_id: course_id!,
      title: title!,
      content: content ?? "",
      created_at: stamp,
      updated_at: stamp,
      ordinal: ordinal ?? this.lastOrdinal(course_id!) + 1,
    };
    this.insert("chapters", chapter);
    this.record("chapters", "created", chapter, stamp);
    return { kind: "ok", value: structuredClone(chapter) };
  }

  /** PATCH /chapters/:id: any subset of the create fields, course_id included (a move). */
  updateChapter(id: number, body: unknown): Outcome<ChapterRecord> {
    const chapter = this.tables.chapters.get(id);
    if (chapter === undefined) return { kind: "not-found" };
    const checked = checkChapterInput(body, "update", (courseId) => this.tables.courses.has(courseId));
    if (!checked.ok) return invalid(checked);
    Object.assign(chapter, this.normalised(checked.value));
    this.touch("chapters", chapter);
    return { kind: "ok", value: structuredClone(chapter) };
  }

  /** Fields as this site stores them: a title trimmed when it normalises titles. */
  private normalised<T extends { title?: string | undefined }>(fields: T): T {
    if (this.options.normalise?.titles !== "trim" || typeof fields.title !== "string") return fields;
    return { ...fields, title: fields.title.trim().replace(/\s+/g, " ") };
  }

  /** DELETE: a course takes its chapters with it; one event per record deleted. */
  remove(resource: ResourceName, id: number): boolean {
    if (!this.tables[resource].has(id)) return false;
    if (resource === "courses") {
      const chapterIds = this.idsInOrder("chapters").filter((chapterId) => {
        return this.tables.chapters.get(chapterId)?.course_id === id;
      });
      for (const chapterId of chapterIds) this.remove("chapters", chapterId);
    }
    this.record(resource, "deleted", this.tables[resource].get(id)!, formatTimestamp(this.nowMs()));
    this.tables[resource].delete(id);
    this.sortedIds[resource] = undefined;
    return true;
  }

  // --- test controls --------------------------------------------------------------------

  /**
   * Change a record as another user of the site would: any fields, including ones the API does
   * not know (they are served from then on). Status 0/1 maps to draft/published, other values
   * are kept as given; updated_at is bumped unless `fields` sets it; an update event is added,
   * unless `silent` (a change the site makes without an event, as callbacks and acts_as_list do).
   */
  edit(
    resource: ResourceName,
    id: number,
    fields: Record<string, unknown>,
    { silent = false }: { silent?: boolean } = {},
  ): Outcome<AnyRecord> {
    const record = this.tables[resource].get(id) as AnyRecord | undefined;
    if (record === undefined) return { kind: "not-found" };
    const checked = checkEdit(resource, fields, (courseId) => this.tables.courses.has(courseId));
    if (!checked.ok) return invalid(checked);
    const changes = checked.value;
    const previous = record.updated_at;
    Object.assign(record, structuredClone(changes));
    if (!("updated_at" in changes)) record.updated_at = nextTimestamp(this.nowMs(), previous);
    if (this.options.listOrder === "updated_at") this.sortedIds[resource] = undefined;
    const at = "updated_at" in changes ? formatTimestamp(this.nowMs()) : String(record.updated_at);
    if (!silent) this.record(resource, "updated", record, at);
    return { kind: "ok", value: structuredClone(record) };
  }

  /**
   * Renumber a course's chapters 1, 2, 3… as acts_as_list does: the ids in `order` first (each a
   * chapter of the course), then the rest by ordinal, then id. A chapter whose ordinal changes
   * gets a bumped updated_at and no event, as such a site renumbers siblings silently.
   * Answers the course's chapters in their new order.
   */
  renumber(courseId: number, order: readonly number[] = []): Outcome<ChapterRecord[]> {
    if (!this.tables.courses.has(courseId)) return { kind: "not-found" };
    const siblings = [...this.tables.chapters.values()].filter((chapter) => chapter.course_id === courseId);
    const placed = placeChapters(siblings, order);
    if (!placed.ok) return invalid(placed);
    placed.value.forEach((chapter, index) => {
      if (chapter.ordinal === index + 1) return;
      chapter.ordinal = index + 1;
      chapter.updated_at = nextTimestamp(this.nowMs(), chapter.updated_at);
    });
    if (this.options.listOrder === "updated_at") this.sortedIds.chapters = undefined;
    return { kind: "ok", value: structuredClone(placed.value) };
  }

  /** Put back the state the emulator started with, or the given one (a dump of this store); answers what it now holds. */
  reset(state?: unknown): Checked<StateDump> {
    const checked = state === undefined ? { ok: true as const, value: this.initial } : checkStateDump(state);
    if (!checked.ok) return checked;
    this.load(checked.value);
    return { ok: true, value: this.dump() };
  }

  /** Everything the store holds: records by id ascending, events oldest first. */
  dump(): StateDump {
    return structuredClone({
      courses: this.idsInOrder("courses").map((id) => this.tables.courses.get(id)!),
      chapters: this.idsInOrder("chapters").map((id) => this.tables.chapters.get(id)!),
      events: this.events.oldestFirst(),
    });
  }

  /** Append to the request log. */
  logRequest(entry: RequestLogEntry): void {
    this.requests.push(entry);
  }

  /** Empty the request log (and start the peak of writes in flight afresh). */
  clearRequests(): void {
    this.requests.length = 0;
    this.peakWritesInFlight = this.#writesInFlight;
  }

  #writesInFlight = 0;
  /** The most resource writes (POST, PATCH, DELETE) the server was handling at one time. */
  peakWritesInFlight = 0;

  /** A resource write arrived; call the returned function when its answer has gone. */
  writeStarted(): () => void {
    this.#writesInFlight++;
    this.peakWritesInFlight = Math.max(this.peakWritesInFlight, this.#writesInFlight);
    return () => {
      this.#writesInFlight--;
    };
  }

  // --- internals ------------------------------------------------------------------------

  private nowMs(): number {
    return this.options.now().getTime();
  }

  private load(state: StateDump): void {
    const copy = structuredClone(state);
    this.tables.courses = new Map(copy.courses.map((course) => [course.id, course]));
    this.tables.chapters = new Map(copy.chapters.map((chapter) => [chapter.id, chapter]));
    this.events.load(copy.events);
    this.sortedIds = {};
    const above = (ids: Iterable<number>) => {
      let max = 0;
      for (const id of ids) if (id > max) max = id;
      return max + 1;
    };
    this.nextId = {
      courses: above(this.tables.courses.keys()),
      chapters: above(this.tables.chapters.keys()),
    };
  }

  private idsInOrder(resource: ResourceName): number[] {
    if (this.sortedIds[resource]) return this.sortedIds[resource];
    const ids = [...this.tables[resource].keys()].sort((a, b) => a - b);
    if (this.options.listOrder === "updated_at") {
      const table = this.tables[resource] as Map<number, AnyRecord>;
      const at = new Map(ids.map((id) => [id, Date.parse(String(table.get(id)!.updated_at))]));
      // A stable sort: equal (or unreadable) times stay in id order.
      ids.sort((a, b) => (at.get(a)! || 0) - (at.get(b)! || 0));
    }
    this.sortedIds[resource] = ids;
    return ids;
  }

  private pageSlice<T>(all: T[], page: number): Page<T> {
    const size = this.options.pageSize;
    return {
      items: all.slice((page - 1) * size, page * size),
      total: all.length,
      pageCount: Math.ceil(all.length / size),
    };
  }

  private insert(resource: ResourceName, record: AnyRecord): void {
    (this.tables[resource] as Map<number, AnyRecord>).set(record.id, record);
    this.sortedIds[resource] = undefined;
  }

  private touch(resource: ResourceName, record: AnyRecord): void {
    record.updated_at = nextTimestamp(this.nowMs(), record.updated_at);
    if (this.options.listOrder === "updated_at") this.sortedIds[resource] = undefined;
    this.record(resource, "updated", record, record.updated_at);
  }

  /** One event for one record changed; a chapter's names its course. */
  private record(
    resource: ResourceName,
    change: "created" | "updated" | "deleted",
    record: AnyRecord,
    createdAt: string,
  ): void {
    const courseId = resource === "chapters" ? (record as ChapterRecord).course_id : undefined;
    this.events.add(`${singular[resource]}.${change}`, record.id, createdAt, courseId);
  }

  private freeSlug(base: string): string {
    const taken = new Set([...this.tables.courses.values()].map((course) => course.slug));
    return uniqueSlug(base, (slug) => taken.has(slug));
  }

  private lastOrdinal(courseId: number): number {
    let last: number | undefined;
    for (const chapter of this.tables.chapters.values()) {
      if (chapter.course_id === courseId && (last === undefined || chapter.ordinal > last))
        last = chapter.ordinal;
    }
    return last ?? 0;
  }
}

function invalid(checked: { ok: false; errors: FieldErrors }): { kind: "invalid"; errors: FieldErrors } {
  return { kind: "invalid", errors: checked.errors };
}
