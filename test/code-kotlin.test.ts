/**
 * Kotlin extraction: the per-file facts (IR) of realistic Spring sources, in the JVM view Java code has of them —
 * file facades, property accessors, primary constructors, extension receivers, anonymous objects — and
 * robustness on broken input.
 */
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import type { Parser } from 'web-tree-sitter';
import type { CallFacts, FileFacts, MemberFacts, TypeFacts } from '../src/sources/code/parse/ir.js';
import { extractKotlin } from '../src/sources/code/parse/kotlin.js';
import { parserFor } from '../src/sources/code/parse/parser.js';

let parser: Parser;

before(async () => {
  parser = await parserFor('kotlin');
});

/** Value facts (argument expressions, returns, assignments, literal values) have their own tests below. */
const VALUE_KEYS = new Set(['values', 'returns', 'assigns', 'enumArgs']);

function extract(text: string, path = 'src/main/kotlin/com/acme/Sample.kt'): FileFacts {
  return JSON.parse(
    JSON.stringify(extractKotlin(path, text, parser), function (this: Record<string, unknown>, key, value: unknown) {
      if (VALUE_KEYS.has(key) || (this.k !== undefined && (key === 'args' || key === 'value' || key === 'of' && this.k === 'cast'))) return undefined;
      return value;
    }),
  ) as FileFacts;
}

function extractWithValues(text: string, path = 'src/main/kotlin/com/acme/Sample.kt'): FileFacts {
  return extractKotlin(path, text, parser);
}

function typeOf(facts: FileFacts, qualifiedName: string): TypeFacts {
  const t = facts.types.find((x) => x.qualifiedName === qualifiedName);
  assert.ok(t, `type ${qualifiedName} not in ${facts.types.map((x) => x.qualifiedName).join(', ')}`);
  return t;
}

function membersNamed(t: TypeFacts, name: string): MemberFacts[] {
  return t.members.filter((m) => m.name === name);
}

function memberOf(t: TypeFacts, name: string): MemberFacts {
  const found = membersNamed(t, name);
  assert.equal(found.length, 1, `exactly one ${name} in ${t.qualifiedName}: ${t.members.map((m) => m.name).join(', ')}`);
  return found[0]!;
}

function fieldOf(t: TypeFacts, name: string) {
  const f = t.fields.find((x) => x.name === name);
  assert.ok(f, `field ${name} not in ${t.qualifiedName}: ${t.fields.map((x) => x.name).join(', ')}`);
  return f;
}

function callsNamed(m: MemberFacts, name: string): CallFacts[] {
  return m.calls.filter((c) => c.name === name);
}

function callOf(m: MemberFacts, name: string): CallFacts {
  const found = callsNamed(m, name);
  assert.equal(found.length, 1, `exactly one call of ${name} in ${m.name}: ${m.calls.map((c) => c.name).join(', ')}`);
  return found[0]!;
}

const INVOICE_SERVICE = `package com.acme.billing

import org.springframework.beans.factory.annotation.Qualifier
import org.springframework.beans.factory.annotation.Value
import org.springframework.stereotype.Service
import org.springframework.transaction.annotation.Transactional
import org.slf4j.LoggerFactory
import com.acme.money.Money as Amount
import com.acme.billing.repo.*

@Service
@Transactional(readOnly = true)
class InvoiceService(
    private val invoices: InvoiceRepository,
    @field:Qualifier("mainClock") private val clock: java.time.Clock,
    @Value("\\\${billing.tax-rate:0.2}") val taxRate: BigDecimal,
    retries: Int = defaultRetries(),
) : BaseService(invoices), InvoiceOperations {

    private val cache = ConcurrentHashMap<Long, Invoice>()

    init {
        log.info("starting")
    }

    @Transactional
    override fun settle(id: Long): Invoice {
        val invoice = invoices.findById(id).orElseThrow { NoSuchInvoice(id) }
        return invoices.save(invoice.copy(status = Status.SETTLED))
    }

    companion object {
        private val log = LoggerFactory.getLogger(InvoiceService::class.java)
        const val MAX = 10

        @JvmStatic
        fun create(repo: InvoiceRepository): InvoiceService = InvoiceService(repo, Clock.systemUTC(), BigDecimal.ONE)
    }
}
`;

describe('Kotlin: a Spring service', () => {
  test('package and imports: single, alias, wildcard; no static imports', () => {
    const f = extract(INVOICE_SERVICE);
    assert.equal(f.language, 'kotlin');
    assert.equal(f.package, 'com.acme.billing');
    assert.equal(f.imports.single['Service'], 'org.springframework.stereotype.Service');
    assert.equal(f.imports.single['LoggerFactory'], 'org.slf4j.LoggerFactory');
    assert.equal(f.imports.single['Amount'], 'com.acme.money.Money');
    assert.equal(f.imports.single['Money'], undefined);
    assert.deepEqual(f.imports.wildcard, ['com.acme.billing.repo']);
    assert.deepEqual(f.imports.staticSingle, {});
    assert.deepEqual(f.imports.staticWildcard, []);
    assert.equal(f.parseErrors, 0);
    assert.equal(f.lines, INVOICE_SERVICE.split('\n').length);
  });

  test('the class: kind, modifiers, annotations, supertypes', () => {
    const f = extract(INVOICE_SERVICE);
    const t = typeOf(f, 'com.acme.billing.InvoiceService');
    assert.equal(t.name, 'InvoiceService');
    assert.equal(t.kind, 'class');
    assert.equal(t.flavor, undefined);
    assert.deepEqual(t.modifiers, ['public', 'final']);
    assert.deepEqual(
      t.annotations.map((a) => [a.name, a.written, a.args]),
      [
        ['Service', 'Service', {}],
        ['Transactional', 'Transactional', { readOnly: [{ kind: 'boolean', text: 'true', value: 'true' }] }],
      ],
    );
    assert.equal(t.annotations[0]!.line, 11);
    assert.deepEqual(t.supertypes, [
      { type: { name: 'BaseService' }, relation: 'extends' },
      { type: { name: 'InvoiceOperations' }, relation: 'unknown' },
    ]);
    assert.equal(t.line, 11);
    assert.equal(t.endLine, 39);
  });

  test('primary constructor: parameters with their annotations, the super call, initializer code', () => {
    const t = typeOf(extract(INVOICE_SERVICE), 'com.acme.billing.InvoiceService');
    const ctor = memberOf(t, '<init>');
    assert.equal(ctor.kind, 'constructor');
    assert.equal(ctor.synthetic, 'primary_constructor');
    assert.equal(ctor.returnType, undefined);
    assert.deepEqual(ctor.modifiers, ['public']);
    assert.deepEqual(
      ctor.params.map((p) => [p.name, p.type.name]),
      [
        ['invoices', 'InvoiceRepository'],
        ['clock', 'java.time.Clock'],
        ['taxRate', 'BigDecimal'],
        ['retries', 'Int'],
      ],
    );
    // `@Value` without a use-site target stays on the parameter (constructor injection reads it there).
    assert.deepEqual(ctor.params[2]!.annotations, [
      { name: 'Value', written: 'Value', args: { value: [{ kind: 'string', text: '"\\${billing.tax-rate:0.2}"', value: '${billing.tax-rate:0.2}' }] }, line: 16 },
    ]);
    // `@field:` goes to the field, not the parameter.
    assert.deepEqual(ctor.params[1]!.annotations, []);
    // `: BaseService(invoices)` is the constructor's super call; then the default value, property initializers and init blocks.
    assert.deepEqual(ctor.calls[0], { kind: 'super_ctor', name: '<init>', argCount: 1, args: ['invoices'], line: 18 });
    assert.deepEqual(
      ctor.calls.slice(1).map((c) => [c.name, c.line]),
      [
        ['defaultRetries', 17],
        ['ConcurrentHashMap', 20],
        ['info', 23],
      ],
    );
    assert.deepEqual(callOf(ctor, 'info').receiver, { k: 'name', name: 'log' });
  });

  test('constructor properties: fields with property kind; accessors only for non-private ones', () => {
    const t = typeOf(extract(INVOICE_SERVICE), 'com.acme.billing.InvoiceService');
    const invoices = fieldOf(t, 'invoices');
    assert.deepEqual(invoices, { name: 'invoices', modifiers: ['private', 'final'], annotations: [], line: 14, property: 'val', type: { name: 'InvoiceRepository' } });
    const clock = fieldOf(t, 'clock');
    assert.deepEqual(
      clock.annotations.map((a) => [a.name, a.target, a.args['value']?.[0]?.value]),
      [['Qualifier', 'field', 'mainClock']],
    );
    assert.equal(fieldOf(t, 'taxRate').property, 'val');
    assert.ok(!t.fields.some((x) => x.name === 'retries'), 'a plain constructor parameter is no field');
    assert.deepEqual(membersNamed(t, 'getInvoices'), []);
    assert.deepEqual(membersNamed(t, 'getClock'), []);
    const getter = memberOf(t, 'getTaxRate');
    assert.equal(getter.synthetic, 'property_getter');
    assert.equal(getter.property, 'taxRate');
    assert.deepEqual(getter.returnType, { name: 'BigDecimal' });
    assert.deepEqual(getter.params, []);
    assert.deepEqual(getter.modifiers, ['public', 'final']);
    assert.deepEqual(membersNamed(t, 'setTaxRate'), []);
    const cache = fieldOf(t, 'cache');
    assert.equal(cache.type, undefined);
    assert.deepEqual(cache.init, { k: 'call', name: 'ConcurrentHashMap', argCount: 0 });
  });

  test('a method: modifiers, annotations, locals and calls with structured receivers', () => {
    const t = typeOf(extract(INVOICE_SERVICE), 'com.acme.billing.InvoiceService');
    const settle = memberOf(t, 'settle');
    assert.equal(settle.kind, 'method');
    assert.deepEqual(settle.modifiers, ['public', 'override']);
    assert.deepEqual(settle.annotations.map((a) => a.name), ['Transactional']);
    assert.deepEqual(settle.params, [{ name: 'id', type: { name: 'Long' }, annotations: [] }]);
    assert.deepEqual(settle.returnType, { name: 'Invoice' });
    assert.equal(settle.line, 26);
    assert.equal(settle.endLine, 30);
    assert.deepEqual(settle.locals, [
      { name: 'invoice', line: 28, init: { k: 'call', of: { k: 'call', of: { k: 'name', name: 'invoices' }, name: 'findById', argCount: 1 }, name: 'orElseThrow', argCount: 1 } },
    ]);
    assert.deepEqual(callOf(settle, 'orElseThrow'), {
      kind: 'call',
      name: 'orElseThrow',
      argCount: 1,
      args: ['{ NoSuchInvoice(id) }'],
      line: 28,
      receiver: { k: 'call', of: { k: 'name', name: 'invoices' }, name: 'findById', argCount: 1 },
    });
    // A constructor call is a call of the capitalised name; inside the lambda it is marked so.
    assert.deepEqual(callOf(settle, 'NoSuchInvoice'), { kind: 'call', name: 'NoSuchInvoice', argCount: 1, args: ['id'], line: 28, inLambda: true });
    assert.equal(callOf(settle, 'findById').inLambda, undefined);
    // Named arguments: the value's text.
    assert.deepEqual(callOf(settle, 'copy').args, ['Status.SETTLED']);
    assert.deepEqual(callOf(settle, 'save').receiver, { k: 'name', name: 'invoices' });
  });

  test('companion object: a nested type named Companion; @JvmStatic members are static; const has no accessors', () => {
    const f = extract(INVOICE_SERVICE);
    const c = typeOf(f, 'com.acme.billing.InvoiceService.Companion');
    assert.equal(c.name, 'Companion');
    assert.equal(c.kind, 'class');
    assert.equal(c.flavor, 'companion');
    assert.equal(c.outer, 'com.acme.billing.InvoiceService');
    assert.deepEqual(c.modifiers, ['public', 'companion', 'final']);
    assert.ok(!c.members.some((m) => m.kind === 'constructor'), 'objects get no constructor');
    assert.deepEqual(f.types.map((x) => x.name), ['InvoiceService', 'Companion']);
    const log = fieldOf(c, 'log');
    assert.deepEqual(log.init, { k: 'call', of: { k: 'name', name: 'LoggerFactory' }, name: 'getLogger', argCount: 1 });
    assert.deepEqual(log.modifiers, ['private', 'final', 'static']);
    const max = fieldOf(c, 'MAX');
    assert.deepEqual(max.modifiers, ['public', 'const', 'final', 'static']);
    assert.deepEqual(max.init, { k: 'literal', type: 'int' });
    assert.deepEqual(membersNamed(c, 'getMAX'), []);
    const create = memberOf(c, 'create');
    assert.deepEqual(create.modifiers, ['public', 'final', 'static']);
    assert.deepEqual(create.returnType, { name: 'InvoiceService' });
    assert.deepEqual(callOf(create, 'InvoiceService').args, ['repo', 'Clock.systemUTC()', 'BigDecimal.ONE']);
  });
});

describe('Kotlin: objects, data classes, properties', () => {
  test('object declaration: flavor object, no constructor, @JvmStatic only where written', () => {
    const f = extract(`package com.acme

object InvoiceNumbers : NumberSource {
    private var next = 1000L

    @JvmStatic
    fun allocate(prefix: String = "INV"): String {
        next += 1
        return "%s-%06d".format(prefix, next)
    }

    fun reset() {
        next = 1000L
    }
}
`);
    const t = typeOf(f, 'com.acme.InvoiceNumbers');
    assert.equal(t.kind, 'class');
    assert.equal(t.flavor, 'object');
    assert.deepEqual(t.modifiers, ['public', 'final']);
    assert.deepEqual(t.supertypes, [{ type: { name: 'NumberSource' }, relation: 'unknown' }]);
    assert.ok(!t.members.some((m) => m.kind === 'constructor'));
    assert.deepEqual(memberOf(t, 'allocate').modifiers, ['public', 'final', 'static']);
    assert.deepEqual(memberOf(t, 'reset').modifiers, ['public', 'final']);
    assert.deepEqual(memberOf(t, 'reset').returnType, { name: 'Unit' });
    assert.deepEqual(callOf(memberOf(t, 'allocate'), 'format').receiver, { k: 'literal', type: 'String' });
    const next = fieldOf(t, 'next');
    assert.deepEqual(next.init, { k: 'literal', type: 'long' });
    assert.equal(next.property, 'var');
    assert.deepEqual(membersNamed(t, 'getNext'), []);
    assert.equal(f.types.length, 1, 'no facade without top-level functions or properties');
  });

  test('data class: flavor data, constructor properties with accessors, defaults', () => {
    const t = typeOf(
      extract(`package com.acme.api

data class InvoiceDto(
    val id: Long,
    var status: String = "draft",
    val lines: List<LineDto> = emptyList(),
    val note: String?,
)
`),
      'com.acme.api.InvoiceDto',
    );
    assert.equal(t.flavor, 'data');
    assert.deepEqual(t.modifiers, ['public', 'data', 'final']);
    const ctor = memberOf(t, '<init>');
    assert.deepEqual(
      ctor.params.map((p) => p.type),
      [{ name: 'Long' }, { name: 'String' }, { name: 'List', args: [{ name: 'LineDto' }] }, { name: 'String', nullable: true }],
    );
    assert.deepEqual(ctor.calls, [
      { kind: 'super_ctor', name: '<init>', argCount: 0, args: [], line: 3, implicit: true },
      { kind: 'call', name: 'emptyList', argCount: 0, args: [], line: 6 },
    ]);
    assert.deepEqual(
      t.fields.map((x) => [x.name, x.property, x.modifiers.join(' ')]),
      [
        ['id', 'val', 'public final'],
        ['status', 'var', 'public'],
        ['lines', 'val', 'public final'],
        ['note', 'val', 'public final'],
      ],
    );
    assert.deepEqual(
      t.members.map((m) => `${m.name}/${m.synthetic}`),
      ['<init>/primary_constructor', 'getId/property_getter', 'getStatus/property_getter', 'setStatus/property_setter', 'getLines/property_getter', 'getNote/property_getter'],
    );
    const setter = memberOf(t, 'setStatus');
    assert.deepEqual(setter.params, [{ name: 'value', type: { name: 'String' }, annotations: [] }]);
    assert.deepEqual(setter.returnType, { name: 'Unit' });
    assert.equal(setter.property, 'status');
  });

  test('class-body properties: getters, setters, is-names, custom accessors, lateinit, @JvmField, use-site targets', () => {
    const t = typeOf(
      extract(`package com.acme

class Account {
    var count: Int = 0
    var isEnabled = true
    val isActive: Boolean
        get() = count > 0 && check(count)
    var balance: Long = 0
        private set
    var label = "x"
        set(v) {
            field = v.trim()
            audit(v)
        }
    val total get() = compute(count)
    @Autowired
    lateinit var repo: AccountRepository
    @JvmField val tag: String = "t"
    @get:JsonIgnore
    val secret: String = ""
    protected open val limit: Int = 5
}
`),
      'com.acme.Account',
    );
    assert.deepEqual(
      t.members.map((m) => m.name),
      ['<init>', 'getCount', 'setCount', 'isEnabled', 'setEnabled', 'isActive', 'getBalance', 'getLabel', 'setLabel', 'getTotal', 'getRepo', 'setRepo', 'getSecret', 'getLimit'],
    );
    assert.equal(memberOf(t, '<init>').synthetic, 'default_constructor');
    assert.deepEqual(memberOf(t, 'setCount').params, [{ name: 'value', type: { name: 'Int' }, annotations: [] }]);
    assert.deepEqual(memberOf(t, 'getCount').returnType, { name: 'Int' });
    // `var isEnabled = true`: `isEnabled` / `setEnabled`, the setter typed from the literal.
    assert.equal(memberOf(t, 'isEnabled').property, 'isEnabled');
    assert.deepEqual(memberOf(t, 'setEnabled').params[0]!.type, { name: 'Boolean' });
    assert.deepEqual(fieldOf(t, 'isEnabled').init, { k: 'literal', type: 'boolean' });
    // A custom getter body's calls belong to the getter.
    const isActive = memberOf(t, 'isActive');
    assert.deepEqual(isActive.returnType, { name: 'Boolean' });
    assert.deepEqual(isActive.calls.map((c) => c.name), ['check']);
    assert.equal(isActive.line, 7);
    // A custom setter keeps its parameter name; its calls belong to it.
    const setLabel = memberOf(t, 'setLabel');
    assert.deepEqual(setLabel.params, [{ name: 'v', type: { name: 'String' }, annotations: [] }]);
    assert.deepEqual(setLabel.calls.map((c) => c.name), ['trim', 'audit']);
    // An inferred property without initializer takes its getter's expression as init.
    assert.deepEqual(fieldOf(t, 'total').init, { k: 'call', name: 'compute', argCount: 1 });
    assert.equal(memberOf(t, 'getTotal').returnType, undefined);
    assert.deepEqual(memberOf(t, 'getTotal').calls.map((c) => c.name), ['compute']);
    // lateinit field carries the field annotation; @JvmField has no accessors.
    const repo = fieldOf(t, 'repo');
    assert.deepEqual(repo.modifiers, ['public', 'lateinit']);
    assert.deepEqual(repo.annotations.map((a) => a.name), ['Autowired']);
    assert.deepEqual(membersNamed(t, 'getTag'), []);
    assert.deepEqual(fieldOf(t, 'tag').annotations.map((a) => a.name), ['JvmField']);
    // `@get:` goes to the getter.
    assert.deepEqual(memberOf(t, 'getSecret').annotations.map((a) => [a.name, a.target]), [['JsonIgnore', 'get']]);
    assert.deepEqual(fieldOf(t, 'secret').annotations, []);
    // Visibility and openness carry over to the accessor.
    assert.deepEqual(memberOf(t, 'getLimit').modifiers, ['protected', 'open']);
    assert.deepEqual(fieldOf(t, 'limit').modifiers, ['protected', 'open', 'final']);
  });
});

describe('Kotlin: file facade and extension functions', () => {
  const UTILS = `package com.acme.billing

import java.math.BigDecimal

class Helper

fun Invoice.totalWithTax(rate: BigDecimal): BigDecimal =
    lines.fold(BigDecimal.ZERO) { acc, line -> acc + line.amount }.multiply(BigDecimal.ONE + rate)

internal fun formatAll(vararg invoices: Invoice): List<String> {
    return invoices.map { it.number }
}

val Invoice.lineCount: Int
    get() = lines.size

var threshold: Int = 3
private const val PREFIX = "INV"

fun startTicker(): Runnable = object : Runnable {
    override fun run() { tick() }
}
`;

  test('top-level functions and properties sit on <Basename>Kt, the last type (then its own anonymous types)', () => {
    const f = extract(UTILS, 'src/main/kotlin/com/acme/billing/billingUtils.kt');
    assert.deepEqual(f.types.map((t) => t.qualifiedName), ['com.acme.billing.Helper', 'com.acme.billing.BillingUtilsKt', 'com.acme.billing.BillingUtilsKt$1']);
    const facade = typeOf(f, 'com.acme.billing.BillingUtilsKt');
    assert.equal(facade.name, 'BillingUtilsKt');
    assert.equal(facade.kind, 'class');
    assert.equal(facade.flavor, 'facade');
    assert.deepEqual(facade.modifiers, ['public', 'final']);
    assert.deepEqual(
      facade.members.map((m) => [m.name, m.modifiers.join(' ')]),
      [
        ['totalWithTax', 'public final static'],
        ['formatAll', 'internal final static'],
        ['getLineCount', 'public final static'],
        ['getThreshold', 'public final static'],
        ['setThreshold', 'public final static'],
        ['startTicker', 'public final static'],
      ],
    );
    assert.deepEqual(
      facade.fields.map((x) => [x.name, x.modifiers.join(' ')]),
      [
        ['threshold', 'public static'],
        ['PREFIX', 'private const final static'],
      ],
    );
  });

  test('extension functions and properties take the receiver as a first $receiver parameter', () => {
    const facade = typeOf(extract(UTILS, 'billingUtils.kt'), 'com.acme.billing.BillingUtilsKt');
    const total = memberOf(facade, 'totalWithTax');
    assert.deepEqual(total.extensionReceiver, { name: 'Invoice' });
    assert.deepEqual(total.params, [
      { name: '$receiver', type: { name: 'Invoice' }, annotations: [] },
      { name: 'rate', type: { name: 'BigDecimal' }, annotations: [] },
    ]);
    assert.deepEqual(total.returnType, { name: 'BigDecimal' });
    // `fold(x) { … }` is one call with two arguments; `multiply` is called on its result.
    assert.deepEqual(callOf(total, 'fold'), {
      kind: 'call',
      name: 'fold',
      argCount: 2,
      args: ['BigDecimal.ZERO', '{ acc, line -> acc + line.amount }'],
      line: 8,
      receiver: { k: 'name', name: 'lines' },
    });
    assert.deepEqual(callOf(total, 'multiply').receiver, { k: 'call', of: { k: 'name', name: 'lines' }, name: 'fold', argCount: 2 });
    const formatAll = memberOf(facade, 'formatAll');
    assert.deepEqual(formatAll.params, [{ name: 'invoices', type: { name: 'Invoice', array: 1 }, annotations: [], varargs: true }]);
    const lineCount = memberOf(facade, 'getLineCount');
    assert.deepEqual(lineCount.extensionReceiver, { name: 'Invoice' });
    assert.deepEqual(lineCount.params, [{ name: '$receiver', type: { name: 'Invoice' }, annotations: [] }]);
    assert.ok(!facade.fields.some((x) => x.name === 'lineCount'), 'an extension property has no field');
  });

  test('an object expression in a top-level function is numbered under the facade', () => {
    const f = extract(UTILS, 'billingUtils.kt');
    const anon = typeOf(f, 'com.acme.billing.BillingUtilsKt$1');
    assert.equal(anon.name, 'BillingUtilsKt$1');
    assert.equal(anon.anonymous, true);
    assert.equal(anon.outer, 'com.acme.billing.BillingUtilsKt');
    assert.deepEqual(callOf(memberOf(anon, 'run'), 'tick').line, 21);
    const start = memberOf(typeOf(f, 'com.acme.billing.BillingUtilsKt'), 'startTicker');
    assert.deepEqual(start.calls, [{ kind: 'new', name: '<init>', type: { name: 'Runnable' }, argCount: 0, args: [], line: 20, anonymous: 'com.acme.billing.BillingUtilsKt$1' }]);
  });

  test('@file:JvmName names the facade; no facade without top-level members', () => {
    const named = extract(`@file:JvmName("Billing")\npackage com.acme\n\nfun helper() = 1\n`, 'billingUtils.kt');
    assert.deepEqual(named.types.map((t) => t.qualifiedName), ['com.acme.Billing']);
    assert.equal(named.types[0]!.name, 'Billing');
    assert.equal(memberOf(named.types[0]!, 'helper').returnType, undefined, 'expression body without a declared type');
    const odd = extract(`fun x() {}\n`, 'src/billing-utils.kt');
    assert.deepEqual(odd.types.map((t) => t.qualifiedName), ['Billing_utilsKt']);
    assert.deepEqual(memberOf(odd.types[0]!, 'x').returnType, { name: 'Unit' });
    const none = extract(`package com.acme\n\nclass Only\n`, 'Only.kt');
    assert.deepEqual(none.types.map((t) => t.qualifiedName), ['com.acme.Only']);
  });
});

describe('Kotlin: code inside members', () => {
  const CODE = `package com.acme

class Worker(private val repo: Repo) : Base() {
    fun work(items: List<Item>) {
        val first: Item? = items.firstOrNull()
        val names = items.map { it.name }.filter { n: String -> isValid(n) }
        val self = this.repo
        repo?.load(1)?.also { audit(it) }
        super.work(items)
        this.notify("done")
        val kind = Item::class
        val casted = first as Special
        val list = ArrayList<String>(10)
        val x = HashMap<String, Int>()
        for (item: Item in items) { handle(item) }
        try { risky() } catch (e: IOException) { recover(e) }
        items.forEach(this::handle)
        items.forEach(::log)
        items.map(Item::name)
        val make = ::Item
        fun local(a: Int) = compute(a)
        run {
            val inner = object : Runnable { override fun run() { tick() } }
        }
    }
}
`;

  test('locals: declared types, inferred inits, loop and catch variables, lambda parameters', () => {
    const work = memberOf(typeOf(extract(CODE), 'com.acme.Worker'), 'work');
    const local = (name: string) => work.locals.find((l) => l.name === name);
    assert.deepEqual(local('first'), { name: 'first', line: 5, type: { name: 'Item', nullable: true }, init: { k: 'call', of: { k: 'name', name: 'items' }, name: 'firstOrNull', argCount: 0 } });
    assert.deepEqual(local('names')?.init, { k: 'call', of: { k: 'call', of: { k: 'name', name: 'items' }, name: 'map', argCount: 1 }, name: 'filter', argCount: 1 });
    assert.deepEqual(local('n'), { name: 'n', type: { name: 'String' }, line: 6 });
    assert.deepEqual(local('self')?.init, { k: 'field', of: { k: 'this' }, name: 'repo' });
    assert.deepEqual(local('kind')?.init, { k: 'class_literal', type: { name: 'Item' } });
    assert.deepEqual(local('casted')?.init, { k: 'cast', type: { name: 'Special' } });
    assert.deepEqual(local('list')?.init, { k: 'call', name: 'ArrayList', argCount: 1 });
    assert.deepEqual(local('x')?.init, { k: 'call', name: 'HashMap', argCount: 0 });
    assert.deepEqual(local('item'), { name: 'item', type: { name: 'Item' }, line: 15 });
    assert.deepEqual(local('e'), { name: 'e', type: { name: 'IOException' }, line: 16 });
    assert.deepEqual(local('a'), { name: 'a', type: { name: 'Int' }, line: 21 });
  });

  test('calls: receivers for safe calls, this and super; lambdas marked; generic calls the grammar misreads', () => {
    const work = memberOf(typeOf(extract(CODE), 'com.acme.Worker'), 'work');
    assert.deepEqual(callOf(work, 'firstOrNull'), { kind: 'call', name: 'firstOrNull', argCount: 0, args: [], line: 5, receiver: { k: 'name', name: 'items' } });
    assert.deepEqual(callOf(work, 'isValid'), { kind: 'call', name: 'isValid', argCount: 1, args: ['n'], line: 6, inLambda: true });
    assert.deepEqual(callOf(work, 'also').receiver, { k: 'call', of: { k: 'name', name: 'repo' }, name: 'load', argCount: 1 });
    assert.deepEqual(callOf(work, 'load').receiver, { k: 'name', name: 'repo' });
    assert.equal(callOf(work, 'audit').inLambda, true);
    assert.deepEqual(callOf(work, 'work').receiver, { k: 'super' });
    assert.deepEqual(callOf(work, 'notify'), { kind: 'call', name: 'notify', argCount: 1, args: ['"done"'], line: 10, receiver: { k: 'this' } });
    assert.deepEqual(callOf(work, 'ArrayList'), { kind: 'call', name: 'ArrayList', argCount: 1, args: ['10'], line: 13 });
    assert.deepEqual(callsNamed(work, 'handle').map((c) => [c.kind, c.inLambda]), [['call', undefined], ['method_ref', undefined]], 'a for loop body is no lambda');
    assert.equal(callOf(work, 'recover').line, 16);
    // A local function's code runs later, like a lambda's.
    assert.equal(callOf(work, 'compute').inLambda, true);
    // Outermost call first: in `items.map { … }.filter { … }` that is `filter`.
    const order = work.calls.map((c) => c.name);
    assert.ok(order.indexOf('filter') < order.indexOf('map'), order.join(','));
  });

  test('callable references are method_ref calls with argCount -1', () => {
    const work = memberOf(typeOf(extract(CODE), 'com.acme.Worker'), 'work');
    const refs = work.calls.filter((c) => c.kind === 'method_ref');
    assert.deepEqual(refs, [
      { kind: 'method_ref', name: 'handle', receiver: { k: 'this' }, argCount: -1, args: [], line: 17 },
      { kind: 'method_ref', name: 'log', argCount: -1, args: [], line: 18 },
      { kind: 'method_ref', name: 'name', receiver: { k: 'name', name: 'Item' }, argCount: -1, args: [], line: 19 },
      { kind: 'method_ref', name: 'Item', argCount: -1, args: [], line: 20 },
    ]);
    assert.deepEqual(callsNamed(work, 'forEach').map((c) => c.args), [['this::handle'], ['::log']]);
  });

  test('an object expression inside a lambda: anonymous type under the top-level type, creation in the member', () => {
    const f = extract(CODE);
    const anon = typeOf(f, 'com.acme.Worker$1');
    assert.equal(anon.name, 'Worker$1');
    assert.equal(anon.anonymous, true);
    assert.equal(anon.outer, 'com.acme.Worker');
    assert.deepEqual(anon.modifiers, ['final']);
    assert.deepEqual(anon.supertypes, [{ type: { name: 'Runnable' }, relation: 'unknown' }]);
    assert.ok(!anon.members.some((m) => m.kind === 'constructor'));
    assert.deepEqual(memberOf(anon, 'run').calls.map((c) => c.name), ['tick']);
    const work = memberOf(typeOf(f, 'com.acme.Worker'), 'work');
    assert.deepEqual(
      work.calls.find((c) => c.kind === 'new'),
      { kind: 'new', name: '<init>', type: { name: 'Runnable' }, argCount: 0, args: [], line: 23, anonymous: 'com.acme.Worker$1', inLambda: true },
    );
    assert.ok(!work.calls.some((c) => c.name === 'tick'), 'the anonymous class body is its own');
  });

  test('anonymous objects are numbered per top-level type in source order, nested ones included', () => {
    const f = extract(`package p

class Outer {
    val a = object : A() {}
    fun b() {
        val x = object : B {
            fun c() = object : C {}
        }
    }
    companion object {
        val d = object : D {}
    }
}

class Second {
    fun e() = object : E {}
}
`);
    assert.deepEqual(
      f.types.map((t) => [t.qualifiedName, t.outer ?? '', t.supertypes.map((s) => `${s.type.name}:${s.relation}`).join(',')]),
      [
        ['p.Outer', '', ''],
        ['p.Outer$1', 'p.Outer', 'A:extends'],
        ['p.Outer$2', 'p.Outer', 'B:unknown'],
        ['p.Outer$3', 'p.Outer$2', 'C:unknown'],
        ['p.Outer.Companion', 'p.Outer', ''],
        ['p.Outer$4', 'p.Outer.Companion', 'D:unknown'],
        ['p.Second', '', ''],
        ['p.Second$1', 'p.Second', 'E:unknown'],
      ],
    );
    // The property initializer's object is created by the primary constructor.
    const ctor = memberOf(typeOf(f, 'p.Outer'), '<init>');
    assert.deepEqual(ctor.calls.find((c) => c.kind === 'new')?.anonymous, 'p.Outer$1');
    assert.deepEqual(memberOf(typeOf(f, 'p.Outer$2'), 'c').calls.map((c) => c.anonymous), ['p.Outer$3']);
  });

  test('local classes are local types of the enclosing type', () => {
    const f = extract(`package p

class Host {
    fun build(): Any {
        class Local(val x: Int)
        return Local(1)
    }
}
`);
    const local = typeOf(f, 'p.Host.Local');
    assert.equal(local.local, true);
    assert.equal(local.outer, 'p.Host');
    assert.deepEqual(callOf(memberOf(typeOf(f, 'p.Host'), 'build'), 'Local').args, ['1']);
  });
});

describe('Kotlin: constructors, annotations, enums, interfaces', () => {
  test('secondary constructors: this/super delegation; initializers run in the first secondary constructor', () => {
    const f = extract(`package p

class Conn : Base {
    private val pool = Pool.create()

    constructor(url: String) : super(url) {
        connect(url)
    }

    constructor() : this("jdbc:default")
}

class Point(val x: Int, val y: Int) {
    constructor(both: Int) : this(both, both)
}

class Plain {
    constructor(a: Int) {
        setup(a)
    }
}
`);
    const conn = typeOf(f, 'p.Conn');
    const ctors = membersNamed(conn, '<init>');
    assert.equal(ctors.length, 2, 'no default constructor when secondary ones exist');
    assert.equal(ctors[0]!.synthetic, undefined);
    assert.deepEqual(ctors[0]!.params, [{ name: 'url', type: { name: 'String' }, annotations: [] }]);
    assert.deepEqual(
      ctors[0]!.calls.map((c) => [c.kind, c.name, c.argCount]),
      [
        ['super_ctor', '<init>', 1],
        ['call', 'create', 0],
        ['call', 'connect', 1],
      ],
    );
    assert.deepEqual(ctors[1]!.calls, [{ kind: 'this_ctor', name: '<init>', argCount: 1, args: ['"jdbc:default"'], line: 10 }]);
    assert.deepEqual(conn.supertypes, [{ type: { name: 'Base' }, relation: 'unknown' }]);

    const point = typeOf(f, 'p.Point');
    const pointCtors = membersNamed(point, '<init>');
    assert.deepEqual(pointCtors.map((c) => [c.synthetic, c.params.length]), [['primary_constructor', 2], [undefined, 1]]);
    assert.deepEqual(pointCtors[1]!.calls, [{ kind: 'this_ctor', name: '<init>', argCount: 2, args: ['both', 'both'], line: 14 }]);

    const plain = memberOf(typeOf(f, 'p.Plain'), '<init>');
    assert.deepEqual(plain.calls.map((c) => [c.kind, c.name, c.implicit]), [['super_ctor', '<init>', true], ['call', 'setup', undefined]]);
  });

  test('annotation arguments: arrays, named, class literals, constants, templates, nested annotations', () => {
    const f = extract(`package p

@org.springframework.web.bind.annotation.RestController
@RequestMapping(value = ["/api/invoices", "/v2/invoices"], method = [RequestMethod.GET, RequestMethod.POST], produces = arrayOf("application/json"))
@Import(InvoiceConfig::class, AuditConfig::class)
@Retry(maxAttempts = 3, delay = -1.5, enabled = false)
@Path("/items/\${ITEM}")
@Qualifier("$BEAN_PREFIX-main")
@ComponentScan(excludeFilters = [Filter(type = FilterType.ANNOTATION, classes = [Internal::class])])
@ConditionalOnProperty(prefix = PREFIX + ".x", name = ["enabled"])
class InvoiceController
`);
    const t = typeOf(f, 'p.InvoiceController');
    const ann = (name: string) => t.annotations.find((a) => a.name === name)!;
    assert.deepEqual(
      t.annotations.map((a) => [a.name, a.written]),
      [
        ['RestController', 'org.springframework.web.bind.annotation.RestController'],
        ['RequestMapping', 'RequestMapping'],
        ['Import', 'Import'],
        ['Retry', 'Retry'],
        ['Path', 'Path'],
        ['Qualifier', 'Qualifier'],
        ['ComponentScan', 'ComponentScan'],
        ['ConditionalOnProperty', 'ConditionalOnProperty'],
      ],
    );
    assert.deepEqual(ann('RequestMapping').args, {
      value: [
        { kind: 'string', text: '"/api/invoices"', value: '/api/invoices' },
        { kind: 'string', text: '"/v2/invoices"', value: '/v2/invoices' },
      ],
      method: [
        { kind: 'ref', text: 'RequestMethod.GET' },
        { kind: 'ref', text: 'RequestMethod.POST' },
      ],
      produces: [{ kind: 'string', text: '"application/json"', value: 'application/json' }],
    });
    assert.equal(ann('RequestMapping').line, 4);
    assert.deepEqual(ann('Import').args, {
      value: [
        { kind: 'class', text: 'InvoiceConfig::class', value: 'InvoiceConfig' },
        { kind: 'class', text: 'AuditConfig::class', value: 'AuditConfig' },
      ],
    });
    assert.deepEqual(ann('Retry').args, {
      maxAttempts: [{ kind: 'number', text: '3', value: '3' }],
      delay: [{ kind: 'number', text: '-1.5', value: '-1.5' }],
      enabled: [{ kind: 'boolean', text: 'false', value: 'false' }],
    });
    assert.deepEqual(ann('Path').args, { value: [{ kind: 'expr', text: '"/items/${ITEM}"' }] });
    assert.deepEqual(ann('Qualifier').args, { value: [{ kind: 'expr', text: '"$BEAN_PREFIX-main"' }] });
    assert.deepEqual(ann('ComponentScan').args['excludeFilters']?.map((v) => v.kind), ['annotation']);
    assert.deepEqual(ann('ConditionalOnProperty').args, {
      prefix: [{ kind: 'expr', text: 'PREFIX + ".x"' }],
      name: [{ kind: 'string', text: '"enabled"', value: 'enabled' }],
    });
    assert.equal(t.annotations.find((a) => a.target !== undefined), undefined);
  });

  test('use-site targets on constructor properties: @field, @get, @param', () => {
    const t = typeOf(
      extract(`package p

class Doc(
    @field:Id @get:JsonProperty("id") @param:Named("docId") val id: String,
    @Column(name = "title") var title: String,
)
`),
      'p.Doc',
    );
    const ctor = memberOf(t, '<init>');
    assert.deepEqual(ctor.params.map((p) => p.annotations.map((a) => `${a.target ?? ''}:${a.name}`)), [['param:Named'], [':Column']]);
    assert.deepEqual(fieldOf(t, 'id').annotations.map((a) => `${a.target}:${a.name}`), ['field:Id']);
    assert.deepEqual(memberOf(t, 'getId').annotations.map((a) => `${a.target}:${a.name}:${a.args['value']?.[0]?.value}`), ['get:JsonProperty:id']);
    assert.deepEqual(fieldOf(t, 'title').annotations, []);
  });

  test('enum class with constructor, bodies on constants, members and a companion', () => {
    const f = extract(`package p

enum class Currency(val symbol: String, val digits: Int = 2) : Formatter {
    EUR("€"),
    @Deprecated("gone") USD("$"),
    JPY("¥", 0) {
        override fun format(amount: BigDecimal): String = "$symbol\${amount.toBigInteger()}"
    };

    override fun format(amount: BigDecimal): String = symbol + amount.setScale(digits)

    companion object {
        fun of(code: String): Currency = values().first { it.name == code }
    }
}
`);
    const t = typeOf(f, 'p.Currency');
    assert.equal(t.kind, 'enum');
    assert.deepEqual(t.modifiers, ['public', 'final']);
    assert.deepEqual(t.enumConstants, ['EUR', 'USD', 'JPY']);
    assert.deepEqual(t.supertypes, [{ type: { name: 'Formatter' }, relation: 'implements' }]);
    const ctor = memberOf(t, '<init>');
    assert.deepEqual(ctor.modifiers, ['private']);
    assert.deepEqual(ctor.calls, [], 'an enum constructor makes no super call');
    assert.deepEqual(memberOf(t, 'format').modifiers, ['public', 'override']);
    const jpy = typeOf(f, 'p.Currency$1');
    assert.equal(jpy.anonymous, true);
    assert.equal(jpy.outer, 'p.Currency');
    assert.deepEqual(jpy.supertypes, [{ type: { name: 'p.Currency' }, relation: 'unknown' }]);
    assert.deepEqual(memberOf(jpy, 'format').calls.map((c) => c.name), ['toBigInteger']);
    assert.deepEqual(f.types.map((x) => x.qualifiedName), ['p.Currency', 'p.Currency$1', 'p.Currency.Companion']);
  });

  test('interfaces: abstract and default methods, abstract property accessors, fun interface, supertypes', () => {
    const f = extract(`package p

interface InvoiceOperations : Operations, Auditable {
    val size: Int
    fun find(id: Long): Invoice?
    fun describe(id: Long): String {
        return find(id)?.let { "Invoice \${it.id}" } ?: "unknown"
    }
}

fun interface Handler {
    fun handle(event: Event)
}

sealed interface Shape
`);
    const ops = typeOf(f, 'p.InvoiceOperations');
    assert.equal(ops.kind, 'interface');
    assert.deepEqual(ops.modifiers, ['public']);
    assert.deepEqual(ops.supertypes, [
      { type: { name: 'Operations' }, relation: 'extends' },
      { type: { name: 'Auditable' }, relation: 'extends' },
    ]);
    assert.ok(!ops.members.some((m) => m.kind === 'constructor'));
    assert.deepEqual(memberOf(ops, 'find').modifiers, ['public', 'abstract']);
    assert.deepEqual(memberOf(ops, 'find').returnType, { name: 'Invoice', nullable: true });
    const describe = memberOf(ops, 'describe');
    assert.deepEqual(describe.modifiers, ['public', 'default']);
    assert.deepEqual(describe.calls.map((c) => c.name), ['let', 'find']);
    assert.deepEqual(memberOf(ops, 'getSize').modifiers, ['public', 'abstract']);
    assert.deepEqual(fieldOf(ops, 'size').modifiers, ['public', 'abstract']);
    const handler = typeOf(f, 'p.Handler');
    assert.equal(handler.kind, 'interface');
    assert.deepEqual(memberOf(handler, 'handle').modifiers, ['public', 'abstract']);
    const shape = typeOf(f, 'p.Shape');
    assert.equal(shape.kind, 'interface');
    assert.equal(shape.flavor, 'sealed');
  });

  test('class flavours and modifiers: sealed, value, annotation, open/abstract members, visibility', () => {
    const f = extract(`package p

sealed class Result
@JvmInline
value class Money(val cents: Long)
@Target(AnnotationTarget.CLASS)
annotation class Audited(val value: String, val level: Int = 1)
abstract class Repo<T : Any> protected constructor() {
    abstract fun load(id: Long): T
    protected open fun cache(): Int = 1
    internal inline fun <reified R> cast(x: Any): R = x as R
    suspend operator fun invoke(): Unit {}
    open inner class Cursor
}
`);
    const result = typeOf(f, 'p.Result');
    assert.equal(result.flavor, 'sealed');
    assert.deepEqual(result.modifiers, ['public', 'sealed', 'abstract']);
    const money = typeOf(f, 'p.Money');
    assert.equal(money.flavor, 'value');
    assert.deepEqual(money.annotations.map((a) => a.name), ['JvmInline']);
    const audited = typeOf(f, 'p.Audited');
    assert.equal(audited.kind, 'annotation');
    assert.deepEqual(audited.modifiers, ['public']);
    assert.deepEqual(audited.members.map((m) => [m.name, m.kind, m.returnType?.name, m.modifiers.join(' ')]), [
      ['value', 'method', 'String', 'public abstract'],
      ['level', 'method', 'Int', 'public abstract'],
    ]);
    assert.deepEqual(audited.annotations[0]!.args, { value: [{ kind: 'ref', text: 'AnnotationTarget.CLASS' }] });
    const repo = typeOf(f, 'p.Repo');
    assert.deepEqual(repo.modifiers, ['public', 'abstract']);
    assert.deepEqual(memberOf(repo, '<init>').modifiers, ['protected']);
    assert.deepEqual(memberOf(repo, 'load').modifiers, ['public', 'abstract']);
    assert.deepEqual(memberOf(repo, 'load').returnType, { name: 'T' });
    assert.deepEqual(memberOf(repo, 'cache').modifiers, ['protected', 'open']);
    assert.deepEqual(memberOf(repo, 'cast').modifiers, ['internal', 'inline', 'final']);
    assert.deepEqual(memberOf(repo, 'cast').returnType, { name: 'R' });
    assert.deepEqual(memberOf(repo, 'invoke').modifiers, ['public', 'suspend', 'operator', 'final']);
    const cursor = typeOf(f, 'p.Repo.Cursor');
    assert.deepEqual(cursor.modifiers, ['public', 'open', 'inner']);
    assert.equal(cursor.outer, 'p.Repo');
  });

  test('types as written: qualified, generic, nullable, projections, function types', () => {
    const t = typeOf(
      extract(`package p

class Types {
    fun f(
        a: java.util.Map<String, List<Int?>>,
        b: Array<out Number>,
        c: Comparator<in T>,
        d: List<*>,
        e: (Int, String) -> Boolean,
        g: suspend Invoice.() -> Unit,
        h: ((Long) -> Unit)?,
    ) {}
}
`),
      'p.Types',
    );
    assert.deepEqual(
      memberOf(t, 'f').params.map((p) => p.type),
      [
        { name: 'java.util.Map', args: [{ name: 'String' }, { name: 'List', args: [{ name: 'Int', nullable: true }] }] },
        { name: 'Array', args: [{ name: 'Number' }] },
        { name: 'Comparator', args: [{ name: '?' }] },
        { name: 'List', args: [{ name: '?' }] },
        { name: 'Function2', args: [{ name: 'Int' }, { name: 'String' }, { name: 'Boolean' }] },
        { name: 'Function1', args: [{ name: 'Invoice' }, { name: 'Unit' }] },
        { name: 'Function1', args: [{ name: 'Long' }, { name: 'Unit' }], nullable: true },
      ],
    );
  });
});

describe('Kotlin: broken and generated files', () => {
  test('a syntax error: the class before it is intact, errors are counted, later code still indexed', () => {
    const f = extract(`package com.acme

@Service
class Good(private val repo: Repo) {
    fun ok(): Int = repo.count()
}

class Broken(private val repo: Repo) {
    fun one() {
        repo.save(
    }
    fun two(): Int {
        return repo.count()
    }
}
`);
    assert.ok(f.parseErrors > 0);
    const good = typeOf(f, 'com.acme.Good');
    assert.deepEqual(good.annotations.map((a) => a.name), ['Service']);
    assert.deepEqual(memberOf(good, 'ok').calls.map((c) => c.name), ['count']);
    assert.deepEqual(fieldOf(good, 'repo').type, { name: 'Repo' });
    assert.deepEqual(memberOf(typeOf(f, 'com.acme.Broken'), 'two').calls.map((c) => c.name), ['count']);
  });

  test('a class tree-sitter flattened into an ERROR node is pieced back together', () => {
    // The grammar misreads this generic call statement and flattens the rest of the class into loose tokens.
    const f = extract(`package p

class B { fun f() = 1 }
class C
fun interface Fi {
    fun f()
}
class D : Base<String>(), java.io.Serializable {
    fun g() {
        super<Base>.h()
        this@D.x = 1
        java.util.ArrayList<String>()
        val c = a.b.C::class
        @Suppress("x") foo()
        val m = mapOf("a" to 1)
        try { x() } catch (e: IOException) { y() }
        when (v) { is Foo -> z() else -> w() }
        for (i in 0..10) { p(i) }
        list.forEach(this::handle)
        run { t() }
    }
}
@Target(AnnotationTarget.CLASS, AnnotationTarget.FUNCTION)
@Outer(inner = Inner("x"), n = -1, b = true, d = 1.5, l = 10L, s = "a" + "b", t = ${'}raw${'})
annotation class E
`);
    assert.ok(f.parseErrors > 0);
    assert.deepEqual(f.types.map((t) => t.qualifiedName).slice(0, 4), ['p.B', 'p.C', 'p.Fi', 'p.D']);
    assert.ok(memberOf(typeOf(f, 'p.B'), 'f'));
    const d = typeOf(f, 'p.D');
    assert.equal(d.line, 8);
    assert.deepEqual(d.supertypes, [
      { type: { name: 'Base', args: [{ name: 'String' }] }, relation: 'extends' },
      { type: { name: 'java.io.Serializable' }, relation: 'unknown' },
    ]);
    const g = memberOf(d, 'g');
    assert.equal(g.line, 9);
    assert.deepEqual(callOf(g, 'h').receiver, { k: 'super' });
  });

  test('a file cut off mid-class (as while it is being edited) keeps the class and its members so far', () => {
    const cut = INVOICE_SERVICE.indexOf('return invoices.save');
    const f = extract(INVOICE_SERVICE.slice(0, cut));
    assert.ok(f.parseErrors > 0);
    assert.equal(f.package, 'com.acme.billing');
    assert.equal(f.imports.single['Service'], 'org.springframework.stereotype.Service');
    const t = typeOf(f, 'com.acme.billing.InvoiceService');
    assert.deepEqual(t.annotations.map((a) => a.name), ['Service', 'Transactional']);
    assert.deepEqual(memberOf(t, '<init>').params.map((p) => p.name), ['invoices', 'clock', 'taxRate', 'retries']);
    assert.deepEqual(fieldOf(t, 'cache').init, { k: 'call', name: 'ConcurrentHashMap', argCount: 0 });
    const settle = memberOf(t, 'settle');
    assert.deepEqual(settle.returnType, { name: 'Invoice' });
    assert.deepEqual(settle.calls.map((c) => c.name), ['orElseThrow', 'findById', 'NoSuchInvoice']);
  });

  test('never throws and never hangs on truncated or mangled input', () => {
    // The grammar's scanner loops forever on an annotation running into the end of the file; the extractor
    // guards against it. Were it to regress, this test would hang rather than fail.
    assert.equal(extract('val x = 1\n@A').parseErrors > 0, true);
    assert.ok(extract('class A {\n    val x = 1\n    @get:A(b').types.length >= 0);
    for (const text of ['', '\n', '\0', '}}}{{{', 'class', 'fun', '@file:JvmName(', 'object : {', 'enum class E { A, B; }', '('.repeat(3000)]) {
      const f = extract(text);
      assert.equal(typeof f.parseErrors, 'number');
      assert.doesNotThrow(() => JSON.stringify(f));
    }
    const header = INVOICE_SERVICE.indexOf('InvoiceOperations {') + 'InvoiceOperations {'.length;
    const settle = INVOICE_SERVICE.indexOf('override fun settle(id: Long): Invoice {') + 40;
    for (let i = 0; i <= INVOICE_SERVICE.length; i += 3) {
      const f = extract(INVOICE_SERVICE.slice(0, i));
      assert.equal(f.lines, i === 0 ? 0 : INVOICE_SERVICE.slice(0, i).split('\n').length);
      const t = f.types.find((x) => x.name === 'InvoiceService');
      if (i >= header) assert.ok(t, `the class is lost when the file is cut at ${i}`);
      if (i >= settle) assert.ok(t?.members.some((m) => m.name === 'settle'), `settle is lost when the file is cut at ${i}`);
    }
  });

  test('top-level annotations the grammar reads apart from their declaration still belong to it', () => {
    // Depending on what follows in the file, tree-sitter-kotlin reads these annotations as an expression
    // statement: the class loses them, and `annotation class` / `enum class` declarations are lost altogether.
    const f = extract(`package com.acme.billing.web

import com.acme.billing.core.InvoiceService
import java.math.BigDecimal

@RestController
@RequestMapping("/invoices")
class InvoiceController(private val invoiceService: InvoiceService) {

    @GetMapping("/{customerId}/outstanding")
    fun outstanding(@PathVariable customerId: String): List<Invoice> {
        return invoiceService.outstanding(customerId)
    }
}

@Suppress("unused") // kept for callers
fun helper() = 1

data class CreateInvoiceRequest(val customerId: String, val amount: BigDecimal)

@Deprecated("use Limits")
const val LIMIT = 10

@Target(AnnotationTarget.CLASS)
@Retention(AnnotationRetention.RUNTIME)
annotation class Audited

@JsonFormat(shape = JsonFormat.Shape.STRING) enum class Channel { WEB, API }
`);
    assert.equal(f.parseErrors, 0);
    assert.deepEqual(
      f.types.map((t) => [t.name, t.kind, t.line, t.annotations.map((a) => `${a.name}@${a.line}`).join(' ')]),
      [
        ['InvoiceController', 'class', 6, 'RestController@6 RequestMapping@7'],
        ['CreateInvoiceRequest', 'class', 19, ''],
        ['Audited', 'annotation', 24, 'Target@24 Retention@25'],
        ['Channel', 'enum', 28, 'JsonFormat@28'],
        ['SampleKt', 'class', 1, ''],
      ],
    );
    const controller = typeOf(f, 'com.acme.billing.web.InvoiceController');
    assert.deepEqual(controller.annotations[1]!.args, { value: [{ kind: 'string', text: '"/invoices"', value: '/invoices' }] });
    assert.deepEqual(memberOf(controller, 'outstanding').calls.map((c) => c.name), ['outstanding']);
    assert.deepEqual(typeOf(f, 'com.acme.billing.web.Channel').enumConstants, ['WEB', 'API']);
    assert.deepEqual(typeOf(f, 'com.acme.billing.web.Channel').annotations[0]!.args['shape'], [{ kind: 'ref', text: 'JsonFormat.Shape.STRING' }]);
    const helper = memberOf(typeOf(f, 'com.acme.billing.web.SampleKt'), 'helper');
    assert.deepEqual(helper.annotations.map((a) => a.name), ['Suppress']);
    assert.equal(helper.line, 16);
    const limit = fieldOf(typeOf(f, 'com.acme.billing.web.SampleKt'), 'LIMIT');
    assert.deepEqual(limit.annotations.map((a) => a.name), ['Deprecated']);
    assert.deepEqual(limit.modifiers, ['public', 'const', 'final', 'static']);
  });

  // Unbounded, tree-sitter-kotlin spends minutes recovering from the stray backslash before this lambda chain; the
  // test's timeout is the hang guard (the parse budget is a second or two), not a speed check.
  test('input the grammar takes minutes over is given up on in time; the other declarations are kept', { timeout: 120_000 }, () => {
    const f = extract(`package p

class Good(private val repo: Repo) {
    fun ok() = repo.count()
}

fun broken() {
        if (paid < total) {
            events.publish(InvoiceEvent.Underpaid(id, total - paid))
            return invoice
     \\    }
        invoices.findByCustomerId(customerId)
            .groupBy { it.status }
            .mapValues { (_, list) -> list.fold(BigDecimal.ZERO) { acc, inv -> acc + inv.totalWithTax(taxRate) } }
    fun overdue(today: LocalDate = LocalDate.now(clock)): List<Invoice> =
        invoices.findAll().filter { it.isOverdue(today) }.sortedB(Invoice:;:issued)

}

class After {
    fun three() = 3
}
`);
    assert.ok(f.parseErrors > 0);
    assert.equal(f.package, 'p');
    assert.deepEqual(memberOf(typeOf(f, 'p.Good'), 'ok').calls.map((c) => c.name), ['count']);
    const after = typeOf(f, 'p.After');
    assert.deepEqual([after.line, after.endLine], [20, 22]);
    assert.ok(memberOf(after, 'three'));
    // The parser is usable again afterwards (a cancelled parse would otherwise resume on the next call).
    assert.deepEqual(extract('class Next\n').types.map((t) => t.name), ['Next']);
  });

  test('generated banners name their generator', () => {
    const proto = extract(`// Generated by the protocol buffer compiler.  DO NOT EDIT!\n// source: invoice.proto\npackage p\n\nclass InvoiceProto\n`);
    assert.equal(proto.generatedBanner, 'protobuf');
    assert.equal(extract(`/**\n * NOTE: This class is auto generated by OpenAPI Generator (https://openapi-generator.tech).\n * Do not edit the class manually.\n */\npackage p\n`).generatedBanner, 'openapi');
    assert.equal(extract(`// Code generated by KotlinPoet. Do not edit.\npackage p\n`).generatedBanner, 'kotlinpoet');
    assert.equal(extract(`// AUTO-GENERATED FILE\npackage p\n`).generatedBanner, 'generated');
    assert.equal(extract(`// Handles invoices; generation of numbers is elsewhere.\npackage p\n`).generatedBanner, undefined);
    assert.equal(extract(INVOICE_SERVICE).generatedBanner, undefined);
  });
});
