/** A parse worker thread: runs the jobs it is sent (read, hash, extract) and posts each result back. */
import { parentPort } from 'node:worker_threads';
import { type ParseJob, runJob } from './job.js';

if (!parentPort) throw new Error('parse worker: not started as a worker thread');
const port = parentPort;
port.on('message', (job: ParseJob) => {
  void runJob(job).then((result) => port.postMessage(result));
});
