import { describe, expect, it } from "vitest";
import { ApiError, NetworkError, serverMessage, WriteOutcomeUnknownError } from "../../src/api/errors.js";
import { UserError } from "../../src/errors.js";

describe("serverMessage", () => {
  it("reads {errors: {field: [msgs]}} and keeps the field map", () => {
    const body = JSON.stringify({
      errors: { title: ["can't be blank"], ordinal: ["must be a number", "is odd"] },
    });
    expect(serverMessage(body)).toEqual({
      message: "title can't be blank; ordinal must be a number; ordinal is odd",
      fieldErrors: { title: ["can't be blank"], ordinal: ["must be a number", "is odd"] },
    });
  });

  it("leaves base errors without a field name", () => {
    expect(serverMessage(JSON.stringify({ errors: { base: ["Course is locked"] } })).message).toBe(
      "Course is locked",
    );
  });

  it("reads {errors: [msgs]}, {error}, {message}", () => {
    expect(serverMessage(JSON.stringify({ errors: ["Title can't be blank"] })).message).toBe(
      "Title can't be blank",
    );
    expect(serverMessage(JSON.stringify({ error: "Not found" }))).toEqual({
      message: "Not found",
      fieldErrors: undefined,
    });
    expect(serverMessage(JSON.stringify({ message: "Slow down" })).message).toBe("Slow down");
    expect(serverMessage(JSON.stringify({ error: { message: "Nested" } })).message).toBe("Nested");
  });

  it("reads plain text and HTML error pages", () => {
    expect(serverMessage("  Service\n unavailable  ").message).toBe("Service unavailable");
    const html = "<html><head><title>502 Bad Gateway</title></head><body><h1>502</h1></body></html>";
    expect(serverMessage(html, "text/html").message).toBe("502 Bad Gateway");
    expect(serverMessage("").message).toBe("");
  });

  it("clips very long bodies", () => {
    expect(serverMessage("x".repeat(5000)).message.length).toBeLessThanOrEqual(300);
  });
});

describe("ApiError", () => {
  it("names method, path, status and the server's words", () => {
    const error = new ApiError({
      method: "PATCH",
      path: "/api/v1/chapters/12",
      status: 422,
      body: JSON.stringify({ errors: { title: ["can't be blank"] } }),
    });
    expect(error).toBeInstanceOf(UserError);
    expect(error.message).toBe(
      "PATCH /api/v1/chapters/12 failed: 422 Unprocessable Entity: title can't be blank",
    );
    expect(error.fieldErrors).toEqual({ title: ["can't be blank"] });
    expect(error.exitCode).toBe(1);
    expect(error.hint).toBeDefined();
  });

  it("redacts secrets in the path and scrubs the server's words", () => {
    const error = new ApiError({
      method: "POST",
      path: "/api/login?email=a%40b.test&password=hunter22",
      status: 401,
      body: JSON.stringify({ error: "bad password hunter22" }),
      scrub: (text) => text.replaceAll("hunter22", "[redacted]"),
    });
    expect(error.message).not.toContain("hunter22");
    expect(error.message).toContain("password=[redacted]");
    expect(error.message).toContain("bad password [redacted]");
  });

  it("omits the colon when the server said nothing", () => {
    expect(new ApiError({ method: "GET", path: "/api/v1/courses", status: 500 }).message).toBe(
      "GET /api/v1/courses failed: 500 Internal Server Error",
    );
  });
});

describe("NetworkError and WriteOutcomeUnknownError", () => {
  it("names the URL without secrets and says what to check", () => {
    const error = new NetworkError({
      method: "POST",
      url: "https://x.test/api/login?email=a&password=p",
      code: "ECONNREFUSED",
      attempts: 6,
    });
    expect(error.message).toBe(
      "POST https://x.test/api/login?email=[redacted]&password=[redacted] failed: connection refused (ECONNREFUSED) after 6 attempts",
    );
    expect(error.hint).toMatch(/URL/);
    expect(error.exitCode).toBe(1);
  });

  it("carries the resource and the fields sent", () => {
    const error = new WriteOutcomeUnknownError({
      path: "/api/v1/courses",
      resource: "courses",
      fields: { title: "Intro" },
      reason: "ECONNRESET",
    });
    expect(error.resource).toBe("courses");
    expect(error.fields).toEqual({ title: "Intro" });
    expect(error.message).toContain("course may or may not have been created");
  });
});
