// Module hooks (module.register) that append every module URL the process resolves to the file
// named by MODULE_TRACE_FILE: timing-free evidence of what a command loads.
import { appendFileSync } from 'node:fs';

const file = process.env.MODULE_TRACE_FILE;

export async function resolve(specifier, context, next) {
  const r = await next(specifier, context);
  if (file) appendFileSync(file, `${r.url}\n`);
  return r;
}
