/**
 * The assembler's state saved beside the facts cache by a re-index: a later one-shot build restores it and emits
 * again only the files a change reaches; a state it cannot trust (garbled, cut short, written by another version of Sextant) is
 * not used, and the build assembles every file. Either way the index equals a fresh one.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { appendFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { BuildReport } from '../src/indexer/build.js';
import { ageTree, ESTATE, indexTree } from './helpers/estate.js';
import { dumpIndex, testStoreLocation } from './helpers/store.js';

const FILES = 53;
const HANDLER = 'orders/orders-app/src/main/java/com/acme/orders/payment/CardPaymentHandler.java';

describe('the assembler state a one-shot build restores', () => {
  let work: string;
  let root: string;
  const cache = () => join(work, 'cache');
  const state = () => join(cache(), 'code-estate.assembly');
  let edits = 0;
  let lastWarnings: string[] = [];

  // The rows files beside the state (the current one, and the one the last build loaded while it may still read it).
  const rowsFiles = () => readdirSync(cache()).filter((f) => f.startsWith('code-estate.assembly.') && f.endsWith('.rows'));
  const current = () => JSON.parse(readFileSync(state(), 'utf8')).entries.find((e: [string]) => e[0] === '\u0000assembly')?.[1].rows as string;
  const idOf = () => {
    const log = existsSync(`${state()}.log`) ? readFileSync(`${state()}.log`, 'utf8').trim().split('\n').slice(1) : [];
    const logged = log.map((line) => (JSON.parse(line) as [string, { rows?: string }][]).find((e) => e[0] === '\u0000assembly')?.[1].rows).filter(Boolean);
    return logged.length ? logged[logged.length - 1]! : current();
  };
  const rowsOf = (id: string) => join(cache(), `code-estate.assembly.${id}.rows`);

  const index = (dir: string, cacheDir?: string): Promise<BuildReport> => indexTree(root, dir, { ...(cacheDir ? { cacheDir } : {}), env: process.env });

  /** A body edit (nothing another file can observe), then a one-shot build: how many files it emitted; the index is checked against a fresh one. */
  async function editAndIndex(): Promise<number> {
    edits++;
    const path = join(root, HANDLER);
    writeFileSync(path, readFileSync(path, 'utf8').replace(/return "card[\w-]*"\.equals\(/, `return "card-${edits}".equals(`));
    const report = await index(join(work, 'incremental'), cache());
    lastWarnings = report.sources[0]!.warnings;
    const fresh = join(work, `fresh-${edits}`);
    await index(fresh);
    const [a, b] = [await dumpIndex(await testStoreLocation(join(work, 'incremental'))), await dumpIndex(await testStoreLocation(fresh))];
    assert.deepEqual(a.nodes, b.nodes, 'nodes and their order equal a fresh index');
    assert.deepEqual(a.edges, b.edges, 'edges equal a fresh index');
    rmSync(fresh, { recursive: true, force: true });
    return (report.sources[0]!.details as { emitted: number }).emitted;
  }

  before(async () => {
    work = mkdtempSync(join(tmpdir(), 'sextant-assembly-'));
    root = join(work, 'estate');
    cpSync(ESTATE, root, { recursive: true });
    ageTree(root, Date.now() / 1000 - 3600);
    const first = await index(join(work, 'incremental'), cache());
    assert.equal((first.sources[0]!.details as { emitted: number }).emitted, FILES);
    assert.ok(!existsSync(state()), 'a first build does not pay to save the state');
  });
  after(() => rmSync(work, { recursive: true, force: true }));

  test('the first re-index emits every file and saves the state; the next ones restore it: a body edit emits its own file only', async () => {
    assert.equal(await editAndIndex(), FILES);
    assert.ok(existsSync(state()));
    assert.equal(await editAndIndex(), 1);
    assert.equal(await editAndIndex(), 1, 'and again, from the state the last build logged');
  });

  test('a garbled state is not used: every file is emitted, and the state is saved whole again', async () => {
    writeFileSync(state(), '{"version": "assembly-1:x", "entries": [[');
    assert.equal(await editAndIndex(), FILES);
    assert.equal(await editAndIndex(), 1);
  });

  test('a save cut short in the log is not applied: the build updates from the save before it', async () => {
    assert.equal(await editAndIndex(), 1);
    const log = `${state()}.log`;
    const lines = readFileSync(log, 'utf8').split('\n');
    assert.ok(lines.length >= 3, 'a header and at least one save');
    // The last save, cut in half (a process killed while appending it).
    const last = lines[lines.length - 2]!;
    writeFileSync(log, `${lines.slice(0, -2).join('\n')}\n`);
    appendFileSync(log, last.slice(0, last.length / 2));
    const emitted = await editAndIndex();
    assert.ok(emitted >= 1 && emitted < FILES, `updated from the earlier save (${emitted} emitted)`);
  });

  test('the rows file: one of another id (a save cut short between the two files) is not used; one grown past twice what the state names is written anew', async () => {
    assert.equal(await editAndIndex(), 1);
    const id = idOf();
    assert.ok(existsSync(rowsOf(id)), 'the rows file the state names');
    writeFileSync(rowsOf(id), readFileSync(rowsOf(id), 'latin1').replace(id, randomUUID()), 'latin1');
    assert.equal(await editAndIndex(), FILES, 'not restored: every file emitted');
    assert.equal(await editAndIndex(), 1);
    const before = idOf();
    const size = statSync(rowsOf(before)).size;
    assert.equal(await editAndIndex(), 1);
    assert.equal(idOf(), before);
    assert.ok(statSync(rowsOf(before)).size > size, 'a save appends the rows of the files it emitted');
    // As many bytes again that no emission names (the rows of files emitted again since): the next save rewrites it.
    appendFileSync(rowsOf(before), Buffer.alloc(statSync(rowsOf(before)).size, 32));
    const grown = statSync(rowsOf(before)).size;
    assert.equal(await editAndIndex(), 1, 'restored from it first');
    const after = idOf();
    assert.notEqual(after, before, 'written anew, under a new id');
    assert.ok(statSync(rowsOf(after)).size < grown / 2 + 4096, `and only what the state names (${statSync(rowsOf(after)).size} of ${grown} bytes)`);
    assert.deepEqual(rowsFiles().sort(), [basename(rowsOf(after)), basename(rowsOf(before))].sort(), 'the one loaded stays while its build may read it');
    assert.equal(await editAndIndex(), 1, 'and restored from next');
    assert.deepEqual(rowsFiles(), [basename(rowsOf(after))], 'then it goes');
  });

  test('rows that are not where the state says (the file changed by another process): the build assembles every file, says why, and saves anew', async () => {
    assert.equal(await editAndIndex(), 1);
    const id = idOf();
    const text = readFileSync(rowsOf(id), 'latin1');
    const header = text.slice(0, text.indexOf('\n') + 1);
    writeFileSync(rowsOf(id), header + ' '.repeat(text.length - header.length), 'latin1');
    assert.equal(await editAndIndex(), FILES, 'every file emitted, and the index equals a fresh one');
    assert.ok(lastWarnings.some((w) => w.includes('could not be read back') && w.includes('it is dropped')), lastWarnings.join('\n'));
    assert.equal(await editAndIndex(), 1, 'restored from the state saved anew');
  });

  test('a state written by another version of Sextant is not used', async () => {
    const text = readFileSync(state(), 'utf8');
    writeFileSync(state(), text.replace(/^\{"version":"assembly-1:[0-9a-f]+"/, '{"version":"assembly-1:0000"'));
    rmSync(`${state()}.log`, { force: true });
    assert.equal(await editAndIndex(), FILES);
  });
});

describe('estate-wide passes on a restored re-index', () => {
  let work: string;
  let root: string;
  let builds = 0;
  const cache = () => join(work, 'cache');
  const index = (dir: string, cacheDir?: string): Promise<BuildReport> => indexTree(root, dir, { ...(cacheDir ? { cacheDir } : {}), env: process.env });
  const write = (rel: string, text: string) => writeFileSync(join(root, rel), text);
  const edit = (rel: string, from: string, to: string) => {
    const text = readFileSync(join(root, rel), 'utf8');
    assert.ok(text.includes(from), `${rel} holds ${from}`);
    write(rel, text.replace(from, to));
  };

  /** A one-shot build of the edited tree, checked against a fresh index of it; its report's details. */
  async function update(): Promise<Record<string, unknown>> {
    const report = await index(join(work, 'incremental'), cache());
    const fresh = join(work, `fresh-${++builds}`);
    await index(fresh);
    const [a, b] = [await dumpIndex(await testStoreLocation(join(work, 'incremental'))), await dumpIndex(await testStoreLocation(fresh))];
    assert.deepEqual(a.nodes, b.nodes, 'nodes and their order equal a fresh index');
    assert.deepEqual(a.edges, b.edges, 'edges equal a fresh index');
    rmSync(fresh, { recursive: true, force: true });
    return report.sources[0]!.details as Record<string, unknown>;
  }

  const POM = 'shop/pom.xml';
  const CONFIGURER = 'shop/src/main/java/com/acme/shop/RestConfig.java';
  const CLIENTS = 'shop/src/main/java/com/acme/shop/ClientsConfig.java';
  before(async () => {
    work = mkdtempSync(join(tmpdir(), 'sextant-passes-'));
    root = join(work, 'estate');
    mkdirSync(join(root, 'shop/src/main/java/com/acme/shop'), { recursive: true });
    mkdirSync(join(root, 'shop/src/main/resources'), { recursive: true });
    write(POM, `<project><modelVersion>4.0.0</modelVersion><groupId>com.acme</groupId><artifactId>shop</artifactId><version>1.0</version>
  <parent><groupId>org.springframework.boot</groupId><artifactId>spring-boot-starter-parent</artifactId><version>3.2.0</version></parent>
  <dependencies>
    <dependency><groupId>org.springframework.boot</groupId><artifactId>spring-boot-starter-data-rest</artifactId></dependency>
  </dependencies>
</project>
`);
    write('shop/src/main/resources/application.yml', 'spring:\n  application:\n    name: shop\n');
    write('shop/src/main/java/com/acme/shop/ShopApplication.java', 'package com.acme.shop;\n\n@SpringBootApplication\npublic class ShopApplication {\n}\n');
    write('shop/src/main/java/com/acme/shop/Order.java', 'package com.acme.shop;\n\n@Entity\npublic class Order {\n  @Id\n  private Long id;\n}\n');
    write('shop/src/main/java/com/acme/shop/OrderRepository.java', 'package com.acme.shop;\n\npublic interface OrderRepository extends CrudRepository<Order, Long> {\n  List<Order> findByStatus(String status);\n}\n');
    write('shop/src/main/java/com/acme/shop/PartnerApi.java', 'package com.acme.shop;\n\nimport org.springframework.web.service.annotation.GetExchange;\nimport org.springframework.web.service.annotation.HttpExchange;\n\n@HttpExchange("/stock")\npublic interface PartnerApi {\n  @GetExchange("/{sku}")\n  Object find(@PathVariable String sku);\n}\n');
    write(CLIENTS, 'package com.acme.shop;\n\nimport org.springframework.beans.factory.annotation.Value;\nimport org.springframework.web.client.RestClient;\nimport org.springframework.web.client.support.RestClientAdapter;\nimport org.springframework.web.service.invoker.HttpServiceProxyFactory;\n\n@Configuration\npublic class ClientsConfig {\n  @Value("${partner.url}")\n  private String partnerUrl;\n\n  @Bean\n  public PartnerApi partnerApi(RestClient.Builder builder) {\n    RestClient client = builder.baseUrl(partnerUrl).build();\n    return HttpServiceProxyFactory.builderFor(RestClientAdapter.create(client)).build().createClient(PartnerApi.class);\n  }\n}\n');
    write(CONFIGURER, 'package com.acme.shop;\n\n@Configuration\npublic class RestConfig implements RepositoryRestConfigurer {\n  @Override\n  public void configureRepositoryRestConfiguration(RepositoryRestConfiguration config, CorsRegistry cors) {\n    config.setBasePath("/api");\n  }\n}\n');
    ageTree(root, Date.now() / 1000 - 3600);
    await index(join(work, 'incremental'), cache());
    // The first re-index assembles every file and saves the state the next ones restore.
    edit(CONFIGURER, '"/api"', '"/api/v1"');
    await update();
  });
  after(() => rmSync(work, { recursive: true, force: true }));

  test('a source edit takes the build graph from the last assembly; a build file edit reads it again', async () => {
    edit(CONFIGURER, '  @Override', '  @Override // edited');
    const edited = await update();
    assert.equal(edited.build_graph, 'recalled');
    assert.equal(edited.files_rewritten, 1, 'only the edited file: the estate-wide passes left every other file as it was');
    edit(POM, '</dependencies>', '  <dependency><groupId>org.springframework.boot</groupId><artifactId>spring-boot-starter-web</artifactId></dependency>\n  </dependencies>');
    const details = await update();
    assert.equal(details.build_graph, 'read');
    assert.equal(details.emitted, 0, 'no source file changed');
    edit(CONFIGURER, '// edited', '// edited again');
    assert.equal((await update()).build_graph, 'recalled');
  });

  test('routes a framework serves follow a body edit in another file (Spring Data REST base path)', async () => {
    edit(CONFIGURER, '"/api/v1"', '"/api/v2"');
    const details = await update();
    assert.equal(details.emitted, 1, 'only the configurer is emitted again');
    const { nodes } = await dumpIndex(await testStoreLocation(join(work, 'incremental')));
    assert.ok(nodes.some((n) => n.includes('/api/v2/orders/search/findByStatus')), 'the repository query route is under the new base path');
    assert.ok(!nodes.some((n) => n.includes('/api/v1/')), 'and none under the old one');
  });

  test('a client whose file is not emitted again follows the base URL another file builds it on', async () => {
    // A key no file sets: the client stays unresolved and links nowhere, before and after; only its reason changes.
    edit(CLIENTS, '${partner.url}', '${partner.endpoint}');
    const details = await update();
    assert.equal(details.emitted, 1, 'only the configuration class is emitted again');
    assert.equal(details.files_rewritten, 2, 'it, and the interface whose client changed');
    const { nodes } = await dumpIndex(await testStoreLocation(join(work, 'incremental')));
    const client = nodes.filter((n) => n.includes('GET /stock/{sku}') && n.includes('http_exchange'));
    assert.equal(client.length, 1, nodes.filter((n) => n.includes('/stock')).join('\n'));
    assert.ok(client[0]!.includes('partner.endpoint') && !client[0]!.includes('partner.url'), client[0]);
  });
});
