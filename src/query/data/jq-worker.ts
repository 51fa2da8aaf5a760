/** Worker thread that runs jq filters (jq-wasm: real jq 1.8) so a filter that never ends can be stopped. */
import { parentPort } from 'node:worker_threads';
import { JqError, loadJq } from 'jq-wasm';

const jq = await loadJq();
parentPort!.on('message', (msg: { id: number; filter: string; input: unknown }) => {
  try {
    const outputs = jq.json(msg.input as object, msg.filter) as unknown[];
    parentPort!.postMessage({ id: msg.id, outputs });
  } catch (err) {
    const message = err instanceof JqError ? err.stderr.replace(/^jq: error: /, '').split('\n')[0]! : (err as Error).message;
    parentPort!.postMessage({ id: msg.id, error: message });
  }
});
