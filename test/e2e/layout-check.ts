/**
 * Layout checks of issue 18 item 7, run in the page: the page itself never scrolls (the message list, settings and
 * lists scroll inside it), no visible button label wraps onto a second line or is cut off, no alert's text is cut
 * off, nothing in the top bar runs past the window's edge, no table runs out of its box, and the composer (box and Send) is fully on screen when
 * the chat is shown.
 */
import type { Page } from 'playwright-core';

export interface LayoutProblems {
  pageScroll?: string;
  wrapped: string[];
  clipped: string[];
  composer?: string;
}

const SCRIPT = String.raw`(() => {
  const out = { wrapped: [], clipped: [] };
  const se = document.scrollingElement;
  if (se.scrollHeight > innerHeight + 1 || se.scrollWidth > innerWidth + 1) out.pageScroll = se.scrollWidth + '×' + se.scrollHeight + ' in ' + innerWidth + '×' + innerHeight;
  const visible = (el) => el.checkVisibility({ opacityProperty: true, visibilityProperty: true }) && el.getBoundingClientRect().width > 0;
  const onScreen = (r) => r.bottom > 0 && r.right > 0 && r.top < innerHeight && r.left < innerWidth;
  for (const el of document.querySelectorAll('button, [role="button"], a.btn, summary.btn')) {
    if (!visible(el) || !onScreen(el.getBoundingClientRect())) continue;
    const label = (el.textContent || '').trim();
    if (!label) continue;
    // a label is one text: any of its text nodes on two lines is a wrapped label (a button laid out in several
    // lines of separate texts — a chat in the list: title, then model and time — is not)
    const texts = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    for (let t = texts.nextNode(); t; t = texts.nextNode()) {
      if (!t.textContent.trim()) continue;
      const range = document.createRange();
      range.selectNodeContents(t);
      const lines = new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top)));
      if (lines.size > 1) { out.wrapped.push(t.textContent.trim().slice(0, 40)); break; }
    }
    const st = getComputedStyle(el);
    // cut off: clipped without an ellipsis, or shortened with one but without the full text in its title
    const shortened = st.textOverflow === 'ellipsis' && (el.title || el.getAttribute('aria-label'));
    if (el.scrollWidth > el.clientWidth + 1 && st.overflowX !== 'visible' && !shortened) out.clipped.push('button: ' + label.slice(0, 40));
  }
  for (const el of document.querySelectorAll('[role="alert"]')) {
    if (!visible(el)) continue;
    if (el.scrollWidth > el.clientWidth + 1 || el.scrollHeight > el.clientHeight + 1) {
      const s = getComputedStyle(el);
      if (s.overflowY === 'auto' || s.overflowY === 'scroll') continue; // scrolls: nothing is lost
      out.clipped.push('alert: ' + (el.textContent || '').trim().slice(0, 60));
    }
  }
  // the top bar: everything in it inside the window (a control pushed past the edge is cut off, like the dot was)
  const bar = document.querySelector('.topbar');
  if (bar && visible(bar)) {
    for (const el of bar.querySelectorAll('*')) {
      if (!visible(el)) continue;
      const r = el.getBoundingClientRect();
      const name = el.getAttribute('aria-label') || (typeof el.className === 'string' && el.className) || el.tagName;
      if (r.right > innerWidth + 0.5 || r.left < -0.5) out.clipped.push('top bar: ' + name + ' at ' + Math.round(r.left) + '–' + Math.round(r.right) + ' of ' + innerWidth);
    }
  }
  // a table wider than the box it is in runs over what stands beside it (unless the box scrolls)
  for (const table of document.querySelectorAll('table')) {
    if (!visible(table) || !table.parentElement) continue;
    const box = table.parentElement;
    const st = getComputedStyle(box);
    if (st.overflowX === 'auto' || st.overflowX === 'scroll') continue;
    if (table.getBoundingClientRect().right > box.getBoundingClientRect().right + 1) out.clipped.push('table wider than its box: ' + (table.getAttribute('data-testid') || (table.textContent || '').trim().slice(0, 30)));
  }
  const box = document.querySelector('textarea[aria-label="Message"]');
  const send = [...document.querySelectorAll('.composer button')].find((b) => b.textContent.trim() === 'Send');
  if (box && visible(box)) {
    for (const [name, el] of [['message box', box], ['Send', send]]) {
      if (!el) { out.composer = name + ' missing'; continue; }
      const r = el.getBoundingClientRect();
      if (r.top < 0 || r.left < 0 || r.bottom > innerHeight + 0.5 || r.right > innerWidth + 0.5) out.composer = name + ' off screen: ' + JSON.stringify([r.left, r.top, r.right, r.bottom].map(Math.round));
    }
  }
  return out;
})()`;

export async function layoutProblems(page: Page): Promise<LayoutProblems> {
  return (await page.evaluate(SCRIPT)) as LayoutProblems;
}

/** Empty when the layout is fine; else one line per problem. */
export function describeLayout(p: LayoutProblems): string[] {
  return [
    ...(p.pageScroll ? [`the page scrolls: ${p.pageScroll}`] : []),
    ...p.wrapped.map((w) => `wrapped label: "${w}"`),
    ...p.clipped.map((c) => `cut off: ${c}`),
    ...(p.composer ? [`composer: ${p.composer}`] : []),
  ];
}
