// Hash routing (#/queue, #/printers/prt_1): the server only ever serves index.html, and links work without a fallback route.
import { useEffect, useState } from 'preact/hooks';

export interface Route {
  /** Path segments after '#/': '#/printers/prt_1' -> ['printers', 'prt_1']. */
  parts: string[];
  query: URLSearchParams;
}

export function currentRoute(): Route {
  const raw = location.hash.replace(/^#\/?/, '');
  const [path = '', search = ''] = raw.split('?');
  return { parts: path.split('/').filter(Boolean).map(decodeURIComponent), query: new URLSearchParams(search) };
}

/** '#/printers/prt_1' style link target for parts. */
export const href = (...parts: string[]): string => `#/${parts.map(encodeURIComponent).join('/')}`;

export function navigate(target: string): void {
  location.hash = target.startsWith('#') ? target : `#${target}`;
}

/** Re-renders the caller when the hash changes. */
export function useRoute(): Route {
  const [route, setRoute] = useState(currentRoute);
  useEffect(() => {
    const update = () => setRoute(currentRoute());
    addEventListener('hashchange', update);
    return () => removeEventListener('hashchange', update);
  }, []);
  return route;
}
