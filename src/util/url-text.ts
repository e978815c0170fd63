import { registerSecret } from './secrets.js';

/**
 * `scheme://user:password@` anywhere in a text, even in a value that is not a valid URL (a
 * refused flag is echoed exactly because it did not parse).
 */
const USERINFO = /\/\/[^\s/?#@"'<>]*@/g;

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
  let password: string;
  try {
    password = new URL(raw).password;
  } catch {
    // Not a URL: nothing connects with it, but its message may still quote it.
    password = /\/\/[^\s/?#@:]*:([^\s/?#@]*)@/.exec(raw)?.[1] ?? '';
  }
  if (password === '') return;
  registerSecret(password);
  registerSecret(safeDecode(password));
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
