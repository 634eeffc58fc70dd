// The signed-in frame: top bar (brand, navigation, live indicator, who is signed in, sign-out), skip link, and the page itself.
import { useEffect, useRef, useState } from 'preact/hooks';
import { html } from '../lib/html.js';
import { href, type Route } from '../lib/router.js';
import { useSession } from '../lib/session.js';
import type { PageDef } from '../pages/index.js';
import { PAGES } from '../pages/index.js';
import { Button, ErrorNote } from './ui.js';
import { errorWords } from '../lib/error-words.js';
import { LiveIndicator } from './live-indicator.js';

function focusMain(e: Event): void {
  // A plain #main link would change the hash route; move focus instead.
  e.preventDefault();
  document.getElementById('main')?.focus();
}

function NotFound() {
  return html`<div class="empty">
    <h1>Page not found</h1>
    <p>There is no page at this address. <a href="#/">Go to the farm overview</a>.</p>
  </div>`;
}

function MissingScope({ page, scope }: { page: PageDef; scope: string }) {
  return html`<div class="note warning" role="status">
    <span>The ${page.title} page needs the <code>${scope}</code> permission, which this sign-in does not have. Ask an admin
      for a role or key that includes it, or <a href="#/">go to the farm overview</a>.</span>
  </div>`;
}

export function Layout({ page, route }: { page: PageDef | null; route: Route }) {
  const { session, can, signOut } = useSession();
  const [menuOpen, setMenuOpen] = useState(false);
  const [signingOut, setSigningOut] = useState(false);
  const [signOutError, setSignOutError] = useState<string | null>(null);
  const current = route.parts[0] ?? '';

  const firstPage = useRef(true);
  useEffect(() => {
    document.title = page ? `${page.title} · printfarm` : 'Page not found · printfarm';
    setMenuOpen(false);
    // After a navigation (not the first load) keyboard and screen-reader users start at the new page's content.
    if (firstPage.current) firstPage.current = false;
    else document.getElementById('main')?.focus({ preventScroll: false });
  }, [page, current]);

  const allowed = !page?.scope || can(page.scope);
  const body = !page
    ? html`<${NotFound} />`
    : allowed
      ? html`<${page.component} route=${route} />`
      : html`<${MissingScope} page=${page} scope=${page.scope!} />`;

  if (page?.bare) return html`<main id="main" class="bare" tabindex="-1">${body}</main>`;

  const who = session.user ? session.user.name || session.user.email : session.key ? `key “${session.key.name}”` : 'signed in';
  const whoTitle = session.user ? `Signed in as ${session.user.email} (${session.user.role})` : session.key ? `Signed in with the API key ${session.key.name}` : '';
  const nav = PAGES.filter((p) => p.nav && (!p.scope || can(p.scope)));

  return html`
    <a class="skip-link" href="#main" onClick=${focusMain}>Skip to content</a>
    <header class="topbar">
      <a class="brand" href="#/"><span class="brand-mark" aria-hidden="true">▦</span>printfarm</a>
      <button type="button" class="btn secondary small menu-toggle" aria-expanded=${menuOpen ? 'true' : 'false'} aria-controls="main-nav"
        onClick=${() => setMenuOpen(!menuOpen)}>${menuOpen ? '✕ Close' : '☰ Menu'}</button>
      <nav id="main-nav" class=${`nav${menuOpen ? ' open' : ''}`} aria-label="Main">
        <ul>
          ${nav.map(
            (p) => html`<li key=${p.path}><a href=${p.path ? href(p.path) : '#/'} aria-current=${p.path === current ? 'page' : undefined}>${p.title}</a></li>`,
          )}
          <li><a href="/docs">API reference</a></li>
        </ul>
        <span class="nav-extra" title=${whoTitle}>Signed in: ${who}</span>
      </nav>
      <div class="topbar-end">
        <${LiveIndicator} />
        <span class="who" title=${whoTitle}>${who}</span>
        <${Button} kind="secondary" busy=${signingOut} id="sign-out"
          onClick=${async () => {
            setSigningOut(true);
            setSignOutError(null);
            try {
              await signOut();
            } catch (err) {
              setSignOutError(`You are still signed in. ${errorWords(err)}`);
            } finally {
              setSigningOut(false);
            }
          }}>Sign out<//>
      </div>
    </header>
    ${signOutError ? html`<div class="content"><${ErrorNote} error=${signOutError} onDismiss=${() => setSignOutError(null)} /></div>` : null}
    <main id="main" class="content" tabindex="-1">${body}</main>
  `;
}
