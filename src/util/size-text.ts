const MIB = 2 ** 20;

/** An object's size for people: `4.2 MiB` from one MiB up, else `70,229 bytes`. */
export function sizeText(bytes: number): string {
  return bytes >= MIB ? `${(bytes / MIB).toFixed(1)} MiB` : `${bytes.toLocaleString('en-US')} bytes`;
}
