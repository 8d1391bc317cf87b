import { join } from "node:path";
import { write } from "./fs.ts";
import { writeNode } from "./tree.ts";

const NAME_ARGS = [
  "    args:",
  "      - name: name",
  "        description: Who to greet",
  "      - name: greeting",
  "        description: How to greet",
  "        required: false",
  "        default: hello",
];

function server(file: string, args = true): string[] {
  return [`  - file: ${file}`, `    description: Runs ${file}`, "    execution: server", ...(args ? NAME_ARGS : [])];
}

/**
 * A tree whose node `tools/echo` declares one script per case of run_script's
 * cascade, and `_root` an inherited server script. Every script prints its
 * SKILL_ARG_* arguments.
 */
export function writeScriptTree(root: string): string {
  writeNode(root, "_root.md", {
    keywords: ["global"],
    extra: ["scripts:", ...server("scripts/whoami.sh", false)].join("\n"),
  });
  write(join(root, "_root/scripts/whoami.sh"), 'echo "root script in $(basename "$(dirname "$(dirname "$0")")")"\n');
  writeNode(root, "tools/_index.md", { keywords: ["tools"] });
  writeNode(root, "tools/echo.md", {
    keywords: ["echo", "arguments"],
    extra: [
      "scripts:",
      ...server("scripts/args.sh"),
      ...server("scripts/args.py"),
      ...server("scripts/args.js"),
      ...server("scripts/args.ts"),
      ...server("scripts/env.sh", false),
      ...server("scripts/slow.sh", false),
      "  - file: scripts/big.sh",
      "    description: Prints MB megabytes",
      "    execution: server",
      "    args:",
      "      - name: mb",
      "        description: How many megabytes",
      "        required: false",
      "        default: '10'",
      ...server("scripts/wait.sh", false),
      ...server("scripts/tool.rb"),
      ...server("scripts/gone.sh"),
      ...server("scripts/gone.rb"),
      ...server("scripts/run.lua", false),
      ...server("scripts/gone.lua", false),
      "  - file: scripts/local.sh",
      "    description: Run it yourself",
      ...NAME_ARGS,
    ].join("\n"),
  });
  const dir = join(root, "tools/echo/scripts");
  write(join(dir, "args.sh"), 'echo "sh name=$SKILL_ARG_NAME greeting=$SKILL_ARG_GREETING cwd=$PWD"\n');
  write(
    join(dir, "args.py"),
    'import os\nprint("py name=" + os.environ["SKILL_ARG_NAME"] + " greeting=" + os.environ["SKILL_ARG_GREETING"])\n',
  );
  write(
    join(dir, "args.js"),
    'console.log("js name=" + process.env.SKILL_ARG_NAME + " greeting=" + process.env.SKILL_ARG_GREETING);\n',
  );
  write(
    join(dir, "args.ts"),
    'const name: string = process.env.SKILL_ARG_NAME ?? "";\nconst runtime: string = typeof Bun === "undefined" ? "node" : "bun";\nconsole.log(`ts name=${name} greeting=${process.env.SKILL_ARG_GREETING} runtime=${runtime}`);\n',
  );
  write(join(dir, "env.sh"), "env\n");
  // Says it is ready (a file beside it) once both pids are out, so a test can end it at its timeout then.
  write(
    join(dir, "slow.sh"),
    'sleep 300 &\necho pid $!\necho pid $$\necho partial-err >&2\ntouch "$(dirname "$0")/slow.ready"\nsleep 300\n',
  );
  write(join(dir, "big.sh"), "head -c $((SKILL_ARG_MB * 1048576)) /dev/zero | tr '\\0' x\n");
  // Runs until the test writes scripts/release beside it (then a run's length never depends on the clock).
  write(join(dir, "wait.sh"), 'while [ ! -e "$(dirname "$0")/release" ]; do sleep 0.05; done\necho waited\n');
  write(join(dir, "tool.rb"), "puts 1\n");
  write(join(dir, "run.lua"), "print(1)\n");
  write(join(dir, "local.sh"), "echo local\n");
  write(join(dir, "undeclared.sh"), "echo undeclared\n");
  return root;
}
