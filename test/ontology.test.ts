import assert from 'node:assert/strict';
import { LIBRARY } from '../src/sources/code/eval/library.js';
import { renderLibraryTable, withLibraryTable } from '../src/sources/code/eval/library-docs.js';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { Ontology, OntologyError, sextantOntology, type OntologyModule } from '../src/graph/ontology/index.js';
import { renderOntologyDoc } from '../src/graph/ontology/docs.js';
import { listTools } from '../src/query/index.js';
import { identifierParts, indexTokens, queryTerms, searchTerm, searchTerms } from '../src/search/tokenize.js';
import { closest, editDistance, trigramSimilarity } from '../src/search/similarity.js';
import { parsePythonStringList } from '../src/query/coerce.js';

const kind = (name: string, idPrefix: string, props: OntologyModule['nodeKinds'][number]['properties'] = []) => ({ name, idPrefix, description: name, qualifiedNameFormat: 'x', location: [] as const, searchPrior: 1, properties: props });

test('docs/ontology.md is generated from the ontology and has not drifted (npm run docs)', () => {
  const onDisk = readFileSync(new URL('../docs/ontology.md', import.meta.url), 'utf8');
  assert.equal(onDisk, renderOntologyDoc(sextantOntology()), 'docs/ontology.md is stale: run `npm run docs`');
});

test('docs/links.md shows the library table as library.json has it (npm run docs)', () => {
  const onDisk = readFileSync(new URL('../docs/links.md', import.meta.url), 'utf8');
  assert.equal(onDisk, withLibraryTable(onDisk, renderLibraryTable(LIBRARY)), 'the library table in docs/links.md is stale: run `npm run docs`');
});

test('filter fields, edge endpoints and tool schemas derive from the declarations', () => {
  const o = sextantOntology();
  const typeFields = [...o.kind('type')!.filterFields.keys()];
  for (const f of ['type_kind', 'exclude_type_kind', 'name_prefix', 'qualified_name_contains', 'min_field_count', 'max_field_count', 'enum_values', 'resolved']) assert.ok(typeFields.includes(f), f);
  assert.ok(!typeFields.includes('parent_type'));
  assert.deepEqual(o.edgeTypesFor('type', 'out'), ['HAS_FIELD', 'IMPLEMENTS', 'UNION_MEMBER']);
  assert.deepEqual(o.edgeTypesFor('field', 'out'), ['ARGUMENT_TYPE', 'FIELD_TYPE']);
  const find = listTools(o).find((t) => t.name === 'find')!;
  const props = find.inputSchema.properties as Record<string, { enum?: string[]; properties?: Record<string, unknown> }>;
  assert.deepEqual(props.kind!.enum, o.kindNames());
  assert.ok(props.filter!.properties!.parent_type && props.filter!.properties!.type_kind);
  const neighbors = listTools(o).find((t) => t.name === 'neighbors')!;
  // One of `id` / `ids` (a teaching error says so): neither is required by the schema.
  assert.deepEqual((neighbors.inputSchema as { required: string[] }).required, ['direction', 'edge_types']);
});

test('the registry refuses inconsistent declarations', () => {
  const mod = (nodeKinds: OntologyModule['nodeKinds'], edgeTypes: OntologyModule['edgeTypes'] = []): OntologyModule => ({ sourceKind: 'x', description: '', nodeKinds, edgeTypes });
  assert.throws(() => new Ontology([mod([kind('a', 'aa'), kind('a', 'ab')])]), OntologyError);
  assert.throws(() => new Ontology([mod([kind('a', 'aa'), kind('b', 'aa')])]), /id prefix aa/);
  assert.throws(() => new Ontology([mod([kind('a', 'aa')], [{ name: 'E', description: '', from: ['a'], to: ['zz'], attrs: [], inferred: false }])]), /unknown node kind zz/);
  assert.throws(
    () => new Ontology([mod([kind('a', 'aa', [{ name: 'p', type: 'string', description: '', filter: ['eq'] }]), kind('b', 'bb', [{ name: 'p', type: 'integer', description: '', filter: ['eq'] }])])]),
    /property p has type string in one kind and integer in b/,
  );
  assert.notEqual(new Ontology([mod([kind('a', 'aa')])]).version, new Ontology([mod([kind('a', 'ab')])]).version);
});

test('identifier-aware tokens', () => {
  assert.deepEqual(identifierParts('getOrderById'), ['get', 'order', 'by', 'id']);
  assert.deepEqual(identifierParts('HTTPServerError'), ['http', 'server', 'error']);
  assert.deepEqual(identifierParts('pull_request.review-comments'), ['pull', 'request', 'review', 'comments']);
  assert.deepEqual(indexTokens('PullRequest.title'), ['pullrequesttitle', 'pull', 'request', 'title']);
  assert.deepEqual(indexTokens('sha256 value'), ['sha256', 'value']);
  assert.deepEqual(queryTerms('the pull requests of a repo'), ['pull', 'requests', 'repo']);
  assert.deepEqual(queryTerms('the'), ['the']);
});

test('search terms: each token folded and stemmed, the same for an identifier seen before, long tokens folded only', () => {
  const qn = 'no.nav.familie.ef.sak.behandling.BehandlingService#hentBehandlinger(java.util.UUID)';
  const expected = ['nonavfamilieefsakbehandlingbehandlingservicehentbehandling', 'no', 'nav', 'famili', 'ef', 'sak', 'behandl', 'behandl', 'servic', 'hent', 'behandling', 'javautiluuid', 'java', 'util', 'uuid'];
  // Twice: the second answer comes from what the first remembered, and must not differ (nor be shared and changed).
  for (let round = 0; round < 2; round++) {
    const terms = searchTerms(qn);
    assert.deepEqual(terms, expected);
    terms.push('mutated');
  }
  assert.deepEqual(searchTerms(qn), indexTokens(qn).map(searchTerm));
  // Past 64 characters a token is not stemmed, but its diacritics are still folded (ø is a letter of its own, not o with a mark).
  const long = `Månedsbeløp${'Utbetaling'.repeat(6)}Perioder`;
  assert.ok(long.length > 64);
  assert.equal(searchTerm(long), long.toLowerCase().replace('å', 'a'));
  assert.equal(searchTerm('Måneder'), 'maned');
});

test('similarity and did-you-mean', () => {
  assert.equal(editDistance('type_knid', 'type_kind'), 1);
  assert.ok(trigramSimilarity('Custmer', 'Customer') > 0.4);
  assert.deepEqual(closest('fitler', ['filter', 'limit', 'offset']), ['filter']);
  assert.deepEqual(closest('zzz', ['filter', 'limit']), []);
});

test('the Python-style list literal parser is strict', () => {
  assert.deepEqual(parsePythonStringList(`['a', "b",]`), ['a', 'b']);
  assert.deepEqual(parsePythonStringList(`['it\\'s']`), ["it's"]);
  assert.deepEqual(parsePythonStringList('[]'), []);
  for (const bad of ["['a' 'b']", '[a]', "['a', 1]", "['unterminated]", "['a'] + ['b']", "['\\x41']"]) assert.equal(parsePythonStringList(bad), undefined, bad);
});
