import { describe, expect, it } from "vitest";
import { canOpenBrowser } from "../../src/cli/open-browser.js";
import { hostAllowed, isLoopback } from "../../src/preview/server.js";

describe("preview Host check", () => {
  it("takes the address served, and localhost on loopback", () => {
    expect(hostAllowed("127.0.0.1:4400", "127.0.0.1", 4400)).toBe(true);
    expect(hostAllowed("LOCALHOST:4400", "127.0.0.1", 4400)).toBe(true);
    expect(hostAllowed("[::1]:4400", "::1", 4400)).toBe(true);
    expect(hostAllowed("box.lan:4400", "box.lan", 4400)).toBe(true);
  });

  it("refuses another name (DNS rebinding), another port, and no Host", () => {
    expect(hostAllowed("attacker.example:4400", "127.0.0.1", 4400)).toBe(false);
    expect(hostAllowed("127.0.0.1:4401", "127.0.0.1", 4400)).toBe(false);
    expect(hostAllowed("127.0.0.1", "127.0.0.1", 4400)).toBe(false);
    expect(hostAllowed(undefined, "127.0.0.1", 4400)).toBe(false);
    expect(hostAllowed("localhost:4400", "192.168.1.5", 4400)).toBe(false);
  });

  it("on a wildcard address, takes any IP literal on the port but no other name", () => {
    expect(hostAllowed("192.168.1.5:4400", "0.0.0.0", 4400)).toBe(true);
    expect(hostAllowed("[fe80::1]:4400", "::", 4400)).toBe(true);
    expect(hostAllowed("192.168.1.5:80", "0.0.0.0", 4400)).toBe(false);
    expect(hostAllowed("attacker.example:4400", "0.0.0.0", 4400)).toBe(false);
  });

  it("knows loopback addresses", () => {
    expect(["127.0.0.1", "127.1.2.3", "::1", "localhost"].map(isLoopback)).toEqual([true, true, true, true]);
    expect(["0.0.0.0", "::", "192.168.1.5", "example.com"].map(isLoopback)).toEqual([
      false,
      false,
      false,
      false,
    ]);
  });
});

describe("opening a browser", () => {
  it("happens on a terminal with a display, outside CI and SSH", () => {
    expect(canOpenBrowser({ DISPLAY: ":0" }, "linux", true)).toBe(true);
    expect(canOpenBrowser({ WAYLAND_DISPLAY: "wayland-0" }, "linux", true)).toBe(true);
    expect(canOpenBrowser({}, "linux", true)).toBe(false);
    expect(canOpenBrowser({ DISPLAY: ":0" }, "linux", false)).toBe(false);
    expect(canOpenBrowser({ DISPLAY: ":0", CI: "true" }, "linux", true)).toBe(false);
    expect(canOpenBrowser({ SSH_CONNECTION: "1 2 3 4" }, "darwin", true)).toBe(false);
    expect(canOpenBrowser({}, "darwin", true)).toBe(true);
    expect(canOpenBrowser({}, "win32", false)).toBe(false);
  });
});
