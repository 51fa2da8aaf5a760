/**
 * Deployment files (src/sources/code/deployment.ts) and what the layout takes from them: docker compose services
 * and Kubernetes workloads (environment as configuration, the names services are reached by), nginx proxy rules.
 * One rule per fixture under test/fixtures/deployment; then the real estates in ../shared/corpora, read in place,
 * with the right answers taken from their compose files.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, test } from 'node:test';
import { readConnector,
  type DeploymentUnit,
  deploymentFileKind,
  forwardPath,
  interpolateCompose,
  locationAccepts,
  type ProxyRule,
  readCompose,
  readDeployment,
  readKubernetes,
  readNginx,
  requestPathFor,
  selectLocation,
} from '../src/sources/code/config/deployment.js';
import { discover } from '../src/sources/code/discover.js';
import { ConfigView } from '../src/sources/code/eval/config.js';
import type { Value } from '../src/sources/code/eval/value.js';
import { gatewayRoutesOf } from '../src/sources/code/links/gateways.js';
import { detectLayout, type Layout, relaxedEnvKey, type ServiceInfo } from '../src/sources/code/config/layout.js';
import { sharedDir } from './helpers/index.js';

const FIXTURES = fileURLToPath(new URL('./fixtures/deployment', import.meta.url));
const CORPORA = join(sharedDir(), 'corpora');
const PETCLINIC = join(CORPORA, 'spring-petclinic-microservices');
const PIGGY = join(CORPORA, 'piggymetrics');

/** A fixture file's text. */
function fixture(path: string): string {
  return readFileSync(join(FIXTURES, path), 'utf8');
}

function reader(root: string): (rel: string) => string | undefined {
  return (rel) => (existsSync(join(root, rel)) ? readFileSync(join(root, rel), 'utf8') : undefined);
}

/** Every deployment file of a fixture directory, read as one estate. */
function deploymentOf(dir: string, files: string[]) {
  return readDeployment(
    files.map((f) => `${dir}/${f}`),
    reader(FIXTURES),
  );
}

async function layoutOf(root: string): Promise<Layout> {
  return detectLayout(await discover(root), reader(root));
}

function service(layout: Layout, name: string): ServiceInfo {
  const found = layout.services.find((s) => s.name === name);
  assert.ok(found, `service ${name} in ${layout.services.map((s) => s.name).join(', ')}`);
  return found;
}

/** A value as text, holes as `{?origin}`. */
function show(values: Value[] | undefined): string[] | undefined {
  return values?.map((v) => v.pieces.map((p) => (p.hole ? `{?${p.hole.origin}}` : p.s)).join(''));
}

function env(unit: { env: DeploymentUnit['env'] }): Record<string, string> {
  return Object.fromEntries(unit.env.map((e) => [e.name, e.value !== undefined ? `${e.value} @${e.file}:${e.line}` : `? ${e.unknown} @${e.file}:${e.line}`]));
}

function rule(r: ProxyRule): string {
  return `${r.location.kind} ${r.location.path} -> ${r.targetHosts.join('|')}${r.targetPath !== undefined ? ` ${r.targetPath}` : ''} (${r.pathMode})${r.upstream ? ` via ${r.upstream}` : ''}${r.unresolved ? ` !${r.unresolved}` : ''} @${r.file}:${r.line}`;
}

describe('file names', () => {
  test('compose files, YAML that may be Kubernetes, and nginx configuration are told apart by name', () => {
    const cases: [string, string | undefined][] = [
      ['docker-compose.yml', 'compose'],
      ['deploy/docker-compose.prod.yaml', 'compose'],
      ['compose.yaml', 'compose'],
      ['compose.override.yml', 'compose'],
      ['docker-compose-dev.yml', 'compose'],
      ['k8s/orders.yaml', 'kubernetes'],
      ['nginx.conf', 'nginx'],
      ['proxy/conf.d/default.conf', 'nginx'],
      ['templates/default.conf.template', 'nginx'],
      ['nginx/sites-enabled/default', 'nginx'],
      ['default', undefined],
      ['README.md', undefined],
      ['Dockerfile', undefined],
    ];
    for (const [path, kind] of cases) assert.equal(deploymentFileKind(path), kind, path);
  });
});

describe('compose', () => {
  test('map-form environment: values as written (numbers too), with the line of each entry; identity fields', () => {
    const { services, warnings } = readCompose('docker-compose.yml', fixture('compose-map-env/docker-compose.yml'));
    assert.deepEqual(warnings, []);
    assert.equal(services.length, 1);
    const [orders] = services;
    assert.equal(orders!.name, 'orders');
    assert.equal(orders!.line, 2);
    assert.equal(orders!.containerName, 'orders-main');
    assert.equal(orders!.hostname, 'orders-host');
    assert.equal(orders!.image, 'acme/orders:1.4');
    assert.equal(orders!.build, undefined);
    assert.deepEqual(env(orders!), {
      SPRING_PROFILES_ACTIVE: 'docker @docker-compose.yml:7',
      SERVER_PORT: '8080 @docker-compose.yml:8',
      BILLING_URL: 'http://billing:8081/api @docker-compose.yml:9',
      EMPTY: ' @docker-compose.yml:10',
    });
  });

  test('list-form environment: KEY=value split at the first =, build context relative to the file', () => {
    const { services, warnings } = readCompose('deploy/docker-compose.yml', fixture('compose-list-env/docker-compose.yml'));
    assert.deepEqual(warnings, []);
    const [billing] = services;
    assert.deepEqual(billing!.build, { context: 'deploy/billing' });
    assert.deepEqual(env(billing!), {
      SPRING_APPLICATION_NAME: 'billing-service @deploy/docker-compose.yml:5',
      JAVA_OPTS: '-Xmx256m -Dfoo=bar=baz @deploy/docker-compose.yml:6',
      FEATURE_FLAG: 'true @deploy/docker-compose.yml:7',
    });
  });

  test('$VAR and ${VAR} without a default stay unknown; defaults, $$ and pass-through as compose does', () => {
    const { services, warnings } = readCompose('docker-compose.yml', fixture('compose-unset/docker-compose.yml'));
    assert.deepEqual(warnings, []);
    const from = (v: string) => `comes from ${v} of the environment docker compose runs in`;
    assert.deepEqual(env(services[0]!), {
      PASSWORD: `? ${from('$DB_PASSWORD')} @docker-compose.yml:5`,
      TOKEN: `? ${from('$API_TOKEN')} @docker-compose.yml:6`,
      REGION: 'eu-west-1 @docker-compose.yml:7',
      ZONE: 'a @docker-compose.yml:8',
      PRICE: '$5 @docker-compose.yml:9',
      URL: `? ${from('$HOST')} @docker-compose.yml:10`,
      PASSED_THROUGH: `? ${from('$PASSED_THROUGH')} @docker-compose.yml:11`,
    });
    assert.deepEqual(env(services[1]!), {
      SECRET: `? ${from('$SECRET')} @docker-compose.yml:16`,
      HOME_DIR: `? ${from('$HOME_DIR')} @docker-compose.yml:17`,
    });
    assert.deepEqual(
      services[0]!.env.map((e) => e.written),
      ['$DB_PASSWORD', '${API_TOKEN}', '${REGION:-eu-west-1}', '${ZONE-a}', '$$5', 'http://${HOST}:8080', ''],
    );
  });

  test('interpolation: the variables the estate states are used, the others named', () => {
    assert.deepEqual(interpolateCompose('${A}/${B:-x}/$C', { A: 'a' }), { unknown: 'comes from $C of the environment docker compose runs in', variables: ['C'] });
    assert.deepEqual(interpolateCompose('${A}/${B:-x}/${B-y}', { A: 'a', B: '' }), { value: 'a/x/' });
    assert.deepEqual(interpolateCompose('${A:+on}${Z:-${A}}', { A: '1' }), { value: 'on1' });
    assert.deepEqual(interpolateCompose('${unclosed', {}), { value: '${unclosed' });
  });

  test('the .env beside the file feeds interpolation; env_file entries come before environment, which wins', () => {
    const d = deploymentOf('compose-dotenv', ['docker-compose.yml']);
    assert.deepEqual(d.warnings, []);
    const [orders] = d.units;
    assert.deepEqual(orders!.images, ['registry.acme.io/acme/orders:1.7']);
    assert.deepEqual(env(orders!), {
      MODE: 'from-environment @compose-dotenv/docker-compose.yml:7',
      POOL_SIZE: '10 @compose-dotenv/orders.env:2',
      DATABASE_URL: 'jdbc:postgresql://db.internal:5432/orders @compose-dotenv/docker-compose.yml:6',
    });
  });

  test('files of one directory are one project: the override file wins, another overlay that differs makes the value unknown', () => {
    const d = deploymentOf('compose-override', ['docker-compose.prod.yml', 'docker-compose.yml', 'docker-compose.override.yml']);
    assert.deepEqual(d.warnings, []);
    assert.equal(d.units.length, 1);
    const [orders] = d.units;
    assert.equal(orders!.id, 'compose-override/docker-compose.yml#orders');
    assert.deepEqual(orders!.files, ['compose-override/docker-compose.yml', 'compose-override/docker-compose.override.yml', 'compose-override/docker-compose.prod.yml']);
    assert.deepEqual(orders!.hosts, ['orders', 'orders-dev']);
    assert.deepEqual(env(orders!), {
      LEVEL: 'debug @compose-override/docker-compose.override.yml:5',
      COLOR: '? is set differently by compose-override/docker-compose.yml:6 (blue), compose-override/docker-compose.prod.yml:4 (red) @compose-override/docker-compose.yml:6',
      SIZE: 'small @compose-override/docker-compose.yml:7',
    });
  });
});

describe('Kubernetes', () => {
  test('container env: value; valueFrom stays unknown with its reason; config maps of the estate and $(VAR) are followed', () => {
    const raw = readKubernetes('k8s-env/orders.yaml', fixture('k8s-env/orders.yaml'));
    assert.deepEqual(raw.warnings, []);
    assert.equal(raw.workloads.length, 1);
    assert.deepEqual(
      raw.workloads[0]!.containers[0]!.env.map((e) => [e.name, e.value ?? `? ${e.unknown}`]),
      [
        ['BILLING_URL', 'http://billing:8080'],
        ['DB_PASSWORD', '? comes from key password of secret orders-db'],
        ['REGION', '? comes from key region of config map shop-settings, which is not in the estate'],
        ['MISSING', '? comes from key thing of config map elsewhere, which is not in the estate'],
        ['POD_IP', "? comes from the pod's field status.podIP, known at run time"],
        ['CALLBACK', 'http://$(POD_IP):8080/cb'],
        ['REPORT_URL', '$(BILLING_URL)/reports'],
      ],
    );
    const d = deploymentOf('k8s-env', ['orders.yaml', 'settings.yaml']);
    assert.deepEqual(d.warnings, []);
    const [orders] = d.units;
    assert.equal(orders!.kind, 'kubernetes');
    assert.equal(orders!.id, 'k8s-env/orders.yaml#Deployment/shop/orders/orders');
    assert.deepEqual(orders!.images, ['registry.acme.io/shop/orders-service:2.0']);
    assert.deepEqual(env(orders!), {
      SHOP_region: 'eu-central-1 @k8s-env/settings.yaml:7',
      BILLING_URL: 'http://billing:8080 @k8s-env/orders.yaml:16',
      DB_PASSWORD: '? comes from key password of secret orders-db @k8s-env/orders.yaml:18',
      REGION: 'eu-central-1 @k8s-env/orders.yaml:23',
      MISSING: '? comes from key thing of config map elsewhere, which is not in the estate @k8s-env/orders.yaml:28',
      POD_IP: "? comes from the pod's field status.podIP, known at run time @k8s-env/orders.yaml:33",
      CALLBACK: "? uses $(POD_IP), which comes from the pod's field status.podIP, known at run time @k8s-env/orders.yaml:37",
      REPORT_URL: 'http://billing:8080/reports @k8s-env/orders.yaml:39',
    });
  });

  test('a Service selecting a workload by its pod labels is a host of it; one that does not select it is not', () => {
    const raw = readKubernetes('app.yaml', fixture('k8s-service/app.yaml'));
    assert.deepEqual(raw.warnings, []);
    assert.deepEqual(raw.services, [{ name: 'billing-api', selector: { app: 'billing' }, ports: [{ name: 'http', port: '80', targetPort: '8080' }], file: 'app.yaml', line: 2 }]);
    assert.deepEqual(
      raw.workloads.map((w) => [w.kind, w.name, w.line, w.labels]),
      [
        ['Deployment', 'billing', 14, { app: 'billing', tier: 'backend' }],
        ['CronJob', 'billing-report', 32, { app: 'billing-report' }],
      ],
    );
    const d = deploymentOf('k8s-service', ['app.yaml']);
    assert.deepEqual(
      d.units.map((u) => [u.id, u.hosts]),
      [
        ['k8s-service/app.yaml#CronJob/billing-report/report', ['billing-report']],
        ['k8s-service/app.yaml#Deployment/billing/billing', ['billing', 'billing-api']],
      ],
    );
  });
});

describe('nginx', () => {
  test('prefix, exact, regex (both cases) and ^~ locations, with server names and listen ports', () => {
    const { rules, warnings } = readNginx('nginx.conf', fixture('nginx-locations/nginx.conf'));
    assert.deepEqual(warnings, []);
    assert.deepEqual(rules.map(rule), [
      'prefix /api/ -> orders (pass) @nginx.conf:9',
      'exact /login -> auth (pass) @nginx.conf:12',
      'regex ^/img/(.*)\\.png$ -> images (pass) @nginx.conf:15',
      'regex_case_insensitive \\.(css|js){1}$ -> static (pass) @nginx.conf:18',
      'prefix_no_regex /admin -> admin (pass) @nginx.conf:21',
    ]);
    assert.deepEqual(rules[0]!.serverNames, ['shop.example.com', 'www.shop.example.com']);
    assert.deepEqual(rules[0]!.listen, ['80', '443']);
    assert.deepEqual(rules[0]!.location, { kind: 'prefix', path: '/api/', line: 8 });
  });

  test('proxy_pass with a URI part replaces the location prefix, without one passes the path; rewrites and variables', () => {
    const { rules, warnings } = readNginx('default.conf', fixture('nginx-proxy-uri/default.conf'));
    assert.deepEqual(warnings, []);
    assert.deepEqual(rules.map(rule), [
      'prefix /api/ -> orders / (replace_prefix) @default.conf:4',
      'prefix /v1 -> billing /billing/v1 (replace_prefix) @default.conf:7',
      'exact /status -> health /actuator/health (replace_prefix) @default.conf:10',
      'prefix /raw/ -> raw-service (pass) @default.conf:13',
      'prefix /legacy/ -> legacy / (unknown) @default.conf:17',
      'prefix /dyn/ -> catalog /items (replace_all) @default.conf:21',
      'prefix /unknown/ ->  (unknown) !proxy_pass http://$upstream_host uses a variable the file does not set @default.conf:24',
    ]);
    assert.deepEqual(rules[4]!.rewrites, ['rewrite ^/legacy/(.*)$ /$1 break']);
    const forward = (i: number, path: string) => forwardPath(rules[i]!, path);
    assert.equal(forward(0, '/api/orders/7'), '/orders/7');
    assert.equal(forward(1, '/v1/invoices'), '/billing/v1/invoices');
    assert.equal(forward(2, '/status'), '/actuator/health');
    assert.equal(forward(2, '/status/x'), undefined, 'an exact location takes its path only');
    assert.equal(forward(3, '/raw/a/b'), '/raw/a/b');
    assert.equal(forward(3, '/other'), undefined);
    assert.equal(forward(4, '/legacy/x'), undefined, 'a rewrite is not evaluated');
    assert.equal(forward(5, '/dyn/anything'), '/items');
  });

  test('regex locations match anywhere in the path (case-insensitive with ~*), in linear time', () => {
    const { rules } = readNginx('nginx.conf', fixture('nginx-locations/nginx.conf'));
    const [api, login, img, css] = rules;
    assert.equal(locationAccepts(img!.location, '/img/logo.png'), true);
    assert.equal(locationAccepts(img!.location, '/x/img/logo.png'), false, 'anchored with ^');
    assert.equal(locationAccepts(css!.location, '/static/SITE.CSS'), true);
    assert.equal(locationAccepts(css!.location, '/static/site.cssx'), false);
    assert.equal(locationAccepts(api!.location, '/api'), false, 'a prefix takes paths that start with it');
    assert.equal(locationAccepts(login!.location, '/login'), true);
    assert.equal(locationAccepts({ kind: 'regex', path: '(a+)+$' }, `${'a'.repeat(50_000)}!`), false);
    assert.equal(forwardPath(img!, '/img/a.png'), '/img/a.png');
    assert.equal(forwardPath(img!, '/api/a.gif'), undefined);
  });

  test('which location nginx chooses: exact, then ^~, then regex in order, then the longest prefix; nested first', () => {
    const text = [
      'server {',
      '  location / { proxy_pass http://web; }',
      '  location /api/ { proxy_pass http://api; location /api/admin/ { proxy_pass http://admin; } }',
      '  location ^~ /static/ { root /srv; }',
      '  location = /api/health { proxy_pass http://health; }',
      '  location ~ \\.json$ { proxy_pass http://json; }',
      '}',
    ].join('\n');
    const { servers, rules, warnings } = readNginx('x.conf', text);
    assert.deepEqual(warnings, []);
    assert.equal(servers.length, 1);
    assert.equal(rules[0]!.serverLine, 1);
    const at = (path: string) => {
      const l = selectLocation(servers[0]!.locations, path);
      return l ? `${l.kind} ${l.path}${l.proxies ? '' : ' (no proxy)'}` : '-';
    };
    assert.equal(at('/api/health'), 'exact /api/health');
    assert.equal(at('/api/orders'), 'prefix /api/');
    assert.equal(at('/api/orders.json'), 'regex \\.json$');
    assert.equal(at('/api/admin/users'), 'prefix /api/admin/');
    assert.equal(at('/static/app.json'), 'prefix_no_regex /static/ (no proxy)');
    assert.equal(at('/about'), 'prefix /');
  });

  test('the request path that reaches a target path through a rule (forwardPath inverted)', () => {
    const { rules } = readNginx('default.conf', fixture('nginx-proxy-uri/default.conf'));
    const back = (i: number, path: string) => requestPathFor(rules[i]!, path);
    assert.equal(back(0, '/orders/7'), '/api/orders/7');
    assert.equal(back(1, '/billing/v1/invoices'), '/v1/invoices');
    assert.equal(back(1, '/other'), undefined);
    assert.equal(back(2, '/actuator/health'), '/status');
    assert.equal(back(2, '/actuator/health/db'), undefined, 'an exact location takes one path');
    assert.equal(back(3, '/raw/x'), '/raw/x');
    assert.equal(back(3, '/elsewhere'), undefined);
    assert.equal(back(4, '/x'), undefined, 'a rewrite is not evaluated');
    assert.equal(back(5, '/items'), '/dyn/');
    assert.equal(back(5, '/items/2'), undefined);
    for (const r of rules) {
      for (const p of ['/orders/7', '/billing/v1/x', '/actuator/health', '/raw/x', '/items']) {
        const request = requestPathFor(r, p);
        if (request !== undefined && r.pathMode !== 'replace_all') assert.equal(forwardPath(r, request), p, `${r.location.path} ${p}`);
      }
    }
  });

  test('an upstream block resolves to its servers (same file first, else another file), unix sockets left out', () => {
    const d = deploymentOf('nginx-upstream', ['nginx.conf', 'upstreams.conf']);
    assert.deepEqual(d.warnings, []);
    assert.deepEqual(d.proxies.map(rule), [
      'prefix /orders/ -> orders-1|orders-2 /orders/ (replace_prefix) via backend @nginx-upstream/nginx.conf:9',
      'prefix /shared/ -> common-service (pass) via common @nginx-upstream/nginx.conf:12',
    ]);
    assert.deepEqual(
      d.upstreams.map((u) => [u.name, u.hosts, `${u.file}:${u.line}`]),
      [
        ['backend', ['orders-1', 'orders-2'], 'nginx-upstream/nginx.conf:1'],
        ['common', ['common-service'], 'nginx-upstream/upstreams.conf:1'],
      ],
    );
  });

  test('comments, quotes, ${var} in words, include and Lua blocks are read without confusion', () => {
    const text = [
      'include mime.types; # braces in a comment: { }',
      'server {',
      '  server_name "a.example.com";',
      '  content_by_lua_block { local t = { a = 1 } if x then y() end }',
      '  location "/q;x/" { set $h "orders"; proxy_pass http://${h}:8080/q/; }',
      '}',
    ].join('\n');
    const { rules, warnings } = readNginx('x.conf', text);
    assert.deepEqual(warnings, []);
    assert.deepEqual(rules.map(rule), ['prefix /q;x/ -> orders /q/ (replace_all) @x.conf:5']);
  });
});

describe('bad input', () => {
  test('a file that does not parse is a warning naming file:line, and is skipped', () => {
    const d = deploymentOf('broken', ['docker-compose.yml', 'manifest.yaml', 'nginx.conf', 'quote.conf', 'extra.conf']);
    assert.deepEqual(d.warnings, [
      'broken/docker-compose.yml:5: malformed YAML (Flow sequence in block collection must be sufficiently indented and end with a ]); document skipped',
      'broken/extra.conf:2: cannot parse nginx configuration (unexpected "}"); skipped',
      'broken/manifest.yaml:12: malformed YAML (Missing closing "quote); document skipped',
      'broken/nginx.conf:3: cannot parse nginx configuration (unexpected end of file, expecting "}"); skipped',
      'broken/quote.conf:3: cannot parse nginx configuration (unterminated quoted string); skipped',
    ]);
    assert.deepEqual(d.units, []);
    assert.deepEqual(d.proxies, []);
    assert.deepEqual(d.kubeServices.map((s) => s.name), ['ok-service'], 'the documents that parse are kept');
  });

  test('garbage, deep nesting, alias bombs and odd shapes never throw', () => {
    const inputs = [
      '',
      '\u0000\u0001',
      '{'.repeat(100_000),
      'server {'.repeat(50_000),
      '"'.repeat(10_001),
      'location ~ (a+)+$ { proxy_pass http://x; }',
      'services: [1, 2]',
      'services:\n  a: 5\n  b:\n    environment: 7\n    build: {context: ../../..}\n',
      'a: &a [*a]\n',
      `a: &a ["x","x"]\n${Array.from({ length: 12 }, (_, i) => `l${i + 1}: &l${i + 1} [${`*${i ? `l${i}` : 'a'},`.repeat(9)}*${i ? `l${i}` : 'a'}]`).join('\n')}\n`,
      'apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: [{env: [{name: A, valueFrom: 3}, 5]}]}\n',
      'apiVersion: v1\nkind: List\nitems: [5, {kind: Service}]\n',
    ];
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const alphabet = '{};"\'#$\\ \n\t:-[]&*!|>abc=/';
    for (let i = 0; i < 200; i++) inputs.push(Array.from({ length: 1 + Math.floor(random() * 200) }, () => alphabet[Math.floor(random() * alphabet.length)]).join(''));
    const started = Date.now();
    for (const text of inputs) {
      assert.doesNotThrow(() => readNginx('x.conf', text));
      assert.doesNotThrow(() => readCompose('docker-compose.yml', text));
      assert.doesNotThrow(() => readKubernetes('k.yaml', text));
      assert.doesNotThrow(() => readDeployment(['docker-compose.yml', 'k.yaml', 'n.conf'], () => text));
    }
    assert.ok(Date.now() - started < 20_000, `bounded time (${Date.now() - started} ms)`);
    assert.doesNotThrow(() =>
      readDeployment(['gone.yml', 'docker-compose.yml'], () => {
        throw new Error('unreadable');
      }),
    );
  });
});

describe('layout (test/fixtures/deployment/estate)', () => {
  const ROOT = join(FIXTURES, 'estate');

  test('discovery collects deployment files by name, not application config', async () => {
    const d = await discover(ROOT);
    assert.deepEqual(d.deploymentFiles, ['.github-like.yml', 'deploy/docker-compose.yml', 'deploy/nginx/nginx.conf', 'k8s/billing.yaml']);
    assert.ok(d.configFiles.every((f) => !d.deploymentFiles.includes(f)));
  });

  test('discovery leaves out test source sets, YAML and .conf in resources, and unrelated names', async (t) => {
    const root = await mkdtemp(join(tmpdir(), 'sextant-deploy-'));
    t.after(() => rm(root, { recursive: true, force: true }));
    const files: Record<string, string> = {
      'svc/pom.xml': '<project/>',
      'svc/src/main/java/A.java': 'class A {}',
      'svc/src/main/resources/application.yml': 'a: 1',
      'svc/src/main/resources/openapi.yaml': 'openapi: 3.0.0',
      'svc/src/main/resources/akka.conf': 'a {}',
      'svc/src/main/resources/docker-compose.yml': 'services: {}',
      'svc/src/main/jkube/deployment.yml': 'spec: {}',
      'svc/src/test/resources/docker-compose.yml': 'services: {}',
      'svc/src/test/k8s/pod.yaml': 'kind: Pod',
      'ops/nginx/sites-enabled/default': 'server {}',
      'ops/nginx/html/index.html': '<p/>',
      'ops/notes.txt': 'x',
      'compose.yaml': 'services: {}',
    };
    for (const [path, text] of Object.entries(files)) {
      await mkdir(dirname(join(root, path)), { recursive: true });
      await writeFile(join(root, path), text);
    }
    const d = await discover(root);
    assert.deepEqual(d.deploymentFiles, ['compose.yaml', 'ops/nginx/sites-enabled/default', 'svc/src/main/jkube/deployment.yml', 'svc/src/main/resources/docker-compose.yml']);
  });

  test('units are matched by build context, else image, else name; infrastructure matches nothing', async () => {
    const layout = await layoutOf(ROOT);
    assert.deepEqual(layout.warnings, []);
    assert.deepEqual(
      layout.deployments.map((u) => `${u.id} -> ${u.service ?? '-'}`),
      [
        'deploy/docker-compose.yml#billing -> billing-service',
        'deploy/docker-compose.yml#edge -> edge',
        'deploy/docker-compose.yml#orders-svc -> orders',
        'deploy/docker-compose.yml#postgres -> -',
        'deploy/docker-compose.yml#proxy -> -',
        'k8s/billing.yaml#Deployment/billing/billing -> billing-service',
      ],
    );
  });

  test('hosts: compose keys, container names, hostnames, aliases, workload and Service names', async () => {
    const layout = await layoutOf(ROOT);
    assert.deepEqual(
      Object.fromEntries(layout.services.map((s) => [s.name, s.hosts])),
      {
        'billing-service': ['billing', 'billing-host', 'billing-svc'],
        edge: ['edge'],
        orders: ['orders-alias', 'orders-container', 'orders-svc'],
      },
    );
    assert.equal(layout.serviceOfHost('BILLING-SVC'), 'billing-service');
    assert.equal(layout.serviceOfHost('postgres'), undefined);
    assert.deepEqual(service(layout, 'billing-service').deployedBy, ['deploy/docker-compose.yml#billing', 'k8s/billing.yaml#Deployment/billing/billing']);
  });

  test('environment is configuration as Spring binds it, over the application files and their profiles, with its origin', async () => {
    const orders = service(await layoutOf(ROOT), 'orders');
    const fromEnv = Object.fromEntries(Object.entries(orders.config).filter(([k]) => orders.configOrigins?.[k]?.startsWith('deploy/')).map(([k, v]) => [k, `${v} @${orders.configOrigins![k]}`]));
    assert.deepEqual(fromEnv, {
      BILLING_SERVICE_URL: 'http://billing:8081 @deploy/docker-compose.yml:10',
      'billing.service.url': 'http://billing:8081 @deploy/docker-compose.yml:10',
      'billing-service.url': 'http://billing:8081 @deploy/docker-compose.yml:10',
      CATALOG_URL: 'http://catalog:8080/v2 @deploy/docker-compose.yml:11',
      'catalog.url': 'http://catalog:8080/v2 @deploy/docker-compose.yml:11',
    });
    assert.deepEqual(orders.profiles.prod, { 'billing-service.url': 'http://billing:8081' }, 'the environment wins over a profile file too');
    const hole = (name: string, line: number, variable: string) => `environment variable ${name} (deploy/docker-compose.yml:${line}) comes from $${variable} of the environment docker compose runs in`;
    assert.deepEqual(orders.configHoles, {
      API_KEY: hole('API_KEY', 12, 'API_KEY'),
      'api.key': hole('API_KEY', 12, 'API_KEY'),
      'api-key': hole('API_KEY', 12, 'API_KEY'),
      SPRING_DATASOURCE_PASSWORD: hole('SPRING_DATASOURCE_PASSWORD', 13, 'DB_PASSWORD'),
      'spring.datasource.password': hole('SPRING_DATASOURCE_PASSWORD', 13, 'DB_PASSWORD'),
    });
    for (const key of Object.keys(orders.configHoles!)) assert.equal(orders.config[key], undefined, `${key}: the file's value is not kept under an unknown environment value`);
    assert.equal(orders.config['spring.application.name'], 'orders');
  });

  test('end to end through ConfigView: relaxed keys and ${VAR} placeholders see the environment', async () => {
    const orders = service(await layoutOf(ROOT), 'orders');
    const view = new ConfigView(orders.config, orders.profiles, orders.configOrigins);
    assert.deepEqual(show(view.value('billing-service.url')), ['http://billing:8081']);
    assert.deepEqual(view.value('billing-service.url')![0]!.from, ['deploy/docker-compose.yml:10: billing-service.url']);
    assert.deepEqual(show(view.value('billingService.url')), ['http://billing:8081']);
    assert.deepEqual(show(view.value('catalog.url')), ['http://catalog:8080/v2']);
    assert.deepEqual(show(view.value('payment.callback')), ['http://catalog:8080/v2/callback']);
    assert.deepEqual(show(view.placeholders('${CATALOG_URL}/items')), ['http://catalog:8080/v2/items']);
    assert.deepEqual(show(view.placeholders('${BILLING_SERVICE_URL}')), ['http://billing:8081']);
    assert.equal(view.value('spring.datasource.password'), undefined, 'not the application file value');
  });

  test('ConfigView takes a hole the deployment leaves for ${API_KEY:demo}, not the default', async () => {
    const orders = service(await layoutOf(ROOT), 'orders');
    const view = new ConfigView(orders.config, orders.profiles, orders.configOrigins, orders.configHoles);
    assert.deepEqual(show(view.value('payment.token')), [`{?${orders.configHoles!.API_KEY}}`]);
  });

  test('gateway routes set through the environment are read as configuration', async () => {
    const edge = service(await layoutOf(ROOT), 'edge');
    assert.deepEqual(
      gatewayRoutesOf(edge).map((g) => [g.id, g.path, g.target, g.file]),
      [['orders', '/orders/**', 'orders', 'deploy/docker-compose.yml:25']],
    );
  });

  test('proxies: rules of the mounted nginx file, the hosts of its container, and the services they reach', async () => {
    const layout = await layoutOf(ROOT);
    assert.deepEqual(
      layout.proxies.map((p) => `${rule(p)} | by ${p.hosts.join(',')} | owner ${p.service ?? '-'} | to ${p.targetServices.join(',') || '-'}`),
      [
        'prefix /orders/ -> orders-svc / (replace_prefix) @deploy/nginx/nginx.conf:7 | by proxy,web | owner - | to orders',
        'prefix /billing/ -> billing-host (pass) @deploy/nginx/nginx.conf:10 | by proxy,web | owner - | to billing-service',
        'prefix /ext/ -> api.example.com (pass) @deploy/nginx/nginx.conf:13 | by proxy,web | owner - | to -',
      ],
    );
  });

  test('relaxed names from the environment', () => {
    assert.equal(relaxedEnvKey('SPRING_APPLICATION_NAME'), 'spring.application.name');
    assert.equal(relaxedEnvKey('ORDER_SERVICE_URL'), 'order.service.url');
    assert.equal(relaxedEnvKey('SPRING_CLOUD_GATEWAY_ROUTES_0_URI'), 'spring.cloud.gateway.routes[0].uri');
    assert.equal(relaxedEnvKey('MY_LIST_0_1'), 'my.list[0][1]');
    assert.equal(relaxedEnvKey('spring.profiles.active'), 'spring.profiles.active');
  });
});

describe('layout (test/fixtures/deployment/estate-rename)', () => {
  test('SPRING_APPLICATION_NAME names the service; SPRING_APPLICATION_JSON is configuration; a Dockerfile path places a root build', async () => {
    const layout = await layoutOf(join(FIXTURES, 'estate-rename'));
    assert.deepEqual(layout.warnings, []);
    assert.deepEqual(layout.services.map((s) => [s.name, s.nameFrom, s.applicationNameFile, s.hosts]), [['stock', 'spring.application.name', 'docker-compose.yml', ['inventory']]]);
    const stock = layout.services[0]!;
    assert.deepEqual(
      Object.fromEntries(Object.keys(stock.config).sort().map((k) => [k, `${stock.config[k]} @${stock.configOrigins![k]}`])),
      {
        SERVER_PORT: '9000 @docker-compose.yml:8',
        SPRING_APPLICATION_JSON: '{"stock": {"limits": [1, 2], "mode": "strict"}} @docker-compose.yml:9',
        SPRING_APPLICATION_NAME: 'stock @docker-compose.yml:7',
        'server.port': '9000 @docker-compose.yml:8',
        'spring.application.json': '{"stock": {"limits": [1, 2], "mode": "strict"}} @docker-compose.yml:9',
        'spring.application.name': 'stock @docker-compose.yml:7',
        'stock.limits[0]': '1 @docker-compose.yml:9',
        'stock.limits[1]': '2 @docker-compose.yml:9',
        'stock.mode': 'strict @docker-compose.yml:9',
      },
    );
  });
});

const available = existsSync(PETCLINIC) && existsSync(PIGGY);

describe('real estates (../shared/corpora)', { skip: available ? false : 'the corpora are not on this machine' }, () => {
  test('petclinic: every service is reached by its compose service name (config server matched by image)', async () => {
    const layout = await layoutOf(PETCLINIC);
    assert.deepEqual(
      Object.fromEntries(layout.services.map((s) => [s.name, s.hosts])),
      {
        'admin-server': ['admin-server'],
        'api-gateway': ['api-gateway'],
        'customers-service': ['customers-service'],
        'discovery-server': ['discovery-server'],
        'genai-service': ['genai-service'],
        'spring-petclinic-config-server': ['config-server'],
        'vets-service': ['vets-service'],
        'visits-service': ['visits-service'],
      },
    );
    assert.deepEqual(
      layout.deployments.filter((u) => !u.service).map((u) => u.name),
      ['grafana-server', 'prometheus-server', 'tracing-server'],
    );
    assert.deepEqual(layout.proxies, []);
    assert.deepEqual(layout.warnings, []);
  });

  test('petclinic: the genai keys compose leaves to its environment are holes, not the application default', async () => {
    const genai = service(await layoutOf(PETCLINIC), 'genai-service');
    const hole = (name: string, line: number) => `environment variable ${name} (docker-compose.yml:${line}) comes from $${name} of the environment docker compose runs in`;
    assert.deepEqual(genai.configHoles, {
      OPENAI_API_KEY: hole('OPENAI_API_KEY', 85),
      'openai.api.key': hole('OPENAI_API_KEY', 85),
      AZURE_OPENAI_KEY: hole('AZURE_OPENAI_KEY', 86),
      'azure.openai.key': hole('AZURE_OPENAI_KEY', 86),
      AZURE_OPENAI_ENDPOINT: hole('AZURE_OPENAI_ENDPOINT', 87),
      'azure.openai.endpoint': hole('AZURE_OPENAI_ENDPOINT', 87),
    });
    for (const key of Object.keys(genai.configHoles!)) assert.equal(genai.config[key], undefined);
    assert.equal(genai.config['spring.ai.openai.api-key'], '${OPENAI_API_KEY:demo}', 'the application file keeps its placeholder');
  });

  test('piggymetrics: every service is reached by its compose service name (docker-compose.yml and .dev.yml as one project)', async () => {
    const layout = await layoutOf(PIGGY);
    assert.deepEqual(
      Object.fromEntries(layout.services.map((s) => [s.name, s.hosts])),
      {
        'account-service': ['account-service'],
        'auth-service': ['auth-service'],
        config: ['config'],
        gateway: ['gateway'],
        monitoring: ['monitoring'],
        'notification-service': ['notification-service'],
        registry: ['registry'],
        'statistics-service': ['statistics-service'],
        'turbine-stream-service': ['turbine-stream-service'],
      },
    );
    assert.deepEqual(
      layout.deployments.filter((u) => !u.service).map((u) => u.name),
      ['account-mongodb', 'auth-mongodb', 'notification-mongodb', 'rabbitmq', 'statistics-mongodb'],
    );
    const config = layout.deployments.find((u) => u.name === 'config')!;
    assert.deepEqual(config.files, ['docker-compose.yml', 'docker-compose.dev.yml']);
    assert.deepEqual(config.buildContexts, ['config']);
    assert.deepEqual(layout.warnings, []);
  });

  test('piggymetrics: the compose environment ($CONFIG_SERVICE_PASSWORD style) is exactly holes, never a value', async () => {
    const layout = await layoutOf(PIGGY);
    const expected: Record<string, [string, number][]> = {
      config: [['CONFIG_SERVICE_PASSWORD', 15]],
      registry: [['CONFIG_SERVICE_PASSWORD', 25]],
      gateway: [['CONFIG_SERVICE_PASSWORD', 40]],
      'auth-service': [
        ['CONFIG_SERVICE_PASSWORD', 55],
        ['NOTIFICATION_SERVICE_PASSWORD', 56],
        ['STATISTICS_SERVICE_PASSWORD', 57],
        ['ACCOUNT_SERVICE_PASSWORD', 58],
        ['MONGODB_PASSWORD', 59],
      ],
      'account-service': [
        ['CONFIG_SERVICE_PASSWORD', 82],
        ['ACCOUNT_SERVICE_PASSWORD', 83],
        ['MONGODB_PASSWORD', 84],
      ],
      'statistics-service': [
        ['CONFIG_SERVICE_PASSWORD', 108],
        ['MONGODB_PASSWORD', 109],
        ['STATISTICS_SERVICE_PASSWORD', 110],
      ],
      'notification-service': [
        ['CONFIG_SERVICE_PASSWORD', 133],
        ['MONGODB_PASSWORD', 134],
        ['NOTIFICATION_SERVICE_PASSWORD', 135],
      ],
      monitoring: [['CONFIG_SERVICE_PASSWORD', 158]],
      'turbine-stream-service': [['CONFIG_SERVICE_PASSWORD', 173]],
    };
    for (const s of layout.services) {
      const want: Record<string, string> = {};
      for (const [name, line] of expected[s.name] ?? []) {
        const reason = `environment variable ${name} (docker-compose.yml:${line}) comes from $${name} of the environment docker compose runs in`;
        want[name] = reason;
        want[relaxedEnvKey(name)] = reason;
      }
      assert.deepEqual(s.configHoles, want, s.name);
      const fromCompose = Object.keys(s.config).filter((k) => s.configOrigins?.[k]?.startsWith('docker-compose'));
      assert.deepEqual(fromCompose, [], `${s.name}: no configuration value comes from compose`);
      for (const key of Object.keys(want)) assert.equal(s.config[key], undefined, `${s.name} ${key}`);
    }
    const account = service(layout, 'account-service');
    const view = new ConfigView(account.config, account.profiles, account.configOrigins);
    const password = view.value('spring.cloud.config.password')!;
    assert.equal(password.length, 1);
    assert.ok(password[0]!.pieces.length === 1 && password[0]!.pieces[0]!.hole, `a hole, not an invented value: ${JSON.stringify(password)}`);
  });
});

test('Debezium connector registrations: topics per named table; patterns, reroutes and bad JSON are said', () => {
  const ok = readConnector('debezium/register.json', JSON.stringify({ name: 'inv', config: { 'connector.class': 'io.debezium.connector.mysql.MySqlConnector', 'database.server.name': 'dbserver1', 'table.include.list': 'inventory.customers, inventory.orders' } }));
  assert.deepEqual(ok.connectors.map((c) => [c.name, c.topics]), [['inv', ['dbserver1.inventory.customers', 'dbserver1.inventory.orders']]]);
  assert.deepEqual(ok.warnings, []);
  const pattern = readConnector('connect/a.json', JSON.stringify({ 'connector.class': 'io.debezium.connector.postgresql.PostgresConnector', 'topic.prefix': 'p', 'table.include.list': 'public.orders,public.audit_.*' }));
  assert.deepEqual(pattern.connectors[0]!.topics, ['p.public.orders']);
  assert.match(pattern.warnings[0]!, /connect\/a\.json:1: connector a lists tables as patterns/);
  const rerouted = readConnector('connect/outbox.json', JSON.stringify({ name: 'outbox', config: { 'connector.class': 'io.debezium.connector.postgresql.PostgresConnector', 'topic.prefix': 'p', 'table.include.list': 'public.outbox', transforms: 'outbox', 'transforms.outbox.type': 'io.debezium.transforms.outbox.EventRouter' } }));
  assert.deepEqual(rerouted.connectors[0]!.topics, []);
  assert.match(rerouted.warnings[0]!, /reroutes its topics with a transform/);
  assert.deepEqual(readConnector('connect/other.json', JSON.stringify({ 'connector.class': 'io.confluent.connect.jdbc.JdbcSourceConnector' })).connectors, []);
  assert.match(readConnector('connect/broken.json', '{"name": ').warnings[0]!, /^connect\/broken\.json:1: not JSON/);
});
