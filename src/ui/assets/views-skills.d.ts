/** The page script views-skills.js, imported by routes.ts `with { type: "text" }`: its source text. */
declare const source: string;
export default source;
