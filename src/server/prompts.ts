import { type McpServer, type Prompt, ProtocolError, ProtocolErrorCode } from "@modelcontextprotocol/server";
import { isEnabled } from "../catalog/filters.ts";
import type { ToolContext } from "../tools/definition.ts";
import { skillTool } from "../tools/skill.ts";
import { listingReady } from "./catalog-snapshot.ts";
import type { Hub } from "./hub.ts";
import { paginate } from "./paging.ts";

/** Prompts per prompts/list page. */
export const PROMPTS_PAGE_SIZE = 100;

/** Whether this server offers prompts: on unless --no-prompts or SKILLHUB_NO_PROMPTS. */
export function promptsEnabled(hub: Hub): boolean {
  return hub.config.server.prompts && !hub.config.server.no_prompts;
}

/** The prompts/list signature: a change in the served names or descriptions is one prompts/list_changed. */
export function promptsSignature(hub: Hub): string {
  return promptsEnabled(hub) ? hub.catalog.visibleHash : "";
}

/**
 * One MCP prompt per served skill (`/skill-name` in clients that surface
 * prompts). Getting one returns exactly what the `skill` tool returns for that
 * name, as a user message, so a prompt and a tool call load the same text.
 */
export function registerPrompts(mcp: McpServer, hub: Hub, context: () => ToolContext): void {
  const server = mcp.server;
  server.setRequestHandler("prompts/list", async (request) => {
    await listingReady(hub);
    const skills = hub.catalog.skills
      .filter((s) => isEnabled(s, hub.filter))
      .map((s): Prompt => ({ name: s.name, title: `Skill: ${s.name}`, description: s.description }))
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const page = paginate(skills, request.params?.cursor, PROMPTS_PAGE_SIZE, (p) => p.name);
    return { prompts: page.items, ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}) };
  });
  server.setRequestHandler("prompts/get", async (request) => {
    await hub.ready;
    const name = request.params.name;
    const skill = await hub.findSkill(name);
    if (!skill || !isEnabled(skill, hub.filter))
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `No prompt named '${name}': prompts are the served skills' names; prompts/list lists them.`,
      );
    const result = await skillTool.handler({ name }, context());
    // The tool's first item, the skill's text: its second, the <command-message> line, keeps a promise
    // the skill tool's description makes to a model; a prompt is a person's choice and promised nothing.
    const first = result.content[0];
    const text = first?.type === "text" ? first.text : "";
    return {
      description: skill.description,
      messages: [{ role: "user" as const, content: { type: "text" as const, text } }],
    };
  });
}
