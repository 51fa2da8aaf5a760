/**
 * A client of any OpenAI-compatible `/v1/embeddings` endpoint (OpenAI, Ollama, vLLM, LM Studio, llama.cpp's
 * server, Text Embeddings Inference, …): texts in, unit-length vectors out, in batches, each request bounded by a
 * timeout. Errors say what to check and never hold the API key or the endpoint's credentials.
 */

export interface EmbeddingClientOptions {
  /** The embeddings URL itself (`…/v1/embeddings`); `embeddingsUrl` derives it from a base URL. */
  url: string;
  model: string;
  /** Asked of the model (OpenAI's `dimensions`) and checked against every answer. */
  dimensions?: number;
  apiKey?: string;
  headers?: Readonly<Record<string, string>>;
  batchSize: number;
  timeoutMs: number;
  /** Attempts per batch on a network error, a 429 or a 5xx (default 3). */
  attempts?: number;
}

export type EmbeddingFailure = 'unreachable' | 'timeout' | 'http' | 'bad_answer';

export class EmbeddingError extends Error {
  constructor(
    readonly failure: EmbeddingFailure,
    message: string,
    readonly status?: number,
  ) {
    super(message);
  }
}

/** Where the embeddings of a configured endpoint are asked: a base URL gets `/v1/embeddings` or `/embeddings`. */
export function embeddingsUrl(endpoint: string): string {
  const url = new URL(endpoint);
  const path = url.pathname.replace(/\/+$/, '');
  if (/\/embeddings$/.test(path)) url.pathname = path;
  else if (path === '') url.pathname = '/v1/embeddings';
  else url.pathname = `${path}/embeddings`;
  return url.toString();
}

/** A URL as an error may show it: no user info, no query string. */
function shown(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname}`;
  } catch {
    return '(invalid URL)';
  }
}

const RETRY_DELAYS_MS = [250, 1000, 3000];

export class EmbeddingClient {
  readonly url: string;
  constructor(private readonly opts: EmbeddingClientOptions) {
    this.url = opts.url;
  }

  get model(): string {
    return this.opts.model;
  }

  /** Embeds `texts`, `batchSize` at a time; `onBatch` hears how many are done. Vectors are scaled to length 1. */
  async embed(texts: readonly string[], onBatch?: (done: number, total: number) => void): Promise<Float32Array[]> {
    const out: Float32Array[] = [];
    for (let i = 0; i < texts.length; i += this.opts.batchSize) {
      const batch = texts.slice(i, i + this.opts.batchSize);
      out.push(...(await this.embedBatch(batch)));
      onBatch?.(out.length, texts.length);
    }
    return out;
  }

  async embedBatch(texts: readonly string[]): Promise<Float32Array[]> {
    const attempts = this.opts.attempts ?? 3;
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.request(texts);
      } catch (err) {
        const retryable = err instanceof EmbeddingError && (err.failure === 'unreachable' || err.failure === 'timeout' || err.status === 429 || (err.status !== undefined && err.status >= 500));
        if (!retryable || attempt >= attempts) throw err;
        await new Promise((r) => setTimeout(r, RETRY_DELAYS_MS[Math.min(attempt - 1, RETRY_DELAYS_MS.length - 1)]));
      }
    }
  }

  private async request(texts: readonly string[]): Promise<Float32Array[]> {
    const where = shown(this.url);
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json', ...this.opts.headers };
    if (this.opts.apiKey) headers.authorization = `Bearer ${this.opts.apiKey}`;
    const body = JSON.stringify({ model: this.opts.model, input: texts, ...(this.opts.dimensions ? { dimensions: this.opts.dimensions } : {}) });
    let res: Response;
    try {
      res = await fetch(this.url, { method: 'POST', headers, body, signal: AbortSignal.timeout(this.opts.timeoutMs) });
    } catch (err) {
      const e = err as { name?: string; cause?: { code?: string; message?: string } };
      if (e.name === 'TimeoutError' || e.name === 'AbortError') throw new EmbeddingError('timeout', `the embeddings endpoint ${where} did not answer within ${this.opts.timeoutMs} ms; raise \`timeout_ms\` or lower \`batch_size\` under \`embeddings:\``);
      const why = e.cause?.code ?? e.cause?.message ?? String(err);
      throw new EmbeddingError('unreachable', `the embeddings endpoint ${where} is unreachable (${why}); check that the server runs and \`endpoint\` under \`embeddings:\``);
    }
    let text: string;
    try {
      text = await res.text();
    } catch (err) {
      throw new EmbeddingError('unreachable', `the embeddings endpoint ${where} broke off its answer (${(err as Error).message})`);
    }
    if (!res.ok) {
      const detail = errorDetail(text, this.opts.apiKey);
      const fix =
        res.status === 401 || res.status === 403
          ? 'check `api_key` under `embeddings:` (the variable it names must be set)'
          : res.status === 404
            ? `check \`endpoint\` (an OpenAI-compatible server answers at …/v1/embeddings) and that model \`${this.opts.model}\` is served there`
            : res.status === 429 || res.status >= 500
              ? 'the server is overloaded or failing; try again, or lower `batch_size`'
              : 'check `model` and `dimensions` under `embeddings:`';
      throw new EmbeddingError('http', `the embeddings endpoint ${where} answered HTTP ${res.status}${detail ? `: ${detail}` : ''}; ${fix}`, res.status);
    }
    return parseAnswer(text, texts.length, this.opts.dimensions, where);
  }
}

/** The server's own error message, short, without the API key. */
function errorDetail(text: string, apiKey: string | undefined): string {
  let message = text;
  try {
    const json = JSON.parse(text) as { error?: { message?: unknown } | string; message?: unknown; detail?: unknown };
    const m = typeof json.error === 'string' ? json.error : (json.error?.message ?? json.message ?? json.detail);
    if (typeof m === 'string') message = m;
  } catch {
    // not JSON: the text itself
  }
  message = message.replace(/\s+/g, ' ').trim().slice(0, 200);
  if (apiKey && apiKey.length >= 4) message = message.split(apiKey).join('[redacted]');
  return message;
}

function parseAnswer(text: string, count: number, dimensions: number | undefined, where: string): Float32Array[] {
  const bad = (why: string) => new EmbeddingError('bad_answer', `the embeddings endpoint ${where} gave an answer that is not an OpenAI embeddings list: ${why}`);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw bad('not JSON');
  }
  const data = (json as { data?: unknown }).data;
  if (!Array.isArray(data)) throw bad('no `data` list');
  if (data.length !== count) throw bad(`${data.length} vectors for ${count} texts`);
  const out: (Float32Array | undefined)[] = new Array(count);
  for (const [i, item] of data.entries()) {
    const index = typeof (item as { index?: unknown }).index === 'number' ? (item as { index: number }).index : i;
    if (!Number.isInteger(index) || index < 0 || index >= count || out[index]) throw bad(`index ${String(index)} is out of range or repeated`);
    const raw = (item as { embedding?: unknown }).embedding;
    let vector: Float32Array;
    if (Array.isArray(raw) && raw.every((x) => typeof x === 'number' && Number.isFinite(x))) vector = Float32Array.from(raw as number[]);
    else if (typeof raw === 'string') {
      const buf = Buffer.from(raw, 'base64');
      if (buf.length % 4 !== 0) throw bad('a base64 embedding is not a list of 32-bit floats');
      vector = new Float32Array(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.length));
    } else throw bad('an `embedding` is not a list of numbers');
    if (vector.length === 0) throw bad('an embedding is empty');
    if (dimensions && vector.length !== dimensions) throw new EmbeddingError('bad_answer', `the embeddings endpoint ${where} gave vectors of ${vector.length} dimensions, but \`dimensions\` under \`embeddings:\` says ${dimensions}; fix \`dimensions\` or remove it`);
    out[index] = normalized(vector);
  }
  const first = out[0]!.length;
  if (out.some((v) => v!.length !== first)) throw bad('vectors of different lengths in one answer');
  return out as Float32Array[];
}

/** The vector scaled to length 1, so a dot product is the cosine similarity. */
export function normalized(v: Float32Array): Float32Array {
  let sum = 0;
  for (let i = 0; i < v.length; i++) sum += v[i]! * v[i]!;
  const norm = Math.sqrt(sum);
  if (norm === 0) return v;
  const out = new Float32Array(v.length);
  for (let i = 0; i < v.length; i++) out[i] = v[i]! / norm;
  return out;
}
