// A small element builder: the table is redrawn from each view, so plain DOM calls suffice.

type Attr = string | number | boolean | undefined | null | ((event: Event) => void);
export type Child = Node | string | number | null | undefined | false;

/**
 * An element with attributes and children. `on<event>` attributes take listeners; `data-*` and
 * `aria-*` attributes spell booleans out ("true", "false"); for others `true` sets a boolean
 * attribute and `false` leaves it out; `undefined` / `null` always do; falsy children are skipped.
 */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, Attr> = {},
  ...children: (Child | Child[])[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === null) continue;
    if (typeof value === "boolean" && /^(data|aria)-/.test(name)) element.setAttribute(name, String(value));
    else if (value === false) continue;
    else if (typeof value === "function") element.addEventListener(name.slice(2), value);
    else element.setAttribute(name, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    element.append(typeof child === "number" ? String(child) : child);
  }
  return element;
}
