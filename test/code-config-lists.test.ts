/**
 * Objects Spring binds from a configured list (`@ConfigurationProperties` with a `List<Item>` field): a property no
 * code of the estate sets has, on any such object, the value one of the list's elements gives — even when the
 * object reaches the call as a parameter whose callers the evaluator cannot follow. One rule, on a small estate
 * written here and indexed on this thread; a class the code also fills in keeps what the code gives.
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, before, test } from 'node:test';
import type { NodeRecord } from '../src/graph/types.js';
import { buildEstate, writeEstate } from './helpers/estate.js';

let dir = '';
let nodes: readonly NodeRecord[] = [];

const route = (service: string, path: string): Record<string, string> => ({
  [`${service}/pom.xml`]: `<project><modelVersion>4.0.0</modelVersion><groupId>x</groupId><artifactId>${service}</artifactId><version>1</version><dependencies><dependency><groupId>org.springframework.boot</groupId><artifactId>spring-boot-starter-web</artifactId></dependency></dependencies></project>\n`,
  [`${service}/src/main/resources/application.yml`]: `spring.application.name: ${service}\nserver.port: 8080\n`,
  [`${service}/src/main/java/t/App.java`]: 'package t;\n@org.springframework.boot.autoconfigure.SpringBootApplication\npublic class App {}\n',
  [`${service}/src/main/java/t/Api.java`]: `package t;\nimport org.springframework.web.bind.annotation.*;\n@RestController\npublic class Api {\n  @PostMapping("${path}") public String handle() { return ""; }\n}\n`,
});

const FILES: Record<string, string> = {
  ...route('probate', '/transform'),
  ...route('divorce', '/transform-record'),
  'orchestrator/pom.xml': '<project><modelVersion>4.0.0</modelVersion><groupId>x</groupId><artifactId>orchestrator</artifactId><version>1</version><dependencies><dependency><groupId>org.springframework.boot</groupId><artifactId>spring-boot-starter-web</artifactId></dependency></dependencies></project>\n',
  'orchestrator/src/main/resources/application.yml': `spring.application.name: orchestrator
service-config:
  services:
    - service: probate
      transformation-url: http://probate:8080/transform
      label: first
    - service: divorce
      transformation-url: http://divorce:8080/transform-record
      label: second
`,
  'orchestrator/src/main/java/o/App.java': 'package o;\n@org.springframework.boot.autoconfigure.SpringBootApplication\npublic class App {}\n',
  'orchestrator/src/main/java/o/ServiceConfiguration.java': `package o;
import java.util.List;
import org.springframework.boot.context.properties.ConfigurationProperties;
@ConfigurationProperties(prefix = "service-config")
public class ServiceConfiguration {
  private List<ServiceConfigItem> services;
  public List<ServiceConfigItem> getServices() { return services; }
  public void setServices(List<ServiceConfigItem> services) { this.services = services; }
}
`,
  'orchestrator/src/main/java/o/ServiceConfigItem.java': `package o;
public class ServiceConfigItem {
  private String service;
  private String transformationUrl;
  private String label;
  public String getService() { return service; }
  public void setService(String service) { this.service = service; }
  public String getTransformationUrl() { return transformationUrl; }
  public void setTransformationUrl(String transformationUrl) { this.transformationUrl = transformationUrl; }
  public String getLabel() { return label; }
  public void setLabel(String label) { this.label = label; }
  public void relabel() { this.label = "http://relabelled:8080/x"; }
}
`,
  'orchestrator/src/main/java/o/Transformer.java': `package o;
import org.springframework.stereotype.Service;
import org.springframework.web.client.RestTemplate;
@Service
public class Transformer {
  private final RestTemplate restTemplate = new RestTemplate();
  public String transform(ServiceConfigItem configItem) {
    return restTemplate.postForObject(configItem.getTransformationUrl(), "body", String.class);
  }
  public String byLabel(ServiceConfigItem configItem) {
    configItem.relabel();
    return restTemplate.postForObject(configItem.getLabel(), "body", String.class);
  }
}
`,
};

before(async () => {
  dir = writeEstate(FILES, 'sextant-config-lists-');
  nodes = (await buildEstate(dir)).nodes;
});
after(() => rmSync(dir, { recursive: true, force: true }));

function clients(method: string): string[] {
  return nodes
    .filter((n) => n.kind === 'client' && String(n.props.caller).includes(`#${method}(`))
    .map((n) => `${n.qualified_name} (${n.props.match})`)
    .sort();
}

test('a parameter of a class bound from a configured list: its unset property is each element\'s, one client per value', () => {
  assert.deepEqual(clients('transform'), ['orchestrator -> divorce POST /transform-record (cross_service)', 'orchestrator -> probate POST /transform (cross_service)']);
});

test('a property the code also sets is not read from the list', () => {
  const found = nodes.filter((n) => n.kind === 'client' && String(n.props.caller).includes('#byLabel('));
  assert.deepEqual(found.map((n) => n.props.path), ['/x'], 'the path relabel() gives');
  assert.ok(found.every((n) => !JSON.stringify(n.props.value_from ?? []).includes('service-config')), JSON.stringify(found.map((n) => n.props)));
});
