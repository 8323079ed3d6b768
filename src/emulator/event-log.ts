/** The emulated site's events: one per record changed, ids ascending, the newest N kept. */
import type { EventRecord, EventType } from "./records.js";

/** How the site keeps events (see EmulatorOptions.events and eventsKept). */
export interface EventSettings {
  /** False: the site records no events (GET /events is not served). @default true */
  enabled?: boolean | undefined;
  /** Keep only this many events, the newest; older ones drop as new ones come. @default all */
  kept?: number | undefined;
}

/** The events a store holds, oldest first, with the id the next one gets. */
export class EventLog {
  private events: EventRecord[] = [];
  private nextId = 1;

  constructor(private readonly settings: EventSettings) {}

  /** Whether the site records and serves events. */
  get enabled(): boolean {
    return this.settings.enabled !== false;
  }

  /**
   * Replace the events (any order); the next id goes above every one given, even those the
   * retention limit drops at once, so ids never come back.
   */
  load(events: readonly EventRecord[]): void {
    this.events = structuredClone([...events]).sort((a, b) => a.id - b.id);
    this.nextId = 1 + this.events.reduce((max, event) => Math.max(max, event.id), 0);
    this.trim();
  }

  /** Record one change; a chapter's event names its course too. Nothing when events are off. */
  add(type: EventType, resourceId: number, createdAt: string, courseId?: number): void {
    if (!this.enabled) return;
    this.events.push({
      id: this.nextId++,
      type,
      resource_id: resourceId,
      ...(courseId === undefined ? {} : { course_id: courseId }),
      created_at: createdAt,
    });
    this.trim();
  }

  /** Copies of the events kept, newest first (GET /events order). */
  newestFirst(): EventRecord[] {
    return this.events.map((event) => ({ ...event })).reverse();
  }

  /** Copies of the events kept, oldest first (the state dump's order). */
  oldestFirst(): EventRecord[] {
    return this.events.map((event) => ({ ...event }));
  }

  private trim(): void {
    const kept = this.settings.kept;
    if (kept !== undefined && this.events.length > kept) this.events.splice(0, this.events.length - kept);
  }
}
