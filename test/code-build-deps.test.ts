/**
 * What a service is built on: the dependencies its Maven and Gradle build files declare (versions resolved from
 * properties, parents, dependencyManagement, platforms and version catalogs in the estate, or absent with the
 * reason) and the configuration keys it reads (file, line, profile, origin; secret values never stored). Checked on
 * the real estates in ../shared/corpora (read in place) and on our Gradle fixture (Groovy, Kotlin DSL, a version
 * catalog), through the MCP client over stdio: exact sets read off the build and configuration files, and the
 * questions an agent asks ("is there a Redis cache anywhere?", "which services use Kafka?", "where is X set?").
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { sextantOntology } from '../src/graph/ontology/index.js';
import { openTestStore } from './helpers/store.js';
import { buildWorkspace } from '../src/indexer/build.js';
import { secretReason, configEntries } from '../src/sources/code/config/config-keys.js';
import { parseScript, parseToml, parseXml } from '../src/sources/code/build/syntax.js';
import { callTool, closeSession, indexInto, killAll, openSession, type Session, tempDir } from './helpers/e2e.js';
import { estateSource } from './helpers/estate.js';
import { sharedDir } from './helpers/index.js';

const CORPORA = join(sharedDir(), 'corpora');
const PETCLINIC = join(CORPORA, 'spring-petclinic-microservices');
const PIGGY = join(CORPORA, 'piggymetrics');
const GRADLE = fileURLToPath(new URL('./fixtures/gradle', import.meta.url));
const available = existsSync(PETCLINIC) && existsSync(PIGGY);

async function ask(client: Client, tool: string, args: Record<string, unknown>): Promise<Record<string, any>> {
  const { body } = await callTool(client, tool, args);
  assert.equal(body.ok, true, `${tool} ${JSON.stringify(args)}: ${JSON.stringify(body).slice(0, 600)}`);
  return body;
}

async function serviceId(client: Client, name: string): Promise<string> {
  const found = await ask(client, 'find', { kind: 'service', filter: { name } });
  assert.equal(found.total, 1, `service ${name}`);
  return found.results[0].id;
}

/** A service's DEPENDS_ON targets as `group:artifact scope [version] (via)`. */
async function dependencies(client: Client, service: string): Promise<string[]> {
  const edges = await ask(client, 'neighbors', { ids: [await serviceId(client, service)], direction: 'out', edge_types: ['DEPENDS_ON'], limit: 200 });
  assert.equal(edges.has_more, false);
  return edges.edges.map((e: any) => `${e.other.qualified_name} ${e.attrs.scope}${e.other.attributes.version ? ` ${e.other.attributes.version}` : ''} (${e.attrs.via})`).sort();
}

/** A service's READS_CONFIG targets as `file:line [profile] key = value | <secret>`. */
async function configKeys(client: Client, service: string): Promise<string[]> {
  const edges = await ask(client, 'neighbors', { ids: [await serviceId(client, service)], direction: 'out', edge_types: ['READS_CONFIG'], limit: 200 });
  assert.equal(edges.has_more, false);
  return edges.edges.map((e: any) => keyLine(e.other)).sort();
}

function keyLine(n: any): string {
  const a = n.attributes;
  return `${n.file}:${n.line}${a.profile ? ` [${a.profile}]` : ''} ${n.name} = ${a.secret ? '<secret>' : a.value}`;
}

/** One dependency node's full record, found by file and group:artifact. */
async function dependency(client: Client, file: string, qn: string, scope?: string): Promise<Record<string, any>> {
  const found = await ask(client, 'find', { kind: 'dependency', filter: { file, qualified_name: qn, ...(scope ? { scope } : {}) } });
  assert.equal(found.total, 1, `${file} ${qn}`);
  return (await ask(client, 'describe', { id: found.results[0].id })).node.properties;
}

/** Every file the store directory holds (the index, its WAL, caches), as text. */
function storeBytes(dir: string): string {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => readFileSync(join(e.parentPath, e.name)).toString('latin1'))
    .join('\n');
}

after(killAll);

describe('build dependencies and configuration keys on the real estates', { skip: available ? false : 'the corpora are not on this machine' }, () => {
  let petStore = '';
  let piggyStore = '';
  let pet: Session | undefined;
  let piggy: Session | undefined;

  before(async () => {
    petStore = await tempDir('sextant-deps-pet-');
    piggyStore = await tempDir('sextant-deps-piggy-');
    await Promise.all([indexInto(PETCLINIC, petStore), indexInto(PIGGY, piggyStore)]);
    pet = await openSession('stdio', petStore);
    piggy = await openSession('stdio', piggyStore);
  });
  after(async () => {
    await closeSession(pet);
    await closeSession(piggy);
  });

  test('petclinic customers-service: its pom.xml dependencies, and the parent BOM and parent it inherits', async () => {
    assert.deepEqual(await dependencies(pet!.conn.client, 'customers-service'), [
      'com.mysql:mysql-connector-j runtime (declared)',
      'de.codecentric:chaos-monkey-spring-boot compile 3.1.0 (declared)',
      'io.micrometer:micrometer-registry-prometheus compile (declared)',
      'net.ttddyy.observation:datasource-micrometer-spring-boot compile 2.0.1 (declared)',
      'org.assertj:assertj-core test (declared)',
      'org.hsqldb:hsqldb runtime (declared)',
      'org.jolokia:jolokia-core compile 1.7.1 (declared)',
      'org.junit.jupiter:junit-jupiter-api test (declared)',
      'org.junit.jupiter:junit-jupiter-engine test (declared)',
      'org.springframework.boot:spring-boot-starter-actuator compile (declared)',
      'org.springframework.boot:spring-boot-starter-data-jpa compile (declared)',
      'org.springframework.boot:spring-boot-starter-parent parent 4.0.1 (parent)',
      'org.springframework.boot:spring-boot-starter-test test (declared)',
      'org.springframework.boot:spring-boot-starter-webmvc compile (declared)',
      'org.springframework.boot:spring-boot-starter-webmvc-test test (declared)',
      'org.springframework.boot:spring-boot-starter-zipkin compile (declared)',
      'org.springframework.cloud:spring-cloud-dependencies import 2025.1.0 (parent)',
      'org.springframework.cloud:spring-cloud-starter-config compile (declared)',
      'org.springframework.cloud:spring-cloud-starter-netflix-eureka-client compile (declared)',
    ]);
  });

  test('petclinic versions: from the parent\'s dependencyManagement and properties, else absent with the BOMs that manage them', async () => {
    const client = pet!.conn.client;
    const jolokia = await dependency(client, 'spring-petclinic-customers-service/pom.xml', 'org.jolokia:jolokia-core');
    // <jolokia-core.version>1.7.1 at pom.xml:34, used by the dependencyManagement entry at pom.xml:64.
    assert.equal(jolokia.version, '1.7.1');
    assert.deepEqual(jolokia.version_from, ['pom.xml:64', 'pom.xml:34']);
    const cloud = await dependency(client, 'pom.xml', 'org.springframework.cloud:spring-cloud-dependencies');
    assert.equal(cloud.version, '2025.1.0');
    assert.equal(cloud.version_written, '${spring-cloud.version}');
    assert.deepEqual(cloud.version_from, ['pom.xml:32']);
    assert.equal(cloud.platform, true);
    const actuator = await dependency(client, 'spring-petclinic-customers-service/pom.xml', 'org.springframework.boot:spring-boot-starter-actuator');
    assert.equal(actuator.version, undefined);
    assert.deepEqual(actuator.managed_by, ['org.springframework.cloud:spring-cloud-dependencies:2025.1.0', 'org.springframework.boot:spring-boot-starter-parent:4.0.1']);
    assert.match(actuator.version_unresolved_reason, /outside the estate/);
  });

  test('petclinic customers-service configuration keys: file, line and profile', async () => {
    const f = 'spring-petclinic-customers-service/src/main/resources/application.yml';
    assert.deepEqual(await configKeys(pet!.conn.client, 'customers-service'), [
      `${f}:12 [docker] spring.config.activate.on-profile = docker`,
      `${f}:13 [docker] spring.config.import = configserver:http://config-server:8888`,
      `${f}:3 spring.application.name = customers-service`,
      `${f}:5 spring.config.import = optional:configserver:\${CONFIG_SERVER_URL:http://localhost:8888/}`,
    ]);
  });

  test('piggymetrics account-service: its pom.xml dependencies, and the parent BOM and parent it inherits', async () => {
    assert.deepEqual(await dependencies(piggy!.conn.client, 'account-service'), [
      'com.jayway.jsonpath:json-path test 2.2.0 (declared)',
      'de.flapdoodle.embed:de.flapdoodle.embed.mongo test 1.50.3 (declared)',
      'org.springframework.boot:spring-boot-starter-actuator compile (declared)',
      'org.springframework.boot:spring-boot-starter-data-mongodb compile (declared)',
      'org.springframework.boot:spring-boot-starter-parent parent 2.0.3.RELEASE (parent)',
      'org.springframework.boot:spring-boot-starter-security compile (declared)',
      'org.springframework.boot:spring-boot-starter-test test (declared)',
      'org.springframework.boot:spring-boot-starter-web compile (declared)',
      'org.springframework.cloud:spring-cloud-dependencies import Finchley.RELEASE (parent)',
      'org.springframework.cloud:spring-cloud-netflix-hystrix-stream compile (declared)',
      'org.springframework.cloud:spring-cloud-starter-bus-amqp compile (declared)',
      'org.springframework.cloud:spring-cloud-starter-config compile (declared)',
      'org.springframework.cloud:spring-cloud-starter-netflix-eureka-client compile (declared)',
      'org.springframework.cloud:spring-cloud-starter-netflix-hystrix compile (declared)',
      'org.springframework.cloud:spring-cloud-starter-oauth2 compile (declared)',
      'org.springframework.cloud:spring-cloud-starter-openfeign compile (declared)',
      'org.springframework.cloud:spring-cloud-starter-sleuth compile (declared)',
    ]);
    const cloud = await dependency(piggy!.conn.client, 'pom.xml', 'org.springframework.cloud:spring-cloud-dependencies');
    assert.equal(cloud.version, 'Finchley.RELEASE');
    assert.deepEqual(cloud.version_from, ['pom.xml:20']);
  });

  test('piggymetrics account-service configuration: its bootstrap.yml, the config server\'s shared files, and its compose environment', async () => {
    const own = 'account-service/src/main/resources/bootstrap.yml';
    const mine = 'config/src/main/resources/shared/account-service.yml';
    const all = 'config/src/main/resources/shared/application.yml';
    assert.deepEqual(
      await configKeys(piggy!.conn.client, 'account-service'),
      [
        `${own}:3 spring.application.name = account-service`,
        `${own}:6 spring.cloud.config.uri = http://config:8888`,
        `${own}:7 spring.cloud.config.fail-fast = true`,
        `${own}:8 spring.cloud.config.password = <secret>`,
        `${own}:9 spring.cloud.config.username = user`,
        `${all}:3 logging.level.org.springframework.security = INFO`,
        `${all}:11 hystrix.command.default.execution.isolation.thread.timeoutInMilliseconds = 10000`,
        `${all}:15 eureka.instance.prefer-ip-address = true`,
        `${all}:18 eureka.client.serviceUrl.defaultZone = http://registry:8761/eureka/`,
        `${all}:23 security.oauth2.resource.user-info-uri = http://auth-service:5000/uaa/users/current`,
        `${all}:27 spring.rabbitmq.host = rabbitmq`,
        `${mine}:4 security.oauth2.client.clientId = account-service`,
        `${mine}:5 security.oauth2.client.clientSecret = <secret>`,
        `${mine}:6 security.oauth2.client.accessTokenUri = http://auth-service:5000/uaa/oauth/token`,
        `${mine}:7 security.oauth2.client.grant-type = client_credentials`,
        `${mine}:8 security.oauth2.client.scope = server`,
        `${mine}:13 spring.data.mongodb.host = account-mongodb`,
        `${mine}:14 spring.data.mongodb.username = user`,
        `${mine}:15 spring.data.mongodb.password = <secret>`,
        `${mine}:16 spring.data.mongodb.database = piggymetrics`,
        `${mine}:17 spring.data.mongodb.port = 27017`,
        `${mine}:21 server.servlet.context-path = /accounts`,
        `${mine}:22 server.port = 6000`,
        `${mine}:26 feign.hystrix.enabled = true`,
        'docker-compose.yml:82 config.service.password = <secret>',
        'docker-compose.yml:83 account.service.password = <secret>',
        'docker-compose.yml:84 mongodb.password = <secret>',
      ].sort(),
    );
    const shared = await ask(piggy!.conn.client, 'find', { kind: 'config_key', filter: { file: mine, key: 'server.servlet.context-path' } });
    assert.equal(shared.results[0].service, 'account-service');
    assert.equal(shared.results[0].attributes.origin, 'config_server');
    const secret = (await ask(piggy!.conn.client, 'describe', { id: (await ask(piggy!.conn.client, 'find', { kind: 'config_key', filter: { file: mine, key: 'spring.data.mongodb.password' } })).results[0].id })).node.properties;
    assert.equal(secret.secret, true);
    assert.equal(secret.value, undefined);
    assert.deepEqual(secret.references, ['MONGODB_PASSWORD'], 'the variable a secret comes from is named, its value never');
  });

  test('no secret value is stored: piggymetrics\' mail password is absent from the index bytes', async () => {
    // config/src/main/resources/shared/notification-service.yml:40 `password: dev-password`.
    assert.ok(readFileSync(join(PIGGY, 'config/src/main/resources/shared/notification-service.yml'), 'utf8').includes('password: dev-password'));
    const mail = await ask(piggy!.conn.client, 'find', { kind: 'config_key', filter: { key: 'spring.mail.password' } });
    assert.equal(mail.total, 1);
    assert.equal(mail.results[0].line, 40);
    assert.equal(mail.results[0].attributes.secret, true);
    assert.equal(mail.results[0].attributes.value, undefined);
    const bytes = storeBytes(piggyStore);
    assert.ok(!bytes.includes('dev-password'), 'dev-password is not in the index');
    // Nor in an answer that reads the indexed file at answer time.
    const described = await ask(piggy!.conn.client, 'describe', { id: mail.results[0].id, source: 'full' });
    assert.ok(!JSON.stringify(described).includes('dev-password'), JSON.stringify(described.node.code));
    // A value next to it that is not secret is kept, so the check above is not vacuous.
    assert.ok(bytes.includes('smtp.gmail.com'));
  });

  test('is there a Redis cache anywhere? a definite no on both estates, and the caches petclinic does have', async () => {
    for (const s of [pet!, piggy!]) {
      const deps = await ask(s.conn.client, 'find', { kind: 'dependency', filter: { artifact_contains: 'redis' } });
      assert.equal(deps.total, 0);
      assert.match(deps.absence.reason, /no dependency has artifact_contains = "redis"/);
      assert.ok(deps.absence.nodes_of_kind > 0, 'dependencies are indexed: the empty answer is about redis');
      assert.equal((await ask(s.conn.client, 'find', { kind: 'config_key', filter: { key_prefix: 'spring.data.redis' } })).total, 0);
      assert.equal((await ask(s.conn.client, 'find', { kind: 'config_key', filter: { key: 'spring.cache.type' } })).total, 0);
    }
    const caches = await ask(pet!.conn.client, 'find', { kind: 'dependency', filter: { artifact: 'spring-boot-starter-cache' } });
    assert.deepEqual(caches.results.map((n: any) => n.service).sort(), ['admin-server', 'api-gateway', 'genai-service', 'vets-service']);
  });

  test('which services use Kafka? none; RabbitMQ: the bus and stream starters of four piggymetrics services', async () => {
    for (const s of [pet!, piggy!]) assert.equal((await ask(s.conn.client, 'find', { kind: 'dependency', filter: { artifact_contains: 'kafka' } })).total, 0);
    const rabbit = [];
    for (const text of ['amqp', 'rabbit']) rabbit.push(...(await ask(piggy!.conn.client, 'find', { kind: 'dependency', filter: { artifact_contains: text } })).results);
    assert.deepEqual(rabbit.map((n: any) => `${n.service} ${n.name}`).sort(), [
      'account-service spring-cloud-starter-bus-amqp',
      'notification-service spring-cloud-starter-bus-amqp',
      'statistics-service spring-cloud-starter-bus-amqp',
      'turbine-stream-service spring-cloud-starter-stream-rabbit',
    ]);
  });

  test('where is spring.rabbitmq.host set? once, in the config server\'s shared application.yml, for every client', async () => {
    const found = await ask(piggy!.conn.client, 'find', { kind: 'config_key', filter: { key: 'spring.rabbitmq.host' } });
    assert.deepEqual(found.results.map(keyLine), ['config/src/main/resources/shared/application.yml:27 spring.rabbitmq.host = rabbitmq']);
    const readers = await ask(piggy!.conn.client, 'neighbors', { ids: [found.results[0].id], direction: 'in', edge_types: ['READS_CONFIG'] });
    assert.deepEqual(readers.edges.map((e: any) => e.other.name).sort(), ['account-service', 'auth-service', 'gateway', 'monitoring', 'notification-service', 'registry', 'statistics-service', 'turbine-stream-service']);
  });
});

describe('build dependencies and configuration keys of a Gradle estate (Groovy, Kotlin DSL, version catalog)', () => {
  let store = '';
  let s: Session | undefined;
  before(async () => {
    store = await tempDir('sextant-deps-gradle-');
    await indexInto(GRADLE, store);
    s = await openSession('stdio', store);
  });
  after(() => closeSession(s));

  test('catalog-service (Kotlin DSL): catalog aliases and bundles, platform constraints, gradle.properties, extra, kotlin(), the subprojects block', async () => {
    assert.deepEqual(await dependencies(s!.conn.client, 'catalog-service'), [
      'com.acme.shop:common compile 2.0.0 (declared)',
      'com.acme.shop:platform compile 2.0.0 (declared)',
      'com.fasterxml.jackson.core:jackson-databind compile 2.17.1 (declared)',
      'org.apache.kafka:kafka-clients compile 3.7.0 (declared)',
      'org.jetbrains.kotlin:kotlin-reflect compile 1.9.24 (declared)',
      'org.junit.jupiter:junit-jupiter test 5.10.2 (parent)',
      'org.postgresql:postgresql runtime 42.7.3 (declared)',
      'org.springframework.boot:spring-boot-devtools development (declared)',
      'org.springframework.boot:spring-boot-starter-cache compile (declared)',
      'org.springframework.boot:spring-boot-starter-data-redis compile (declared)',
      'org.springframework.cloud:spring-cloud-dependencies import 2023.0.2 (declared)',
      'org.springframework.kafka:spring-kafka compile 3.2.1 (declared)',
      'org.testcontainers:kafka test 1.19.8 (declared)',
    ]);
    const c = s!.conn.client;
    const f = 'catalog-service/build.gradle.kts';
    assert.deepEqual((await dependency(c, f, 'com.fasterxml.jackson.core:jackson-databind')).version_from, ['platform/build.gradle.kts:7'], 'from the java-platform project\'s constraint');
    assert.deepEqual((await dependency(c, f, 'org.apache.kafka:kafka-clients')).version_from, ['gradle/libs.versions.toml:3'], 'version.ref to a strictly version');
    const tc = await dependency(c, f, 'org.testcontainers:kafka');
    assert.deepEqual([tc.version_written, tc.version_from], ['$testcontainersVersion', ['catalog-service/build.gradle.kts:7', 'gradle.properties:2']]);
    const pg = await dependency(c, f, 'org.postgresql:postgresql');
    assert.deepEqual([pg.version_written, pg.version_from], ['${libs.versions.postgres.get()}', ['gradle/libs.versions.toml:2']]);
    assert.deepEqual((await dependency(c, f, 'org.springframework.cloud:spring-cloud-dependencies')).version_from, ['catalog-service/build.gradle.kts:8'], 'extra["springCloudVersion"]');
    const redis = await dependency(c, f, 'org.springframework.boot:spring-boot-starter-data-redis');
    assert.equal(redis.version, undefined);
    assert.equal(redis.version_written, 'libs.spring.boot.starter.data.redis');
    assert.deepEqual(redis.managed_by, ['org.springframework.cloud:spring-cloud-dependencies:2023.0.2', 'org.springframework.boot:spring-boot-dependencies:3.3.1'], 'the BOM it imports, and the Boot plugin\'s BOM (dependency-management applied, version from the root plugins block)');
    const common = await dependency(c, f, 'com.acme.shop:common');
    assert.deepEqual([common.internal, common.built_by], [true, 'common']);
  });

  test('order-service (Groovy): string, map and GString notations, ext, catalog platform, lombok twice, a closure', async () => {
    assert.deepEqual(await dependencies(s!.conn.client, 'order-service'), [
      'com.acme.shop:common compile 2.0.0 (declared)',
      'io.github.resilience4j:resilience4j-spring-boot3 compile 2.2.0 (declared)',
      'io.grpc:grpc-bom compile 1.64.0 (declared)',
      'org.apache.commons:commons-lang3 compile 3.14.0 (declared)',
      'org.junit.jupiter:junit-jupiter test 5.10.2 (parent)',
      'org.projectlombok:lombok annotation_processor 1.18.32 (declared)',
      'org.projectlombok:lombok provided 1.18.32 (declared)',
      'org.springframework.boot:spring-boot-starter-test test (declared)',
      'org.springframework.boot:spring-boot-starter-web compile (declared)',
      'org.springframework.cloud:spring-cloud-dependencies import 2023.0.2 (declared)',
      'org.springframework.kafka:spring-kafka compile (declared)',
    ]);
    const c = s!.conn.client;
    const lombok = await dependency(c, 'order-service/build.gradle', 'org.projectlombok:lombok', 'annotation_processor');
    assert.deepEqual([lombok.configuration, lombok.version_written, lombok.version_from], ['annotationProcessor', '$lombokVersion', ['order-service/build.gradle:9']]);
    const grpc = await dependency(c, 'order-service/build.gradle', 'io.grpc:grpc-bom');
    assert.equal(grpc.platform, true);
  });

  test('configuration keys: YAML documents and profiles, a profile properties file, the compose environment; secrets withheld', async () => {
    const y = 'catalog-service/src/main/resources/application.yml';
    assert.deepEqual(await configKeys(s!.conn.client, 'catalog-service'), [
      `${y}:3 spring.application.name = catalog-service`,
      `${y}:5 spring.cache.type = redis`,
      `${y}:8 spring.data.redis.host = localhost`,
      `${y}:9 spring.data.redis.port = 6379`,
      `${y}:10 spring.data.redis.password = <secret>`,
      `${y}:12 spring.kafka.bootstrap-servers = localhost:9092`,
      `${y}:15 catalog.feed.url = <secret>`,
      `${y}:17 catalog.pricing.token-uri = https://auth.example.com/oauth/token`,
      `${y}:18 catalog.pricing.signing-key = <secret>`,
      `${y}:23 [docker] spring.config.activate.on-profile = docker`,
      `${y}:26 [docker] spring.data.redis.host = redis`,
      'catalog-service/src/main/resources/application-prod.properties:2 [prod] spring.kafka.bootstrap-servers = kafka-1:9092,kafka-2:9092',
      'catalog-service/src/main/resources/application-prod.properties:3 [prod] catalog.feed.refresh = PT5M',
      'docker-compose.yml:5 spring.profiles.active = docker',
      'docker-compose.yml:6 spring.data.redis.host = redis',
    ].sort());
    const url = await ask(s!.conn.client, 'find', { kind: 'config_key', filter: { key: 'catalog.feed.url' } });
    assert.equal((await ask(s!.conn.client, 'describe', { id: url.results[0].id })).node.properties.secret_reason, 'the value is a URL with a password in it');
    const bytes = storeBytes(store);
    for (const secret of ['catalog-redis-pw', 'feed-pass-123', 'orders-db-pw', 'local-signing-key']) assert.ok(!bytes.includes(secret), `${secret} is not in the index`);
    assert.ok(bytes.includes('api.yas.local'), 'values that are not secret are stored');
  });

  test('is there a Redis cache anywhere? the starter in catalog-service, its keys, and search ranks the dependency first', async () => {
    const c = s!.conn.client;
    const deps = await ask(c, 'find', { kind: 'dependency', filter: { artifact_contains: 'redis' } });
    assert.deepEqual(deps.results.map((n: any) => `${n.service} ${n.qualified_name}`), ['catalog-service org.springframework.boot:spring-boot-starter-data-redis']);
    const keys = await ask(c, 'find', { kind: 'config_key', filter: { key_prefix: 'spring.data.redis' } });
    assert.deepEqual(keys.results.map(keyLine).sort(), [
      'catalog-service/src/main/resources/application.yml:10 spring.data.redis.password = <secret>',
      'catalog-service/src/main/resources/application.yml:26 [docker] spring.data.redis.host = redis',
      'catalog-service/src/main/resources/application.yml:8 spring.data.redis.host = localhost',
      'catalog-service/src/main/resources/application.yml:9 spring.data.redis.port = 6379',
      'docker-compose.yml:6 spring.data.redis.host = redis',
    ]);
    assert.deepEqual((await ask(c, 'find', { kind: 'config_key', filter: { key: 'spring.cache.type' } })).results.map(keyLine), ['catalog-service/src/main/resources/application.yml:5 spring.cache.type = redis']);
    const searched = await ask(c, 'search', { query: 'redis' });
    assert.equal(searched.results[0].node.qualified_name, 'org.springframework.boot:spring-boot-starter-data-redis', 'above the RedisCacheConfig class and the keys');
    assert.ok(searched.results.some((r: any) => r.node.kind === 'config_key'));
  });

  test('which services use Kafka? the services that depend on a kafka artifact, through DEPENDS_ON', async () => {
    const c = s!.conn.client;
    const deps = await ask(c, 'find', { kind: 'dependency', filter: { artifact_contains: 'kafka', exclude_scope: ['test'] } });
    const users = await ask(c, 'neighbors', { ids: deps.results.map((n: any) => n.id), direction: 'in', edge_types: ['DEPENDS_ON'] });
    assert.deepEqual([...new Set(users.edges.map((e: any) => e.other.name))].sort(), ['catalog-service', 'order-service']);
    assert.deepEqual(deps.results.map((n: any) => `${n.service} ${n.name}`).sort(), ['catalog-service kafka-clients', 'catalog-service spring-kafka', 'order-service spring-kafka']);
  });

  test('where is yas.services.product set? in order-service\'s properties and, overriding it, its compose environment', async () => {
    const c = s!.conn.client;
    const found = await ask(c, 'find', { kind: 'config_key', filter: { key: 'yas.services.product' } });
    assert.deepEqual(found.results.map(keyLine).sort(), ['docker-compose.yml:11 yas.services.product = http://product-service/product', 'order-service/src/main/resources/application.properties:2 yas.services.product = http://api.yas.local/product']);
    const fromFile = found.results.find((n: any) => n.file.endsWith('.properties'));
    const edge = await ask(c, 'neighbors', { ids: [fromFile.id], direction: 'in', edge_types: ['READS_CONFIG'] });
    assert.deepEqual(edge.edges.map((e: any) => [e.other.name, e.attrs.overridden_by]), [['order-service', 'docker-compose.yml:11']]);
    const env = found.results.find((n: any) => n.file === 'docker-compose.yml');
    assert.deepEqual([env.attributes.origin, env.attributes.env_var], ['deployment', 'YAS_SERVICES_PRODUCT']);
  });
});

describe('build files the reader cannot fully read', () => {
  test('a broken pom, an unbalanced Gradle script and a malformed catalog are warnings; the rest is indexed', async () => {
    const root = mkdtempSync(join(tmpdir(), 'sextant-broken-build-'));
    const store = mkdtempSync(join(tmpdir(), 'sextant-broken-store-'));
    try {
      const write = (rel: string, text: string) => {
        mkdirSync(join(root, rel, '..'), { recursive: true });
        writeFileSync(join(root, rel), text);
      };
      write('a/pom.xml', '<project><artifactId>a</artifactId><dependencies><dependency><groupId>g</groupId><artifactId>x</artifactId><version>1</version></dependency>\n');
      write('a/src/main/java/a/A.java', 'package a;\n@org.springframework.boot.autoconfigure.SpringBootApplication\npublic class A {}\n');
      write('b/build.gradle', 'dependencies {\n  implementation "g:y:2"\n  implementation(\n');
      write('b/gradle/libs.versions.toml', '[libraries]\nbad = { module = "g:z", version = \n');
      write('b/settings.gradle', 'rootProject.name = "b"\n');
      write('b/src/main/java/b/B.java', 'package b;\n@org.springframework.boot.autoconfigure.SpringBootApplication\npublic class B {}\n');
      const ontology = sextantOntology();
      const writer = await openTestStore(ontology, store, { mode: 'write' });
      const report = await buildWorkspace(writer, ontology, { dir: root, sources: [estateSource(root)] });
      await writer.close();
      const warnings = report.sources[0]!.warnings ?? [];
      assert.ok(warnings.some((w) => /^a\/pom\.xml: cannot read the pom \(<dependencies> is never closed/.test(w)), warnings.join('\n'));
      assert.ok(warnings.some((w) => /^b\/gradle\/libs\.versions\.toml: line 2: unreadable value of bad/.test(w)), warnings.join('\n'));
      const reader = await openTestStore(ontology, store, { mode: 'read' });
      try {
        const { nodes } = await reader.findNodes({ kinds: ['dependency'], predicates: [], limit: 50, offset: 0 });
        assert.deepEqual(nodes.map((n) => `${n.file}:${n.line} ${n.qualified_name} ${n.props.version}`).sort(), ['a/pom.xml:1 g:x 1', 'b/build.gradle:2 g:y 2']);
      } finally {
        await reader.close();
      }
    } finally {
      rmSync(root, { recursive: true, force: true });
      rmSync(store, { recursive: true, force: true });
    }
  });

  test('the readers stop at what they cannot read, without throwing', () => {
    assert.match(parseXml('<project><a></b></project>').error!, /end tag <\/b> does not close <a> at line 1/);
    assert.equal(parseXml('').error, 'no document element');
    assert.deepEqual(parseToml('[versions]\nx = "1"\n[[bad\n').errors, ['line 3: malformed table header']);
    // Unbalanced braces, stray closers, unterminated strings: statements as far as they go.
    for (const text of ['dependencies {', '}}} implementation "a:b:1"', 'x = "unterminated\ny = 1', 'a(((((', '"${'.repeat(200)]) assert.ok(Array.isArray(parseScript(text)));
  });
});

describe('which configuration values are secret (the declarative table)', () => {
  const cases: [string, string, boolean][] = [
    ['spring.datasource.password', 'x', true],
    ['spring.security.oauth2.client.registration.app.client-secret', 'x', true],
    ['security.oauth2.client.clientSecret', '${X}', true],
    ['jwt.token', 'x', true],
    ['app.api-key', 'x', true],
    ['encrypt.key', 'x', true],
    ['aws.credentials.access-key', 'x', true],
    ['app.secrets.db', 'x', true],
    ['spring.kafka.properties.sasl.jaas.config', 'x', true],
    ['spring.datasource.url', 'jdbc:postgresql://h/db?user=u&password=p1', true],
    ['feed.url', 'https://user:pw@host/x', true],
    ['auth.header', 'Bearer abcdefghijklmnopqrstuvwxyz', true],
    ['github', 'ghp_abcdefghijklmnopqrstuvwxyz0123456789', true],
    ['random', 'Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MGFiY2RlZg', true],
    ['security.oauth2.client.accessTokenUri', 'http://auth-service:5000/uaa/oauth/token', false],
    ['security.oauth2.client.grant-type', 'client_credentials', false],
    ['spring.data.mongodb.username', 'user', false],
    ['spring.rabbitmq.template.routing-key', 'orders', false],
    ['server.ssl.key-store', 'classpath:keystore.p12', false],
    ['spring.kafka.producer.key-serializer', 'org.apache.kafka.common.serialization.StringSerializer', false],
    ['spring.datasource.url', 'jdbc:postgresql://localhost:5432/orders', false],
    ['eureka.client.serviceUrl.defaultZone', 'http://registry:8761/eureka/', false],
  ];
  for (const [key, value, secret] of cases) test(`${key} = ${value}: ${secret ? 'withheld' : 'kept'}`, () => assert.equal(secretReason(key, value) !== undefined, secret));

  test('YAML keys carry the line they are written on, merged keys and profile documents included', () => {
    const entries = configEntries('application.yml', 'base: &b\n  host: h\n  port: 1\nsvc:\n  <<: *b\n  port: 2\n---\nspring.config.activate.on-profile: dev\nsvc:\n  port: 3\n');
    assert.deepEqual(entries.map((e) => `${e.line} ${e.profile ?? '-'} ${e.key}=${e.value}`), ['2 - base.host=h', '2 - svc.host=h', '3 - base.port=1', '6 - svc.port=2', '8 dev spring.config.activate.on-profile=dev', '10 dev svc.port=3']);
  });
});
