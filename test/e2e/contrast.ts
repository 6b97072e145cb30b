/**
 * WCAG 2.x contrast of every visible text on a page (issue 18 item 6): each text node's colour against what is
 * really painted under it — the stack of elements at the text's centre (`elementsFromPoint`, so a toast or a
 * fixed bar over other content counts), or its ancestors when it is off screen — with every semi-transparent layer
 * composited, and the opacity of the text's ancestors applied. Colours are read back through a canvas, so any CSS
 * colour syntax (`color-mix`, `color(srgb …)`, `oklch`) is measured as rendered. Needs 4.5:1, or 3:1 for large text
 * (≥ 24 px, or ≥ 18.66 px bold). Placeholders are checked too; disabled controls are exempt (as WCAG exempts them).
 * Runs in the page as a string (the app's CSP forbids eval, and a string survives any transpiler).
 */
import type { Page } from 'playwright-core';

export interface ContrastFailure {
  text: string;
  where: string;
  fg: string;
  bg: string;
  ratio: number;
  required: number;
}

const SCRIPT = String.raw`(() => {
  const canvas = document.createElement('canvas');
  canvas.width = canvas.height = 1;
  const ctx = canvas.getContext('2d', { willReadFrequently: true });
  const cache = new Map();
  const rgba = (css) => {
    if (cache.has(css)) return cache.get(css);
    ctx.clearRect(0, 0, 1, 1);
    ctx.fillStyle = '#000';
    ctx.fillStyle = css;
    ctx.fillRect(0, 0, 1, 1);
    const d = ctx.getImageData(0, 0, 1, 1).data;
    const out = [d[0], d[1], d[2], d[3] / 255];
    cache.set(css, out);
    return out;
  };
  const over = (top, under) => {
    const a = top[3] + under[3] * (1 - top[3]);
    if (a === 0) return [0, 0, 0, 0];
    return [0, 1, 2].map((i) => (top[i] * top[3] + under[i] * under[3] * (1 - top[3])) / a).concat(a);
  };
  const lum = (c) => {
    const f = (v) => {
      v /= 255;
      return v <= 0.04045 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4);
    };
    return 0.2126 * f(c[0]) + 0.7152 * f(c[1]) + 0.0722 * f(c[2]);
  };
  const ratio = (a, b) => {
    const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p);
    return (x + 0.05) / (y + 0.05);
  };
  const canvasBg = () => {
    const html = rgba(getComputedStyle(document.documentElement).backgroundColor);
    const body = rgba(getComputedStyle(document.body).backgroundColor);
    const dark = matchMedia('(prefers-color-scheme: dark)').matches && getComputedStyle(document.documentElement).colorScheme.includes('dark');
    return over(body, over(html, dark ? [18, 18, 18, 1] : [255, 255, 255, 1]));
  };
  const layersBelow = (el, x, y) => {
    const inView = x >= 0 && y >= 0 && x < innerWidth && y < innerHeight;
    if (inView) {
      const stack = document.elementsFromPoint(x, y);
      let i = stack.findIndex((s) => s === el || s.contains(el) || el.contains(s));
      if (i >= 0) return stack.slice(i);
    }
    const chain = [];
    for (let e = el; e; e = e.parentElement) chain.push(e);
    return chain;
  };
  const background = (el, x, y) => {
    let bg = [0, 0, 0, 0];
    for (const layer of layersBelow(el, x, y)) {
      const c = rgba(getComputedStyle(layer).backgroundColor);
      if (c[3] > 0) bg = over(bg, c);
      if (bg[3] >= 0.999) return bg;
    }
    return over(bg, canvasBg());
  };
  const opacityOf = (el) => {
    let o = 1;
    for (let e = el; e; e = e.parentElement) o *= Number(getComputedStyle(e).opacity);
    return o;
  };
  const describe = (el) => {
    const parts = [];
    for (let e = el; e && e !== document.body && parts.length < 4; e = e.parentElement) {
      const id = e.getAttribute('data-testid');
      const cls = typeof e.className === 'string' && e.className.trim() ? '.' + e.className.trim().split(/\s+/).slice(0, 2).join('.') : '';
      parts.unshift(e.tagName.toLowerCase() + (id ? '[' + id + ']' : cls));
    }
    return parts.join(' > ');
  };
  const required = (style) => {
    const px = parseFloat(style.fontSize);
    const bold = Number(style.fontWeight) >= 700;
    return px >= 24 || (bold && px >= 18.66) ? 3 : 4.5;
  };
  const failures = [];
  const check = (el, text, fgCss, rect) => {
    const style = getComputedStyle(el);
    const x = rect.left + rect.width / 2;
    const y = rect.top + rect.height / 2;
    const bg = background(el, x, y);
    const fg0 = rgba(fgCss);
    const fg = over([fg0[0], fg0[1], fg0[2], fg0[3] * opacityOf(el)], bg);
    const r = ratio(fg, bg);
    const need = required(style);
    if (r + 1e-6 < need) {
      const hex = (c) => '#' + c.slice(0, 3).map((v) => Math.round(v).toString(16).padStart(2, '0')).join('');
      failures.push({ text: text.trim().slice(0, 60), where: describe(el), fg: hex(fg), bg: hex(bg), ratio: Math.round(r * 100) / 100, required: need });
    }
  };
  const disabled = (el) => !!el.closest(':disabled, [aria-disabled="true"]');
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (!node.textContent.trim()) continue;
    const el = node.parentElement;
    if (!el || disabled(el) || el.closest('[aria-hidden="true"], option, script, style, noscript')) continue;
    if (!el.checkVisibility({ opacityProperty: true, visibilityProperty: true, contentVisibilityAuto: true })) continue;
    const range = document.createRange();
    range.selectNodeContents(node);
    const rect = range.getBoundingClientRect();
    if (rect.width === 0 || rect.height === 0) continue;
    // clipped away by a scrolling or overflow-hidden ancestor: not visible
    let clipped = false;
    for (let e = el.parentElement; e && e !== document.body; e = e.parentElement) {
      const s = getComputedStyle(e);
      if (s.overflowX === 'visible' && s.overflowY === 'visible') continue;
      const r = e.getBoundingClientRect();
      if (rect.bottom <= r.top || rect.top >= r.bottom || rect.right <= r.left || rect.left >= r.right) { clipped = true; break; }
    }
    if (clipped) continue;
    check(el, node.textContent, getComputedStyle(el).color, rect);
  }
  for (const el of document.querySelectorAll('input[placeholder], textarea[placeholder]')) {
    if (el.value !== '' || disabled(el) || !el.checkVisibility({ opacityProperty: true, visibilityProperty: true })) continue;
    const rect = el.getBoundingClientRect();
    if (rect.width === 0 || rect.height === 0) continue;
    check(el, '(placeholder) ' + el.placeholder, getComputedStyle(el, '::placeholder').color, rect);
  }
  return failures;
})()`;

/** Every visible text on the page that misses WCAG AA contrast. */
export async function contrastFailures(page: Page): Promise<ContrastFailure[]> {
  return (await page.evaluate(SCRIPT)) as ContrastFailure[];
}

/** One line per failure (for assertion messages). */
export const formatFailures = (fails: ContrastFailure[]): string =>
  fails.map((f) => `${f.ratio}:1 < ${f.required}:1  ${f.fg} on ${f.bg}  "${f.text}"  (${f.where})`).join('\n');
