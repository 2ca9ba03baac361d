#!/usr/bin/env node
// The reference service is TypeScript; tsx runs it without a build step.
import { register } from 'tsx/esm/api';

register();
await import('../server/cli.ts');
