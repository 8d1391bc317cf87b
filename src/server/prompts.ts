import { type McpServer, type Prompt, ProtocolError, ProtocolErrorCode } from "@modelcontextprotocol/server";
import { isEnabled, passesFilter } from "../catalog/filters.ts";
import type { Config } from "../config/schema.ts";
import type { Skill } from "../skills/skill.ts";
import type { ToolContext } from "../tools/definition.ts";
import { skillTool } from "../tools/skill.ts";
import { pickedSkills } from "../usage/picked.ts";
import type { SkillLoads } from "../usage/usage-store.ts";
import { jsonBytes } from "../util/json-bytes.ts";
import { shownArg } from "../util/shown-arg.ts";
import { type AnswerBudget, refusalError } from "./answer-budget.ts";
import { listingReady } from "./catalog-snapshot.ts";
import type { Hub } from "./hub.ts";
import { paginate } from "./paging.ts";
import { hideServerPaths, shownHidden } from "./path-sweep/hide-server-paths.ts";
import { serverPaths } from "./server-paths.ts";

/** Prompts per prompts/list page. */
export const PROMPTS_PAGE_SIZE = 100;

/** Whether this server offers prompts: on unless --no-prompts or SKILLHUB_NO_PROMPTS. */
export function promptsEnabled(hub: Hub): boolean {
  return hub.config.server.prompts && !hub.config.server.no_prompts;
}

/** How many skills are prompts (server.prompt_skills, SKILLHUB_PROMPTS): a number, or Infinity for `all`. */
export function promptLimit(config: Config): number {
  const value = config.server.prompt_skills;
  return value === "all" ? Number.POSITIVE_INFINITY : Number(value);
}

/**
 * The skills that are prompts, by name: the most useful `promptLimit` of them for a client whose loads
 * `usage` counts (usage/skill-pick.ts: the project's, the most used, …), so that a client's slash menu
 * lists a few dozen a person can read, not every skill of a 10,000-skill catalog. `all` lists every
 * served skill.
 */
export function promptSkills(hub: Hub, usage: SkillLoads): Skill[] {
  const limit = promptLimit(hub.config);
  const skills = Number.isFinite(limit)
    ? pickedSkills(hub, usage).slice(0, limit)
    : hub.catalog.skills.filter((s) => isEnabled(s, hub.filter));
  return [...skills].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/**
 * MCP prompts for the most useful skills (`/skill-name` in clients that surface prompts). Getting one
 * returns the `skill` tool's text for that name, as a user message, so a prompt and a tool call load the
 * same skill. Any served skill can be got by name, listed or not. `answers`: where the HTTP transport
 * counts what a prompt sends, as a tool's answer (create-server.ts); none over stdio.
 */
export function registerPrompts(
  mcp: McpServer,
  hub: Hub,
  context: (request?: Request) => ToolContext,
  answers?: AnswerBudget,
): void {
  const server = mcp.server;
  server.setRequestHandler("prompts/list", async (request) => {
    await listingReady(hub);
    const prompts = promptSkills(hub, context().session.usage).map(
      (s): Prompt => ({ name: s.name, title: `Skill: ${s.name}`, description: s.description }),
    );
    const page = paginate(prompts, request.params?.cursor, PROMPTS_PAGE_SIZE, (p) => p.name);
    return { prompts: page.items, ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}) };
  });
  server.setRequestHandler("prompts/get", async (request, reqCtx) => {
    await hub.ready;
    // As a tools/call of the skill tool does: a batch of them takes turns with other clients' requests.
    await hub.takeTurn();
    const name = request.params.name;
    const skill = await hub.findSkill(name);
    const ctx = context(reqCtx.http?.req);
    // A skill the lock refuses (frozen) is answered by the skill tool: its refusal, not its words.
    if (!skill || !passesFilter(skill, hub.filter)) {
      // Security: the name quoted as a tool's answer quotes an argument (cut short), and, to a client on
      // another machine, with no path of this server in it.
      const asked = ctx.session.remote ? shownHidden(name, serverPaths(hub)) : shownArg(name);
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `No prompt named '${asked}': prompts are the served skills' names; prompts/list lists the most useful ones.`,
      );
    }
    const called = await skillTool.handler({ name }, ctx);
    // As tools/call does: a client on another machine is told no path of this server.
    const result = ctx.session.remote ? hideServerPaths(called, serverPaths(hub), "skill") : called;
    // The tool's first item, the skill's text: its second, the <command-message> line, keeps a promise
    // the skill tool's description makes to a model; a prompt is a person's choice and promised nothing.
    const first = result.content[0];
    const text = first?.type === "text" ? first.text : "";
    // Security: frozen, a skill the lock refuses is named by its refusal alone, not by its description.
    const answer = {
      ...(isEnabled(skill, hub.filter) ? { description: skill.description } : {}),
      messages: [{ role: "user" as const, content: { type: "text" as const, text } }],
    };
    // Security: a skill's text (up to 1 MiB, six bytes a control character as JSON) counts until the response
    // carrying it ends, as a tool's answer does, so prompts got at once cannot hold memory without bound.
    const refused = answers?.take(reqCtx.http?.req, jsonBytes(answer));
    if (refused) throw refusalError(`Prompt '${shownArg(name)}'`, refused, false);
    return answer;
  });
}
