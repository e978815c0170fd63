import { describe, expect, it } from 'vitest';
import {
  AgentJobSchema,
  AnalyticsErrorSchema,
  VisitorsResponseSchema,
  formatIssuePath,
  parseBody,
} from '../../src/api/schemas.js';
import { ValidationError, type RequestDescription } from '../../src/errors.js';

const REQ: RequestDescription = {
  method: 'GET',
  path: '/v1/analytics/proj_1/visitors',
  query: 'dateFrom=2025-01-01&dateTo=2025-01-02&limit=250&offset=250',
};

function page(overrides: Record<string, unknown> = {}) {
  return {
    totals: { human: 10, ai: 4, total: 12 },
    visitors: [
      { path: '/a', human: 5, ai: 1, total: 6 },
      { path: '/b', human: 0, ai: 0, total: 0 },
    ],
    hasMore: false,
    ...overrides,
  };
}

function failure(body: unknown): ValidationError {
  try {
    parseBody(VisitorsResponseSchema, body, REQ);
  } catch (e) {
    expect(e).toBeInstanceOf(ValidationError);
    return e as ValidationError;
  }
  throw new Error('expected a ValidationError');
}

describe('VisitorsResponseSchema via parseBody', () => {
  it('accepts a well-formed page and strips fields it does not know', () => {
    const parsed = parseBody(VisitorsResponseSchema, { ...page(), extra: 'x' }, REQ);
    expect(parsed).toEqual(page());
    expect('extra' in parsed).toBe(false);
  });

  it('rejects a negative count, naming the field, the request and the reason', () => {
    const rows = [1, 2, 3, 4].map((i) => ({ path: `/p${i}`, human: 1, ai: 1, total: 1 }));
    rows[3] = { path: '/p4', human: 1, ai: 1, total: -1 };
    const err = failure(page({ visitors: rows }));
    expect(err.issues).toEqual(['visitors[3].total: Too small: expected number to be >=0']);
    expect(err.message).toBe(
      'GET /v1/analytics/proj_1/visitors?dateFrom=2025-01-01&dateTo=2025-01-02&limit=250&offset=250 returned a body that does not match the API schema: visitors[3].total: Too small: expected number to be >=0',
    );
    expect(err.request).toEqual(REQ);
  });

  it('rejects a fractional count', () => {
    const err = failure(page({ totals: { human: 1.5, ai: 0, total: 2 } }));
    expect(err.issues).toEqual(['totals.human: Invalid input: expected int, received number']);
  });

  it('rejects a count sent as a string', () => {
    const err = failure(page({ visitors: [{ path: '/a', human: '5', ai: 0, total: 5 }] }));
    expect(err.issues).toEqual(['visitors[0].human: Invalid input: expected number, received string']);
  });

  it('rejects a page without hasMore', () => {
    const body: Record<string, unknown> = page();
    delete body['hasMore'];
    expect(failure(body).issues).toEqual(['hasMore: Invalid input: expected boolean, received undefined']);
  });

  it('rejects a body that is not an object at all', () => {
    expect(failure('<html>').issues).toEqual(['(body): Invalid input: expected object, received string']);
  });

  it('keeps the message readable when hundreds of rows are broken', () => {
    const rows = Array.from({ length: 250 }, (_, i) => ({ path: `/p${i}`, human: -1, ai: 0, total: 0 }));
    const err = failure(page({ visitors: rows }));
    expect(err.issues).toHaveLength(11);
    expect(err.issues[10]).toBe('(+240 more issues)');
  });
});

describe('AgentJobSchema', () => {
  it('accepts a full job', () => {
    const job = {
      id: 'job_1',
      status: 'completed',
      source: { repository: 'https://github.com/org/docs', ref: 'main' },
      model: 'sonnet',
      prLink: 'https://github.com/org/docs/pull/7',
      createdAt: '2025-01-01T00:00:00Z',
      archivedAt: null,
    };
    expect(parseBody(AgentJobSchema, job, REQ)).toEqual(job);
  });

  it('accepts an empty job: no field is guaranteed', () => {
    expect(parseBody(AgentJobSchema, {}, REQ)).toEqual({});
  });

  it('accepts null prLink, archivedAt and source.ref', () => {
    const job = { id: 'j', status: 'active', prLink: null, archivedAt: null, source: { ref: null } };
    expect(parseBody(AgentJobSchema, job, REQ)).toEqual(job);
  });

  it('strips unknown fields, nested ones included', () => {
    const parsed = parseBody(
      AgentJobSchema,
      { id: 'j', secretThing: 1, source: { repository: 'r', token: 'x' } },
      REQ,
    );
    expect(parsed).toEqual({ id: 'j', source: { repository: 'r' } });
  });

  it('rejects a status of the wrong type, naming the field', () => {
    const err = (() => {
      try {
        parseBody(AgentJobSchema, { id: 'j', status: 5 }, REQ);
      } catch (e) {
        return e as ValidationError;
      }
      throw new Error('expected a ValidationError');
    })();
    expect(err).toBeInstanceOf(ValidationError);
    expect(err.issues).toHaveLength(1);
    expect(err.issues[0]).toMatch(
      /^status: Invalid option: expected one of "active"\|"completed"\|"archived"\|"failed"/,
    );
  });

  it('rejects a status outside the enum and an id that is not a string', () => {
    expect(() => parseBody(AgentJobSchema, { status: 'running' }, REQ)).toThrow(/status: Invalid option/);
    expect(() => parseBody(AgentJobSchema, { id: 42 }, REQ)).toThrow(
      /id: Invalid input: expected string, received number/,
    );
  });
});

describe('AnalyticsErrorSchema', () => {
  it('accepts {error, details} and {error} alone', () => {
    expect(AnalyticsErrorSchema.parse({ error: 'bad', details: [{ message: 'limit too big' }] })).toEqual({
      error: 'bad',
      details: [{ message: 'limit too big' }],
    });
    expect(AnalyticsErrorSchema.parse({ error: 'bad' })).toEqual({ error: 'bad' });
  });
});

describe('formatIssuePath', () => {
  it('writes paths the way a person points at a field', () => {
    expect(formatIssuePath(['visitors', 3, 'total'])).toBe('visitors[3].total');
    expect(formatIssuePath(['totals', 'ai'])).toBe('totals.ai');
    expect(formatIssuePath([])).toBe('(body)');
  });
});
