// Served with /docs: lets keyboard users scroll the reference's wide code blocks and tables, which the renderer draws
// as scrolling boxes that take no focus (axe: scrollable-region-focusable). Runs again whenever the renderer redraws.
const SCROLLING = 'pre, table, .scrollbar-container';
let queued = false;
function makeFocusable() {
  queued = false;
  for (const el of document.querySelectorAll(SCROLLING)) if (!el.hasAttribute('tabindex')) el.setAttribute('tabindex', '0');
}
new MutationObserver(() => {
  if (queued) return;
  queued = true;
  requestAnimationFrame(makeFocusable);
}).observe(document.body, { childList: true, subtree: true });
