// The browser session cookie: its name, reading it from a Cookie header, and the Set-Cookie values that set and clear it.

/** The one cookie the server sets; the dashboard never reads it (HttpOnly), it only travels with same-origin requests. */
export const SESSION_COOKIE = 'printfarm_session';

/**
 * The token from a Cookie header, or null when the cookie is absent or empty, or when the header carries two different
 * values: another site on the same host (another port, a sibling subdomain) can plant a second `printfarm_session`
 * with a narrower Path that the browser sends first, and acting on it would make the user act as the planter's account.
 */
export function readSessionCookie(header: string | undefined): string | null {
  if (!header) return null;
  const values = new Set<string>();
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0 || part.slice(0, eq).trim() !== SESSION_COOKIE) continue;
    let value = part.slice(eq + 1).trim();
    // RFC 6265 allows a quoted cookie value.
    if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) value = value.slice(1, -1);
    if (value !== '') values.add(value);
  }
  return values.size === 1 ? ([...values][0] as string) : null;
}

/**
 * HttpOnly: page scripts (and anything injected into them) cannot read it. SameSite=Strict: other sites' pages never
 * make the browser send it. Secure only over https, or a plain-http farm PC could never keep it.
 */
export function sessionCookie(token: string, maxAgeSeconds: number, secure: boolean): string {
  return `${SESSION_COOKIE}=${token}; HttpOnly; SameSite=Strict; Path=/; Max-Age=${Math.max(0, Math.floor(maxAgeSeconds))}${secure ? '; Secure' : ''}`;
}

/** Tells the browser to drop the cookie at once (sign-out, or a session the server no longer knows). */
export function clearedSessionCookie(secure: boolean): string {
  return `${SESSION_COOKIE}=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0; Expires=Thu, 01 Jan 1970 00:00:00 GMT${secure ? '; Secure' : ''}`;
}
