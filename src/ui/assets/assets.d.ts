/** Style sheets imported `with { type: "text" }` (routes.ts): their text. */
declare module "*.css" {
  const text: string;
  export default text;
}
