import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * An opaque cursor that is really a signed JSON payload: the emulator can tell a cursor it
 * minted (for this seed, project and purpose) from a garbage, tampered or foreign one.
 */
export class SignedCursors {
  private readonly key: string;

  constructor(purpose: string, seed: number, projectId: string) {
    this.key = `mintlify-emulator:${purpose}:${seed}:${projectId}`;
  }

  encode(fields: unknown): string {
    const payload = Buffer.from(JSON.stringify(fields)).toString('base64url');
    return `${payload}.${this.sign(payload)}`;
  }

  /** The payload of a cursor this signer minted, or undefined. */
  decode(cursor: string): unknown {
    const [payload, signature, ...rest] = cursor.split('.');
    if (payload === undefined || signature === undefined || rest.length > 0) return undefined;
    const expected = Buffer.from(this.sign(payload));
    const given = Buffer.from(signature);
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) return undefined;
    return JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as unknown;
  }

  /** A keyed digest of `text`, for cursors that carry their own check. */
  digest(text: string): Buffer {
    return createHmac('sha256', this.key).update(text).digest();
  }

  private sign(payload: string): string {
    return this.digest(payload).toString('base64url').slice(0, 22);
  }
}
