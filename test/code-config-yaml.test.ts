/**
 * Spring YAML as the code source reads it (config/yaml.ts through parseSpringConfig and configEntries): keys with the
 * line each is set on, anchors, aliases and merge keys as YAML defines them, and a document bounded by its size with
 * aliases expanded — one that expands past the bound is skipped with a warning naming file:line, and the rest of the
 * file still reads.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { configEntries } from '../src/sources/code/config/config-keys.js';
import { parseSpringConfig } from '../src/sources/code/config/spring-config.js';
import { flatYamlDocuments, MAX_EXPANDED_NODES } from '../src/sources/code/config/yaml.js';

describe('Spring YAML', () => {
  test('every key says the line it is set on, properties and YAML alike', () => {
    const [yml] = parseSpringConfig('application.yml', 'spring:\n  application:\n    name: orders\nroutes:\n  - id: a\n    uri: lb://a\n', []);
    assert.deepEqual([...yml!.lines], [['spring.application.name', 3], ['routes[0].id', 5], ['routes[0].uri', 6]]);
    const [props] = parseSpringConfig('application.properties', '# x\na=1\nb = 2 \\\n  continued\nc=3\n', []);
    assert.deepEqual([...props!.lines], [['a', 2], ['b', 3], ['c', 5]]);
    assert.equal(props!.values.get('b'), '2 continued');
  });

  test('anchors, aliases and merge keys expand; the map\'s own keys win over merged ones', () => {
    const text = 'base: &base\n  url: http://a\n  timeout: 5\nclient:\n  <<: *base\n  timeout: 9\ncopy: *base\n';
    const [file] = parseSpringConfig('application.yml', text, []);
    assert.equal(file!.values.get('client.url'), 'http://a');
    assert.equal(file!.values.get('client.timeout'), '9');
    assert.equal(file!.lines.get('client.timeout'), 6);
    assert.equal(file!.values.get('copy.timeout'), '5');
  });

  test('a document whose aliases expand past the bound is skipped with a warning, and the next one reads', () => {
    // A few hundred keys under one anchor, then a thousand aliases to it: about 30 KB standing for 300,000 keys.
    const base = Array.from({ length: 300 }, (_, i) => `  k${i}: v${i}`).join('\n');
    const refs = Array.from({ length: 1000 }, (_, i) => `r${i}: *a`).join('\n');
    const text = `base: &a\n${base}\n${refs}\n---\nspring.application.name: survivor\n`;
    const warnings: string[] = [];
    const files = parseSpringConfig('application.yml', text, warnings);
    assert.equal(warnings.length, 1);
    assert.match(warnings[0]!, new RegExp(`^application\\.yml:1: YAML document expands to more than ${MAX_EXPANDED_NODES} nodes`));
    assert.deepEqual(files.map((f) => [...f.values]), [[['spring.application.name', 'survivor']]]);
  });

  test('aliases of aliases (nested expansion) are measured without expanding them', () => {
    const lines = ['a0: &a0 [x, x, x, x, x, x, x, x, x, x]'];
    for (let i = 1; i < 10; i++) lines.push(`a${i}: &a${i} [${Array.from({ length: 10 }, () => `*a${i - 1}`).join(', ')}]`);
    const warnings: string[] = [];
    assert.deepEqual(parseSpringConfig('bootstrap.yml', lines.join('\n'), warnings).map((f) => f.values.size), [0]);
    assert.match(warnings[0]!, /^bootstrap\.yml:1: YAML document expands to more than/);
  });

  test('config keys carry the same lines, per profile document', () => {
    const text = 'a: 1\n---\nspring:\n  config:\n    activate:\n      on-profile: prod\na: 2\n';
    assert.deepEqual(
      configEntries('application.yml', text).map((e) => `${e.profile ?? '-'} ${e.key}=${e.value} @${e.line}`),
      ['- a=1 @1', 'prod spring.config.activate.on-profile=prod @6', 'prod a=2 @7'],
    );
  });
  test('a file read twice (layout, then configuration keys) is flattened once, and each reader gets its warnings', () => {
    const text = 'a: 1\n---\n- not a mapping\n---\nb: [unclosed\n';
    const first: string[] = [];
    const docs = flatYamlDocuments('svc/application.yml', text, first);
    assert.equal(first.length, 2, first.join('; '));
    const second: string[] = [];
    assert.equal(flatYamlDocuments('svc/application.yml', text, second), docs, 'the same documents, not parsed again');
    assert.deepEqual(second, first, 'the warnings again, for this reader');
    const other: string[] = [];
    const edited = flatYamlDocuments('svc/application.yml', 'a: 2\n', other);
    assert.notEqual(edited, docs);
    assert.equal(edited[0]!.values.get('a'), '2', 'a changed text is read again');
    assert.deepEqual(other, []);
    const elsewhere: string[] = [];
    flatYamlDocuments('other/application.yml', text, elsewhere);
    assert.ok(elsewhere.every((w) => w.startsWith('other/application.yml:')), 'warnings name the path they were read from');
  });
});
