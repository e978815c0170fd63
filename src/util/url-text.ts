import { registerSecret } from './secrets.js';

/**
 * `scheme://user:password@` anywhere in a text, even in a value that is not a valid URL (a
 * refused flag is echoed exactly because it did not parse). A password may hold an unencoded
 * `#`, `/`, `?` or `@` that no parser takes for part of it, so the userinfo is everything
 * between `//` and the last `@` of the run of text: more is masked than a parser would, never less.
 */
const USERINFO = /\/\/[^\s"'<>]*@/g;

/** A text with the user and password of every URL in it shown as `***`: for any message that shows a URL. */
export function maskUserinfo(text: string): string {
  return text.replace(USERINFO, '//***@');
}

/**
 * Registers the password of a URL as a secret, raw and decoded, so that a copy of it outside the
 * URL (a server echoing it, a library's message) is redacted too. Not the user name: it is no
 * secret, and a name such as `admin` would mask that word in every message.
 */
export function registerUrlSecrets(raw: string): void {
  const passwords = new Set<string>([textualPassword(raw)]);
  try {
    passwords.add(new URL(raw).password);
  } catch {
    // Not a URL: nothing connects with it, but its message may still quote it.
  }
  for (const password of passwords) {
    if (password === '') continue;
    registerSecret(password);
    registerSecret(safeDecode(password));
  }
}

/**
 * The password as the text has it: after the first `:` of the userinfo, which runs from `://` to
 * the last `@` (an unencoded `#` or `/` in a password makes a parser put the host inside it, or
 * throw; `postgresql://etl:Hunter2#Secret/Path?x@host/db` has the password `Hunter2#Secret/Path?x`).
 */
function textualPassword(raw: string): string {
  const start = raw.indexOf('://');
  const at = raw.lastIndexOf('@');
  if (start < 0 || at < start + 3) return '';
  const userinfo = raw.slice(start + 3, at);
  const colon = userinfo.indexOf(':');
  return colon < 0 ? '' : userinfo.slice(colon + 1);
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** A URL with its password left out (the user kept): for a command line shown to the user. */
export function maskPassword(url: string): string {
  try {
    const u = new URL(url);
    if (u.password === '') return url;
    u.password = '';
    return u.toString();
  } catch {
    return maskUserinfo(url);
  }
}
