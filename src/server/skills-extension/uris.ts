/** skill:// URIs live with the skills (src/skills/skill-uri.ts): the tools name files by the same URIs the extension serves. */
export { skillRoot, uriKey } from "../../skills/skill-uri.ts";
