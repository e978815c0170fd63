export * from './budget.js';
export * from './client.js';
export * from './key.js';
export * from './retry-after.js';
export * from './retry.js';
export * from './schemas.js';
