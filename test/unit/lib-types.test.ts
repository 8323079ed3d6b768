/**
 * The public API's types, checked by `tsc` (npm test type-checks test/): a change to an option,
 * a result or the error type that would break a caller fails here.
 */
import { describe, expectTypeOf, it } from "vitest";
import { type Emulator, type StartEmulatorOptions, startEmulator } from "../../src/emulator/index.js";
import {
  type ChangeJson,
  type CheckJson,
  type CoursesyncError,
  check,
  type ProgressEvent,
  type PullJson,
  type PullOptions,
  type PushJson,
  type PushOptions,
  pull,
  push,
  restore,
  type StatusJson,
  status,
} from "../../src/lib.js";

describe("the library's types", () => {
  it("each function takes its command's options and returns its --json document", () => {
    expectTypeOf(pull).parameter(0).toEqualTypeOf<PullOptions | undefined>();
    expectTypeOf(push).parameter(0).toEqualTypeOf<PushOptions | undefined>();
    expectTypeOf(pull).returns.toEqualTypeOf<Promise<PullJson>>();
    expectTypeOf(push).returns.toEqualTypeOf<Promise<PushJson>>();
    expectTypeOf(restore).returns.toEqualTypeOf<Promise<PushJson>>();
    expectTypeOf(status).returns.toEqualTypeOf<Promise<StatusJson>>();
    expectTypeOf(check).returns.toEqualTypeOf<Promise<CheckJson>>();
    expectTypeOf(pull).toBeCallableWith();
    expectTypeOf(pull).toBeCallableWith({
      dir: "t",
      site: "staging",
      dryRun: true,
      theirs: true,
      markers: false,
    });
    expectTypeOf(pull).toBeCallableWith({
      events: true,
      maxDelete: 5,
      only: ["courses/a/**"],
      ignore: ["*.draft.md"],
    });
    expectTypeOf(pull).toBeCallableWith({ token: "t" });
    expectTypeOf(pull).toBeCallableWith({ email: "e", password: "p", paths: ["courses/a"] });
    expectTypeOf(push).toBeCallableWith({ yes: true, force: true, dryRun: false, maxDelete: 0 });
    expectTypeOf(restore).toBeCallableWith({ yes: true, delete: true, maxDelete: 3 });
    expectTypeOf(status).toBeCallableWith({ dir: "t", paths: ["courses"] });
    expectTypeOf(check).toBeCallableWith({ dir: "t", env: {} });
    // @ts-expect-error push has no --theirs
    expectTypeOf(push).toBeCallableWith({ theirs: true });
    // @ts-expect-error maxDelete is a number, not the flag's text
    expectTypeOf(pull).toBeCallableWith({ maxDelete: "5" });
    // @ts-expect-error status is offline: it takes no credentials
    expectTypeOf(status).toBeCallableWith({ token: "t" });
  });

  it("results say what happened, record by record", () => {
    expectTypeOf<PullJson["command"]>().toEqualTypeOf<"pull">();
    expectTypeOf<PullJson["changes"]>().toEqualTypeOf<ChangeJson[]>();
    expectTypeOf<PullJson["counts"]["created"]>().toEqualTypeOf<number>();
    expectTypeOf<PushJson["command"]>().toEqualTypeOf<"push" | "restore">();
    expectTypeOf<PushJson["applied"]>().toEqualTypeOf<boolean>();
    expectTypeOf<PushJson["plan"][number]["type"]>().toEqualTypeOf<"create" | "update" | "delete">();
    expectTypeOf<ChangeJson["outcome"]>().toEqualTypeOf<
      "created" | "updated" | "renamed" | "deleted" | "unchanged" | "conflict" | "failed" | "skipped"
    >();
    expectTypeOf<StatusJson["clean"]>().toEqualTypeOf<boolean>();
    expectTypeOf<StatusJson["entries"][number]["path"]>().toEqualTypeOf<string>();
    expectTypeOf<CheckJson["problems"][number]>().toHaveProperty("hint").toEqualTypeOf<string | null>();
  });

  it("progress is one of four events, and every failure is a CoursesyncError", () => {
    expectTypeOf<ProgressEvent["type"]>().toEqualTypeOf<"listing" | "write" | "step" | "message">();
    expectTypeOf<Extract<ProgressEvent, { type: "step" }>["step"]>().toEqualTypeOf<
      "listed" | "converted" | "planned" | "written" | "committed"
    >();
    expectTypeOf(pull)
      .parameter(0)
      .exclude<undefined>()
      .toHaveProperty("onProgress")
      .toEqualTypeOf<((event: ProgressEvent) => void) | undefined>();
    expectTypeOf<CoursesyncError>().toExtend<Error>();
    expectTypeOf<CoursesyncError["exitCode"]>().toEqualTypeOf<number>();
    expectTypeOf<CoursesyncError["hint"]>().toEqualTypeOf<string | undefined>();
  });

  it("coursesync/emulator starts from its options and gives a URL and close()", () => {
    expectTypeOf(startEmulator).parameter(0).toEqualTypeOf<StartEmulatorOptions | undefined>();
    expectTypeOf(startEmulator).toBeCallableWith({
      port: 0,
      seed: null,
      latency: 5,
      rate: 10,
      faults: { fail: 0.1 },
    });
    expectTypeOf(startEmulator).returns.toEqualTypeOf<Promise<Emulator>>();
    expectTypeOf<Emulator["url"]>().toEqualTypeOf<string>();
    expectTypeOf<Emulator["close"]>().toEqualTypeOf<() => Promise<void>>();
  });
});
