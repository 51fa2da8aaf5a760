import type { EmbeddingsConfig } from '../config/types.js';
import { EMBEDDED_KINDS, embedHash, embedTextOf } from '../graph/embed-docs.js';
import type { EmbeddingSpace, Store } from '../graph/store.js';
import { EmbeddingClient, EmbeddingError } from '../search/embeddings.js';

/**
 * The embedding pass, after the sources are written: every node the table of graph/embed-docs embeds gets the
 * vector of its text. Vectors are kept by text hash and model, so a re-index asks the endpoint only for texts it
 * has not embedded before. The pass writes as it goes: an endpoint that fails part-way leaves the lexical index
 * complete, the vectors made so far usable, and a warning; the next run fills in what is missing.
 */

export interface EmbedEvents {
  progress?: (done: number, total: number) => void;
  warning?: (message: string) => void;
}

export interface EmbedReport {
  model: string;
  endpoint: string;
  /** Nodes the table embeds. */
  nodes: number;
  /** Texts sent to the endpoint by this run, and nodes whose vector was already there (same text, same model). */
  embedded: number;
  reused: number;
  /** Nodes still without a vector (the endpoint failed). */
  missing: number;
  dimensions?: number;
  seconds: number;
  /** Texts per second the endpoint embedded, when it embedded any. */
  texts_per_second?: number;
  error?: string;
}

/** Nodes read at once while collecting texts. */
const READ_PAGE = 5000;
/** Batches of texts embedded between two writes to the store (what a failure can lose at most). */
const BATCHES_PER_WRITE = 8;

/** The model as vectors are kept under: a model asked for other dimensions makes other vectors. */
export function modelKey(config: Pick<EmbeddingsConfig, 'model' | 'dimensions'>): string {
  return config.dimensions ? `${config.model}@${config.dimensions}` : config.model;
}

/** The endpoint as the index records it and messages show it: no user info, no query string. */
export function shownEndpoint(url: string): string {
  const u = new URL(url);
  return `${u.protocol}//${u.host}${u.pathname}`;
}

export async function embedIndex(store: Store, config: EmbeddingsConfig, events: EmbedEvents = {}): Promise<EmbedReport> {
  const started = performance.now();
  const model = modelKey(config);
  const endpoint = shownEndpoint(config.url);
  // What every embedded node should have now.
  const wanted = new Map<string, { hash: string; text: string }>();
  for (const kind of EMBEDDED_KINDS) {
    for (let offset = 0; ; offset += READ_PAGE) {
      const { nodes } = await store.findNodes({ kinds: [kind], predicates: [], limit: READ_PAGE, offset });
      for (const n of nodes) {
        const text = embedTextOf(n);
        if (text) wanted.set(n.id, { hash: embedHash(text), text });
      }
      if (nodes.length < READ_PAGE) break;
    }
  }
  const current = await store.vectorAssignments(model);
  const unassign = [...current.keys()].filter((id) => !wanted.has(id));
  const changed = [...wanted].filter(([id, w]) => current.get(id) !== w.hash);
  const needed = [...new Set(changed.map(([, w]) => w.hash))];
  const have = await store.vectorHashes(model, needed);
  const textOf = new Map<string, string>();
  for (const [, w] of changed) if (!have.has(w.hash)) textOf.set(w.hash, w.text);
  const toEmbed = [...textOf.keys()].sort();
  const idsOf = new Map<string, string[]>();
  for (const [id, w] of changed) {
    const ids = idsOf.get(w.hash);
    if (ids) ids.push(id);
    else idsOf.set(w.hash, [id]);
  }
  const assignOf = (hashes: Iterable<string>) => [...hashes].flatMap((hash) => (idsOf.get(hash) ?? []).map((id) => ({ id, hash })));
  const previous = await store.embeddingSpace();
  let dimensions: number | undefined = config.dimensions ?? (previous?.model === model && previous.dimensions ? previous.dimensions : undefined);

  // Nodes whose new text was embedded before (another node's, or an earlier run's) need no request.
  const reused = assignOf(needed.filter((h) => have.has(h)));
  if (reused.length || unassign.length) await store.writeVectors({ model, vectors: [], assign: reused, unassign });

  const client = new EmbeddingClient({ url: config.url, model: config.model, ...(config.dimensions ? { dimensions: config.dimensions } : {}), ...(config.api_key ? { apiKey: config.api_key } : {}), headers: config.headers, batchSize: config.batch_size, timeoutMs: config.timeout_ms });
  let embedded = 0;
  let error: string | undefined;
  let embedSeconds = 0;
  events.progress?.(0, toEmbed.length);
  const chunk = config.batch_size * BATCHES_PER_WRITE;
  for (let i = 0; i < toEmbed.length; i += chunk) {
    const hashes = toEmbed.slice(i, i + chunk);
    const vectors: { hash: string; vector: Float32Array }[] = [];
    try {
      for (let j = 0; j < hashes.length; j += config.batch_size) {
        const batch = hashes.slice(j, j + config.batch_size);
        const t0 = performance.now();
        const made = await client.embedBatch(batch.map((h) => textOf.get(h)!));
        embedSeconds += (performance.now() - t0) / 1000;
        dimensions ??= made[0]?.length;
        const odd = made.find((v) => v.length !== dimensions);
        if (odd) throw new EmbeddingError('bad_answer', `the embeddings endpoint ${endpoint} gave vectors of ${odd.length} dimensions where the index holds vectors of ${dimensions} for model ${config.model}; rebuild with \`--rebuild\` if the model changed`);
        batch.forEach((hash, k) => vectors.push({ hash, vector: made[k]! }));
        events.progress?.(embedded + vectors.length, toEmbed.length);
      }
    } catch (err) {
      error = err instanceof EmbeddingError ? err.message : `embedding failed: ${err instanceof Error ? err.message : String(err)}`;
    }
    if (vectors.length) {
      await store.writeVectors({ model, vectors, assign: assignOf(vectors.map((v) => v.hash)) });
      embedded += vectors.length;
    }
    if (error) break;
  }

  const assigned = await store.vectorAssignments(model);
  let missing = 0;
  for (const [id, w] of wanted) if (assigned.get(id) !== w.hash) missing++;
  const space: EmbeddingSpace = {
    model,
    dimensions: dimensions ?? 0,
    endpoint,
    ...(config.api_key_env ? { api_key_env: config.api_key_env } : {}),
    updated_at: new Date().toISOString(),
    embedded: wanted.size - missing,
    missing,
    ...(error ? { error } : {}),
  };
  // Vectors of texts no node has any more go, unless the pass stopped short (they may serve the next run).
  await store.writeVectors({ model, vectors: [], assign: [], space, prune: !error });
  if (error) events.warning?.(`embeddings: ${error}. ${missing} of ${wanted.size} nodes have no vector; semantic search covers the others, lexical search is complete. The next \`sextant index\` embeds the rest.`);
  const seconds = Math.round((performance.now() - started) / 10) / 100;
  return {
    model,
    endpoint,
    nodes: wanted.size,
    embedded,
    reused: wanted.size - missing - embedded,
    missing,
    ...(dimensions ? { dimensions } : {}),
    seconds,
    ...(embedded && embedSeconds > 0 ? { texts_per_second: Math.round((embedded / embedSeconds) * 10) / 10 } : {}),
    ...(error ? { error } : {}),
  };
}
