/**
 * A call whose argument count no project method of that name takes goes to the library supertype that may declare
 * it, not to a project overload of another arity (which made `getHeader(key)` inside an overload
 * `getHeader(key, type)` call itself, and the value evaluator report "recursive"); a call of the right arity keeps
 * its project method. On a small estate written here and indexed on this thread.
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, before, test } from 'node:test';
import type { EdgeRecord, NodeRecord } from '../src/graph/types.js';
import { buildEstate, writeEstate } from './helpers/estate.js';

let dir = '';
let nodes: readonly NodeRecord[] = [];
let edges: readonly EdgeRecord[] = [];

before(async () => {
  dir = writeEstate(
    {
      'svc/build.gradle.kts': 'plugins { id("org.springframework.boot") }\n',
      'svc/src/main/java/p/Accessor.java': `package p;
import org.springframework.messaging.support.MessageHeaderAccessor;
public class Accessor extends MessageHeaderAccessor {
  public <T> T getHeader(String key, Class<T> type) {
    Object value = getHeader(key);
    return (T) value;
  }
  public String destination(Accessor other) {
    Object v = other.getHeader("destination");
    return getHeader("destination", String.class);
  }
}
`,
    },
    'sextant-calls-arity-',
  );
  ({ nodes, edges } = await buildEstate(dir));
});
after(() => rmSync(dir, { recursive: true, force: true }));

function callsFrom(qn: string): string[] {
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const from = nodes.find((n) => n.qualified_name === qn);
  assert.ok(from, qn);
  return edges.filter((e) => e.type === 'CALLS' && e.from === from.id).map((e) => `${e.attrs?.line}: ${byId.get(e.to)?.qualified_name}`).sort();
}

test('a bare call of an arity only the library supertype takes: the library method, not the overload it sits in', () => {
  assert.deepEqual(callsFrom('p.Accessor#getHeader(String,Class)'), ['5: org.springframework.messaging.support.MessageHeaderAccessor#getHeader(?)']);
});

test('on a receiver of the project type too (the member it inherits); the right arity keeps the project method', () => {
  assert.deepEqual(callsFrom('p.Accessor#destination(Accessor)'), ['10: p.Accessor#getHeader(String,Class)', '9: p.Accessor#getHeader(?)']);
  const inherited = nodes.find((n) => n.qualified_name === 'p.Accessor#getHeader(?)');
  assert.equal(inherited?.props.inherited_from, 'org.springframework.messaging.support.MessageHeaderAccessor');
});
