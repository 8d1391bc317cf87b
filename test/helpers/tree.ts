import { join } from "node:path";
import { write } from "./fs.ts";

export interface NodeSpec {
  keywords?: string[] | null;
  description?: string | null;
  /** Extra frontmatter lines, verbatim. */
  extra?: string;
  body?: string;
}

/** Write one tree node `<root>/<rel>` with keywords/description frontmatter. */
export function writeNode(root: string, rel: string, spec: NodeSpec = {}): string {
  const lines = ["---"];
  const keywords = spec.keywords === undefined ? [rel.replace(/\.md$/, "").split("/").pop() as string] : spec.keywords;
  if (keywords !== null) lines.push(`keywords: [${keywords.join(", ")}]`);
  const description = spec.description === undefined ? `About ${rel}` : spec.description;
  if (description !== null) lines.push(`description: "${description}"`);
  if (spec.extra) lines.push(spec.extra);
  lines.push("---", "", spec.body ?? `Rules of ${rel}.\n`);
  return write(join(root, rel), lines.join("\n"));
}

/** An example skill tree (every feature), as skills/ of a content repo. */
export function writeExampleTree(root: string): string {
  writeNode(root, "_root.md", {
    keywords: ["global", "rules", "conventions"],
    description: "Universal project rules",
    body: "Global rules.\n",
  });
  writeNode(root, "ui/_index.md", {
    keywords: ["ui", "frontend", "interface"],
    description: "Frontend development and components",
    body: "UI rules.\n",
  });
  writeNode(root, "ui/react/_index.md", {
    keywords: ["react", "jsx", "tsx", "hook", "composant"],
    description: "General React rules",
    extra: [
      "assets:",
      "  - file: assets/component-base.tsx.template",
      "    description: Base React component template",
      "    type: template",
      "  - file: assets/hooks.md",
      "    description: Hook conventions",
      "scripts:",
      "  - file: scripts/lint-component.sh",
      "    description: Lint a React component",
    ].join("\n"),
    body: "React rules.\n",
  });
  write(join(root, "ui/react/_index/assets/component-base.tsx.template"), "// parent base\n");
  write(join(root, "ui/react/_index/assets/hooks.md"), "# Hooks\n");
  write(join(root, "ui/react/_index/scripts/lint-component.sh"), "#!/bin/sh\necho lint\n");
  writeNode(root, "ui/react/auth.md", {
    keywords: ["react", "auth", "authentication", "login", "component"],
    description: "React authentication components and patterns",
    extra: [
      "priority: 10",
      "assets:",
      "  - file: assets/AuthProvider.tsx.template",
      "    description: Base AuthProvider template",
      "    type: template",
      "  - file: assets/auth-config.example.ts",
      "    description: Complete auth config example",
      "    type: example",
      "  - file: assets/auth-flow.svg",
      "    description: Auth flow diagram",
      "    type: image",
      "  - file: assets/component-base.tsx.template",
      "    description: Auth-specific base component",
      "    type: template",
      "scripts:",
      "  - file: scripts/scaffold-auth.sh",
      "    description: Generate the auth structure",
      "    args:",
      "      - name: project_dir",
      "        description: Project root",
      "      - name: provider",
      "        description: firebase, auth0 or custom",
      "        required: false",
      "        default: custom",
      "  - file: scripts/validate-auth-config.ts",
      "    description: Check the auth config",
      "    execution: server",
      "    args:",
      "      - name: config_path",
      "        description: Path to the auth config",
    ].join("\n"),
    body: "Auth rules.\n",
  });
  write(join(root, "ui/react/auth/assets/AuthProvider.tsx.template"), "import React from 'react';\n");
  write(join(root, "ui/react/auth/assets/auth-config.example.ts"), "export const config = {};\n");
  write(join(root, "ui/react/auth/assets/auth-flow.svg"), '<svg xmlns="http://www.w3.org/2000/svg"/>\n');
  write(join(root, "ui/react/auth/assets/component-base.tsx.template"), "// auth base\n");
  write(join(root, "ui/react/auth/scripts/scaffold-auth.sh"), "#!/bin/sh\necho scaffold\n");
  write(join(root, "ui/react/auth/scripts/validate-auth-config.ts"), "console.log('ok');\n");
  writeNode(root, "ui/react/testing.md", {
    keywords: ["react", "testing", "jest", "vitest"],
    description: "Testing React components",
  });
  writeNode(root, "ui/vue/_index.md", { keywords: ["vue", "frontend"], description: "General Vue rules" });
  writeNode(root, "ui/vue/composition.md", {
    keywords: ["vue", "composition", "setup"],
    description: "Vue Composition API",
  });
  writeNode(root, "api/_index.md", {
    keywords: ["api", "backend", "endpoint"],
    description: "API domain rules",
    extra:
      "assets:\n  - file: assets/api-schema.openapi.yaml\n    description: OpenAPI schema\n    type: schema\nscripts:\n  - file: scripts/generate-endpoint.sh\n    description: Generate an endpoint",
  });
  write(join(root, "api/_index/assets/api-schema.openapi.yaml"), "openapi: 3.1.0\n");
  write(join(root, "api/_index/scripts/generate-endpoint.sh"), "#!/bin/sh\n");
  writeNode(root, "api/auth.md", {
    keywords: ["api", "auth", "jwt", "middleware", "token"],
    description: "API authentication with JWT middleware",
  });
  writeNode(root, "api/database.md", {
    keywords: ["database", "sql", "migration", "orm"],
    description: "Database access and migrations",
  });
  writeNode(root, "deploy/_index.md", {
    keywords: ["deploy", "deployment", "release"],
    description: "Deployment rules",
  });
  writeNode(root, "deploy/docker.md", {
    keywords: ["docker", "container", "dockerfile", "compose"],
    description: "Docker images and compose",
    extra: "assets:\n  - file: assets/Dockerfile.template\n    description: Base Dockerfile\n    type: template",
  });
  write(join(root, "deploy/docker/assets/Dockerfile.template"), "FROM scratch\n");
  writeNode(root, "no-inherit.md", {
    keywords: ["standalone", "isolated"],
    description: "A standalone node",
    extra: "inherit: false",
    body: "Standalone only.\n",
  });
  return root;
}
