import { nodeId } from '../../../graph/ids.js';
import type { Ontology } from '../../../graph/ontology/index.js';
import type { NodeRecord } from '../../../graph/types.js';
import type { CdcConnector } from '../config/deployment.js';
import type { ServiceInfo } from '../config/layout.js';
import { deploymentService } from './proxies.js';

/**
 * Change-data-capture: each Debezium connector the estate registers is a producer of its tables' topics, outside the
 * estate's code (a service of its own, named by the connector, `name_from: deployment`). Listeners of those topics
 * then match a producer like any other.
 */
export function cdcGraph(ontology: Ontology, source: string, connectors: readonly CdcConnector[], services: readonly ServiceInfo[]): NodeRecord[] {
  const out: NodeRecord[] = [];
  const known = new Set(services.map((s) => s.name));
  const made = new Set<string>();
  for (const c of connectors) {
    if (!c.topics.length) continue;
    if (!known.has(c.name) && !made.has(c.name)) {
      made.add(c.name);
      out.push(deploymentService(ontology, source, c.name, c.file));
    }
    for (const topic of c.topics) {
      out.push({
        id: nodeId(ontology, source, 'producer', `cdc|${c.file}|${c.name}|${topic}`),
        kind: 'producer',
        name: `kafka ${topic}`,
        qualified_name: `${c.name} -> kafka ${topic}`,
        source,
        service: c.name,
        file: c.file,
        line: c.line,
        props: { protocol: 'kafka', destination: topic, framework: 'debezium', connector: c.connectorClass, match: 'unmatched', resolved: true },
      });
    }
  }
  return out;
}
