/**
 * HTTP routes from Spring and JAX-RS mappings, with paths built from what the source states: literals, and
 * `static final String` constants in other files, in interfaces, behind static imports and concatenated.
 * Real tree-sitter parsing of Java files this test writes to a temporary directory.
 */
import assert from 'node:assert/strict';
import { patternAccepts } from '../src/search/patterns.js';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { sextantOntology } from '../src/graph/ontology/index.js';
import type { NodeRecord } from '../src/graph/types.js';
import { buildCodeSource } from '../src/sources/code/index.js';
import { pathPattern } from '../src/graph/ontology/code.js';
import { joinPath, pathRegex } from '../src/sources/code/links/routes.js';
import { estateSource } from './helpers/estate.js';

const FILES: Record<string, string> = {
  'src/main/java/com/x/api/ApiPaths.java': `package com.x.api;

public final class ApiPaths {
    public static final String BASE = "/api/v1";
    public static final String ORDERS = BASE + "/orders";
    public static final String BY_ID = "/{id}";
    public static final String LOOP = LOOP + "/x";
    private ApiPaths() {}
}
`,
  'src/main/java/com/x/api/Versioned.java': `package com.x.api;

public interface Versioned {
    String V2 = "/v2";
}
`,
  'src/main/java/com/x/web/OrderResource.java': `package com.x.web;

import com.x.api.ApiPaths;
import com.x.api.Versioned;
import static com.x.api.ApiPaths.BY_ID;
import org.springframework.web.bind.annotation.*;

@RestController
@RequestMapping(ApiPaths.ORDERS)
public class OrderResource implements Versioned {
    private static final String LOCAL = "/local";

    @GetMapping(BY_ID)
    public String get(String id) { return id; }

    @PostMapping({"", LOCAL})
    public void create() {}

    @GetMapping(V2 + BY_ID + "/history")
    public void history() {}

    @RequestMapping(path = "/search", method = {RequestMethod.GET, RequestMethod.POST})
    public void search() {}

    @DeleteMapping(Missing.NOPE)
    public void gone() {}

    @PutMapping(ApiPaths.LOOP)
    public void loop() {}

    public void notAHandler() {}
}
`,
  'src/main/java/com/x/web/LegacyResource.java': `package com.x.web;

import javax.ws.rs.*;

@Path("/legacy")
public class LegacyResource {
    @GET
    @Path("/ping")
    public String ping() { return "pong"; }

    @POST
    public void post() {}
}
`,
  'src/main/resources/application.yml': `spring:
  application:
    name: things-service
api:
  prefix: /svc
  version: v3
`,
  'src/main/java/com/x/web/ThingController.java': `package com.x.web;

import org.springframework.web.bind.annotation.*;

@RestController
@RequestMapping("\${api.prefix}/things")
public class ThingController {
    static final String VERSIONED = "/\${api.version}";

    @GetMapping("\${paging.path:/page}")
    public void page() {}

    @GetMapping(VERSIONED)
    public void versioned() {}

    @GetMapping("\${no.such.key}")
    public void unknown() {}
}
`,
  'src/main/java/com/x/client/BillingClient.java': `package com.x.client;

import org.springframework.cloud.openfeign.FeignClient;
import org.springframework.web.bind.annotation.GetMapping;

@FeignClient(name = "billing")
public interface BillingClient {
    @GetMapping("/invoices")
    String list();
}
`,
};

let root: string;
let routes: NodeRecord[];
let clients: NodeRecord[];
let undeclared: NodeRecord[];
let exposes: Map<string, string>;

before(async () => {
  root = mkdtempSync(join(tmpdir(), 'sextant-routes-'));
  for (const [rel, text] of Object.entries(FILES)) {
    mkdirSync(dirname(join(root, rel)), { recursive: true });
    writeFileSync(join(root, rel), text);
  }
  const built = await buildCodeSource(estateSource(root), { ontology: sextantOntology(), baseDir: root, env: {} });
  routes = built.nodes.filter((n) => n.kind === 'route' && n.props.declared !== false);
  clients = built.nodes.filter((n) => n.kind === 'client');
  undeclared = built.nodes.filter((n) => n.kind === 'route' && n.props.declared === false);
  const names = new Map(built.nodes.map((n) => [n.id, n.qualified_name]));
  exposes = new Map(built.edges.filter((e) => e.type === 'EXPOSES').map((e) => [e.to, names.get(e.from)!]));
});
after(() => rmSync(root, { recursive: true, force: true }));

describe('routes', () => {
  test('paths are built from literals, constants and placeholders; what the source does not define stays as written, unresolved', () => {
    const rows = routes.map((r) => `${r.name} ${r.props.framework} ${r.props.resolved ? 'resolved' : 'unresolved'} <- ${exposes.get(r.id)}`).sort();
    assert.deepEqual(rows, [
      'DELETE /api/v1/orders/Missing.NOPE spring_mvc unresolved <- com.x.web.OrderResource#gone()',
      'GET /svc/things/page spring_mvc resolved <- com.x.web.ThingController#page()',
      'GET /svc/things/v3 spring_mvc resolved <- com.x.web.ThingController#versioned()',
      'GET /svc/things/${no.such.key} spring_mvc unresolved <- com.x.web.ThingController#unknown()',
      'GET /api/v1/orders/search spring_mvc resolved <- com.x.web.OrderResource#search()',
      'GET /api/v1/orders/v2/{id}/history spring_mvc resolved <- com.x.web.OrderResource#history()',
      'GET /api/v1/orders/{id} spring_mvc resolved <- com.x.web.OrderResource#get(String)',
      'GET /legacy/ping jax_rs resolved <- com.x.web.LegacyResource#ping()',
      'POST /api/v1/orders spring_mvc resolved <- com.x.web.OrderResource#create()',
      'POST /api/v1/orders/local spring_mvc resolved <- com.x.web.OrderResource#create()',
      'POST /api/v1/orders/search spring_mvc resolved <- com.x.web.OrderResource#search()',
      'POST /legacy jax_rs resolved <- com.x.web.LegacyResource#post()',
      'PUT /api/v1/orders/ApiPaths.LOOP spring_mvc unresolved <- com.x.web.OrderResource#loop()',
    ].sort());
  });

  test('a route whose path comes from constants or placeholders records how it is written', () => {
    const written = (name: string) => routes.find((r) => r.name === name)?.props.path_written;
    assert.equal(written('GET /api/v1/orders/{id}'), 'ApiPaths.ORDERS + BY_ID');
    assert.equal(written('GET /svc/things/v3'), '"${api.prefix}/things" + VERSIONED');
    assert.equal(written('GET /legacy/ping'), undefined, 'plain literals need no note');
    assert.equal(routes.find((r) => r.name === 'GET /svc/things/page')?.qualified_name, 'things-service GET /svc/things/page');
  });

  test('a Feign client interface is a client, never a route; its call to a service the estate does not run is external, and stays visible', () => {
    assert.ok(!routes.some((r) => String(r.props.path).includes('invoices')));
    assert.deepEqual(
      clients.map((c) => `${c.qualified_name} ${c.props.match} ${c.props.caller}`),
      ['things-service -> billing GET /invoices external com.x.client.BillingClient#list()'],
    );
    assert.deepEqual(undeclared.map((r) => r.qualified_name), ['billing GET /invoices']);
  });

  test('path joining, patterns and regexes', () => {
    assert.equal(joinPath('/a/', '/b/'), '/a/b');
    assert.equal(joinPath('', ''), '/');
    assert.equal(joinPath('a', 'b'), '/a/b');
    assert.equal(pathPattern('/o/{id}/x/{y:[0-9]+}'), '/o/{}/x/{}');
    const re = new RegExp(pathRegex('/orders/{id}.json'));
    assert.ok(re.test('/orders/42.json'));
    assert.ok(!re.test('/orders/42xjson'));
    assert.ok(!re.test('/orders/4/2.json'));
  });

  test("Spring's wildcards in a route path mean what Spring makes of them (petclinic's owners/*/pets/{petId}, actuator's {*path})", () => {
    const accepts = (path: string, request: string) => patternAccepts(pathRegex(path), request);
    assert.ok(accepts('/owners/*/pets/{petId}', '/owners/7/pets/3'), '* is any text within one segment');
    assert.ok(!accepts('/owners/*/pets/{petId}', '/owners/7/x/pets/3'), '* stays within its segment');
    assert.ok(!accepts('/owners/*/pets/{petId}', '/owners/*/pets'), 'the variable still takes a segment');
    assert.ok(accepts('/files/**', '/files') && accepts('/files/**', '/files/a/b'), '/** is any number of segments, none included');
    assert.ok(accepts('/a/**/b', '/a/x/y/b') && accepts('/a/**/b', '/a/b'));
    assert.ok(accepts('/actuator/health/{*path}', '/actuator/health') && accepts('/actuator/health/{*path}', '/actuator/health/db/ping'), '{*path} captures the rest of the path');
    assert.ok(!accepts('/a.b', '/axb'), 'other characters are literal');
  });
});
