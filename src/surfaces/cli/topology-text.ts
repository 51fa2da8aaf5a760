/** The service map and a traced request as terminal text: `sextant map` and `sextant trace`. */
import { short } from './format.js';

type Json = Record<string, unknown>;

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

function counts(s: Json): string {
  const parts = [
    s.routes ? plural(Number(s.routes), 'route') : '',
    s.listeners ? plural(Number(s.listeners), 'listener') : '',
    s.gateway_routes ? plural(Number(s.gateway_routes), 'gateway route') : '',
    s.clients ? plural(Number(s.clients), 'client') : '',
    s.producers ? plural(Number(s.producers), 'producer') : '',
  ].filter(Boolean);
  return parts.length ? parts.join(' · ') : s.deployed_only ? 'deployed, no source' : 'no routes or calls';
}

/** Each service with its counts, what it calls (per protocol, with call counts and how many matched), what a gateway forwards to, external hosts and open calls. */
export function serviceMapText(result: Json): string[] {
  const services = (result.services as Json[]) ?? [];
  const calls = (result.calls as Json[]) ?? [];
  const external = (result.external as Json[]) ?? [];
  const open = (result.open as Json[]) ?? [];
  const between = calls.filter((c) => c.protocol !== 'gateway');
  const lines = [`${plural(services.length, 'service')}, ${plural(between.length, 'call edge')} between them, ${plural(calls.length - between.length, 'gateway edge')}, ${plural(new Set(external.map((e) => e.host)).size, 'external host')}`];
  const width = Math.max(0, ...services.map((s) => String(s.name).length));
  for (const s of services) {
    lines.push('');
    lines.push(`${String(s.name).padEnd(width)}  ${s.gateway ? '[gateway] ' : ''}${counts(s)}`);
    for (const c of calls.filter((x) => x.from === s.name)) {
      const partial = Number(c.matched) < Number(c.calls) ? `, ${String(c.matched)} matched` : '';
      lines.push(c.protocol === 'gateway' ? `  ─gateway─▶ ${String(c.to)}  (${plural(Number(c.calls), 'route')})` : `  ─${String(c.protocol)}─▶ ${String(c.to)}  (${plural(Number(c.calls), 'call')}${partial}, confidence ${Number(c.confidence).toFixed(2)})`);
    }
    for (const e of external.filter((x) => x.from === s.name)) lines.push(`  ─http─▶ ${String(e.host)}  (external, ${plural(Number(e.calls), 'call')})`);
    for (const o of open.filter((x) => x.service === s.name)) lines.push(`  ─?─▶ ${plural(Number(o.count), `${String(o.status)} call`)}  (sextant links --service ${String(s.name)})`);
  }
  if (!services.length) lines.push('(empty) no services: index a Java or Kotlin estate');
  return lines;
}

/** The entry route and its handler, then each crossing to another service: the client or producer, the route and handler it reaches, and how sure. */
export function traceText(result: Json): string[] {
  const from = result.from as Json;
  const crossings = (result.crossings as Json[]) ?? [];
  const lines: string[] = [];
  const where = (n: Json | undefined) => (n?.file ? `${String(n.file).split('/').pop()}${n.line ? `:${String(n.line)}` : ''}` : '');
  if (result.mode !== 'flow') {
    const paths = (result.paths as Json[] | undefined) ?? [];
    lines.push(`${plural(paths.length, 'path')} from ${String(from?.qualified_name)}`);
    return lines;
  }
  const entry = result.from_handler as string | undefined;
  lines.push(`${result.request ? `${String(result.request)}  at ` : ''}${String(from.qualified_name)}${entry ? `  →  ${short(entry)}` : ''}  ${where(from)}`);
  for (const c of crossings) {
    const via = c.via as Json;
    const route = c.route as Json;
    const handler = c.handler as string | undefined;
    const caller = c.caller as string | undefined;
    const kind = c.edge_type === 'FORWARDS' ? 'gateway' : String(via?.protocol ?? 'http');
    lines.push(`  ${String(c.from_service ?? '?')} ─${kind}─▶ ${String(c.to_service ?? route?.service ?? `${String(route?.qualified_name ?? '?').split(' ')[0]} (external)`)}  ${String(route?.name ?? route?.qualified_name ?? '?')}${handler ? `  →  ${short(handler)}` : ''}`);
    lines.push(`      via ${String(via?.kind ?? '')} ${String(via?.name ?? '')}${caller ? ` in ${short(caller)}` : ''}  ${where(via)}  · confidence ${Number(c.confidence ?? 0).toFixed(2)} (${String(c.strategy ?? c.match ?? '')})`);
  }
  if (!crossings.length) lines.push('  (stays in its service: nothing on its path calls another service)');
  const services = (result.services as Json[] | undefined)?.map((s) => s.service) ?? [];
  lines.push(`${plural(services.length, 'service')}: ${services.join(', ')}${result.truncated ? ' (the walk stopped at its bound)' : ''}`);
  return lines;
}
