import { describe, expect, it } from "vitest";
import { loginUrlFor, parseBaseUrl, redactUrl } from "../../src/api/login-url.js";

describe("site URLs", () => {
  it("derives the login address by replacing the trailing /v1 with /login", () => {
    expect(loginUrlFor(parseBaseUrl("https://x.test/school/api/v1")).toString()).toBe(
      "https://x.test/school/api/login",
    );
    expect(loginUrlFor(parseBaseUrl("http://127.0.0.1:4000/api/v1/")).toString()).toBe(
      "http://127.0.0.1:4000/api/login",
    );
  });

  it.each([
    "not a url",
    "ftp://x.test/api/v1",
    "https://x.test/api",
    "https://x.test/api/v2",
    "https://u:p@x.test/api/v1",
  ])("rejects %s as a base URL with exit 2", (raw) => {
    expect(() => parseBaseUrl(raw)).toThrow(expect.objectContaining({ exitCode: 2 }));
  });

  it("redacts passwords, tokens and userinfo wherever they appear", () => {
    const text = redactUrl(
      "POST https://x.test/api/login?email=a%40b.c&password=s3cret&x=1 and https://u:pw@h/x",
    );
    expect(text).not.toContain("s3cret");
    expect(text).not.toContain("pw@");
    expect(text).toContain("password=[redacted]");
    expect(text).toContain("x=1");
  });
});
