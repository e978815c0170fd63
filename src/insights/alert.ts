import { createHash } from 'node:crypto';
import type { RuleName } from './alert-rules.js';
import { maskEmails } from '../util/personal-data.js';

/** One alert: what `alerts` prints, records in alerts_sent and posts to the webhook. */
export interface Alert {
  /** Stable from run to run: a hash of project, rule, subject and day. */
  readonly id: string;
  readonly projectId: string;
  /** The day evaluated (UTC). */
  readonly day: string;
  readonly rule: RuleName;
  /** What the alert is about: `visitors`, a page path, a search term, `auth`, a stream... */
  readonly subject: string;
  /** One line for people. */
  readonly message: string;
  /** The numbers behind it, for machines and the webhook's fields. */
  readonly fields: Readonly<Record<string, string | number | null>>;
}

export function alertId(projectId: string, rule: RuleName, subject: string, day: string): string {
  return `al_${createHash('sha256').update(`${projectId}|${rule}|${subject}|${day}`).digest('hex').slice(0, 12)}`;
}

/**
 * An alert whose id is keyed by its day: the same finding on a later day is a new alert, sent
 * again. `once` keys it by something else instead (the backfill's first day): an alert about a
 * state that lasts several nights is then sent once, not every night. Readers' text reaches alerts
 * (a search term, the top unanswered questions): its e-mail addresses are masked here, once for
 * every rule, before the alert is printed, recorded or posted.
 */
export function makeAlert(a: Omit<Alert, 'id'>, once?: string): Alert {
  const masked = {
    ...a,
    subject: maskEmails(a.subject),
    message: maskEmails(a.message),
    fields: Object.fromEntries(
      Object.entries(a.fields).map(([k, v]) => [k, typeof v === 'string' ? maskEmails(v) : v]),
    ),
  };
  return { id: alertId(masked.projectId, masked.rule, masked.subject, once ?? masked.day), ...masked };
}

/** What one project's evaluation found: its alerts and what kept rules from running (said once). */
export interface Evaluation {
  readonly projectId: string;
  /** The day evaluated, or null when the project has no complete loaded day. */
  readonly day: string | null;
  readonly alerts: Alert[];
  readonly notes: string[];
}

const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

export function weekday(day: string): string {
  return WEEKDAYS[new Date(`${day}T00:00:00Z`).getUTCDay()] ?? '';
}

export function round(n: number, digits = 1): number {
  const f = 10 ** digits;
  return Math.round(n * f) / f;
}
