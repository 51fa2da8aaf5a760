import {
  Kind,
  type DefinitionNode,
  type DirectiveDefinitionNode,
  type DocumentNode,
  type NamedTypeNode,
  type SchemaDefinitionNode,
  type SchemaExtensionNode,
  type TypeDefinitionNode,
  type TypeExtensionNode,
  type TypeNode,
} from 'graphql';

/**
 * Makes a concatenation of SDL files buildable without losing what they say, for schemas as they are found in the
 * wild (generated schemas that omit declarations, several files that each define a root type, extensions):
 *
 * - a type defined again with the same kind is merged into the first definition (the later one becomes an
 *   extension, so its fields and directives are kept; a field defined twice keeps the later definition);
 *   defined again with another kind, the later definition is dropped;
 * - a directive declared twice keeps its first declaration;
 * - a second `schema { … }` becomes a schema extension; a lone `extend schema` becomes the schema definition;
 * - `extend type X` with no definition of X anywhere becomes the definition of X;
 * - definitions of introspection types (a prelude restating `__Type`) are dropped, GraphQL's own apply; extensions
 *   of them (`extend type __Type`) are dropped with a warning;
 * - a type referenced but never defined gets a placeholder definition: an interface when something implements
 *   it, an object when it is a union member or a root operation type, a scalar otherwise.
 *
 * Every change is reported as a warning.
 */
export function normalizeSdl(definitions: readonly DefinitionNode[]): { document: DocumentNode; warnings: string[]; placeholders: string[] } {
  const warnings: string[] = [];
  const fileOf = (node: { loc?: { source: { name: string }; startToken: { line: number } } | undefined }): string =>
    node.loc ? `${node.loc.source.name}:${node.loc.startToken.line}` : 'generated';

  // Pass 1: definitions.
  const typeDefs = new Map<string, TypeDefinitionNode>();
  const directiveDefs = new Map<string, DirectiveDefinitionNode>();
  let schemaDef: SchemaDefinitionNode | undefined;
  const merged = new Map<string, string[]>();
  const firstIndex = new Map<string, number>();
  const out: DefinitionNode[] = [];
  for (const def of definitions) {
    if (isTypeDefinition(def) && def.name.value.startsWith('__')) {
      // A prelude restating the introspection types: GraphQL's own definitions always apply.
      continue;
    } else if (isTypeDefinition(def)) {
      const name = def.name.value;
      const first = typeDefs.get(name);
      if (!first) {
        typeDefs.set(name, def);
        firstIndex.set(name, out.length);
        out.push(def);
      } else if (first.kind === def.kind) {
        if (!first.description && def.description) {
          // Extensions carry no description: keep the later one on the merged type rather than lose it.
          const withDescription = { ...first, description: def.description } as TypeDefinitionNode;
          typeDefs.set(name, withDescription);
          out[firstIndex.get(name)!] = withDescription;
        }
        const places = merged.get(name) ?? [fileOf(first)];
        places.push(fileOf(def));
        merged.set(name, places);
        out.push(toExtension(def));
      } else {
        warnings.push(
          `type ${name} is defined as ${kindWord(first.kind)} at ${fileOf(first)} and again as ${kindWord(def.kind)} at ${fileOf(def)}; kept the first definition and ignored the second`,
        );
      }
    } else if (def.kind === Kind.DIRECTIVE_DEFINITION) {
      const first = directiveDefs.get(def.name.value);
      if (!first) {
        directiveDefs.set(def.name.value, def);
        out.push(def);
      } else {
        warnings.push(`directive @${def.name.value} is declared at ${fileOf(first)} and again at ${fileOf(def)}; kept the first declaration`);
      }
    } else if (def.kind === Kind.SCHEMA_DEFINITION) {
      if (!schemaDef) {
        schemaDef = def;
        out.push(def);
      } else {
        warnings.push(`schema { … } is defined at ${fileOf(schemaDef)} and again at ${fileOf(def)}; merged the second into the first`);
        const ext: SchemaExtensionNode = { kind: Kind.SCHEMA_EXTENSION, ...(def.loc ? { loc: def.loc } : {}), directives: def.directives ?? [], operationTypes: def.operationTypes };
        out.push(ext);
      }
    } else {
      out.push(def);
    }
  }
  for (const [name, places] of [...merged].sort(([a], [b]) => cmp(a, b))) {
    warnings.push(`type ${name} is defined ${places.length} times (${places.join(', ')}); merged them into one type (a field defined twice keeps its later definition)`);
  }

  // Pass 2: extensions.
  const ignoredIntrospection = new Set<string>();
  const final: DefinitionNode[] = [];
  for (const def of out) {
    if (isTypeExtension(def) && !typeDefs.has(def.name.value)) {
      const name = def.name.value;
      if (name.startsWith('__')) {
        ignoredIntrospection.add(name);
        continue;
      }
      const asDef = toDefinition(def);
      typeDefs.set(name, asDef);
      final.push(asDef);
    } else if (def.kind === Kind.SCHEMA_EXTENSION && !schemaDef) {
      schemaDef = { kind: Kind.SCHEMA_DEFINITION, ...(def.loc ? { loc: def.loc } : {}), directives: def.directives ?? [], operationTypes: def.operationTypes ?? [] };
      final.push(schemaDef);
    } else {
      final.push(def);
    }
  }
  if (ignoredIntrospection.size) {
    warnings.push(`ignored extensions of introspection types (${[...ignoredIntrospection].sort(cmp).join(', ')}): they describe the server's introspection, not types of the API`);
  }

  // Pass 3: placeholders for referenced but undefined types.
  const roles = new Map<string, Role>();
  const use = (node: NamedTypeNode, role: Role): void => {
    const name = node.name.value;
    if (typeDefs.has(name) || BUILTIN_NAMES.has(name) || name.startsWith('__')) return;
    const prev = roles.get(name);
    if (!prev || ROLE_RANK[role] > ROLE_RANK[prev]) roles.set(name, role);
  };
  const useType = (t: TypeNode): void => {
    let cur = t;
    while (cur.kind !== Kind.NAMED_TYPE) cur = cur.type;
    use(cur, 'scalar');
  };
  for (const def of final) {
    switch (def.kind) {
      case Kind.OBJECT_TYPE_DEFINITION:
      case Kind.OBJECT_TYPE_EXTENSION:
      case Kind.INTERFACE_TYPE_DEFINITION:
      case Kind.INTERFACE_TYPE_EXTENSION:
        for (const i of def.interfaces ?? []) use(i, 'interface');
        for (const f of def.fields ?? []) {
          useType(f.type);
          for (const a of f.arguments ?? []) useType(a.type);
        }
        break;
      case Kind.INPUT_OBJECT_TYPE_DEFINITION:
      case Kind.INPUT_OBJECT_TYPE_EXTENSION:
        for (const f of def.fields ?? []) useType(f.type);
        break;
      case Kind.UNION_TYPE_DEFINITION:
      case Kind.UNION_TYPE_EXTENSION:
        for (const m of def.types ?? []) use(m, 'object');
        break;
      case Kind.DIRECTIVE_DEFINITION:
        for (const a of def.arguments ?? []) useType(a.type);
        break;
      case Kind.SCHEMA_DEFINITION:
      case Kind.SCHEMA_EXTENSION:
        for (const op of def.operationTypes ?? []) use(op.type, 'object');
        break;
      default:
        break;
    }
  }
  const placeholders = [...roles.keys()].sort(cmp);
  if (placeholders.length) {
    const byRole = (role: Role): string[] => placeholders.filter((n) => roles.get(n) === role);
    const parts = (['scalar', 'object', 'interface'] as const)
      .map((role) => [role, byRole(role)] as const)
      .filter(([, names]) => names.length)
      .map(([role, names]) => `${role === 'scalar' ? 'scalars' : role === 'object' ? 'object types' : 'interfaces'}: ${names.join(', ')}`);
    warnings.push(
      `${placeholders.length} type${placeholders.length === 1 ? ' is' : 's are'} referenced but not defined in the schema files; added empty placeholders so the schema loads (${parts.join('; ')}). Add the files that define them to \`schema\` to index them fully.`,
    );
    for (const name of placeholders) final.push(placeholder(name, roles.get(name)!));
  }
  return { document: { kind: Kind.DOCUMENT, definitions: final }, warnings, placeholders };
}

type Role = 'scalar' | 'object' | 'interface';
const ROLE_RANK: Record<Role, number> = { scalar: 0, object: 1, interface: 2 };
const BUILTIN_NAMES = new Set(['String', 'Int', 'Float', 'Boolean', 'ID']);

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function placeholder(name: string, role: Role): TypeDefinitionNode {
  const nameNode = { kind: Kind.NAME, value: name } as const;
  if (role === 'interface') return { kind: Kind.INTERFACE_TYPE_DEFINITION, name: nameNode, interfaces: [], directives: [], fields: [] };
  if (role === 'object') return { kind: Kind.OBJECT_TYPE_DEFINITION, name: nameNode, interfaces: [], directives: [], fields: [] };
  return { kind: Kind.SCALAR_TYPE_DEFINITION, name: nameNode, directives: [] };
}

function isTypeDefinition(def: DefinitionNode): def is TypeDefinitionNode {
  return (
    def.kind === Kind.SCALAR_TYPE_DEFINITION ||
    def.kind === Kind.OBJECT_TYPE_DEFINITION ||
    def.kind === Kind.INTERFACE_TYPE_DEFINITION ||
    def.kind === Kind.UNION_TYPE_DEFINITION ||
    def.kind === Kind.ENUM_TYPE_DEFINITION ||
    def.kind === Kind.INPUT_OBJECT_TYPE_DEFINITION
  );
}

function isTypeExtension(def: DefinitionNode): def is TypeExtensionNode {
  return (
    def.kind === Kind.SCALAR_TYPE_EXTENSION ||
    def.kind === Kind.OBJECT_TYPE_EXTENSION ||
    def.kind === Kind.INTERFACE_TYPE_EXTENSION ||
    def.kind === Kind.UNION_TYPE_EXTENSION ||
    def.kind === Kind.ENUM_TYPE_EXTENSION ||
    def.kind === Kind.INPUT_OBJECT_TYPE_EXTENSION
  );
}

function kindWord(kind: Kind): string {
  switch (kind) {
    case Kind.SCALAR_TYPE_DEFINITION:
      return 'a scalar';
    case Kind.OBJECT_TYPE_DEFINITION:
      return 'an object type';
    case Kind.INTERFACE_TYPE_DEFINITION:
      return 'an interface';
    case Kind.UNION_TYPE_DEFINITION:
      return 'a union';
    case Kind.ENUM_TYPE_DEFINITION:
      return 'an enum';
    case Kind.INPUT_OBJECT_TYPE_DEFINITION:
      return 'an input type';
    default:
      return kind;
  }
}

/** The same definition as an extension (descriptions are not part of extensions and stay with the first). */
function toExtension(def: TypeDefinitionNode): TypeExtensionNode {
  const loc = def.loc ? { loc: def.loc } : {};
  const directives = def.directives ?? [];
  switch (def.kind) {
    case Kind.SCALAR_TYPE_DEFINITION:
      return { kind: Kind.SCALAR_TYPE_EXTENSION, ...loc, name: def.name, directives };
    case Kind.OBJECT_TYPE_DEFINITION:
      return { kind: Kind.OBJECT_TYPE_EXTENSION, ...loc, name: def.name, interfaces: def.interfaces ?? [], directives, fields: def.fields ?? [] };
    case Kind.INTERFACE_TYPE_DEFINITION:
      return { kind: Kind.INTERFACE_TYPE_EXTENSION, ...loc, name: def.name, interfaces: def.interfaces ?? [], directives, fields: def.fields ?? [] };
    case Kind.UNION_TYPE_DEFINITION:
      return { kind: Kind.UNION_TYPE_EXTENSION, ...loc, name: def.name, directives, types: def.types ?? [] };
    case Kind.ENUM_TYPE_DEFINITION:
      return { kind: Kind.ENUM_TYPE_EXTENSION, ...loc, name: def.name, directives, values: def.values ?? [] };
    case Kind.INPUT_OBJECT_TYPE_DEFINITION:
      return { kind: Kind.INPUT_OBJECT_TYPE_EXTENSION, ...loc, name: def.name, directives, fields: def.fields ?? [] };
  }
}

function toDefinition(ext: TypeExtensionNode): TypeDefinitionNode {
  const loc = ext.loc ? { loc: ext.loc } : {};
  const directives = ext.directives ?? [];
  switch (ext.kind) {
    case Kind.SCALAR_TYPE_EXTENSION:
      return { kind: Kind.SCALAR_TYPE_DEFINITION, ...loc, name: ext.name, directives };
    case Kind.OBJECT_TYPE_EXTENSION:
      return { kind: Kind.OBJECT_TYPE_DEFINITION, ...loc, name: ext.name, interfaces: ext.interfaces ?? [], directives, fields: ext.fields ?? [] };
    case Kind.INTERFACE_TYPE_EXTENSION:
      return { kind: Kind.INTERFACE_TYPE_DEFINITION, ...loc, name: ext.name, interfaces: ext.interfaces ?? [], directives, fields: ext.fields ?? [] };
    case Kind.UNION_TYPE_EXTENSION:
      return { kind: Kind.UNION_TYPE_DEFINITION, ...loc, name: ext.name, directives, types: ext.types ?? [] };
    case Kind.ENUM_TYPE_EXTENSION:
      return { kind: Kind.ENUM_TYPE_DEFINITION, ...loc, name: ext.name, directives, values: ext.values ?? [] };
    case Kind.INPUT_OBJECT_TYPE_EXTENSION:
      return { kind: Kind.INPUT_OBJECT_TYPE_DEFINITION, ...loc, name: ext.name, directives, fields: ext.fields ?? [] };
  }
}
