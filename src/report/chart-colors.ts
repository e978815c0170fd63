/**
 * The report's chart colours: human, AI, total and the muted line. A module of their own so that
 * the stream charts can share them with the visitor charts (charts.ts) without importing that
 * module, which imports them.
 */
export const COLORS = { human: '#2563eb', ai: '#e8590c', total: '#0f766e', muted: '#94a3b8' } as const;
