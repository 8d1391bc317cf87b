import { existsSync, readFileSync } from "node:fs";
import type { Document, YAMLMap } from "yaml";
import { writeAtomicSync } from "../util/atomic-write.ts";
import { ConfigError, errorMessage } from "../util/errors.ts";
import { yaml } from "../util/lazy-yaml.ts";
import type { RepoEntryConfig } from "./schema.ts";

/** A `repos:` item as `skillhub add` writes it: a bare URL when nothing else is set. */
export type RepoItem = string | RepoEntryConfig;

/**
 * A SkillHub config file (~/.skillhub/config.yaml or a project's skillhub.yaml) changed the way a
 * person would: `git.repos` and `sources.dirs` edited in place, every other key, comment and blank
 * line kept as it was. Saved atomically. A file that is not a YAML mapping is never rewritten.
 */
export class ConfigFileEdit {
  private constructor(
    readonly path: string,
    private readonly doc: Document,
    /** The file did not exist: saving creates it. */
    readonly created: boolean,
  ) {}

  /** Open `path` (or start it, with `header` as its first comment). Throws ConfigError when it is not a YAML mapping. */
  static open(path: string, header: string): ConfigFileEdit {
    const Y = yaml();
    if (!existsSync(path)) {
      const doc = new Y.Document({});
      doc.commentBefore = header;
      return new ConfigFileEdit(path, doc, true);
    }
    let text: string;
    try {
      text = readFileSync(path, "utf8");
    } catch (error) {
      throw new ConfigError(`cannot read ${path}: ${errorMessage(error)}.`, { key: path });
    }
    const doc: Document = Y.parseDocument(text);
    if (doc.errors.length > 0)
      throw new ConfigError(`${path} is not valid YAML (${doc.errors[0]?.message.split("\n")[0]}); fix it first.`, {
        key: path,
      });
    if (doc.contents === null) doc.contents = doc.createNode({});
    if (!Y.isMap(doc.contents))
      throw new ConfigError(`${path} is not a YAML mapping (keys and values); fix it first.`, { key: path });
    for (const key of ["git.repos", "sources.dirs"]) {
      const value = doc.getIn(key.split("."), true);
      if (value !== undefined && !Y.isSeq(value) && !(Y.isScalar(value) && value.value === null))
        throw new ConfigError(`${path}: ${key} is not a list; fix it first.`, { key });
    }
    return new ConfigFileEdit(path, doc, false);
  }

  /** The `git.repos` items, as written. */
  repos(): RepoItem[] {
    return this.list("git.repos") as RepoItem[];
  }

  /** The `sources.dirs` items, as written. */
  dirs(): string[] {
    return this.list("sources.dirs").map(String);
  }

  /** Append a repository, or replace item `index` with it. */
  setRepo(item: RepoItem, index?: number): void {
    this.set(["git", "repos"], item, index);
  }

  addDir(dir: string): void {
    this.set(["sources", "dirs"], dir);
  }

  removeRepo(index: number): void {
    this.doc.deleteIn(["git", "repos", index]);
  }

  removeDir(index: number): void {
    this.doc.deleteIn(["sources", "dirs", index]);
  }

  save(): void {
    writeAtomicSync(this.path, [this.doc.toString({ lineWidth: 0 })]);
  }

  private list(key: string): unknown[] {
    const value = this.doc.getIn(key.split("."));
    return Array.isArray(value) ? value : yaml().isSeq(value) ? (value.toJSON() as unknown[]) : [];
  }

  private set(path: [string, string], item: unknown, index?: number): void {
    const Y = yaml();
    const node = this.doc.createNode(item);
    const current = this.doc.getIn(path, true);
    if (index !== undefined) this.doc.setIn([...path, index], node);
    else if (Y.isSeq(current)) current.items.push(node);
    else {
      const section = this.doc.getIn([path[0]], true);
      // `git:` with nothing under it is a null scalar: a mapping takes its place.
      if (!Y.isMap(section)) this.doc.setIn([path[0]], this.doc.createNode({}));
      (this.doc.getIn([path[0]], true) as YAMLMap).set(path[1], this.doc.createNode([item]));
    }
  }
}
