#!/usr/bin/env node
// Entry point of the `printfarm` command when installed from the source tree: runs src/main.ts through tsx.
import { register } from 'tsx/esm/api';
register();
await import('../src/main.ts');
