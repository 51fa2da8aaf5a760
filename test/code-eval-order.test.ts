/**
 * The evaluator keeps a field's or a parameter's values only when nothing stopped their evaluation short (a value
 * defined through itself, found because an evaluation further up was in it): what a call site gives must not depend
 * on which call sites were read before it. Two constants defined through each other, each sent to by its own call
 * site: the second call site gives the same client whether or not the first one's file is in the estate.
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { test } from 'node:test';
import { buildEstate, writeEstate } from './helpers/estate.js';

const POM = '<project><modelVersion>4.0.0</modelVersion><groupId>x</groupId><artifactId>shop</artifactId><version>1</version><dependencies><dependency><groupId>org.springframework.boot</groupId><artifactId>spring-boot-starter-web</artifactId></dependency></dependencies></project>\n';
const caller = (name: string, constant: string) =>
  `package s;\nimport org.springframework.web.client.RestTemplate;\npublic class ${name} {\n  private final RestTemplate rest = new RestTemplate();\n  public String call() {\n    return rest.getForObject(Urls.${constant}, String.class);\n  }\n}\n`;

const FILES: Record<string, string> = {
  'shop/pom.xml': POM,
  'shop/src/main/resources/application.yml': 'spring.application.name: shop\n',
  'shop/src/main/java/s/App.java': 'package s;\n@org.springframework.boot.autoconfigure.SpringBootApplication\npublic class App {}\n',
  'shop/src/main/java/s/Urls.java': 'package s;\npublic class Urls {\n  public static final String BASE = "/v1" + Urls.PREFIX;\n  public static final String PREFIX = "http://orders" + Urls.BASE;\n}\n',
  // Read first (path order): evaluating BASE evaluates PREFIX while BASE is in evaluation, which stops there.
  'shop/src/main/java/s/A.java': caller('A', 'BASE'),
  'shop/src/main/java/s/B.java': caller('B', 'PREFIX'),
};

async function clientOf(files: Record<string, string>, file: string): Promise<Record<string, unknown>> {
  const dir = writeEstate(files);
  try {
    const { nodes } = await buildEstate(dir);
    const clients = nodes.filter((n) => n.kind === 'client' && n.file === file);
    assert.equal(clients.length, 1, JSON.stringify(clients));
    const { id: _id, ...client } = clients[0]!;
    return client;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('a call site gives the same values whether or not another one, read first, went through the same cycle', async () => {
  const both = await clientOf(FILES, 'shop/src/main/java/s/B.java');
  const { ['shop/src/main/java/s/A.java']: _a, ...alone } = FILES;
  const withoutA = await clientOf(alone, 'shop/src/main/java/s/B.java');
  assert.deepEqual(both, withoutA);
  // PREFIX through BASE, which stops at PREFIX: the path keeps BASE's literal start.
  assert.match(String((both.props as Record<string, unknown>).path), /^\/v1/, JSON.stringify(both));
});
