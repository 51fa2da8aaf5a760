/**
 * Patterns from the indexed source are matched in linear time: a Kafka `topicPattern` like `(a+)+$`, a route with
 * many adjacent path variables, a path variable's own regex (`{id:[0-9]+}`, JAX-RS `{id: \d+}`). Each stalled
 * a backtracking engine for minutes; each runs here through the real pipeline (tree-sitter parsing, the code
 * source, the SQLite store, the CLI) in a child process, so a stall fails on the child's time limit instead of
 * blocking the test runner. A pattern RE2/J cannot evaluate (backreference, lookaround) is skipped with a warning
 * that names its file.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { compilePattern, patternAccepts } from '../src/search/patterns.js';
import { pathRegex } from '../src/sources/code/links/routes.js';
import { pathPattern } from '../src/graph/ontology/code.js';
import { REPO_ROOT, childEnv, jsonOf, killAll, tempDir, type CliResult } from './helpers/e2e.js';

/** Each CLI run gets this long; a backtracking match on these inputs takes minutes. */
const CHILD_MS = 20_000;
const TEST_MS = 60_000;

/** 40 characters no pattern below accepts, built so a backtracking engine tries every split. */
const NEAR_MISS = `${'a'.repeat(39)}!`;

const FILES: Record<string, string> = {
  'src/main/java/com/x/Listeners.java': `package com.x;

import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.core.KafkaTemplate;

public class Listeners {
    private KafkaTemplate<String, String> kafka;

    @KafkaListener(topicPattern = "(a+)+$")
    public void onRepeated(String message) {}

    public void sendNearMiss() { kafka.send("${NEAR_MISS}", "x"); }

    public void sendMatching() { kafka.send("aaaa", "x"); }
}
`,
  'src/main/java/com/x/Unsupported.java': `package com.x;

import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

@RestController
public class Unsupported {
    private KafkaTemplate<String, String> kafka;

    @KafkaListener(topicPattern = "(b)\\\\1")
    public void onBackreference(String message) {}

    @KafkaListener(topicPattern = "(?=bb)b+")
    public void onLookahead(String message) {}

    public void sendB() { kafka.send("bb", "x"); }

    @GetMapping("/codes/{code:(c)\\\\1}")
    public String code() { return ""; }
}
`,
  'src/main/java/com/x/Wide.java': `package com.x;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

@RestController
public class Wide {
    @GetMapping("/x/{a}{b}{c}{d}{e}{f}{g}{h}{i}{j}{k}{l}")
    public String wide() { return ""; }

    @GetMapping("/orders/{id:[0-9]+}")
    public String order() { return ""; }

    @GetMapping("/greedy/{name:(a+)+b}")
    public String greedy() { return ""; }
}
`,
  'src/main/java/com/x/Items.java': `package com.x;

import javax.ws.rs.GET;
import javax.ws.rs.Path;

@Path("/items")
public class Items {
    @GET
    @Path("{id: \\\\d+}")
    public String item() { return ""; }
}
`,
};

let tree: string;
let store: string;
let indexed: CliResult;

/** `sextant …` run from the TypeScript sources (no build needed), killed after CHILD_MS. */
function sextant(args: string[]): Promise<CliResult> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(tree, '..', 'cli.mjs'), ...args], { cwd: REPO_ROOT, env: childEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      fail(new Error(`sextant ${args.join(' ')} did not finish in ${CHILD_MS} ms`));
    }, CHILD_MS);
    child.once('error', fail);
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      done({ code, signal, stdout, stderr });
    });
  });
}

async function call(tool: string, args: Record<string, unknown>): Promise<Record<string, any>> {
  const r = await sextant(['call', tool, JSON.stringify(args), '--store', store]);
  assert.equal(r.code, 0, r.stderr + r.stdout);
  return jsonOf(r);
}

/** How the producer sending to this Kafka topic was matched to listeners. */
async function producerMatch(topic: string): Promise<string | undefined> {
  const producers = await call('find', { kind: 'producer', limit: 50 });
  return producers.results.find((n: any) => n.name === `kafka ${topic}`)?.attributes.match;
}

async function resolved(identifier: string): Promise<string> {
  const r = await call('resolve', { identifier, kind: 'route' });
  return r.status === 'one' ? r.node.name : r.status;
}

before(async () => {
  const root = await tempDir('sextant-regex-');
  tree = join(root, 'tree');
  store = join(root, 'store');
  for (const [path, text] of Object.entries(FILES)) {
    mkdirSync(dirname(join(tree, path)), { recursive: true });
    writeFileSync(join(tree, path), text);
  }
  writeFileSync(join(root, 'cli.mjs'), `import { main } from ${JSON.stringify(pathToFileURL(join(REPO_ROOT, 'src/surfaces/cli/main.ts')).href)};\nmain(process.argv).then((code) => { process.exitCode = code; });\n`);
});
after(killAll);

describe('patterns from indexed source, through the real pipeline', () => {
  test('a topic pattern that backtracks exponentially indexes promptly and still matches what it accepts', { timeout: TEST_MS }, async () => {
    indexed = await sextant(['index', tree, '--store', store]);
    assert.equal(indexed.code, 0, indexed.stderr + indexed.stdout);
    assert.equal(await producerMatch('aaaa'), 'intra_service');
    assert.equal(await producerMatch(NEAR_MISS), 'unmatched');
  });

  test('a pattern RE2/J cannot evaluate is skipped with a warning naming its file, and indexing goes on', { timeout: TEST_MS }, async () => {
    assert.ok(indexed, 'the index was built by the previous test');
    const warnings = indexed.stderr.split('\n').filter((line) => line.includes('Unsupported.java'));
    // Each pattern is quoted as the Java source writes it.
    assert.ok(warnings.some((w) => w.includes('topic pattern "(b)\\\\1"')), indexed.stderr);
    assert.ok(warnings.some((w) => w.includes('topic pattern "(?=bb)b+"')), indexed.stderr);
    assert.ok(warnings.some((w) => w.includes('path variable regex "(c)\\\\1"')), indexed.stderr);
    assert.equal(await producerMatch('bb'), 'unmatched');
    // The route whose variable regex is skipped still matches any text in that segment.
    assert.equal(await resolved('GET /codes/cc'), 'GET /codes/{code:(c)\\1}');
  });

  test('resolving a concrete path against a route of twelve adjacent variables answers promptly', { timeout: TEST_MS }, async () => {
    assert.equal(await resolved(`GET /x/${'a'.repeat(40)}/`), 'none');
    assert.equal(await resolved('GET /x/abcdefghijklmnop'), 'GET /x/{a}{b}{c}{d}{e}{f}{g}{h}{i}{j}{k}{l}');
  });

  test("a path variable's own regex decides which concrete paths a route accepts", { timeout: TEST_MS }, async () => {
    assert.equal(await resolved('GET /orders/42'), 'GET /orders/{id:[0-9]+}');
    assert.equal(await resolved('GET /orders/abc'), 'none');
    assert.equal(await resolved('GET /items/7'), 'GET /items/{id: \\d+}');
    assert.equal(await resolved('GET /items/seven'), 'none');
    assert.equal(await resolved('GET /greedy/aaab'), 'GET /greedy/{name:(a+)+b}');
    assert.equal(await resolved(`GET /greedy/${NEAR_MISS}`), 'none');
  });
});

describe('the linear-time matcher', () => {
  test('(a+)+$ accepts runs of a and rejects a near miss without backtracking', { timeout: 10_000 }, () => {
    assert.equal(patternAccepts('(a+)+$', 'aaaa'), true);
    assert.equal(patternAccepts('(a+)+$', `${'a'.repeat(100_000)}!`), false);
  });

  test('matches the whole text, as Java does for a topic pattern', () => {
    assert.equal(patternAccepts('orders\\..*', 'orders.created'), true);
    assert.equal(patternAccepts('orders', 'orders.created'), false);
  });

  test('a pattern outside RE2/J says why and accepts nothing', () => {
    for (const pattern of ['(a)\\1', '(?=a)a', '(?<!a)b', 'a++', '[']) {
      const compiled = compilePattern(pattern);
      assert.ok('error' in compiled, pattern);
      assert.equal(patternAccepts(pattern, 'aa'), false);
    }
  });

  test('compiles each distinct pattern once', () => {
    assert.equal(compilePattern('x[0-9]+'), compilePattern('x[0-9]+'));
  });

  test('adjacent path variables collapse into one bounded class', () => {
    assert.equal(pathRegex('/x/{a}{b}{c}'), '^/x/[^/]{3,}$');
    assert.equal(pathRegex('/x/{a}.{b}'), '^/x/[^/]+\\.[^/]+$');
    assert.equal(pathRegex('/orders/{id:\\d{3}}/items'), '^/orders/(?:\\d{3})/items$');
    // RE2 refuses repeat counts over 1000; a longer run still compiles.
    assert.ok('accepts' in compilePattern(pathRegex(`/x/${'{v}'.repeat(1500)}`)));
  });

  test('path patterns: braces nest, an unclosed one stays as written, and a run of them is one pass', { timeout: 10_000 }, () => {
    assert.equal(pathPattern('/orders/{id:[0-9]{3}}/items/{item}'), '/orders/{}/items/{}');
    assert.equal(pathPattern('/x/{a}{b}'), '/x/{}{}');
    assert.equal(pathPattern('/a/{x'), '/a/{x');
    // Was a regex scan that restarted at every `{`: quadratic, minutes for this input.
    const unclosed = `/x/${'{'.repeat(1_000_000)}`;
    assert.equal(pathPattern(unclosed), unclosed);
    assert.equal(pathRegex(unclosed), `^/x/${'\\{'.repeat(1_000_000)}$`);
  });
});
