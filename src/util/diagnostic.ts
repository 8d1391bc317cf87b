/**
 * Every problem found while reading skills is a Diagnostic: a stable code,
 * the file, and a sentence. Errors mean the skill is not served; warnings
 * mean it is served anyway. Nothing is dropped silently.
 */
export type Severity = "error" | "warning" | "info";

export const DIAGNOSTIC_CODES = [
  "no-frontmatter",
  "unclosed-frontmatter",
  "yaml-error",
  "yaml-recovered",
  "invalid-frontmatter",
  "missing-name",
  "missing-description",
  "name-mismatch",
  "invalid-name",
  "description-too-long",
  "body-too-long",
  "file-too-large",
  "shadowed",
  "duplicate-name",
  "unreadable",
  "symlink-loop",
  "symlink-outside",
  "special-file",
  "depth-limit",
  "dir-limit",
  "missing-keywords",
  "too-many-keywords",
  "too-many-entries",
  "missing-file",
  "unknown-key",
  "invalid-field",
  "unsafe-path",
  "in-resource-folder",
  "missing-parent",
  "compatibility-too-long",
  "misnamed-skill-file",
  "system-folder",
  "repository-copies",
  "project-file",
  "broken-link",
  "link-outside",
] as const;
export type DiagnosticCode = (typeof DIAGNOSTIC_CODES)[number];

export interface Diagnostic {
  code: DiagnosticCode;
  severity: Severity;
  /** Absolute path of the file or folder concerned. */
  file: string;
  message: string;
  /** Label of the source the file belongs to, when known. */
  source?: string;
}

/** The one empty list of diagnostics that files without any share (10,000 empty arrays otherwise). */
export const NO_DIAGNOSTICS: readonly Diagnostic[] = Object.freeze([]);

export function diagnostic(code: DiagnosticCode, severity: Severity, file: string, message: string): Diagnostic {
  return { code, severity, file, message };
}

/** Both parsers' warning for frontmatter values that lenient-yaml.ts had to quote. */
export function recoveredDiagnostic(file: string, keys: readonly string[]): Diagnostic {
  return diagnostic(
    "yaml-recovered",
    "warning",
    file,
    `frontmatter value of ${keys.map((k) => `'${k}'`).join(", ")} contains ': ' and must be quoted; read as a quoted string.`,
  );
}

/** One line for logs and the CLI: "warning yaml-recovered /x/SKILL.md: ...". */
export function formatDiagnostic(d: Diagnostic): string {
  return `${d.severity} ${d.code} ${d.file}: ${d.message}`;
}
