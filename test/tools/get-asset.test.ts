import { afterAll, describe, expect, test } from "bun:test";
import { rmSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { cleanupTemp, tempDir, write, writeSkill } from "../helpers/fs.ts";
import { recordingSessions, textOf } from "../helpers/hub.ts";
import { png } from "../helpers/images.ts";
import { writeExampleTree, writeNode } from "../helpers/tree.ts";

afterAll(cleanupTemp);
/** A client on a folder with every tool, output schemas cached (so the SDK validates structuredContent), events recorded. */
const open = recordingSessions();

describe("get_asset", () => {
  test("a text template: content, size and type; the asset_served event", async () => {
    const { call, events } = await open(writeExampleTree(tempDir()));
    const result = await call("get_asset", { skill_path: "ui/react/auth", file: "assets/AuthProvider.tsx.template" });
    expect(result.structuredContent).toEqual({
      skill_path: "ui/react/auth",
      file: "assets/AuthProvider.tsx.template",
      content: "import React from 'react';\n",
      size_bytes: 27,
      type: "template",
    });
    expect(events).toEqual([
      {
        type: "asset_served",
        data: {
          skill_path: "ui/react/auth",
          file: "assets/AuthProvider.tsx.template",
          asset_type: "template",
          is_inherited: false,
          size_bytes: 27,
        },
      },
    ]);
  });

  test("an image: base64 with its MIME type", async () => {
    const { call } = await open(writeExampleTree(tempDir()));
    expect(
      (await call("get_asset", { skill_path: "ui/react/auth", file: "assets/auth-flow.svg" })).structuredContent,
    ).toEqual({
      skill_path: "ui/react/auth",
      file: "assets/auth-flow.svg",
      content_base64: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>\n').toString("base64"),
      size_bytes: 42,
      type: "image",
      mime_type: "image/svg+xml",
    });
    // SVG is text, which no model API takes as an image: the JSON text carries its base64, as before.
    const svg = await call("get_asset", { skill_path: "ui/react/auth", file: "assets/auth-flow.svg" });
    expect(svg.content.map((c) => c.type)).toEqual(["text"]);
    expect(JSON.parse(textOf(svg))).toEqual(svg.structuredContent);
  });

  test("a PNG: its JSON text with content_base64, then an image block", async () => {
    const root = tempDir();
    const logo = png(3, 2);
    writeNode(root, "brand.md", {
      extra:
        "assets:\n  - file: assets/logo.png\n    type: image\n    description: Logo\n  - file: assets/pointer.png\n    type: image\n    description: Not fetched from LFS",
    });
    write(join(root, "brand/assets/logo.png"), logo);
    write(join(root, "brand/assets/pointer.png"), "version https://git-lfs.github.com/spec/v1\n");
    const { call, client } = await open(root);
    expect((await client.listTools()).tools.find((t) => t.name === "get_asset")?.outputSchema).toBeDefined();
    const result = await call("get_asset", { skill_path: "brand", file: "assets/logo.png" });
    const described = {
      skill_path: "brand",
      file: "assets/logo.png",
      size_bytes: logo.length,
      type: "image",
      mime_type: "image/png",
    };
    expect(result.structuredContent).toEqual({ ...described, content_base64: logo.toString("base64") });
    // The text is the whole answer as JSON, base64 included (a client of the tree tools parses it), then the image.
    expect(result.content.map((c) => c.type)).toEqual(["text", "image"]);
    expect(JSON.parse(textOf(result))).toEqual(result.structuredContent);
    expect(result.content[1]).toEqual({ type: "image", data: logo.toString("base64"), mimeType: "image/png" });
    // Bytes that are not the image their name says: as before, the JSON text with the base64 and no image.
    const pointer = await call("get_asset", { skill_path: "brand", file: "assets/pointer.png" });
    expect(pointer.content.map((c) => c.type)).toEqual(["text"]);
    expect(JSON.parse(textOf(pointer))).toEqual(pointer.structuredContent);
    expect(pointer.structuredContent).toMatchObject({ mime_type: "image/png", content_base64: expect.any(String) });
  });

  test("a link is judged by the file it leads to, as read_skill_file judges it: one to a PNG is an image", async () => {
    const root = tempDir();
    const logo = png(3, 2);
    writeNode(root, "brand.md", {
      extra:
        "assets:\n  - file: assets/diagram\n    type: image\n    description: Diagram\n  - file: assets/notes.png\n    type: other\n    description: Notes",
    });
    write(join(root, "brand/assets/logo.png"), logo);
    write(join(root, "brand/assets/notes.md"), "# Notes\n");
    symlinkSync("logo.png", join(root, "brand/assets/diagram"));
    symlinkSync("notes.md", join(root, "brand/assets/notes.png"));
    const { call } = await open(root);
    const diagram = await call("get_asset", { skill_path: "brand", file: "assets/diagram" });
    expect(diagram.structuredContent).toMatchObject({
      mime_type: "image/png",
      content_base64: logo.toString("base64"),
    });
    expect(diagram.content[1]).toEqual({ type: "image", data: logo.toString("base64"), mimeType: "image/png" });
    // Named as an image, leading to text: the text.
    expect(
      (await call("get_asset", { skill_path: "brand", file: "assets/notes.png" })).structuredContent,
    ).toMatchObject({ content: "# Notes\n" });
  });

  test("an inherited asset or script: resolved up the chain, with resolved_from; the node's own copy wins", async () => {
    const { call, events } = await open(writeExampleTree(tempDir()));
    expect(
      (await call("get_asset", { skill_path: "ui/react/auth", file: "./assets/hooks.md" })).structuredContent,
    ).toEqual({
      skill_path: "ui/react/auth",
      resolved_from: "ui/react/_index",
      file: "assets/hooks.md",
      content: "# Hooks\n",
      size_bytes: 8,
      type: "other",
    });
    expect(
      (await call("get_asset", { skill_path: "ui/react/auth", file: "scripts/lint-component.sh" })).structuredContent,
    ).toMatchObject({ resolved_from: "ui/react/_index", type: "script" });
    expect(
      (await call("get_asset", { skill_path: "ui/react/auth", file: "assets/component-base.tsx.template" }))
        .structuredContent,
    ).toMatchObject({ content: "// auth base\n" });
    expect(
      (await call("get_asset", { skill_path: "ui/react/testing", file: "assets/component-base.tsx.template" }))
        .structuredContent,
    ).toMatchObject({ content: "// parent base\n" });
    expect(events[0]?.data.is_inherited).toBe(true);
  });

  test("inherit: false → nothing inherited", async () => {
    const root = writeExampleTree(tempDir());
    writeNode(root, "_root.md", { extra: "assets:\n  - file: global.css\n    description: Global CSS" });
    write(join(root, "_root/global.css"), "body{}\n");
    const { call } = await open(root);
    expect(
      (await call("get_asset", { skill_path: "ui/react/auth", file: "global.css" })).structuredContent,
    ).toMatchObject({ resolved_from: "_root" });
    expect((await call("get_asset", { skill_path: "no-inherit", file: "global.css" })).structuredContent).toEqual({
      error: {
        code: "FILE_NOT_FOUND",
        message:
          "Asset 'global.css' not found for skill 'no-inherit'. It declares no assets or scripts. Only files declared in the skill's frontmatter are served.",
        skill_path: "no-inherit",
        file: "global.css",
        available: [],
      },
    });
  });

  test("over assets.max_size_bytes (1 MiB): FILE_TOO_LARGE with the sizes", async () => {
    const root = tempDir();
    writeNode(root, "big.md", { extra: "assets:\n  - file: big.txt\n    description: Big" });
    write(join(root, "big/big.txt"), "x".repeat(1_048_577));
    const { call } = await open(root);
    const result = await call("get_asset", { skill_path: "big", file: "big.txt" });
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toEqual({
      error: {
        code: "FILE_TOO_LARGE",
        message: "'big.txt' is 1048577 bytes; get_asset serves at most 1048576 bytes (assets.max_size_bytes).",
        skill_path: "big",
        file: "big.txt",
        size_bytes: 1048577,
        max_bytes: 1048576,
      },
    });
  });

  test("Security: traversal, absolute paths and symlink escapes are refused", async () => {
    const root = writeExampleTree(tempDir());
    const secret = write(join(tempDir(), "secret.txt"), "secret");
    writeNode(root, "leak.md", { extra: "assets:\n  - file: link.txt\n    description: Link" });
    write(join(root, "leak/placeholder"), "");
    symlinkSync(secret, join(root, "leak/link.txt"));
    const { call } = await open(root);
    for (const file of ["../../../etc/passwd", "/etc/passwd", "assets\\..\\..\\x", "C:\\x", "a\0b"]) {
      const result = await call("get_asset", { skill_path: "ui/react/auth", file });
      expect(result.structuredContent).toMatchObject({ error: { code: "PATH_OUTSIDE_SKILL" } });
    }
    const escape = await call("get_asset", { skill_path: "leak", file: "link.txt" });
    expect(escape.structuredContent).toEqual({
      error: {
        code: "PATH_OUTSIDE_SKILL",
        message: "'link.txt' resolves outside the skill's folder and is not served.",
        skill_path: "leak",
        file: "link.txt",
      },
    });
    expect(textOf(escape)).not.toContain("secret");
  });

  test("undeclared files are not served; declared but missing ones say so", async () => {
    const root = writeExampleTree(tempDir());
    write(join(root, "ui/react/auth/assets/undeclared.txt"), "hidden");
    rmSync(join(root, "ui/react/auth/assets/auth-flow.svg"));
    const { call } = await open(root);
    const undeclared = await call("get_asset", { skill_path: "ui/react/auth", file: "assets/undeclared.txt" });
    expect(undeclared.structuredContent).toMatchObject({ error: { code: "FILE_NOT_FOUND" } });
    expect((undeclared.structuredContent as { error: { available: string[] } }).error.available).toEqual([
      "assets/AuthProvider.tsx.template",
      "assets/auth-config.example.ts",
      "assets/auth-flow.svg",
      "assets/component-base.tsx.template",
      "assets/hooks.md",
      "scripts/lint-component.sh",
      "scripts/scaffold-auth.sh",
      "scripts/validate-auth-config.ts",
    ]);
    expect(
      (await call("get_asset", { skill_path: "ui/react/auth", file: "assets/auth-flow.svg" })).structuredContent,
    ).toEqual({
      error: {
        code: "FILE_NOT_FOUND",
        message:
          "Asset 'assets/auth-flow.svg' is declared by 'ui/react/auth' but missing on disk ('assets/auth-flow.svg' does not exist). The skill is still usable without it.",
        skill_path: "ui/react/auth",
        file: "assets/auth-flow.svg",
      },
    });
  });

  test("binary by content: NUL bytes in the first KiB → base64, application/octet-stream", async () => {
    const root = tempDir();
    writeNode(root, "data.md", { extra: "assets:\n  - file: blob.dat\n    description: Blob" });
    write(join(root, "data/blob.dat"), new Uint8Array([1, 0, 2, 3]));
    const { call } = await open(root);
    expect((await call("get_asset", { skill_path: "data", file: "blob.dat" })).structuredContent).toEqual({
      skill_path: "data",
      file: "blob.dat",
      content_base64: "AQACAw==",
      size_bytes: 4,
      type: "other",
      mime_type: "application/octet-stream",
    });
  });

  test("unknown and disabled skills; an Agent Skill's own files", async () => {
    const root = writeExampleTree(tempDir());
    writeSkill(root, "pdf");
    write(join(root, "pdf/scripts/extract.py"), "print('x')\n");
    const { call } = await open(root, { SKILLHUB_ENABLED_SKILLS: "pdf,ui/react/auth" });
    expect((await call("get_asset", { skill_path: "ui/react/auht", file: "x" })).structuredContent).toMatchObject({
      error: { code: "SKILL_NOT_FOUND", suggestions: ["ui/react/auth"] },
    });
    expect((await call("get_asset", { skill_path: "api/auth", file: "x" })).structuredContent).toMatchObject({
      error: { code: "SKILL_DISABLED" },
    });
    expect((await call("get_asset", { skill_path: "pdf", file: "scripts/extract.py" })).structuredContent).toEqual({
      skill_path: "pdf",
      file: "scripts/extract.py",
      content: "print('x')\n",
      size_bytes: 11,
      type: "other",
    });
  });
});
