// The product version, taken from package.json at build time (esbuild inlines the JSON into the binary).
import pkg from '../package.json' with { type: 'json' };

export const VERSION: string = pkg.version;
