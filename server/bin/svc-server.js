#!/usr/bin/env node
// The service as built to JavaScript (`npm run build`): nothing compiles TypeScript at run time.
await import('../dist/boot/cli.js');
