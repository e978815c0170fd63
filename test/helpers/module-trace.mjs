// `node --import this-file`: installs module-trace-hooks.mjs before the program's first import.
import { register } from 'node:module';

register('./module-trace-hooks.mjs', import.meta.url);
