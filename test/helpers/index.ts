import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sextantOntology, type Ontology } from '../../src/graph/ontology/index.js';
import type { Store } from '../../src/graph/store.js';
import { openTestStore } from './store.js';
import { buildWorkspace } from '../../src/indexer/build.js';
import { runTool, type ToolResult } from '../../src/query/index.js';
import type { ToolContext } from '../../src/query/tool.js';

export const SHOP_SDL = fileURLToPath(new URL('../fixtures/shop/shop.graphql', import.meta.url));
/** GitHub's public schema from @octokit/graphql-schema (its exports map hides the file, so locate the package dir). */
export const GITHUB_SDL = fileURLToPath(new URL('../../node_modules/@octokit/graphql-schema/schema.graphql', import.meta.url));

export interface TestIndex {
  dir: string;
  ontology: Ontology;
  store: Store;
  ctx: ToolContext;
  call: (tool: string, args: unknown) => Promise<ToolResult & Record<string, any>>;
  close: () => Promise<void>;
}

/** Builds a real index (real GraphQL source, on the store under test: see helpers/store.ts) of one schema file. */
export async function indexSchema(path: string, sourceName: string): Promise<TestIndex> {
  const dir = mkdtempSync(join(tmpdir(), 'sextant-test-'));
  const ontology = sextantOntology();
  const writer = await openTestStore(ontology, dir, { mode: 'write' });
  await buildWorkspace(writer, ontology, { dir: dirname(path), sources: [{ kind: 'graphql', name: sourceName, schema: [path], headers: {}, timeout_ms: 30000 }] });
  await writer.close();
  const store = await openTestStore(ontology, dir, { mode: 'read' });
  const ctx = { store, ontology };
  return {
    dir,
    ontology,
    store,
    ctx,
    call: (tool, args) => runTool(ctx, tool, args) as Promise<ToolResult & Record<string, any>>,
    close: async () => {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The workplace's shared/ folder: beside the repository (as in CI's clone), else the usual /work/shared. */
export function sharedDir(): string {
  const beside = fileURLToPath(new URL('../../../shared', import.meta.url));
  return existsSync(join(beside, 'fixtures')) ? beside : '/work/shared';
}
