import type { HttpStatusError } from '../errors.js';

export interface NotFound {
  /** `project`: the API knows no such project; `url`: the API URL is wrong for every project. */
  readonly kind: 'project' | 'url';
  readonly message: string;
}

/**
 * What a 404 from an analytics endpoint means. The service names the project when it does not
 * know it; a router's "no route" or an HTML page (a `/v1` too many in the URL, a proxy that does
 * not pass the path through) names none, and then no project id would help.
 */
export function explainNotFound(apiUrl: string, projectId: string, e: HttpStatusError): NotFound {
  if (/project/i.test(e.serverError ?? '')) {
    return {
      kind: 'project',
      message: `project ${projectId} was not found (404) at ${apiUrl}: check --project / MINTLIFY_PROJECT_ID against the dashboard's API keys page`,
    };
  }
  return {
    kind: 'url',
    message: `the API at ${apiUrl} answered 404 for ${e.request.path}${e.serverError ? ` ("${e.serverError}")` : ''} without naming the project: the API URL looks wrong. Give the service's base URL (https://api.mintlify.com, without /v1); a proxy must pass /v1/analytics/... through unchanged`,
  };
}
