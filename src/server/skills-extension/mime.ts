/** MIME types by file extension for skill files; anything else is application/octet-stream. */
const BY_EXTENSION: Record<string, string> = {
  md: "text/markdown",
  markdown: "text/markdown",
  txt: "text/plain",
  json: "application/json",
  yaml: "application/yaml",
  yml: "application/yaml",
  toml: "application/toml",
  py: "text/x-python",
  sh: "text/x-shellscript",
  js: "text/javascript",
  mjs: "text/javascript",
  ts: "text/x-typescript",
  html: "text/html",
  css: "text/css",
  csv: "text/csv",
  xml: "application/xml",
  svg: "image/svg+xml",
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  gif: "image/gif",
  pdf: "application/pdf",
};

export function mimeTypeFor(fileName: string): string {
  const dot = fileName.lastIndexOf(".");
  return (dot >= 0 && BY_EXTENSION[fileName.slice(dot + 1).toLowerCase()]) || "application/octet-stream";
}
