/**
 * What a data source's own SDL (`function { core { describe_data_source_schema(name) } }`) tells that the
 * compiled schema's introspection cannot: the unprefixed names of its data objects, their flags, and the relations
 * Hugr compiles from `@field_references`, `@references` and `@join`, with their key fields. Names are turned into
 * the compiled ones the way Hugr's compiler does it (prefix only the source's own definitions; forward and back
 * queries, many-to-many through a junction table, default relation and query names).
 */
import { Kind, parse, type ConstDirectiveNode, type DefinitionNode, type FieldDefinitionNode, type ObjectTypeDefinitionNode, type ObjectTypeExtensionNode } from 'graphql';
import { appliedDirectivesOf, type AppliedDirective } from '../directives.js';
import { checkSdlDepth } from '../depth.js';
import type { HugrMetaObject } from './model.js';

export type HugrMetaRelation = HugrMetaObject['relations'][number];

export interface SourceOfSdl {
  name: string;
  /** '' or undefined: the source's types keep their names. */
  prefix?: string;
  /** Extension sources keep their views' names (Hugr prefixes only their other definitions). */
  isExtension?: boolean;
}

/** Facts about one compiled data object; `relations` may also be added by another source (joins, back queries). */
export interface SdlObjectFacts {
  name: string;
  originalName?: string;
  /** Declared by this SDL (a `type` with `@table`/`@view`), not only extended or referenced. */
  defined: boolean;
  primaryKey?: string[];
  properties: HugrMetaObject['properties'];
  relations: HugrMetaRelation[];
}

interface RefDecl {
  name: string;
  target: string;
  sourceFields: string[];
  targetFields: string[];
  query: string;
  backQuery: string;
  isM2m: boolean;
  through: string;
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

function strs(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : typeof v === 'string' ? [v] : [];
}

function dirs(node: { readonly directives?: readonly ConstDirectiveNode[] | undefined }): AppliedDirective[] {
  return appliedDirectivesOf([node], undefined);
}

type ObjectNode = ObjectTypeDefinitionNode | ObjectTypeExtensionNode;

/**
 * Reads a source's SDL into facts keyed by compiled type name. `primaryKeyOf` answers for types of other sources
 * (a `@field_references` without `field` points to the target's single primary key). Throws on SDL that does not
 * parse; the caller turns that into a warning.
 */
export function sourceSdlFacts(sdl: string, source: SourceOfSdl, primaryKeyOf: (typeName: string) => string[] | undefined = () => undefined): Map<string, SdlObjectFacts> {
  const definitions: readonly DefinitionNode[] = parse(sdl, { noLocation: true }).definitions;
  checkSdlDepth(definitions, `the SDL of data source "${source.name}"`);
  const objects = definitions.filter((d): d is ObjectNode => d.kind === Kind.OBJECT_TYPE_DEFINITION || d.kind === Kind.OBJECT_TYPE_EXTENSION);
  const own = new Set<string>();
  const keptNames = new Set<string>();
  for (const d of definitions) {
    if (!('name' in d) || !d.name || d.kind.endsWith('Extension')) continue;
    own.add(d.name.value);
    if (source.isExtension && d.kind === Kind.OBJECT_TYPE_DEFINITION && dirs(d).some((x) => x.name === 'view')) keptNames.add(d.name.value);
  }
  const prefix = source.prefix ?? '';
  /** The compiled name of a type named in this SDL: prefixed when it is one of the source's own definitions. */
  const compiled = (n: string): string => (prefix && own.has(n) && !keptNames.has(n) ? `${prefix}_${n}` : n);

  const out = new Map<string, SdlObjectFacts>();
  const entry = (name: string): SdlObjectFacts => {
    let e = out.get(name);
    if (!e) out.set(name, (e = { name, defined: false, properties: {}, relations: [] }));
    return e;
  };
  const ownPk = new Map<string, string[]>();
  for (const d of objects) {
    if (d.kind !== Kind.OBJECT_TYPE_DEFINITION) continue;
    const pk = (d.fields ?? []).filter((f) => dirs(f).some((x) => x.name === 'pk')).map((f) => f.name.value);
    ownPk.set(compiled(d.name.value), pk);
  }
  const pkOf = (typeName: string): string[] | undefined => ownPk.get(typeName) ?? primaryKeyOf(typeName);

  for (const d of objects) {
    const typeDirs = dirs(d);
    const table = typeDirs.find((x) => x.name === 'table');
    const view = typeDirs.find((x) => x.name === 'view');
    const self = compiled(d.name.value);
    if (d.kind === Kind.OBJECT_TYPE_DEFINITION && (table || view)) {
      const e = entry(self);
      e.defined = true;
      if (self !== d.name.value) e.originalName = d.name.value;
      e.primaryKey = ownPk.get(self) ?? [];
      e.properties = { isM2M: table?.args['is_m2m'] === true, isCube: typeDirs.some((x) => x.name === 'cube'), isHypertable: typeDirs.some((x) => x.name === 'hypertable'), softDelete: table?.args['soft_delete'] === true };
    }

    // Object-level @references first, then each field's @field_references (Hugr appends those after them).
    const refs: RefDecl[] = [];
    const m2mTable = table?.args['is_m2m'] === true;
    for (const r of typeDirs.filter((x) => x.name === 'references')) {
      const target = compiled(str(r.args['references_name']));
      const sourceFields = strs(r.args['source_fields']);
      const targetFields = strs(r.args['references_fields']);
      if (!target || (!m2mTable && (!sourceFields.length || !targetFields.length))) continue;
      const name = str(r.args['name']) || (m2mTable ? '' : `${target}${sourceFields.length === 1 ? `_${sourceFields[0]}` : ''}`);
      refs.push({
        name,
        target,
        sourceFields,
        targetFields,
        query: str(r.args['query']) || (m2mTable ? '' : target),
        backQuery: str(r.args['references_query']) || (m2mTable ? '' : self),
        isM2m: r.args['is_m2m'] === true,
        through: compiled(str(r.args['m2m_name'])),
      });
    }
    for (const f of d.fields ?? []) {
      for (const r of dirs(f).filter((x) => x.name === 'field_references')) {
        const target = compiled(str(r.args['references_name']));
        if (!target) continue;
        const pk = pkOf(target);
        const field = str(r.args['field']) || (pk?.length === 1 ? pk[0]! : '');
        if (!field) continue;
        refs.push({
          name: str(r.args['name']) || `${target}_${f.name.value}`,
          target,
          sourceFields: [f.name.value],
          targetFields: [field],
          query: str(r.args['query']) || target,
          backQuery: str(r.args['references_query']) || self,
          isM2m: false,
          through: '',
        });
      }
    }

    if (m2mTable) {
      // A junction table has no relation fields of its own: each side reaches the other through it.
      const [a, b] = refs;
      if (a && b) {
        for (const [side, other] of [
          [a, b],
          [b, a],
        ] as const) {
          entry(side.target).relations.push({
            ...(side.name ? { name: side.name } : {}),
            direction: 'FORWARD',
            kind: 'M2M',
            fieldName: side.backQuery || other.target,
            dataObject: other.target,
            through: self,
            sourceKeys: side.targetFields,
            destinationKeys: side.sourceFields,
          });
        }
      }
    } else {
      for (const r of refs) {
        entry(self).relations.push({
          name: r.name,
          direction: 'FORWARD',
          kind: r.isM2m ? 'M2M' : 'FK',
          fieldName: r.query,
          dataObject: r.target,
          ...(r.isM2m && r.through ? { through: r.through } : {}),
          sourceKeys: r.sourceFields,
          destinationKeys: r.targetFields,
        });
        if (!r.isM2m && r.backQuery) {
          entry(r.target).relations.push({ name: r.name, direction: 'BACK', kind: 'FK', fieldName: r.backQuery, dataObject: self, sourceKeys: r.targetFields, destinationKeys: r.sourceFields });
        }
      }
    }

    for (const f of d.fields ?? []) joinOf(f, self, compiled, entry);
  }
  return out;
}

function joinOf(f: FieldDefinitionNode, self: string, compiled: (n: string) => string, entry: (name: string) => SdlObjectFacts): void {
  const join = dirs(f).find((x) => x.name === 'join');
  if (!join) return;
  const target = compiled(str(join.args['references_name']));
  if (!target) return;
  entry(self).relations.push({
    name: f.name.value,
    direction: 'FORWARD',
    kind: 'JOIN',
    fieldName: f.name.value,
    dataObject: target,
    sourceKeys: strs(join.args['source_fields']),
    destinationKeys: strs(join.args['references_fields']),
  });
}

/**
 * Merges facts of several sources and what the catalog says (primary keys, flags) into meta objects, one per
 * data object the server lists. Relations are deduplicated by field name (the first source to name one wins).
 */
export function mergeObjectFacts(base: ReadonlyMap<string, HugrMetaObject>, sdlFacts: readonly ReadonlyMap<string, SdlObjectFacts>[]): Map<string, HugrMetaObject> {
  const out = new Map<string, HugrMetaObject>();
  for (const [name, o] of base) out.set(name, { ...o, properties: { ...o.properties }, relations: [...o.relations] });
  for (const facts of sdlFacts) {
    for (const [name, f] of facts) {
      const o = out.get(name);
      if (!o) continue;
      if (f.defined) {
        if (f.originalName) o.originalName = f.originalName;
        if (!o.primaryKey.length && f.primaryKey?.length) o.primaryKey = f.primaryKey;
        o.properties = { ...f.properties, ...o.properties };
      }
      for (const r of f.relations) {
        const i = o.relations.findIndex((x) => x.fieldName === r.fieldName);
        if (i < 0) o.relations.push(r);
        else o.relations[i] = { ...r, ...o.relations[i], ...(o.relations[i]!.sourceKeys?.length ? {} : { sourceKeys: r.sourceKeys, destinationKeys: r.destinationKeys }) };
      }
    }
  }
  for (const o of out.values()) o.relations.sort((a, b) => ((a.fieldName ?? '') < (b.fieldName ?? '') ? -1 : (a.fieldName ?? '') > (b.fieldName ?? '') ? 1 : 0));
  return out;
}
