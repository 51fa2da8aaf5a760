/**
 * Gateways and reverse proxies as routes, on test/fixtures/gateways: a Spring Cloud Gateway `RouteLocatorBuilder`
 * Java DSL (Path with StripPrefix, a RewritePath prefix swap, a Host predicate to an external URL), a YAML route
 * with RewritePath, the discovery locator, an nginx `location … proxy_pass` the compose file mounts into a proxy container, and web-bff
 * calling through the gateway by its service name, by the host name compose gives it, through the nginx host, and
 * through a base URL only docker-compose.yml sets, and through client interfaces code builds on a base URL
 * (HttpServiceProxyFactory, Feign.builder()). Exact sets through `sextant call`, and `trace` across the hop.
 */
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import type { NodeRecord } from '../src/graph/types.js';
import { forwardReaches, literalSegments } from '../src/sources/code/links/gateways.js';
import { indexInto, jsonOf, killAll, runCli, tempDir } from './helpers/e2e.js';

const GATEWAYS = fileURLToPath(new URL('./fixtures/gateways', import.meta.url));
let storeDir: string;

before(async () => {
  storeDir = await tempDir('sextant-gateways-');
  await indexInto(GATEWAYS, storeDir);
});
after(killAll);

async function cli(tool: string, args: Record<string, unknown>): Promise<Record<string, any>> {
  const r = await runCli(['call', tool, JSON.stringify(args), '--store', storeDir]);
  assert.equal(r.code, 0, r.stderr + r.stdout);
  return jsonOf(r);
}

async function pairs(kind: string, type: string): Promise<string[]> {
  const found = await cli('find', { kind, limit: 500 });
  const r = await cli('neighbors', { ids: found.results.map((n: any) => n.id), direction: 'out', edge_types: [type], limit: 500 });
  const byId = new Map(found.results.map((n: any) => [n.id, n]));
  return r.edges.map((e: any) => `${(byId.get(e.from) as any).qualified_name} => ${e.other.qualified_name} (${e.attrs.strategy}${e.attrs.match ? `, ${e.attrs.match}` : ''})`).sort();
}

describe('gateways and proxies', () => {
  test('gateway and proxy routes: the Java DSL, YAML RewritePath and nginx locations', async () => {
    const found = await cli('find', { kind: 'route', filter: { framework: ['spring_cloud_gateway', 'nginx'] }, limit: 100 });
    assert.deepEqual(found.results.map((n: any) => `${n.qualified_name} [${n.attributes.framework}] ${n.attributes.gateway_target} ${n.file}`).sort(), [
      'edge ANY /api/orders/** [spring_cloud_gateway] lb://order-service (StripPrefix=1) edge/src/main/java/com/acme/edge/EdgeRoutes.java',
      // The discovery locator: one route per other service of the estate, its id as the prefix.
      'edge ANY /customer-service/** [spring_cloud_gateway] lb://customer-service (RewritePath=/customer-service/ -> /) edge/src/main/resources/application.yml',
      'edge ANY /customers-api/** [spring_cloud_gateway] lb://customer-service (RewritePath=/customers-api/ -> /) edge/src/main/java/com/acme/edge/EdgeRoutes.java',
      'edge ANY /legacy/** [spring_cloud_gateway] http://legacy.example.org (Host=legacy.example.org) edge/src/main/java/com/acme/edge/EdgeRoutes.java',
      'edge ANY /order-service/** [spring_cloud_gateway] lb://order-service (RewritePath=/order-service/ -> /) edge/src/main/resources/application.yml',
      'edge ANY /pay/** [spring_cloud_gateway] lb://payment-service (RewritePath=/pay/ -> /payments/) edge/src/main/resources/application.yml',
      'edge ANY /payment-service/** [spring_cloud_gateway] lb://payment-service (RewritePath=/payment-service/ -> /) edge/src/main/resources/application.yml',
      'edge ANY /web-bff/** [spring_cloud_gateway] lb://web-bff (RewritePath=/web-bff/ -> /) edge/src/main/resources/application.yml',
      'proxy ANY /shop/** [nginx] proxy_pass http://order-service:8080/ (server_name www.shop.local) nginx/nginx.conf',
    ]);
  });

  test('each forwards to the routes a request through it lands on', async () => {
    assert.deepEqual(await pairs('route', 'FORWARDS'), [
      'edge ANY /api/orders/** => order-service GET /orders/{id} (gateway_route)',
      'edge ANY /api/orders/** => order-service POST /orders (gateway_route)',
      'edge ANY /customer-service/** => customer-service GET /customers/{id} (gateway_route)',
      'edge ANY /customer-service/** => customer-service POST /customers (gateway_route)',
      'edge ANY /customers-api/** => customer-service GET /customers/{id} (gateway_route)',
      'edge ANY /customers-api/** => customer-service POST /customers (gateway_route)',
      'edge ANY /order-service/** => order-service GET /orders/{id} (gateway_route)',
      'edge ANY /order-service/** => order-service POST /orders (gateway_route)',
      // /pay/x becomes /payments/x: POST /payments (no trailing segment) is out of its reach.
      'edge ANY /pay/** => payment-service GET /payments/{id} (gateway_route)',
      'edge ANY /payment-service/** => payment-service GET /payments/{id} (gateway_route)',
      'edge ANY /payment-service/** => payment-service POST /payments (gateway_route)',
      'proxy ANY /shop/** => order-service GET /orders/{id} (proxy_location)',
      'proxy ANY /shop/** => order-service POST /orders (proxy_location)',
    ]);
  });

  test('clients calling through a gateway or proxy host reach its route', async () => {
    assert.deepEqual(await pairs('client', 'HTTP_CALLS'), [
      'web-bff -> api.local GET /customers-api/customers/{id} => edge ANY /customers-api/** (gateway_path, cross_service)',
      'web-bff -> edge GET /api/orders/{id} => edge ANY /api/orders/** (gateway_path, cross_service)',
      'web-bff -> edge GET /pay/{id} => edge ANY /pay/** (gateway_path, cross_service)',
      'web-bff -> edge GET /payment-service/payments/{id} => edge ANY /payment-service/** (gateway_path, cross_service)',
      // An @HttpExchange interface built by HttpServiceProxyFactory on a RestClient's base URL, and an OpenFeign
      // @RequestLine interface targeted by Feign.builder(): each call lands on its route directly.
      'web-bff -> order-service GET /orders/{id} => order-service GET /orders/{id} (service_method_path, cross_service)',
      'web-bff -> payment-service GET /payments/{id} => payment-service GET /payments/{id} (service_method_path, cross_service)',
      'web-bff -> www.shop.local GET /shop/orders/{id} => proxy ANY /shop/** (gateway_path, cross_service)',
    ]);
    const payment = await cli('find', { kind: 'client', filter: { caller: 'com.acme.bff.ShopClient#payment(String)' } });
    assert.deepEqual(payment.results[0].attributes.value_from, ['docker-compose.yml:16: payments.url']);
  });

  test('services carry the hosts the deployment gives them; the proxy is a service of its own', async () => {
    const found = await cli('find', { kind: 'service', limit: 100 });
    assert.deepEqual(found.results.map((n: any) => `${n.name} ${n.attributes.name_from} ${(n.attributes.hosts ?? []).join(',')}`).sort(), [
      'customer-service spring.application.name customer-service',
      'edge spring.application.name api.local,edge',
      'order-service spring.application.name order-service',
      'payment-service spring.application.name payment-service',
      'proxy deployment proxy,www.shop.local',
      'web-bff spring.application.name web-bff',
    ]);
  });

  test('trace goes through the gateway hop to the handler', async () => {
    const from = await cli('resolve', { identifier: 'com.acme.bff.ShopClient#customer(String)' });
    const to = await cli('resolve', { identifier: 'com.acme.customers.CustomersController#find(String)' });
    const r = await cli('trace', { from: from.node.id, to: to.node.id });
    assert.deepEqual(r.paths[0].services, ['web-bff', 'edge', 'customer-service']);
    assert.deepEqual(
      r.paths[0].hops.map((h: any) => h.edge_type),
      ['DECLARES_CLIENT', 'HTTP_CALLS', 'FORWARDS', 'EXPOSES'],
    );
  });
});

test('a gateway reaches actuator routes only when its literal path names the actuator, never on the management port', () => {
  const route = (path: string, props: Record<string, unknown> = {}): NodeRecord => ({ id: path, kind: 'route', name: path, qualified_name: path, source: 's', props: { path, framework: 'actuator', ...props } });
  const health = route('/accounts/actuator/health', { context_path: '/accounts' });
  assert.equal(forwardReaches(health, '/accounts/actuator/health', literalSegments('/accounts/**')), false, 'a catch-all');
  assert.equal(forwardReaches(health, '/accounts/actuator/health', literalSegments('/accounts/actuator/**')), true);
  assert.equal(forwardReaches(health, '/accounts/actuator/health', literalSegments('/accounts/actuator/health')), true, 'a path without wildcard is literal to its end');
  assert.equal(forwardReaches(route('/actuator/health'), '/api/vet/actuator/health', literalSegments('/api/vet/actuator/*')), true);
  assert.equal(forwardReaches(route('/actuator/health'), '/api/vet/actuator/health', literalSegments('/api/vet/act*/**')), false, 'a segment cut by a wildcard is not literal');
  assert.equal(forwardReaches(route('/actuator/health', { management_port: '9090' }), '/actuator/health', literalSegments('/actuator/**')), false, 'on management.server.port');
  assert.equal(forwardReaches({ ...health, props: { ...health.props, framework: 'spring_mvc' } }, '/accounts/actuator/health', literalSegments('/accounts/**')), true, 'an application route');
});
