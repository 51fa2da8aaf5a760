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
import { HTTPD_FILES, isHttpdFile, mentionsHttpdProxy, readHttpd } from '../src/sources/code/config/httpd.js';
import { isNacosSeedFile, mentionsNacosConfig, type NacosConfig, nacosConfigFor, readNacosSeed } from '../src/sources/code/config/nacos.js';
import type { ProxyRule } from '../src/sources/code/config/deployment.js';
import { applicationName, parseSpringConfig } from '../src/sources/code/config/spring-config.js';
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
