/**
 * Readers' text holding e-mail addresses in the forms issue 27 found unmasked, and what each must
 * read as once masked; then text that holds no address and must stay as it is. Shared by the unit
 * test of the rule and the test that DuckDB and PostgreSQL apply the same rule.
 */
export const EMAIL_CASES: readonly (readonly [string, string])[] = [
  ['write to user@bücher.de please', 'write to [email] please'],
  ['üser@例え.jp', '[email]'],
  ['ask "john smith"@example.org now', 'ask [email] now'],
  ['login as bob%40corp.io fails', 'login as [email] fails'],
  ['dave&#64;example.com and eve&#x40;example.com', '[email] and [email]'],
  ['alice＠example.com', '[email]'],
  ['carol﹫example.com', '[email]'],
  [
    'see https://docs.example.com/unsubscribe?u=bob%40corp.io&t=1',
    'see https://docs.example.com/unsubscribe?u=[email]&t=1',
  ],
  ['https://x.example/users/frank%2540corp.io/edit', 'https://x.example/users/[email]/edit'],
  ['mailto:grace@corp.example.org?subject=hi', 'mailto:[email]?subject=hi'],
  ['JOHN.DOE@EXAMPLE.COM', '[email]'],
  ['jane+tag@x.co', '[email]'],
  ["Why can't bob.smith@corp.example.org log in?", "Why can't [email] log in?"],
  ['(heidi@example.com), <ivan@example.com>; judy@example.com.', '([email]), <[email]>; [email].'],
  ['mail\u00a0ken@example.com\u3000today', 'mail\u00a0[email]\u3000today'],
  ['already [email] masked', 'already [email] masked'],
];

export const NOT_EMAILS: readonly string[] = [
  'npm i @mintlify/cli@4.0.1',
  'root@localhost',
  'How do I log in?',
  'price: 5 @ 10%',
  'Wie ÄNDERE ich die SSO-Einstellungen?',
  'a "quoted" word and an @ sign',
];
