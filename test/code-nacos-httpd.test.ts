/**
 * Nacos config seeds (src/sources/code/config/nacos.ts: SQL dumps of `config_info`, and which documents a service
 * loads) and Apache httpd reverse proxies (src/sources/code/config/httpd.ts, consul-template templates included).
 * Fixtures under test/fixtures/nacos-httpd, then the real estates in ../shared/corpora, read in place: ruoyi-cloud's
 * Nacos seed and ewolff-consul's consul-template httpd template, with the answers of test/estates/*.yaml.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, test } from 'node:test';
import YAML from 'yaml';
import { HTTPD_FILES, httpdAccepts, isHttpdFile, mentionsHttpdProxy, readHttpd } from '../src/sources/code/config/httpd.js';
import { isNacosSeedFile, mentionsNacosConfig, type NacosConfig, nacosConfigFor, readNacosSeed } from '../src/sources/code/config/nacos.js';
import { type ProxyRule, readDeployment } from '../src/sources/code/config/deployment.js';
import { detectLayout, type Layout, type LayoutProxy, type ServiceInfo } from '../src/sources/code/config/layout.js';
import { applicationName, parseSpringConfig } from '../src/sources/code/config/spring-config.js';
import { discover } from '../src/sources/code/discover.js';
import { sextantOntology } from '../src/graph/ontology/index.js';
import type { EdgeRecord, NodeRecord } from '../src/graph/types.js';
import { buildCodeSource } from '../src/sources/code/index.js';
import { gatewayRoutesOf } from '../src/sources/code/links/gateways.js';
import { estateSource } from './helpers/estate.js';
import { sharedDir } from './helpers/index.js';

const FIXTURES = fileURLToPath(new URL('./fixtures/nacos-httpd', import.meta.url));
const CORPORA = join(sharedDir(), 'corpora');
const RUOYI = join(CORPORA, 'ruoyi-cloud');
const EWOLFF = join(CORPORA, 'ewolff-consul');
const RUOYI_SEED = 'sql/ry_config_20260311.sql';
const EWOLFF_TEMPLATE = 'docker/apache/000-default.ctmpl';

function fixture(path: string): string {
  return readFileSync(join(FIXTURES, path), 'utf8');
}

/**
 * The services of an estate as its hand-checked expected file lists them (name → directory; deployment-only ones
 * left out), each with its default-profile configuration flattened from its own resources: `application*` over
 * `bootstrap*`, as a service sees it.
 */
function estateServices(estate: string, root: string): { name: string; bootstrap: Record<string, string> }[] {
  const expected = YAML.parse(readFileSync(fileURLToPath(new URL(`./estates/${estate}.yaml`, import.meta.url)), 'utf8')) as { services: Record<string, string | null> };
  return Object.entries(expected.services)
    .filter((entry): entry is [string, string] => typeof entry[1] === 'string')
    .map(([name, dir]) => {
      const resources = join(dir, 'src/main/resources');
      const files = readdirSync(join(root, resources))
        .filter((f) => /^(?:bootstrap|application)\.(?:ya?ml|properties)$/.test(f))
        .sort((a, b) => Number(a.startsWith('application')) - Number(b.startsWith('application')))
        .flatMap((f) => parseSpringConfig(`${resources}/${f}`, readFileSync(join(root, resources, f), 'utf8'), []));
      assert.equal(applicationName(files)?.name, name, `${dir} is the service ${name}`);
      const bootstrap: Record<string, string> = {};
      for (const file of files) if (file.profile === null) for (const [k, v] of file.values) bootstrap[k] = v;
      return { name, bootstrap };
    });
}

function reader(root: string): (rel: string) => string | undefined {
  return (rel) => (existsSync(join(root, rel)) ? readFileSync(join(root, rel), 'utf8') : undefined);
}

async function layoutOf(root: string): Promise<Layout> {
  return detectLayout(await discover(root), reader(root));
}

function serviceOf(layout: Layout, name: string): ServiceInfo {
  const found = layout.services.find((s) => s.name === name);
  assert.ok(found, `service ${name} in ${layout.services.map((s) => s.name).join(', ')}`);
  return found;
}

/** Keys of a service's configuration with their values and origins (`value @origin`), for the keys `keep` selects. */
function configured(s: ServiceInfo, keep: (key: string) => boolean): Record<string, string> {
  return Object.fromEntries(Object.keys(s.config).filter(keep).sort().map((k) => [k, `${s.config[k]} @${s.configOrigins?.[k] ?? '?'}`]));
}

function proxyRow(p: LayoutProxy): string {
  return `${p.kind} ${p.location.kind} ${p.location.path} -> ${p.targetHosts.join('|') || '-'} (${p.pathMode}) @${p.file}:${p.line} | by ${p.hosts.join(',') || '-'} | owner ${p.service ?? '-'} | to ${p.targetServices.join(',') || '-'}`;
}

/** A built code graph's proxy routes (`service name @file:line [framework] -> target_services: gateway_target`) and their FORWARDS edges. */
function proxyGraphOf(built: { nodes: NodeRecord[]; edges: EdgeRecord[] }, framework: string): { routes: string[]; forwards: string[] } {
  const byId = new Map(built.nodes.map((n) => [n.id, n]));
  const proxies = built.nodes.filter((n) => n.kind === 'route' && n.props.framework === framework);
  return {
    routes: proxies.map((n) => `${n.qualified_name} @${n.file}:${n.line} [${String(n.props.resolved)}] -> ${(n.props.target_services as string[] | undefined)?.join(',') ?? '-'}: ${String(n.props.gateway_target)}`).sort(),
    forwards: built.edges.filter((e) => e.type === 'FORWARDS' && proxies.some((p) => p.id === e.from)).map((e) => `${byId.get(e.from)!.qualified_name} -> ${byId.get(e.to)!.qualified_name}`).sort(),
  };
}

async function buildEstate(root: string): Promise<{ nodes: NodeRecord[]; edges: EdgeRecord[] }> {
  return buildCodeSource(estateSource(root), { ontology: sextantOntology(), baseDir: root, env: {} });
}

/** The fields of a config that identify it, for compact assertions. */
function brief(c: NacosConfig): [string, string, string, string, number] {
  return [c.dataId, c.group, c.tenant ?? '', c.format, c.line];
}

/** A seed config written inline. */
function seed(dataId: string, content: string, extra: Partial<NacosConfig> = {}): NacosConfig {
  return { dataId, group: 'DEFAULT_GROUP', content, format: 'yaml', file: 'seed.sql', line: 1, ...extra };
}

describe('Nacos seed: SQL dumps', () => {
  test('MySQL: column order, multi-row inserts, doubled quotes and backslash escapes, comments between rows', () => {
    const { configs, warnings } = readNacosSeed('mysql-seed.sql', fixture('mysql-seed.sql'));
    assert.deepEqual(configs.map(brief), [
      ['orders-dev.yml', 'DEFAULT_GROUP', '', 'yaml', 17],
      ['orders.properties', 'DEFAULT_GROUP', '', 'properties', 18],
      ['orders-dev.yml', 'OTHER_GROUP', 'ns-test', 'yaml', 20],
      ['rules.json', 'DEFAULT_GROUP', '', 'other', 23],
      // No column list: CREATE TABLE's order (content before group_id); a NULL group is Nacos's default one.
      ['shared.yaml', 'SHARED', '', 'yaml', 25],
      ['plain', 'DEFAULT_GROUP', '', 'other', 25],
    ]);
    assert.equal(configs[0]!.content, 'server:\n  port: 8080\nname: O\'Brien\ntext: "it\'s"\npath: C:\\data\\x\n');
    assert.equal(configs[1]!.content, 'a=1\nb=2');
    assert.equal(configs[4]!.content, 'k: v');
    assert.equal(configs[0]!.file, 'mysql-seed.sql');
    // The his_config_info insert (strings holding `;` and quotes) is passed over, not read.
    assert.ok(!configs.some((c) => c.dataId === 'old.yml'));
    assert.deepEqual(warnings, [
      'mysql-seed.sql:21: config_info row has 2 values for 5 columns; skipped',
      "mysql-seed.sql:22: config_info row's data_id is not a string literal (CONCAT('a', 'b')); skipped",
    ]);
  });

  test('PostgreSQL: standard-conforming strings, E-strings, dollar quotes, casts, COPY blocks', () => {
    const { configs, warnings } = readNacosSeed('postgres-seed.sql', fixture('postgres-seed.sql'));
    assert.deepEqual(warnings, []);
    assert.deepEqual(
      configs.map((c) => [c.dataId, c.tenant ?? '', c.line, c.content]),
      [
        ['win.yml', '', 14, 'path: C:\\data\\n'],
        ['e.yml', '', 15, "a: 1\nb: 'two'\n"],
        ['dollar.yml', '', 15, "c: 'it''s'\nd: 4\n"],
        ['copy.yml', '', 20, 'e: 5\nf: "tab\there"'],
        ['copy-ns.yml', 'dev-ns', 21, 'g: 6'],
        ['after-copy.yml', '', 28, 'h: 7'],
      ],
    );
  });

  test('a string that never closes: the rows before it stay, a warning names its line', () => {
    const { configs, warnings } = readNacosSeed('unterminated.sql', fixture('unterminated.sql'));
    assert.deepEqual(configs.map((c) => [c.dataId, c.line]), [['first.yml', 1], ['second.yml', 3]]);
    assert.deepEqual(warnings, ['unterminated.sql:4: config_info row: a string is not closed; the rest of the file is not read']);
  });

  test('a row left open at the end of its statement: a warning names the row, the next statement is read', () => {
    const text = "INSERT INTO config_info (data_id, content) VALUES ('a.yml', 'a: 1'),\n  ('b.yml', 'b: 2';\nINSERT INTO config_info (data_id, content) VALUES ('c.yml', 'c: 3');\n";
    const { configs, warnings } = readNacosSeed('open.sql', text);
    assert.deepEqual(configs.map((c) => [c.dataId, c.line]), [['a.yml', 1], ['c.yml', 3]]);
    assert.deepEqual(warnings, ['open.sql:2: config_info row: the statement ends inside it; the rest of the statement is skipped']);
  });

  test('never throws: every prefix of the fixtures, and text that is not SQL', () => {
    for (const name of ['mysql-seed.sql', 'postgres-seed.sql', 'unterminated.sql']) {
      const text = fixture(name);
      for (let n = 0; n <= text.length; n += 3) {
        const r = readNacosSeed(name, text.slice(0, n));
        assert.ok(Array.isArray(r.configs) && Array.isArray(r.warnings));
        for (const w of r.warnings) assert.match(w, new RegExp(`^${name.replace('.', '\\.')}:\\d+: `));
      }
    }
    for (const junk of ['', ';;;', 'INSERT', 'INSERT INTO config_info', 'INSERT INTO config_info (data_id, content) VALUES (', "insert into config_info values ('a'", '$$', '/*', "COPY config_info FROM stdin;\n1\t2", '\u0000\uffff(']) {
      assert.doesNotThrow(() => readNacosSeed('junk.sql', junk));
    }
  });
});

describe('Nacos: the documents a service loads', () => {
  test('precedence: imports, then shared < extension < ${prefix} < ${prefix}.${ext} < ${prefix}-${profile}.${ext}', () => {
    const configs = [
      seed('orders-dev.yaml', 'p: dev'),
      seed('orders.yaml', 'p: ext'),
      seed('orders', 'p: bare'),
      seed('ext-b.yml', 'e: b', { group: 'EXT' }),
      seed('ext-a.properties', 'e=a'),
      seed('common.yml', 'c: 1'),
      seed('redis.yml', 'r: 1', { group: 'SHARED' }),
      seed('imported.yml', 'i: 1', { group: 'IMPORTS' }),
      seed('orders-prod.yaml', 'p: prod'),
      seed('orders-dev.yaml', 'p: other group', { group: 'ELSEWHERE' }),
      seed('sentinel-orders', '[]', { format: 'other' }),
    ];
    const docs = nacosConfigFor(
      {
        name: 'orders',
        bootstrap: {
          'spring.application.name': 'orders',
          'spring.profiles.active': '${PROFILE:dev}',
          'spring.cloud.nacos.config.server-addr': 'nacos:8848',
          'spring.cloud.nacos.config.fileExtension': 'yaml',
          'spring.cloud.nacos.config.shared-configs[0].data-id': 'common.yml',
          'spring.cloud.nacos.config.shared-configs[1].data-id': 'redis.yml',
          'spring.cloud.nacos.config.shared-configs[1].group': 'SHARED',
          'spring.cloud.nacos.config.extension-configs[0].data-id': 'ext-a.properties',
          'spring.cloud.nacos.config.extension-configs[1].data-id': 'ext-b.yml',
          'spring.cloud.nacos.config.extension-configs[1].group': 'EXT',
          'spring.config.import[0]': 'optional:nacos:imported.yml?group=IMPORTS&refreshEnabled=true',
          'spring.config.import[1]': 'optional:configserver:http://config:8888',
        },
      },
      configs,
    );
    assert.deepEqual(
      docs.map((d) => [d.dataId, d.group, d.via, d.profile, d.active, d.format]),
      [
        ['imported.yml', 'IMPORTS', 'import', null, true, 'yaml'],
        ['common.yml', 'DEFAULT_GROUP', 'shared', null, true, 'yaml'],
        ['redis.yml', 'SHARED', 'shared', null, true, 'yaml'],
        ['ext-a.properties', 'DEFAULT_GROUP', 'extension', null, true, 'properties'],
        ['ext-b.yml', 'EXT', 'extension', null, true, 'yaml'],
        ['orders', 'DEFAULT_GROUP', 'application', null, true, 'yaml'],
        ['orders.yaml', 'DEFAULT_GROUP', 'application', null, true, 'yaml'],
        ['orders-dev.yaml', 'DEFAULT_GROUP', 'application', 'dev', true, 'yaml'],
        // A profile the service does not activate: what it would load under that profile.
        ['orders-prod.yaml', 'DEFAULT_GROUP', 'application', 'prod', false, 'yaml'],
      ],
    );
    assert.equal(docs[7]!.content, 'p: dev');
  });

  test('imports name their data ids through placeholders; prefix, group and namespace settings apply', () => {
    const configs = [
      seed('application-test.yml', 'a: 1', { group: 'APP' }),
      seed('billing-test.yml', 'b: 1', { group: 'APP' }),
      seed('billing-test.yml', 'b: 2', { group: 'APP', tenant: 'ns-1' }),
      seed('pay.properties', 'x=1', { group: 'APP', tenant: 'ns-1' }),
      seed('pay-test.properties', 'x=2', { group: 'APP', tenant: 'ns-1' }),
      seed('pay-test.properties', 'x=3', { group: 'APP' }),
    ];
    const bootstrap = {
      'spring.application.name': 'billing',
      'spring.profiles.active': 'test',
      'spring.config.file-extension': 'yml',
      'spring.config.import': 'nacos:application-${spring.profiles.active}.${spring.config.file-extension}, nacos:${spring.application.name}-${spring.profiles.active}.${spring.config.file-extension}',
      'spring.cloud.nacos.config.group': 'APP',
      'spring.cloud.nacos.config.namespace': 'ns-1',
      'spring.cloud.nacos.config.prefix': 'pay',
    };
    assert.deepEqual(
      nacosConfigFor({ name: 'billing', bootstrap }, configs).map((d) => [d.dataId, d.tenant ?? '', d.via, d.profile, d.content]),
      [
        ['billing-test.yml', 'ns-1', 'import', 'test', 'b: 2'],
        ['pay.properties', 'ns-1', 'application', null, 'x=1'],
        ['pay-test.properties', 'ns-1', 'application', 'test', 'x=2'],
      ],
    );
    // The public namespace is '' in the seed and 'public' (or nothing) in the client.
    const publicOnly = nacosConfigFor({ name: 'billing', bootstrap: { ...bootstrap, 'spring.cloud.nacos.config.namespace': 'public' } }, configs);
    assert.deepEqual(publicOnly.map((d) => [d.dataId, d.content]), [['application-test.yml', 'a: 1'], ['billing-test.yml', 'b: 1'], ['pay-test.properties', 'x=3']]);
  });

  test('without an active profile, profile documents come as inactive; disabled config loads nothing', () => {
    const configs = [seed('orders.properties', 'a=1', { format: 'properties' }), seed('orders-docker.properties', 'a=2', { format: 'properties' }), seed('orders-gateway-dev.properties', 'a=3', { format: 'properties' })];
    const bootstrap = { 'spring.application.name': 'orders', 'spring.cloud.nacos.config.server-addr': 'localhost:8848' };
    assert.deepEqual(
      nacosConfigFor({ name: 'orders', bootstrap }, configs).map((d) => [d.dataId, d.profile, d.active]),
      [['orders.properties', null, true], ['orders-docker.properties', 'docker', false]],
    );
    assert.deepEqual(nacosConfigFor({ name: 'orders', bootstrap: { ...bootstrap, 'spring.cloud.nacos.config.enabled': 'false' } }, configs), []);
    // Nothing configures the Nacos client: nothing is loaded.
    assert.deepEqual(nacosConfigFor({ name: 'orders', bootstrap: { 'spring.application.name': 'orders' } }, configs), []);
  });
});

describe('Nacos on ruoyi-cloud (real estate, read in place)', { skip: existsSync(RUOYI) ? false : 'the corpora are not on this machine' }, () => {
  test('the seed: every config_info row', () => {
    const text = readFileSync(join(RUOYI, RUOYI_SEED), 'utf8');
    assert.ok(isNacosSeedFile(RUOYI_SEED) && mentionsNacosConfig(text));
    assert.ok(!mentionsNacosConfig('CREATE TABLE orders (id int);\nINSERT INTO orders VALUES (1);'));
    const { configs, warnings } = readNacosSeed(RUOYI_SEED, text);
    assert.deepEqual(warnings, []);
    assert.deepEqual(configs.map(brief), [
      ['application-dev.yml', 'DEFAULT_GROUP', '', 'yaml', 36],
      ['ruoyi-gateway-dev.yml', 'DEFAULT_GROUP', '', 'yaml', 37],
      ['ruoyi-auth-dev.yml', 'DEFAULT_GROUP', '', 'yaml', 38],
      ['ruoyi-monitor-dev.yml', 'DEFAULT_GROUP', '', 'yaml', 39],
      ['ruoyi-system-dev.yml', 'DEFAULT_GROUP', '', 'yaml', 40],
      ['ruoyi-gen-dev.yml', 'DEFAULT_GROUP', '', 'yaml', 41],
      ['ruoyi-job-dev.yml', 'DEFAULT_GROUP', '', 'yaml', 42],
      ['ruoyi-file-dev.yml', 'DEFAULT_GROUP', '', 'yaml', 43],
      ['sentinel-ruoyi-gateway', 'DEFAULT_GROUP', '', 'other', 44],
    ]);
    assert.ok(configs[0]!.content.endsWith("        include: '*'\n"), 'backslash-escaped quotes');
    assert.ok(configs[8]!.content.startsWith('[\r\n    {\r\n        "resource": "ruoyi-auth"'), '\\r\\n and \\" escapes');
  });

  test('ruoyi-gateway: application-dev.yml then ruoyi-gateway-dev.yml, imported for its active profile dev; the routes in the latter', () => {
    const { configs } = readNacosSeed(RUOYI_SEED, readFileSync(join(RUOYI, RUOYI_SEED), 'utf8'));
    const served = new Map(estateServices('ruoyi-cloud', RUOYI).map((s) => [s.name, nacosConfigFor(s, configs)]));
    const gateway = served.get('ruoyi-gateway')!;
    assert.deepEqual(
      gateway.map((d) => [d.dataId, d.group, d.profile, d.active, d.via, d.format, `${d.file}:${d.line}`]),
      [
        ['application-dev.yml', 'DEFAULT_GROUP', 'dev', true, 'import', 'yaml', `${RUOYI_SEED}:36`],
        ['ruoyi-gateway-dev.yml', 'DEFAULT_GROUP', 'dev', true, 'import', 'yaml', `${RUOYI_SEED}:37`],
      ],
    );
    const warnings: string[] = [];
    const values = new Map(gateway.flatMap((d) => parseSpringConfig(`${d.file}#${d.dataId}`, d.content, warnings).flatMap((f) => [...f.values])));
    assert.deepEqual(warnings, []);
    const base = 'spring.cloud.gateway.server.webflux';
    const routes = [...values].filter(([k]) => k.startsWith(`${base}.`) && /\.(?:id|uri|predicates\[\d+\])$|locator\./.test(k));
    assert.deepEqual(Object.fromEntries(routes), {
      [`${base}.discovery.locator.lowerCaseServiceId`]: 'true',
      [`${base}.discovery.locator.enabled`]: 'true',
      [`${base}.routes[0].id`]: 'ruoyi-auth',
      [`${base}.routes[0].uri`]: 'lb://ruoyi-auth',
      [`${base}.routes[0].predicates[0]`]: 'Path=/auth/**',
      [`${base}.routes[1].id`]: 'ruoyi-gen',
      [`${base}.routes[1].uri`]: 'lb://ruoyi-gen',
      [`${base}.routes[1].predicates[0]`]: 'Path=/code/**',
      [`${base}.routes[2].id`]: 'ruoyi-job',
      [`${base}.routes[2].uri`]: 'lb://ruoyi-job',
      [`${base}.routes[2].predicates[0]`]: 'Path=/schedule/**',
      [`${base}.routes[3].id`]: 'ruoyi-system',
      [`${base}.routes[3].uri`]: 'lb://ruoyi-system',
      [`${base}.routes[3].predicates[0]`]: 'Path=/system/**',
      [`${base}.routes[4].id`]: 'ruoyi-file',
      [`${base}.routes[4].uri`]: 'lb://ruoyi-file',
      [`${base}.routes[4].predicates[0]`]: 'Path=/file/**',
    });
    // Every other service loads the shared application-dev.yml and its own <name>-dev.yml; no context path anywhere.
    for (const name of ['ruoyi-auth', 'ruoyi-file', 'ruoyi-gen', 'ruoyi-job', 'ruoyi-monitor', 'ruoyi-system']) {
      assert.deepEqual(served.get(name)!.map((d) => [d.dataId, d.profile, d.active]), [['application-dev.yml', 'dev', true], [`${name}-dev.yml`, 'dev', true]], name);
      assert.ok(!served.get(name)!.some((d) => d.content.includes('context-path')), name);
    }
  });
});

describe('httpd: which files', () => {
  test('the table names httpd configuration and consul-template templates; the text decides', () => {
    assert.ok(HTTPD_FILES.length > 0);
    for (const path of ['httpd.conf', 'conf/apache2.conf', 'extra/httpd-vhosts.conf', 'docker/apache/000-default.conf', 'docker/apache/000-default.ctmpl', 'etc/apache2/sites-available/000-default', 'httpd/conf.d/proxy.conf']) assert.ok(isHttpdFile(path), path);
    for (const path of ['nginx/nginx.conf', 'docker/nginx/default.conf', 'app.conf', 'apache/README.md', 'src/main/resources/application.yml']) assert.ok(!isHttpdFile(path), path);
    assert.ok(mentionsHttpdProxy(fixture('apache/proxy.conf')));
    assert.ok(!mentionsHttpdProxy('server {\n  location / { proxy_pass http://x; }\n}\n'));
  });
});

describe('httpd: proxy rules', () => {
  test('ProxyPass, ProxyPassMatch, <Location>, <LocationMatch>, balancers, Define; what mod_proxy does not take is a warning', () => {
    const { rules, warnings } = readHttpd('apache/proxy.conf', fixture('apache/proxy.conf'), []);
    const server = { file: 'apache/proxy.conf', serverLine: 6, serverNames: ['shop.example.com', 'www.shop.example.com'], listen: ['80', '8080'] };
    const expected: ProxyRule[] = [
      { ...server, line: 11, location: { kind: 'prefix', path: '/api/orders/', line: 11 }, proxyPass: 'http://orders:8080/orders/', targetHosts: ['orders'], targetPath: '/orders/', pathMode: 'replace_prefix' },
      { ...server, line: 12, location: { kind: 'regex', path: '^/img/(.*\\.png)$', line: 12 }, proxyPass: 'http://images:9000/static/$1', targetHosts: ['images'], targetPath: '/static/$1', pathMode: 'unknown' },
      { ...server, line: 13, location: { kind: 'regex', path: '^/legacy', line: 13 }, proxyPass: 'http://Legacy:8080', targetHosts: ['legacy'], pathMode: 'pass' },
      { ...server, line: 16, location: { kind: 'prefix', path: '/billing/', line: 15 }, proxyPass: 'balancer://billing/', upstream: 'billing', targetHosts: ['billing-1', 'billing-2'], targetPath: '/', pathMode: 'replace_prefix' },
      { ...server, line: 20, location: { kind: 'regex', path: '^/reports/(\\d+)$', line: 19 }, proxyPass: 'http://reports:8080/r/$1', targetHosts: ['reports'], targetPath: '/r/$1', pathMode: 'unknown' },
      { ...server, line: 33, location: { kind: 'prefix', path: '/sock', line: 33 }, proxyPass: 'unix:/run/app.sock|http://localhost/', targetHosts: [], pathMode: 'unknown', unresolved: 'unix:/run/app.sock|http://localhost/ goes to a unix socket' },
      { ...server, line: 34, location: { kind: 'prefix', path: '/env', line: 34 }, proxyPass: 'http://${UNSET_HOST}/', targetHosts: [], targetPath: '/', pathMode: 'unknown', unresolved: 'the host of http://${UNSET_HOST}/ is left to the environment httpd runs in' },
    ];
    assert.deepEqual(rules, expected);
    assert.deepEqual(warnings, [
      'apache/proxy.conf:23: ProxyPass inside <LocationMatch> reads the regular expression as a literal path; use ProxyPassMatch; skipped',
      'apache/proxy.conf:31: ProxyPass is not allowed in <directory> (line 30); skipped',
    ]);
  });

  test('the main server: rules outside <VirtualHost> take its ServerName and Listen; ProxyPassMatch in <Location> reads the path as a regex', () => {
    const text = 'Listen 8081\nServerName gw.local\nProxyPass /x/ http://x:1/\n<Location /y>\n  ProxyPassMatch http://y:2\n</Location>\n';
    const main = { file: 'main.conf', serverLine: 0, serverNames: ['gw.local'], listen: ['8081'] };
    assert.deepEqual(readHttpd('main.conf', text, []), {
      rules: [
        { ...main, line: 3, location: { kind: 'prefix', path: '/x/', line: 3 }, proxyPass: 'http://x:1/', targetHosts: ['x'], targetPath: '/', pathMode: 'replace_prefix' },
        { ...main, line: 5, location: { kind: 'regex', path: '/y', line: 4 }, proxyPass: 'http://y:2', targetHosts: ['y'], pathMode: 'pass' },
      ],
      warnings: [],
    });
  });

  test('consul-template: services ranged in name order, variables, pipes, if/eq, trim markers; what is not evaluated is a warning', () => {
    const { rules, warnings } = readHttpd('templates/services.ctmpl', fixture('templates/services.ctmpl'), ['consul', 'accounts', 'Billing', 'accounts']);
    const common = { file: 'templates/services.ctmpl', line: 8, serverLine: 1, serverNames: [], listen: ['80'], targetPath: '/', pathMode: 'replace_prefix' as const };
    assert.deepEqual(rules, [
      { ...common, location: { kind: 'prefix', path: '/Billing/', line: 8 }, proxyPass: 'balancer://billing/', upstream: 'billing', targetHosts: ['billing'] },
      { ...common, location: { kind: 'prefix', path: '/accounts/', line: 8 }, proxyPass: 'balancer://accounts/', upstream: 'accounts', targetHosts: ['accounts'] },
    ]);
    assert.deepEqual(warnings, ['templates/services.ctmpl:10: {{range ls "routes"}} is not evaluated; its body is not read']);
  });

  test('never throws: every prefix of the fixtures, and broken templates', () => {
    for (const name of ['apache/proxy.conf', 'templates/services.ctmpl']) {
      const text = fixture(name);
      for (let n = 0; n <= text.length; n += 2) assert.doesNotThrow(() => readHttpd(name, text.slice(0, n), ['a', 'b']));
    }
    for (const junk of ['{{', '}}{{end}}{{else}}', '{{range services}}{{range services}}ProxyPass /{{.Name}} http://{{.Name}}/', '<VirtualHost', '</Location>', 'ProxyPass', 'BalancerMember', '<Location>\nProxyPass\n</Location>']) {
      const r = readHttpd('junk.conf', junk, ['a']);
      assert.ok(Array.isArray(r.rules) && Array.isArray(r.warnings), junk);
    }
    const unclosed = readHttpd('t.ctmpl', '{{range services}}\nProxyPass /{{.Name}} http://{{.Name}}:8080/\n', ['a']);
    assert.deepEqual(unclosed.rules.map((r) => [r.location.path, r.targetHosts, r.line]), [['/a', ['a'], 2]]);
    assert.deepEqual(unclosed.warnings, ['t.ctmpl:1: {{range}} is not closed with {{end}}; it runs to the end of the file']);
  });
});

describe('httpd on ewolff-consul (real estate, read in place)', { skip: existsSync(EWOLFF) ? false : 'the corpora are not on this machine' }, () => {
  test('000-default.ctmpl: one ProxyPass per Consul service, to its balancer of instances, all at line 20', () => {
    // The services registering themselves in Consul: the estate's, by spring.application.name.
    const services = estateServices('ewolff-consul', EWOLFF).map((s) => s.name);
    assert.deepEqual(services, ['catalog', 'customer', 'order']);
    const { rules, warnings } = readHttpd(EWOLFF_TEMPLATE, readFileSync(join(EWOLFF, EWOLFF_TEMPLATE), 'utf8'), services);
    assert.deepEqual(warnings, []);
    const rule = (name: string): ProxyRule => ({
      file: EWOLFF_TEMPLATE,
      line: 20,
      serverLine: 1,
      serverNames: [],
      listen: ['80'],
      location: { kind: 'prefix', path: `/${name}`, line: 20 },
      proxyPass: `balancer://${name}`,
      upstream: name,
      targetHosts: [name],
      pathMode: 'replace_prefix',
    });
    assert.deepEqual(rules, [rule('catalog'), rule('customer'), rule('order')]);
    // The rendered configuration's twin, 000-default.conf, proxies nothing.
    const conf = readFileSync(join(EWOLFF, 'docker/apache/000-default.conf'), 'utf8');
    assert.ok(isHttpdFile('docker/apache/000-default.conf') && !mentionsHttpdProxy(conf));
    assert.deepEqual(readHttpd('docker/apache/000-default.conf', conf, services), { rules: [], warnings: [] });
  });
});

describe('deployment reading: Nacos seeds and httpd files', () => {
  test('discovery keeps a .sql only when it writes config_info; the text decides between httpd and nginx', async () => {
    const d = await discover(join(FIXTURES, 'estate-nacos'));
    // schema.sql has no config_info; history.sql writes his_config_info only.
    assert.deepEqual(d.deploymentFiles, ['docker-compose.yml', 'sql/nacos-seed.sql']);
    const files: Record<string, string> = {
      'sql/seed.sql': "INSERT INTO config_info (data_id, content) VALUES ('a.yml', 'a: 1');\n",
      'sql/schema.sql': 'CREATE TABLE config_info (id int);\n',
      'web/conf.d/site.conf': '<VirtualHost *:80>\n  ProxyPass /api http://orders:8080/api\n</VirtualHost>\n',
      'docker/apache/000-default.conf': '<VirtualHost *:80>\n  DocumentRoot /var/www\n</VirtualHost>\n',
      'docker/apache/nginx-like.conf': 'server {\n  location /x/ { proxy_pass http://x:1/; }\n}\n',
      'docker/apache/idle.ctmpl': '{{range services}}# {{.Name}}\n{{end}}\n',
    };
    const deployment = readDeployment(Object.keys(files), (rel) => files[rel]);
    assert.deepEqual(deployment.warnings, []);
    assert.deepEqual(deployment.nacos.map((c) => [c.dataId, c.file, c.line]), [['a.yml', 'sql/seed.sql', 1]]);
    assert.deepEqual(deployment.httpd.map((f) => f.file), ['web/conf.d/site.conf']);
    // A `.conf` in an httpd directory that proxies as nginx does is still read as nginx.
    assert.deepEqual(deployment.proxies.map((r) => `${r.file}:${r.line} ${r.location.path}`), ['docker/apache/nginx-like.conf:2 /x/']);
  });

  test('a seed that breaks off is a warning naming file:line, the rows before it read', () => {
    const files: Record<string, string> = { 'seed.sql': "INSERT INTO config_info (data_id, content) VALUES ('a.yml', 'a: 1'),\n('b.yml', 'b: \n" };
    const deployment = readDeployment(Object.keys(files), (rel) => files[rel]);
    assert.deepEqual(deployment.nacos.map((c) => c.dataId), ['a.yml']);
    assert.deepEqual(deployment.warnings, ['seed.sql:2: config_info row: a string is not closed; the rest of the file is not read']);
  });
});

describe('Nacos in the layout (test/fixtures/nacos-httpd/estate-nacos)', () => {
  const ROOT = join(FIXTURES, 'estate-nacos');
  const SEED = 'sql/nacos-seed.sql';

  test('imported documents: over the own files (active profile too), under the deployment environment; origin file:row', async () => {
    const layout = await layoutOf(ROOT);
    const orders = serviceOf(layout, 'orders');
    assert.deepEqual(configured(orders, (k) => !k.startsWith('spring.') && !/^[A-Z_]+$/.test(k)), {
      // ORDERS_TIMEOUT outranks an imported document (config data comes under the OS environment).
      'orders.timeout': '30 @docker-compose.yml:5',
      'orders.page-size': `50 @${SEED}:13`,
      'orders.region': 'eu @orders/src/main/resources/application.yml',
      'orders.retries': `2 @${SEED}:14`,
      'shared.greeting': `hello @${SEED}:12`,
    });
    // A Nacos origin carries its line; configLines is for file origins.
    assert.equal(orders.configLines?.['orders.page-size'], undefined);
    assert.deepEqual(orders.profiles, {
      // application-dev.yml said 20: the active profile's own file ranks under Nacos.
      dev: { 'orders.page-size': '50' },
      eu: { 'spring.config.activate.on-profile': 'eu', 'orders.region': 'eu-west' },
    });
    assert.deepEqual(orders.nacosConfigs, [
      { dataId: 'common.yml', group: 'DEFAULT_GROUP', profile: null, active: true, via: 'import', at: `${SEED}:12` },
      { dataId: 'orders-dev.yml', group: 'DEFAULT_GROUP', profile: 'dev', active: true, via: 'import', at: `${SEED}:13` },
      { dataId: 'orders-bad.yml', group: 'DEFAULT_GROUP', profile: null, active: true, via: 'import', at: `${SEED}:14` },
    ]);
    assert.equal(orders.configServerFiles, undefined);
  });

  test('bootstrap locator documents: over the environment too; a profile the service does not activate is that profile', async () => {
    const layout = await layoutOf(ROOT);
    const billing = serviceOf(layout, 'billing');
    assert.deepEqual(configured(billing, (k) => !k.startsWith('spring.') && !/^[A-Z_]+$/.test(k)), {
      'billing.limit': `9 @${SEED}:15`,
      'billing.currency': 'EUR @billing/src/main/resources/application.properties',
      'shared.greeting': `hello @${SEED}:12`,
    });
    assert.deepEqual(billing.profiles, { prod: { 'billing.limit': '100' } });
    assert.deepEqual(
      billing.nacosConfigs?.map((d) => `${d.via} ${d.dataId} ${d.profile ?? '-'} ${d.active ? 'active' : 'inactive'} @${d.at}`),
      [`shared common.yml - active @${SEED}:12`, `application billing.yaml - active @${SEED}:15`, `application billing-prod.yaml prod inactive @${SEED}:16`],
    );
  });

  test('a document that does not parse is a warning naming the seed row; the rest of it applies', async () => {
    const layout = await layoutOf(ROOT);
    assert.equal(layout.warnings.length, 1);
    assert.match(layout.warnings[0]!, /^sql\/nacos-seed\.sql:14: Nacos config orders-bad\.yml \(DEFAULT_GROUP\), line 5 of its content: malformed YAML \(.*\); document skipped$/);
  });
});

describe('httpd in the layout and as routes (test/fixtures/nacos-httpd/estate-httpd)', () => {
  const ROOT = join(FIXTURES, 'estate-httpd');

  test('ProxyPass takes whole path segments; ProxyPassMatch searches the path', () => {
    const prefix = (path: string) => ({ kind: 'prefix' as const, path });
    assert.ok(httpdAccepts(prefix('/app'), '/app') && httpdAccepts(prefix('/app'), '/app/x'));
    assert.ok(!httpdAccepts(prefix('/app'), '/apple') && !httpdAccepts(prefix('/app'), '/ap'));
    assert.ok(httpdAccepts(prefix('/app/'), '/app/x') && !httpdAccepts(prefix('/app/'), '/app'));
    assert.ok(httpdAccepts(prefix('/'), '/anything'));
    assert.ok(httpdAccepts({ kind: 'regex', path: '\\.png$' }, '/img/a.png') && !httpdAccepts({ kind: 'regex', path: '^/img' }, '/x/img'));
    assert.ok(!httpdAccepts({ kind: 'regex', path: '(?<=x)y' }, '/xy'), 'a pattern RE2 cannot read takes nothing');
  });

  test('layout: httpd rules of the built proxy, templates over the Consul catalog (its registered names), by file', async () => {
    const layout = await layoutOf(ROOT);
    assert.deepEqual(layout.warnings, []);
    assert.deepEqual(layout.proxies.map(proxyRow), [
      'httpd prefix /ord -> billing (replace_prefix) @proxy/httpd.conf:7 | by proxy | owner - | to billing',
      'httpd prefix /orders/admin -> billing (replace_prefix) @proxy/httpd.conf:8 | by proxy | owner - | to billing',
      'httpd prefix /orders -> orders (replace_prefix) @proxy/httpd.conf:9 | by proxy | owner - | to orders',
      'httpd prefix /ordersx -> legacy (replace_prefix) @proxy/httpd.conf:10 | by proxy | owner - | to -',
      'httpd regex ^/reports/(.*)$ -> billing (unknown) @proxy/httpd.conf:11 | by proxy | owner - | to billing',
      // audit configures no Consul client: not in the catalog. billing registers as billing-service.
      'httpd prefix /svc/billing-service/ -> billing-service (replace_prefix) @proxy/services.ctmpl:2 | by proxy | owner - | to billing',
      'httpd prefix /svc/orders/ -> orders (replace_prefix) @proxy/services.ctmpl:2 | by proxy | owner - | to orders',
    ]);
    assert.deepEqual(layout.deploymentOnly.map((d) => `${d.name}${d.proxy ? ' (proxy)' : ''}`), ['legacy', 'proxy (proxy)']);
  });

  test('routes: framework httpd, target_services, FORWARDS to what the first matching rule of the virtual host sends on', async () => {
    const { routes, forwards } = proxyGraphOf(await buildEstate(ROOT), 'httpd');
    assert.deepEqual(routes, [
      'proxy ANY /ord/** @proxy/httpd.conf:7 [true] -> billing: ProxyPass http://billing:8080 (ServerName shop.example.com)',
      'proxy ANY /orders/** @proxy/httpd.conf:9 [true] -> orders: ProxyPass http://orders:8080/api (ServerName shop.example.com)',
      'proxy ANY /orders/admin/** @proxy/httpd.conf:8 [true] -> billing: ProxyPass http://billing:8080/admin (ServerName shop.example.com)',
      'proxy ANY /ordersx/** @proxy/httpd.conf:10 [false] -> legacy: ProxyPass http://legacy:9000/ (ServerName shop.example.com)',
      'proxy ANY /svc/billing-service/** @proxy/services.ctmpl:2 [true] -> billing: ProxyPass http://billing-service:8080/',
      'proxy ANY /svc/orders/** @proxy/services.ctmpl:2 [true] -> orders: ProxyPass http://orders:8080/',
      'proxy ANY ~ ^/reports/(.*)$ @proxy/httpd.conf:11 [false] -> billing: ProxyPassMatch http://billing:8080/reports/$1 (ServerName shop.example.com)',
    ]);
    assert.deepEqual(forwards, [
      // /ord does not take /orders/…: it is not the first match there, by segments.
      'proxy ANY /ord/** -> billing GET /admin/invoices',
      'proxy ANY /ord/** -> billing GET /invoices',
      'proxy ANY /ord/** -> billing GET /reports/{id}',
      // /orders/admin/audit (orders /api/admin/audit) is /orders/admin's: billing's, not orders'.
      'proxy ANY /orders/** -> orders GET /api/orders',
      'proxy ANY /orders/** -> orders GET /api/orders/{id}',
      'proxy ANY /orders/admin/** -> billing GET /admin/invoices',
      'proxy ANY /svc/billing-service/** -> billing GET /admin/invoices',
      'proxy ANY /svc/billing-service/** -> billing GET /invoices',
      'proxy ANY /svc/billing-service/** -> billing GET /reports/{id}',
      'proxy ANY /svc/orders/** -> orders GET /admin/stats',
      'proxy ANY /svc/orders/** -> orders GET /api/admin/audit',
      'proxy ANY /svc/orders/** -> orders GET /api/orders',
      'proxy ANY /svc/orders/** -> orders GET /api/orders/{id}',
    ]);
  });
});

describe('wired into the layout: the real estates (read in place)', () => {
  test('ruoyi-cloud: the gateway takes its routes and discovery locator from the Nacos seed, at the row of ruoyi-gateway-dev.yml', { skip: existsSync(RUOYI) ? false : 'the corpora are not on this machine' }, async () => {
    const discovery = await discover(RUOYI);
    assert.ok(discovery.deploymentFiles.includes(RUOYI_SEED));
    assert.deepEqual(discovery.deploymentFiles.filter((f) => f.endsWith('.sql')), [RUOYI_SEED]);
    const layout = detectLayout(discovery, reader(RUOYI));
    assert.deepEqual(layout.warnings, []);
    const gateway = serviceOf(layout, 'ruoyi-gateway');
    const base = 'spring.cloud.gateway.server.webflux';
    assert.deepEqual(configured(gateway, (k) => k.startsWith(`${base}.discovery.`)), {
      [`${base}.discovery.locator.enabled`]: `true @${RUOYI_SEED}:37`,
      [`${base}.discovery.locator.lowerCaseServiceId`]: `true @${RUOYI_SEED}:37`,
    });
    assert.deepEqual(
      gatewayRoutesOf(gateway).map((r) => `${r.id} ${r.path} -> ${r.target} strip ${r.strip} @${r.file}:${r.line}`),
      [
        `ruoyi-auth /auth/** -> ruoyi-auth strip 1 @${RUOYI_SEED}:37`,
        `ruoyi-gen /code/** -> ruoyi-gen strip 1 @${RUOYI_SEED}:37`,
        `ruoyi-job /schedule/** -> ruoyi-job strip 1 @${RUOYI_SEED}:37`,
        `ruoyi-system /system/** -> ruoyi-system strip 1 @${RUOYI_SEED}:37`,
        `ruoyi-file /file/** -> ruoyi-file strip 1 @${RUOYI_SEED}:37`,
      ],
    );
    const rows: Record<string, number> = { 'ruoyi-auth': 38, 'ruoyi-monitor': 39, 'ruoyi-system': 40, 'ruoyi-gen': 41, 'ruoyi-job': 42, 'ruoyi-file': 43, 'ruoyi-gateway': 37 };
    assert.deepEqual(
      Object.fromEntries(layout.services.filter((s) => s.nacosConfigs).map((s) => [s.name, s.nacosConfigs!.map((d) => `${d.dataId}@${d.at}`)])),
      Object.fromEntries(Object.keys(rows).sort().map((name) => [name, [`application-dev.yml@${RUOYI_SEED}:36`, `${name}-dev.yml@${RUOYI_SEED}:${rows[name]}`]])),
    );
    // The seed sets no context path for any service.
    for (const s of layout.services) assert.equal(s.config['server.servlet.context-path'], undefined, s.name);
  });

  test('ewolff-consul: one httpd route per Consul service at 000-default.ctmpl:20, run by the apache compose service, forwarding to all their routes', { skip: existsSync(EWOLFF) ? false : 'the corpora are not on this machine' }, async () => {
    const layout = await layoutOf(EWOLFF);
    assert.deepEqual(layout.warnings, []);
    assert.deepEqual(layout.proxies.map(proxyRow), ['catalog', 'customer', 'order'].map((s) => `httpd prefix /${s} -> ${s} (replace_prefix) @${EWOLFF_TEMPLATE}:20 | by apache | owner - | to ${s}`));
    const built = await buildEstate(EWOLFF);
    const { routes, forwards } = proxyGraphOf(built, 'httpd');
    assert.deepEqual(routes, ['catalog', 'customer', 'order'].map((s) => `apache ANY /${s}/** @${EWOLFF_TEMPLATE}:20 [true] -> ${s}: ProxyPass balancer://${s}`));
    assert.ok(built.nodes.some((n) => n.kind === 'service' && n.name === 'apache' && n.props.name_from === 'deployment'));
    // ProxyPass /<name> balancer://<name> puts every path of the service under /<name>: each declared route is reached,
    // but the actuator's, which a catch-all reaches only incidentally.
    const declared = built.nodes.filter((n) => n.kind === 'route' && n.props.protocol === 'http' && n.props.declared === true && ['catalog', 'customer', 'order'].includes(n.service ?? '') && n.props.framework !== 'httpd' && n.props.framework !== 'actuator');
    assert.ok(declared.length > 0 && built.nodes.some((n) => n.kind === 'route' && n.props.framework === 'actuator' && n.service === 'order'), 'the services serve actuator routes too');
    assert.deepEqual(forwards, declared.map((r) => `apache ANY /${r.service}/** -> ${r.qualified_name}`).sort());
    for (const name of ['catalog GET /{id}.html', 'customer GET /{id}.html', 'order POST /line']) assert.ok(forwards.some((f) => f.endsWith(`-> ${name}`)), name);
  });
});
