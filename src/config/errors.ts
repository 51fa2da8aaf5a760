/** Errors raised while reading `sextant.yaml`: every problem found, each with its line and column. */

/** What kind of problem one issue is. */
export type ConfigIssueCode =
  | 'not_found'
  | 'unreadable'
  | 'ambiguous'
  | 'yaml_syntax'
  | 'unknown_key'
  | 'duplicate_key'
  | 'wrong_type'
  | 'missing_required'
  | 'invalid_value'
  | 'unsupported_version'
  | 'unknown_kind'
  | 'invalid_name'
  | 'duplicate_name'
  | 'schema_endpoint_conflict'
  | 'field_not_applicable'
  | 'env_unset'
  | 'env_syntax';

/** What went wrong with the config file as a whole. */
export type ConfigErrorCode =
  /** The file (or, for a directory, `sextant.yaml` / `sextant.yml` in it) does not exist. */
  | 'config_not_found'
  /** The path exists but cannot be read as a file. */
  | 'config_unreadable'
  /** A directory holds both `sextant.yaml` and `sextant.yml`. */
  | 'config_ambiguous'
  /** The text is not well-formed YAML. */
  | 'config_syntax'
  /** Well-formed YAML that does not describe a valid workspace. */
  | 'config_invalid';

export interface ConfigIssue {
  code: ConfigIssueCode;
  /** 1-based line; undefined when the problem concerns the file as a whole. */
  line: number | undefined;
  /** 1-based column; undefined when the problem concerns the file as a whole. */
  column: number | undefined;
  /** `<what is wrong>. <how to fix>` without the `file:line:col:` prefix. */
  message: string;
}

/**
 * A config that could not be loaded. `message` has one line per issue, each `file:LINE:COL: <what is wrong>.
 * <how to fix>`; `line` and `column` are those of the first issue. Header values and environment values never
 * appear in it.
 */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  readonly code: ConfigErrorCode;
  /** Absolute path of the config file (or of the path that was asked for when it does not exist). */
  readonly path: string;
  readonly line: number | undefined;
  readonly column: number | undefined;
  readonly issues: readonly ConfigIssue[];

  constructor(code: ConfigErrorCode, path: string, issues: readonly ConfigIssue[], label: string = path) {
    super(issues.map((i) => formatIssue(label, i)).join('\n'));
    this.code = code;
    this.path = path;
    this.issues = issues;
    this.line = issues[0]?.line;
    this.column = issues[0]?.column;
  }
}

/** `label:LINE:COL: message`, or `label: message` for an issue without a position. */
export function formatIssue(label: string, issue: ConfigIssue): string {
  const at = issue.line === undefined ? '' : `:${issue.line}:${issue.column ?? 1}`;
  return `${label}${at}: ${issue.message}`;
}
