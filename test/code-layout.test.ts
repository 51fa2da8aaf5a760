import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, describe, test } from 'node:test';
import { discover, type DiscoverOptions } from '../src/sources/code/discover.js';
import { readDeployment } from '../src/sources/code/config/deployment.js';
import { detectLayout, HostIndex, type Layout } from '../src/sources/code/config/layout.js';
import { applicationName, parseSpringConfig, resolvePlaceholders } from '../src/sources/code/config/spring-config.js';
import { sharedDir } from './helpers/index.js';

const temps: string[] = [];

after(async () => {
  await Promise.all(temps.map((dir) => rm(dir, { recursive: true, force: true })));
});

/** Writes `files` (posix path → content) under a fresh temp dir, inside a subdir named `name`. */
async function tree(name: string, files: Record<string, string>): Promise<string> {
  const base = await mkdtemp(join(tmpdir(), 'sextant-layout-'));
  temps.push(base);
  const root = join(base, name);
  await mkdir(root, { recursive: true });
  for (const [path, content] of Object.entries(files)) {
    const abs = join(root, path);
    await mkdir(dirname(abs), { recursive: true });
    await writeFile(abs, content);
  }
  return root;
}

async function layoutOf(root: string, options?: DiscoverOptions, deployableDirs?: ReadonlySet<string>): Promise<Layout> {
  const discovery = await discover(root, options);
  const read = (rel: string): string | undefined => (existsSync(join(root, rel)) ? readFileSync(join(root, rel), 'utf8') : undefined);
  return detectLayout(discovery, read, deployableDirs);
}

function summary(layout: Layout): { name: string; dir: string; nameFrom: string; modules: string[] }[] {
  return layout.services.map((s) => ({ name: s.name, dir: s.dir, nameFrom: s.nameFrom, modules: s.modules.map((m) => `${m.name}@${m.dir}`) }));
}

const JAVA = 'package a;\nclass A {}\n';
const DEPLOYMENT_FIXTURES = fileURLToPath(new URL('./fixtures/deployment', import.meta.url));
const CORPORA = join(sharedDir(), 'corpora');

function reader(root: string): (rel: string) => string | undefined {
  return (rel) => (existsSync(join(root, rel)) ? readFileSync(join(root, rel), 'utf8') : undefined);
}
const POM = '<project/>\n';

describe('discover', () => {
  test('finds sources, config and build files, sorted, with size and mtime', async () => {
    const root = await tree('svc', {
      'pom.xml': POM,
      'src/main/java/com/acme/Z.java': JAVA,
      'src/main/java/com/acme/A.java': JAVA,
      'src/main/kotlin/com/acme/K.kt': 'class K\n',
      'src/main/resources/application.yml': 'a: 1\n',
      'src/main/resources/application-dev.properties': 'a=2\n',
      'src/main/resources/bootstrap.yaml': 'a: 3\n',
      'src/main/resources/logback.xml': '<x/>',
      'src/main/resources/archetype/pom.xml': POM,
      'README.md': '# x',
    });
    const d = await discover(root);
    assert.equal(d.root, root);
    assert.deepEqual(
      d.files.map((f) => [f.path, f.language]),
      [
        ['src/main/java/com/acme/A.java', 'java'],
        ['src/main/java/com/acme/Z.java', 'java'],
        ['src/main/kotlin/com/acme/K.kt', 'kotlin'],
      ],
    );
    assert.equal(d.files[0]!.size, JAVA.length);
    assert.ok(d.files[0]!.mtimeMs > 0);
    assert.deepEqual(d.configFiles, [
      'src/main/resources/application-dev.properties',
      'src/main/resources/application.yml',
      'src/main/resources/bootstrap.yaml',
    ]);
    assert.deepEqual(d.buildFiles, ['pom.xml'], 'a pom.xml inside src/ is a resource, not a build unit');
    assert.deepEqual(d.warnings, []);
  });

  test('respects root and nested .gitignore files and .git/info/exclude', async () => {
    const root = await tree('repo', {
      '.gitignore': 'generated/\n*.tmp.java\n',
      '.git/info/exclude': 'secret/\n',
      'src/main/java/A.java': JAVA,
      'src/main/java/B.tmp.java': JAVA,
      'generated/G.java': JAVA,
      'secret/S.java': JAVA,
      'mod/.gitignore': '/Root.java\nlocal/\n!Keep.tmp.java\n',
      'mod/Root.java': JAVA,
      'mod/Keep.tmp.java': JAVA,
      'mod/local/L.java': JAVA,
      'mod/deeper/Root.java': JAVA,
      'other/Root.java': JAVA,
      'other/local/L.java': JAVA,
    });
    const d = await discover(root);
    assert.deepEqual(
      d.files.map((f) => f.path),
      ['mod/Keep.tmp.java', 'mod/deeper/Root.java', 'other/Root.java', 'other/local/L.java', 'src/main/java/A.java'],
    );
    assert.equal(d.skipped.gitignored, 5, 'generated/, secret/, B.tmp.java, mod/Root.java, mod/local/');
  });

  test('exclude patterns are gitignore-style and relative to the root', async () => {
    const root = await tree('repo', {
      'a/A.java': JAVA,
      'b/B.java': JAVA,
      'b/c/C.java': JAVA,
      'd/Skip.java': JAVA,
    });
    const d = await discover(root, { exclude: ['b/c/', 'Skip.java'] });
    assert.deepEqual(
      d.files.map((f) => f.path),
      ['a/A.java', 'b/B.java'],
    );
    assert.equal(d.skipped.excluded, 2);
  });

  test('skips build output beside build files, but not a package folder named build', async () => {
    const root = await tree('estate', {
      'pom.xml': POM,
      'src/main/java/com/acme/build/Builder.java': JAVA,
      'src/main/java/com/acme/target/Aim.java': JAVA,
      'target/generated-sources/annotations/Gen.java': JAVA,
      'bin/Old.java': JAVA,
      'app/build.gradle.kts': '',
      'app/src/main/kotlin/App.kt': 'class App\n',
      'app/build/generated/source/Gen.kt': 'class Gen\n',
      'app/out/production/Out.kt': 'class Out\n',
      'app/bin/main/Bin.kt': 'class Bin\n',
      'tools/build/Gen.java': JAVA,
      'tools/target/classes/Gen.java': JAVA,
      'gen/build/generated/Out.java': JAVA,
      'tools/build/src/main/application.yml': '',
      'legacy/build/src/main/java/Real.java': JAVA,
      'legacy/out/Kept.java': JAVA,
    });
    const d = await discover(root);
    assert.deepEqual(
      d.files.map((f) => f.path),
      [
        'app/src/main/kotlin/App.kt',
        'legacy/build/src/main/java/Real.java',
        'legacy/out/Kept.java',
        'src/main/java/com/acme/build/Builder.java',
        'src/main/java/com/acme/target/Aim.java',
        'tools/build/Gen.java',
      ],
    );
    assert.equal(d.skipped.buildOutput, 7, 'target, bin, app/build, app/out, app/bin, and tools/target + gen/build (no module inside)');
  });

  test('skips test source sets by default and includes them on request; test config is never Spring config', async () => {
    const root = await tree('svc', {
      'build.gradle': '',
      'src/main/java/A.java': JAVA,
      'src/main/java/com/acme/test/Helper.java': JAVA,
      'src/test/java/ATest.java': JAVA,
      'src/test/resources/application.yml': 'x: 1\n',
      'src/integrationTest/java/AIT.java': JAVA,
      'src/testFixtures/java/Fixture.java': JAVA,
      'src/it/java/Smoke.java': JAVA,
      'src/functionalTest/kotlin/F.kt': 'class F\n',
      'src/jvmTest/kotlin/J.kt': 'class J\n',
    });
    const plain = await discover(root);
    assert.deepEqual(
      plain.files.map((f) => f.path),
      ['src/main/java/A.java', 'src/main/java/com/acme/test/Helper.java'],
    );
    assert.equal(plain.skipped.tests, 6, 'one per skipped source-set directory');
    assert.deepEqual(plain.configFiles, []);

    const all = await discover(root, { includeTests: true });
    assert.equal(all.files.length, 8);
    assert.equal(all.skipped.tests, 0);
    assert.deepEqual(all.configFiles, [], 'test resources do not configure the service');
  });

  test('always skips hidden dirs and node_modules, and does not follow symlinked directories', async () => {
    const root = await tree('repo', {
      'src/main/java/A.java': JAVA,
      '.idea/X.java': JAVA,
      '.gradle/Y.java': JAVA,
      'node_modules/pkg/Z.java': JAVA,
      'elsewhere/E.java': JAVA,
    });
    await symlink(join(root, 'elsewhere'), join(root, 'linked'));
    await symlink(join(root, 'src/main/java/A.java'), join(root, 'src/main/java/Alias.java'));
    const d = await discover(root);
    assert.deepEqual(
      d.files.map((f) => f.path),
      ['elsewhere/E.java', 'src/main/java/A.java', 'src/main/java/Alias.java'],
    );
  });

  test('a missing root is an error that names it', async () => {
    await assert.rejects(discover(join(tmpdir(), 'sextant-no-such-dir-xyz')), /not a directory/);
  });
});

describe('detectLayout', () => {
  test('Maven reactor: the service is named from spring.application.name in a child, modules listed', async () => {
    const root = await tree('orders-reactor', {
      'pom.xml': POM,
      'orders-api/pom.xml': POM,
      'orders-api/src/main/java/com/acme/OrderDto.java': JAVA,
      'orders-service/pom.xml': POM,
      'orders-service/src/main/java/com/acme/OrdersApp.java': JAVA,
      'orders-service/src/main/resources/application.yml': 'spring:\n  application:\n    name: orders\n',
      'orders-service/src/main/resources/application-prod.yml': 'spring:\n  application:\n    name: orders-prod\n',
    });
    const layout = await layoutOf(root);
    assert.deepEqual(summary(layout), [
      {
        name: 'orders',
        dir: '',
        nameFrom: 'spring.application.name',
        modules: ['orders-reactor@', 'orders-api@orders-api', 'orders-service@orders-service'],
      },
    ]);
    const [svc] = layout.services;
    assert.equal(svc!.buildTool, 'maven');
    assert.equal(svc!.applicationNameFile, 'orders-service/src/main/resources/application.yml');
    assert.equal(svc!.modules[1]!.buildFile, 'orders-api/pom.xml');
    assert.deepEqual(svc!.configFiles, [
      'orders-service/src/main/resources/application-prod.yml',
      'orders-service/src/main/resources/application.yml',
    ]);
    assert.deepEqual(layout.locate('orders-api/src/main/java/com/acme/OrderDto.java'), { service: 'orders', module: 'orders-api' });
    assert.deepEqual(layout.locate('orders-service/src/main/java/com/acme/OrdersApp.java'), { service: 'orders', module: 'orders-service' });
    assert.deepEqual(layout.warnings, []);
  });

  test('Gradle multi-project in Kotlin DSL', async () => {
    const root = await tree('billing', {
      'settings.gradle.kts': 'rootProject.name = "billing"\ninclude(":app", ":lib")\n',
      'app/build.gradle.kts': 'plugins { id("org.springframework.boot") }\n',
      'app/src/main/kotlin/com/acme/BillingApp.kt': 'class BillingApp\n',
      'app/src/main/resources/application.properties': 'spring.application.name=billing-service\n',
      'app/build/generated/Gen.kt': 'class Gen\n',
      'lib/build.gradle.kts': '',
      'lib/src/main/kotlin/com/acme/Money.kt': 'class Money\n',
    });
    const layout = await layoutOf(root);
    assert.deepEqual(summary(layout), [
      {
        name: 'billing-service',
        dir: '',
        nameFrom: 'spring.application.name',
        modules: ['billing@', 'app@app', 'lib@lib'],
      },
    ]);
    assert.equal(layout.services[0]!.buildTool, 'gradle');
    assert.equal(layout.services[0]!.modules[0]!.buildFile, 'settings.gradle.kts');
    assert.deepEqual(layout.locate('lib/src/main/kotlin/com/acme/Money.kt'), { service: 'billing-service', module: 'lib' });
  });

  test('a single-module service without a name is named after its directory', async () => {
    const root = await tree('inventory', {
      'pom.xml': POM,
      'src/main/java/com/acme/Inventory.java': JAVA,
      'src/main/resources/application.yml': 'server:\n  port: 8080\n',
    });
    const layout = await layoutOf(root);
    assert.deepEqual(summary(layout), [{ name: 'inventory', dir: '', nameFrom: 'directory', modules: ['inventory@'] }]);
    assert.deepEqual(layout.locate('src/main/java/com/acme/Inventory.java'), { service: 'inventory', module: 'inventory' });
  });

  test('an estate root aggregator over two deployable services yields two services (and libraries apart)', async () => {
    const root = await tree('estate', {
      'pom.xml': POM,
      'orders/pom.xml': POM,
      'orders/src/main/java/com/acme/orders/App.java': JAVA,
      'orders/src/main/resources/application.yml': 'spring.application.name: orders-svc\n',
      'billing/pom.xml': POM,
      'billing/billing-core/pom.xml': POM,
      'billing/billing-core/src/main/java/Core.java': JAVA,
      'billing/billing-app/pom.xml': POM,
      'billing/billing-app/src/main/java/App.java': JAVA,
      'billing/billing-app/src/main/resources/application.properties': 'spring.application.name=${BILLING_NAME:billing-svc}\n',
      'common/pom.xml': POM,
      'common/src/main/java/Util.java': JAVA,
    });
    const layout = await layoutOf(root);
    assert.deepEqual(summary(layout), [
      {
        name: 'billing-svc',
        dir: 'billing',
        nameFrom: 'spring.application.name',
        modules: ['billing@billing', 'billing-app@billing/billing-app', 'billing-core@billing/billing-core'],
      },
      { name: 'common', dir: 'common', nameFrom: 'directory', modules: ['common@common'] },
      { name: 'orders-svc', dir: 'orders', nameFrom: 'spring.application.name', modules: ['orders@orders'] },
    ]);
    assert.deepEqual(layout.locate('billing/billing-core/src/main/java/Core.java'), { service: 'billing-svc', module: 'billing-core' });
    assert.deepEqual(layout.locate('orders/src/main/java/com/acme/orders/App.java'), { service: 'orders-svc', module: 'orders' });
  });

  test('SPRING_CONFIG_LOCATION read through compose bind mounts: later files win, profile variants, the name they set; the service\'s own files under them', async () => {
    const root = await tree('estate', {
      'pom.xml': POM,
      'product/pom.xml': POM,
      'product/src/main/java/p/App.java': JAVA,
      'product/src/main/resources/application.yml': 'server.port: 8080\nown.key: mine\n',
      'review/pom.xml': POM,
      'review/src/main/java/r/App.java': JAVA,
      'review/src/main/resources/application.yml': 'spring.application.name: review\n',
      'config-repo/application.yml': 'shared.key: everyone\nserver.port: 7000\n',
      'config-repo/product.yml': 'spring.application.name: product\nserver.port: 7001\n',
      'config-repo/product-docker.yml': 'server.port: 8081\n',
      'docker-compose.yml': [
        'services:',
        '  product:',
        '    build: product',
        '    environment:',
        '      - SPRING_PROFILES_ACTIVE=docker',
        '      - SPRING_CONFIG_LOCATION=file:/config-repo/application.yml,file:/config-repo/product.yml',
        '    volumes:',
        '      - ./config-repo:/config-repo',
        '',
      ].join('\n'),
    });
    const layout = await layoutOf(root);
    const product = layout.services.find((s) => s.dir === 'product')!;
    assert.equal(product.name, 'product', 'the name product.yml sets');
    assert.equal(product.config['shared.key'], 'everyone');
    assert.equal(product.config['own.key'], 'mine', "the service's own files stay under them");
    assert.equal(product.config['server.port'], '7001', 'the later location wins');
    assert.equal(product.configOrigins?.['server.port'], 'config-repo/product.yml');
    assert.equal(product.profiles.docker?.['server.port'], '8081', 'product-docker.yml is the docker profile');
  });

  test('@SpringBootApplication dirs mark deployables when there is no config', async () => {
    const root = await tree('estate', {
      'settings.gradle': '',
      'a/build.gradle': '',
      'a/src/main/java/a/AApp.java': JAVA,
      'b/build.gradle': '',
      'b/src/main/java/b/BApp.java': JAVA,
    });
    const one = await layoutOf(root);
    assert.deepEqual(one.services.map((s) => s.name), ['estate']);
    const two = await layoutOf(root, {}, new Set(['a/src/main/java/a', 'b/src/main/java/b']));
    assert.deepEqual(two.services.map((s) => [s.name, s.dir]), [['a', 'a'], ['b', 'b']]);
  });

  test('the same service name twice is disambiguated by directory, with a warning', async () => {
    const root = await tree('estate', {
      'one/pom.xml': POM,
      'one/src/main/java/A.java': JAVA,
      'one/src/main/resources/application.yml': 'spring.application.name: gateway\n',
      'two/pom.xml': POM,
      'two/src/main/java/B.java': JAVA,
      'two/src/main/resources/bootstrap.yml': 'spring.application.name: gateway\n',
    });
    const layout = await layoutOf(root);
    assert.deepEqual(layout.services.map((s) => s.name), ['gateway (one)', 'gateway (two)']);
    assert.equal(layout.warnings.length, 1);
    assert.match(layout.warnings[0]!, /"gateway".*one, two/);
    assert.deepEqual(layout.locate('two/src/main/java/B.java'), { service: 'gateway (two)', module: 'two' });
  });

  test('files under no build unit: one service per top-level dir, or the root', async () => {
    const several = await tree('scripts', {
      'alpha/src/A.java': JAVA,
      'beta/B.kt': 'class B\n',
      'Root.java': JAVA,
    });
    const layout = await layoutOf(several);
    assert.deepEqual(summary(layout), [
      { name: 'alpha', dir: 'alpha', nameFrom: 'directory', modules: ['alpha@alpha'] },
      { name: 'beta', dir: 'beta', nameFrom: 'directory', modules: ['beta@beta'] },
      { name: 'scripts', dir: '', nameFrom: 'directory', modules: ['scripts@'] },
    ]);
    assert.deepEqual(layout.locate('alpha/src/A.java'), { service: 'alpha', module: 'alpha' });
    assert.equal(layout.services[0]!.buildTool, 'none');

    const single = await tree('plain', { 'src/main/java/A.java': JAVA, 'src/main/resources/application.yml': 'spring.application.name: plainsvc\n' });
    const one = await layoutOf(single);
    assert.deepEqual(summary(one), [{ name: 'plainsvc', dir: '', nameFrom: 'spring.application.name', modules: ['plainsvc@'] }]);
    assert.deepEqual(one.locate('src/main/java/A.java'), { service: 'plainsvc', module: 'plainsvc' });
  });

  test('malformed or unreadable config becomes a warning, never a throw', async () => {
    const root = await tree('broken', {
      'pom.xml': POM,
      'src/main/java/A.java': JAVA,
      'src/main/resources/application.yml': 'spring:\n  application: [\n    name: x\n',
    });
    const discovery = await discover(root);
    const layout = detectLayout(discovery, (rel) => (rel.endsWith('.yml') ? readFileSync(join(root, rel), 'utf8') : undefined));
    assert.equal(layout.services[0]!.name, 'broken');
    assert.equal(layout.services[0]!.nameFrom, 'directory');
    assert.equal(layout.warnings.length, 1);
    assert.match(layout.warnings[0]!, /application\.yml:\d+: malformed YAML/);

    const unreadable = detectLayout(discovery, () => {
      throw new Error('EACCES');
    });
    assert.deepEqual(unreadable.warnings, ['cannot read src/main/resources/application.yml']);
  });

  test('locate is cached per directory and normalises the path it is given', async () => {
    const root = await tree('svc', { 'pom.xml': POM, 'src/main/java/A.java': JAVA });
    const layout = await layoutOf(root);
    const a = layout.locate('src/main/java/A.java');
    assert.equal(layout.locate('./src/main/java/B.java'), a);
    assert.deepEqual(layout.locate('Top.java'), { service: 'svc', module: 'svc' });
  });
});

describe('host names, ports and deployment-only services', () => {
  test('Kubernetes DNS: a Service with a namespace answers as name, name.ns, name.ns.svc, name.ns.svc.cluster.local; without one, in any namespace', () => {
    const d = readDeployment(['k8s-ingress/app.yaml'], reader(DEPLOYMENT_FIXTURES));
    const index = new HostIndex(d.units.map((u) => ({ name: u.name, hosts: u.hosts, dnsNames: u.dnsNames ?? [] })));
    const ask = (hosts: string[]) => Object.fromEntries(hosts.map((h) => [h, index.get(h) ?? null]));
    assert.deepEqual(ask(['web-svc', 'web-svc.shop', 'WEB-SVC.shop.svc', 'web-svc.shop.svc.cluster.local', 'web-svc.other', 'web-svc.other.svc.cluster.local', 'shop.acme.org', 'web-svc.shop.svc.example.org']), {
      'web-svc': 'web',
      'web-svc.shop': 'web',
      'WEB-SVC.shop.svc': 'web',
      'web-svc.shop.svc.cluster.local': 'web',
      'web-svc.other': null,
      'web-svc.other.svc.cluster.local': null,
      'shop.acme.org': 'web',
      'web-svc.shop.svc.example.org': null,
    });
    assert.deepEqual(ask(['api', 'api.obaas-dev', 'api.prod.svc', 'api.prod.svc.cluster.local', 'api.com', 'api.a.b', 'api.Bad_Ns']), {
      api: 'api',
      'api.obaas-dev': 'api',
      'api.prod.svc': 'api',
      'api.prod.svc.cluster.local': 'api',
      'api.com': null,
      'api.a.b': null,
      'api.Bad_Ns': null,
    });
    assert.equal(index.has('api.staging'), true);
    assert.deepEqual([...index.keys()], ['api', 'legacy.acme.org', 'shop.acme.org', 'web', 'web-svc', 'web-svc.shop', 'web-svc.shop.svc', 'web-svc.shop.svc.cluster.local', 'web.shop', 'web.shop.svc', 'web.shop.svc.cluster.local', 'www.acme.org'], 'the explicit forms, for callers that iterate');
    const two = new HostIndex([{ name: 'a', hosts: [], dnsNames: [{ name: 'x' }] }, { name: 'b', hosts: [], dnsNames: [{ name: 'x', namespace: 'n' }] }]);
    assert.equal(two.get('x.n'), 'b', 'the namespaced claim is explicit');
    assert.equal(two.get('x.m'), 'a');
    assert.equal(two.get('x'), undefined, 'claimed by both');
  });

  test('a host an environment states in full belongs to the one owner whose host template it fills in, the same hole with the same text', () => {
    const index = new HostIndex([
      { name: 'payments', hosts: [], hostTemplates: ['payments-${.values.global.environment}.service.core-${.values.global.environment}.internal'] },
      { name: 'processor', hosts: [], hostTemplates: ['processor-${.values.global.environment}.service.core-${.values.global.environment}.internal', '${.release.name}.internal'] },
    ]);
    const ask = (hosts: string[]) => Object.fromEntries(hosts.map((h) => [h, index.get(h) ?? null]));
    assert.deepEqual(ask(['payments-aat.service.core-aat.internal', 'PROCESSOR-prod.service.core-prod.internal', 'payments-aat.service.core-prod.internal', 'anything.internal', 'payments-a.b.service.core-a.b.internal']), {
      'payments-aat.service.core-aat.internal': 'payments',
      'PROCESSOR-prod.service.core-prod.internal': 'processor',
      'payments-aat.service.core-prod.internal': null,
      'anything.internal': null,
      'payments-a.b.service.core-a.b.internal': null,
    });
  });

  test('ports: server.port of each profile, and the host ports compose publishes; deployment-only units by name, proxies marked (compose-estate)', async () => {
    const root = join(DEPLOYMENT_FIXTURES, 'compose-estate');
    const layout = detectLayout(await discover(root), reader(root));
    assert.deepEqual(layout.warnings, []);
    assert.deepEqual(layout.services.map((s) => [s.name, s.ports]), [
      [
        'shop',
        [
          { port: 8081, how: 'server.port', at: 'shop/src/main/resources/application.properties' },
          { port: 9090, how: 'server.port', at: 'shop/src/main/resources/application-docker.properties', profile: 'docker' },
          { port: 8099, how: 'published', at: 'docker-compose.yml:2' },
          { port: 9001, how: 'published', at: 'docker-compose.yml:2' },
          { port: 9002, how: 'published', at: 'docker-compose.yml:2' },
          { port: 8443, how: 'published', at: 'docker-compose.yml:2' },
        ],
      ],
    ]);
    assert.deepEqual(layout.deploymentOnly, [
      { name: 'iam-service', hosts: ['iam'], images: [], file: 'docker-compose.yml', line: 17, units: ['docker-compose.yml#iam'], ports: [9000] },
      { name: 'payment', hosts: ['payment', 'payment-svc'], images: ['acme/payment:1.0'], file: 'docker-compose.yml', line: 21, units: ['docker-compose.yml#payment'], ports: [8001] },
      { name: 'postgres', hosts: ['postgres'], images: ['postgres:16'], file: 'docker-compose.yml', line: 26, units: ['docker-compose.yml#postgres'] },
      { name: 'proxy', hosts: ['proxy'], images: ['nginx:1.25'], file: 'docker-compose.yml', line: 30, units: ['docker-compose.yml#proxy'], proxy: true },
    ]);
    assert.equal(layout.serviceOfHost('payment-svc'), undefined, 'deployment-only names are not services');
  });

  test('a multi-module build that a deployment builds from its root is one service, however many modules carry configuration', async () => {
    const files = {
      'settings.gradle': "include 'main', 'lib'\n",
      'main/build.gradle': '',
      'main/src/main/java/a/App.java': JAVA,
      'main/src/main/resources/application.properties': 'spring.application.name=orders\n',
      'lib/build.gradle': '',
      'lib/src/main/java/a/Lib.java': JAVA,
      'lib/src/main/resources/application.properties': 'lib.timeout=5\n',
    };
    assert.deepEqual(summary(await layoutOf(await tree('agg', files))).map((s) => s.name), ['lib', 'orders'], 'configuration alone marks both modules');
    const built = await layoutOf(await tree('agg', { ...files, 'docker-compose.yml': 'services:\n  orders:\n    build:\n      context: .\n      dockerfile: Dockerfile\n' }));
    assert.deepEqual(summary(built), [{ name: 'orders', dir: '', nameFrom: 'spring.application.name', modules: ['agg@', 'lib@lib', 'main@main'] }]);
    assert.deepEqual(built.services[0]!.hosts, ['orders']);
  });
});

const corpora = ['cloudbank', 'hmpps-nomis-sync', 'sock-shop', 'realguardio', 'nav-familie-ef'].every((e) => existsSync(join(CORPORA, e)));

describe('real estates: hosts, ports, deployment-only services (../shared/corpora)', { skip: corpora ? false : 'the corpora are not on this machine' }, () => {
  const real = async (estate: string): Promise<Layout> => {
    const root = join(CORPORA, estate);
    return detectLayout(await discover(root), reader(root));
  };

  test('cloudbank: Helm fullnameOverride names the Service; account.obaas-dev and transfer.obaas-dev (namespace given at install) name account and transfer', async () => {
    const layout = await real('cloudbank');
    assert.deepEqual(
      Object.fromEntries(layout.services.filter((s) => s.dnsNames).map((s) => [s.name, s.dnsNames])),
      { account: [{ name: 'account' }], checks: [{ name: 'checks' }], creditscore: [{ name: 'creditscore' }], customer: [{ name: 'customer' }], testrunner: [{ name: 'testrunner' }], transfer: [{ name: 'transfer' }] },
    );
    const transfer = layout.services.find((s) => s.name === 'transfer')!;
    const hosts = [...new Set(Object.values(transfer.config).flatMap((v) => /^https?:\/\/([^/:]+)/.exec(v)?.[1] ?? []))].sort();
    assert.deepEqual(Object.fromEntries(hosts.map((h) => [h, layout.serviceOfHost(h) ?? null])), { 'account.obaas-dev': 'account', 'transfer.obaas-dev': 'transfer' });
  });

  test('hmpps-nomis-sync: each API listens on 8080 and on the host ports its own and the sync service\'s compose files publish', async () => {
    const layout = await real('hmpps-nomis-sync');
    assert.deepEqual(Object.fromEntries(layout.services.map((s) => [s.name, s.ports?.map((p) => `${p.port} ${p.how} @${p.at}`)])), {
      'hmpps-nomis-mapping-service': ['8080 server.port @hmpps-nomis-mapping-service/docker-compose.yml:13', '8081 published @hmpps-nomis-mapping-service/docker-compose.yml:2', '8084 published @hmpps-prisoner-to-nomis-update/docker-compose.yml:51'],
      'hmpps-nomis-prisoner-api': ['8080 server.port @hmpps-nomis-prisoner-api/docker-compose.yml:12', '8081 published @hmpps-nomis-prisoner-api/docker-compose.yml:2', '8082 published @hmpps-prisoner-to-nomis-update/docker-compose.yml:34'],
      'hmpps-prisoner-to-nomis-update': ['8080 server.port @hmpps-prisoner-to-nomis-update/docker-compose.yml:13', '8081 published @hmpps-prisoner-to-nomis-update/docker-compose.yml:2'],
    });
    const on = (port: number) => layout.services.filter((s) => s.ports?.some((p) => p.port === port)).map((s) => s.name);
    assert.deepEqual(on(8082), ['hmpps-nomis-prisoner-api'], 'application-dev.yml: api.base.url.nomis = http://localhost:8082');
    assert.deepEqual(on(8084), ['hmpps-nomis-mapping-service'], 'application-dev.yml: api.base.url.mapping = http://localhost:8084');
    assert.deepEqual(layout.deploymentOnly.map((c) => [c.name, c.ports]), [['hmpps-auth', [9090, 8090]], ['localstack', [4566]], ['localstack-external', [4566]], ['mapping-db', [5432]]]);
  });

  test('deployment-only services: images the estate does not build (payment, catalogue, familie-brev, iam-service), infrastructure alike', async () => {
    const names = async (estate: string) => (await real(estate)).deploymentOnly.map((c) => c.name);
    assert.deepEqual(await names('sock-shop'), ['alertmanager', 'carts-db', 'catalogue', 'catalogue-db', 'edge-router', 'elasticsearch', 'front-end', 'grafana', 'importer', 'kibana', 'log-server', 'nodeexporter', 'orders-db', 'payment', 'prometheus', 'rabbitmq', 'session-db', 'user', 'user-db', 'user-sim', 'zipkin']);
    assert.deepEqual(await names('nav-familie-ef'), ['familie-brev', 'postgres']);
    const realguardio = await real('realguardio');
    assert.deepEqual(realguardio.deploymentOnly.map((c) => c.name), ['cdc', 'customer-service-db', 'iam-service', 'jaeger', 'kafka', 'orchestration-service-db', 'oso-service', 'realguardio-bff', 'security-system-service-db']);
    assert.equal(realguardio.serviceOfHost('realguardio-customer-service'), 'customer-service', 'its Dockerfile sits at the root of its multi-module build');
    const iam = realguardio.deploymentOnly.find((c) => c.name === 'iam-service')!;
    assert.deepEqual([iam.hosts, iam.ports, iam.units], [['realguardio-iam-service'], [9000], ['docker-compose.yaml#realguardio-iam-service']], 'named by realguardio-iam-service/application.yaml, which its image is built with');
    const payment = (await real('sock-shop')).deploymentOnly.find((c) => c.name === 'payment')!;
    assert.deepEqual([payment.hosts, payment.dnsNames, payment.units], [
      ['payment'],
      [{ name: 'payment', namespace: 'sock-shop' }],
      ['microservices-demo/deploy/docker-compose/docker-compose.yml#payment', 'microservices-demo/deploy/kubernetes/complete-demo.yaml#Deployment/sock-shop/payment/payment', 'microservices-demo/deploy/kubernetes/manifests/15-payment-dep.yaml#Deployment/sock-shop/payment/payment'],
    ]);
  });
});

describe('parseSpringConfig', () => {
  test('YAML multi-document files: on-profile and legacy spring.profiles documents get their profile', () => {
    const text = [
      'spring:',
      '  application:',
      '    name: orders',
      'server:',
      '  port: 8080',
      'app:',
      '  hosts: [a, b]',
      '  ratio: 0.10',
      '  flag: yes',
      '  empty:',
      '  nothing: ~',
      '  map:',
      '    "[x.y]": 1',
      '---',
      'spring:',
      '  config:',
      '    activate:',
      '      on-profile: dev',
      'server.port: 8081',
      '---',
      'spring:',
      '  profiles: prod',
      'server:',
      '  port: 80',
      '---',
      'spring.config.activate.on-profile: dev',
      'extra: true',
      '---',
    ].join('\n');
    const warnings: string[] = [];
    const files = parseSpringConfig('src/main/resources/application.yml', text, warnings);
    assert.deepEqual(warnings, []);
    assert.deepEqual(
      files.map((f) => [f.profile, f.kind]),
      [
        [null, 'application'],
        ['dev', 'application'],
        ['prod', 'application'],
      ],
    );
    const base = files[0]!.values;
    assert.equal(base.get('spring.application.name'), 'orders');
    assert.equal(base.get('server.port'), '8080');
    assert.equal(base.get('app.hosts[0]'), 'a');
    assert.equal(base.get('app.hosts[1]'), 'b');
    assert.equal(base.get('app.ratio'), '0.10', 'scalars keep their text');
    assert.equal(base.get('app.flag'), 'yes');
    assert.equal(base.get('app.empty'), '');
    assert.equal(base.get('app.nothing'), '');
    assert.equal(base.get('app.map[x.y]'), '1');
    assert.equal(files[1]!.values.get('server.port'), '8081');
    assert.equal(files[1]!.values.get('extra'), 'true', 'documents of the same profile merge');
    assert.equal(files[2]!.values.get('server.port'), '80');
  });

  test('file-name profiles, bootstrap files, and profile documents inside a profile file', () => {
    const warnings: string[] = [];
    const dev = parseSpringConfig('config/bootstrap-dev.yaml', 'a: 1\n---\nspring.config.activate.on-profile: cloud\nb: 2\n', warnings);
    assert.deepEqual(
      dev.map((f) => [f.kind, f.profile]),
      [
        ['bootstrap', 'dev'],
        ['bootstrap', 'dev&cloud'],
      ],
    );
    const empty = parseSpringConfig('application.yml', '', warnings);
    assert.deepEqual(
      empty.map((f) => [f.profile, f.values.size]),
      [[null, 0]],
    );
    assert.deepEqual(warnings, []);
  });

  test('malformed YAML: the broken document is skipped with a warning, the rest still parse', () => {
    const warnings: string[] = [];
    const files = parseSpringConfig('application.yml', 'a: 1\n---\nb: [\nc: d\n---\nspring.profiles: x\ne: *missing\n---\n- a list\n', warnings);
    assert.deepEqual(
      files.map((f) => [f.profile, [...f.values]]),
      [[null, [['a', '1']]]],
    );
    assert.equal(warnings.length, 3);
    assert.match(warnings[0]!, /^application\.yml:4: malformed YAML/);
    assert.match(warnings[1]!, /^application\.yml:7: malformed YAML \(the alias \*missing refers to no anchor/);
    assert.match(warnings[2]!, /^application\.yml:9: a configuration document must be a mapping/);
  });

  test('.properties follows java.util.Properties rules', () => {
    const text = [
      '# comment',
      '  ! another comment',
      '',
      'a=1',
      'b : 2',
      'c 3',
      'd\t=\t4  ',
      'e:=5',
      'f',
      'g = one \\',
      '    two \\',
      '\tthree',
      'h = ends with backslash \\\\',
      'i = next',
      'key\\ with\\:odd\\=chars = v',
      'j = caf\\u00e9 \\t tab \\n nl \\q',
      'k = \\uZZZZ',
      'l = #not a comment',
      'm = a \\',
      '# not a comment either',
      'n=\\',
      '',
      'o=last',
      'a=override',
    ].join('\r\n');
    const warnings: string[] = [];
    const [file] = parseSpringConfig('application.properties', text, warnings);
    const v = file!.values;
    assert.equal(v.get('a'), 'override');
    assert.equal(v.get('b'), '2');
    assert.equal(v.get('c'), '3');
    assert.equal(v.get('d'), '4  ');
    assert.equal(v.get('e'), '=5');
    assert.equal(v.get('f'), '');
    assert.equal(v.get('g'), 'one two three');
    assert.equal(v.get('h'), 'ends with backslash \\');
    assert.equal(v.get('i'), 'next');
    assert.equal(v.get('key with:odd=chars'), 'v');
    assert.equal(v.get('j'), 'café \t tab \n nl q');
    assert.equal(v.get('k'), '\\uZZZZ');
    assert.equal(v.get('l'), '#not a comment');
    assert.equal(v.get('m'), 'a # not a comment either');
    assert.equal(v.get('n'), '');
    assert.equal(v.get('o'), 'last');
    assert.equal(warnings.length, 1);
    assert.match(warnings[0]!, /malformed \\uxxxx/);
  });

  test('.properties multi-document files (#---) with on-profile', () => {
    const text = 'spring.application.name=svc\n#---\nspring.config.activate.on-profile=dev\nx=1\n!---\nspring.config.activate.on-profile=prod\nx=2\n';
    const files = parseSpringConfig('application.properties', text, []);
    assert.deepEqual(
      files.map((f) => [f.profile, f.values.get('x') ?? f.values.get('spring.application.name')]),
      [
        [null, 'svc'],
        ['dev', '1'],
        ['prod', '2'],
      ],
    );
  });
});

describe('applicationName', () => {
  const file = (path: string, text: string) => parseSpringConfig(path, text, []);

  test('default application beats default bootstrap; profile files never name the service', () => {
    const files = [
      ...file('bootstrap.yml', 'spring.application.name: from-bootstrap\n'),
      ...file('application-dev.yml', 'spring.application.name: from-dev\n'),
      ...file('application.yml', 'spring.application.name: from-application\n---\nspring.config.activate.on-profile: x\nspring.application.name: from-doc\n'),
    ];
    assert.deepEqual(applicationName(files), { name: 'from-application', file: 'application.yml' });
    assert.deepEqual(applicationName(files.filter((f) => f.path !== 'application.yml')), { name: 'from-bootstrap', file: 'bootstrap.yml' });
    assert.equal(applicationName(file('application-dev.yml', 'spring.application.name: x\n')), undefined);
  });

  test('placeholders: literal defaults and same-file keys resolve, unknown ones are ignored', () => {
    assert.equal(applicationName(file('application.yml', 'spring.application.name: ${APP_NAME:orders}\n'))?.name, 'orders');
    assert.equal(applicationName(file('application.yml', 'spring.application.name: ${A:${B:nested}}-svc\n'))?.name, 'nested-svc');
    assert.equal(applicationName(file('application.yml', 'svc: pay\nspring.application.name: ${svc}-api\n'))?.name, 'pay-api');
    assert.equal(applicationName(file('application.yml', 'spring.application.name: ${APP_NAME}\n')), undefined);
    assert.deepEqual(
      applicationName([...file('a/application.yml', 'spring.application.name: ${X}\n'), ...file('b/application.yml', 'spring.application.name: fallback\n')]),
      { name: 'fallback', file: 'b/application.yml' },
    );
    assert.equal(resolvePlaceholders('${a}', new Map([['a', '${a}']])), undefined, 'cycles end');
    assert.equal(resolvePlaceholders('${unclosed', new Map()), undefined);
  });
});
