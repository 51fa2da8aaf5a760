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
import { detectLayout, hostTemplateOf, type Layout, relaxedEnvKey, type ServiceInfo } from '../src/sources/code/config/layout.js';
import { sharedDir } from './helpers/index.js';

const FIXTURES = fileURLToPath(new URL('./fixtures/deployment', import.meta.url));
const CORPORA = join(sharedDir(), 'corpora');
const PETCLINIC = join(CORPORA, 'spring-petclinic-microservices');
const PIGGY = join(CORPORA, 'piggymetrics');
const HMPPS = join(CORPORA, 'hmpps-nomis-sync');
const HMCTS = join(CORPORA, 'hmcts-bulk-scan');
const NAV = join(CORPORA, 'nav-familie-ef');

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

/** What a unit says about where it runs and how it is reached (undefined fields left out). */
function reach(u: DeploymentUnit): Record<string, unknown> {
  const out: Record<string, unknown> = { kind: u.kind, name: u.name, hosts: u.hosts };
  for (const key of ['environment', 'ingressHosts', 'hostTemplates', 'dnsNames', 'publishedPorts', 'sourceDirs'] as const) if (u[key] !== undefined) out[key] = u[key];
  return out;
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
      // httpd before nginx's `.conf`; in the directories both use, nginx by name (the text decides when read).
      ['docker/apache/000-default.conf', 'httpd'],
      ['docker/apache/000-default.ctmpl', 'httpd'],
      ['conf/httpd.conf', 'httpd'],
      ['etc/apache2/sites-enabled/000-default', 'nginx'],
      ['sql/ry_config_20260311.sql', 'nacos'],
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

  test('$VAR and ${VAR} without a default stay unknown; defaults and $$ as compose does; a pass-through the estate does not set is absent', () => {
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
    });
    assert.deepEqual(env(services[1]!), {
      SECRET: `? ${from('$SECRET')} @docker-compose.yml:16`,
    });
    assert.deepEqual(
      services[0]!.env.map((e) => e.written),
      ['$DB_PASSWORD', '${API_TOKEN}', '${REGION:-eu-west-1}', '${ZONE-a}', '$$5', 'http://${HOST}:8080'],
    );
    const passed = readCompose('docker-compose.yml', fixture('compose-unset/docker-compose.yml'), { PASSED_THROUGH: 'yes', HOME_DIR: '/home/app' });
    assert.deepEqual(env(passed.services[0]!).PASSED_THROUGH, 'yes @docker-compose.yml:11');
    assert.deepEqual(env(passed.services[1]!).HOME_DIR, '/home/app @docker-compose.yml:17');
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

  // A hang guard, not a time budget: the bench measures speed.
  test('garbage, deep nesting, alias bombs and odd shapes never throw', { timeout: 180_000 }, () => {
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
    for (const text of inputs) {
      assert.doesNotThrow(() => readNginx('x.conf', text));
      assert.doesNotThrow(() => readCompose('docker-compose.yml', text));
      assert.doesNotThrow(() => readKubernetes('k.yaml', text));
      assert.doesNotThrow(() => readDeployment(['docker-compose.yml', 'k.yaml', 'n.conf'], () => text));
    }
    assert.doesNotThrow(() =>
      readDeployment(['gone.yml', 'docker-compose.yml'], () => {
        throw new Error('unreadable');
      }),
    );
  });
});

test('Helm values, charts and NAIS manifests of odd shapes are skipped or warned about, never a throw', () => {
  const odd = [
    '',
    'generic-service: 5',
    'generic-service:\n  env: [1, 2]\n  ingress: {enabled: true, hosts: [{}, 3, "https://x.example/a"]}\n',
    'java:\n  environment: {A: "{{", B: "{{ .Values.x }", C: "{{- .Values.global.y -}}"}\n  ingressHost: "{{ .Values.global.e }}"\n',
    'dependencies: {name: java}\nname: [1]\n',
    'apiVersion: nais.io/v1alpha1\nkind: Application\nmetadata: {name: a}\nspec: {env: 5, ingresses: [3, "{{ i }}"], accessPolicy: {outbound: {rules: [1, {application: 2}]}}}\n',
    'fullnameOverride: "Not A Dns Name"\n',
    'a: &a [*a]\n',
  ];
  for (const text of odd) {
    for (const files of [['c/Chart.yaml', 'c/values.yaml', 'values-dev.yaml'], ['.nais/dev.yaml'], ['x/values.aat.template.yaml']]) {
      assert.doesNotThrow(() => readDeployment(files, () => text), JSON.stringify(text));
    }
  }
  const d = readDeployment(['c/Chart.yaml', 'c/values.yaml'], (p) => (p.endsWith('Chart.yaml') ? 'name: c\ndependencies:\n  - name: generic-service\n' : 'generic-service:\n  env: [1, 2]\n'));
  assert.deepEqual(d.warnings, ['c/values.yaml:2: generic-service.env must be a mapping of environment variables; skipped']);
  const tpl = readDeployment(['c/Chart.yaml', 'c/values.yaml'], (p) => (p.endsWith('Chart.yaml') ? 'name: c\ndependencies:\n  - name: java\n' : 'java:\n  environment:\n    A: "{{ .Values.x"\n    B: "{{- .Values.global.y -}}/z"\n'));
  assert.deepEqual(env(tpl.units[0]!), { A: '? is an unterminated Helm template (c/values.yaml:3) @c/values.yaml:3', B: '${.Values.global.y}/z @c/values.yaml:4' });
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
      gatewayRoutesOf(edge).map((g) => [g.id, g.path, g.target, `${g.file}:${g.line}`]),
      [['orders', '/orders/**', 'orders', 'deploy/docker-compose.yml:24']],
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

describe('Helm values of well-known charts (test/fixtures/deployment/helm)', () => {
  const ROOT = join(FIXTURES, 'helm');

  test('each values file is a unit; the chart dependencies say which keys are env and ingress; templates are holes with their origin', () => {
    const files = ['orders/helm_deploy/orders/Chart.yaml', 'orders/helm_deploy/orders/values.yaml', 'orders/helm_deploy/values-dev.yaml', 'orders/helm_deploy/values-prod.yaml', 'billing/charts/billing/Chart.yaml', 'billing/charts/billing/values.yaml', 'billing/charts/billing/values.aat.template.yaml', 'invoices/charts/invoices/Chart.yaml', 'invoices/charts/invoices/values.yaml', 'reports/values.yaml'];
    const d = readDeployment(files, reader(ROOT));
    assert.deepEqual(d.warnings, ['billing/charts/billing/values.yaml:11: environment NESTED of backend is not a scalar; skipped']);
    assert.deepEqual(
      Object.fromEntries(d.units.map((u) => [u.id, reach(u)])),
      {
        'billing/charts/billing/values.aat.template.yaml#billing': { kind: 'helm', name: 'billing', hosts: [], environment: 'aat', sourceDirs: ['billing/charts/billing'] },
        'billing/charts/billing/values.yaml#billing': { kind: 'helm', name: 'billing', hosts: [], hostTemplates: ['billing-${.values.global.environment}.acme.internal'], sourceDirs: ['billing/charts/billing'] },
        'invoices/charts/invoices/values.yaml#invoices': { kind: 'helm', name: 'invoices', hosts: [], hostTemplates: ['invoices-${.values.global.environment}.acme.internal'], sourceDirs: ['invoices/charts/invoices'] },
        'orders/helm_deploy/orders/values.yaml#orders': { kind: 'helm', name: 'orders', hosts: ['app-hostname.local'], ingressHosts: ['app-hostname.local'], sourceDirs: ['orders/helm_deploy/orders'] },
        'orders/helm_deploy/values-dev.yaml#orders': { kind: 'helm', name: 'orders', hosts: ['orders-dev.acme.org'], environment: 'dev', ingressHosts: ['orders-dev.acme.org'], sourceDirs: ['orders/helm_deploy/orders'] },
        'orders/helm_deploy/values-prod.yaml#orders': { kind: 'helm', name: 'orders', hosts: ['orders.acme.org', 'shop.acme.org'], environment: 'prod', ingressHosts: ['orders.acme.org', 'shop.acme.org'], sourceDirs: ['orders/helm_deploy/orders'] },
        'reports/values.yaml#reports': { kind: 'helm', name: 'reports', hosts: [], dnsNames: [{ name: 'reports' }], sourceDirs: ['reports'] },
      },
    );
    const unit = (id: string) => d.units.find((u) => u.id === id)!;
    assert.deepEqual(env(unit('orders/helm_deploy/orders/values.yaml#orders')), {
      SERVER_PORT: '8080 @orders/helm_deploy/orders/values.yaml:10',
      SPRING_PROFILES_ACTIVE: 'json @orders/helm_deploy/orders/values.yaml:11',
      'FEATURE_API-DOCS_ENABLED': 'true @orders/helm_deploy/orders/values.yaml:12',
      RAW: '{{ .Values.not.rendered }} @orders/helm_deploy/orders/values.yaml:13',
    }, 'generic-service does not render env values with tpl: the text is the value');
    assert.deepEqual(unit('orders/helm_deploy/orders/values.yaml#orders').images, ['ghcr.io/acme/orders']);
    assert.deepEqual(env(unit('billing/charts/billing/values.yaml#billing')), {
      INVOICES_URL: 'http://invoices-${.Values.global.environment}.acme.internal @billing/charts/billing/values.yaml:6',
      RELEASE: '${.Release.Name}-worker @billing/charts/billing/values.yaml:7',
      GREETING: '? is the Helm template "{{ printf \\"%s\\" \\"hi\\" }}" (billing/charts/billing/values.yaml:8), rendered when the chart is installed @billing/charts/billing/values.yaml:8',
      RETRIES: '3 @billing/charts/billing/values.yaml:9',
      EMPTY: ' @billing/charts/billing/values.yaml:10',
    });
    assert.deepEqual(unit('billing/charts/billing/values.yaml#billing').env.map((e) => e.holes), [
      { '.Values.global.environment': 'the Helm value .Values.global.environment of the chart in billing/charts/billing, given when the chart is installed' },
      { '.Release.Name': 'the Helm value .Release.Name of the chart in billing/charts/billing, given when the chart is installed' },
      undefined,
      undefined,
      undefined,
    ]);
    const aat = unit('billing/charts/billing/values.aat.template.yaml#billing');
    assert.deepEqual(env(aat), {
      QUEUE: '${$SERVICE_NAME}-queue @billing/charts/billing/values.aat.template.yaml:3',
      INVOICES_URL: 'http://invoices-aat.acme.internal @billing/charts/billing/values.aat.template.yaml:4',
    });
    assert.deepEqual(aat.env[0]!.holes, { $SERVICE_NAME: 'the pipeline variable $SERVICE_NAME, substituted into billing/charts/billing/values.aat.template.yaml before it is deployed' });
    assert.deepEqual(aat.images, ['registry.acme.org/billing/app:latest'], 'the image of the base values, as the environment file sets none');
  });

  test('layout: base values are the default configuration; each environment file is the profile helm:<env>, over the Spring profiles it activates', async () => {
    const layout = await layoutOf(ROOT);
    assert.deepEqual(layout.warnings, ['billing/charts/billing/values.yaml:11: environment NESTED of backend is not a scalar; skipped']);
    const orders = service(layout, 'orders');
    assert.deepEqual(orders.deployedBy, ['orders/helm_deploy/orders/values.yaml#orders', 'orders/helm_deploy/values-dev.yaml#orders', 'orders/helm_deploy/values-prod.yaml#orders']);
    assert.deepEqual(orders.hosts, ['app-hostname.local', 'orders-dev.acme.org', 'orders.acme.org', 'shop.acme.org']);
    assert.deepEqual(orders.ingressHosts, orders.hosts);
    assert.equal(orders.config['billing.url'], '${BILLING_URL:http://localhost:8082}', 'no environment of every environment sets it');
    assert.equal(orders.config['feature.api-docs.enabled'], 'true', 'Spring keeps dashes of a variable name');
    assert.equal(orders.configOrigins?.['server.port'], 'orders/helm_deploy/orders/values.yaml:10');
    assert.deepEqual(Object.keys(orders.environments ?? {}), ['helm:dev', 'helm:prod']);
    assert.deepEqual(orders.environments!['helm:dev'], {
      platform: 'helm',
      name: 'dev',
      files: ['orders/helm_deploy/values-dev.yaml'],
      springProfiles: ['json'],
      origins: {
        SERVER_PORT: 'orders/helm_deploy/orders/values.yaml:10',
        'server.port': 'orders/helm_deploy/orders/values.yaml:10',
        SPRING_PROFILES_ACTIVE: 'orders/helm_deploy/orders/values.yaml:11',
        'spring.profiles.active': 'orders/helm_deploy/orders/values.yaml:11',
        'FEATURE_API-DOCS_ENABLED': 'orders/helm_deploy/orders/values.yaml:12',
        'feature.api-docs.enabled': 'orders/helm_deploy/orders/values.yaml:12',
        RAW: 'orders/helm_deploy/orders/values.yaml:13',
        raw: 'orders/helm_deploy/orders/values.yaml:13',
        BILLING_URL: 'orders/helm_deploy/values-dev.yaml:5',
        'billing.url': 'orders/helm_deploy/values-dev.yaml:5',
      },
    });
    assert.equal(orders.environments!['helm:prod']!.springProfiles.length, 0, 'SPRING_PROFILES_ACTIVE set empty there');
    const view = new ConfigView(orders.config, orders.profiles, orders.configOrigins, orders.configHoles);
    assert.deepEqual(show(view.value('billing.url')), ['http://localhost:8082', 'https://billing-dev.acme.org', 'https://billing.acme.org'], 'the default profile, and each deployment environment that sets the key otherwise');
    assert.equal(orders.profiles['helm:dev']!['billing.url'], 'https://billing-dev.acme.org');
    assert.equal(orders.profiles['helm:dev']!['log.format'], 'json', 'the Spring profile the environment activates is part of its layer');
    assert.equal(orders.profiles['helm:prod']!['billing.url'], 'https://billing.acme.org');
    assert.equal(orders.profiles['helm:prod']!['log.format'], undefined);
    assert.equal(orders.profiles.json!['log.format'], 'json', 'the Spring profile itself is untouched');
  });

  test('a value templated on a global Helm value is a hole with its origin; its host names the service whose ingress has the same template', async () => {
    const layout = await layoutOf(ROOT);
    const billing = service(layout, 'Billing Service');
    assert.deepEqual(billing.hostTemplates, ['billing-${.values.global.environment}.acme.internal']);
    assert.deepEqual(service(layout, 'invoices').hostTemplates, ['invoices-${.values.global.environment}.acme.internal']);
    assert.deepEqual(billing.configHoles, {
      '.Values.global.environment': 'the Helm value .Values.global.environment of the chart in billing/charts/billing, given when the chart is installed',
      '.Release.Name': 'the Helm value .Release.Name of the chart in billing/charts/billing, given when the chart is installed',
      GREETING: 'environment variable GREETING (billing/charts/billing/values.yaml:8) is the Helm template "{{ printf \\"%s\\" \\"hi\\" }}" (billing/charts/billing/values.yaml:8), rendered when the chart is installed',
      greeting: 'environment variable GREETING (billing/charts/billing/values.yaml:8) is the Helm template "{{ printf \\"%s\\" \\"hi\\" }}" (billing/charts/billing/values.yaml:8), rendered when the chart is installed',
      '$SERVICE_NAME': 'the pipeline variable $SERVICE_NAME, substituted into billing/charts/billing/values.aat.template.yaml before it is deployed',
      '@helm-aat.GREETING': 'environment variable GREETING (billing/charts/billing/values.yaml:8) is the Helm template "{{ printf \\"%s\\" \\"hi\\" }}" (billing/charts/billing/values.yaml:8), rendered when the chart is installed',
    });
    const view = new ConfigView(billing.config, billing.profiles, billing.configOrigins, billing.configHoles);
    const url = view.value('invoices.url')!;
    assert.deepEqual(show(url), ['http://invoices-{?the Helm value .Values.global.environment of the chart in billing/charts/billing, given when the chart is installed}.acme.internal', 'http://invoices-aat.acme.internal'], 'the aat environment states the global value');
    const host = hostTemplateOf(url[0]!.pieces);
    assert.equal(host, 'invoices-${.values.global.environment}.acme.internal');
    assert.equal(layout.serviceOfHost(host!), 'invoices');
    assert.equal(billing.profiles['helm:aat']!['invoices.url'], 'http://invoices-aat.acme.internal');
    assert.equal(billing.profiles['helm:aat']!.greeting, '${@helm-aat.GREETING}', 'unknown there too, not the default');
    assert.equal(layout.serviceOfHost('invoices-${.values.release.name}.acme.internal'), undefined);
  });
});

describe('Kubernetes Ingress (test/fixtures/deployment/k8s-ingress)', () => {
  test('rules[].host → backend Service → the workloads it selects (v1, v1beta1, default backend); same namespace only', () => {
    const raw = readKubernetes('app.yaml', fixture('k8s-ingress/app.yaml'));
    assert.deepEqual(raw.warnings, []);
    assert.deepEqual(
      raw.ingresses.map((i) => [i.namespace, i.name, i.defaultService ?? '-', i.rules.map((r) => `${r.host}->${r.services.join('|') || '(default)'}@${r.line}`)]),
      [
        ['shop', 'web', 'web-svc', ['shop.acme.org->web-svc@39', 'admin.acme.org->admin@49', 'www.acme.org->(default)@59']],
        ['shop', 'legacy', '-', ['legacy.acme.org->web-svc@68']],
        ['other', 'elsewhere', '-', ['other.acme.org->web-svc@82']],
      ],
    );
    const d = deploymentOf('k8s-ingress', ['app.yaml']);
    assert.deepEqual(d.warnings, []);
    assert.deepEqual(
      d.units.map(reach),
      [
        { kind: 'kubernetes', name: 'api', hosts: ['api'], dnsNames: [{ name: 'api' }] },
        {
          kind: 'kubernetes',
          name: 'web',
          hosts: ['legacy.acme.org', 'shop.acme.org', 'web', 'web-svc', 'www.acme.org'],
          ingressHosts: ['legacy.acme.org', 'shop.acme.org', 'www.acme.org'],
          dnsNames: [{ name: 'web', namespace: 'shop' }, { name: 'web-svc', namespace: 'shop' }],
        },
      ],
    );
  });
});

describe('NAIS applications (test/fixtures/deployment/nais)', () => {
  const ROOT = join(FIXTURES, 'nais');

  test('metadata.name is the host, spec.env the container env, ingresses hosts, outbound rules callees; one unit per manifest and environment', () => {
    const d = readDeployment(['vedtak/.nais/nais-dev.yaml', 'vedtak/.nais/prod.yaml', 'vedtak/.nais/unleash-apitoken.yaml'], reader(ROOT));
    assert.deepEqual(d.warnings, []);
    assert.deepEqual(d.units.map((u) => [u.id, reach(u)]), [
      ['vedtak/.nais/nais-dev.yaml#Application/team/familie-vedtak', { kind: 'nais', name: 'familie-vedtak', hosts: ['familie-vedtak', 'familie-vedtak.intern.dev.acme.no'], environment: 'dev', ingressHosts: ['familie-vedtak.intern.dev.acme.no'], dnsNames: [{ name: 'familie-vedtak', namespace: 'team' }], sourceDirs: ['vedtak'] }],
      ['vedtak/.nais/prod.yaml#Application/team/familie-vedtak', { kind: 'nais', name: 'familie-vedtak', hosts: ['familie-vedtak', 'familie-vedtak.intern.acme.no'], environment: 'prod', ingressHosts: ['familie-vedtak.intern.acme.no'], dnsNames: [{ name: 'familie-vedtak', namespace: 'team' }], sourceDirs: ['vedtak'] }],
    ]);
    const [dev, prod] = d.units;
    assert.deepEqual(env(dev!), {
      SPRING_PROFILES_ACTIVE: 'dev @vedtak/.nais/nais-dev.yaml:11',
      TOKEN_URL: '? comes from key token-url of secret vedtak-secrets @vedtak/.nais/nais-dev.yaml:13',
      BUILD: '? is the NAIS template "{{ build }}", filled in from the deploy\'s variables @vedtak/.nais/nais-dev.yaml:18',
    });
    assert.deepEqual(dev!.images, [], 'a templated image names nothing');
    assert.deepEqual(prod!.images, ['ghcr.io/acme/familie-vedtak:1.0']);
    assert.deepEqual(dev!.outbound, [
      { application: 'familie-brev', line: 28, file: 'vedtak/.nais/nais-dev.yaml' },
      { application: 'pdl-api', namespace: 'pdl', cluster: 'dev-fss', line: 29, file: 'vedtak/.nais/nais-dev.yaml' },
    ]);
  });

  test('layout: discovery skips .nais, the layout reads it; the manifest is matched by its repository directory; each manifest is the profile nais:<env>', async () => {
    const discovery = await discover(ROOT);
    assert.deepEqual(discovery.deploymentFiles, []);
    const layout = await layoutOf(ROOT);
    assert.deepEqual(layout.warnings, []);
    const vedtak = service(layout, 'vedtak');
    assert.deepEqual(vedtak.hosts, ['familie-vedtak', 'familie-vedtak.intern.acme.no', 'familie-vedtak.intern.dev.acme.no']);
    assert.deepEqual(vedtak.dnsNames, [{ name: 'familie-vedtak', namespace: 'team' }]);
    assert.deepEqual(vedtak.declaredCallees?.map((c) => c.application), ['familie-brev', 'pdl-api']);
    assert.equal(layout.serviceOfHost('familie-vedtak.team.svc.cluster.local'), 'vedtak');
    assert.equal(layout.serviceOfHost('familie-vedtak.other'), undefined, 'the namespace the manifest gives');
    assert.deepEqual(Object.keys(vedtak.environments ?? {}), ['nais:dev', 'nais:prod']);
    assert.deepEqual(vedtak.environments!['nais:dev']!.springProfiles, ['dev']);
    assert.equal(vedtak.profiles['nais:dev']!['pdl.url'], 'https://pdl-api.dev.acme.no/graphql', 'application-dev.yml, which SPRING_PROFILES_ACTIVE=dev brings');
    assert.equal(vedtak.profiles['nais:dev']!['token.url'], '${@nais-dev.TOKEN_URL}');
    assert.equal(vedtak.configHoles?.['@nais-dev.TOKEN_URL'], 'environment variable TOKEN_URL (vedtak/.nais/nais-dev.yaml:13) comes from key token-url of secret vedtak-secrets');
    assert.equal(vedtak.profiles['nais:prod']!['brev.url'], 'http://familie-brev.team');
    assert.equal(vedtak.config['brev.url'], 'http://familie-brev', "no manifest is every environment's: the default stays the application's");
    assert.equal(vedtak.config['spring.profiles.active'], undefined);
  });
});

describe('compose pass-through entries (test/fixtures/deployment/compose-estate)', () => {
  test('`- VAR` takes the .env value; unset, it is absent: the env_file value or the application file stands, never a hole', async () => {
    const layout = await layoutOf(join(FIXTURES, 'compose-estate'));
    assert.deepEqual(layout.warnings, []);
    const shop = service(layout, 'shop');
    const fromCompose = Object.fromEntries(Object.entries(shop.config).filter(([k]) => !shop.configOrigins?.[k]?.startsWith('shop/')).map(([k, v]) => [k, `${v} @${shop.configOrigins![k]}`]));
    assert.deepEqual(fromCompose, {
      LEVEL: 'warn @shop.env:1',
      level: 'warn @shop.env:1',
      REGION: 'eu-north-1 @docker-compose.yml:12',
      region: 'eu-north-1 @docker-compose.yml:12',
      MODE: 'fast @docker-compose.yml:16',
      mode: 'fast @docker-compose.yml:16',
    });
    assert.equal(shop.config.token, 'dev-token');
    assert.equal(shop.configHoles, undefined);
    const postgres = layout.deployments.find((u) => u.name === 'postgres')!;
    assert.deepEqual(postgres.env, [], 'POSTGRES_PASSWORD: with no value and no .env entry is unset');
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

const platforms = existsSync(HMPPS) && existsSync(HMCTS) && existsSync(NAV);

describe('real estates: deployment as their platforms define it (../shared/corpora)', { skip: platforms ? false : 'the corpora are not on this machine' }, () => {
  test('hmpps-nomis-sync: generic-service values per environment; the API base URLs of each environment name the ingress hosts of the estate\'s APIs', async () => {
    const layout = await layoutOf(HMPPS);
    assert.deepEqual(layout.warnings, []);
    assert.deepEqual(
      Object.fromEntries(layout.services.map((s) => [s.name, s.ingressHosts])),
      {
        'hmpps-nomis-mapping-service': ['app-hostname.local', 'nomis-sync-prisoner-mapping-dev.hmpps.service.justice.gov.uk', 'nomis-sync-prisoner-mapping-preprod.hmpps.service.justice.gov.uk', 'nomis-sync-prisoner-mapping.hmpps.service.justice.gov.uk'],
        'hmpps-nomis-prisoner-api': ['app-hostname.local', 'nomis-prisoner-api-dev.prison.service.justice.gov.uk', 'nomis-prisoner-api-preprod.prison.service.justice.gov.uk', 'nomis-prisoner-api.prison.service.justice.gov.uk'],
        'hmpps-prisoner-to-nomis-update': ['app-hostname.local', 'prisoner-to-nomis-update-dev.hmpps.service.justice.gov.uk', 'prisoner-to-nomis-update-preprod.hmpps.service.justice.gov.uk', 'prisoner-to-nomis-update.hmpps.service.justice.gov.uk'],
      },
    );
    assert.equal(layout.serviceOfHost('app-hostname.local'), undefined, 'the chart placeholder every service keeps names none');
    const update = service(layout, 'hmpps-prisoner-to-nomis-update');
    assert.deepEqual(Object.keys(update.environments ?? {}), ['helm:dev', 'helm:preprod', 'helm:prod']);
    assert.deepEqual(Object.values(update.environments!).map((e) => [e.files, e.springProfiles]), [
      [['hmpps-prisoner-to-nomis-update/helm_deploy/values-dev.yaml'], ['logstash']],
      [['hmpps-prisoner-to-nomis-update/helm_deploy/values-preprod.yaml'], ['logstash']],
      [['hmpps-prisoner-to-nomis-update/helm_deploy/values-prod.yaml'], ['logstash']],
    ]);
    // Every api.base.url.<key> of every environment, by the services its host names.
    const targets: Record<string, string[]> = {};
    for (const layer of ['helm:dev', 'helm:preprod', 'helm:prod']) {
      for (const [key, url] of Object.entries(update.profiles[layer]!)) {
        if (!key.startsWith('api.base.url.')) continue;
        const host = /^https?:\/\/([^/:]+)/.exec(url)![1]!;
        const owner = layout.serviceOfHost(host);
        targets[key] = [...new Set([...(targets[key] ?? []), ...(owner ? [owner] : [])])];
      }
    }
    assert.deepEqual(Object.fromEntries(Object.entries(targets).filter(([, v]) => v.length)), {
      'api.base.url.mapping': ['hmpps-nomis-mapping-service'],
      'api.base.url.nomis': ['hmpps-nomis-prisoner-api'],
      // values-preprod.yaml and values-prod.yaml point it at the service's own ingress (dev: prison-users-api).
      'api.base.url.staff': ['hmpps-prisoner-to-nomis-update'],
    });
    assert.equal(Object.keys(targets).length, 28, 'the 25 other API base URLs name hosts outside the estate');
    assert.deepEqual(
      ['helm:dev', 'helm:preprod', 'helm:prod'].map((l) => `${update.profiles[l]!['api.base.url.nomis']} @${update.environments![l]!.origins['api.base.url.nomis']}`),
      [
        'https://nomis-prisoner-api-dev.prison.service.justice.gov.uk @hmpps-prisoner-to-nomis-update/helm_deploy/values-dev.yaml:15',
        'https://nomis-prisoner-api-preprod.prison.service.justice.gov.uk @hmpps-prisoner-to-nomis-update/helm_deploy/values-preprod.yaml:14',
        'https://nomis-prisoner-api.prison.service.justice.gov.uk @hmpps-prisoner-to-nomis-update/helm_deploy/values-prod.yaml:14',
      ],
    );
  });

  test('hmcts-bulk-scan: java chart values; hosts templated on .Values.global.environment are holes, and the processor URL names Bulk Scan Processor', async () => {
    const layout = await layoutOf(HMCTS);
    assert.deepEqual(
      Object.fromEntries(layout.services.map((s) => [s.name, s.hostTemplates])),
      {
        'Bulk Scan Orchestrator': ['bulk-scan-orchestrator-${.values.global.environment}.service.core-compute-${.values.global.environment}.internal'],
        'Bulk Scan Payment Processor': ['bulk-scan-payment-processor-${.values.global.environment}.service.core-compute-${.values.global.environment}.internal'],
        'Bulk Scan Processor': ['bulk-scan-processor-${.values.global.environment}.service.core-compute-${.values.global.environment}.internal'],
      },
    );
    assert.deepEqual(
      Object.fromEntries(layout.services.map((s) => [s.name, Object.keys(s.environments ?? {})])),
      { 'Bulk Scan Orchestrator': ['helm:aat', 'helm:preview'], 'Bulk Scan Payment Processor': ['helm:aat', 'helm:preview'], 'Bulk Scan Processor': ['helm:aat', 'helm:preview'] },
    );
    const payments = service(layout, 'Bulk Scan Payment Processor');
    const view = new ConfigView(payments.config, payments.profiles, payments.configOrigins, payments.configHoles);
    const owner = (key: string) => layout.serviceOfHost(hostTemplateOf(view.value(key)![0]!.pieces)!);
    assert.equal(owner('bulk-scan-procesor.api.url'), 'Bulk Scan Processor');
    assert.equal(owner('pay-hub.api.url'), undefined, 'a host outside the estate');
    assert.deepEqual(view.value('pay-hub.api.url')![0]!.pieces.filter((p) => p.hole).map((p) => p.hole!.at), ['.Values.global.environment', '.Values.global.environment']);
    assert.deepEqual(payments.configHoles, { '.Values.global.environment': 'the Helm value .Values.global.environment of the chart in bulk-scan-payment-processor/charts/bulk-scan-payment-processor, given when the chart is installed' }, 'the bare `- ROOT_APPENDER` entries of its compose file are absent, not holes');
    assert.equal(payments.config.ROOT_APPENDER, undefined);
  });

  test('nav-familie-ef: NAIS manifests name each app, its namespace, ingresses and environments; familie-ef-iverksett is iverksett', async () => {
    const layout = await layoutOf(NAV);
    assert.deepEqual(layout.warnings, []);
    assert.deepEqual(
      Object.fromEntries(layout.services.map((s) => [s.name, { hosts: s.hosts, dns: s.dnsNames, environments: Object.fromEntries(Object.entries(s.environments ?? {}).map(([k, e]) => [k, e.springProfiles])) }])),
      {
        'familie-ef-mottak': { hosts: ['familie-ef-mottak', 'familie-ef-mottak.intern.dev.nav.no', 'familie-ef-mottak.intern.nav.no'], dns: [{ name: 'familie-ef-mottak', namespace: 'teamfamilie' }], environments: { 'nais:dev': ['dev'], 'nais:prod': ['prod'] } },
        'familie-ef-personhendelse': { hosts: ['familie-ef-personhendelse', 'familie-ef-personhendelse.intern.dev.nav.no', 'familie-ef-personhendelse.intern.nav.no'], dns: [{ name: 'familie-ef-personhendelse', namespace: 'teamfamilie' }], environments: { 'nais:dev': ['dev'], 'nais:prod': ['prod'] } },
        'familie-ef-sak': { hosts: ['familie-ef-sak', 'familie-ef-sak.intern.dev.nav.no', 'familie-ef-sak.intern.nav.no'], dns: [{ name: 'familie-ef-sak', namespace: 'teamfamilie' }], environments: { 'nais:preprod': ['dev'], 'nais:prod': ['prod'] } },
        iverksett: { hosts: ['familie-ef-iverksett', 'familie-ef-iverksett.intern.dev.nav.no', 'familie-ef-iverksett.intern.nav.no'], dns: [{ name: 'familie-ef-iverksett', namespace: 'teamfamilie' }], environments: { 'nais:preprod': ['dev'], 'nais:prod': ['prod'] } },
      },
    );
    assert.equal(layout.serviceOfHost('familie-ef-iverksett'), 'iverksett', 'FAMILIE_EF_IVERKSETT_URL: http://familie-ef-iverksett');
    assert.equal(layout.serviceOfHost('familie-ef-sak'), 'familie-ef-sak', 'EF_SAK_URL: http://familie-ef-sak');
    assert.equal(layout.serviceOfHost('familie-ef-iverksett.teamfamilie.svc.cluster.local'), 'iverksett');
    const sak = service(layout, 'familie-ef-sak');
    assert.deepEqual([...new Set(sak.declaredCallees!.map((c) => c.application))].filter((a) => layout.serviceOfHost(a)), ['familie-ef-iverksett']);
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
