/**
 * Routes declared by OpenAPI specs that openapi-generator turns into Spring controller interfaces at build time. The
 * generated code is not in the estate: the spec (YAML or JSON, possibly split over files by `$ref`) and the
 * generator's configuration in a pom.xml or build.gradle(.kts) are all there is. This module reads both and says,
 * for each operation, the interface the `spring` server generator makes and the name of the method that handles it,
 * by the generator's own naming rules (DefaultCodegen, AbstractJavaCodegen, SpringCodegen of 7.x), so that a class of
 * the estate implementing the interface can be given its routes. Client generators (java, kotlin, spring with the
 * spring-cloud or spring-http-interface library, …) make no routes and are passed over. Pure: every read goes
 * through the callbacks, the work is bounded, and a problem is a warning naming file:line, never an exception.
 */
import YAML from 'yaml';
import { flowTooDeep, MAX_FLOW_DEPTH } from '../config/yaml.js';
import { own } from '../model/own.js';
import type { CodeModel, TypeEntry } from '../model/model.js';
import { type Constants, type HttpRoute, joinPath as joinRoutePath, mappingOf, type Part } from './routes.js';
import { child, children, childText, lineIndex, parseExpression, parseScript, parseXml, type Arg, type Expr, type Statement, type XmlElement } from '../build/syntax.js';

export interface GeneratedApiOperation {
  /** Simple name of the generated interface, e.g. EntitlementApi. */
  interfaceName: string;
  /** The generator's apiPackage (its default, org.openapitools.api, when the build sets none); absent when the build computes it. */
  package?: string;
  /** As the spec writes it, or as the generator makes one up when the spec has none (`petsIdGet`). */
  operationId: string;
  /** The generated method: the handler is the estate's method of this name. */
  methodName: string;
  /** Upper case: GET, POST, … */
  httpMethod: string;
  /** As the spec writes it, e.g. /entitlements/{id} (the key under `paths` of the spec the build names). */
  path: string;
  /** Estate-relative file holding the operation (a `$ref`'d path item's file, not the root spec's). */
  specFile: string;
  /** Line of the operation's key (`get:`) in specFile. */
  line: number;
  /** Where the generator is configured: the pom or Gradle build file and the line of the execution or task. */
  buildFile: string;
  buildLine: number;
  /**
   * Set when the build generates server files too (`interfaceOnly` false) with the delegate pattern: the generated
   * `<interfaceName>Controller` calls the estate's implementation of this interface (`<interfaceName>Delegate`), whose
   * method `methodName` is the handler.
   */
  delegateName?: string;
  /**
   * Set when the build generates server files too (`interfaceOnly` false): this generated class (not in the estate)
   * is the controller, so the route is served even when no class of the estate implements anything.
   */
  generatedController?: string;
  /**
   * The class-level `@RequestMapping` value the generated code carries in front of `path`, when it carries one:
   * `${openapi.<title>.base-path:<the spec's server path>}`, a Spring placeholder resolved like any other. On the
   * generated controller (no `interfaceOnly`) or, with `requestMappingMode` api_interface, on the interface (where a
   * mapping on the implementing class itself wins, and this one wins over its superclasses').
   */
  classMapping?: string;
}

export interface GeneratedApiInput {
  /** The estate's pom.xml and build.gradle(.kts) files (settings files may be among them), estate-relative. */
  buildFiles: { path: string; text: string }[];
  /** Text of an estate-relative file, undefined when there is none. */
  readText: (rel: string) => string | undefined;
  /** Estate-relative paths of the files under an estate-relative directory, at any depth (`inputSpecRootDirectory`). */
  listFiles: (dirRel: string) => string[];
}

// ---------------------------------------------------------------------------------------------------------------
// Knowledge

const MAVEN_PLUGIN = { group: 'org.openapitools', artifact: 'openapi-generator-maven-plugin' };
/** Plugins that generate Spring code from specs by other rules, which this module does not model (named in a warning). */
const UNMODELLED_MAVEN_PLUGINS: Readonly<Record<string, string>> = {
  'swagger-codegen-maven-plugin': 'swagger-codegen',
};
const GRADLE_TASK_TYPE = 'GenerateTask';
const GRADLE_DEFAULT_TASK = 'openApiGenerate';

/** The one generator modelled: its libraries, and which serve routes. */
const SPRING_GENERATOR = 'spring';
const SPRING_LIBRARIES: Readonly<Record<string, 'server' | 'client'>> = {
  'spring-boot': 'server',
  'spring-mvc': 'server',
  'spring-cloud': 'client',
  'spring-http-interface': 'client',
};
const SPRING_DEFAULTS = { library: 'spring-boot', apiPackage: 'org.openapitools.api', apiNameSuffix: 'Api', apiNamePrefix: '', requestMappingMode: 'controller' };

/** Generators whose output serves routes by rules not modelled here: a build using one gets a warning, not routes. */
const UNMODELLED_SERVER_GENERATORS = new Set([
  'kotlin-spring', 'jaxrs-spec', 'jaxrs-jersey', 'jaxrs-resteasy', 'jaxrs-resteasy-eap', 'jaxrs-cxf', 'jaxrs-cxf-cdi', 'jaxrs-cxf-extended',
  'java-camel', 'java-helidon-server', 'java-micronaut-server', 'java-msf4j', 'java-pkmst', 'java-play-framework', 'java-undertow-server',
  'java-vertx-web', 'java-inflector', 'kotlin-server', 'kotlin-vertx', 'kotlin-misk', 'scala-play-server', 'scala-akka-http-server',
]);

/**
 * The settings read, by the name a build writes them under (Maven element, `configOptions` or `additionalProperties`
 * key, Gradle property) — the generator's names, plus the old Maven `language` for `generatorName`.
 */
const SETTING_NAMES: Readonly<Record<string, Setting>> = {
  generatorName: 'generatorName', language: 'generatorName', inputSpec: 'inputSpec', inputSpecRootDirectory: 'inputSpecRootDirectory',
  library: 'library', apiPackage: 'apiPackage', apiNameSuffix: 'apiNameSuffix', apiNamePrefix: 'apiNamePrefix',
  interfaceOnly: 'interfaceOnly', delegatePattern: 'delegatePattern', useTags: 'useTags', requestMappingMode: 'requestMappingMode',
  title: 'title', apiFirst: 'apiFirst', generateApis: 'generateApis', apisToGenerate: 'apisToGenerate', skip: 'skip',
  removeOperationIdPrefix: 'removeOperationIdPrefix', removeOperationIdPrefixDelimiter: 'removeOperationIdPrefixDelimiter',
  removeOperationIdPrefixCount: 'removeOperationIdPrefixCount', operationIdNameMappings: 'operationIdNameMappings',
  operationIdNameMapping: 'operationIdNameMappings', configurationFile: 'configurationFile', configFile: 'configurationFile',
};
type Setting =
  | 'generatorName' | 'inputSpec' | 'inputSpecRootDirectory' | 'library' | 'apiPackage' | 'apiNameSuffix' | 'apiNamePrefix' | 'interfaceOnly'
  | 'delegatePattern' | 'useTags' | 'requestMappingMode' | 'title' | 'apiFirst' | 'generateApis' | 'apisToGenerate' | 'skip'
  | 'removeOperationIdPrefix' | 'removeOperationIdPrefixDelimiter' | 'removeOperationIdPrefixCount' | 'operationIdNameMappings' | 'configurationFile';
/** Gradle properties holding maps (`configOptions.set(mapOf(…))`, Groovy `configOptions = [k: v]`). */
const GRADLE_MAPS = new Set(['configOptions', 'additionalProperties', 'globalProperties', 'operationIdNameMappings']);

/** The order DefaultGenerator visits a path item's operations (it matters for the `_0` suffixes of duplicate ids). */
const PATH_METHODS = ['get', 'head', 'put', 'post', 'delete', 'patch', 'options', 'trace'] as const;

/** AbstractJavaCodegen's reserved words (compared lower-cased); SpringCodegen takes `file` off the list. */
const RESERVED_WORDS = new Set([
  'object', 'list', 'localvarpath', 'localvarqueryparams', 'localvarcollectionqueryparams', 'localvarheaderparams', 'localvarcookieparams',
  'localvarformparams', 'localvarpostbody', 'localvaraccepts', 'localvaraccept', 'localvarcontenttypes', 'localvarcontenttype',
  'localvarauthnames', 'localreturntype', 'apiclient', 'apiexception', 'apiresponse', 'configuration', 'stringutil',
  'abstract', 'continue', 'for', 'new', 'switch', 'assert', 'default', 'if', 'package', 'synchronized', 'boolean', 'do', 'goto', 'private',
  'this', 'break', 'double', 'implements', 'protected', 'throw', 'byte', 'else', 'import', 'public', 'throws', 'case', 'enum', 'instanceof',
  'return', 'transient', 'catch', 'extends', 'int', 'short', 'try', 'char', 'final', 'interface', 'static', 'void', 'class', 'finally', 'long',
  'strictfp', 'volatile', 'const', 'float', 'native', 'super', 'while', 'null', 'offsetdatetime', 'localdate', 'localtime',
]);

/** DefaultCodegen.sanitizeName, in order: brackets and punctuation to `_`, then anything but a word character removed. */
const SANITIZE_STEPS: readonly [RegExp, string][] = [
  [/\[\]/g, ''], [/\[/g, '_'], [/\]/g, ''], [/\(/g, '_'], [/\)/g, ''], [/\./g, '_'], [/-/g, '_'], [/\|/g, '_'], [/ /g, '_'], [/\//g, '_'], [/\\/g, '_'],
  [/[^A-Za-z0-9_]/g, ''],
];

const SPEC_EXTENSIONS = /\.(?:ya?ml|json)$/i;
const MAX_SPEC_BYTES = 16 * 1024 * 1024;
const MAX_SPEC_FILES = 2000;
const MAX_REF_HOPS = 16;
const MAX_OPERATIONS = 50_000;
const MAX_NAME = 512;
const MAX_EVAL_DEPTH = 16;
const MAX_SCRIPT_DEPTH = 32;
const MAX_XML_MERGE_DEPTH = 16;

// ---------------------------------------------------------------------------------------------------------------
// Entry point

/** What one generator execution (a Maven execution, a Gradle task) is configured with. */
interface GeneratorConfig {
  file: string;
  line: number;
  moduleDir: string;
  /** Directories a relative spec path may be relative to, nearest first (the module's, then the build root's). */
  relativeTo: string[];
  settings: Map<Setting, Value>;
  maps: { configOptions: Map<string, Value>; additionalProperties: Map<string, Value>; globalProperties?: Map<string, Value> };
  /** Gradle `apiFilesConstrainedTo`. */
  apiFiles?: string[];
}

/** A setting's text (paths as estate paths: see `ESTATE`), or why the build does not determine it. */
interface Value {
  value?: string;
  reason?: string;
  line: number;
}

/** Marks an estate-relative path (`${project.basedir}`, `$projectDir`, …) inside a value, so it can be told from relative and machine paths. */
const ESTATE = '\u0000';

export function generatedApiOperations(given: GeneratedApiInput): { operations: GeneratedApiOperation[]; warnings: string[] } {
  const warnings: string[] = [];
  const input: GeneratedApiInput = {
    buildFiles: Array.isArray(given.buildFiles) ? given.buildFiles : [],
    readText: (rel) => {
      try {
        const text = given.readText(rel);
        return typeof text === 'string' ? text : undefined;
      } catch {
        return undefined;
      }
    },
    listFiles: (dir) => {
      try {
        const listed = given.listFiles(dir);
        return Array.isArray(listed) ? listed.filter((f): f is string => typeof f === 'string') : [];
      } catch {
        return [];
      }
    },
  };
  const operations: GeneratedApiOperation[] = [];
  const files = [...input.buildFiles].filter((f) => typeof f?.path === 'string' && typeof f.text === 'string').sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const configs: GeneratorConfig[] = [];
  try {
    configs.push(...mavenConfigs(files.filter((f) => baseName(f.path) === 'pom.xml'), warnings));
  } catch (err) {
    warnings.push(`openapi-generator: Maven builds not read (${errorText(err)})`);
  }
  const settingsDirs = new Set(files.filter((f) => /^settings\.gradle(\.kts)?$/.test(baseName(f.path))).map((f) => dirOf(f.path)));
  for (const f of files.filter((f) => /^build\.gradle(\.kts)?$/.test(baseName(f.path)))) {
    try {
      configs.push(...gradleConfigs(f, settingsDirs, input.readText));
    } catch (err) {
      warnings.push(`${f.path}:1: openapi-generator configuration not read (${errorText(err)})`);
    }
  }
  const specs = new SpecReader(input.readText, warnings);
  const seen = new Set<string>();
  for (const config of configs) {
    try {
      for (const op of configOperations(config, specs, input, warnings)) {
        const key = [op.buildFile, op.package ?? '', op.interfaceName, op.methodName, op.httpMethod, op.path].join('\u0000');
        if (seen.has(key)) continue;
        seen.add(key);
        if (operations.length >= MAX_OPERATIONS) {
          warnings.push(`${config.file}:${config.line}: more than ${MAX_OPERATIONS} generated API operations; the rest are not read`);
          return { operations, warnings };
        }
        operations.push(op);
      }
    } catch (err) {
      warnings.push(`${config.file}:${config.line}: openapi-generator configuration not read (${errorText(err)})`);
    }
  }
  return { operations, warnings };
}

/** The operations one generator configuration makes routes of: none unless it is the `spring` server generator. */
function configOperations(config: GeneratorConfig, specs: SpecReader, input: GeneratedApiInput, warnings: string[]): GeneratedApiOperation[] {
  const at = `${config.file}:${config.line}`;
  const fileSettings = configurationFile(config, input.readText, warnings);
  const setting = (name: Setting): Value | undefined => config.settings.get(name) ?? config.maps.configOptions.get(name) ?? config.maps.additionalProperties.get(name) ?? fileSettings.get(name);
  const text = (name: Setting): string | undefined => setting(name)?.value;
  const generator = setting('generatorName');
  if (!generator) return [];
  if (generator.value === undefined) {
    warnings.push(`${config.file}:${generator.line}: openapi-generator generatorName is not determined by the build (${generator.reason}); its routes, if any, are not read`);
    return [];
  }
  const name = generator.value.trim();
  if (name !== SPRING_GENERATOR) {
    if (UNMODELLED_SERVER_GENERATORS.has(name)) warnings.push(`${config.file}:${generator.line}: openapi-generator ${name} generates server code this index does not model; its routes are not read`);
    return [];
  }
  if (isTrue(text('skip')) || isTrue(text('apiFirst'))) return [];
  const library = (text('library') ?? SPRING_DEFAULTS.library).trim();
  const kind = own(SPRING_LIBRARIES, library);
  if (kind === undefined) {
    warnings.push(`${at}: openapi-generator spring library ${library} is unknown; its routes are not read`);
    return [];
  }
  if (kind === 'client') return [];
  const selected = apiSelection(config, text('generateApis'), text('apisToGenerate'));
  if (selected === null) return [];
  const specFiles = specFilesOf(config, setting('inputSpec'), setting('inputSpecRootDirectory'), input, warnings);
  if (!specFiles.length) return [];
  const apiPackage = setting('apiPackage');
  const naming: Naming = {
    useTags: isTrue(text('useTags')),
    prefix: text('apiNamePrefix') ?? SPRING_DEFAULTS.apiNamePrefix,
    suffix: text('apiNameSuffix') ?? SPRING_DEFAULTS.apiNameSuffix,
    removePrefix: isTrue(text('removeOperationIdPrefix')) ? { delimiter: text('removeOperationIdPrefixDelimiter') ?? '_', count: Number.parseInt(text('removeOperationIdPrefixCount') ?? '1', 10) } : undefined,
    idMappings: pairs(text('operationIdNameMappings')),
  };
  const interfaceOnly = isTrue(text('interfaceOnly'));
  const delegate = isTrue(text('delegatePattern')) && !interfaceOnly;
  const mode = (text('requestMappingMode') ?? SPRING_DEFAULTS.requestMappingMode).trim();
  const mapped = mode === 'api_interface' || (!interfaceOnly && mode === 'controller');
  // Specs under an inputSpecRootDirectory are merged into one before generation: their operations are named together.
  const read = specFiles.map((f) => specs.operationsOf(f, specFiles.length === 1)).filter((s): s is SpecRead => s !== undefined);
  const first = read[0];
  if (!first) return [];
  const classMapping = mapped ? `\${openapi.${text('title') ?? springTitle(first.title)}.base-path:${first.basePath}}` : undefined;
  const out: GeneratedApiOperation[] = [];
  for (const op of nameOperations(read.flatMap((s) => s.operations), naming, warnings)) {
    if (selected && !selected.has(op.group)) continue;
    out.push({
      interfaceName: op.interfaceName,
      ...(apiPackage === undefined ? { package: SPRING_DEFAULTS.apiPackage } : apiPackage.value !== undefined ? { package: apiPackage.value.trim() } : {}),
      operationId: op.operationId,
      methodName: op.methodName,
      httpMethod: op.method.toUpperCase(),
      path: op.path,
      specFile: op.file,
      line: op.line,
      buildFile: config.file,
      buildLine: config.line,
      ...(delegate ? { delegateName: `${op.interfaceName}Delegate` } : {}),
      ...(!interfaceOnly ? { generatedController: `${op.interfaceName}Controller` } : {}),
      ...(classMapping !== undefined ? { classMapping } : {}),
    });
  }
  return out;
}

/**
 * Which APIs (group names: the sanitized tag or the path segment) the build generates: null for none, undefined for
 * all. Maven's `generateApis` (default true) with `apisToGenerate`; Gradle's global properties, where naming only
 * `models` or `supportingFiles` leaves the APIs out, and `apiFilesConstrainedTo`.
 */
function apiSelection(config: GeneratorConfig, generateApis: string | undefined, apisToGenerate: string | undefined): Set<string> | null | undefined {
  if (generateApis !== undefined && !isTrue(generateApis)) return null;
  const global = config.maps.globalProperties;
  let list = apisToGenerate;
  if (global && global.size) {
    const apis = global.get('apis');
    if (apis === undefined && (global.has('models') || global.has('supportingFiles'))) return null;
    if (apis?.value) list = apis.value;
  }
  const names = [...(list ?? '').split(','), ...(config.apiFiles ?? [])].map((s) => s.trim()).filter((s) => s);
  return names.length ? new Set(names) : undefined;
}

/** The spec files a configuration reads: every spec under `inputSpecRootDirectory` (merged by the plugin into the one it generates from), else `inputSpec`. */
function specFilesOf(config: GeneratorConfig, inputSpec: Value | undefined, rootDirectory: Value | undefined, input: GeneratedApiInput, warnings: string[]): string[] {
  const at = (v: Value) => `${config.file}:${v.line}`;
  if (rootDirectory) {
    if (rootDirectory.value === undefined) {
      warnings.push(`${at(rootDirectory)}: openapi-generator inputSpecRootDirectory is not determined by the build (${rootDirectory.reason}); its routes are not read`);
      return [];
    }
    const dir = estatePath(config, rootDirectory.value, () => true);
    if (typeof dir !== 'string') {
      warnings.push(`${at(rootDirectory)}: openapi-generator inputSpecRootDirectory ${rootDirectory.value.replaceAll(ESTATE, '')} ${dir.reason}; its routes are not read`);
      return [];
    }
    const found = input.listFiles(dir).filter((f) => SPEC_EXTENSIONS.test(f)).map((f) => normalize(f)).filter((f): f is string => f !== undefined).sort();
    if (!found.length) warnings.push(`${at(rootDirectory)}: openapi-generator inputSpecRootDirectory ${dir || '.'} holds no spec in the estate; its routes are not read`);
    return found.slice(0, MAX_SPEC_FILES);
  }
  if (!inputSpec) return [];
  if (inputSpec.value === undefined) {
    warnings.push(`${at(inputSpec)}: openapi-generator inputSpec is not determined by the build (${inputSpec.reason}); its routes are not read`);
    return [];
  }
  const file = estatePath(config, inputSpec.value, (p) => input.readText(p) !== undefined);
  if (typeof file !== 'string') {
    warnings.push(`${at(inputSpec)}: openapi-generator inputSpec ${inputSpec.value.replaceAll(ESTATE, '').trim()} ${file.reason}; its routes are not read`);
    return [];
  }
  return [file];
}

/**
 * An estate-relative path for a path setting: an estate path as is, a relative one against the module (then the
 * build's root, where Maven may be started), a URL or a machine path refused with the reason.
 */
function estatePath(config: GeneratorConfig, raw: string, exists: (path: string) => boolean): string | { reason: string } {
  const text = raw.trim().replaceAll('\\', '/');
  const marker = text.lastIndexOf(ESTATE);
  if (marker >= 0) {
    const p = normalize(text.slice(marker + 1));
    return p === undefined ? { reason: 'lies outside the estate' } : exists(p) ? p : { reason: 'is not in the estate' };
  }
  if (/^[a-z][a-z0-9+.-]+:/i.test(text)) return { reason: 'is a URL, outside the estate' };
  if (text.startsWith('/') || /^[a-z]:\//i.test(text)) return { reason: 'is a path on the build machine, outside the estate' };
  let first: string | undefined;
  for (const dir of config.relativeTo) {
    const p = normalize(joinPath(dir, text));
    if (p === undefined) continue;
    first ??= p;
    if (exists(p)) return p;
  }
  return { reason: first === undefined ? 'lies outside the estate' : 'is not in the estate' };
}

/** Settings from the `configurationFile` (Maven) or `configFile` (Gradle) a build names: a JSON or YAML map. */
function configurationFile(config: GeneratorConfig, readText: (rel: string) => string | undefined, warnings: string[]): Map<Setting, Value> {
  const out = new Map<Setting, Value>();
  const named = config.settings.get('configurationFile');
  if (!named?.value) return out;
  const file = estatePath(config, named.value, (p) => readText(p) !== undefined);
  if (typeof file !== 'string') {
    warnings.push(`${config.file}:${named.line}: openapi-generator configuration file ${named.value.replaceAll(ESTATE, '').trim()} ${file.reason}; its settings are not read`);
    return out;
  }
  const loaded = loadYaml(file, readText(file) ?? '', warnings);
  if (!loaded || !YAML.isMap(loaded.doc.contents)) return out;
  const take = (map: unknown): void => {
    if (!YAML.isMap(map)) return;
    for (const pair of map.items) {
      const key = YAML.isScalar(pair.key) ? String(pair.key.value) : undefined;
      if (key === 'additionalProperties' || key === 'configOptions') take(pair.value);
      const setting = key === undefined ? undefined : own(SETTING_NAMES, key);
      if (setting && YAML.isScalar(pair.value) && !out.has(setting)) out.set(setting, { value: String(pair.value.value), line: named.line });
    }
  };
  take(loaded.doc.contents);
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// Maven

interface Pom {
  file: string;
  dir: string;
  root: XmlElement;
  properties: Map<string, string>;
  groupId?: string;
  artifactId?: string;
  version?: string;
  packaging?: string;
  parent?: { group?: string; artifact?: string; relativePath: string | null };
}

/** The generate executions of openapi-generator-maven-plugin each pom runs, with its parents' plugin configuration merged as Maven merges it. */
function mavenConfigs(files: readonly { path: string; text: string }[], warnings: string[]): GeneratorConfig[] {
  if (!files.some((f) => f.text.includes(MAVEN_PLUGIN.artifact) || Object.keys(UNMODELLED_MAVEN_PLUGINS).some((a) => f.text.includes(a)))) return [];
  const poms = new Map<string, Pom>();
  for (const f of files) {
    const { root, error } = parseXml(f.text);
    // Poms that never mention a generator are the build-files reader's to report.
    const ours = f.text.includes(MAVEN_PLUGIN.artifact) || Object.keys(UNMODELLED_MAVEN_PLUGINS).some((a) => f.text.includes(a));
    if (error && ours) warnings.push(`${f.path}:${/line (\d+)/.exec(error)?.[1] ?? 1}: cannot read the pom (${error}); its openapi-generator configuration is read as far as it goes`);
    if (!root || root.name !== 'project') continue;
    const properties = new Map<string, string>();
    for (const p of child(root, 'properties')?.children ?? []) properties.set(p.name, p.text.trim());
    const parentEl = child(root, 'parent');
    const rel = child(parentEl, 'relativePath');
    poms.set(f.path, {
      file: f.path,
      dir: dirOf(f.path),
      root,
      properties,
      ...optional('groupId', childText(root, 'groupId')),
      ...optional('artifactId', childText(root, 'artifactId')),
      ...optional('version', childText(root, 'version')),
      ...optional('packaging', childText(root, 'packaging')),
      ...(parentEl ? { parent: { ...optional('group', childText(parentEl, 'groupId')), ...optional('artifact', childText(parentEl, 'artifactId')), relativePath: rel ? rel.text.trim() || null : '../pom.xml' } } : {}),
    });
  }
  const byArtifact = new Map<string, Pom[]>();
  for (const pom of poms.values()) if (pom.artifactId) (byArtifact.get(pom.artifactId) ?? byArtifact.set(pom.artifactId, []).get(pom.artifactId)!).push(pom);
  const lineageOf = (pom: Pom): Pom[] => {
    const out: Pom[] = [];
    for (let p: Pom | undefined = pom; p && !out.includes(p) && out.length < 32; p = parentPom(p, poms, byArtifact)) out.push(p);
    return out;
  };
  const configs: GeneratorConfig[] = [];
  for (const pom of poms.values()) {
    if (pom.packaging === 'pom') continue;
    const lineage = lineageOf(pom);
    for (const [artifact, tool] of Object.entries(UNMODELLED_MAVEN_PLUGINS)) {
      const p = buildPlugins(pom.root, 'plugins').find((e) => childText(e, 'artifactId') === artifact);
      if (p) warnings.push(`${pom.file}:${p.line}: ${tool} generates code by rules this index does not model; routes from its specs are not read`);
    }
    const declared = pluginDeclarations(lineage);
    if (!declared.active) continue;
    const interpolate = (text: string): { value?: string; reason?: string } => interpolateMaven(text, pom, lineage, 0);
    for (const exec of declared.executions) {
      const goals = children(child(exec.element, 'goals'), 'goal').map((g) => g.text.trim());
      if (!goals.includes('generate') || childText(exec.element, 'phase') === 'none') continue;
      const configuration = mergeXml(child(exec.element, 'configuration'), declared.configuration, 0);
      configs.push(mavenConfig(pom, lineage, exec.file, exec.element.line, configuration, interpolate));
    }
  }
  return configs;
}

/** The parent pom when the estate holds it: at its relative path (default ../pom.xml), else the one pom of its coordinates. */
function parentPom(pom: Pom, poms: ReadonlyMap<string, Pom>, byArtifact: ReadonlyMap<string, Pom[]>): Pom | undefined {
  const p = pom.parent;
  if (!p?.artifact) return undefined;
  if (p.relativePath !== null) {
    const rel = p.relativePath.endsWith('.xml') ? p.relativePath : joinPath(p.relativePath, 'pom.xml');
    const path = normalize(joinPath(pom.dir, rel));
    const at = path === undefined ? undefined : poms.get(path);
    if (at && at.artifactId === p.artifact) return at;
  }
  const candidates = (byArtifact.get(p.artifact) ?? []).filter((c) => c !== pom && (c.groupId ?? c.parent?.group) === p.group);
  return candidates.length === 1 ? candidates[0] : undefined;
}

/** `build/plugins` or `build/pluginManagement/plugins` children named plugin. */
function buildPlugins(root: XmlElement, where: 'plugins' | 'pluginManagement'): XmlElement[] {
  const build = child(root, 'build');
  return children(where === 'plugins' ? child(build, 'plugins') : child(child(build, 'pluginManagement'), 'plugins'), 'plugin');
}

function isGeneratorPlugin(plugin: XmlElement): boolean {
  const group = childText(plugin, 'groupId');
  return childText(plugin, 'artifactId') === MAVEN_PLUGIN.artifact && (group === undefined || group === MAVEN_PLUGIN.group);
}

/**
 * The plugin as the pom runs it: declarations from the farthest parent to the pom itself (pluginManagement before
 * plugins at each level), the nearer one dominant; executions merged by id. Active only when some build/plugins
 * declares it (pluginManagement alone configures, never runs).
 */
function pluginDeclarations(lineage: readonly Pom[]): { active: boolean; configuration?: XmlElement; executions: { element: XmlElement; file: string }[] } {
  let active = false;
  let configuration: XmlElement | undefined;
  const executions = new Map<string, { element: XmlElement; file: string }>();
  for (const pom of [...lineage].reverse()) {
    const own = pom === lineage[0];
    const declarations = [...buildPlugins(pom.root, 'pluginManagement').map((p) => ({ p, runs: false })), ...buildPlugins(pom.root, 'plugins').map((p) => ({ p, runs: true }))];
    for (const { p, runs } of declarations) {
      if (!isGeneratorPlugin(p)) continue;
      if (runs && !own && childText(p, 'inherited') === 'false') continue;
      if (runs) active = true;
      configuration = mergeXml(child(p, 'configuration'), configuration, 0);
      for (const e of children(child(p, 'executions'), 'execution')) {
        if (!own && childText(e, 'inherited') === 'false') continue;
        const id = childText(e, 'id') || 'default';
        const before = executions.get(id);
        executions.set(id, { element: mergeXml(e, before?.element, 0)!, file: pom.file });
      }
    }
  }
  return { active, ...(configuration ? { configuration } : {}), executions: [...executions.values()] };
}

/** Maven's configuration merge, the dominant side winning: same-named children merged, the rest kept; text from the dominant side. */
function mergeXml(dominant: XmlElement | undefined, recessive: XmlElement | undefined, depth: number): XmlElement | undefined {
  if (!dominant) return recessive;
  if (!recessive || depth > MAX_XML_MERGE_DEPTH) return dominant;
  if (!dominant.children.length && dominant.text.trim()) return dominant;
  const merged: XmlElement[] = [];
  const names = new Set<string>();
  for (const c of dominant.children) {
    const first = !names.has(c.name);
    names.add(c.name);
    merged.push(first ? mergeXml(c, child(recessive, c.name), depth + 1)! : c);
  }
  for (const c of recessive.children) if (!names.has(c.name)) merged.push(c);
  return { name: dominant.name, line: dominant.line, children: merged, text: dominant.text.trim() ? dominant.text : recessive.text };
}

function mavenConfig(pom: Pom, lineage: readonly Pom[], file: string, line: number, configuration: XmlElement | undefined, interpolate: (text: string) => { value?: string; reason?: string }): GeneratorConfig {
  const value = (el: XmlElement): Value => ({ ...interpolate(el.text.trim()), line: el.line });
  const settings = new Map<Setting, Value>();
  const configOptions = new Map<string, Value>();
  const additionalProperties = new Map<string, Value>();
  for (const el of configuration?.children ?? []) {
    const setting = own(SETTING_NAMES, el.name);
    if (setting && !settings.has(setting)) settings.set(setting, value(el));
    else if (el.name === 'configOptions') for (const o of el.children) configOptions.set(o.name, value(o));
    else if (el.name === 'additionalProperties') {
      const entries = el.children.length ? el.children.map((c) => ({ text: c.text, line: c.line })) : el.text.split(',').map((text) => ({ text, line: el.line }));
      for (const e of entries) {
        const eq = e.text.indexOf('=');
        if (eq > 0) additionalProperties.set(e.text.slice(0, eq).trim(), { ...interpolate(e.text.slice(eq + 1).trim()), line: e.line });
      }
    }
  }
  const top = lineage[lineage.length - 1] ?? pom;
  return { file, line, moduleDir: pom.dir, relativeTo: [...new Set([pom.dir, top.dir])], settings, maps: { configOptions, additionalProperties } };
}

/** `${…}` from the pom's properties and its estate parents' (the nearest wins), and the project values a path needs. */
function interpolateMaven(text: string, pom: Pom, lineage: readonly Pom[], depth: number): { value?: string; reason?: string } {
  if (!text.includes('${')) return { value: text };
  if (depth > MAX_EVAL_DEPTH) return { reason: `properties nested deeper than ${MAX_EVAL_DEPTH}` };
  let out = '';
  let i = 0;
  while (i < text.length) {
    const start = text.indexOf('${', i);
    if (start < 0) break;
    const end = text.indexOf('}', start);
    if (end < 0) break;
    out += text.slice(i, start);
    const name = text.slice(start + 2, end).trim();
    const own = lineage.find((p) => p.properties.has(name))?.properties.get(name);
    const v = own !== undefined ? interpolateMaven(own, pom, lineage, depth + 1) : mavenBuiltIn(name, pom, lineage);
    if (v.value === undefined) return { reason: v.reason ?? `property ${name} is set by no pom in the estate` };
    out += v.value;
    i = end + 1;
  }
  return { value: out + text.slice(i) };
}

function mavenBuiltIn(name: string, pom: Pom, lineage: readonly Pom[]): { value?: string; reason?: string } {
  const key = name.replace(/^(?:project|pom)\./, '');
  const estate = (dir: string) => `${ESTATE}${dir}`;
  switch (key) {
    case 'basedir':
      return { value: estate(pom.dir) };
    case 'build.directory':
      return { value: estate(joinPath(pom.dir, 'target')) };
    case 'parent.basedir':
      return lineage[1] ? { value: estate(lineage[1].dir) } : { reason: `property ${name}: the parent pom is not in the estate` };
    case 'artifactId':
      return pom.artifactId !== undefined ? { value: pom.artifactId } : {};
    case 'groupId':
      return { ...optional('value', lineage.map((p) => p.groupId ?? p.parent?.group).find((g) => g !== undefined)) };
    case 'version':
      return { ...optional('value', lineage.map((p) => p.version).find((v) => v !== undefined)) };
    default:
      return name.startsWith('env.') ? { reason: `property ${name} is an environment variable of the build machine` } : { reason: `property ${name} is set by no pom in the estate` };
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Gradle

interface GradleScope {
  text: string;
  lineStarts: number[];
  moduleDir: string;
  rootDir: string;
  decls: Map<string, Expr>;
  properties: Map<string, string>;
}

/** A Gradle task's configuration, as statements set it. */
interface TaskSettings {
  line: number;
  typed: boolean;
  settings: Map<Setting, Value>;
  maps: Map<string, Map<string, Value>>;
  apiFiles?: string[];
}

/** Kotlin DSL forms the script reader does not take, rewritten on their own line into forms it does (lines kept). */
const KOTLIN_REWRITES: readonly [RegExp, (...groups: string[]) => string][] = [
  // `val api by tasks.registering(GenerateTask::class) {` / `registering<GenerateTask>` → `tasks.register("api", …) {`
  [/\bval[ \t]+([A-Za-z_]\w*)[ \t]+by[ \t]+tasks[ \t]*\.[ \t]*(?:registering|creating)[ \t]*(?:<[ \t]*([\w.]+)[ \t]*>)?[ \t]*(\()?/g, (_m, name, type, paren) => `tasks.register${type ? `$${type.split('.').pop()}` : ''}("${name}"${paren ? ', ' : ')'}`],
  // `register<GenerateTask>(` → `register$GenerateTask(` (a type argument becomes part of the name)
  [/\b(register|create|named|withType|getByName|task)[ \t]*<[ \t]*([\w.]+)[ \t]*>/g, (_m, call, type) => `${call}$${type.split('.').pop()}`],
];

function gradleConfigs(f: { path: string; text: string }, settingsDirs: ReadonlySet<string>, readText: (rel: string) => string | undefined): GeneratorConfig[] {
  if (!f.text.includes(GRADLE_DEFAULT_TASK) && !f.text.includes(GRADLE_TASK_TYPE)) return [];
  let text = f.text;
  for (const [pattern, replace] of KOTLIN_REWRITES) text = text.replace(pattern, (...m: string[]) => replace(...m.map((g) => g ?? '')));
  const statements = parseScript(text);
  const moduleDir = dirOf(f.path);
  // Gradle's root project: the nearest directory upward holding a settings file.
  let rootDir = moduleDir;
  for (let d: string | undefined = moduleDir; d !== undefined; d = parentDirOf(d)) {
    if (settingsDirs.has(d)) {
      rootDir = d;
      break;
    }
  }
  const lineStarts = [0];
  for (let i = 0; i < f.text.length; i++) if (f.text.charCodeAt(i) === 10) lineStarts.push(i + 1);
  const scope: GradleScope = { text: f.text, lineStarts, moduleDir, rootDir, decls: new Map(), properties: gradleProperties(readText(joinPath(rootDir, 'gradle.properties'))) };
  for (const s of statements) if (s.k === 'decl' && s.value && !scope.decls.has(s.name)) scope.decls.set(s.name, s.value);
  const tasks = new Map<string, TaskSettings>();
  const defaults: TaskSettings = { line: 0, typed: true, settings: new Map(), maps: new Map() };
  let anonymous = 0;
  const visit = (list: readonly Statement[], inTasks: boolean, depth: number): void => {
    if (depth > MAX_SCRIPT_DEPTH) return;
    for (const s of list) {
      if (s.k !== 'block') continue;
      const head = taskHead(s.head, inTasks);
      if (head === 'tasks') visit(s.body, true, depth + 1);
      else if (head === 'all') readTaskBody(s.body, defaults, scope);
      else if (head) {
        const key = head.name ?? `?${s.line}#${anonymous++}`;
        let task = tasks.get(key);
        if (!task) tasks.set(key, (task = { line: s.line, typed: false, settings: new Map(), maps: new Map() }));
        task.typed ||= head.typed || key === GRADLE_DEFAULT_TASK;
        readTaskBody(s.body, task, scope);
      } else visit(s.body, inTasks, depth + 1);
    }
  };
  visit(statements, false, 0);
  const configs: GeneratorConfig[] = [];
  for (const task of tasks.values()) {
    if (!task.typed) continue;
    const settings = new Map([...defaults.settings, ...task.settings]);
    const map = (name: string) => new Map([...(defaults.maps.get(name) ?? []), ...(task.maps.get(name) ?? [])]);
    const globalProperties = map('globalProperties');
    const idMappings = map('operationIdNameMappings');
    if (idMappings.size && !settings.has('operationIdNameMappings')) settings.set('operationIdNameMappings', { value: [...idMappings].map(([k, v]) => `${k}=${v.value ?? ''}`).join(','), line: task.line });
    const apiFiles = task.apiFiles ?? defaults.apiFiles;
    configs.push({
      file: f.path,
      line: task.line,
      moduleDir,
      relativeTo: [moduleDir],
      settings,
      maps: { configOptions: map('configOptions'), additionalProperties: map('additionalProperties'), ...(globalProperties.size ? { globalProperties } : {}) },
      ...(apiFiles ? { apiFiles } : {}),
    });
  }
  return configs;
}

/**
 * What a block's head configures: the `openApiGenerate` extension or task, a task registered or named (typed when
 * it names GenerateTask), every GenerateTask (`withType`), or the `tasks { … }` container.
 */
function taskHead(head: Expr, inTasks: boolean): 'tasks' | 'all' | { name?: string; typed: boolean } | undefined {
  if (head.k === 'id') {
    if (head.name === 'tasks') return 'tasks';
    if (head.name === GRADLE_DEFAULT_TASK) return { name: GRADLE_DEFAULT_TASK, typed: true };
    if (inTasks && head.name === `withType$${GRADLE_TASK_TYPE}`) return 'all';
    return undefined;
  }
  if (head.k === 'member') {
    const name = dotted(head);
    if (name === `tasks.${GRADLE_DEFAULT_TASK}`) return { name: GRADLE_DEFAULT_TASK, typed: true };
    if (name === `tasks.withType$${GRADLE_TASK_TYPE}` || (inTasks && name === `withType$${GRADLE_TASK_TYPE}`)) return 'all';
    if (head.name === 'configureEach' || head.name === 'all') return taskHead(head.obj, inTasks) === 'all' ? 'all' : undefined;
    return undefined;
  }
  if (head.k !== 'call') return undefined;
  const callee = head.callee;
  const calleeName = callee.k === 'id' ? callee.name : callee.k === 'member' ? callee.name : undefined;
  const owner = callee.k === 'member' ? dotted(callee.obj) : undefined;
  if (calleeName === undefined) return undefined;
  const [verb, type] = calleeName.split('$') as [string, string | undefined];
  const onTasks = owner === 'tasks' || owner === 'project.tasks' || (owner === undefined && inTasks);
  const typedArg = head.args.some((a) => isTaskType(a.value) || (a.name === 'type' && isTaskType(a.value)));
  if (verb === 'withType' && onTasks && (type === GRADLE_TASK_TYPE || typedArg)) return 'all';
  if (verb === 'task' && owner === undefined) {
    // Groovy `task api(type: GenerateTask) { … }`, Kotlin `task<GenerateTask>("api") { … }`.
    const first = head.args[0]?.value;
    if (first?.k === 'call' && first.callee.k === 'id') return { name: first.callee.name, typed: first.args.some((a) => a.name === 'type' && isTaskType(a.value)) };
    const name = first ? literal(first) ?? (first.k === 'id' ? first.name : undefined) : undefined;
    return { ...optional('name', name), typed: type === GRADLE_TASK_TYPE || typedArg };
  }
  if (!onTasks || !['register', 'create', 'named', 'getByName', 'maybeCreate'].includes(verb)) return undefined;
  const first = head.args[0]?.value;
  const name = first ? literal(first) : undefined;
  return { ...optional('name', name), typed: type === GRADLE_TASK_TYPE || typedArg };
}

function isTaskType(e: Expr): boolean {
  const name = dotted(e);
  return name !== undefined && (name === GRADLE_TASK_TYPE || name.endsWith(`.${GRADLE_TASK_TYPE}`));
}

/** The settings a task block's statements make: `x.set(v)`, `x = v`, `configOptions.put(k, v)`, maps whole. */
function readTaskBody(body: readonly Statement[], task: TaskSettings, scope: GradleScope): void {
  for (const s of body) {
    let property: string | undefined;
    let op: 'set' | 'put' | 'putAll' | undefined;
    let args: readonly Arg[] = [];
    if (s.k === 'assign') {
      property = propertyName(s.target);
      op = 'set';
      args = [{ value: s.value }];
    } else if (s.k === 'expr' && s.expr.k === 'call') {
      const callee = s.expr.callee;
      if (callee.k === 'member' && ['set', 'value', 'convention', 'put', 'putAll', 'addAll'].includes(callee.name)) {
        property = propertyName(callee.obj);
        op = callee.name === 'put' ? 'put' : callee.name === 'putAll' ? 'putAll' : 'set';
      } else if (callee.k === 'id') {
        property = callee.name;
        op = 'set';
      }
      args = s.expr.args;
    }
    // Blocks inside a task (`configOptions.apply { put(…) }`, `doLast { … }`) are not followed.
    if (!property || !op || !args.length) continue;
    if (GRADLE_MAPS.has(property)) {
      let map = task.maps.get(property);
      if (!map) task.maps.set(property, (map = new Map()));
      if (op === 'put' && args.length >= 2) {
        const key = evalGradle(args[0]!.value, scope, 0).value;
        if (key !== undefined) map.set(key, { ...evalGradle(args[1]!.value, scope, 0), line: s.line });
      } else {
        if (op === 'set') map.clear();
        for (const [k, v] of gradleMap(args[0]!.value, scope, s.line, property)) map.set(k, v);
      }
      continue;
    }
    if (property === 'apiFilesConstrainedTo') {
      const lists = args.map((a) => gradleList(a.value, scope));
      const items = lists.every((l): l is string[] => l !== undefined) ? lists.flat() : undefined;
      if (items) task.apiFiles = op === 'set' ? items : [...(task.apiFiles ?? []), ...items];
      continue;
    }
    const setting = own(SETTING_NAMES, property);
    if (!setting || op !== 'set') continue;
    const v = evalGradle(args[0]!.value, scope, 0);
    task.settings.set(setting, v.value !== undefined && continuesOnLine(scope, s.line) ? { reason: 'an expression the index does not evaluate', line: s.line } : { ...v, line: s.line });
  }
}

/** A task property a statement sets: `x`, `this.x`, `it.x`. */
function propertyName(e: Expr): string | undefined {
  if (e.k === 'id') return e.name;
  if (e.k === 'member' && e.obj.k === 'id' && (e.obj.name === 'this' || e.obj.name === 'it')) return e.name;
  return undefined;
}

/**
 * Whether a statement's line goes on past its first value with an operator the script reader does not take
 * (`"a" + b`, `x ?: y`, `if …`): then the value read is not the whole value. Strings are skipped.
 */
function continuesOnLine(scope: GradleScope, line: number): boolean {
  const start = scope.lineStarts[line - 1];
  if (start === undefined) return false;
  const end = scope.lineStarts[line] ?? scope.text.length;
  let code = '';
  let quote = '';
  for (let i = start; i < end; i++) {
    const c = scope.text[i]!;
    if (quote) {
      if (c === '\\') i++;
      else if (c === quote) quote = '';
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '/' && scope.text[i + 1] === '/') break;
    else code += c;
  }
  return /\+|\?:|\bif\b|\bwhen\b/.test(code);
}

/** A Kotlin `mapOf("k" to "v", …)`, a Groovy `[k: "v"]` (read off the source line) or a name bound to one. */
function gradleMap(e: Expr, scope: GradleScope, line: number, property: string, depth = 0): Map<string, Value> {
  const out = new Map<string, Value>();
  if (depth > MAX_EVAL_DEPTH) return out;
  if (e.k === 'call' && e.callee.k === 'id' && ['mapOf', 'mutableMapOf', 'hashMapOf', 'linkedMapOf'].includes(e.callee.name)) {
    for (const a of e.args) {
      const pair = a.value;
      if (pair.k === 'call' && pair.callee.k === 'member' && pair.callee.name === 'to' && pair.args[0]) {
        const key = evalGradle(pair.callee.obj, scope, 0).value;
        if (key !== undefined) out.set(key, { ...evalGradle(pair.args[0].value, scope, 0), line });
      }
    }
    return out;
  }
  if (e.k === 'id' && scope.decls.has(e.name)) return gradleMap(scope.decls.get(e.name)!, scope, line, property, depth + 1);
  if (e.k === 'other') return groovyMapLiteral(scope, line, property);
  return out;
}

function gradleList(e: Expr, scope: GradleScope): string[] | undefined {
  if (e.k === 'call' && e.callee.k === 'id' && ['listOf', 'setOf', 'mutableListOf'].includes(e.callee.name)) {
    const items = e.args.map((a) => evalGradle(a.value, scope, 0).value);
    return items.every((i): i is string => i !== undefined) ? items : undefined;
  }
  const single = evalGradle(e, scope, 0).value;
  return single === undefined ? undefined : [single];
}

/** A Groovy map literal `[k: v, "k2": v2]` after `property =` / `property.set(` from the statement's line on. */
function groovyMapLiteral(scope: GradleScope, line: number, property: string): Map<string, Value> {
  const out = new Map<string, Value>();
  const start = scope.lineStarts[line - 1] ?? 0;
  const text = scope.text;
  const at = text.indexOf(property, start);
  if (at < 0 || at - start > 400) return out;
  const open = /^\s*(?:=|\.\s*(?:set|putAll)\s*\()\s*\[/.exec(text.slice(at + property.length, at + property.length + 200));
  if (!open) return out;
  const lineOf = lineIndex(text);
  let i = at + property.length + open[0].length;
  const skip = () => {
    while (i < text.length && /[\s,]/.test(text[i]!)) i++;
  };
  const token = (): string | undefined => {
    skip();
    const c = text[i];
    if (c === '"' || c === "'") {
      const end = text.indexOf(c, i + 1);
      if (end < 0 || text.slice(i, end).includes('\n') || text.slice(i, end).includes('$')) return undefined;
      const s = text.slice(i + 1, end);
      i = end + 1;
      return s;
    }
    const m = /^[\w.-]+/.exec(text.slice(i, i + 200));
    if (!m) return undefined;
    i += m[0].length;
    return m[0];
  };
  for (let guard = 0; guard < 500 && i < text.length; guard++) {
    skip();
    if (text[i] === ']') break;
    const keyLine = lineOf(i);
    const key = token();
    skip();
    if (key === undefined || text[i] !== ':') break;
    i++;
    const value = token();
    if (value === undefined) break;
    out.set(key, { value, line: keyLine });
  }
  return out;
}

/** A string a Gradle expression has: literals, interpolations, project directories, `file(…)`, names bound by `val`/`def`, gradle.properties. */
function evalGradle(e: Expr, scope: GradleScope, depth: number): { value?: string; reason?: string } {
  if (depth > MAX_EVAL_DEPTH) return { reason: 'an expression nested too deep' };
  const unknown = (what: string) => ({ reason: `${what} is not evaluated` });
  switch (e.k) {
    case 'str': {
      let out = '';
      for (const p of e.parts) {
        if (typeof p === 'string') out += p;
        else {
          const v = evalGradle(parseExpression(p.expr, e.line), scope, depth + 1);
          if (v.value === undefined) return v;
          out += v.value;
        }
      }
      return { value: out };
    }
    case 'num':
      return { value: e.text };
    case 'id': {
      if (e.name === 'true' || e.name === 'false') return { value: e.name };
      const dir = gradleDir(e.name, scope);
      if (dir !== undefined) return { value: dir };
      const bound = scope.decls.get(e.name);
      if (bound) return evalGradle(bound, scope, depth + 1);
      const prop = scope.properties.get(e.name);
      return prop !== undefined ? { value: prop } : unknown(e.name);
    }
    case 'member': {
      const name = dotted(e);
      const dir = name === undefined ? undefined : gradleDir(name, scope);
      if (dir !== undefined) return { value: dir };
      if (['path', 'absolutePath', 'canonicalPath', 'asFile', 'get'].includes(e.name)) return evalGradle(e.obj, scope, depth + 1);
      return unknown(name ?? e.name);
    }
    case 'call': {
      const c = e.callee;
      const arg = (n: number) => (e.args[n] ? evalGradle(e.args[n]!.value, scope, depth + 1) : { reason: 'a missing argument' });
      const fn = c.k === 'id' ? c.name : c.k === 'member' ? c.name : undefined;
      const owner = c.k === 'member' ? dotted(c.obj) : undefined;
      if (c.k === 'member' && !e.args.length && ['toString', 'get', 'getPath', 'getAbsolutePath', 'getAsFile', 'toURI', 'normalize'].includes(c.name)) return evalGradle(c.obj, scope, depth + 1);
      if (fn === 'file' && (owner === undefined || owner === 'project')) return joined(`${ESTATE}${scope.moduleDir}`, arg(0));
      if (fn === 'file' && owner === 'rootProject') return joined(`${ESTATE}${scope.rootDir}`, arg(0));
      if ((fn === 'file' || fn === 'dir') && c.k === 'member') {
        const base = evalGradle(c.obj, scope, depth + 1);
        return base.value === undefined ? base : joined(base.value, arg(0));
      }
      if (fn === 'File' && (owner === undefined || owner === 'java.io')) {
        if (e.args.length === 1) return arg(0);
        const base = arg(0);
        return base.value === undefined ? base : joined(base.value, arg(1));
      }
      if ((fn === 'property' || fn === 'findProperty') && (owner === undefined || owner === 'project')) {
        const key = arg(0).value;
        const v = key === undefined ? undefined : scope.properties.get(key);
        return v !== undefined ? { value: v } : unknown(`the property ${key ?? '?'}`);
      }
      if (fn === 'gradleProperty' && owner === 'providers') {
        const key = arg(0).value;
        const v = key === undefined ? undefined : scope.properties.get(key);
        return v !== undefined ? { value: v } : unknown(`the property ${key ?? '?'}`);
      }
      return unknown(`${owner ? `${owner}.` : ''}${fn ?? 'a call'}(…)`);
    }
    default:
      return unknown('an expression');
  }
}

/** Project directories by the names a build script reads them under. */
function gradleDir(name: string, scope: GradleScope): string | undefined {
  const module = `${ESTATE}${scope.moduleDir}`;
  const root = `${ESTATE}${scope.rootDir}`;
  const dirs: Record<string, string> = {
    projectDir: module, 'project.projectDir': module, 'layout.projectDirectory': module, 'project.layout.projectDirectory': module,
    rootDir: root, 'project.rootDir': root, 'rootProject.projectDir': root, 'rootProject.rootDir': root, 'rootProject.layout.projectDirectory': root,
    buildDir: `${module}/build`, 'project.buildDir': `${module}/build`, 'layout.buildDirectory': `${module}/build`, 'project.layout.buildDirectory': `${module}/build`,
  };
  return own(dirs, name);
}

function joined(base: string, rel: { value?: string; reason?: string }): { value?: string; reason?: string } {
  if (rel.value === undefined) return rel;
  const r = rel.value.replaceAll('\\', '/');
  return { value: r.includes(ESTATE) || r.startsWith('/') ? r : `${base}/${r}` };
}

/** `key=value` lines of a gradle.properties file. */
function gradleProperties(text: string | undefined): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of (text ?? '').split('\n')) {
    const m = /^\s*([^#!=:\s][^=:\s]*)\s*[=:]\s*(.*?)\s*$/.exec(line);
    if (m && !out.has(m[1]!)) out.set(m[1]!, m[2]!);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// Specs

interface SpecOperation {
  path: string;
  method: string;
  operationId?: string;
  firstTag?: string;
  file: string;
  line: number;
}

interface SpecRead {
  operations: SpecOperation[];
  title?: string;
  /** The path of the spec's first server (OAS 3) or its basePath (Swagger 2), without a trailing slash. */
  basePath: string;
}

interface Loaded {
  doc: YAML.Document.Parsed;
  counter: YAML.LineCounter;
}

/** Specs and the files their `$ref`s name, each read and parsed once. */
class SpecReader {
  private readonly docs = new Map<string, Loaded | null>();
  private readonly specs = new Map<string, SpecRead | null>();

  constructor(
    private readonly readText: (rel: string) => string | undefined,
    private readonly warnings: string[],
  ) {}

  /** The operations of a spec; `strict`: say so when the file is no OpenAPI document (a directory of specs may hold other files). */
  operationsOf(file: string, strict: boolean): SpecRead | undefined {
    if (!this.specs.has(file)) this.specs.set(file, this.read(file, strict) ?? null);
    return this.specs.get(file) ?? undefined;
  }

  private load(file: string, from?: string): Loaded | undefined {
    if (this.docs.has(file)) return this.docs.get(file) ?? undefined;
    if (this.docs.size >= MAX_SPEC_FILES) {
      this.warnings.push(`${from ?? file}: more than ${MAX_SPEC_FILES} spec files; ${file} is not read`);
      this.docs.set(file, null);
      return undefined;
    }
    const text = this.readText(file);
    let loaded: Loaded | undefined;
    if (text === undefined) this.warnings.push(`${from ?? file}: ${file} is not in the estate; the operations it holds are not read`);
    else if (text.length > MAX_SPEC_BYTES) this.warnings.push(`${file}:1: spec larger than ${MAX_SPEC_BYTES} bytes; not read`);
    else loaded = loadYaml(file, text, this.warnings);
    this.docs.set(file, loaded ?? null);
    return loaded;
  }

  private read(file: string, strict: boolean): SpecRead | undefined {
    const loaded = this.load(file);
    if (!loaded) return undefined;
    const root = loaded.doc.contents;
    if (!YAML.isMap(root) || (!strict && this.get(loaded, root, 'paths') === undefined)) {
      if (strict) this.warnings.push(`${file}:1: not an OpenAPI document (not a mapping); its operations are not read`);
      return undefined;
    }
    const paths = this.get(loaded, root, 'paths');
    const out: SpecRead = { operations: [], ...optional('title', scalar(this.get(loaded, this.get(loaded, root, 'info'), 'title'))), basePath: basePathOf(root, (n, k) => this.get(loaded, n, k)) };
    if (!YAML.isMap(paths)) return out;
    for (const pair of paths.items) {
      const path = scalar(pair.key);
      if (path === undefined || !path.startsWith('/')) continue;
      const item = this.pathItem(file, loaded, pair.value);
      if (!item) continue;
      for (const method of PATH_METHODS) {
        const opPair = item.map.items.find((p) => scalar(p.key) === method);
        const op = opPair && this.deref(item.loaded, opPair.value);
        if (!opPair || !YAML.isMap(op)) continue;
        if (scalar(this.get(item.loaded, op, 'x-internal'))?.toLowerCase() === 'true') continue;
        const tags = this.get(item.loaded, op, 'tags');
        const firstTag = YAML.isSeq(tags) ? scalar(this.deref(item.loaded, tags.items[0])) : undefined;
        const operationId = scalar(this.get(item.loaded, op, 'operationId'));
        out.operations.push({ path, method, ...optional('operationId', operationId), ...optional('firstTag', firstTag), file: item.file, line: this.lineOf(item.loaded, opPair.key) });
        if (out.operations.length >= MAX_OPERATIONS) return out;
      }
    }
    return out;
  }

  /** A path item, following `$ref`s to other files or within one (a JSON pointer after `#`). */
  private pathItem(file: string, loaded: Loaded, node: unknown): { map: YAML.YAMLMap; file: string; loaded: Loaded } | undefined {
    let current = { file, loaded, node: this.deref(loaded, node) };
    const visited = new Set<string>();
    for (let hop = 0; ; hop++) {
      if (!YAML.isMap(current.node)) return undefined;
      const ref = scalar(this.get(current.loaded, current.node, '$ref'));
      if (ref === undefined) return { map: current.node, file: current.file, loaded: current.loaded };
      const refAt = `${current.file}:${this.lineOf(current.loaded, current.node)}`;
      if (hop >= MAX_REF_HOPS || visited.has(`${current.file}#${ref}`)) {
        this.warnings.push(`${refAt}: $ref ${ref} goes round in a cycle or past ${MAX_REF_HOPS} hops; the path item is not read`);
        return undefined;
      }
      visited.add(`${current.file}#${ref}`);
      const hash = ref.indexOf('#');
      const target = hash < 0 ? ref : ref.slice(0, hash);
      const pointer = hash < 0 ? '' : ref.slice(hash + 1);
      let nextFile = current.file;
      if (target) {
        if (/^[a-z][a-z0-9+.-]+:/i.test(target) || target.startsWith('/')) {
          this.warnings.push(`${refAt}: $ref ${ref} is outside the estate; the path item is not read`);
          return undefined;
        }
        const resolved = normalize(joinPath(dirOf(current.file), safeDecode(target)));
        if (resolved === undefined) {
          this.warnings.push(`${refAt}: $ref ${ref} lies outside the estate; the path item is not read`);
          return undefined;
        }
        nextFile = resolved;
      }
      const nextLoaded = nextFile === current.file ? current.loaded : this.load(nextFile, refAt);
      if (!nextLoaded) return undefined;
      const found = this.pointer(nextLoaded, pointer);
      if (found === undefined) {
        this.warnings.push(`${refAt}: $ref ${ref} points at nothing; the path item is not read`);
        return undefined;
      }
      current = { file: nextFile, loaded: nextLoaded, node: found };
    }
  }

  /** A JSON pointer (`/paths/~1pets`) into a document; '' is the whole document. */
  private pointer(loaded: Loaded, pointer: string): unknown {
    let node: unknown = this.deref(loaded, loaded.doc.contents);
    if (!pointer) return node ?? undefined;
    if (!pointer.startsWith('/')) return undefined;
    for (const raw of pointer.slice(1).split('/')) {
      const key = safeDecode(raw).replaceAll('~1', '/').replaceAll('~0', '~');
      if (YAML.isMap(node)) node = this.get(loaded, node, key);
      else if (YAML.isSeq(node) && /^\d+$/.test(key)) node = this.deref(loaded, node.items[Number(key)]);
      else return undefined;
      if (node === undefined || node === null) return undefined;
    }
    return node;
  }

  private get(loaded: Loaded, node: unknown, key: string): unknown {
    const map = this.deref(loaded, node);
    if (!YAML.isMap(map)) return undefined;
    return this.deref(loaded, map.items.find((p) => scalar(p.key) === key)?.value);
  }

  private deref(loaded: Loaded, node: unknown): unknown {
    for (let i = 0; i < MAX_REF_HOPS && YAML.isAlias(node); i++) node = node.resolve(loaded.doc);
    return node;
  }

  private lineOf(loaded: Loaded, node: unknown): number {
    const range = (node as { range?: [number, number, number] | null } | null | undefined)?.range;
    return range ? loaded.counter.linePos(range[0]).line : 1;
  }
}

/** A YAML or JSON text parsed (all scalars as strings); a malformed one is a warning naming file:line, read as far as it goes. */
function loadYaml(file: string, text: string, warnings: string[]): Loaded | undefined {
  const counter = new YAML.LineCounter();
  let doc: YAML.Document.Parsed;
  const deep = flowTooDeep(text);
  if (deep !== undefined) {
    warnings.push(`${file}:${deep}: the spec nests more than ${MAX_FLOW_DEPTH} levels deep; not read`);
    return undefined;
  }
  try {
    doc = YAML.parseDocument(text, { schema: 'failsafe', logLevel: 'silent', lineCounter: counter, uniqueKeys: false, prettyErrors: false });
  } catch (err) {
    warnings.push(`${file}:1: cannot parse the spec (${errorText(err)}); not read`);
    return undefined;
  }
  const e = doc.errors[0];
  if (e) warnings.push(`${file}:${counter.linePos(e.pos[0]).line}: malformed spec (${errorText(e)}); read as far as it goes`);
  return { doc, counter };
}

/** The path of the spec's first server (its variables at their defaults), or Swagger 2's basePath; '' when none. */
function basePathOf(root: YAML.YAMLMap, get: (node: unknown, key: string) => unknown): string {
  const basePath = scalar(get(root, 'basePath'));
  let path = basePath;
  const servers = get(root, 'servers');
  const first = YAML.isSeq(servers) ? servers.items[0] : undefined;
  let url = scalar(get(first, 'url'));
  if (url !== undefined) {
    const variables = get(first, 'variables');
    url = url.replace(/\{([^{}]*)\}/g, (whole, name: string) => scalar(get(get(variables, name), 'default')) ?? whole);
    const m = /^[a-z][a-z0-9+.-]*:\/\/[^/]*(\/.*)?$/i.exec(url);
    path = m ? (m[1] ?? '') : url.startsWith('/') ? url : '';
  }
  path = (path ?? '').replace(/[?#].*$/, '');
  return path.endsWith('/') ? path.slice(0, -1) : path;
}

function scalar(node: unknown): string | undefined {
  return YAML.isScalar(node) && node.value !== null && node.value !== undefined ? String(node.value) : undefined;
}

// ---------------------------------------------------------------------------------------------------------------
// Naming: openapi-generator's rules

interface Naming {
  useTags: boolean;
  prefix: string;
  suffix: string;
  removePrefix: { delimiter: string; count: number } | undefined;
  idMappings: Map<string, string>;
}

/**
 * Interface and method names, as DefaultGenerator groups operations (SpringCodegen: by the first tag with
 * `useTags`, else by the first path segment) and DefaultCodegen makes ids unique within a tag group (`_0`, `_1`).
 */
function nameOperations(ops: readonly SpecOperation[], naming: Naming, warnings: string[]): (SpecOperation & { group: string; interfaceName: string; operationId: string; methodName: string })[] {
  const groups = new Map<string, string[]>();
  const out: (SpecOperation & { group: string; interfaceName: string; operationId: string; methodName: string })[] = [];
  for (const op of ops) {
    const operationId = op.operationId?.trim() ? op.operationId : generatedOperationId(op.path, op.method);
    const methodName = methodNameOf(operationId, naming);
    if (!methodName) {
      warnings.push(`${op.file}:${op.line}: operationId ${JSON.stringify(operationId)} makes no Java method name; the operation is not read`);
      continue;
    }
    const group = naming.useTags ? sanitizeTag(op.firstTag ?? 'default') : pathGroup(op.path);
    const names = groups.get(group) ?? groups.set(group, []).get(group)!;
    let unique = methodName;
    if (naming.useTags) {
      let counter = 0;
      for (const prior of names) if (prior === unique) unique = `${methodName}_${counter++}`;
    }
    names.push(unique);
    out.push({ ...op, group, interfaceName: toApiName(group, naming), operationId, methodName: unique });
  }
  return out;
}

/** SpringCodegen's group without `useTags`: the path's first segment, `default` for `/`. */
function pathGroup(path: string): string {
  const rest = path.startsWith('/') ? path.slice(1) : path;
  const slash = rest.indexOf('/');
  const first = slash > 0 ? rest.slice(0, slash) : rest;
  return first || 'default';
}

/** DefaultCodegen.getOrGenerateOperationId for an operation without one: `/pets/{id}` GET → petsIdGet. */
function generatedOperationId(path: string, method: string): string {
  const tmp = path.replaceAll('{', '').replaceAll('}', '');
  let builder = tmp === '/' ? 'root' : '';
  for (const part of javaSplit(`${tmp}/${method}`, /\//)) {
    if (!part) continue;
    builder += builder ? camelize(part, false) : part[0]!.toLowerCase() + part.slice(1);
  }
  return sanitizeName(builder);
}

/** The generated method: prefix removal, DefaultCodegen.removeNonNameElementToCamelCase, the name mappings, AbstractJavaCodegen.toOperationId. */
function methodNameOf(operationId: string, naming: Naming): string | undefined {
  let id = operationId.slice(0, MAX_NAME);
  const delimiter = naming.removePrefix?.delimiter || '_';
  if (naming.removePrefix) {
    const parts = javaSplit(id, new RegExp(`[${charClass(delimiter)}]`));
    if (parts.length > 1) {
      const count = Number.isFinite(naming.removePrefix.count) ? naming.removePrefix.count : 1;
      const n = Math.min(count === -1 ? parts.length - 1 : Math.max(0, count), parts.length - 1);
      id = parts.slice(n).join(delimiter);
    }
  }
  const words = javaSplit(id, new RegExp(`[-_:;#${charClass(delimiter)}]`)).map((w) => (w ? w[0]!.toUpperCase() + w.slice(1) : w)).join('');
  id = words ? words[0]!.toLowerCase() + words.slice(1) : words;
  const mapped = naming.idMappings.get(id);
  if (mapped !== undefined) return mapped;
  if (!id) return undefined;
  let name = camelize(sanitizeName(id), true);
  if (RESERVED_WORDS.has(name.toLowerCase())) return camelize(`call_${name}`, true);
  if (/^\d/.test(name)) name = camelize(`call_${name}`, true);
  return name || undefined;
}

/** DefaultCodegen.sanitizeTag: a tag as a class-name stem. */
function sanitizeTag(tag: string): string {
  const t = camelize(sanitizeName(tag.slice(0, MAX_NAME)), false);
  return /^\d/.test(t) ? `Class${t}` : t;
}

/** DefaultCodegen.toApiName. */
function toApiName(group: string, naming: Naming): string {
  if (!group) return 'DefaultApi';
  return camelize(`${naming.prefix}_${group.slice(0, MAX_NAME)}_${naming.suffix}`, false);
}

function sanitizeName(name: string): string {
  if (name === '$') return 'value';
  let out = name;
  for (const [pattern, replacement] of SANITIZE_STEPS) out = out.replace(pattern, replacement);
  return out;
}

/** openapi-generator's StringUtils.camelize (UPPERCASE_FIRST_CHAR, or LOWERCASE_FIRST_LETTER). */
function camelize(input: string, lowerFirstLetter: boolean): string {
  let word = input
    .replaceAll('/', '.')
    .split('.')
    .filter((p) => p)
    .map((p) => upperChar(p[0]!) + p.slice(1))
    .join('');
  const first = /\w[^.]*$/.exec(word);
  if (first) word = word.slice(0, first.index) + upperChar(word[first.index]!) + word.slice(first.index + 1);
  for (let m = /_(.)/.exec(word); m; m = /_(.)/.exec(word)) {
    const original = m[1]!;
    const upper = original.toUpperCase();
    word = original === upper ? word.replace('_', '') : word.slice(0, m.index) + upper + word.slice(m.index + 2);
  }
  for (let m = /-(.)/.exec(word); m; m = /-(.)/.exec(word)) word = word.slice(0, m.index) + m[1]!.toUpperCase() + word.slice(m.index + 2);
  if (lowerFirstLetter && word.length) {
    let i = 0;
    while (i + 1 < word.length && !/[A-Za-z]/.test(word[i]!)) i++;
    word = word.slice(0, i + 1).toLowerCase() + word.slice(i + 1);
  }
  return word.replaceAll('_', '');
}

/** SpringCodegen's title: the spec's info.title without an `API` ending, camelized; its default when the spec has none. */
function springTitle(title: string | undefined): string {
  if (title === undefined) return 'OpenAPI Spring';
  let t = title.trim().replaceAll(' ', '-');
  if (t.toUpperCase().endsWith('API')) t = t.slice(0, -3);
  return camelize(sanitizeName(t), true);
}

// ---------------------------------------------------------------------------------------------------------------
// Helpers

/** Java's String.split: trailing empty strings dropped. */
function javaSplit(text: string, separator: RegExp): string[] {
  const parts = text.split(separator);
  while (parts.length > 1 && parts[parts.length - 1] === '') parts.pop();
  return parts;
}

function charClass(chars: string): string {
  return chars.replace(/[\\\]^-]/g, (c) => `\\${c}`);
}

function upperChar(c: string): string {
  const u = c.toUpperCase();
  return u.length === 1 ? u : c;
}

function isTrue(text: string | undefined): boolean {
  return text?.trim().toLowerCase() === 'true';
}

/** `a=b,c=d` (commas or newlines) as a map. */
function pairs(text: string | undefined): Map<string, string> {
  const out = new Map<string, string>();
  for (const entry of (text ?? '').split(/[,\n]/)) {
    const eq = entry.indexOf('=');
    if (eq > 0) out.set(entry.slice(0, eq).trim(), entry.slice(eq + 1).trim());
  }
  return out;
}

function literal(e: Expr): string | undefined {
  if (e.k !== 'str') return undefined;
  let out = '';
  for (const p of e.parts) {
    if (typeof p !== 'string') return undefined;
    out += p;
  }
  return out;
}

function dotted(e: Expr): string | undefined {
  if (e.k === 'id') return e.name;
  if (e.k === 'member') {
    const left = dotted(e.obj);
    return left === undefined ? undefined : `${left}.${e.name}`;
  }
  return undefined;
}

function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

function errorText(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  return text.split('\n')[0]!.slice(0, 200);
}

function baseName(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

function dirOf(path: string): string {
  const slash = path.lastIndexOf('/');
  return slash < 0 ? '' : path.slice(0, slash);
}

function parentDirOf(dir: string): string | undefined {
  return dir === '' ? undefined : dirOf(dir);
}

function joinPath(dir: string, name: string): string {
  return dir ? `${dir}/${name}` : name;
}

/** `a/./b/../c` → `a/c`; undefined when it climbs out of the estate. */
function normalize(path: string): string | undefined {
  const out: string[] = [];
  for (const part of path.replaceAll('\\', '/').split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') {
      if (!out.length) return undefined;
      out.pop();
    } else out.push(part);
  }
  return out.join('/');
}

/** Generated operations by the name a project class implements (`XxxApi`, or `XxxApiDelegate` with the delegate pattern). */
export function operationsByInterface(operations: readonly GeneratedApiOperation[]): Map<string, GeneratedApiOperation[]> {
  const out = new Map<string, GeneratedApiOperation[]>();
  for (const op of operations) {
    const key = op.delegateName ?? op.interfaceName;
    (out.get(key) ?? out.set(key, []).get(key)!).push(op);
  }
  return out;
}

/**
 * The routes a controller serves by implementing generated interfaces: each operation whose interface the class
 * implements (by simple name, and package when known) and whose method it declares, under the class-level mapping
 * Spring applies (the class's own, else the generated one, else a superclass's), in the service whose build
 * generates it.
 */
export function generatedRoutesOf(model: CodeModel, entry: TypeEntry, constants: Constants, byInterface: ReadonlyMap<string, readonly GeneratedApiOperation[]>, serviceOf: (path: string) => string): HttpRoute[] {
  const f = entry.facts;
  if (!byInterface.size || f.kind !== 'class' || f.modifiers.includes('abstract') || f.anonymous) return [];
  const { project, external } = model.ancestors(entry);
  const typeLevel = (t: TypeEntry): Part | undefined => mappingOf(t.facts.annotations, 'type', (v) => constants.part(v, t))?.paths[0];
  const out: HttpRoute[] = [];
  for (const name of [...external, ...project.slice(1).map((t) => t.qn)]) {
    const dot = name.lastIndexOf('.');
    const simple = name.slice(dot + 1);
    const pkg = dot > 0 ? name.slice(0, dot) : undefined;
    for (const op of byInterface.get(simple) ?? []) {
      if (op.package && pkg && op.package !== pkg) continue;
      // Two services may each generate a DefaultApi: the operation is the one this service's build makes.
      if (serviceOf(op.buildFile) !== entry.place.service) continue;
      const handler = project.map((t) => model.methodsNamed(t, op.methodName).find((m) => m.facts.kind === 'method' && !m.facts.modifiers.includes('abstract'))).find(Boolean);
      if (!handler) continue;
      const generated = op.classMapping ? constants.part({ kind: 'string', text: JSON.stringify(op.classMapping), value: op.classMapping }, entry) : undefined;
      // A delegate's route is served by the generated controller, under the generated mapping.
      const prefix = op.delegateName === simple ? generated : (typeLevel(entry) ?? generated ?? project.slice(1).map(typeLevel).find(Boolean));
      out.push({
        controller: entry,
        handler,
        method: op.httpMethod,
        path: joinRoutePath(prefix?.text ?? '', op.path),
        resolved: prefix?.literal ?? true,
        ...(prefix?.derived ? { written: `${prefix.written} + ${JSON.stringify(op.path)} (${op.specFile}:${op.line})` } : {}),
        framework: 'spring_mvc',
        ...(prefix?.profile ? { profile: prefix.profile } : {}),
      });
    }
  }
  return out;
}
