/**
 * Values a function argument's parameters are given, one rule per test, on a small estate written here and indexed
 * on this thread: the library table says what a call gives its function (`lambda_args`: an Optional's or a
 * collection's elements, both Optionals of `Optionals.mapIfAllPresent`), so a lambda parameter used in a call holds
 * those values, a method reference passed there is called with them, and a stream pipeline over a configured list
 * carries each element (`containers.mappings[0]`, …) to the getter that reads it; Kotlin's scope functions give `it`
 * their receiver. A lambda passed to a method no row describes keeps its parameter a hole, named as written.
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import type { NodeRecord } from '../src/graph/types.js';
import { buildEstate, writeEstate } from './helpers/estate.js';

let dir = '';
let nodes: readonly NodeRecord[] = [];

const BUILD = 'plugins { id("org.springframework.boot") }\ndependencies { implementation("org.springframework.boot:spring-boot-starter-web") }\n';
const J = 'src/main/java/p/';

const FILES: Record<string, string> = {
  'orders/build.gradle.kts': BUILD,
  'orders/src/main/resources/application.yml': 'spring.application.name: orders\n',
  [`orders/${J}App.java`]: 'package p;\n@org.springframework.boot.autoconfigure.SpringBootApplication\npublic class App {}\n',
  [`orders/${J}OrdersController.java`]: `package p;
import org.springframework.web.bind.annotation.*;
@RestController
public class OrdersController {
  @PostMapping("/validate") public String validate() { return ""; }
  @GetMapping("/orders/{id}") public String order(@PathVariable String id) { return ""; }
}
`,
  'billing/build.gradle.kts': BUILD,
  'billing/src/main/resources/application.yml': 'spring.application.name: billing\n',
  [`billing/${J}App.java`]: 'package p;\n@org.springframework.boot.autoconfigure.SpringBootApplication\npublic class App {}\n',
  [`billing/${J}BillingController.java`]: `package p;
import org.springframework.web.bind.annotation.*;
@RestController
public class BillingController {
  @PostMapping("/validate") public String validate() { return ""; }
}
`,
  'intake/build.gradle.kts': BUILD,
  'intake/src/main/resources/application.yml': `spring.application.name: intake
routing:
  targets:
    - box: a
      url: http://orders:8080
    - box: b
      url: http://billing:8080
events:
  topics:
    - intake.created
    - intake.audited
`,
  [`intake/${J}App.java`]: 'package p;\n@org.springframework.boot.autoconfigure.SpringBootApplication\npublic class App {}\n',
  [`intake/${J}Routing.java`]: `package p;
import java.util.List;
import org.springframework.boot.context.properties.ConfigurationProperties;
@ConfigurationProperties(prefix = "routing")
public class Routing {
  private List<Target> targets;
  public List<Target> getTargets() { return targets; }
  public void setTargets(List<Target> targets) { this.targets = targets; }
  public static class Target {
    private String box;
    private String url;
    public Target() {}
    public Target(String box, String url) { this.box = box; this.url = url; }
    public String getBox() { return box; }
    public String getUrl() { return url; }
  }
}
`,
  [`intake/${J}Events.java`]: `package p;
import java.util.List;
import org.springframework.boot.context.properties.ConfigurationProperties;
@ConfigurationProperties(prefix = "events")
public class Events {
  private List<String> topics;
  public List<String> getTopics() { return topics; }
  public void setTopics(List<String> topics) { this.topics = topics; }
}
`,
  [`intake/${J}ValidationClient.java`]: `package p;
import org.springframework.stereotype.Component;
import org.springframework.web.client.RestTemplate;
@Component
public class ValidationClient {
  private final RestTemplate restTemplate = new RestTemplate();
  public String validate(String baseUrl, String doc) {
    return restTemplate.postForObject(baseUrl + "/validate", doc, String.class);
  }
}
`,
  [`intake/${J}Retry.java`]: `package p;
import java.util.function.Consumer;
public class Retry {
  public static void run(Consumer<String> task) { task.accept("x"); }
}
`,
  [`intake/${J}Intake.java`]: `package p;
import java.util.Optional;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.data.util.Optionals;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.stereotype.Service;
import org.springframework.web.client.RestTemplate;

@Service
@EnableConfigurationProperties({Routing.class, Events.class})
public class Intake {
  private final Routing routing;
  private final Events events;
  private final ValidationClient client;
  private final KafkaTemplate<String, String> kafka;
  private final RestTemplate restTemplate = new RestTemplate();

  public Intake(Routing routing, Events events, ValidationClient client, KafkaTemplate<String, String> kafka) {
    this.routing = routing;
    this.events = events;
    this.client = client;
    this.kafka = kafka;
  }

  public Optional<String> validate(String box, String doc) {
    return Optionals.mapIfAllPresent(
      Optional.ofNullable(doc),
      urlFor(box),
      (d, url) ->
        client.validate(url, d)
    );
  }

  private Optional<String> urlFor(String box) {
    return routing.getTargets().stream()
      .filter(t -> t.getBox().equals(box))
      .findFirst()
      .map(Routing.Target::getUrl);
  }

  public void pingAll() {
    routing.getTargets().forEach(target -> restTemplate.postForObject(target.getUrl() + "/validate", "", String.class));
  }

  public void announce(String payload) {
    events.getTopics().forEach(topic -> kafka.send(topic, payload));
  }

  public String order(String id) {
    return Optional.of(id).map(this::orderUrl).map(u -> restTemplate.getForObject(u, String.class)).orElse(null);
  }

  private String orderUrl(String id) {
    return "http://orders:8080/orders/" + id;
  }

  public void unknownFunction() {
    Retry.run(url -> restTemplate.getForObject(url + "/orders/1", String.class));
  }
}
`,
  'intake/src/main/kotlin/p/Pinger.kt': `package p
import org.springframework.kafka.core.KafkaTemplate
import org.springframework.stereotype.Service
import org.springframework.web.client.RestTemplate

@Service
class Pinger(private val routing: Routing, private val events: Events, private val kafka: KafkaTemplate<String, String>) {
  private val rest = RestTemplate()

  fun pingAllKt() {
    routing.targets.forEach { rest.postForObject(it.url + "/validate", "", String::class.java) }
  }

  fun announceKt(payload: String) {
    events.topics.forEach { topic -> kafka.send(topic, payload) }
  }

  private val ordersBase: String? = "http://orders:8080"

  fun letKt(id: String) {
    ordersBase?.let { rest.getForObject("$it/orders/$id", String::class.java) }
  }

  fun alsoKt() {
    "http://billing:8080/validate".also { url -> rest.postForObject(url, "", String::class.java) }
  }

  fun itThroughApplyKt() {
    "http://orders:8080/validate".let { StringBuilder().apply { rest.postForObject(it, "", String::class.java) } }
  }
}
`,
};

before(async () => {
  dir = writeEstate(FILES, 'sextant-lambda-params-');
  nodes = (await buildEstate(dir)).nodes;
});
after(() => rmSync(dir, { recursive: true, force: true }));

function links(kind: 'client' | 'producer', method: string): string[] {
  return nodes
    .filter((n) => n.kind === kind && String(n.props.caller).includes(`#${method}(`))
    .map((n) => `${n.qualified_name}${n.props.match ? ` (${n.props.match})` : ''}${n.props.resolved === false ? ` unresolved: ${n.props.unresolved_reason}` : ''}`)
    .sort();
}

describe('what a call gives its function argument', () => {
  test('both Optionals of mapIfAllPresent: a URL found by a stream over a configured list, one link per element', () => {
    assert.deepEqual(links('client', 'validate'), ['intake -> billing POST /validate (cross_service)', 'intake -> orders POST /validate (cross_service)']);
  });

  test('a collection forEach gives each element: a configured list of objects, and of strings (topics)', () => {
    assert.deepEqual(links('client', 'pingAll'), ['intake -> billing POST /validate (cross_service)', 'intake -> orders POST /validate (cross_service)']);
    assert.deepEqual(
      links('producer', 'announce').map((l) => l.replace(/ \(.*$/, '')),
      ['intake -> kafka intake.audited', 'intake -> kafka intake.created'],
    );
  });

  test('Kotlin: forEach gives `it` or the named parameter each element', () => {
    assert.deepEqual(links('client', 'pingAllKt'), ['intake -> billing POST /validate (cross_service)', 'intake -> orders POST /validate (cross_service)']);
    assert.deepEqual(
      links('producer', 'announceKt').map((l) => l.replace(/ \(.*$/, '')),
      ['intake -> kafka intake.audited', 'intake -> kafka intake.created'],
    );
  });

  test("Kotlin's scope functions: let and also give `it` (or the named parameter) the receiver; `it` inside apply { … } is the outer lambda's", () => {
    assert.deepEqual(links('client', 'letKt'), ['intake -> orders GET /orders/{id} (cross_service)']);
    assert.deepEqual(links('client', 'alsoKt'), ['intake -> billing POST /validate (cross_service)']);
    assert.deepEqual(links('client', 'itThroughApplyKt'), ['intake -> orders POST /validate (cross_service)']);
  });

  test("Optional.map with a method reference (this::orderUrl), then a lambda on what it gave", () => {
    assert.deepEqual(links('client', 'order'), ['intake -> orders GET /orders/{id} (cross_service)']);
  });

  test('a lambda passed to a method the library table does not describe keeps its parameter a hole: no link is guessed', () => {
    const found = links('client', 'unknownFunction');
    assert.equal(found.length, 1);
    assert.match(found[0]!, /unresolved: .*url/);
    assert.doesNotMatch(found[0]!, /-> orders/);
  });
});
