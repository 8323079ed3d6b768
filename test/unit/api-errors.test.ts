import { describe, expect, it } from "vitest";
import { ApiError, NetworkError, serverMessage, WriteOutcomeUnknownError } from "../../src/api/errors.js";
import { scrubSecrets } from "../../src/api/secrets.js";
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

describe("secrets the server echoes", () => {
  /** Quotes, a backslash and HTML-special characters: every encoding step changes it. */
  const password = `p'w"q<x>&y\\z`;
  /** What the client's scrub did before scrubSecrets: the plain form only. */
  const plainScrub = (text: string) => text.replaceAll(password, "[redacted]");

  it("scrubs before clipping, so a secret cut at 300 characters leaks none of it", () => {
    const token = "tok_ABCDEFGHIJKLMNOP";
    const error = new ApiError({
      method: "GET",
      path: "/api/v1/courses",
      status: 401,
      body: `${"x".repeat(280)} token ${token} rejected`,
      scrub: (text) => text.replaceAll(token, "[redacted]"),
    });
    expect(error.message).not.toContain("tok_");
    expect(error.serverMessage.length).toBeLessThanOrEqual(300);
  });

  it("redacts URL userinfo before clipping too", () => {
    const error = new ApiError({
      method: "GET",
      path: "/",
      status: 500,
      body: `${"x".repeat(270)} see https://u:SECRETVALUE123@h.test/a now`,
    });
    expect(error.message).not.toContain("SECRET");
  });

  it("scrubs a password that a JSON body echoes, when the body is printed re-stringified", () => {
    const error = new ApiError({
      method: "POST",
      path: "/api/login",
      status: 500,
      body: JSON.stringify({ status: 500, params: { password } }),
      scrub: plainScrub,
    });
    expect(error.message).toContain("[redacted]");
    for (const part of ["p'w", "q<x>", "y\\\\z", "y\\z"]) expect(error.message).not.toContain(part);
  });

  it.each([
    "p&#39;w&quot;q&lt;x&gt;&amp;y\\z",
    "p&#x27;w&#34;q&#60;x&#x3E;&#38;y&#92;z",
    "p&apos;w&quot;q&lt;x&gt;&amp;y\\z",
  ])("scrubs a password that an HTML page echoes entity-encoded: %s", (encoded) => {
    const error = new ApiError({
      method: "POST",
      path: "/api/login",
      status: 401,
      contentType: "text/html",
      body: `<html><head><title>Wrong password ${encoded}</title></head><body></body></html>`,
      scrub: plainScrub,
    });
    expect(error.message).toContain("Wrong password [redacted]");
    expect(error.message).not.toMatch(/p(&|')/);
  });

  it("scrubSecrets removes the plain, URL-, JSON- and HTML-encoded forms", () => {
    const forms = [
      password,
      encodeURIComponent(password),
      new URLSearchParams({ s: password }).toString().slice(2),
      JSON.stringify(password).slice(1, -1),
      "p\\u0027w\\u0022q\\u003cx\\u003E\\u0026y\\\\z",
      "p&#39;w&quot;q&lt;x&gt;&amp;y\\z",
      "p&#x27;w&#X22;q&#060;x&gt;&#38;y&#x5c;z",
    ];
    for (const form of forms) expect(scrubSecrets(`was ${form}.`, [password])).toBe("was [redacted].");
  });

  it("scrubSecrets leaves secrets shorter than 4 characters alone", () => {
    const text = "Invalid token: a b c, not abc";
    expect(scrubSecrets(text, [" ", "abc", "  ab  ", "", undefined])).toBe(text);
    expect(scrubSecrets("key abcd", ["abcd"])).toBe("key [redacted]");
  });

  it("never prints a short secret in the path it composes", () => {
    const error = new ApiError({ method: "GET", path: "/api/v1/courses?auth_token=%20", status: 401 });
    expect(error.message).toBe("GET /api/v1/courses?auth_token=[redacted] failed: 401 Unauthorized");
  });
});
