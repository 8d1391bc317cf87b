import { searchSkillsTool } from "../tools/search-skills.ts";
import { oneLine, truncate } from "../tools/support/skill-catalog.ts";
import { program } from "../util/program-name.ts";
import { type CommandRun, scannedHub } from "./context.ts";
import { frozenNote, noSkillsNote } from "./list.ts";
import { unreadSkillsNote } from "./unread-skills.ts";

interface Hit {
  name: string;
  description: string;
  score: number;
  excerpt: string;
  location: string;
}

/** `skillhub search QUERY [--limit N] [--json]`: what search_skills returns, from the command line. */
export const runSearch: CommandRun = async (ctx) => {
  const query = ctx.args.positionals.join(" ").trim();
  if (query === "") {
    ctx.err(`skillhub search: give a query, e.g. \`${program()} search "extract tables from a PDF"\`.\n`);
    return 2;
  }
  const limitText = ctx.args.options.limit;
  const limit = limitText === undefined ? undefined : Number(limitText);
  if (limit !== undefined && (!Number.isInteger(limit) || limit < 1 || limit > 100)) {
    ctx.err(`skillhub search: --limit ${limitText}: expected a whole number from 1 to 100.\n`);
    return 2;
  }
  const hub = await scannedHub(ctx);
  await hub.search.start(Promise.resolve());
  // A one-shot search may wait for embeddings (cached vectors make this instant); a server never does.
  await hub.search.vectorsSettled();
  const result = await searchSkillsTool.handler(
    { query, limit },
    { deps: hub, session: { clientName: () => undefined, remote: false, usage: hub.usage, client: "command line" } },
  );
  hub.search.close();
  const { skills, search_mode, fallback_reason } = result.structuredContent as {
    skills: Hit[];
    search_mode?: string;
    fallback_reason?: string;
  };
  if (ctx.args.options.json) {
    ctx.out(`${JSON.stringify({ skills, search_mode, fallback_reason }, null, 2)}\n`);
    return 0;
  }
  if (fallback_reason) ctx.err(`skillhub search: full-text results: ${fallback_reason}\n`);
  if (skills.length === 0) {
    if (hub.catalog.skills.length === 0) ctx.out(noSkillsNote(hub.catalog, "search", ctx.cwd));
    else {
      const unread = unreadSkillsNote(ctx.cwd, hub.catalog);
      // Frozen, a skill the lock does not vouch for is found by no search: said, or it looks like no match.
      const locked = hub.filter.locked;
      const refused = locked ? hub.catalog.skills.filter((s) => !locked(s)).length : 0;
      const frozen = refused > 0 ? ` ${frozenNote(refused, true)}` : "";
      ctx.out(
        `No skill matches "${query}". \`${program()} list\` with the same options shows every skill.${frozen}${unread ? ` ${unread}` : ""}\n`,
      );
    }
    return 0;
  }
  for (const [i, s] of skills.entries()) {
    // The source's label, as `list` prints it: a location (explicit, remote) says how a source was found, not which.
    const source = hub.catalog.get(s.name)?.source ?? s.location;
    ctx.out(
      `${String(i + 1).padStart(2)}. ${s.name}  (${s.score.toFixed(2)}, ${source})\n    ${truncate(oneLine(s.description), 110)}\n`,
    );
    if (s.excerpt && !s.description.startsWith(s.excerpt.slice(0, 40))) ctx.out(`    “${s.excerpt}”\n`);
  }
  return 0;
};
