import type { AnalyticsKind } from './analytics.js';

export type Route =
  | { kind: Exclude<AnalyticsKind, 'assistant-thread'>; projectId: string }
  | { kind: 'assistant-thread'; projectId: string; threadId: string }
  | { kind: 'create'; projectId: string }
  | { kind: 'get'; projectId: string; jobId: string }
  | { kind: 'message'; projectId: string; jobId: string };

export type Match = { route: Route } | { allow: string } | undefined;

/** Maps method + path to an operation: undefined for an unknown path, `allow` for a known path and the wrong method. */
export function matchRoute(method: string, pathname: string): Match {
  let parts: string[];
  try {
    parts = pathname.split('/').map(decodeURIComponent);
  } catch {
    return undefined;
  }
  const [empty, version, area, projectId, a, b, c, ...rest] = parts;
  if (empty !== '' || projectId === undefined || projectId === '' || rest.length > 0) return undefined;
  let route: Route | undefined;
  let allow = 'GET';
  if (version === 'v1' && area === 'analytics') {
    if (a === 'assistant' && b === 'threads' && c !== undefined && c !== '') {
      route = { kind: 'assistant-thread', projectId, threadId: c };
    } else {
      const kind = analyticsKind(a, b, c);
      if (kind) route = { kind, projectId };
    }
  } else if (version === 'v2' && area === 'agent' && a === 'job') {
    if (b === undefined) {
      route = { kind: 'create', projectId };
      allow = 'POST';
    } else if (b !== '' && c === undefined) {
      route = { kind: 'get', projectId, jobId: b };
    } else if (b !== '' && c === 'message') {
      route = { kind: 'message', projectId, jobId: b };
      allow = 'POST';
    }
  }
  if (!route) return undefined;
  return method === allow ? { route } : { allow };
}

/** `/v1/analytics/{projectId}/` followed by `a/b/c`: which analytics operation, if any (threads aside). */
function analyticsKind(
  a: string | undefined,
  b: string | undefined,
  c: string | undefined,
): Exclude<AnalyticsKind, 'assistant-thread'> | undefined {
  if (c !== undefined) return undefined;
  if (b === undefined) {
    return a === 'visitors' || a === 'views' || a === 'searches' || a === 'feedback' || a === 'assistant'
      ? a
      : undefined;
  }
  if (a === 'assistant' && b === 'caller-stats') return 'caller-stats';
  if (a === 'feedback' && b === 'by-page') return 'feedback-by-page';
  return undefined;
}
