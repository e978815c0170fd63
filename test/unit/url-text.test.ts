import { describe, expect, it } from 'vitest';
import { maskUserinfo, registerUrlSecrets } from '../../src/util/url-text.js';
import { redactSecrets } from '../../src/util/secrets.js';

describe('the password of a database URL that does not parse', () => {
  const PASSWORD = 'Hunter2#Secret/Path?x';
  const RAW = `postgresql://etl:${PASSWORD}@host/db`;

  it('is masked in the URL: everything from // to the last @ is userinfo', () => {
    expect(maskUserinfo(`--db ${RAW} is not valid`)).toBe('--db postgresql://***@host/db is not valid');
    expect(maskUserinfo('postgresql://u:p@ss#w/rd@h:5432/d')).toBe('postgresql://***@h:5432/d');
  });

  it('is registered as a secret, so a copy of it anywhere is redacted, pieces too', () => {
    registerUrlSecrets(RAW);
    expect(redactSecrets(`said: ${PASSWORD}; and ${PASSWORD.slice(0, 9)}`)).toBe('said: ****; and ****');
    // A password that starts with digits parses as a port: the text's rule still finds it.
    registerUrlSecrets('postgresql://etl:90210#Beverly-Hills@host/db');
    expect(redactSecrets('port 90210#Beverly-Hills')).toBe('port ****');
  });
});
