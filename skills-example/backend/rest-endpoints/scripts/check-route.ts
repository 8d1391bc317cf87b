// Checks a REST route against the rules of backend/rest-endpoints.md.
// Arguments arrive as environment variables: SKILL_ARG_ROUTE, SKILL_ARG_METHOD.
const route: string = process.env.SKILL_ARG_ROUTE ?? "";
const method: string = (process.env.SKILL_ARG_METHOD ?? "GET").toUpperCase();
const VERBS = ["get", "create", "update", "delete", "list", "fetch", "add", "remove", "make", "do"];

const problems: string[] = [];
if (!route.startsWith("/")) problems.push("the route must start with '/'");
const segments = route.split("/").filter((s) => s !== "");
for (const segment of segments) {
  if (segment.startsWith("{") && segment.endsWith("}")) continue;
  if (segment !== segment.toLowerCase()) problems.push(`'${segment}' must be lower case (use kebab-case)`);
  if (VERBS.some((v) => segment.toLowerCase().startsWith(v))) problems.push(`'${segment}' reads as a verb; paths hold nouns, the method says what happens`);
}
if (!["GET", "POST", "PUT", "PATCH", "DELETE"].includes(method)) problems.push(`unexpected method ${method}`);

if (problems.length > 0) {
  for (const p of problems) console.error(`✗ ${method} ${route}: ${p}`);
  process.exit(1);
}
console.log(`✓ ${method} ${route} follows the REST endpoint rules`);
