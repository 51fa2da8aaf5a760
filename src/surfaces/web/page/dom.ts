/** A small element builder: `h('a', {href: '#/'}, 'text', child)`. Text is always set as text, never as HTML. */
type Child = Node | string | number | null | undefined | false | Child[];

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Record<string, string | number | boolean | undefined | ((e: Event) => void)> = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === false) continue;
    if (typeof v === 'function') el.addEventListener(k.replace(/^on/, ''), v);
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  append(el, children);
  return el;
}

function append(el: Node, children: Child[]): void {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    if (Array.isArray(c)) append(el, c);
    else el.appendChild(typeof c === 'string' || typeof c === 'number' ? document.createTextNode(String(c)) : c);
  }
}

export function clear(el: Element, ...children: Child[]): void {
  el.replaceChildren();
  append(el, children);
}

/** `file:line`, as every view shows where a declaration is. */
export function place(node: { file?: string; line?: number } | undefined): string {
  if (!node?.file) return '';
  return node.line ? `${node.file}:${node.line}` : node.file;
}

export function confidence(c: unknown): string {
  return typeof c === 'number' ? c.toFixed(2) : '';
}

/** A button that copies `text` to the clipboard (falls back to selecting it where the clipboard is not offered). */
export function copyButton(text: string, label = 'Copy'): HTMLButtonElement {
  const b = h('button', { class: 'copy', type: 'button' }, label);
  b.addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(text);
      b.textContent = 'Copied';
    } catch {
      b.textContent = 'Select and copy';
    }
    setTimeout(() => (b.textContent = label), 1500);
  });
  return b;
}
