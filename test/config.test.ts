import assert from 'node:assert/strict';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { GraphqlSourceConfig } from '../src/config/types.js';
import {
  ConfigError,
  DEFAULT_TIMEOUT_MS,
  SOURCE_KINDS,
  expandEnv,
  findConfigFile,
  loadWorkspaceConfig,
  parseWorkspaceConfig,
  type ConfigIssue,
  type Env,
} from '../src/config/workspace.js';

const WS = '/ws/project';
const FILE = `${WS}/sextant.yaml`;

function parse(text: string, env: Env = {}) {
  return parseWorkspaceConfig(text, { path: FILE, env });
}

/** The ConfigError parsing `text` throws; fails the test when it parses. */
function fails(text: string, env: Env = {}, path = FILE): ConfigError {
  try {
    parseWorkspaceConfig(text, { path, env });
  } catch (err) {
    assert.ok(err instanceof ConfigError, `expected a ConfigError, got ${String(err)}`);
    return err;
  }
  assert.fail('expected the config to be rejected');
}

/** The only issue of an error, asserting there is exactly one. */
function only(err: ConfigError): ConfigIssue {
  assert.equal(err.issues.length, 1, `expected one issue, got:\n${err.message}`);
  return err.issues[0]!;
}

function lines(...l: string[]): string {
  return l.join('\n') + '\n';
}

const MINIMAL = lines('sources:', '  - name: api', '    kind: graphql', '    schema: schema.graphql');

describe('valid configs', () => {
  test('all fields: paths absolutized, env expanded, defaults filled', () => {
    const config = parse(
      lines(
        'version: 1',
        'store: .sextant',
        'sources:',
        '  - name: github',
        '    kind: graphql',
        '    endpoint: https://api.github.com/graphql',
        '    headers:',
        '      Authorization: "Bearer ${GITHUB_TOKEN}"',
        '      X-Region: ${REGION:-eu-west-1}',
        '      X-Literal: cost $5 and $${NOT_A_VAR}',
        '    timeout_ms: 45000',
        '  - name: files.v2',
        '    kind: graphql',
        '    schema:',
        '      - schema/core.graphql',
        '      - ../shared/introspection.json',
        '      - /abs/schemas',
        '  - name: hugr-local',
        '    kind: graphql',
        '    endpoint: http://localhost:15000/query',
      ),
      { GITHUB_TOKEN: 'ghp_secret' },
    );
    assert.deepEqual(config, {
      path: FILE,
      dir: WS,
      store: `${WS}/.sextant`,
      sources: [
        {
          kind: 'graphql',
          name: 'github',
          endpoint: 'https://api.github.com/graphql',
          headers: { Authorization: 'Bearer ghp_secret', 'X-Region': 'eu-west-1', 'X-Literal': 'cost $5 and ${NOT_A_VAR}' },
          timeout_ms: 45000,
        },
        {
          kind: 'graphql',
          name: 'files.v2',
          schema: [`${WS}/schema/core.graphql`, '/ws/shared/introspection.json', '/abs/schemas'],
          headers: {},
          timeout_ms: DEFAULT_TIMEOUT_MS,
        },
        {
          kind: 'graphql',
          name: 'hugr-local',
          endpoint: 'http://localhost:15000/query',
          headers: {},
          timeout_ms: 30000,
        },
      ],
    });
  });

  test('minimal config: no version, no store', () => {
    const config = parse(MINIMAL);
    assert.equal(config.store, undefined);
    assert.equal('store' in config, false);
    assert.deepEqual(config.sources, [
      { kind: 'graphql', name: 'api', schema: [`${WS}/schema.graphql`], headers: {}, timeout_ms: 30000 },
    ]);
  });

  test('a database `store`: kept as a URL with ${VAR} expanded; an unset variable is taught without the value', () => {
    const url = lines('store: postgres://ci:${PG_PW}@db.internal:5432/sextant?sslmode=require', MINIMAL);
    assert.equal(parse(url, { PG_PW: 's3cret' }).store, 'postgres://ci:s3cret@db.internal:5432/sextant?sslmode=require');
    const issue = only(fails(url));
    assert.equal(issue.code, 'env_unset');
    assert.match(issue.message, /`store` uses environment variable `PG_PW`, which is not set/);
    assert.equal(parse(lines('store: ./idx', MINIMAL)).store, `${WS}/idx`, 'a directory is still relative to the file');
  });

  test('graphql `flavor`: hugr or generic are kept, auto is the default, a misspelling is taught', () => {
    const withFlavor = (f: string) => lines('sources:', '  - name: api', '    kind: graphql', '    schema: schema.graphql', `    flavor: ${f}`);
    assert.equal((parse(withFlavor('hugr')).sources[0] as { flavor?: string }).flavor, 'hugr');
    assert.equal((parse(withFlavor('generic')).sources[0] as { flavor?: string }).flavor, 'generic');
    assert.equal('flavor' in parse(withFlavor('auto')).sources[0]!, false);
    const issue = only(fails(withFlavor('hugg')));
    assert.deepEqual([issue.code, issue.line], ['invalid_value', 5]);
    assert.match(issue.message, /`flavor` in source `api` must be one of `auto`, `hugr`, `generic`, got `hugg`.*Did you mean `hugr`\?/s);
  });

  test('graphql `data`: the caller identity and limits of data tools, with defaults and teaching errors', () => {
    const src = (...data: string[]) => lines('sources:', '  - name: hugr', '    kind: graphql', '    endpoint: https://hugr.example/query', '    data:', ...data.map((d) => `      ${d}`));
    const config = parse(src('token: ${HUGR_USER_TOKEN}', 'role: analyst', 'allow_mutations: true'), { HUGR_USER_TOKEN: 'tok-123' });
    assert.deepEqual((config.sources[0] as { data?: unknown }).data, { role_header: 'x-hugr-role', allow_mutations: true, allow_anonymous: false, timeout_ms: 30000, max_bytes: 20000, token: 'tok-123', role: 'analyst' });
    const unknown = only(fails(src('tokn: x')));
    assert.equal(unknown.code, 'unknown_key');
    assert.match(unknown.message, /Did you mean `token`\?/);
    assert.match(only(fails(src('timeout_ms: 3000000000'))).message, /`timeout_ms` in `data` of source `hugr` must be a positive whole number of milliseconds up to 2147483647/);
    const bad = only(fails(src('max_bytes: lots')));
    assert.match(bad.message, /`max_bytes` in `data` of source `hugr` must be a positive whole number of bytes, got `lots`/);
    assert.match(only(fails(src('role_header: "x role"'))).message, /not a valid HTTP header name/);
  });

  test('graphql `refresh`: a duration for endpoints, taught otherwise', () => {
    const src = (key: string, value: string) => lines('sources:', '  - name: api', '    kind: graphql', `    ${key}`, `    refresh: ${value}`);
    assert.equal((parse(src('endpoint: https://api.example.com/graphql', '15m')).sources[0] as { refresh_seconds?: number }).refresh_seconds, 900);
    assert.equal((parse(src('endpoint: https://api.example.com/graphql', '2h')).sources[0] as { refresh_seconds?: number }).refresh_seconds, 7200);
    const short = only(fails(src('endpoint: https://api.example.com/graphql', '5s')));
    assert.match(short.message, /`refresh` in source `api` must be a duration from 10s to 24d.*got `5s`/);
    assert.match(only(fails(src('endpoint: https://api.example.com/graphql', '25d'))).message, /from 10s to 24d.*got `25d`/);
    assert.match(only(fails(src('endpoint: https://api.example.com/graphql', 'soon'))).message, /like `90s`, `15m`/);
    const files = only(fails(src('schema: s.graphql', '15m')));
    assert.deepEqual([files.code, files.line], ['field_not_applicable', 5]);
  });

  test('a relative config path is resolved to an absolute one', () => {
    const config = parseWorkspaceConfig(MINIMAL, { path: 'sextant.yaml', env: {} });
    assert.equal(config.path, join(process.cwd(), 'sextant.yaml'));
    assert.equal(config.dir, process.cwd());
    assert.deepEqual((config.sources as GraphqlSourceConfig[])[0]?.schema, [join(process.cwd(), 'schema.graphql')]);
  });

  test('lossless-permissive: blank strings are absent, lone string and JSON text are lists', () => {
    const config = parse(
      lines(
        'version: "1"',
        'store: "  "',
        'sources:',
        '  - name: a',
        '    kind: graphql',
        '    schema: \'["a.graphql", "b.gql"]\'',
        '    endpoint: ""',
        '  - name: b',
        '    kind: graphql',
        '    schema: ["", x.graphqls, "  ", x.graphqls]',
        '    endpoint:',
        '  - name: c',
        '    kind: graphql',
        '    endpoint: https://example.com/graphql',
        '    headers:',
        '      X-Empty: ""',
        '      X-Null:',
        '      X-Kept: v',
        '    timeout_ms: "15000"',
        '  - name: d',
        '    kind: graphql',
        '    endpoint: https://example.com/graphql',
        '    headers: ""',
        '    timeout_ms: ""',
      ),
    );
    assert.equal(config.store, undefined);
    assert.deepEqual(
      (config.sources as GraphqlSourceConfig[]).map((s) => [s.name, s.schema, s.endpoint, s.headers, s.timeout_ms]),
      [
        ['a', [`${WS}/a.graphql`, `${WS}/b.gql`], undefined, {}, 30000],
        ['b', [`${WS}/x.graphqls`], undefined, {}, 30000],
        ['c', undefined, 'https://example.com/graphql', { 'X-Kept': 'v' }, 15000],
        ['d', undefined, 'https://example.com/graphql', {}, 30000],
      ],
    );
  });

  test('YAML anchors and aliases are followed', () => {
    const config = parse(
      lines(
        'sources:',
        '  - name: a',
        '    kind: graphql',
        '    endpoint: https://a.example.com/graphql',
        '    headers: &auth',
        '      Authorization: Bearer ${TOKEN}',
        '  - name: b',
        '    kind: graphql',
        '    endpoint: https://b.example.com/graphql',
        '    headers: *auth',
      ),
      { TOKEN: 't' },
    );
    assert.deepEqual(
      (config.sources as GraphqlSourceConfig[]).map((s) => s.headers),
      [{ Authorization: 'Bearer t' }, { Authorization: 'Bearer t' }],
    );
  });

  test('a header named __proto__ stays an ordinary header', () => {
    const config = parse(
      lines('sources:', '  - name: a', '    kind: graphql', '    endpoint: https://a.example.com/', '    headers:', '      __proto__: x'),
    );
    const headers = (config.sources as GraphqlSourceConfig[])[0]!.headers;
    assert.equal(Object.getPrototypeOf(headers), Object.prototype);
    assert.deepEqual(Object.entries(headers), [['__proto__', 'x']]);
  });

  test('a byte-order mark is accepted', () => {
    assert.equal(parse('\uFEFF' + MINIMAL).sources.length, 1);
  });
});

describe('error format', () => {
  test('every line is `file:LINE:COL: what. how`, and line/column are the first issue', () => {
    const err = fails(lines('versoin: 1', 'sources:', '  - name: a', '    kind: graphq'));
    assert.equal(err.code, 'config_invalid');
    assert.equal(err.path, FILE);
    const messageLines = err.message.split('\n');
    assert.equal(messageLines.length, err.issues.length);
    for (const line of messageLines) assert.match(line, /^sextant\.yaml:\d+:\d+: [^\n]+\. [^\n]+[.?]$/);
    assert.equal(err.line, 1);
    assert.equal(err.column, 1);
    assert.deepEqual(
      err.issues.map((i) => [i.code, i.line, i.column]),
      [
        ['unknown_key', 1, 1],
        ['unknown_kind', 4, 11],
      ],
    );
    assert.equal(messageLines[1], `sextant.yaml:4:11: ${err.issues[1]!.message}`);
  });

  test('the file name in messages is the config file\'s own', () => {
    const err = fails('sources: []\n', {}, '/ws/sextant.yml');
    assert.match(err.message, /^sextant\.yml:1:10: /);
  });

  test('reports all problems at once, in document order', () => {
    const err = fails(
      lines(
        'version: 3',
        'sources:',
        '  - name: a',
        '    kind: graphql',
        '    endpont: https://x.example.com/',
        '  - name: a',
        '    kind: graphql',
        '    schema: s.graphql',
        '    timeout_ms: 5',
        '  - kind: rest',
        'stroe: x',
      ),
    );
    assert.deepEqual(
      err.issues.map((i) => [i.code, i.line]),
      [
        ['unsupported_version', 1],
        ['missing_required', 3], // neither schema nor endpoint
        ['unknown_key', 5],
        ['duplicate_name', 6],
        ['field_not_applicable', 9],
        ['missing_required', 10], // no name
        ['unknown_kind', 10],
        ['unknown_key', 11],
      ],
    );
    assert.equal(err.message.split('\n').length, 8);
  });
});

describe('unknown keys', () => {
  test('top level: names the key, suggests the nearest, lists the valid keys', () => {
    const issue = only(fails(lines('stroe: .sextant', ...MINIMAL.trimEnd().split('\n'))));
    assert.equal(issue.code, 'unknown_key');
    assert.deepEqual([issue.line, issue.column], [1, 1]);
    assert.match(issue.message, /unknown key `stroe` at the top level/);
    assert.match(issue.message, /Did you mean `store`\?/);
    assert.match(issue.message, /Valid keys at the top level: `version`, `store`, `sources`, `embeddings`\./);
  });

  test('in a source: suggests `endpoint` and lists the keys of that kind', () => {
    const issue = only(
      fails(
        lines(
          'sources:',
          '  - name: gh',
          '    kind: graphql',
          '    schema: s.graphql',
          '    endpont: https://api.github.com/graphql',
        ),
      ),
    );
    assert.deepEqual([issue.code, issue.line, issue.column], ['unknown_key', 5, 5]);
    assert.match(issue.message, /unknown key `endpont` in source `gh`\. Did you mean `endpoint`\?/);
    assert.ok(issue.message.includes('Valid keys for a graphql source: `name`, `kind`, `schema`, `endpoint`, `headers`, `timeout_ms`, `data`, `refresh`, `flavor`.'));
  });

  test('the valid keys come from the kind table', () => {
    const issue = only(fails(lines('sources:', '  - name: gh', '    kind: graphql', '    schema: s.graphql', '    zzz: 1')));
    for (const key of ['name', 'kind', ...Object.keys(SOURCE_KINDS.graphql.fields)]) {
      assert.ok(issue.message.includes(`\`${key}\``), key);
    }
  });

  test('no suggestion when nothing is close', () => {
    const issue = only(fails(lines('sources:', '  - name: gh', '    kind: graphql', '    schema: s.graphql', '    zzz: 1')));
    assert.doesNotMatch(issue.message, /Did you mean/);
    assert.match(issue.message, /unknown key `zzz` in source `gh`/);
  });

  test('without a known kind, keys no kind accepts are still flagged', () => {
    const err = fails(lines('sources:', '  - name: gh', '    kind: grpc', '    shema: s.proto'));
    assert.deepEqual(
      err.issues.map((i) => [i.code, i.line]),
      [
        ['unknown_kind', 3],
        ['unknown_key', 4],
      ],
    );
    assert.match(err.issues[1]!.message, /Did you mean `schema`\?/);
  });

  test('merge keys are explained', () => {
    const err = fails(
      lines('base: &b', '  kind: graphql', 'sources:', '  - <<: *b', '    name: a', '    schema: s.graphql'),
    );
    const merge = err.issues.find((i) => i.message.includes('`<<`'));
    assert.ok(merge);
    assert.match(merge.message, /Merge keys \(`<<`\) are not supported/);
  });

  test('an alias to no anchor', () => {
    const issue = only(fails(lines('sources:', '  - name: a', '    kind: graphql', '    schema: *nowhere')));
    assert.deepEqual([issue.code, issue.line, issue.column], ['invalid_value', 4, 13]);
    assert.match(issue.message, /the alias `\*nowhere` refers to no anchor\. Define `&nowhere`/);
  });

  test('a key given twice', () => {
    const issue = only(fails(lines('sources:', '  - name: a', '    kind: graphql', '    schema: a.graphql', '    schema: b.graphql')));
    assert.deepEqual([issue.code, issue.line, issue.column], ['duplicate_key', 5, 5]);
    assert.match(issue.message, /`schema` is given twice in `sources\[0\]` \(first at line 4\)\. Keep one of them\./);
  });
});

describe('wrong types', () => {
  test('sources as a map', () => {
    const issue = only(fails(lines('sources:', '  github:', '    kind: graphql')));
    assert.deepEqual([issue.code, issue.line, issue.column], ['wrong_type', 2, 3]);
    assert.match(issue.message, /`sources` must be a list, got a map\. Start each source with `- `/);
  });

  test('top level not a map', () => {
    const issue = only(fails('- a\n- b\n'));
    assert.deepEqual([issue.code, issue.line], ['wrong_type', 1]);
    assert.match(issue.message, /the top level must be a map .* got a list/);
  });

  test('expected vs got for scalars, lists and maps', () => {
    const err = fails(
      lines(
        'store: 42',
        'version: [1]',
        'sources:',
        '  - name: 7',
        '    kind: graphql',
        '    schema: {path: a}',
        '  - name: b',
        '    kind: [graphql]',
        '  - name: c',
        '    kind: graphql',
        '    endpoint: https://c.example.com/',
        '    headers: [Authorization]',
        '    timeout_ms: 30s',
        '  - name: d',
        '    kind: graphql',
        '    endpoint: https://d.example.com/',
        '    headers:',
        '      X-Count: 5',
        '      X-Nested: {a: b}',
        '    timeout_ms: true',
        '  - name: e',
        '    kind: graphql',
        '    schema: [a.graphql, [b.graphql]]',
        '  - just a string',
      ),
    );
    const got = err.issues.map((i) => [i.line, i.column, i.code, i.message.split('. ')[0]]);
    assert.deepEqual(got, [
      [1, 8, 'wrong_type', '`store` must be a directory path or a postgres:// URL (a string), got an integer'],
      [2, 10, 'wrong_type', '`version` must be the number 1, got a list'],
      [4, 11, 'wrong_type', '`name` in `sources[0]` must be a source name (a string), got an integer'],
      [6, 13, 'wrong_type', '`schema` in `sources[0]` must be a path or a list of paths, got a map'],
      [8, 11, 'wrong_type', '`kind` in source `b` must be a source kind (a string), got a list'],
      [12, 14, 'wrong_type', '`headers` in source `c` must be a map of header name to value, got a list'],
      [13, 17, 'invalid_value', '`timeout_ms` in source `c` must be a positive whole number of milliseconds up to 2147483647, got `30s`'],
      [18, 16, 'wrong_type', 'header `X-Count` of source `d` must be a string, got an integer'],
      [19, 17, 'wrong_type', 'header `X-Nested` of source `d` must be a string, got a map'],
      [20, 17, 'wrong_type', '`timeout_ms` in source `d` must be a positive whole number of milliseconds up to 2147483647, got a boolean'],
      [23, 25, 'wrong_type', '`schema[1]` in source `e` must be a path (a string), got a list'],
      [24, 5, 'wrong_type', '`sources[5]` must be a map, got a string'],
    ]);
    assert.match(err.issues[0]!.message, /Quote the value to make it a string\.$/);
  });

  test('bad timeouts: zero, negative, fractional', () => {
    for (const [value, shown] of [
      ['0', '0'],
      ['-5', '-5'],
      ['1.5', '1.5'],
    ] as const) {
      const issue = only(
        fails(lines('sources:', '  - name: a', '    kind: graphql', '    endpoint: https://a.example.com/', `    timeout_ms: ${value}`)),
      );
      assert.deepEqual([issue.code, issue.line, issue.column], ['invalid_value', 5, 17]);
      assert.ok(issue.message.includes(`got \`${shown}\``), issue.message);
      assert.match(issue.message, /Write e\.g\. `timeout_ms: 30000`/);
    }
  });

  test('unsupported version', () => {
    const issue = only(fails(lines('version: 2', ...MINIMAL.trimEnd().split('\n'))));
    assert.deepEqual([issue.code, issue.line, issue.column], ['unsupported_version', 1, 10]);
    assert.match(issue.message, /`version: 2` is not supported: this Sextant reads version 1\. Set `version: 1`/);
  });
});

describe('missing required', () => {
  test('empty file', () => {
    for (const text of ['', '# nothing here\n', '~\n']) {
      const err = fails(text);
      const issue = only(err);
      assert.deepEqual([issue.code, issue.line, issue.column], ['missing_required', 1, 1]);
      assert.match(issue.message, /`sources` is required\. Add a `sources:` list/);
    }
  });

  test('no sources key', () => {
    const issue = only(fails('store: .sextant\n'));
    assert.deepEqual([issue.code, issue.line], ['missing_required', 1]);
    assert.match(issue.message, /^`sources` is missing\. List at least one source/);
  });

  test('sources blank or an empty list', () => {
    assert.match(only(fails('store: x\nsources:\n')).message, /^`sources` is empty\./);
    const issue = only(fails('sources: []\n'));
    assert.deepEqual([issue.line, issue.column], [1, 10]);
    assert.match(issue.message, /^`sources` is an empty list\./);
  });

  test('a source without name or kind', () => {
    const err = fails(lines('sources:', '  - schema: a.graphql', '  - name: b', '    schema: b.graphql', '  -'));
    assert.deepEqual(
      err.issues.map((i) => [i.code, i.line, i.message.split('. ')[0]]),
      [
        ['missing_required', 2, '`sources[0]` has no `name`'],
        ['missing_required', 2, '`sources[0]` has no `kind`'],
        ['missing_required', 3, 'source `b` has no `kind`'],
        ['missing_required', 5, '`sources[2]` is empty'],
      ],
    );
    assert.match(err.issues[1]!.message, /Add `kind:` with one of the known kinds: `code`, `graphql` /);
  });

  test('a blank name counts as missing', () => {
    const issue = only(fails(lines('sources:', '  - name: "  "', '    kind: graphql', '    schema: a.graphql')));
    assert.match(issue.message, /`sources\[0\]` has no `name`/);
  });

  test('neither schema nor endpoint', () => {
    const issue = only(fails(lines('sources:', '  - name: a', '    kind: graphql', '    schema: ""', '    endpoint: ~')));
    assert.deepEqual([issue.code, issue.line, issue.column], ['missing_required', 2, 5]);
    assert.match(issue.message, /source `a` has neither `schema` nor `endpoint`\. Add `schema: <file or directory>`/);
  });
});

describe('sources', () => {
  test('duplicate names, exact and differing only in case', () => {
    const err = fails(
      lines(
        'sources:',
        '  - name: api',
        '    kind: graphql',
        '    schema: a.graphql',
        '  - name: api',
        '    kind: graphql',
        '    schema: b.graphql',
        '  - name: API',
        '    kind: graphql',
        '    schema: c.graphql',
      ),
    );
    assert.deepEqual(
      err.issues.map((i) => [i.code, i.line, i.column]),
      [
        ['duplicate_name', 5, 11],
        ['duplicate_name', 8, 11],
      ],
    );
    assert.match(err.issues[0]!.message, /source name `api` is already used by the source at line 2\. Give each source a unique name\./);
    assert.match(err.issues[1]!.message, /`API` is already used by the source at line 2 \(`api`; names are compared ignoring case\)/);
  });

  test('invalid name: states the pattern and proposes one', () => {
    const issue = only(fails(lines('sources:', '  - name: My API!', '    kind: graphql', '    schema: a.graphql')));
    assert.deepEqual([issue.code, issue.line, issue.column], ['invalid_name', 2, 11]);
    assert.ok(issue.message.includes('/^[a-z0-9][a-z0-9_.-]*$/i'));
    assert.match(issue.message, /e\.g\. `my-api`\.$/);
  });

  test('both schema and endpoint', () => {
    const issue = only(
      fails(lines('sources:', '  - name: a', '    kind: graphql', '    schema: a.graphql', '    endpoint: https://a.example.com/')),
    );
    assert.deepEqual([issue.code, issue.line, issue.column], ['schema_endpoint_conflict', 5, 5]);
    assert.match(issue.message, /source `a` has both `schema` \(line 4\) and `endpoint`\. Keep exactly one/);
  });

  test('unknown kind: did-you-mean and the known kinds', () => {
    const near = only(fails(lines('sources:', '  - name: a', '    kind: GraphQl', '    schema: a.graphql')));
    assert.deepEqual([near.code, near.line, near.column], ['unknown_kind', 3, 11]);
    assert.match(near.message, /unknown source kind `GraphQl` in source `a`\. Did you mean `graphql`\? Known kinds: `code`, `graphql`\./);
    const far = only(fails(lines('sources:', '  - name: a', '    kind: kafka', '    schema: a.graphql')));
    assert.doesNotMatch(far.message, /Did you mean/);
    assert.match(far.message, /Known kinds: `code`, `graphql`\./);
  });

  test('headers and timeout_ms apply only to endpoint', () => {
    const err = fails(
      lines('sources:', '  - name: a', '    kind: graphql', '    schema: a.graphql', '    headers: {X: "${UNSET}"}', '    timeout_ms: 5'),
    );
    assert.deepEqual(
      err.issues.map((i) => [i.code, i.line, i.column]),
      [
        ['field_not_applicable', 5, 5],
        ['field_not_applicable', 6, 5],
      ],
    );
    assert.match(err.issues[0]!.message, /`headers` in source `a` applies only to `endpoint`/);
  });

  test('endpoint must be an http(s) URL', () => {
    const err = fails(
      lines(
        'sources:',
        '  - name: a',
        '    kind: graphql',
        '    endpoint: ftp://files.example.com/schema',
        '  - name: b',
        '    kind: graphql',
        '    endpoint: api.example.com/graphql',
        '  - name: c',
        '    kind: graphql',
        '    endpoint: ${API_URL}',
      ),
    );
    assert.deepEqual(
      err.issues.map((i) => [i.code, i.line, i.column]),
      [
        ['invalid_value', 4, 15],
        ['invalid_value', 7, 15],
        ['invalid_value', 10, 15],
      ],
    );
    assert.match(err.issues[0]!.message, /must use http or https, got `ftp`/);
    assert.match(err.issues[1]!.message, /`endpoint` in source `b` is not a valid URL\. Write an absolute http\(s\) URL/);
    assert.match(err.issues[2]!.message, /Environment variables are expanded only in `headers` and `data.token`\./);
  });

  test('schema written as broken list text', () => {
    const issue = only(fails(lines('sources:', '  - name: a', '    kind: graphql', `    schema: "[a.graphql, b.graphql]"`)));
    assert.deepEqual([issue.code, issue.line], ['invalid_value', 4]);
    assert.match(issue.message, /not a JSON list of strings\. Write it as a YAML list/);
  });

  test('header names: invalid, and repeated ignoring case', () => {
    const err = fails(
      lines(
        'sources:',
        '  - name: a',
        '    kind: graphql',
        '    endpoint: https://a.example.com/',
        '    headers:',
        '      "Bad Header": x',
        '      X-Key: hv-first',
        '      x-key: hv-second',
      ),
    );
    assert.deepEqual(
      err.issues.map((i) => [i.code, i.line, i.column]),
      [
        ['invalid_value', 6, 7],
        ['duplicate_key', 8, 7],
      ],
    );
    assert.match(err.issues[0]!.message, /`Bad Header` .* is not a valid HTTP header name/);
    assert.match(err.issues[1]!.message, /header `x-key` of source `a` repeats `X-Key` \(line 7\)/);
    assert.doesNotMatch(err.message, /hv-/);
  });
});

describe('environment variables in headers', () => {
  const config = (header: string) =>
    lines('sources:', '  - name: gh', '    kind: graphql', '    endpoint: https://api.github.com/graphql', '    headers:', `      ${header}`);

  test('an unset variable names the variable and the header', () => {
    const err = fails(config('Authorization: "Bearer ${GITHUB_TOKEN}"'), { OTHER: 'x' });
    const issue = only(err);
    assert.deepEqual([issue.code, issue.line, issue.column], ['env_unset', 6, 22]);
    assert.equal(
      issue.message,
      'header `Authorization` of source `gh` uses environment variable `GITHUB_TOKEN`, which is not set. ' +
        'Set `GITHUB_TOKEN` in the environment, or give a default: `${GITHUB_TOKEN:-…}`.',
    );
    assert.doesNotMatch(err.message, /Bearer/);
  });

  test('several unset variables in one header', () => {
    const issue = only(fails(config('X-Auth: ${USER_ID}:${PASSWORD}:${USER_ID}')));
    assert.match(issue.message, /uses environment variables `USER_ID`, `PASSWORD`, which are not set/);
  });

  test('defaults apply when unset or empty; set values win', () => {
    const header = 'X-A: "${A:-da}/${B:-db}/${C:-}/${D}"';
    assert.deepEqual((parse(config(header), { A: 'va', B: '', D: '' }).sources as GraphqlSourceConfig[])[0]!.headers, { 'X-A': 'va/db//' });
  });

  test('malformed references', () => {
    const unclosed = only(fails(config('X-A: "${TOKEN"')));
    assert.equal(unclosed.code, 'env_syntax');
    assert.match(unclosed.message, /`\$\{` is never closed by `\}`\. Write `\$\{VAR\}` or `\$\{VAR:-default\}`/);
    const unsupported = only(fails(config('X-A: "${TOKEN:?required}"')));
    assert.match(unsupported.message, /`\$\{TOKEN…\}` is not `\$\{VAR\}` or `\$\{VAR:-default\}`/);
    assert.doesNotMatch(unsupported.message, /required/);
    const noName = only(fails(config('X-A: "${1X}"')));
    assert.match(noName.message, /does not start with a variable name/);
  });

  test('expandEnv', () => {
    assert.deepEqual(expandEnv('a ${X} $Y $${Z} ${W:-d:-e}', { X: '1', Y: '2' }), { ok: true, value: 'a 1 $Y ${Z} d:-e' });
    assert.deepEqual(expandEnv('${X}${Y}${X}', {}), { ok: false, unset: ['X', 'Y'] });
    assert.deepEqual(expandEnv('trailing $', {}), { ok: true, value: 'trailing $' });
    assert.equal(expandEnv('${', {}).ok, false);
  });
});

describe('secrets never appear in errors', () => {
  const SECRETS = ['literal-s3cret', 'env-s3cret', 'default-s3cret', 'num-9876543'];

  function assertClean(err: ConfigError): void {
    const all = [err.message, ...err.issues.map((i) => i.message), JSON.stringify(err)].join('\n');
    for (const secret of SECRETS) assert.ok(!all.includes(secret), `leaked ${secret} in:\n${all}`);
  }

  test('in validation errors', () => {
    const err = fails(
      lines(
        'sources:',
        '  - name: gh',
        '    kind: graphql',
        '    endpoint: https://user:literal-s3cret@api.example.com/graphql?token=literal-s3cret',
        '    schema: x.graphql',
        '    headers:',
        '      Authorization: "Bearer literal-s3cret ${MISSING}"',
        '      X-Env: ${SET} ${ALSO_MISSING:-default-s3cret} ${MISSING2}',
        '      X-Num: 9876543',
        '      X-Bad: literal-s3cret ${oops',
        '      x-bad: literal-s3cret',
        '  - name: gh2',
        '    kind: graphql',
        '    endpoint: mailto:literal-s3cret@example.com',
      ),
      { SET: 'env-s3cret' },
    );
    assert.ok(err.issues.length >= 6, err.message);
    assertClean(err);
  });

  test('in YAML syntax errors', () => {
    for (const text of ['- a\nAuthorization: literal-s3cret\n', 'headers: |literal-s3cret\n  x\n']) {
      const err = fails(text);
      assert.equal(err.code, 'config_syntax');
      assert.ok(err.issues.length >= 1);
      assertClean(err);
    }
  });
});

describe('YAML syntax errors', () => {
  test('line and column from the parser, every error listed', () => {
    const err = fails(lines('sources:', '  - name: a', '    kind: graphql', '    schema: [a.graphql', 'store: x'));
    assert.equal(err.code, 'config_syntax');
    assert.ok(err.issues.length >= 1);
    assert.ok(err.issues.every((i) => i.code === 'yaml_syntax'));
    assert.equal(err.issues[0]!.line, 5);
    assert.match(err.message, /^sextant\.yaml:5:\d+: .+\. Fix the YAML syntax here/);
    assert.equal(err.message.split('\n').length, err.issues.length);
  });

  test('tabs', () => {
    const issue = fails('sources:\n\t- name: a\n').issues[0]!;
    assert.deepEqual([issue.line, issue.column], [2, 1]);
    assert.match(issue.message, /Tabs are not allowed as indentation\. Indent with spaces, not tabs\./);
  });

  test('several documents', () => {
    const err = fails(MINIMAL + '---\n' + MINIMAL);
    assert.equal(err.issues[0]!.line, 5);
    assert.match(err.issues[0]!.message, /Keep a single YAML document/);
  });
});

describe('files', () => {
  let root: string;
  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'sextant-config-'));
  });
  after(async () => {
    await rm(root, { recursive: true, force: true });
  });

  async function dirWith(name: string, files: Record<string, string>): Promise<string> {
    const dir = join(root, name);
    await mkdir(dir, { recursive: true });
    for (const [file, text] of Object.entries(files)) await writeFile(join(dir, file), text);
    return dir;
  }

  test('loads a file, resolving against its directory and reading process.env by default', async () => {
    const dir = await dirWith('load', { 'sextant.yaml': MINIMAL.replace('schema.graphql', 'schemas/') + 'store: ${HOME}\n' });
    const config = await loadWorkspaceConfig(join(dir, 'sextant.yaml'));
    assert.equal(config.path, join(dir, 'sextant.yaml'));
    assert.equal(config.dir, dir);
    assert.deepEqual((config.sources as GraphqlSourceConfig[])[0]!.schema, [join(dir, 'schemas')]);
    assert.equal(config.store, join(dir, '${HOME}'), 'store is a path, not expanded');
  });

  test('loads from a directory; findConfigFile prefers sextant.yaml', async () => {
    const yml = await dirWith('yml', { 'sextant.yml': MINIMAL });
    assert.equal(findConfigFile(yml), join(yml, 'sextant.yml'));
    assert.equal((await loadWorkspaceConfig(yml)).path, join(yml, 'sextant.yml'));

    const both = await dirWith('both', { 'sextant.yml': MINIMAL, 'sextant.yaml': MINIMAL });
    assert.equal(findConfigFile(both), join(both, 'sextant.yaml'));
    await assert.rejects(loadWorkspaceConfig(both), (err: unknown) => {
      assert.ok(err instanceof ConfigError);
      assert.equal(err.code, 'config_ambiguous');
      assert.match(err.message, /both sextant\.yaml and sextant\.yml exist/);
      return true;
    });

    const none = await dirWith('none', {});
    assert.equal(findConfigFile(none), undefined);
    assert.equal(findConfigFile(join(root, 'does-not-exist')), undefined);
  });

  test('file not found: absolute path, and that indexing works without a config', async () => {
    const missing = join(root, 'nowhere', 'sextant.yaml');
    await assert.rejects(loadWorkspaceConfig(missing), (err: unknown) => {
      assert.ok(err instanceof ConfigError);
      assert.equal(err.code, 'config_not_found');
      assert.equal(err.path, missing);
      assert.equal(err.line, undefined);
      assert.equal(err.issues[0]!.code, 'not_found');
      assert.ok(err.message.startsWith(`${missing}: not found.`), err.message);
      assert.match(err.message, /`sextant index <dir>`, which also works without a config\./);
      return true;
    });
    const empty = await dirWith('empty', {});
    await assert.rejects(loadWorkspaceConfig(empty), (err: unknown) => {
      assert.ok(err instanceof ConfigError);
      assert.equal(err.code, 'config_not_found');
      assert.ok(err.message.startsWith(`${empty}: this directory holds no sextant.yaml or sextant.yml.`), err.message);
      assert.match(err.message, /sextant index <dir>/);
      return true;
    });
  });

  test('errors from a loaded file carry its absolute path', async () => {
    const dir = await dirWith('bad', { 'sextant.yaml': 'sources: []\n' });
    await assert.rejects(loadWorkspaceConfig(dir, {}), (err: unknown) => {
      assert.ok(err instanceof ConfigError);
      assert.equal(err.path, join(dir, 'sextant.yaml'));
      assert.match(err.message, /^sextant\.yaml:1:10: `sources` is an empty list\./);
      return true;
    });
  });
});

describe('code sources', () => {
  test('path, include_tests, exclude and overrides are read; path defaults to the config directory', () => {
    const config = parseWorkspaceConfig(
      lines(
        'sources:',
        '  - name: estate',
        '    kind: code',
        '    path: services',
        '    include_tests: true',
        '    exclude: [legacy/]',
        '    roles:',
        '      annotations: {DomainService: service}',
        '      types: {com.acme.Foo: CONFIG}',
        '    capabilities:',
        '      annotations: {Outbox: [MESSAGE_PRODUCER]}',
        '    links:',
        '      clients: {com.acme.orders.StockClient: inventory-service}',
        '      destinations: {"com.acme.orders.Outbox#flush()": orders.events}',
        '  - name: other',
        '    kind: code',
      ),
      { path: '/repo/sextant.yaml', env: {} },
    );
    assert.deepEqual(config.sources[0], {
      kind: 'code',
      name: 'estate',
      path: '/repo/services',
      include_tests: true,
      exclude: ['legacy/'],
      roles: { annotations: { DomainService: 'SERVICE' }, types: { 'com.acme.Foo': 'CONFIG' } },
      capabilities: { annotations: { Outbox: ['MESSAGE_PRODUCER'] }, types: {} },
      links: { clients: { 'com.acme.orders.StockClient': 'inventory-service' }, destinations: { 'com.acme.orders.Outbox#flush()': 'orders.events' } },
    });
    assert.deepEqual((config.sources[1] as { links: unknown }).links, { clients: {}, destinations: {} });
    assert.equal((config.sources[1] as { path: string }).path, '/repo');
  });

  test('bad values teach: a misspelt role, a non-boolean, an unknown override group, a graphql-only key', () => {
    let err: unknown;
    try {
      parseWorkspaceConfig(lines('sources:', '  - name: estate', '    kind: code', '    include_tests: maybe', '    roles:', '      annotations: {DomainService: SERVCE}', '      fqns: {}', '    headers: {A: b}'), { path: '/repo/sextant.yaml', env: {} });
    } catch (e) {
      err = e;
    }
    assert.ok(err instanceof ConfigError);
    const messages = (err as ConfigError).issues.map((i) => i.message).join('\n');
    assert.match(messages, /`include_tests` in source `estate` must be true or false, got `maybe`/);
    assert.match(messages, /`SERVCE`, which is not one of .*Did you mean `SERVICE`\?/);
    assert.match(messages, /fqns/);
    assert.match(messages, /headers/);
  });

  test('links: a map of two groups of name → string; anything else says how to write it', () => {
    let err: unknown;
    try {
      parseWorkspaceConfig(lines('sources:', '  - name: estate', '    kind: code', '    links:', '      clients: [a, b]', '      destinations: {x: {nested: 1}}', '      topics: {}'), { path: '/repo/sextant.yaml', env: {} });
    } catch (e) {
      err = e;
    }
    assert.ok(err instanceof ConfigError);
    const messages = (err as ConfigError).issues.map((i) => i.message).join('\n');
    assert.match(messages, /`clients` in `links` in source `estate` must be a map of qualified name to a service name, got a list/);
    assert.match(messages, /`x` in `links` in source `estate` must map to a topic, queue or destination, got a map/);
    assert.match(messages, /topics/);
  });
});

describe('embeddings', () => {
  const SOURCES = 'sources:\n  - {name: api, kind: graphql, schema: s.graphql}\n';
  const emb = (body: string) => `${SOURCES}embeddings:\n${body}`;

  test('an OpenAI-compatible endpoint in one block: a base URL gets /v1/embeddings, defaults filled in, the key from the environment', () => {
    const c = parse(emb('  endpoint: http://localhost:11434\n  model: nomic-embed-text\n'));
    assert.deepEqual(c.embeddings, { url: 'http://localhost:11434/v1/embeddings', model: 'nomic-embed-text', headers: {}, batch_size: 64, timeout_ms: DEFAULT_TIMEOUT_MS });
    assert.equal(parse(emb('  endpoint: https://api.openai.com/v1\n  model: m\n')).embeddings!.url, 'https://api.openai.com/v1/embeddings');
    assert.equal(parse(emb('  endpoint: http://h:8080/v1/embeddings\n  model: m\n')).embeddings!.url, 'http://h:8080/v1/embeddings');
    const full = parse(emb('  endpoint: https://api.openai.com/v1\n  model: text-embedding-3-small\n  dimensions: 512\n  api_key: ${OPENAI_API_KEY}\n  batch_size: 128\n  timeout_ms: 5000\n  headers: {OpenAI-Organization: org-1}\n'), { OPENAI_API_KEY: 'sk-test-123456' });
    assert.deepEqual(full.embeddings, {
      url: 'https://api.openai.com/v1/embeddings',
      model: 'text-embedding-3-small',
      dimensions: 512,
      api_key: 'sk-test-123456',
      api_key_env: 'OPENAI_API_KEY',
      headers: { 'OpenAI-Organization': 'org-1' },
      batch_size: 128,
      timeout_ms: 5000,
    });
    assert.equal(parse(SOURCES).embeddings, undefined, 'no block: lexical search only');
  });

  test('teaching errors: what is missing or wrong, where, and how to write it; the key never echoed', () => {
    const missing = fails(emb('  endpoint: http://localhost:11434/v1\n'));
    assert.match(only(missing).message, /`embeddings` needs `model`.*model: nomic-embed-text/s);
    const bad = only(fails(emb('  endpoint: ftp://x\n  model: m\n')));
    assert.equal(bad.line, 4);
    assert.match(bad.message, /`endpoint` in `embeddings` must use http or https/);
    assert.match(only(fails(emb('  endpoint: http://x/v1\n  model: m\n  batch_size: 0\n'))).message, /`batch_size` in `embeddings` must be a positive whole number of texts/);
    assert.match(only(fails(emb('  endpoint: http://x/v1\n  model: m\n  batch_size: 5000\n'))).message, /at most 2048 texts/);
    assert.match(only(fails(emb('  endpoint: http://x/v1\n  model: m\n  dimension: 384\n'))).message, /Did you mean `dimensions`\?/);
    const unset = only(fails(emb('  endpoint: http://x/v1\n  model: m\n  api_key: ${EMB_KEY}\n')));
    assert.equal(unset.code, 'env_unset');
    assert.match(unset.message, /`api_key` in `embeddings` uses environment variable `EMB_KEY`, which is not set/);
    const wrong = fails(emb('  endpoint: http://x/v1\n  model: m\n  api_key: [1, 2]\n'), { K: 'secret-key-999' });
    assert.doesNotMatch(wrong.message, /secret-key-999/);
    assert.match(only(fails(`${SOURCES}embeddings: yes\n`)).message, /`embeddings` must be a map/);
  });
});
