import path from "node:path";
import { describe, expect, it } from "vitest";
import { memoryFs } from "../../src/tree/tree-fs.js";

const root = path.resolve("/tree");
const at = (...parts: string[]) => path.join(root, ...parts);

describe("memoryFs", () => {
  it("writes, reads, lists, moves and removes files and folders as Node's file system does", async () => {
    const fs = memoryFs();
    await expect(fs.writeFile(at("courses", "a.md"), "x")).rejects.toMatchObject({ code: "ENOENT" });
    await fs.mkdir(at("courses", "web"));
    await fs.writeFile(at("courses", "web", "01-a.md"), "one");
    await fs.appendFile(at("courses", "web", "01-a.md"), "+two");
    expect(await fs.readFile(at("courses", "web", "01-a.md"))).toBe("one+two");
    expect(await fs.readdir(at("courses"))).toEqual(["web"]);
    await fs.rename(at("courses", "web"), at("courses", "css"));
    expect(await fs.readdir(at("courses", "css"))).toEqual(["01-a.md"]);
    await expect(fs.readFile(at("courses", "web", "01-a.md"))).rejects.toMatchObject({ code: "ENOENT" });
    await expect(fs.rmdir(at("courses", "css"))).rejects.toMatchObject({ code: "ENOTEMPTY" });
    await fs.rm(at("courses", "css", "01-a.md"));
    await fs.rm(at("courses", "css", "01-a.md"));
    await fs.rmdir(at("courses", "css"));
    expect(await fs.readdir(at("courses"))).toEqual([]);
  });
});
