export * from './model.js';
export { objectKey } from './objects.js';
export * from './stream.js';
export { classifyUserAgent, TRAFFIC_LISTS, USER_AGENTS } from './user-agents.js';
export * from './truth.js';
export * from './write.js';
export { writtenCreatedAt, eventLine } from './serialize.js';
