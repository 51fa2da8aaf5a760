import Database from 'better-sqlite3';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { basename } from 'node:path';
import { StoreError } from '../store.js';

/** Who holds a store's writer lock, as the holder recorded it beside the index. */
export interface LockHolder {
  pid: number;
  host: string;
  since: string;
  command: string;
}

export interface LockWait {
  /** How long to wait for another writer to finish before failing (default `DEFAULT_LOCK_WAIT_MS`). */
  waitMs?: number;
  /** Told, once the wait has lasted `FIRST_NOTICE_MS` and every `NOTICE_EVERY_MS` after, who is being waited for. */
  onWait?: (message: string) => void;
}

/**
 * A second `sextant index` is usually a script or a user who still wants its result once the first is done, and
 * a cold index of a large estate takes minutes: it waits (saying for whom) rather than fail at once. Past this,
 * the holder is most likely a long-running `index --watch`, which keeps the index current by itself.
 */
export const DEFAULT_LOCK_WAIT_MS = 10 * 60_000;
const NOTICE_EVERY_MS = 15_000;
/** A lock held for less than this goes unmentioned (a reader's probe of who writes takes it for an instant). */
const FIRST_NOTICE_MS = 500;
const POLL_MS = 100;

/** Paths of the locks this process holds: waiting for one of them would wait for ourselves. */
const heldHere = new Set<string>();

/**
 * One writer per store, across processes. The lock is the operating system's lock on `index.lock` (SQLite's
 * RESERVED lock on that otherwise empty file): it dies with its process, so a writer killed with SIGKILL leaves no
 * stale lock, and a reused PID or a writer in another container cannot fake one. `index.writer` records who
 * holds it, only to say so to whoever waits; it is removed on release and ignored once its process is gone.
 */
export class WriterLock {
  private constructor(
    private readonly lockFile: string,
    private readonly recordFile: string,
    private readonly db: Database.Database,
  ) {}

  /** Takes the lock of the index at `dir` (files `lockFile`, `recordFile`), waiting for another writer as told. */
  static acquire(dir: string, files: { lockFile: string; recordFile: string }, wait: LockWait = {}): WriterLock {
    const { lockFile, recordFile } = files;
    if (heldHere.has(lockFile)) {
      throw new StoreError('store_busy', `The index at ${dir} is already open for writing in this process; close that store before opening another writer.`);
    }
    const db = new Database(lockFile);
    try {
      db.pragma('busy_timeout = 0');
      waitForLock(db, dir, recordFile, wait);
    } catch (err) {
      db.close();
      throw err;
    }
    const record: LockHolder = { pid: process.pid, host: hostname(), since: new Date().toISOString(), command: commandLine() };
    try {
      writeFileSync(recordFile, `${JSON.stringify(record)}\n`);
    } catch (err) {
      // Not ours to write (another user's index): the lock is let go at once.
      db.close();
      throw err;
    }
    heldHere.add(lockFile);
    return new WriterLock(lockFile, recordFile, db);
  }

  /** Who holds the lock of the index at `dir` right now, or undefined when nobody writes it. */
  static holder(files: { lockFile: string; recordFile: string }): LockHolder | 'unknown' | undefined {
    if (heldHere.has(files.lockFile)) return readHolder(files.recordFile) ?? 'unknown';
    let db: Database.Database | undefined;
    try {
      db = new Database(files.lockFile, { fileMustExist: true });
      db.pragma('busy_timeout = 0');
      if (tryLock(db)) return undefined;
      return readHolder(files.recordFile) ?? 'unknown';
    } catch {
      // No lock file, or one this process may not lock (a read-only index): nobody known to be writing.
      return undefined;
    } finally {
      db?.close();
    }
  }

  release(): void {
    if (!this.db.open) return;
    if (readHolder(this.recordFile)?.pid === process.pid) rmSync(this.recordFile, { force: true });
    this.db.close();
    heldHere.delete(this.lockFile);
  }
}

function waitForLock(db: Database.Database, dir: string, recordFile: string, wait: LockWait): void {
  const waitMs = wait.waitMs ?? DEFAULT_LOCK_WAIT_MS;
  const started = Date.now();
  let noticeAt = started + FIRST_NOTICE_MS;
  while (!tryLock(db)) {
    const waited = Date.now() - started;
    const record = readHolder(recordFile);
    const holder = describeHolder(record);
    if (record && /\s--watch(\s|$)/.test(record.command)) {
      // A watcher holds the index for as long as it runs: waiting would only time out.
      throw new StoreError('store_busy', `The index at ${dir} is kept up to date by ${holder}: it indexes changes by itself. Stop it (Ctrl+C) to index by hand, or use another --store.`);
    }
    if (waited >= waitMs) {
      throw new StoreError(
        'store_busy',
        `The index at ${dir} is being written by ${holder}, still after ${seconds(waited)}. Run this again once it has finished, or stop it (an \`index --watch\` keeps the index up to date by itself).`,
      );
    }
    if (Date.now() >= noticeAt) {
      wait.onWait?.(`the index at ${dir} is being written by ${holder}; waiting for it to finish (up to ${seconds(waitMs)}; Ctrl+C to stop)`);
      noticeAt += NOTICE_EVERY_MS;
    }
    sleep(Math.min(POLL_MS, waitMs - waited));
  }
}

/** Takes SQLite's RESERVED lock on the lock file, held until the connection closes; false if another has it. */
function tryLock(db: Database.Database): boolean {
  try {
    db.exec('BEGIN IMMEDIATE');
    return true;
  } catch (err) {
    if (isBusy(err)) return false;
    throw err;
  }
}

export function isBusy(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED'));
}

function readHolder(recordFile: string): LockHolder | undefined {
  try {
    const record = JSON.parse(readFileSync(recordFile, 'utf8')) as LockHolder;
    return typeof record.pid === 'number' && isAlive(record) ? record : undefined;
  } catch {
    return undefined;
  }
}

/** False only when the recorded process is known to be gone (its record outlived it). */
function isAlive(holder: LockHolder): boolean {
  if (holder.host !== hostname()) return true;
  try {
    process.kill(holder.pid, 0);
    return true;
  } catch (err) {
    return (err as { code?: string }).code === 'EPERM';
  }
}

export function describeHolder(holder: LockHolder | 'unknown' | undefined): string {
  if (!holder || holder === 'unknown') return 'another process (it has not said which yet)';
  const where = holder.host === hostname() ? '' : ` on ${holder.host}`;
  return `pid ${holder.pid}${where} (\`${holder.command}\`, since ${holder.since})`;
}

function commandLine(): string {
  const [, script, ...args] = process.argv;
  const text = [script ? basename(script).replace(/\.js$/, '') : basename(process.execPath), ...args].join(' ');
  return text.length > 120 ? `${text.slice(0, 117)}...` : text;
}

function seconds(ms: number): string {
  if (ms >= 120_000) return `${Math.round(ms / 60_000)} min`;
  return ms >= 10_000 ? `${Math.round(ms / 1000)} s` : `${(ms / 1000).toFixed(1)} s`;
}

function sleep(ms: number): void {
  if (ms > 0) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}
