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

describe("URLs that carry secrets", () => {
  it.each([
    "http://u:S3C/RETPW@host/api/v1",
    "http://u:S3C?RETPW@host/api/v1",
    "http://u:S3C RETPW@host/api/v2",
    "https://u:S3C/RETPW@host/api",
    "ftp://u:S3CRETPW@host/api/v1",
  ])("never echoes the userinfo of %s", (raw) => {
    let message = "";
    try {
      parseBaseUrl(raw);
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(/^--url: /);
    expect(message).not.toMatch(/S3C|RETPW/);
    expect(message).toContain("[redacted]@host");
  });

  it("never echoes a secret query parameter of a rejected URL", () => {
    let message = "";
    try {
      parseBaseUrl("https://x.test/api/v2?access_token=S3CRET&page=2");
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toBe(
      '--url: "https://x.test/api/v2?access_token=[redacted]&page=2" does not end in /api/v1',
    );
  });

  it.each([
    "access_token",
    "api_key",
    "token2",
    "key",
    "secret",
    "client_secret",
    "sig",
    "signature",
    "X-Amz-Signature",
    "auth",
    "session_id",
    "credentials",
    "PASSWD",
    "password",
    "email",
  ])("redacts the value of a %s parameter", (name) => {
    expect(redactUrl(`GET https://h.test/a?page=2&${name}=S3CRET#top failed`)).toBe(
      `GET https://h.test/a?page=2&${name}=[redacted]#top failed`,
    );
    expect(redactUrl(`/a?${name}=S3CRET`)).toBe(`/a?${name}=[redacted]`);
  });

  it("redacts userinfo up to its last @, even when it holds / or ?", () => {
    expect(redactUrl("GET http://u:S3C/RET@PW@host/api/v1 failed")).toBe(
      "GET http://[redacted]@host/api/v1 failed",
    );
    expect(redactUrl('"http://u:S3C?RET@host/x" and http://h/y')).toBe(
      '"http://[redacted]@host/x" and http://h/y',
    );
  });

  it("keeps parameters that are not secrets and text without URLs", () => {
    const text = "GET /api/v1/courses?page=2&per_page=50 failed; mail me@example.com";
    expect(redactUrl(text)).toBe(text);
  });
});
