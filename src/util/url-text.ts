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
 * Registers the password (and user) of a URL as secrets, raw and decoded, so that a copy of them
 * outside the URL (a server echoing them, a library's message) is redacted too.
 */
export function registerUrlSecrets(raw: string): void {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    // Not a URL: nothing connects with it; the userinfo mask still hides it in messages.
    const m = /\/\/([^\s/?#@]*)@/.exec(raw);
    for (const part of (m?.[1] ?? '').split(':')) registerSecret(part);
    return;
  }
  for (const part of [url.password, url.username]) {
    if (part === '') continue;
    registerSecret(part);
    registerSecret(safeDecode(part));
  }
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
