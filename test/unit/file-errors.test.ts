import { describe, expect, it } from 'vitest';
import { isLoopback } from '../../src/cli/emulator-action.js';
import { errnoCode, userFileError } from '../../src/util/file-errors.js';

const errno = (code: string): NodeJS.ErrnoException => Object.assign(new Error(`${code}: x`), { code });

describe('file-system failures the user can fix', () => {
  it('are one usage line naming the path, the reason and what to do', () => {
    const e = userFileError(errno('ENOSPC'), '--out exports', 'write the export in', '/data/exports');
    expect(e?.exitCode).toBe(2);
    expect(e?.message).toBe(
      '--out exports: cannot write the export in /data/exports (no space left on the device, ENOSPC): free some space or choose another disk',
    );
  });

  it("are recognised in DuckDB's IO Errors, which carry words and no code", () => {
    expect(errnoCode(new Error('IO Error: Could not write file "x.parquet": No space left on device'))).toBe(
      'ENOSPC',
    );
    expect(errnoCode(new Error('IO Error: Cannot open file "x.duckdb": Read-only file system'))).toBe(
      'EROFS',
    );
    expect(errnoCode(new Error('IO Error: Cannot open file "x.duckdb": Permission denied'))).toBe('EACCES');
  });

  it('leave every other failure to be reported as internal', () => {
    expect(userFileError(errno('EBADF'), '--db x', 'open', 'x')).toBeUndefined();
    expect(
      userFileError(new Error('Binder Error: permission denied'), '--db x', 'open', 'x'),
    ).toBeUndefined();
  });
});

describe('loopback addresses for the emulator', () => {
  it('are 127.0.0.0/8, ::1 and localhost; every other address needs --allow-remote', () => {
    for (const h of ['127.0.0.1', '127.1.2.3', '::1', '[::1]', 'localhost', '::ffff:127.0.0.1'])
      expect(isLoopback(h)).toBe(true);
    for (const h of ['0.0.0.0', '::', '192.168.1.5', '10.0.0.1', 'example.com', '128.0.0.1'])
      expect(isLoopback(h)).toBe(false);
  });
});
