/**
 * A request URI built by a function argument (`uri(b -> b.path("/x").build())`, Kotlin's
 * `.uri { it.path("/x").build() }`), one rule per test, on a small estate written here and indexed on this thread:
 * the function's parameter is the UriBuilder the client starts from its base URL, so the path is the body's chain;
 * Kotlin's `apply { … }` on the builder gives it back; a variable the lambda ends with has the value it was given
 * there; a chain the library table does not follow leaves the path a hole named after the step it stopped at.
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import type { NodeRecord } from '../src/graph/types.js';
import { buildEstate, writeEstate } from './helpers/estate.js';

let dir = '';
let nodes: readonly NodeRecord[] = [];

const FILES: Record<string, string> = {
  'prisons/build.gradle.kts': 'plugins { id("org.springframework.boot") }\ndependencies { implementation("org.springframework.boot:spring-boot-starter-web") }\n',
  'prisons/src/main/resources/application.yml': 'spring.application.name: prisons\n',
  'prisons/src/main/java/p/App.java': 'package p;\n@org.springframework.boot.autoconfigure.SpringBootApplication\npublic class App {}\n',
  'prisons/src/main/java/p/PrisonerController.java': `package p;
import org.springframework.web.bind.annotation.*;
@RestController
public class PrisonerController {
  @GetMapping("/prisoners/{offenderNo}/casenotes") public String caseNotes(@PathVariable String offenderNo) { return ""; }
  @GetMapping("/appointments/ids") public String appointments() { return ""; }
  @GetMapping("/locations/ids") public String locations() { return ""; }
  @GetMapping("/persons/ids") public String persons() { return ""; }
}
`,
  'sync/build.gradle.kts': 'plugins { id("org.springframework.boot") }\ndependencies { implementation("org.springframework.boot:spring-boot-starter-webflux") }\n',
  'sync/src/main/resources/application.yml': 'spring.application.name: sync\napi.base.url.prisons: http://prisons:8080\n',
  'sync/src/main/kotlin/p/App.kt': 'package p\n@org.springframework.boot.autoconfigure.SpringBootApplication\nclass App\n',
  'sync/src/main/kotlin/p/PrisonsApi.kt': `package p
import java.net.URI
import org.springframework.beans.factory.annotation.Value
import org.springframework.stereotype.Service
import org.springframework.web.reactive.function.client.WebClient

@Service
class PrisonsApi(@Value("\\\${api.base.url.prisons}") baseUrl: String) {
  private val webClient: WebClient = WebClient.builder().baseUrl(baseUrl).build()

  fun caseNotes(offenderNo: String) {
    lateinit var url: URI
    webClient.get()
      .uri {
        url = it.path("/prisoners/{offenderNo}/casenotes")
          .build(offenderNo)
        url
      }
      .retrieve()
  }

  fun appointments(prisonIds: List<String>, page: Int) = webClient.get()
    .uri {
      it.path("/appointments/ids")
        .apply {
          prisonIds.forEach { queryParam("prisonIds", it) }
        }
        .queryParam("page", page)
        .build()
    }
    .retrieve()

  fun unknownStep() = webClient.get()
    .uri { it.path("/persons/ids").someExtension().build() }
    .retrieve()
}
`,
  'sync/src/main/java/p/LocationsClient.java': `package p;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.stereotype.Component;
import org.springframework.web.reactive.function.client.WebClient;

@Component
public class LocationsClient {
  private final WebClient webClient;
  public LocationsClient(@Value("\${api.base.url.prisons}") String baseUrl) { this.webClient = WebClient.create(baseUrl); }

  public Object locations(int page) {
    return webClient.get().uri(b -> b.path("/locations/ids").queryParam("page", page).build()).retrieve();
  }

  public Object persons() {
    return webClient.get().uri(builder -> {
      return builder.pathSegment("persons", "ids").build();
    }).retrieve();
  }
}
`,
};

before(async () => {
  dir = writeEstate(FILES, 'sextant-lambda-uri-');
  nodes = (await buildEstate(dir)).nodes;
});
after(() => rmSync(dir, { recursive: true, force: true }));

function client(method: string): string {
  const found = nodes.filter((n) => n.kind === 'client' && String(n.props.caller).includes(`#${method}(`));
  return found.map((n) => `${n.qualified_name} (${n.props.match})${n.props.resolved === false ? ` unresolved: ${n.props.unresolved_reason}` : ''}`).sort().join(' | ');
}

describe('a URI built by a function argument', () => {
  test('Java: the lambda parameter is the UriBuilder; its chain is the path (an expression body and a block that returns)', () => {
    assert.equal(client('locations'), 'sync -> prisons GET /locations/ids (cross_service)');
    assert.equal(client('persons'), 'sync -> prisons GET /persons/ids (cross_service)');
  });

  test("Kotlin: `it` is the UriBuilder; apply { … } gives the builder back; a variable the lambda ends with is the value it was given", () => {
    assert.equal(client('appointments'), 'sync -> prisons GET /appointments/ids (cross_service)');
    assert.equal(client('caseNotes'), 'sync -> prisons GET /prisoners/{offenderNo}/casenotes (cross_service)');
  });

  test('a step the library table does not follow leaves the path a hole named after that step: the service is known, no route is guessed', () => {
    assert.equal(client('unknownStep'), 'sync -> prisons GET /{someExtension} (unmatched)');
  });
});
