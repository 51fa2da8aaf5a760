/**
 * Evaluator rules, on a small estate written here and indexed on this thread: an abstract method called where the
 * object's class is not known takes the values of every override the estate declares (one send per value);
 * `System.getenv(name)` reads the variable the service's deployment sets (compose `environment`); string idioms on
 * URLs (`replaceAll("/$", "")`, `String.join`) edit what is known of the value.
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, before, test } from 'node:test';
import type { NodeRecord } from '../src/graph/types.js';
import { buildEstate, writeEstate } from './helpers/estate.js';

let dir = '';
let nodes: readonly NodeRecord[] = [];

const POM = (name: string, starter: string): string =>
  `<project><modelVersion>4.0.0</modelVersion><groupId>x</groupId><artifactId>${name}</artifactId><version>1</version><dependencies><dependency><groupId>org.springframework.boot</groupId><artifactId>${starter}</artifactId></dependency></dependencies></project>\n`;
const APP = (pkg: string): string => `package ${pkg};\n@org.springframework.boot.autoconfigure.SpringBootApplication\npublic class App {}\n`;

const FILES: Record<string, string> = {
  'orders/pom.xml': POM('orders', 'spring-boot-starter-web'),
  'orders/src/main/resources/application.yml': 'spring.application.name: orders\n',
  'orders/src/main/java/o/App.java': APP('o'),
  'orders/src/main/java/o/Api.java': 'package o;\nimport org.springframework.web.bind.annotation.*;\n@RestController\npublic class Api {\n  @GetMapping("/orders") public String list() { return ""; }\n}\n',
  'events/pom.xml': POM('events', 'spring-kafka'),
  'events/src/main/resources/application.yml': 'spring.application.name: events\n',
  'events/src/main/java/e/App.java': APP('e'),
  'events/src/main/java/e/EventPublisher.java': `package e;
import org.springframework.kafka.core.KafkaTemplate;
public abstract class EventPublisher {
  protected KafkaTemplate<String, String> kafka;
  public void publish(String event) {
    kafka.send(topic(), event);
  }
  protected abstract String topic();
}
`,
  'events/src/main/java/e/OrderEvents.java': 'package e;\n@org.springframework.stereotype.Component\npublic class OrderEvents extends EventPublisher {\n  @Override protected String topic() { return "orders.events"; }\n}\n',
  'events/src/main/java/e/UserEvents.java': 'package e;\n@org.springframework.stereotype.Component\npublic class UserEvents extends EventPublisher {\n  @Override protected String topic() { return "users.events"; }\n}\n',
  'events/src/main/java/e/OrdersClient.java': `package e;
import org.springframework.web.client.RestTemplate;
@org.springframework.stereotype.Component
public class OrdersClient {
  private final RestTemplate rest = new RestTemplate();
  public String orders() {
    return rest.getForObject(System.getenv("ORDERS_URL") + "/orders", String.class);
  }
  private static final String BASE = "http://orders:8080/";
  public String trimmed() {
    return rest.getForObject(BASE.replaceAll("/$", "") + "/orders", String.class);
  }
  public String joined() {
    return rest.getForObject(String.join("/", "http://orders:8080", "orders"), String.class);
  }
  public String partly() {
    return rest.getForObject((System.getProperty("base") + "/").replaceAll("/+$", "") + "/orders", String.class);
  }
  public String named() {
    return rest.getForObject(System.getenv(System.getProperty("which")) + "/orders", String.class);
  }
}
`,
  'docker-compose.yml': 'services:\n  orders:\n    build: orders\n  events:\n    build: events\n    environment:\n      ORDERS_URL: http://orders:8080\n',
};

before(async () => {
  dir = writeEstate(FILES, 'sextant-eval-dispatch-');
  nodes = (await buildEstate(dir)).nodes;
});
after(() => rmSync(dir, { recursive: true, force: true }));

test('an abstract method of the sending class: each override the estate declares, one send per value', () => {
  const sends = nodes.filter((n) => n.kind === 'producer' && String(n.props.caller).includes('EventPublisher#publish('));
  assert.deepEqual(sends.map((n) => `${n.props.destination} ${n.props.resolved}`).sort(), ['orders.events true', 'users.events true']);
});

test('System.getenv reads the variable the deployment sets', () => {
  const clients = nodes.filter((n) => n.kind === 'client' && String(n.props.caller).includes('OrdersClient#orders('));
  assert.deepEqual(clients.map((n) => `${n.qualified_name} (${n.props.match})`), ['events -> orders GET /orders (cross_service)']);
});

test('System.getenv of a name the estate does not state is as unknown as the name', () => {
  const clients = nodes.filter((n) => n.kind === 'client' && String(n.props.caller).includes('OrdersClient#named('));
  assert.deepEqual(clients.map((n) => [n.props.resolved, n.props.unresolved_at, n.props.path]), [[false, 'System.getProperty(…)', 'System.getenv(System.getProperty("which")) + "/orders"']]);
});

test('string idioms on URLs edit what is known: a trailing slash removed, parts joined; a hole keeps the known path', () => {
  const of = (method: string) => nodes.filter((n) => n.kind === 'client' && String(n.props.caller).includes(`OrdersClient#${method}(`)).map((n) => `${n.qualified_name} (${n.props.match})`);
  assert.deepEqual(of('trimmed'), ['events -> orders GET /orders (cross_service)']);
  assert.deepEqual(of('joined'), ['events -> orders GET /orders (cross_service)']);
  const partly = nodes.filter((n) => n.kind === 'client' && String(n.props.caller).includes('OrdersClient#partly('));
  assert.deepEqual(partly.map((n) => [n.props.resolved, n.props.unresolved_at]), [[false, 'System.getProperty(…)']]);
});
