/**
 * Code in the answer: `describe` returns a declaration's source read from the indexed file (bounded by
 * `max_lines`), or its signature; `search` results carry the signature and the doc comment's first sentence; a file
 * edited after indexing is said (and lines that moved are not shown). Through the MCP client and `sextant call` on
 * the petclinic estate, and on our Java and Kotlin fixture.
 */
import assert from 'node:assert/strict';
import { cpSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { sextantOntology } from '../src/graph/ontology/index.js';
import { openTestStore } from './helpers/store.js';
import type { Store } from '../src/graph/store.js';
import { SourceReader } from '../src/query/source-text.js';
import { buildWorkspace } from '../src/indexer/build.js';
import { resolveTarget } from '../src/indexer/target.js';
import { callTool, connectStdio, hintChecker, indexInto, jsonOf, killAll, runCli, tempDir, tempStore, type Connection, type HintChecker } from './helpers/e2e.js';
import { sharedDir } from './helpers/index.js';

const PETCLINIC = join(sharedDir(), 'corpora', 'spring-petclinic-microservices');
const FIXTURE = fileURLToPath(new URL('./fixtures/source-text', import.meta.url));
const GATEWAY = 'org.springframework.samples.petclinic.api.boundary.web.ApiGatewayController';
const GATEWAY_FILE = 'spring-petclinic-api-gateway/src/main/java/org/springframework/samples/petclinic/api/boundary/web/ApiGatewayController.java';
const VECTOR = 'org.springframework.samples.petclinic.genai.VectorStoreController';
const VECTOR_FILE = 'spring-petclinic-genai-service/src/main/java/org/springframework/samples/petclinic/genai/VectorStoreController.java';

/** Lines `from..to` (1-based, inclusive) of a file, as the file has them. */
function linesOf(root: string, file: string, from: number, to: number): string[] {
  return readFileSync(join(root, file), 'utf8').split('\n').slice(from - 1, to);
}

let petStore: string;
let fixtureStore: string;
let mcp: Connection;
let hints: HintChecker;

before(async () => {
  petStore = await tempStore('sextant-source-pc-');
  fixtureStore = await tempStore('sextant-source-fx-');
  await indexInto(PETCLINIC, petStore);
  await indexInto(FIXTURE, fixtureStore);
  mcp = await connectStdio(petStore);
  hints = hintChecker((await mcp.client.listTools()).tools);
});
after(async () => {
  await mcp?.close();
  await killAll();
});

async function cli(store: string, tool: string, args: Record<string, unknown>): Promise<Record<string, any>> {
  const r = await runCli(['call', tool, JSON.stringify(args), '--store', store]);
  assert.equal(r.code, 0, r.stderr + r.stdout);
  return jsonOf(r);
}

async function viaMcp(tool: string, args: Record<string, unknown>): Promise<Record<string, any>> {
  const { isError, body } = await callTool(mcp.client, tool, args);
  assert.equal(isError, false, JSON.stringify(body));
  hints.check(tool, body);
  return body;
}

describe('describe returns the declaration\'s source (petclinic)', () => {
  test('a method, over MCP: exactly its lines in the file, first to last', async () => {
    const r = await viaMcp('describe', { id: `${GATEWAY}#getOwnerDetails(int)` });
    const code = r.node.code;
    assert.equal(r.node.source, 'spring-petclinic-microservices', 'the node reference keeps its source name');
    assert.equal(code.available, true, JSON.stringify(code));
    assert.deepEqual([code.start_line, code.end_line, code.total_lines, code.truncated, code.stale], [54, 66, 13, false, false]);
    const lines = code.text.split('\n');
    assert.deepEqual(lines, linesOf(PETCLINIC, GATEWAY_FILE, 54, 66));
    assert.equal(lines[0], '    @GetMapping(value = "owners/{ownerId}")');
    assert.equal(lines.at(-1), '    }');
    assert.equal(code.doc, undefined, 'the method has no doc comment');
    assert.equal(code.note, undefined);
  });

  test('a class through sextant call: cut at the default 60 lines, said, and a hint that asks for all of it', async () => {
    const r = await cli(petStore, 'describe', { id: VECTOR });
    const code = r.node.code;
    assert.deepEqual([code.start_line, code.end_line, code.total_lines, code.truncated, code.stale], [36, 95, 77, true, false]);
    assert.deepEqual(code.text.split('\n'), linesOf(PETCLINIC, VECTOR_FILE, 36, 95));
    assert.equal(code.text.split('\n')[0], '@Component');
    assert.equal(code.doc, 'Loads the veterinarians data into a vector store for the purpose of RAG functionality.');
    assert.deepEqual(r.hints[0], { tool: 'describe', args: { id: r.node.id, source: 'full', max_lines: 77 }, reason: `all the 77 lines of ${VECTOR}` });
    const all = await cli(petStore, 'describe', r.hints[0].args);
    assert.deepEqual([all.node.code.end_line, all.node.code.truncated], [112, false]);
    assert.deepEqual(all.node.code.text.split('\n'), linesOf(PETCLINIC, VECTOR_FILE, 36, 112));
    assert.equal(all.node.code.text.split('\n').at(-1), '}');
  });

  test('max_lines is honoured, over MCP and sextant call alike', async () => {
    for (const r of [await viaMcp('describe', { id: `${GATEWAY}#getOwnerDetails(int)`, max_lines: 3 }), await cli(petStore, 'describe', { id: `${GATEWAY}#getOwnerDetails(int)`, max_lines: '3' })]) {
      const code = r.node.code;
      assert.deepEqual([code.start_line, code.end_line, code.total_lines, code.truncated], [54, 56, 13, true]);
      assert.deepEqual(code.text.split('\n'), linesOf(PETCLINIC, GATEWAY_FILE, 54, 56));
    }
    const exact = await viaMcp('describe', { id: `${GATEWAY}#getOwnerDetails(int)`, max_lines: 13 });
    assert.equal(exact.node.code.truncated, false, 'exactly the declaration\'s length is not a cut');
    assert.ok(!exact.hints.some((h: any) => h.tool === 'describe'));
  });

  test('signature only: the header with its annotations, without the body; the doc comment\'s first sentence', async () => {
    const r = await viaMcp('describe', { id: `${GATEWAY}#getOwnerDetails(int)`, source: 'signature' });
    assert.deepEqual(r.node.code, {
      available: true,
      start_line: 54,
      end_line: 55,
      signature: '@GetMapping(value = "owners/{ownerId}")\npublic Mono<OwnerDetails> getOwnerDetails(final @PathVariable int ownerId)',
      stale: false,
    });
    const router = await cli(petStore, 'describe', { id: 'org.springframework.samples.petclinic.api.ApiGatewayApplication#routerFunction()', source: 'signature' });
    assert.equal(router.node.code.signature, '@Bean\nRouterFunction<?> routerFunction()');
    assert.equal(router.node.code.doc, 'workaround solution for forwarding to index.html', 'the @see tag is not part of the sentence');
    const record = await cli(petStore, 'describe', { id: 'org.springframework.samples.petclinic.genai.dto.Vet', source: 'signature' });
    assert.equal(record.node.code.signature, 'public record Vet(\n    Integer id,\n    String firstName,\n    String lastName,\n    Set<Specialty> specialties)');
    assert.equal(record.node.code.doc, 'Simple Data Transfer Object representing a vet.');
  });

  test('source none leaves the code out; other kinds show theirs only when asked', async () => {
    const none = await viaMcp('describe', { id: `${GATEWAY}#getOwnerDetails(int)`, source: 'none' });
    assert.equal(none.node.code, undefined);
    const route = await viaMcp('describe', { id: 'api-gateway GET /api/gateway/owners/{ownerId}' });
    assert.equal(route.node.kind, 'route');
    assert.equal(route.node.code, undefined);
    const asked = await viaMcp('describe', { id: route.node.id, source: 'full' });
    assert.equal(asked.node.code.available, true);
    assert.deepEqual(asked.node.code.text.split('\n'), linesOf(PETCLINIC, route.node.file, route.node.line, asked.node.code.end_line));
    const several = await viaMcp('describe', { ids: [`${GATEWAY}#getOwnerDetails(int)`, VECTOR], max_lines: 2 });
    assert.deepEqual(several.nodes.map((n: any) => [n.code.start_line, n.code.end_line, n.code.truncated]), [[54, 55, true], [36, 37, true]]);
    const library = await viaMcp('describe', { id: 'org.springframework.ai.vectorstore.VectorStore' });
    assert.equal(library.node.code.available, false);
    assert.match(library.node.code.reason, /library symbol/);
  });

  test('search results carry the doc sentence and the signature as one line', async () => {
    const r = await viaMcp('search', { query: 'vector store', kinds: ['symbol'], limit: 10 });
    const hit = r.results.find((x: any) => x.node.qualified_name === VECTOR);
    assert.equal(hit.snippet, '/** Loads the veterinarians data into a vector store for the purpose of RAG functionality. */ @Component public class VectorStoreController');
    const owner = await cli(petStore, 'search', { query: 'getOwnerDetails', kinds: ['symbol'], limit: 3 });
    const method = owner.results.find((x: any) => x.node.qualified_name === `${GATEWAY}#getOwnerDetails(int)`);
    assert.equal(method.snippet, '@GetMapping(value = "owners/{ownerId}") public Mono<OwnerDetails> getOwnerDetails(final @PathVariable int ownerId)');
    const external = r.results.find((x: any) => x.node.qualified_name === 'org.springframework.ai.vectorstore.VectorStore');
    assert.ok(external, 'the library type is found too');
    assert.equal(external.snippet, undefined, 'a library symbol has no source to quote');
  });

  test('bad values are teaching errors', async () => {
    const cases: [Record<string, unknown>, string, RegExp][] = [
      [{ max_lines: 0 }, 'out_of_range', /max_lines must be between 1 and 2000; got 0/],
      [{ max_lines: 2001 }, 'out_of_range', /max_lines must be between 1 and 2000; got 2001/],
      [{ max_lines: 'ten' }, 'invalid_argument', /max_lines must be an integer/],
      [{ max_lines: 2.5 }, 'invalid_argument', /max_lines must be an integer/],
      [{ source: 'ful' }, 'bad_enum_value', /source: unknown value "ful"\. Did you mean "full"\?.*Allowed: full, signature, none/],
      [{ source: 'body' }, 'bad_enum_value', /Allowed: full, signature, none/],
    ];
    for (const [bad, code, message] of cases) {
      const { isError, body } = await callTool(mcp.client, 'describe', { id: `${GATEWAY}#getOwnerDetails(int)`, ...bad });
      assert.equal(isError, true, JSON.stringify(bad));
      assert.equal(body.error.code, code, JSON.stringify(body));
      assert.match(body.error.message, message);
    }
    const r = await runCli(['call', 'describe', JSON.stringify({ id: VECTOR, source: 'SIGNATURE', max_lines: 5 }), '--store', petStore]);
    assert.equal(r.code, 0, 'a case-insensitive spelling that names one value is accepted');
    assert.equal(jsonOf(r).node.code.signature, '@Component\npublic class VectorStoreController');
    const wrong = await runCli(['call', 'describe', JSON.stringify({ id: VECTOR, max_lines: -1 }), '--store', petStore]);
    assert.equal(wrong.code, 1);
    assert.match(wrong.stdout, /max_lines must be between 1 and 2000/);
  });
});

describe('Java and Kotlin headers and doc comments (fixture)', () => {
  const describeFx = (id: string, extra: Record<string, unknown> = {}) => cli(fixtureStore, 'describe', { id, ...extra });

  test('Kotlin: an expression body, a default lambda argument and a string template do not end the header early', async () => {
    const format = await describeFx('com.acme.text.Pricing#format(BigDecimal,Function1)', { source: 'signature' });
    assert.equal(format.node.code.signature, 'fun format(amount: BigDecimal, label: (String) -> String = { "${it}!" }): String');
    assert.equal(format.node.code.doc, 'Formats [amount] with the currency and a label.');
    const full = await describeFx('com.acme.text.Pricing#withTax(BigDecimal)');
    assert.deepEqual([full.node.code.start_line, full.node.code.end_line, full.node.code.doc], [21, 25, 'Adds tax.']);
    assert.deepEqual(full.node.code.text.split('\n'), linesOf(FIXTURE, 'src/main/kotlin/com/acme/text/Pricing.kt', 21, 25));
    const sig = await describeFx('com.acme.text.Pricing#withTax(BigDecimal)', { source: 'signature' });
    assert.equal(sig.node.code.signature, '@Deprecated("use gross", level = DeprecationLevel.WARNING)\nfun withTax(amount: BigDecimal): BigDecimal');
    const type = await describeFx('com.acme.text.Pricing', { source: 'signature' });
    assert.equal(type.node.code.signature, '@Component\nclass Pricing(private val currency: String = "EUR")');
    assert.equal(type.node.code.doc, 'Prices items in a currency.');
  });

  test('Kotlin: a member not written in source shows the declaration it arises from', async () => {
    const getter = await describeFx('com.acme.text.Price#getAmount()');
    assert.equal(getter.node.code.text, 'data class Price(val amount: BigDecimal, val currency: String)');
    assert.equal(getter.node.code.start_line, 29);
    assert.match(getter.node.code.note, /not written in source \(property_getter\)/);
  });

  test('Java: braces in annotation arrays, text blocks and chars are not the body; HTML and inline tags end or fold into the sentence', async () => {
    const find = await describeFx('com.acme.text.Catalog#find(String,String)', { source: 'signature' });
    assert.equal(find.node.code.signature, '@GetMapping(value = "/{name}", produces = { "application/json" })\npublic <T extends Item> T find(\n        @PathVariable("name") String name,\n        @RequestParam(defaultValue = "{}") String filter)');
    assert.equal(find.node.code.doc, 'Finds an item by name (exact match).');
    const type = await describeFx('com.acme.text.Catalog', { source: 'signature' });
    assert.equal(type.node.code.signature, '@Service\n@RequestMapping({"/catalog", "/items"})\npublic class Catalog implements Lookup<Item>');
    assert.equal(type.node.code.doc, 'A catalog of items, kept in memory.');
    const inherited = await describeFx('com.acme.text.Catalog#all()');
    assert.equal(inherited.node.code.doc, undefined, '{@inheritDoc} alone is no sentence');
    assert.equal(inherited.node.code.text, '    @Override\n    public List<Item> all() { return List.of(); }');
    const abstract = await describeFx('com.acme.text.Lookup#all()', { source: 'signature' });
    assert.deepEqual([abstract.node.code.signature, abstract.node.code.doc], ['List<T> all()', 'Every item, in no particular order.']);
  });
});

describe('a file edited after indexing', () => {
  let dir: string;
  let store: string;
  const FILE = 'src/main/kotlin/com/acme/text/Pricing.kt';

  before(async () => {
    dir = await tempDir('sextant-source-edit-');
    cpSync(FIXTURE, dir, { recursive: true });
    store = await tempDir('sextant-source-edit-store-');
    await indexInto(dir, store);
    const text = readFileSync(join(dir, FILE), 'utf8');
    // Three lines in front of withTax: format (above) keeps its place, withTax moves down.
    writeFileSync(join(dir, FILE), text.replace('    /**\n     * Adds tax.', '    fun helper(): Int = 1\n\n    // moved\n    /**\n     * Adds tax.'));
  });

  test('a declaration still at its line is shown from the file as it is now, and said to be stale', async () => {
    const r = await cli(store, 'describe', { id: 'com.acme.text.Pricing#format(BigDecimal,Function1)' });
    const code = r.node.code;
    assert.equal(code.available, true);
    assert.equal(code.stale, true);
    assert.match(code.note, /changed since it was indexed \(its content hash differs\)/);
    assert.deepEqual(code.text.split('\n'), linesOf(dir, FILE, 13, 14));
    const type = await cli(store, 'describe', { id: 'com.acme.text.Pricing', max_lines: 100 });
    assert.equal(type.node.code.stale, true);
    assert.deepEqual([type.node.code.start_line, type.node.code.end_line], [9, 29], 'the class is measured again: three lines longer');
    assert.deepEqual(type.node.code.text.split('\n'), linesOf(dir, FILE, 9, 29));
  });

  test('a declaration whose lines moved is not shown, and the answer says why', async () => {
    const r = await cli(store, 'describe', { id: 'com.acme.text.Pricing#withTax(BigDecimal)' });
    assert.deepEqual({ ...r.node.code, reason: undefined }, { available: false, stale: true, reason: undefined });
    assert.match(r.node.code.reason, /changed since it was indexed and line 21 no longer starts com\.acme\.text\.Pricing#withTax\(BigDecimal\)/);
    const search = await cli(store, 'search', { query: 'withTax', kinds: ['symbol'] });
    assert.equal(search.results[0].node.qualified_name, 'com.acme.text.Pricing#withTax(BigDecimal)');
    assert.equal(search.results[0].snippet, undefined, 'no snippet from lines that are not the declaration');
  });

  test('an unchanged file of the same index is not stale', async () => {
    const r = await cli(store, 'describe', { id: 'com.acme.text.Lookup#count()' });
    assert.deepEqual([r.node.code.stale, r.node.code.note], [false, undefined]);
  });
});

describe('reading stays inside the indexed root', () => {
  let store: Store;
  let reader: SourceReader;
  let dir: string;

  before(async () => {
    dir = await tempDir('sextant-source-root-');
    cpSync(FIXTURE, join(dir, 'tree'), { recursive: true });
    writeFileSync(join(dir, 'secret.txt'), 'not for answers\n');
    // Indexed in process (not by the built CLI), so the store is written by the same ontology that reads it.
    const storeDir = await tempDir('sextant-source-root-store-');
    const ontology = sextantOntology();
    const writer = await openTestStore(ontology, storeDir, { mode: 'write' });
    await buildWorkspace(writer, ontology, (await resolveTarget(join(dir, 'tree'))).config);
    await writer.close();
    store = await openTestStore(ontology, storeDir, { mode: 'read' });
    reader = new SourceReader(store);
  });
  after(async () => store?.close());

  const node = async (qn: string) => (await store.nodesByName('qualified_name', qn, { caseInsensitive: false, limit: 1 }))[0]!;

  test('a file path that climbs out of the root is refused', async () => {
    const lookup = await node('com.acme.text.Lookup');
    for (const file of ['../secret.txt', '../../tree/../secret.txt', join(dir, 'secret.txt')]) {
      const r = await reader.declaration({ ...lookup, file }, 'full');
      assert.equal(r.available, false, file);
      assert.match((r as { reason: string }).reason, /not inside the indexed root/);
    }
  });

  test('a symbolic link inside the tree that points outside it is not followed', async () => {
    const lookup = await node('com.acme.text.Lookup');
    symlinkSync(join(dir, 'secret.txt'), join(dir, 'tree', 'link.java'));
    const r = await reader.declaration({ ...lookup, file: 'link.java', line: 1 }, 'full');
    assert.equal(r.available, false);
    assert.match((r as { reason: string }).reason, /resolves outside the indexed root/);
  });

  test('an index without recorded hashes shows the file but says it cannot vouch for it', async () => {
    const noHashes = new Proxy(store, { get: (t, p) => (p === 'artifact' ? async () => undefined : p === 'location' ? `${t.location} (no hashes)` : (t as any)[p]?.bind?.(t) ?? (t as any)[p]) }) as Store;
    const r = await new SourceReader(noHashes).declaration(await node('com.acme.text.Lookup#count()'), 'full');
    assert.equal(r.available, true);
    assert.equal((r as { stale: boolean }).stale, true);
    assert.match((r as { note: string }).note, /records no content hash/);
  });
});
