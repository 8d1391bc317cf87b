/**
 * `make bench-pick`: which skills the instructions name at session start, on the real corpora
 * (../shared/corpora or SKILLHUB_CORPORA, 1,018 served skills), for a few kinds of project and none,
 * with no usage history. Each scenario's twelve names come from the compiled server's `initialize`
 * answer (stdio, --project DIR), beside the rule before usage was kept (alwaysApply, then by name).
 * Precision is against a hand-made list per scenario: skills a person starting work on such a project
 * would want a model to know of (written down below, judged from the skills' descriptions). Then the
 * time a pick takes in this process at 1,018 and at 10,000 skills.
 * Usage: bun bench/pick.ts
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { Scanner } from "../src/catalog/scanner.ts";
import { NAMED_SKILLS_MAX } from "../src/server/instructions.ts";
import { buildSourceList } from "../src/sources/source-list.ts";
import { projectTerms } from "../src/usage/project-signals.ts";
import { pickSkills } from "../src/usage/skill-pick.ts";
import { INITIALIZE, spawnServer } from "./lib/rpc.ts";
import { generateSkills } from "./lib/skills.ts";

const corpora = process.env.SKILLHUB_CORPORA ?? join(import.meta.dir, "..", "..", "shared", "corpora");
if (!existsSync(corpora)) throw new Error(`corpora not found at ${corpora} (set SKILLHUB_CORPORA)`);
const skillhub = resolve(import.meta.dir, "..", "dist", "skillhub");
const work = mkdtempSync(join(tmpdir(), "skillhub-bench-pick-"));
const say = (text = "") => process.stdout.write(`${text}\n`);

/** Skills any software project's session is better for knowing of (planning, testing, review, debugging, CI). */
const DEVELOPMENT = [
  "test-driven-development",
  "systematic-debugging",
  "requesting-code-review",
  "receiving-code-review",
  "verification-before-completion",
  "using-git-worktrees",
  "finishing-a-development-branch",
  "writing-plans",
  "executing-plans",
  "brainstorming",
  "subagent-driven-development",
  "dispatching-parallel-agents",
  "create-plan",
  "gh-fix-ci",
  "gh-address-comments",
  "changelog-generator",
  "github-automation",
];

interface Scenario {
  name: string;
  /** Files of the project (path → content); none: no project root at all (a desktop client started in /). */
  files?: Record<string, string>;
  relevant?: readonly string[];
}

const SCENARIOS: Scenario[] = [
  { name: "no project (started in /)" },
  {
    name: "TypeScript + React web app",
    files: {
      "package.json": JSON.stringify({
        dependencies: { react: "19", next: "15" },
        devDependencies: { typescript: "5", vitest: "3", "@playwright/test": "1" },
      }),
      "tsconfig.json": "{}",
      "src/app.tsx": "",
      "src/api.ts": "",
      ".github/workflows/ci.yml": "",
      ".git/HEAD": "",
    },
    relevant: [
      ...DEVELOPMENT,
      "frontend-design",
      "webapp-testing",
      "web-artifacts-builder",
      "artifacts-builder",
      "theme-factory",
      "vercel-automation",
    ],
  },
  {
    name: "Python single-cell analysis",
    files: {
      "requirements.txt": "pandas\nnumpy\nscanpy\nanndata\nmatplotlib\nseaborn\nscikit-learn\numap-learn\n",
      "notebooks/qc.ipynb": "{}",
      "src/pipeline.py": "",
      ".git/HEAD": "",
    },
    relevant: [
      ...DEVELOPMENT,
      "scanpy",
      "anndata",
      "scvi-tools",
      "scvelo",
      "cellxgene-census",
      "matplotlib",
      "seaborn",
      "scikit-learn",
      "umap-learn",
      "statsmodels",
      "polars",
      "dask",
      "exploratory-data-analysis",
      "statistical-analysis",
      "scientific-visualization",
    ],
  },
  {
    name: "Go service in Docker",
    files: {
      "go.mod": "module example.com/svc\n",
      "cmd/main.go": "",
      Dockerfile: "FROM golang\n",
      ".github/workflows/ci.yml": "",
      ".git/HEAD": "",
    },
    relevant: [...DEVELOPMENT, "docker-hub-automation", "circleci-automation"],
  },
];

/** The twelve (or fewer) names the instructions give, in order. */
function namedIn(instructions: string): string[] {
  return instructions
    .split("\n")
    .filter((line) => line.startsWith("- "))
    .map((line) => line.slice(2, line.indexOf(": ")));
}

const catalog = new Scanner().scan(
  buildSourceList({ dirs: [corpora], onlyDirs: true, projectDir: null, homeDir: work, hubHome: work }),
  { maxDepth: 8, maxDirs: 250_000 },
);
say(`${catalog.skills.length} skills served from ${corpora}`);
const byName = (a: { name: string }, b: { name: string }) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
const before = [...catalog.skills]
  .sort((a, b) => Number(b.alwaysApply) - Number(a.alwaysApply) || byName(a, b))
  .slice(0, NAMED_SKILLS_MAX)
  .map((s) => s.name);

const collectionOf = new Map(catalog.skills.map((s) => [s.name, s.dir.slice(0, s.dir.lastIndexOf("/"))]));
const wellFormed = (name: string) => /^[a-z0-9]+(-[a-z0-9]+)*$/.test(name);
const describeList = (names: readonly string[], relevant?: readonly string[]) => {
  const hits = relevant ? names.filter((n) => relevant.includes(n)).length : undefined;
  const collections = new Set(names.map((n) => collectionOf.get(n))).size;
  const automations = names.filter((n) => /automation$/i.test(n)).length;
  const odd = names.filter((n) => !wellFormed(n)).length;
  return `${hits === undefined ? "" : `relevant ${hits}/${names.length}, `}collections ${collections}, *-automation ${automations}, ill-formed names ${odd}`;
};

for (const scenario of SCENARIOS) {
  const project = scenario.files ? join(work, scenario.name.replace(/\W+/g, "-")) : undefined;
  if (project)
    for (const [path, text] of Object.entries(scenario.files ?? {})) {
      mkdirSync(join(project, path, ".."), { recursive: true });
      writeFileSync(join(project, path), text);
    }
  const home = join(work, `home-${SCENARIOS.indexOf(scenario)}`);
  mkdirSync(home, { recursive: true });
  const args = [skillhub, "--skills-dir", corpora, ...(project ? ["--project", project] : [])];
  const server = spawnServer(args, {
    cwd: project ?? "/",
    env: { PATH: process.env.PATH ?? "", HOME: home, LOG_LEVEL: "ERROR" },
  });
  const reply = await server.request("initialize", INITIALIZE);
  await server.close();
  const picked = namedIn(reply.result?.instructions ?? "");
  say(`\n== ${scenario.name}${project ? ` (project words: ${[...projectTerms(project).keys()].join(", ")})` : ""}`);
  say(`before (by name): ${describeList(before, scenario.relevant)}`);
  say(`  ${before.join(", ")}`);
  say(`now (the pick):   ${describeList(picked, scenario.relevant)}`);
  say(`  ${picked.join(", ")}`);
}

// The pick's own cost: every description scored against a project's words, at 1,018 and 10,000 skills.
const terms = projectTerms(join(work, "TypeScript-React-web-app"));
const timed = (skills: Parameters<typeof pickSkills>[0]) => {
  const times: number[] = [];
  for (let i = 0; i < 7; i++) {
    const started = performance.now();
    pickSkills(skills, { terms, projectDir: work });
    times.push(performance.now() - started);
  }
  return times.sort((a, b) => a - b)[3] as number;
};
const big = join(work, "generated");
generateSkills(big, 10_000);
const bigCatalog = new Scanner().scan(
  buildSourceList({ dirs: [big], onlyDirs: true, projectDir: null, homeDir: work, hubHome: work }),
  { maxDepth: 8, maxDirs: 250_000 },
);
say(
  `\npick time (median of 7, this process): ${timed(catalog.skills).toFixed(1)} ms at ${catalog.skills.length} skills, ${timed(bigCatalog.skills).toFixed(1)} ms at ${bigCatalog.skills.length}`,
);
rmSync(work, { recursive: true, force: true });
